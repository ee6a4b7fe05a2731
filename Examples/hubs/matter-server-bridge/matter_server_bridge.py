#!/usr/bin/env python3
"""MatterFlow hub for the Open Home Foundation Matter Server: speaks MatterFlow's hub protocol on standard input
and output, and the Matter Server's WebSocket API on the other side.

    matterflow run Workflows/commission-device.json \\
        --hub "python3 matter_server_bridge.py --server ws://HOST:5580/ws --state ~/matterflow-bridge.json" ...

Options are listed by --help. The state file and the mapping are described in README.md beside this file.
"""

import argparse
import asyncio
import os
import pathlib
import signal
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from mfbridge import rpc  # noqa: E402
from mfbridge.hub import MatterServerHub  # noqa: E402
from mfbridge.matter_server import MatterServer  # noqa: E402
from mfbridge.state import StateFileError, StateStore, initial_state  # noqa: E402

DEFAULT_ROOMS = ["Living Room", "Kitchen", "Bedroom"]


def default_state_path() -> pathlib.Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return pathlib.Path(base) / "matterflow" / "matter-server-bridge.json"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="matter_server_bridge.py",
        description="MatterFlow hub protocol (JSON-RPC on stdin/stdout) bridged to the Matter Server.")
    parser.add_argument("--server", default="ws://localhost:5580/ws",
                        help="the Matter Server's WebSocket URL (default: %(default)s)")
    parser.add_argument("--state", type=pathlib.Path, default=None,
                        help="the bridge's state file (default: $XDG_STATE_HOME/matterflow/matter-server-bridge.json)")
    parser.add_argument("--structure", default="home",
                        help="ID of the structure created with a new state file (default: %(default)s)")
    parser.add_argument("--structure-name", default="Home", help="its name (default: %(default)s)")
    parser.add_argument("--room", action="append", dest="rooms", metavar="NAME",
                        help="a room of that structure (repeatable; default: " + ", ".join(DEFAULT_ROOMS) + ")")
    parser.add_argument("--lease-seconds", type=float, default=300.0,
                        help="a session idle this long ends, and its new nodes are removed (default: %(default)s)")
    parser.add_argument("--commission-timeout", type=float, default=120.0,
                        help="the longest a commissioning may take (default: %(default)s)")
    parser.add_argument("--server-heartbeat", type=float, default=30.0,
                        help="ping the Matter Server this often; a connection that misses a pong for half of it is "
                        "dropped, failing the calls waiting on it, and opened again (default: %(default)s)")
    args = parser.parse_args(argv)
    for name in ("lease_seconds", "commission_timeout", "server_heartbeat"):
        value = getattr(args, name)
        if not (0 < value <= 86400):
            parser.error(f"--{name.replace('_', '-')} must be more than 0 and at most 86400 seconds, got {value:g}")
    return args


async def serve(hub: MatterServerHub) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=rpc.MAX_LINE + 1)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    stdout = sys.stdout.buffer

    def write_line(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    connection = rpc.Connection(reader, write_line, hub)
    serving = asyncio.create_task(connection.serve())
    stopped = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stopped.set)
    # Ctrl-C in a terminal reaches the whole process group: the client cancels its calls and closes standard input,
    # so the bridge keeps serving until then, to answer the cancel path's calls.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopping = asyncio.create_task(stopped.wait())
    await asyncio.wait([serving, stopping], return_when=asyncio.FIRST_COMPLETED)
    if not serving.done():
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
    stopping.cancel()
    # A commissioning the Matter Server is still running is waited for, so its outcome is in the state file.
    await hub.settle()
    await hub.server.close()


def main(argv=None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    path = args.state or default_state_path()
    store = StateStore(path, initial_state(args.structure, args.structure_name, args.rooms or DEFAULT_ROOMS))
    try:
        store.read()
    except StateFileError as error:
        rpc.log(str(error))
        return 2
    hub = MatterServerHub(MatterServer(args.server, heartbeat=args.server_heartbeat), store, args.lease_seconds, args.commission_timeout)
    asyncio.run(serve(hub))
    return 0


if __name__ == "__main__":
    sys.exit(main())
