"""The load generator: raw asyncio sockets, the stub's capacity."""

from __future__ import annotations

import asyncio
import json
import time

from gauntlet_bench.config import RUN_TIMEOUT
from gauntlet_bench.measure import Row, Sample
from gauntlet_bench.stub import Stub


class _Budget:
    def __init__(self, total: int) -> None:
        self.left = total
        self.answered = 0
        self.failed = 0


class _LoadConnection(asyncio.Protocol):
    """One keep-alive connection of the load generator: send, read one answer, send again."""

    def __init__(self, request: bytes, budget: _Budget, closed: asyncio.Future[None]) -> None:
        self._request = request
        self._budget = budget
        self._closed = closed
        self._buffer = bytearray()
        self._need = -1
        self._ok = False
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # noqa: S101 - a TCP connection
        self._transport = transport
        self._send_next()

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while True:
            if self._need < 0:
                end = self._buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = bytes(self._buffer[:end]).lower()
                at = head.find(b"content-length:") + len(b"content-length:")
                stop = head.find(b"\r\n", at)
                length = int(head[at : stop if stop >= 0 else None])
                self._need = end + 4 + length
                self._ok = head.startswith(b"http/1.1 200")
            if len(self._buffer) < self._need:
                return
            del self._buffer[: self._need]
            self._need = -1
            if self._ok:
                self._budget.answered += 1
            else:
                self._budget.failed += 1
            self._send_next()

    def _send_next(self) -> None:
        assert self._transport is not None  # noqa: S101 - connected
        if self._budget.left > 0:
            self._budget.left -= 1
            self._transport.write(self._request)
        else:
            self._transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)


async def _load(port: int, connections: int, total: int) -> tuple[float, int, int]:
    body = json.dumps({"prompt": "Benchmark question, when is the library open?", "language": "en"})
    request = (
        f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}"
    ).encode()
    loop = asyncio.get_running_loop()
    budget = _Budget(total)
    closed = [loop.create_future() for _ in range(connections)]
    started = time.perf_counter()
    await asyncio.gather(
        *(
            loop.create_connection(
                lambda done=done: _LoadConnection(request, budget, done),  # type: ignore[misc]
                "127.0.0.1",
                port,
            )
            for done in closed
        )
    )
    await asyncio.wait_for(asyncio.gather(*closed), timeout=RUN_TIMEOUT)
    return time.perf_counter() - started, budget.answered, budget.failed


def load_generator(stub: Stub, connections: int, total: int) -> Row:
    """Measure the stub's capacity with a minimal client: bytes out, Content-Length in."""
    row = Row("load generator", stub.latency_ms, connections, total)
    cpu, server = time.process_time(), stub.cpu_seconds()
    seconds, answered, failed = asyncio.run(_load(stub.port, connections, total))
    if answered != total or failed:
        raise RuntimeError(f"load generator: {answered} answered, {failed} failed of {total}")
    row.samples.append(
        Sample(seconds, time.process_time() - cpu, stub.cpu_seconds() - server, extra=0.0)
    )
    return row
