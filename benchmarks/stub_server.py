"""A loopback stub of an HTTP target, for the benchmarks: one fixed answer, after a set delay.

Run it as its own process::

    python benchmarks/stub_server.py --latency-ms 50

It binds 127.0.0.1 on a port the operating system chooses and prints one line,
``READY <port>``, once it accepts connections; it prints nothing else (no access log). It
answers ``POST /`` with one fixed, valid contract answer after ``--latency-ms`` milliseconds
(default: the ``STUB_LATENCY_MS`` environment variable, else 0), and runs until SIGTERM or
SIGINT. It runs on aiohttp's low-level ``web.Server`` (no router, no middleware) and the
answer is encoded once at start-up, so a request costs the server little beyond aiohttp's own
parsing: the load generator in ``bench.py`` measures how little.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys

from aiohttp import web

ANSWER_TEXT = "The Riverbend library's opening hours are 9 am to 5 pm, Monday to Saturday [RB-001]."
"""The stub's answer. The generated cases' `must_contain` marker is a part of it."""
MARKER = "opening hours"
"""What every generated case must find in the answer."""
SOURCE_ID = "RB-001"

ANSWER = {
    "text": ANSWER_TEXT,
    "citations": [SOURCE_ID],
    "context_ids": [SOURCE_ID],
    "refused": False,
    "escalated": False,
}
BODY = json.dumps(ANSWER, separators=(",", ":")).encode()


def make_server(latency: float) -> web.Server:
    """A server on aiohttp's low-level `web.Server` (no router, no middleware).

    Any other method or path gets 404 or 405, so a misdirected client fails loudly.
    """

    async def answer(request: web.BaseRequest) -> web.StreamResponse:
        if request.path != "/":
            return web.Response(status=404)
        if request.method != "POST":
            return web.Response(status=405, headers={"Allow": "POST"})
        await request.read()  # read the question, as a real target would
        if latency > 0:
            await asyncio.sleep(latency)
        return web.Response(body=BODY, content_type="application/json")

    return web.Server(answer, access_log=None)


async def serve(latency: float, port: int) -> None:
    """Serve on 127.0.0.1:`port` (0: any free one), print `READY <port>`, run until a signal."""
    runner = web.ServerRunner(make_server(latency), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=1024, reuse_address=True)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    bound = runner.addresses[0][1]
    sys.stdout.write(f"READY {bound}\n")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    """Parse the options and serve until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=float(os.environ.get("STUB_LATENCY_MS", "0")),
        help="milliseconds to wait before answering (default: $STUB_LATENCY_MS, else 0)",
    )
    parser.add_argument("--port", type=int, default=0, help="port (default 0: any free one)")
    options = parser.parse_args(argv)
    if options.latency_ms < 0:
        parser.error("--latency-ms cannot be negative")
    asyncio.run(serve(options.latency_ms / 1000.0, options.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
