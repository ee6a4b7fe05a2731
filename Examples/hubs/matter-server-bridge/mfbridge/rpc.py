"""JSON-RPC 2.0 over a line stream, as the hub protocol frames it: one compact JSON object per line.

Each request runs in its own task, so `$/cancelRequest` can stop a call while it runs; a stopped call is answered
with the `runCancelled` error. Requests before `initialize` are refused with -32002.
"""

import asyncio
import json
import sys

from .errors import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_INITIALIZED,
    PARSE_ERROR,
    HubError,
    ProtocolError,
    invalid_params,
    scrub,
)

MAX_LINE = 1 << 20
PROTOCOL_VERSION = 1


def log(message: str) -> None:
    """Progress for a person, on standard error (never a secret: callers pass no arguments of a call)."""
    print(f"matter-server-bridge: {message}", file=sys.stderr, flush=True)


class Connection:
    """One client connection: reads requests from `reader`, writes responses with `write_line`."""

    def __init__(self, reader: asyncio.StreamReader, write_line, hub):
        self.reader = reader
        self.write_line = write_line
        self.hub = hub
        self.initialized = False
        self.running: dict[int, asyncio.Task] = {}
        self.answering: set[asyncio.Task] = set()

    async def serve(self) -> None:
        """Answers requests until the client closes the stream (or sends a line over the limit)."""
        while True:
            try:
                line = await self.reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                if end.partial.strip():
                    await self.handle_line(end.partial)
                break
            except asyncio.LimitOverrunError:
                await self.send({"jsonrpc": "2.0", "id": None, "error": ProtocolError(
                    PARSE_ERROR, f"a line is longer than {MAX_LINE} bytes; the connection is closed").to_rpc()})
                break
            if len(line) - 1 > MAX_LINE:
                await self.send({"jsonrpc": "2.0", "id": None, "error": ProtocolError(
                    PARSE_ERROR, f"a line is longer than {MAX_LINE} bytes; the connection is closed").to_rpc()})
                break
            await self.handle_line(line)
        if self.answering:
            await asyncio.gather(*self.answering, return_exceptions=True)

    async def send(self, message: dict) -> None:
        # ASCII: a lone surrogate echoed from a request (valid in JSON's \\u escapes) cannot be encoded as UTF-8.
        self.write_line(json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n")

    async def handle_line(self, line: bytes) -> None:
        text = line.rstrip(b"\r\n")
        if not text.strip():
            return
        try:
            message = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            await self.send({"jsonrpc": "2.0", "id": None,
                             "error": ProtocolError(PARSE_ERROR, "the line is not UTF-8 JSON").to_rpc()})
            return
        request_id = message.get("id") if isinstance(message, dict) else None
        valid_id = isinstance(request_id, int) and not isinstance(request_id, bool)
        if (not isinstance(message, dict) or message.get("jsonrpc") != "2.0"
                or not isinstance(message.get("method"), str)
                or ("id" in message and not valid_id)
                or not isinstance(message.get("params", {}), dict)):
            if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
                return  # a response: this hub sends no requests, so there is nothing it answers
            answer_id = request_id if valid_id else None
            await self.send({"jsonrpc": "2.0", "id": answer_id, "error": ProtocolError(
                INVALID_REQUEST, "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a string \"method\", "
                "an integer \"id\" (none for a notification) and object \"params\"").to_rpc()})
            return
        method, params = message["method"], message.get("params", {})
        if "id" not in message:
            self.handle_notification(method, params)
            return
        if request_id in self.running:
            await self.send({"jsonrpc": "2.0", "id": request_id, "error": ProtocolError(
                INVALID_REQUEST, f"request id {request_id} is already in use by a call that has not been answered"
            ).to_rpc()})
            return
        # The call runs in a task of its own, which `$/cancelRequest` cancels (even before it has started); the
        # answering task survives that cancellation to send the runCancelled error.
        call = asyncio.create_task(self.dispatch(method, params))
        self.running[request_id] = call
        answering = asyncio.create_task(self.answer(request_id, method, call))
        self.answering.add(answering)
        answering.add_done_callback(self.answering.discard)
        call.add_done_callback(lambda _: self.running.pop(request_id, None))

    def handle_notification(self, method: str, params: dict) -> None:
        if method == "$/cancelRequest":
            # Only a request id can name a call: an id of another type (a list, an object) names none.
            request_id = params.get("id")
            target = self.running.get(request_id) if isinstance(request_id, (int, str)) else None
            if target is not None:
                target.cancel()
        # Other notifications (including unknown `$/` ones) need no answer and are ignored.

    async def answer(self, request_id: int, method: str, call: asyncio.Task) -> None:
        try:
            result = await call
            response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except asyncio.CancelledError:
            error = HubError("runCancelled", f"{method} was cancelled by the client before it finished")
            response = {"jsonrpc": "2.0", "id": request_id, "error": error.to_rpc()}
        except (HubError, ProtocolError) as error:
            response = {"jsonrpc": "2.0", "id": request_id, "error": error.to_rpc()}
        except Exception as error:  # a bug in the bridge: reported as hubFailure, never a crash
            log(f"{method} failed unexpectedly: {type(error).__name__}: {scrub(error)}")
            failure = HubError("hubFailure", f"the bridge failed during {method}: {type(error).__name__}; see its "
                               "standard error")
            response = {"jsonrpc": "2.0", "id": request_id, "error": failure.to_rpc()}
        await self.send(response)

    async def dispatch(self, method: str, params: dict):
        if method == "initialize":
            return self.initialize(params)
        if not self.initialized:
            raise ProtocolError(NOT_INITIALIZED, "not initialized: the first request must be initialize")
        handler = self.hub.operations().get(method)
        if handler is None:
            raise ProtocolError(METHOD_NOT_FOUND, f"{method} is not an operation of {self.hub.name}; "
                                f"it supports {', '.join(sorted(self.hub.operations()))}")
        return await handler(params)

    def initialize(self, params: dict) -> dict:
        if self.initialized:
            raise ProtocolError(INVALID_REQUEST, "initialize was already sent on this connection")
        version = params.get("protocolVersion")
        if not isinstance(version, int) or isinstance(version, bool) or version < PROTOCOL_VERSION:
            raise invalid_params(f"protocolVersion {json.dumps(version)} is not spoken here: this hub speaks 1")
        self.initialized = True
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "hub": {"name": self.hub.name, "version": self.hub.version, "instance": self.hub.instance()},
            "operations": sorted(self.hub.operations()),
            "structures": self.hub.structure_ids(),
            "events": False,
        }
