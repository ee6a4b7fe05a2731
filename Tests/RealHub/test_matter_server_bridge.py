"""The Matter Server bridge as a process, against a scripted Matter Server on loopback.

Covers what the real-device run cannot make happen on demand: a commissioning that the test holds open while the
client cancels or goes away, a second bridge process settling the first one's session, a broken state file and an
oversized line. Each commissioning waits on an event the test sets, so nothing depends on timing.

Run with the Matter Server's virtual environment (it has aiohttp):
    python -m unittest discover -s Tests/RealHub -p 'test_*.py'
"""

import asyncio
import json
import pathlib
import sys
import tempfile
import unittest

from aiohttp import web

REPO = pathlib.Path(__file__).resolve().parents[2]
BRIDGE = REPO / "Examples" / "hubs" / "matter-server-bridge" / "matter_server_bridge.py"
QR = "MT:MNOA55UM00KA0648G00"
CALL_LIMIT = 20  # seconds any single exchange may take before the test fails


class ScriptedMatterServer:
    """The Matter Server's WebSocket commands the bridge uses, with nodes in memory."""

    def __init__(self):
        self.nodes: dict[int, dict] = {}
        self.next_node = 1
        self.fail_commission_with: int | None = None
        self.fail_after_joining_with: int | None = None  # the node is added, then this error answered
        self.write_status = 0  # the Interaction Model status a device answers a write with
        self.answer_pings = True
        self.release_commission = asyncio.Event()
        self.release_commission.set()
        self.commission_started = asyncio.Event()
        self.runner = None
        self.url = None

    async def start(self):
        app = web.Application()
        app.router.add_get("/ws", self.websocket)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"

    async def stop(self):
        await self.runner.cleanup()

    async def websocket(self, request):
        ws = web.WebSocketResponse(autoping=self.answer_pings)
        await ws.prepare(request)
        await ws.send_json({"fabric_id": 1, "schema_version": 11, "thread_credentials_set": False})
        async for message in ws:
            if message.type != web.WSMsgType.TEXT:
                continue  # a ping, when the test answers them itself (that is, not at all)
            data = json.loads(message.data)
            asyncio.create_task(self.answer(ws, data))
        return ws

    async def answer(self, ws, data):
        try:
            result = await self.command(data["command"], data["args"])
            await ws.send_json({"message_id": data["message_id"], "result": result})
        except LookupError as error:
            code, details = error.args
            await ws.send_json({"message_id": data["message_id"], "error_code": code, "details": details})
        except ConnectionError:
            pass  # the bridge went away (a test killed it): there is nobody to answer

    async def command(self, name, args):
        if name == "get_nodes":
            return [{"node_id": node_id} for node_id in sorted(self.nodes)]
        if name == "commission_with_code":
            self.commission_started.set()
            await self.release_commission.wait()
            if self.fail_commission_with is not None:
                raise LookupError(self.fail_commission_with, "Commission with code failed for node 9.")
            node_id = self.next_node
            self.next_node += 1
            self.nodes[node_id] = {"0/40/1": "CircuitMatter", "0/40/2": 65524, "0/40/3": "Light", "0/40/4": 4660,
                                   "0/40/5": "", "0/40/9": 1}
            if self.fail_after_joining_with is not None:
                raise LookupError(self.fail_after_joining_with, f"Interview of node {node_id} failed.")
            return {"node_id": node_id}
        if name in ("remove_node", "read_attribute", "write_attribute") and args["node_id"] not in self.nodes:
            raise LookupError(5, f"Node {args['node_id']} does not exist")
        if name == "remove_node":
            del self.nodes[args["node_id"]]
            return None
        if name == "read_attribute":
            return {path: self.nodes[args["node_id"]][path] for path in args["attribute_path"]}
        if name == "write_attribute":
            path = dict(zip(("EndpointId", "ClusterId", "AttributeId"), map(int, args["attribute_path"].split("/"))))
            if self.write_status == 0:
                self.nodes[args["node_id"]][args["attribute_path"]] = args["value"]
            return [{"Path": path, "Status": self.write_status}]
        raise LookupError(9, f"unknown command {name}")


class BridgeProcess:
    """The bridge as a child process, spoken to over its standard input and output."""

    def __init__(self, url: str, state: pathlib.Path):
        self.url = url
        self.state = state
        self.next_id = 1
        self.process = None

    async def start(self, *extra):
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, str(BRIDGE), "--server", self.url, "--state", str(self.state), *extra,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            limit=4 << 20)
        answer = await self.call("initialize", {"protocolVersion": 1, "client": {"name": "test", "version": "1"}})
        assert "result" in answer, answer

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: dict) -> int:
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    async def response(self, request_id: int) -> dict:
        async with asyncio.timeout(CALL_LIMIT):
            while True:
                line = await self.process.stdout.readline()
                if not line:
                    raise AssertionError(f"the bridge closed its output before answering request {request_id}")
                message = json.loads(line)
                if message.get("id") == request_id:
                    return message

    async def call(self, method: str, params: dict) -> dict:
        return await self.response(self.request(method, params))

    async def finish(self) -> tuple[int, str]:
        """Closes standard input; returns the exit status and standard error."""
        self.process.stdin.close()
        async with asyncio.timeout(CALL_LIMIT):
            stderr = await self.process.stderr.read()
            status = await self.process.wait()
        return status, stderr.decode()

    def kill(self):
        if self.process is not None and self.process.returncode is None:
            self.process.kill()


class BridgeTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.server = ScriptedMatterServer()
        await self.server.start()
        self.directory = tempfile.TemporaryDirectory()
        self.state = pathlib.Path(self.directory.name) / "state.json"
        self.bridges = []

    async def asyncTearDown(self):
        for bridge in self.bridges:
            bridge.kill()
            if bridge.process is not None:
                await bridge.process.wait()
        await self.server.stop()
        self.directory.cleanup()

    async def bridge(self, *extra) -> BridgeProcess:
        bridge = BridgeProcess(self.server.url, self.state)
        self.bridges.append(bridge)
        await bridge.start(*extra)
        return bridge

    def session(self):
        return json.loads(self.state.read_text())["structures"][0]["session"]

    async def open_request(self, bridge, run_id="run-1"):
        prepared = await bridge.call("prepareCommissioning", {"structure": "home", "context": {"runID": run_id}})
        self.assertIn("sessionID", prepared["result"])
        requested = await bridge.call("createAddDeviceRequest", {
            "structure": "home", "topology": {"ecosystemName": "Google Home", "homes": []}})
        self.assertEqual(requested["result"]["topology"]["homes"], ["Home"])

    async def test_commissioning_names_the_node_and_completes_with_its_id(self):
        bridge = await self.bridge()
        await self.open_request(bridge)
        self.assertEqual((await bridge.call("commissionDevice", {
            "structure": "home", "onboardingPayload": QR, "commissioningID": "c1"}))["result"], {})
        self.assertEqual((await bridge.call("configureDevice", {
            "structure": "home", "name": "Hall Light", "roomName": "Kitchen"}))["result"], {})
        self.assertEqual((await bridge.call("completeCommissioning", {"structure": "home"}))["result"],
                         {"deviceIDs": ["1"]})
        self.assertEqual(self.server.nodes[1]["0/40/5"], "Hall Light")
        info = (await bridge.call("basicInformation", {"structure": "home", "deviceID": "1"}))["result"]
        self.assertEqual(info["vendorName"], "CircuitMatter")
        devices = json.loads(self.state.read_text())["structures"][0]["devices"]
        self.assertEqual(devices, [{"deviceID": "1", "name": "Hall Light", "roomName": "Kitchen"}])
        self.assertIsNone(self.session())
        status, stderr = await bridge.finish()
        self.assertEqual(status, 0)
        self.assertNotIn(QR, stderr)

    async def test_a_failed_commissioning_says_what_to_check_without_the_code(self):
        self.server.fail_commission_with = 1
        bridge = await self.bridge()
        await self.open_request(bridge)
        answer = await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR,
                                                        "commissioningID": "c1"})
        self.assertEqual(answer["error"]["data"]["cause"], "commissioningFailed")
        self.assertEqual(answer["error"]["data"]["code"], "internal")
        self.assertIn("wrong setup passcode", answer["error"]["data"]["message"])
        self.assertNotIn(QR, json.dumps(answer))
        self.assertEqual(self.session()["phase"], "requested")
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home"}))["result"],
                         {"released": True})
        self.assertEqual(self.server.nodes, {})
        self.assertIsNone(self.session())

    async def test_a_device_that_joined_then_failed_its_interview_is_removed_by_cancel(self):
        self.server.fail_after_joining_with = 2
        bridge = await self.bridge()
        await self.open_request(bridge)
        answer = await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR,
                                                        "commissioningID": "c1"})
        self.assertEqual(answer["error"]["data"]["cause"], "commissioningFailed")
        self.assertIn("cancel the session (it removes the node)", answer["error"]["data"]["message"])
        self.assertEqual(list(self.server.nodes), [1], "the Matter Server kept the node")
        self.assertEqual(self.session()["phase"], "commissioning", "kept as an interrupted commissioning")
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home"}))["result"],
                         {"released": True})
        self.assertEqual(self.server.nodes, {}, "the node it added is removed")
        self.assertIsNone(self.session())

    async def test_a_room_typed_in_other_code_points_is_recorded_as_the_state_spells_it(self):
        bridge = await self.bridge()
        await self.open_request(bridge)
        await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"})
        state = json.loads(self.state.read_text())
        state["structures"][0]["rooms"].append({"id": "room-kueche", "name": "K\u00fcche"})
        self.state.write_text(json.dumps(state))
        refused = await bridge.call("configureDevice", {"structure": "home", "name": "Lampe\r", "roomName": "K\u00fcche"})
        self.assertEqual(refused["error"]["data"]["cause"], "invalidArgumentValue")
        self.assertIn("control character", refused["error"]["data"]["message"])
        self.assertEqual(self.server.nodes[1]["0/40/5"], "", "a refused name is not written")
        self.assertEqual((await bridge.call("configureDevice", {
            "structure": "home", "name": "Lampe", "roomName": "Ku\u0308che"}))["result"], {})
        await bridge.call("completeCommissioning", {"structure": "home"})
        devices = json.loads(self.state.read_text())["structures"][0]["devices"]
        self.assertEqual(devices, [{"deviceID": "1", "name": "Lampe", "roomName": "K\u00fcche"}])

    async def test_a_name_the_device_refuses_fails_configure_and_is_not_recorded(self):
        bridge = await self.bridge()
        await self.open_request(bridge)
        await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"})
        for status, cause, said in ((0x87, "invalidArgumentValue", "CONSTRAINT_ERROR, status 0x87"),
                                    (0x88, "notSupported", "UNSUPPORTED_WRITE, status 0x88"),
                                    (0x9C, "deviceUnreachable", "BUSY 0x9C")):
            self.server.write_status = status
            refused = await bridge.call("configureDevice", {"structure": "home", "name": "Lamp"})
            self.assertEqual(refused["error"]["data"]["cause"], cause)
            self.assertIn(said, refused["error"]["data"]["message"])
            self.assertEqual(self.session()["phase"], "commissioned", "a refused name does not configure")
            self.assertEqual(self.server.nodes[1]["0/40/5"], "")
        self.server.write_status = 0
        self.assertEqual((await bridge.call("configureDevice", {"structure": "home", "name": "Lamp"}))["result"], {})
        self.assertEqual(self.server.nodes[1]["0/40/5"], "Lamp")

    async def test_a_server_that_stops_answering_pings_fails_the_waiting_call_and_is_reconnected(self):
        self.server.answer_pings = False
        self.server.release_commission.clear()
        bridge = await self.bridge("--server-heartbeat", "0.5")
        await self.open_request(bridge)
        answer = await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR,
                                                        "commissioningID": "c1"})
        self.assertEqual(answer["error"]["data"]["cause"], "hubUnreachable", "failed long before the 120 s timeout")
        self.assertIn("closed before it answered", answer["error"]["data"]["message"])
        self.server.answer_pings = True
        self.server.release_commission.set()
        async with asyncio.timeout(CALL_LIMIT):
            while 1 not in self.server.nodes:
                await asyncio.sleep(0.01)
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home"}))["result"],
                         {"released": True}, "a new connection lists the nodes and removes the one added")
        self.assertEqual(self.server.nodes, {})

    async def test_a_cancelled_commissioning_is_answered_at_once_and_cancel_removes_its_node(self):
        self.server.release_commission.clear()
        bridge = await self.bridge()
        await self.open_request(bridge)
        call = bridge.request("commissionDevice", {"structure": "home", "onboardingPayload": QR,
                                                   "commissioningID": "c1"})
        await asyncio.wait_for(self.server.commission_started.wait(), CALL_LIMIT)
        bridge.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": call}})
        answer = await bridge.response(call)
        self.assertEqual(answer["error"]["data"]["cause"], "runCancelled")
        cancel = bridge.request("cancelCommissioning", {"structure": "home"})
        self.server.release_commission.set()  # the Matter Server finishes: the node exists, then is removed
        self.assertEqual((await bridge.response(cancel))["result"], {"released": True})
        self.assertEqual(self.server.next_node, 2)
        self.assertEqual(self.server.nodes, {})
        self.assertIsNone(self.session())

    async def test_a_client_that_goes_away_leaves_the_node_for_another_process_to_cancel(self):
        self.server.release_commission.clear()
        first = await self.bridge()
        await self.open_request(first, run_id="run-killed")
        first.request("commissionDevice", {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"})
        await asyncio.wait_for(self.server.commission_started.wait(), CALL_LIMIT)
        first.process.stdin.close()
        self.server.release_commission.set()
        async with asyncio.timeout(CALL_LIMIT):
            self.assertEqual(await first.process.wait(), 0)
        second = await self.bridge()
        active = (await second.call("activeSession", {"structure": "home"}))["result"]["session"]
        self.assertEqual((active["phase"], active["owner"], active["pendingDeviceIDs"]),
                         ("commissioned", "run-killed", ["1"]))
        self.assertEqual((await second.call("cancelCommissioning", {"structure": "home"}))["result"],
                         {"released": True})
        self.assertEqual(self.server.nodes, {})
        self.assertIsNone((await second.call("activeSession", {"structure": "home"}))["result"]["session"])

    async def test_a_commissioning_id_sent_again_is_the_same_commissioning(self):
        self.server.release_commission.clear()
        bridge = await self.bridge()
        await self.open_request(bridge)
        params = {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"}
        first = bridge.request("commissionDevice", params)
        await asyncio.wait_for(self.server.commission_started.wait(), CALL_LIMIT)
        again = bridge.request("commissionDevice", params)  # a retry while the first still runs: it waits for it
        self.server.release_commission.set()
        self.assertEqual((await bridge.response(first))["result"], {})
        self.assertEqual((await bridge.response(again))["result"], {})
        self.assertEqual((await bridge.call("commissionDevice", params))["result"], {}, "and once it has succeeded")
        self.assertEqual(list(self.server.nodes), [1], "one node, not three")
        other = await bridge.call("commissionDevice", dict(params, commissioningID="c2"))
        self.assertEqual(other["error"]["data"]["cause"], "sessionOutOfOrder")

    async def test_an_interrupted_commissioning_with_two_new_nodes_removes_neither(self):
        self.server.release_commission.clear()
        first = await self.bridge()
        await self.open_request(first, run_id="run-killed")
        first.request("commissionDevice", {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"})
        await asyncio.wait_for(self.server.commission_started.wait(), CALL_LIMIT)
        first.kill()
        await first.process.wait()
        self.server.nodes[50] = {"0/40/5": ""}  # another controller of the same Matter Server adds a node meanwhile
        self.server.release_commission.set()
        async with asyncio.timeout(CALL_LIMIT):
            while 1 not in self.server.nodes:
                await asyncio.sleep(0.01)
        second = await self.bridge()
        refused = await second.call("cancelCommissioning", {"structure": "home"})
        self.assertEqual(refused["error"]["data"]["cause"], "hubFailure")
        self.assertIn("nodes 1, 50 appeared", refused["error"]["data"]["message"])
        self.assertEqual(sorted(self.server.nodes), [1, 50], "neither removed blind")

    async def test_an_expired_session_is_kept_expired_and_its_node_removed_even_when_the_call_fails(self):
        bridge = await self.bridge()
        await self.open_request(bridge)
        await bridge.call("commissionDevice", {"structure": "home", "onboardingPayload": QR, "commissioningID": "c1"})
        self.assertEqual(list(self.server.nodes), [1])
        # The session has been idle since the epoch: its lease ran out long ago.
        state = json.loads(self.state.read_text())
        state["structures"][0]["session"]["lastActivity"] = 0
        self.state.write_text(json.dumps(state))
        refused = await bridge.call("configureDevice", {"structure": "home", "name": "Lamp"})
        self.assertEqual(refused["error"]["data"]["cause"], "sessionExpired")
        self.assertEqual(self.server.nodes, {}, "the expired session's node is removed though the call failed")
        self.assertEqual((self.session()["phase"], self.session()["pendingDeviceIDs"]), ("expired", []))

    async def test_hostile_requests_do_not_stop_the_bridge(self):
        bridge = await self.bridge()
        # A cancel naming a request by a list, and a value with a lone surrogate to echo back.
        bridge.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": [1]}})
        self.assertIn("result", await bridge.call("prepareCommissioning", {"structure": "home"}))
        echoed = await bridge.call("createAddDeviceRequest", {
            "structure": "home", "topology": {"ecosystemName": "Google \ud800 Home", "homes": []}})
        self.assertEqual(echoed["result"]["topology"]["ecosystemName"], "Google \ud800 Home")
        self.assertIn("result", await bridge.call("status", {"structure": "home"}))

    async def test_the_instance_id_is_kept_in_the_state_file_and_given_by_every_process(self):
        async def handshake() -> dict:
            bridge = BridgeProcess(self.server.url, self.state)
            self.bridges.append(bridge)
            bridge.process = await asyncio.create_subprocess_exec(
                sys.executable, str(BRIDGE), "--server", self.server.url, "--state", str(self.state),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                limit=4 << 20)
            return await bridge.call("initialize", {"protocolVersion": 1, "client": {"name": "t", "version": "1"}})

        first = (await handshake())["result"]["hub"]["instance"]
        self.assertRegex(first, r"^bridge-[0-9a-f]{32}$")
        self.assertEqual(json.loads(self.state.read_text())["instance"], first)
        self.assertEqual((await handshake())["result"]["hub"]["instance"], first, "another process, the same bridge")

    async def test_one_session_per_structure_across_processes(self):
        first = await self.bridge()
        second = await self.bridge()
        free = await second.call("status", {"structure": "home"})
        self.assertIsNone(free["result"]["holder"])
        opened = await first.call("prepareCommissioning", {"structure": "home", "context": {"runID": "run-1"}})
        session_id = opened["result"]["sessionID"]
        # The other process tells who holds the session, and its refusal names them.
        holder = (await second.call("status", {"structure": "home"}))["result"]["holder"]
        self.assertEqual({key: holder[key] for key in ("sessionID", "owner", "commissioningID")},
                         {"sessionID": session_id, "owner": "run-1", "commissioningID": None})
        self.assertIsInstance(holder["openedAt"], float)
        self.assertEqual(self.session()["openedAt"], holder["openedAt"])
        busy = await second.call("prepareCommissioning", {"structure": "home"})
        self.assertEqual(busy["error"]["data"]["cause"], "sessionBusy")
        self.assertIn(f"({session_id}) is prepared on structure home, held by run run-1 since 20",
                      busy["error"]["data"]["message"])
        out_of_order = await second.call("completeCommissioning", {"structure": "home"})
        self.assertEqual(out_of_order["error"]["data"]["cause"], "sessionOutOfOrder")

    async def test_a_call_for_a_released_session_never_acts_in_another_clients_session(self):
        bridge = await self.bridge()
        first = (await bridge.call("prepareCommissioning", {"structure": "home"}))["result"]["sessionID"]
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home"}))["result"],
                         {"released": True})
        second = (await bridge.call("prepareCommissioning", {"structure": "home"}))["result"]["sessionID"]
        stale = {"runID": "run-a", "idempotencyKey": "run-a/2", "expectedSessionID": first}
        refused = await bridge.call("createAddDeviceRequest", {
            "structure": "home", "context": stale, "topology": {"ecosystemName": "Google Home", "homes": []}})
        self.assertEqual(refused["error"]["data"]["cause"], "noActiveSession")
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home", "context": stale}))["result"],
                         {"released": False})
        self.assertEqual(self.session()["sessionID"], second)
        self.assertEqual(self.session()["phase"], "prepared")
        own = {"runID": "run-b", "idempotencyKey": "run-b/2", "expectedSessionID": second}
        self.assertEqual((await bridge.call("cancelCommissioning", {"structure": "home", "context": own}))["result"],
                         {"released": True})

    async def test_a_broken_state_file_stops_the_bridge_with_its_location(self):
        async def refused(state_text: str, message: str) -> None:
            self.state.write_text(state_text)
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(BRIDGE), "--server", self.server.url, "--state", str(self.state),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            async with asyncio.timeout(CALL_LIMIT):
                stdout, stderr = await process.communicate()
            self.assertEqual(process.returncode, 2)
            self.assertIn(f"{self.state}: {message}", stderr.decode())
            self.assertEqual(stdout, b"")

        await refused('{"format": 1, "structures": [{"id": 7}]}', "/structures/0/id: expected a string")
        await refused('{"format": 1, "instance": "two\\nlines", "structures": []}',
                      "/instance: expected 1 to 200 bytes without control characters")

    async def test_a_line_over_one_mebibyte_is_a_protocol_error_that_closes_the_connection(self):
        bridge = await self.bridge()
        bridge.process.stdin.write(b'{"jsonrpc":"2.0","id":9,"method":"status","params":{"pad":"' + b"x" * (1 << 20)
                                   + b'"}}\n')
        async with asyncio.timeout(CALL_LIMIT):
            answer = json.loads(await bridge.process.stdout.readline())
            status = await bridge.process.wait()
        self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32700))
        self.assertEqual(status, 0)


if __name__ == "__main__":
    unittest.main()
