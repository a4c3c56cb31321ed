"""Subprocesses timed by a bare launcher: (c) `gauntlet run` and every other CLI child."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gauntlet_bench.config import RUN_TIMEOUT
from gauntlet_bench.measure import Sample
from gauntlet_bench.stub import Stub


@dataclass
class ChildRun:
    """A finished subprocess: wall time, its own CPU time and peak RSS, its exit status."""

    seconds: float
    cpu: float
    peak_mb: float
    status: int
    output: str
    launched: float = 0.0
    """`time.monotonic()` just before the command was spawned (one clock for every process)."""
    first_ask: float | None = None
    """Seconds from the spawn to the stub's first request, when the caller asked the stub."""


LAUNCHER = """\
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
launched = time.monotonic()
started = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - started
import json
with open(report, "w") as file:
    json.dump([seconds, status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, launched], file)
"""
"""Runs a command and reports its wall time, exit status, CPU time and peak RSS.

Linux counts in a child's peak RSS the memory of the process it was forked from (the old
address space is measured at `exec`), so a child forked from this driver would report the
driver's peak. The launcher is a bare Python, smaller than any command measured, so the
grandchild it spawns reports its own peak.
"""


def run_child(
    argv: Sequence[str], *, timeout: float = RUN_TIMEOUT, env: Mapping[str, str] | None = None
) -> ChildRun:
    """Run `argv` through the launcher; its time, CPU and peak RSS are the command's alone.

    `env` is the command's environment (None: this process's).
    """
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-run-") as temp:
        report = Path(temp) / "report.json"
        log = Path(temp) / "output.txt"
        with log.open("wb") as output:
            process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                [sys.executable, "-I", "-S", "-c", LAUNCHER, str(report), *argv],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # so a timeout can stop the command too
                env=None if env is None else dict(env),
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                raise RuntimeError(f"{shlex.join(argv)} took over {timeout:g} s") from None
        text = log.read_text(errors="replace")
        if process.returncode != 0 or not report.exists():
            raise RuntimeError(f"the launcher failed ({process.returncode}):\n{text[-2000:]}")
        seconds, status, cpu, peak_kb, launched = json.loads(report.read_text())
    return ChildRun(
        seconds, cpu, peak_kb / 1024.0, os.waitstatus_to_exitcode(status), text, launched
    )


def since_launch(child: ChildRun, first: float | None) -> float | None:
    """Seconds from `child`'s spawn to `first` (`time.monotonic()`), or None without one."""
    return None if first is None else first - child.launched


def gauntlet_command() -> list[str]:
    """The installed `gauntlet` script beside this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "gauntlet"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("gauntlet")
    if found is None:
        raise RuntimeError("no `gauntlet` command: run `make dev` first")
    return [found]


def run_cli(
    stub: Stub,
    cases: Path,
    concurrency: int,
    out: Path,
    *extra: str,
    command: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[ChildRun, float, dict[str, Any]]:
    """`gauntlet run --quiet [extra]` as a subprocess; the child, the stub's CPU, results.json.

    `command` starts the CLI (None: the installed `gauntlet`), in the environment `env`.
    """
    argv = [
        *(gauntlet_command() if command is None else command),
        "run",
        "--http-url",
        stub.url,
        "--cases",
        str(cases),
        "--concurrency",
        str(concurrency),
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]
    server = stub.cpu_seconds()
    stub.first_ask()  # forget earlier asks
    child = run_child(argv, env=env)
    server_cpu = stub.cpu_seconds() - server
    child.first_ask = since_launch(child, stub.first_ask())
    if child.status != 0:
        raise RuntimeError(f"gauntlet run exited {child.status}:\n{child.output[-2000:]}")
    document: dict[str, Any] = json.loads(out.read_text())
    return child, server_cpu, document


def measure_cli(
    stub: Stub, cases: Path, total: int, concurrency: int, out: Path
) -> tuple[Sample, ChildRun]:
    """(c) `gauntlet run --quiet` end to end, as a subprocess: start-up, load, probe, score."""
    child, server_cpu, document = run_cli(stub, cases, concurrency, out)
    totals = document["totals"]
    if totals["passed"] != total:
        raise RuntimeError(f"gauntlet run: {totals}")
    out.unlink()
    return Sample(child.seconds, child.cpu, server_cpu, extra=child.peak_mb), child
