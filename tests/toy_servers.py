"""Servers on 127.0.0.1 for tests that need a real one to talk to: the toy, or any aiohttp app."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from aiohttp import web

from gauntlet.targets.toy import RiverbendToy
from gauntlet.targets.toy.openai import create_app, serving_app


@contextmanager
def running_app(app: web.Application) -> Iterator[str]:
    """Serve `app` on a free port from a thread with its own event loop.

    Yields the base URL (up to `/v1`), and always shuts the server down.
    """
    started: queue.Queue[tuple[asyncio.AbstractEventLoop, asyncio.Event, int]] = queue.Queue()

    async def main() -> None:
        stop = asyncio.Event()
        async with serving_app(app) as port:
            started.put((asyncio.get_running_loop(), stop, port))
            await stop.wait()

    thread = threading.Thread(target=asyncio.run, args=(main(),))
    thread.start()
    loop, stop, port = started.get(timeout=10)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=10)
        assert not thread.is_alive()


def running_openai(toy: RiverbendToy) -> AbstractContextManager[str]:
    """Serve `toy` as an OpenAI-compatible API (see `running_app`); yields the base URL."""
    return running_app(create_app(toy))
