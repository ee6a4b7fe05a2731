"""Reading a call's params: each member checked for its type, with an error naming the method and member."""

import json

from .errors import invalid_params


def _describe(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def string(method: str, params: dict, name: str, secret: bool = False) -> str:
    value = params.get(name)
    if not isinstance(value, str):
        shown = "a value that is not a string" if secret else _describe(value) if name in params else "nothing"
        raise invalid_params(f"{method}: params.{name} must be a string, got {shown}")
    return value


def optional_string(method: str, params: dict, name: str) -> str | None:
    value = params.get(name)
    if value is not None and not isinstance(value, str):
        raise invalid_params(f"{method}: params.{name} must be a string or null, got {_describe(value)}")
    return value


def context_run_id(method: str, params: dict) -> str | None:
    context = params.get("context")
    if context is None:
        return None
    if not isinstance(context, dict):
        raise invalid_params(f"{method}: params.context must be an object, got {_describe(context)}")
    run_id = context.get("runID")
    if run_id is not None and not isinstance(run_id, str):
        raise invalid_params(f"{method}: params.context.runID must be a string, got {_describe(run_id)}")
    return run_id


def context_expected_session(method: str, params: dict) -> str | None:
    """The session a call was made for (`context.expectedSessionID`), when the caller names one."""
    context = params.get("context")
    if not isinstance(context, dict):
        return None
    expected = context.get("expectedSessionID")
    if expected is not None and not isinstance(expected, str):
        raise invalid_params(f"{method}: params.context.expectedSessionID must be a string, got {_describe(expected)}")
    return expected


def topology(method: str, params: dict) -> dict:
    value = params.get("topology")
    if not isinstance(value, dict):
        raise invalid_params(f"{method}: params.topology must be an object "
                             '{"ecosystemName": string, "homes": [string]}, got ' + _describe(value))
    ecosystem = value.get("ecosystemName")
    homes = value.get("homes")
    if not isinstance(ecosystem, str):
        raise invalid_params(f"{method}: params.topology.ecosystemName must be a string, got {_describe(ecosystem)}")
    if not isinstance(homes, list) or not all(isinstance(home, str) for home in homes):
        raise invalid_params(f"{method}: params.topology.homes must be an array of strings, got {_describe(homes)}")
    return {"ecosystemName": ecosystem, "homes": list(homes)}


def looks_like_onboarding_payload(payload: str) -> bool:
    """A QR code payload (`MT:` and Base-38) or an 11- or 21-digit manual pairing code (dashes and spaces allowed)."""
    if payload.startswith("MT:"):
        body = payload[3:]
        return len(body) >= 19 and all(c.isdigit() or "A" <= c <= "Z" or c in "-." for c in body)
    digits = payload.replace("-", "").replace(" ", "")
    return digits.isdigit() and len(digits) in (11, 21) and digits.isascii()
