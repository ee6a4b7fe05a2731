#!/usr/bin/env python3
"""A minimal MatterFlow hub: the hub protocol (docs/hub-protocol.md) over stdin/stdout, one in-memory home.

Run a workflow on it:  matterflow run Workflows/commission-device.json --hub "python3 hub.py" --input ...
Check it:              matterflow hub check "python3 hub.py"
"""
import json, sys, time

OPS = ["status", "prepareCommissioning", "createAddDeviceRequest", "commissionDevice", "fetchRooms",
       "configureDevice", "completeCommissioning", "cancelCommissioning", "basicInformation"]
home = {"session": None, "holder": None, "pending": [], "devices": {}, "rooms": [{"id": "room-1", "name": "Kitchen"}]}


class HubError(Exception):
    def __init__(self, code, cause, message, rpc=-32000):
        super().__init__(message)
        self.error = {"code": rpc, "message": message, "data": {"code": code, "cause": cause, "message": message}}


def arg(params, name, kind=str, optional=False):
    value = params.get(name)
    if (value is None and optional) or isinstance(value, kind):
        return value
    raise HubError("invalidArgument", "invalidArgumentValue", f"{name} must be a {kind.__name__}", -32602)


def call(method, p):
    arg(p, "structure")
    if method == "status":
        return {"online": True, "reachable": True, "permissionGranted": True, "activeSession": bool(home["session"]),
                "holder": home["holder"] if home["session"] else None}  # who holds the session: sessionBusy names it
    if method == "cancelCommissioning":
        released, home["session"], home["pending"] = bool(home["session"]), None, []
        return {"released": released}
    if method == "basicInformation":
        if arg(p, "deviceID") not in home["devices"]:
            raise HubError("notFound", "deviceNotFound", "no device " + p["deviceID"])
        return {"vendorName": "Example", "vendorID": 65521, "productID": 1, "productName": "Light", "softwareVersion": 1}
    if method == "fetchRooms":
        return {"rooms": home["rooms"]}
    if method == "prepareCommissioning":
        if home["session"]:
            held = home["holder"]["owner"]
            raise HubError("failedPrecondition", "sessionBusy",
                           "another commissioning session is active" + (f", held by run {held}" if held else ""))
        context = p.get("context") if isinstance(p.get("context"), dict) else {}
        owner = context.get("runID") if isinstance(context.get("runID"), str) else None
        home["session"] = "session-1"
        home["holder"] = {"sessionID": "session-1", "owner": owner, "openedAt": time.time()}
        return {"sessionID": home["session"]}
    checked = {"createAddDeviceRequest": lambda: arg(p, "topology", dict), "commissionDevice": lambda: arg(
        p, "onboardingPayload"), "configureDevice": lambda: (arg(p, "name"), arg(p, "roomName", str, True))}
    value = checked.get(method, lambda: None)()  # arguments first, then the session
    if not home["session"]:
        raise HubError("failedPrecondition", "noActiveSession", "call prepareCommissioning first")
    if method == "createAddDeviceRequest":
        return {"requestID": "request-1", "topology": value}
    if method == "commissionDevice":
        home["pending"].append(f"device-{len(home['devices']) + 1}")
        return {}
    if method == "configureDevice":
        home["name"] = value[0]
        return {}
    ids = sorted(home["pending"])  # completeCommissioning
    home["devices"].update({i: home.get("name") for i in ids})
    home["session"], home["pending"] = None, []
    return {"deviceIDs": ids}


initialized = False
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue  # notifications: $/cancelRequest (every call here answers at once) and extensions
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    method, params = message.get("method"), message.get("params", {})
    if method == "initialize":
        initialized = True
        reply["result"] = {"protocolVersion": 1, "hub": {"name": "minimal-python", "version": "1"},
                           "operations": OPS, "events": False, "structures": ["home"]}
    elif not initialized:
        reply["error"] = {"code": -32002, "message": "send initialize first"}
    elif method not in OPS:
        reply["error"] = {"code": -32601, "message": f"{method} is not implemented"}
    else:
        try:
            reply["result"] = call(method, params)
        except HubError as failure:
            reply["error"] = failure.error
    print(json.dumps(reply), flush=True)
