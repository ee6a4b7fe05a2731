"""A real Matter device for the end-to-end test: CircuitMatter's on/off light with fixed codes.

CircuitMatter 0.4.1 is used as published; this launcher corrects, at run time and only in this process, the
behaviours that stop a controller from commissioning and interviewing it:

- fixed codes: the state file gets discriminator 3840 and passcode 20202021 (QR ``MT:MNOA55UM00KA0648G00``,
  manual ``34970112332``) instead of random ones, so the test knows the device's onboarding payloads;
- short discriminator: the commissionable advert also carries the ``_S<short discriminator>`` subtype, which a
  controller looks for when it has only the 11-digit manual pairing code;
- chunked Read reports: a Read answered in several chunks asks the controller for the next chunk
  (SuppressResponse is false on every chunk but the last), so an interview does not hang;
- RemoveFabric: the 1-based FabricIndex is turned into the 0-based index of the fabric lists;
- SIGTERM/SIGINT: the ``avahi-publish-service`` children are stopped before the process exits.

Usage: python circuitmatter_device.py --state FILE [--ready-file FILE] [--no-short-discriminator]
The state file must not exist yet (a fresh device per test). The device runs until SIGTERM or SIGINT.
"""

import argparse
import binascii
import json
import pathlib
import select
import signal
import sys

import circuitmatter
from circuitmatter import certificates, interaction_model
from circuitmatter.clusters.device_management.node_operational_credentials import (
    NodeOperationalCertStatusEnum,
    NodeOperationalCredentialsCluster,
)
from circuitmatter.device_types.lighting import on_off
from circuitmatter.device_types.utility import root_node
from circuitmatter.utility import random
from circuitmatter.utility.mdns.avahi import Avahi

VENDOR_ID = 0xFFF4
PRODUCT_ID = 0x1234
DISCRIMINATOR = 3840
PASSCODE = 20202021


def log(message):
    print(f"device: {message}", file=sys.stderr, flush=True)


def write_fixed_state(path: pathlib.Path, name: str) -> None:
    """Writes a new device's state with the test discriminator and passcode (and the verifier they imply)."""
    state = certificates.generate_initial_state(VENDOR_ID, PRODUCT_ID, name, random)
    salt = binascii.a2b_base64(state["salt"])
    verifier = certificates.compute_verifier(PASSCODE, salt, state["iteration-count"])
    state["discriminator"] = DISCRIMINATOR
    state["passcode"] = PASSCODE
    state["verifier"] = binascii.b2a_base64(verifier, newline=False).decode("utf-8")
    state["manual_code"] = certificates.compute_manual_code(DISCRIMINATOR, PASSCODE)
    path.write_text(json.dumps(state, indent=1))


def fix_chunked_read_reports() -> None:
    """Makes every chunk but the last of a Read's report ask for the next one (SuppressResponse false)."""
    original = interaction_model.ReportDataMessage.encode_into

    def encode_into(self, buffer, offset=0):
        if "_final_suppress" not in self.__dict__:
            self.__dict__["_final_suppress"] = bool(self.SuppressResponse)
        if not self.__dict__["_final_suppress"]:
            return original(self, buffer, offset)
        # Encoding only consumes attribute reports when it splits them, so a report that turns out to fit in
        # this chunk can be encoded again with its final SuppressResponse.
        self.SuppressResponse = False
        end = original(self, buffer, offset)
        if self.MoreChunkedMessages:
            return end
        self.SuppressResponse = True
        return original(self, buffer, offset)

    interaction_model.ReportDataMessage.encode_into = encode_into


def fix_remove_fabric() -> None:
    """RemoveFabric with the FabricIndex as CASE sessions number fabrics (index + 1)."""

    def remove_fabric(self, session, args):
        index = args.FabricIndex - 1
        response = NodeOperationalCredentialsCluster.NOCResponse()
        if index < 0 or index >= len(self.fabrics) or self.fabrics[index] is None:
            response.StatusCode = NodeOperationalCertStatusEnum.INVALID_FABRIC_INDEX
            return response
        self.commissioned_fabrics -= 1
        self.noc_keys[index] = None
        self.root_certs[index] = None
        self.compressed_fabric_ids[index] = None
        self.fabrics[index] = None
        self.nocs[index] = None
        response.StatusCode = NodeOperationalCertStatusEnum.OK
        return response

    root_node._NodeOperationalCredentialsCluster.remove_fabric = remove_fabric


class ShortDiscriminatorAvahi(Avahi):
    """Avahi publisher that adds the `_S` (short discriminator) subtype to the commissionable advert."""

    def advertise_service(self, service_type, protocol, port, txt_records={}, subtypes=[], instance_name=""):
        if service_type == "_matterc" and "D" in txt_records:
            short = int(txt_records["D"]) >> 8
            subtypes = [*subtypes, f"_S{short}._sub._matterc._udp"]
        super().advertise_service(service_type, protocol, port, txt_records, subtypes, instance_name)

    def stop(self):
        for process in self.active_services.values():
            process.terminate()
        for process in self.active_services.values():
            try:
                process.wait(timeout=5)
            except Exception:
                process.kill()
        self.active_services.clear()


class TestLight(on_off.OnOffLight):
    def on(self):
        log("light on")

    def off(self):
        log("light off")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", required=True, type=pathlib.Path)
    parser.add_argument("--ready-file", type=pathlib.Path)
    parser.add_argument("--no-short-discriminator", action="store_true")
    args = parser.parse_args()
    if args.state.exists():
        log(f"{args.state} exists; a test device starts from a fresh state file")
        return 2

    write_fixed_state(args.state, "CircuitMatter Light")
    fix_chunked_read_reports()
    fix_remove_fabric()
    mdns = Avahi() if args.no_short_discriminator else ShortDiscriminatorAvahi()
    stopping = []

    def stop(signum, frame):
        stopping.append(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        matter = circuitmatter.CircuitMatter(state_filename=str(args.state), mdns_server=mdns)
        matter.add_device(TestLight("light"))
        log("ready")
        if args.ready_file is not None:
            args.ready_file.write_text("ready\n")
        while not stopping:
            select.select([matter.socket], [], [], 0.01)
            matter.process_packets()
    finally:
        if isinstance(mdns, ShortDiscriminatorAvahi):
            mdns.stop()
        else:
            for process in mdns.active_services.values():
                process.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
