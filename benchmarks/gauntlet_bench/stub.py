"""The stub server (`stub_server.py`), in its own process for the life of a `with` block."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType

from gauntlet_bench.config import CLK_TCK, READY_TIMEOUT, STUB


class Stub:
    """The stub server, running in its own process for the life of a `with` block."""

    def __init__(self, latency_ms: float) -> None:
        self.latency_ms = latency_ms
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in __exit__
        self._process = subprocess.Popen(  # noqa: S603 - our own script, no shell
            [sys.executable, str(STUB), "--latency-ms", f"{latency_ms:g}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        self.port = self._await_ready()
        self.url = f"http://127.0.0.1:{self.port}/"

    def _await_ready(self) -> int:
        stdout = self._process.stdout
        assert stdout is not None  # noqa: S101 - Popen made it a pipe
        deadline = time.monotonic() + READY_TIMEOUT
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([stdout], [], [], left)
            if not readable:
                break
            line = stdout.readline()
            if not line:
                break
            if line.startswith("READY "):
                return int(line.split()[1])
        self.stop()
        self._log.seek(0)
        reason = self._log.read().decode(errors="replace").strip()
        raise RuntimeError(f"the stub server did not start: {reason or 'no READY line'}")

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server has used so far."""
        stat = Path(f"/proc/{self._process.pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def first_ask(self) -> float | None:
        """When the first ask since the last call arrived (`time.monotonic()`), or None.

        Each call starts the count anew: call it before a run to forget earlier asks.
        """
        with urllib.request.urlopen(f"{self.url}first-ask", timeout=10) as reply:  # noqa: S310 - our own loopback stub
            first = json.loads(reply.read())["first"]
        return None if first is None else float(first)

    def stop(self) -> None:
        """Stop the server: SIGTERM, then SIGKILL if it lingers."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def __enter__(self) -> Stub:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        self._log.close()
