"""The bridge's durable state: what the Matter Server has no notion of, kept in one JSON file.

Structures, their rooms, the user's permission, the devices (Matter node IDs) placed in each structure with their
name and room, and each structure's one commissioning session. Every change is made under an exclusive lock on
`FILE.lock` (so several bridge processes may share the file) and written atomically: a temporary file in the same
folder, flushed to disk, then renamed over the old one. The format is in this folder's README.
"""

import contextlib
import fcntl
import json
import os
import pathlib

FORMAT = 1
PHASES = ("prepared", "requested", "commissioning", "commissioned", "configured")


class StateFileError(Exception):
    """The state file cannot be used; the message names the file, the JSON pointer and what to do."""


def initial_state(structure_id: str, structure_name: str, rooms: list[str]) -> dict:
    return {
        "format": FORMAT,
        "structures": [{
            "id": structure_id,
            "name": structure_name,
            "permissionGranted": True,
            "rooms": [{"id": "room-" + "-".join(name.lower().split()), "name": name} for name in rooms],
            "devices": [],
            "session": None,
        }],
    }


def _expect(value, kind, pointer, path, what):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StateFileError(f"{path}: {pointer or '/'}: expected {what}; fix the file or delete it to start over")
    return value


def validate(state, path) -> dict:
    """Checks the shape of a loaded state file; raises StateFileError naming the first problem's JSON pointer."""
    _expect(state, dict, "", path, "an object")
    if state.get("format") != FORMAT:
        raise StateFileError(f"{path}: /format: expected {FORMAT}; this bridge reads format {FORMAT} only")
    if "instance" in state:
        instance = _expect(state["instance"], str, "/instance", path, "a string")
        if not 0 < len(instance.encode()) <= 200 or any(ord(c) < 32 or ord(c) == 127 for c in instance):
            raise StateFileError(f"{path}: /instance: expected 1 to 200 bytes without control characters; "
                                 "delete the member to have a new one made")
    structures = _expect(state.get("structures"), list, "/structures", path, "an array")
    seen = set()
    for i, structure in enumerate(structures):
        base = f"/structures/{i}"
        _expect(structure, dict, base, path, "an object")
        sid = _expect(structure.get("id"), str, base + "/id", path, "a string")
        if sid in seen:
            raise StateFileError(f"{path}: {base}/id: structure {sid!r} is listed twice; keep one")
        seen.add(sid)
        _expect(structure.get("name"), str, base + "/name", path, "a string")
        _expect(structure.get("permissionGranted"), bool, base + "/permissionGranted", path, "true or false")
        for j, room in enumerate(_expect(structure.get("rooms"), list, base + "/rooms", path, "an array")):
            _expect(room, dict, f"{base}/rooms/{j}", path, "an object")
            _expect(room.get("id"), str, f"{base}/rooms/{j}/id", path, "a string")
            _expect(room.get("name"), str, f"{base}/rooms/{j}/name", path, "a string")
        for j, device in enumerate(_expect(structure.get("devices"), list, base + "/devices", path, "an array")):
            _expect(device, dict, f"{base}/devices/{j}", path, "an object")
            device_id = _expect(device.get("deviceID"), str, f"{base}/devices/{j}/deviceID", path, "a string")
            if not device_id.isdigit():
                raise StateFileError(f"{path}: {base}/devices/{j}/deviceID: expected a Matter node ID in decimal")
        session = structure.get("session")
        if session is not None:
            _validate_session(session, base + "/session", path)
    return state


def _validate_session(session, base, path):
    _expect(session, dict, base, path, "an object or null")
    _expect(session.get("sessionID"), str, base + "/sessionID", path, "a string")
    phase = session.get("phase")
    if phase not in PHASES and phase != "expired":
        raise StateFileError(f"{path}: {base}/phase: expected one of {', '.join(PHASES)}, expired")
    _expect(session.get("lastActivity"), (int, float), base + "/lastActivity", path, "a number (Unix time)")
    if session.get("openedAt") is not None:  # absent in files of bridges before it was kept
        _expect(session["openedAt"], (int, float), base + "/openedAt", path, "a number (Unix time) or null")
    if session.get("owner") is not None:
        _expect(session["owner"], str, base + "/owner", path, "a string or null")
    for j, node in enumerate(_expect(session.get("pendingDeviceIDs"), list, base + "/pendingDeviceIDs", path,
                                     "an array")):
        if not isinstance(node, str) or not node.isdigit():
            raise StateFileError(f"{path}: {base}/pendingDeviceIDs/{j}: expected a Matter node ID in decimal")


class StateStore:
    """The state file, read and written under its lock."""

    def __init__(self, path: pathlib.Path, default: dict):
        self.path = path
        self.default = default

    @contextlib.contextmanager
    def transaction(self):
        """Yields the current state; writes it back when the block ends without an exception."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(str(self.path) + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                state = self._load()
                before = json.dumps(state, sort_keys=True)
                yield state
                if json.dumps(state, sort_keys=True) != before or not self.path.exists():
                    self._save(state)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def read(self) -> dict:
        with self.transaction() as state:
            return json.loads(json.dumps(state))

    def _load(self) -> dict:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return json.loads(json.dumps(self.default))
        except (OSError, UnicodeDecodeError) as error:
            raise StateFileError(f"{self.path}: cannot be read ({error}); check its permissions") from None
        try:
            state = json.loads(text)
        except (ValueError, RecursionError) as error:
            line = getattr(error, "lineno", "?")
            column = getattr(error, "colno", "?")
            raise StateFileError(f"{self.path}:{line}:{column}: not valid JSON ({getattr(error, 'msg', error)}); "
                                 "fix the file or delete it to start over") from None
        return validate(state, self.path)

    def _save(self, state: dict) -> None:
        temporary = self.path.with_name(self.path.name + f".tmp{os.getpid()}")
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(state, file, indent=2, sort_keys=True)
            file.write("\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
