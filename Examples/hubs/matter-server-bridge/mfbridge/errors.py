"""Errors as the hub protocol carries them: a canonical code, a MatterFlow cause and a message a person can act on."""

import re

HUB_ERROR = -32000
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
NOT_INITIALIZED = -32002

# The canonical code of each cause this bridge reports (MatterFlow's ErrorCause table).
CODE_OF_CAUSE = {
    "permissionNotGranted": "permissionDenied",
    "hubOffline": "unavailable",
    "hubUnreachable": "unavailable",
    "sessionBusy": "failedPrecondition",
    "noActiveSession": "failedPrecondition",
    "sessionOutOfOrder": "failedPrecondition",
    "sessionExpired": "failedPrecondition",
    "structureNotFound": "notFound",
    "deviceNotFound": "notFound",
    "roomNotFound": "notFound",
    "commissioningFailed": "internal",
    "deviceUnreachable": "unavailable",
    "invalidPayload": "invalidArgument",
    "invalidArgumentValue": "invalidArgument",
    "runCancelled": "cancelled",
    "hubFailure": "internal",
    "notSupported": "unimplemented",
}

_PAYLOAD = re.compile(r"MT:[0-9A-Z.\-]+")
_DIGITS = re.compile(r"\d[\d\- ]{6,}\d")


def scrub(text) -> str:
    """Text from elsewhere (the Matter Server) with anything that could be a setup code masked."""
    text = _PAYLOAD.sub("<redacted>", str(text))
    return _DIGITS.sub(lambda m: "<redacted>" if len(re.sub(r"\D", "", m.group())) >= 8 else m.group(), text)


class HubError(Exception):
    """A failure of a hub call, answered as JSON-RPC error -32000 with the MatterFlow error in `data`."""

    def __init__(self, cause: str, message: str, rpc_code: int = HUB_ERROR):
        super().__init__(message)
        self.cause = cause
        self.code = CODE_OF_CAUSE[cause]
        self.message = message
        self.rpc_code = rpc_code

    def to_rpc(self) -> dict:
        return {
            "code": self.rpc_code,
            "message": self.message,
            "data": {"code": self.code, "cause": self.cause, "message": self.message},
        }


def invalid_params(message: str) -> HubError:
    """An argument of the wrong type or value (JSON-RPC -32602, invalidArgument / invalidArgumentValue)."""
    return HubError("invalidArgumentValue", message, INVALID_PARAMS)


class ProtocolError(Exception):
    """A request that is not valid JSON-RPC for this hub, answered with a standard code and no `data`."""

    def __init__(self, rpc_code: int, message: str):
        super().__init__(message)
        self.rpc_code = rpc_code
        self.message = message

    def to_rpc(self) -> dict:
        return {"code": self.rpc_code, "message": self.message}
