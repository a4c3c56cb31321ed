"""A loopback stub of an HTTP target, for the benchmarks: one fixed answer, after a set delay.

Run it as its own process::

    python benchmarks/stub_server.py --latency-ms 50

It binds 127.0.0.1 on a port the operating system chooses and prints one line,
``READY <port>``, once it accepts connections; it prints nothing else (no access log). It
answers ``POST /`` with one fixed, valid contract answer after ``--latency-ms`` milliseconds
(default: the ``STUB_LATENCY_MS`` environment variable, else 0), and runs until SIGTERM or
SIGINT. It runs on aiohttp's low-level ``web.Server`` (no router, no middleware) and the
answer is encoded once at start-up, so a request costs the server little beyond aiohttp's own
parsing: the load generator (``gauntlet_bench/loadgen.py``) measures how little.

It is also an OpenAI-compatible server, for the streaming benchmark: ``POST
/v1/chat/completions`` answers the same text as a ``chat.completion``, or, when the request
says ``"stream": true``, as Server-Sent Events: ``STREAM_CHUNKS`` ``chat.completion.chunk``
events (the text in ``STREAM_CHUNKS - 1`` pieces, then one with ``finish_reason: "stop"``),
then ``data: [DONE]``. The latency is all spent before the first byte, as for ``POST /``; the
events then follow one another without delay, each in its own write. So the two ways of
answering keep the server busy for the same time, and what differs is only what the client
does with the bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from itertools import pairwise

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

CHAT_PATH = "/v1/chat/completions"
FIRST_ASK_PATH = "/first-ask"
STREAM_CHUNKS = 20
"""`chat.completion.chunk` events in one streamed answer, the last one's `finish_reason` set."""
_HEAD = {"id": "chatcmpl-bench", "created": 0, "model": "bench-stub"}
COMPLETION = json.dumps(
    {
        **_HEAD,
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": ANSWER_TEXT, "refusal": None},
                "finish_reason": "stop",
            }
        ],
    },
    separators=(",", ":"),
).encode()


def split_text(text: str, pieces: int) -> list[str]:
    """`text` cut into `pieces` runs of characters, as even as can be."""
    bounds = [len(text) * index // pieces for index in range(pieces + 1)]
    return [text[start:end] for start, end in pairwise(bounds)]


def _event(delta: dict[str, str | None], finish_reason: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    chunk = {**_HEAD, "object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"


EVENTS = (
    *(
        _event(
            {"role": "assistant", "content": piece, "refusal": None}
            if number == 0
            else {"content": piece}
        )
        for number, piece in enumerate(split_text(ANSWER_TEXT, STREAM_CHUNKS - 1))
    ),
    _event({}, finish_reason="stop"),
    b"data: [DONE]\n\n",
)
"""A streamed answer, encoded once: every event as it is written. The first declares "no
refusal" (`refusal: null`), as the whole answer's message does."""


def make_server(latency: float) -> web.Server:
    """A server on aiohttp's low-level `web.Server` (no router, no middleware).

    Any other method or path gets 404 or 405, so a misdirected client fails loudly, except
    `GET /first-ask`: when the first POST since the last such GET arrived, by
    `time.monotonic()` (one clock for every process on Linux), or null; it starts counting anew.
    """
    first: list[float] = []  # time.monotonic() of the first POST since GET /first-ask

    async def answer(request: web.BaseRequest) -> web.StreamResponse:
        if request.path == FIRST_ASK_PATH and request.method == "GET":
            body = json.dumps({"first": first[0] if first else None}).encode()
            first.clear()
            return web.Response(body=body, content_type="application/json")
        if request.path not in ("/", CHAT_PATH):
            return web.Response(status=404)
        if request.method != "POST":
            return web.Response(status=405, headers={"Allow": "POST"})
        if not first:
            first.append(time.monotonic())
        question = await request.read()  # read the question, as a real target would
        if request.path == CHAT_PATH:
            return await chat(request, json.loads(question).get("stream") is True)
        if latency > 0:
            await asyncio.sleep(latency)
        return web.Response(body=BODY, content_type="application/json")

    async def chat(request: web.BaseRequest, stream: bool) -> web.StreamResponse:
        if latency > 0:
            await asyncio.sleep(latency)
        if not stream:
            return web.Response(body=COMPLETION, content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in EVENTS:
            await response.write(event)
        await response.write_eof()
        return response

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
