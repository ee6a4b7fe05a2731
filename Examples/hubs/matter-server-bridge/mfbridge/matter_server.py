"""A client of the Matter Server's WebSocket API: commands by message ID, one connection, reopened when lost."""

import asyncio
import itertools

import aiohttp

# The Matter Server's error codes (matter_server.common.errors).
NODE_COMMISSION_FAILED = 1
INTERVIEW_FAILED = 2
NOT_READY = 3
NODE_NOT_RESOLVING = 4
NODE_NOT_EXISTS = 5
INVALID_ARGUMENTS = 8


class ServerUnreachable(Exception):
    """The Matter Server could not be reached, or the connection closed before it answered."""


class ServerError(Exception):
    """The Matter Server answered a command with an error."""

    def __init__(self, code: int, details: str):
        super().__init__(f"error {code}: {details}")
        self.code = code
        self.details = details


class MatterServer:
    def __init__(self, url: str, connect_timeout: float = 5.0, heartbeat: float = 30.0):
        self.url = url
        self.connect_timeout = connect_timeout
        # A ping every `heartbeat` seconds; a connection with no pong within half of that is closed, which fails
        # the commands waiting on it at once (ServerUnreachable) instead of at their timeouts, and the next
        # command connects again.
        self.heartbeat = heartbeat
        self.info: dict | None = None
        self._session: aiohttp.ClientSession | None = None
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._pending: dict[str, asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._connecting = asyncio.Lock()

    async def connect(self) -> dict:
        """Opens the connection if it is not open; returns the server info the server sent first."""
        async with self._connecting:
            if self._ws is not None and not self._ws.closed:
                return self.info
            if self._session is None:
                self._session = aiohttp.ClientSession()
            try:
                async with asyncio.timeout(self.connect_timeout):
                    self._ws = await self._session.ws_connect(self.url, max_msg_size=64 << 20,
                                                             heartbeat=self.heartbeat)
                    self.info = await self._ws.receive_json()
            except (aiohttp.ClientError, OSError, TimeoutError, ValueError, TypeError) as error:
                self._ws = None
                raise ServerUnreachable(f"cannot connect to the Matter Server at {self.url} "
                                        f"({type(error).__name__}: {error})") from None
            self._reader = asyncio.create_task(self._read())
            return self.info

    async def _read(self) -> None:
        ws = self._ws
        try:
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                try:
                    data = message.json()
                except ValueError:
                    continue
                future = self._pending.pop(str(data.get("message_id")), None) if isinstance(data, dict) else None
                if future is not None and not future.done():
                    future.set_result(data)
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ServerUnreachable(f"the connection to the Matter Server at {self.url} "
                                                           "closed before it answered"))
            self._pending.clear()

    async def command(self, name: str, args: dict, timeout: float = 30.0):
        """Sends a command and returns its result; raises ServerError or ServerUnreachable."""
        await self.connect()
        message_id = f"mfbridge-{next(self._ids)}"
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        try:
            await self._ws.send_json({"message_id": message_id, "command": name, "args": args})
            async with asyncio.timeout(timeout):
                answer = await future
        except (aiohttp.ClientError, ConnectionError) as error:
            raise ServerUnreachable(f"lost the Matter Server at {self.url} ({error})") from None
        except TimeoutError:
            raise ServerUnreachable(f"the Matter Server did not answer {name} within {timeout:.0f} s") from None
        finally:
            self._pending.pop(message_id, None)
        if "error_code" in answer:
            raise ServerError(answer["error_code"], str(answer.get("details")))
        return answer.get("result")

    async def node_ids(self) -> list[int]:
        nodes = await self.command("get_nodes", {})
        return sorted(node["node_id"] for node in nodes)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
