"""The hub's operations: MatterFlow's commissioning flow mapped onto the Matter Server.

The Matter Server commissions, reads and removes nodes; sessions, structures, rooms, permission and device names'
rooms are this bridge's own, kept in the state file (see state.py). Device IDs are Matter node IDs in decimal.
"""

import asyncio
import os
import secrets
import time
import unicodedata

from . import NAME, VERSION, params
from .errors import HubError, scrub
from .rpc import log
from .matter_server import (
    INTERVIEW_FAILED,
    INVALID_ARGUMENTS,
    NODE_COMMISSION_FAILED,
    NODE_NOT_EXISTS,
    NODE_NOT_RESOLVING,
    MatterServer,
    ServerError,
    ServerUnreachable,
)
from .state import PHASES, StateStore

BASIC_INFORMATION = {"vendorName": "0/40/1", "vendorID": "0/40/2", "productName": "0/40/3", "productID": "0/40/4",
                     "softwareVersion": "0/40/9"}
NODE_LABEL = "0/40/5"
NODE_LABEL_MAX_BYTES = 32
#: The Matter Server's errors that come after the device joined the fabric (its interview or resolution failed).
JOINED_THEN_FAILED = (INTERVIEW_FAILED, NODE_NOT_RESOLVING, NODE_NOT_EXISTS)

#: Interaction Model statuses a device may answer a write with (Matter Core spec, 8.10), by what the caller can do.
_NAME_REFUSED = {0x87: "CONSTRAINT_ERROR"}
_NAME_UNSUPPORTED = {0x7E: "UNSUPPORTED_ACCESS", 0x86: "UNSUPPORTED_ATTRIBUTE", 0x88: "UNSUPPORTED_WRITE",
                     0x8F: "UNSUPPORTED_ENDPOINT", 0xC3: "UNSUPPORTED_CLUSTER"}
_TRY_AGAIN = {0x94: "TIMEOUT", 0x9C: "BUSY", 0x9A: "NEEDS_TIMED_INTERACTION"}


def _write_refusal(written, node_id: str) -> HubError | None:
    """The error for a write the device answered with a status other than SUCCESS, or None.

    write_attribute answers a list of attribute statuses ({"Path": ..., "Status": n}); the Matter Server reports a
    device's refusal there, not as an error.
    """
    if not isinstance(written, list):
        return None
    for status in written:
        code = status.get("Status") if isinstance(status, dict) else None
        if not isinstance(code, int) or code == 0:
            continue
        if code in _NAME_REFUSED:
            return HubError("invalidArgumentValue", f"node {node_id} refused the name ({_NAME_REFUSED[code]}, status "
                            f"0x{code:02X}); pick a shorter or plainer name")
        if code in _NAME_UNSUPPORTED:
            return HubError("notSupported", f"node {node_id} does not let its name (Basic Information NodeLabel) be "
                            f"written ({_NAME_UNSUPPORTED[code]}, status 0x{code:02X}); cancel, and name it in its maker's "
                            "app instead")
        said = _TRY_AGAIN.get(code, "status")
        return HubError("deviceUnreachable", f"node {node_id} did not take the name ({said} 0x{code:02X}); try again")
    return None


def _pid_alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class MatterServerHub:
    name = NAME
    version = VERSION

    def __init__(self, server: MatterServer, store: StateStore, lease_seconds: float = 300.0,
                 commission_timeout: float = 120.0, clock=time.time):
        self.server = server
        self.store = store
        self.lease_seconds = lease_seconds
        self.commission_timeout = commission_timeout
        self.clock = clock
        self.inflight: dict[str, asyncio.Task] = {}

    def operations(self) -> dict:
        return {
            "status": self.status,
            "prepareCommissioning": self.prepare_commissioning,
            "createAddDeviceRequest": self.create_add_device_request,
            "commissionDevice": self.commission_device,
            "fetchRooms": self.fetch_rooms,
            "configureDevice": self.configure_device,
            "completeCommissioning": self.complete_commissioning,
            "cancelCommissioning": self.cancel_commissioning,
            "basicInformation": self.basic_information,
            "activeSession": self.active_session,
            "threadNetworkSettings": self.thread_network_settings,
        }

    def structure_ids(self) -> list[str]:
        return [structure["id"] for structure in self.store.read()["structures"]]

    def instance(self) -> str:
        """The ID that tells this bridge from another (the handshake's hub.instance): made once and kept in the state
        file, so it lasts exactly as long as the sessions and devices the file holds."""
        with self.store.transaction() as state:
            if not isinstance(state.get("instance"), str):
                state["instance"] = "bridge-" + secrets.token_hex(16)
            return state["instance"]

    async def settle(self) -> None:
        """Waits for commissioning calls still running (their outcome is recorded in the state file)."""
        if self.inflight:
            await asyncio.gather(*self.inflight.values(), return_exceptions=True)

    # MARK: - Helpers

    def _structure(self, state: dict, method: str, call: dict) -> dict:
        structure_id = params.string(method, call, "structure")
        for structure in state["structures"]:
            if structure["id"] == structure_id:
                return structure
        known = ", ".join(s["id"] for s in state["structures"]) or "none"
        raise HubError("structureNotFound", f"structure {structure_id!r} is not kept by this bridge (its structures: "
                       f"{known}); pass one of those, or add it to the bridge's state file")

    def _expire_if_idle(self, structure: dict) -> list[str]:
        """Ends a session idle longer than its lease; returns the node IDs it had added (to remove). An expired
        session keeps them until they are removed, so a removal that failed is tried again at the next call."""
        session = structure["session"]
        if session is not None and session["phase"] == "expired":
            return list(session.get("pendingDeviceIDs", []))
        if session is None or session["phase"] not in PHASES or session["phase"] == "commissioning":
            return []
        if self.clock() - session["lastActivity"] <= self.lease_seconds:
            return []
        pending = list(session["pendingDeviceIDs"])
        structure["session"] = {"sessionID": session["sessionID"], "phase": "expired",
                                "expiredPhase": session["phase"], "lastActivity": session["lastActivity"],
                                "pendingDeviceIDs": pending}
        return pending

    async def _remove_nodes(self, node_ids) -> None:
        for node_id in node_ids:
            try:
                await self.server.command("remove_node", {"node_id": int(node_id)})
            except ServerError as error:
                if error.code != NODE_NOT_EXISTS:
                    raise HubError("hubFailure", f"the Matter Server could not remove node {node_id} "
                                   f"({scrub(error)}); cancel again, or remove it in the Matter Server") from None
            except ServerUnreachable as error:
                raise HubError("hubUnreachable", f"{error}; node {node_id} is still commissioned: cancel again once "
                               "the Matter Server answers") from None

    async def _transaction_on(self, method: str, call: dict, action):
        """Runs `action(structure)` on the named structure under the state lock. An idle session is expired first,
        in a transaction of its own (kept even when the action then fails, with `sessionExpired`), and its nodes
        removed; a removal that fails is logged and tried again at the next call, and does not fail this one."""
        with self.store.transaction() as state:
            structure = self._structure(state, method, call)
            expired = self._expire_if_idle(structure)
            expired_session = structure["session"]["sessionID"] if expired else None
        if expired:
            try:
                await self._remove_nodes(expired)
            except HubError as error:
                log(f"the nodes of expired session {expired_session} stay for now: {scrub(error)}")
            else:
                with self.store.transaction() as state:
                    session = self._structure(state, method, call)["session"]
                    if session is not None and session["sessionID"] == expired_session and session["phase"] == "expired":
                        session["pendingDeviceIDs"] = []
        with self.store.transaction() as state:
            return action(self._structure(state, method, call))

    @staticmethod
    def _require(structure: dict, event: str, allowed: tuple, call: dict) -> dict:
        session = structure["session"]
        if session is None:
            raise HubError("noActiveSession", f"{event} needs an active commissioning session on structure "
                           f"{structure['id']}, and none is open; run prepare first")
        expected = params.context_expected_session(event, call)
        if expected is not None and session["sessionID"] != expected:
            raise HubError("noActiveSession", f"{event} was made for commissioning session {expected}, which is no "
                           f"longer active on structure {structure['id']} (the active one, {session['sessionID']}, "
                           "belongs to another client); run prepare again")
        if session["phase"] == "expired":
            raise HubError("sessionExpired", f"{event} is not allowed: the commissioning session "
                           f"{session['sessionID']} expired while {session['expiredPhase']} because its lease ran "
                           "out without activity (its pending devices were removed); run prepare again")
        if session["phase"] not in allowed:
            raise HubError("sessionOutOfOrder",
                           f"{event} is not allowed while the commissioning session is {session['phase']}")
        return session

    async def _reach(self) -> dict:
        try:
            return await self.server.connect()
        except ServerUnreachable as error:
            raise HubError("hubUnreachable", f"{error}; start the Matter Server or pass its address with --server")

    # MARK: - Operations

    @staticmethod
    def _holder(session: dict) -> dict:
        """Who holds an active session, as `status` tells it (the noActiveSession guard's sessionBusy names it)."""
        return {"sessionID": session["sessionID"], "owner": session.get("owner"),
                "commissioningID": session.get("commissioningID") if session["phase"] == "commissioning" else None,
                "openedAt": session.get("openedAt")}

    async def status(self, call: dict) -> dict:
        def read(structure):
            session = structure["session"]
            active = session is not None and session["phase"] in PHASES
            return structure["permissionGranted"], active, self._holder(session) if active else None

        permission, active, holder = await self._transaction_on("status", call, read)
        try:
            info = await self.server.connect()
            reachable, online = True, isinstance(info, dict) and "fabric_id" in info
        except ServerUnreachable:
            reachable = online = False
        return {"online": online, "reachable": reachable, "permissionGranted": permission, "activeSession": active,
                "holder": holder}

    async def prepare_commissioning(self, call: dict) -> dict:
        owner = params.context_run_id("prepareCommissioning", call)
        with self.store.transaction() as state:
            structure = self._structure(state, "prepareCommissioning", call)
            if not structure["permissionGranted"]:
                raise HubError("permissionNotGranted", f"this app has no permission on structure {structure['id']}; "
                               "set permissionGranted to true for it in the bridge's state file")
        await self._reach()

        def open_session(structure):
            if not structure["permissionGranted"]:
                raise HubError("permissionNotGranted", f"this app has no permission on structure {structure['id']}")
            session = structure["session"]
            if session is not None and session["phase"] in PHASES:
                held = f", held by run {session['owner']}" if session.get("owner") else ""
                if session.get("openedAt") is not None:
                    held += " since " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(session["openedAt"]))
                raise HubError("sessionBusy", f"another commissioning session ({session['sessionID']}) is "
                               f"{session['phase']} on structure {structure['id']}{held}; cancel it or wait for it "
                               "to finish")
            session_id = "session-" + secrets.token_hex(6)
            now = self.clock()
            structure["session"] = {
                "sessionID": session_id, "phase": "prepared", "owner": owner, "openedAt": now, "lastActivity": now,
                "topology": None, "requestID": None, "commissioningID": None, "commissioning": None,
                "pendingDeviceIDs": [], "deviceName": None, "roomName": None,
            }
            return session_id

        return {"sessionID": await self._transaction_on("prepareCommissioning", call, open_session)}

    async def create_add_device_request(self, call: dict) -> dict:
        topology = params.topology("createAddDeviceRequest", call)

        def request(structure):
            session = self._require(structure, "request", ("prepared",), call)
            if not topology["homes"]:
                topology["homes"] = [structure["name"]]
            session.update(phase="requested", topology=topology, requestID="request-" + secrets.token_hex(6),
                           lastActivity=self.clock())
            return {"requestID": session["requestID"], "topology": topology}

        return await self._transaction_on("createAddDeviceRequest", call, request)

    async def commission_device(self, call: dict) -> dict:
        received = time.perf_counter()
        payload = params.string("commissionDevice", call, "onboardingPayload", secret=True)
        commissioning_id = params.string("commissionDevice", call, "commissioningID")
        if not params.looks_like_onboarding_payload(payload):
            raise HubError("invalidPayload", "the onboarding payload is neither a QR code payload (MT:...) nor an "
                           "11- or 21-digit manual pairing code; check the code on the device or its packaging")
        # commissioningID is the call's idempotency key: a retry of a commissioning running here waits for it, and
        # one of a commissioning that succeeded answers as it did.
        with self.store.transaction() as state:
            session = self._structure(state, "commissionDevice", call)["session"] or {}
            repeat = session.get("commissioningID") == commissioning_id or session.get("lastCommissioningID") == commissioning_id
            structure_id = self._structure(state, "commissionDevice", call)["id"]
        if repeat and session.get("phase") == "commissioning" and structure_id in self.inflight:
            await asyncio.shield(self.inflight[structure_id])
            return {}
        if repeat and session.get("phase") == "commissioned":
            return {}
        with self.store.transaction() as state:
            self._require(self._structure(state, "commissionDevice", call), "commission", ("requested",), call)
        await self._reach()
        try:
            nodes_before = await self.server.node_ids()
        except (ServerUnreachable, ServerError) as error:
            raise HubError("hubUnreachable", f"cannot list the Matter Server's nodes ({scrub(error)})") from None

        def begin(structure):
            session = self._require(structure, "commission", ("requested",), call)
            session.update(phase="commissioning", commissioningID=commissioning_id, lastActivity=self.clock(),
                           commissioning={"startedAt": self.clock(), "nodesBefore": nodes_before,
                                          "process": os.getpid()})
            return structure["id"], session["sessionID"]

        structure_id, session_id = await self._transaction_on("commissionDevice", call, begin)
        task = asyncio.create_task(self._commission(structure_id, session_id, payload))
        # A cancelled call no longer awaits the task: its error is read here, so asyncio does not report it.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        self.inflight[structure_id] = task
        # The Matter Server cannot stop a commissioning it has begun: a cancelled call stops waiting, and the
        # task still records the outcome, so that cancelCommissioning can remove a node it added.
        await asyncio.shield(task)
        log(f"commissionDevice handled in {time.perf_counter() - received:.3f} s")
        return {}

    async def _commission(self, structure_id: str, session_id: str, payload: str) -> None:
        node_id, failure, in_doubt = None, None, False
        started = time.perf_counter()
        try:
            node = await self.server.command("commission_with_code", {"code": payload, "network_only": True},
                                             timeout=self.commission_timeout)
            node_id = str(node["node_id"])
            log(f"commission_with_code answered in {time.perf_counter() - started:.3f} s: node {node_id}")
        except ServerError as error:
            log(f"commission_with_code failed in {time.perf_counter() - started:.3f} s: error {error.code}")
            failure = self._commission_error(error)
            # These come after the device joined the fabric: the Matter Server may keep the node. The session
            # stays as an interrupted commissioning, so that cancelCommissioning finds and removes it.
            in_doubt = error.code in JOINED_THEN_FAILED
        except ServerUnreachable as error:
            failure, in_doubt = HubError("hubUnreachable", f"{error}; whether the device joined is not known: "
                                         "cancel the session to remove it if it did"), True
        finally:
            self.inflight.pop(structure_id, None)
        stray = None
        if not in_doubt:
            with self.store.transaction() as state:
                structure = next(s for s in state["structures"] if s["id"] == structure_id)
                session = structure["session"]
                if session is not None and session["sessionID"] == session_id and session["phase"] == "commissioning":
                    session.update(phase="commissioned" if node_id else "requested", commissioning=None,
                                   commissioningID=None, lastActivity=self.clock(),
                                   lastCommissioningID=session["commissioningID"] if node_id else None,
                                   pendingDeviceIDs=[node_id] if node_id else [])
                elif node_id:
                    stray = node_id  # the session ended meanwhile: the node belongs to nobody
        if stray:
            await self._remove_nodes([stray])
        if failure:
            raise failure

    @staticmethod
    def _commission_error(error: ServerError) -> HubError:
        said = scrub(error.details)
        if error.code == NODE_COMMISSION_FAILED:
            return HubError("commissioningFailed", "the device could not be commissioned with this onboarding payload "
                            f"(the Matter Server said: {said}). Check that the code belongs to this device (a wrong "
                            "setup passcode fails this way), and that the device is powered, in commissioning mode and "
                            "on the Matter Server's network, then try again")
        if error.code in (NODE_NOT_RESOLVING, NODE_NOT_EXISTS):
            return HubError("deviceUnreachable", f"the device joined but could not be found on the network afterwards "
                            f"({said}); cancel the session (it removes the node), check the device's network, then "
                            "try again")
        if error.code == INVALID_ARGUMENTS:
            return HubError("invalidPayload", f"the Matter Server refused the onboarding payload ({said}); check the "
                            "code on the device or its packaging")
        if error.code == INTERVIEW_FAILED:
            return HubError("commissioningFailed", f"the device joined but the Matter Server could not read its "
                            f"description ({said}); cancel the session (it removes the node), reset the device and "
                            "try again")
        return HubError("commissioningFailed", f"the Matter Server could not commission the device (error "
                        f"{error.code}: {said}); try again")

    async def fetch_rooms(self, call: dict) -> dict:
        return {"rooms": await self._transaction_on(
            "fetchRooms", call, lambda structure: [dict(room) for room in structure["rooms"]])}

    async def configure_device(self, call: dict) -> dict:
        name = params.string("configureDevice", call, "name")
        room_name = params.optional_string("configureDevice", call, "roomName")
        if not name or len(name.encode("utf-8")) > NODE_LABEL_MAX_BYTES:
            raise HubError("invalidArgumentValue", f"configureDevice: the name must be 1 to {NODE_LABEL_MAX_BYTES} "
                           "bytes of UTF-8 (it is written to the device's Basic Information NodeLabel)", -32602)
        if any(unicodedata.category(character) == "Cc" for character in name):
            raise HubError("invalidArgumentValue", "configureDevice: the name holds a control character (a line break, "
                           "tab or escape); remove it", -32602)

        def check(structure):
            session = self._require(structure, "configure", ("commissioned", "configured"), call)
            if room_name is None:
                session["lastActivity"] = self.clock()
                return session["sessionID"], list(session["pendingDeviceIDs"]), None
            # The room as the state file spells it: the same text in other code points (NFD "Küche") finds it.
            wanted = unicodedata.normalize("NFC", room_name)
            matches = [room["name"] for room in structure["rooms"] if unicodedata.normalize("NFC", room["name"]) == wanted]
            if not matches:
                rooms = ", ".join(room["name"] for room in structure["rooms"]) or "none"
                raise HubError("roomNotFound", f"room {room_name!r} is not in structure {structure['id']} (its rooms: "
                               f"{rooms}); pick one of those, or add it to the bridge's state file")
            session["lastActivity"] = self.clock()
            return session["sessionID"], list(session["pendingDeviceIDs"]), matches[0]

        session_id, node_ids, room_name = await self._transaction_on("configureDevice", call, check)
        for node_id in node_ids:
            try:
                written = await self.server.command("write_attribute", {"node_id": int(node_id),
                                                                        "attribute_path": NODE_LABEL, "value": name})
            except ServerError as error:
                raise HubError("deviceUnreachable", f"could not write the name to node {node_id} "
                               f"({scrub(error)}); try again") from None
            except ServerUnreachable as error:
                raise HubError("hubUnreachable", str(error)) from None
            if (refusal := _write_refusal(written, node_id)) is not None:
                raise refusal

        def record(structure):
            session = self._require(structure, "configure", ("commissioned", "configured"), call)
            if session["sessionID"] != session_id:
                raise HubError("sessionOutOfOrder", "the commissioning session changed while configuring")
            session.update(phase="configured", deviceName=name, roomName=room_name, lastActivity=self.clock())

        await self._transaction_on("configureDevice", call, record)
        return {}

    async def complete_commissioning(self, call: dict) -> dict:
        def complete(structure):
            session = self._require(structure, "complete", ("commissioned", "configured"), call)
            device_ids = sorted(session["pendingDeviceIDs"])
            known = {device["deviceID"] for device in structure["devices"]}
            for device_id in device_ids:
                if device_id not in known:
                    structure["devices"].append({"deviceID": device_id, "name": session["deviceName"],
                                                 "roomName": session["roomName"]})
            structure["session"] = None
            return device_ids

        return {"deviceIDs": await self._transaction_on("completeCommissioning", call, complete)}

    async def cancel_commissioning(self, call: dict) -> dict:
        def look(structure):
            session = structure["session"]
            if session is None or session["phase"] not in PHASES:
                return structure["id"], None
            expected = params.context_expected_session("cancelCommissioning", call)
            if expected is not None and session["sessionID"] != expected:
                # The caller's session is gone; the active one is another client's and is not released.
                return structure["id"], None
            session["lastActivity"] = self.clock()
            return structure["id"], dict(session)

        structure_id, session = await self._transaction_on("cancelCommissioning", call, look)
        if session is None:
            return {"released": False}
        session_id = session["sessionID"]
        if session["phase"] == "commissioning":
            session = await self._await_commissioning(structure_id, session)
        pending = list(session["pendingDeviceIDs"])
        if session["phase"] == "commissioning":
            # The process that was commissioning is gone: the nodes that appeared since it began are this session's.
            try:
                now = await self.server.node_ids()
            except (ServerError, ServerUnreachable) as error:
                raise HubError("hubUnreachable", f"cannot list the Matter Server's nodes ({scrub(error)}); cancel "
                               "again once it answers") from None
            # Only nodes no structure of this bridge holds, or has pending: another structure's device, commissioned
            # meanwhile, is not this session's. Nodes another controller of the Matter Server added cannot be told
            # apart: with more than one candidate, nothing is removed blind.
            before = set(session["commissioning"]["nodesBefore"])
            state = self.store.read()
            known = {str(device["deviceID"]) for other in state["structures"] for device in other["devices"]}
            known |= {str(node) for other in state["structures"] if other["session"] and other["id"] != structure_id
                      for node in other["session"].get("pendingDeviceIDs", [])}
            pending = [str(node) for node in now if node not in before and str(node) not in known]
            if len(pending) > 1:
                raise HubError("hubFailure", f"the commissioning of this session was interrupted, and nodes "
                               f"{', '.join(pending)} appeared on the Matter Server since it began: which one it added "
                               "cannot be told; remove it in the Matter Server, then cancel again")
        await self._remove_nodes(pending)

        def release(structure):
            current = structure["session"]
            if current is not None and current["sessionID"] == session_id:
                structure["session"] = None

        await self._transaction_on("cancelCommissioning", call, release)
        return {"released": True}

    #: The longest cancelCommissioning waits for a running commissioning: within MatterFlow's 30 s for the call. A
    #: commissioning that ends later finds its session gone and removes the node it added itself.
    CANCEL_WAIT_SECONDS = 20.0

    async def _await_commissioning(self, structure_id: str, session: dict) -> dict:
        """Waits (bounded) for a running commissioning to record its outcome; returns the session as it is then."""
        limit = min(self.commission_timeout, self.CANCEL_WAIT_SECONDS)
        task = self.inflight.get(structure_id)
        if task is not None:
            await asyncio.wait([task], timeout=limit)
        else:
            deadline = self.clock() + limit
            while (_pid_alive(session["commissioning"].get("process")) and session["commissioning"]["process"]
                   != os.getpid() and self.clock() < deadline):
                await asyncio.sleep(0.2)
                session = self._session_now(structure_id, session["sessionID"]) or session
                if session["phase"] != "commissioning":
                    break
        return self._session_now(structure_id, session["sessionID"]) or session

    def _session_now(self, structure_id: str, session_id: str) -> dict | None:
        state = self.store.read()
        structure = next((s for s in state["structures"] if s["id"] == structure_id), None)
        session = structure and structure["session"]
        return session if session and session["sessionID"] == session_id else None

    async def basic_information(self, call: dict) -> dict:
        device_id = params.string("basicInformation", call, "deviceID")

        def find(structure):
            session = structure["session"] or {}
            ids = {device["deviceID"] for device in structure["devices"]} | set(session.get("pendingDeviceIDs", []))
            if device_id not in ids:
                raise HubError("deviceNotFound", f"device {device_id!r} is not in structure {structure['id']}; "
                               "device IDs are the Matter Server's node IDs of devices commissioned through this "
                               "bridge")

        await self._transaction_on("basicInformation", call, find)
        try:
            values = await self.server.command("read_attribute", {"node_id": int(device_id),
                                                                  "attribute_path": list(BASIC_INFORMATION.values())})
        except ServerError as error:
            if error.code == NODE_NOT_EXISTS:
                raise HubError("deviceNotFound", f"node {device_id} is no longer in the Matter Server") from None
            raise HubError("deviceUnreachable", f"could not read node {device_id} ({scrub(error)})") from None
        except ServerUnreachable as error:
            raise HubError("hubUnreachable", str(error)) from None
        result = {}
        for member, path in BASIC_INFORMATION.items():
            value = values.get(path) if isinstance(values, dict) else None
            wanted = str if member in ("vendorName", "productName") else int
            if not isinstance(value, wanted) or isinstance(value, bool):
                raise HubError("hubFailure", f"node {device_id} did not report Basic Information {member} ({path})")
            result[member] = value
        return result

    async def active_session(self, call: dict) -> dict:
        def report(structure):
            session = structure["session"]
            if session is None or session["phase"] not in PHASES:
                return None
            return {
                "sessionID": session["sessionID"], "phase": session["phase"], "owner": session.get("owner"),
                "pendingDeviceIDs": list(session["pendingDeviceIDs"]),
                "commissioningID": session["commissioningID"] if session["phase"] == "commissioning" else None,
                "deviceName": session["deviceName"] if session["phase"] == "configured" else None,
            }

        return {"session": await self._transaction_on("activeSession", call, report)}

    async def thread_network_settings(self, call: dict) -> dict:
        await self._transaction_on("threadNetworkSettings", call, lambda structure: None)
        info = await self._reach()
        has_dataset = bool(isinstance(info, dict) and info.get("thread_credentials_set"))
        return {"internetAccessOption": "unspecified",
                "defaultThreadNetworkID": "matter-server-dataset" if has_dataset else None, "appliedTo": []}
