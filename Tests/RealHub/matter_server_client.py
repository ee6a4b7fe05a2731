"""A small client of the Matter Server's WebSocket API, for the end-to-end test's checks and timings.

Usage (inside the test's network namespace, with the Matter Server's virtual environment):
  python matter_server_client.py [--url URL] nodes                  the node IDs, as a JSON list
  python matter_server_client.py [--url URL] commission CODE        commission_with_code, network only;
                                                                    prints {"nodeID": n, "seconds": s}
  python matter_server_client.py [--url URL] read NODE PATH...      read_attribute; prints {"PATH": value, ...}
  python matter_server_client.py [--url URL] remove NODE            remove_node
Exit status: 0 on success, 1 when the server answered an error (printed to stderr), 2 on a usage error.
"""

import argparse
import asyncio
import json
import sys
import time

import aiohttp


class ServerError(Exception):
    def __init__(self, code, details):
        super().__init__(f"Matter Server error {code}: {details}")


async def command(ws, name, args, timeout=120):
    message_id = f"{name}-{time.monotonic_ns()}"
    await ws.send_json({"message_id": message_id, "command": name, "args": args})
    async with asyncio.timeout(timeout):
        while True:
            message = await ws.receive_json()
            if message.get("message_id") != message_id:
                continue
            if "error_code" in message:
                raise ServerError(message["error_code"], message.get("details"))
            return message.get("result")


async def run(args):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(args.url, timeout=aiohttp.ClientWSTimeout(ws_close=5)) as ws:
            await ws.receive_json()  # server info
            if args.action == "nodes":
                nodes = await command(ws, "get_nodes", {})
                print(json.dumps(sorted(node["node_id"] for node in nodes)))
            elif args.action == "commission":
                started = time.perf_counter()
                node = await command(ws, "commission_with_code", {"code": args.values[0], "network_only": True})
                seconds = time.perf_counter() - started
                print(json.dumps({"nodeID": node["node_id"], "seconds": round(seconds, 4)}))
            elif args.action == "read":
                node_id, paths = int(args.values[0]), args.values[1:]
                print(json.dumps(await command(ws, "read_attribute", {"node_id": node_id, "attribute_path": paths})))
            elif args.action == "remove":
                await command(ws, "remove_node", {"node_id": int(args.values[0])})


def main():
    parser = argparse.ArgumentParser(description="Matter Server WebSocket client for the end-to-end test")
    parser.add_argument("--url", default="ws://[::1]:5580/ws")
    parser.add_argument("action", choices=["nodes", "commission", "read", "remove"])
    parser.add_argument("values", nargs="*")
    args = parser.parse_args()
    needed = {"nodes": 0, "commission": 1, "read": 2, "remove": 1}[args.action]
    if len(args.values) < needed:
        parser.print_usage(sys.stderr)
        return 2
    try:
        asyncio.run(run(args))
    except ServerError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
