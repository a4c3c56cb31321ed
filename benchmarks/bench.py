"""Benchmark gauntlet's HTTP engine against a loopback stub, and check the project's targets.

Run it with ``make bench`` (or ``.venv/bin/python benchmarks/bench.py``; ``--help`` lists the
options). In one run it measures:

- the stub server's capacity, with a load generator far cheaper than any HTTP client, so
  that the figures below are known to be the client's and not the server's;
- for each latency and concurrency: (a) a minimal raw aiohttp loop, the floor for a Python
  client; (b) the engine alone, `run_gauntlet` with an `HttpTarget`, timed from the call to
  the last answer (start-up, loading and scoring excluded); (c) `gauntlet run` end to end, as
  a subprocess on generated case files;
- streaming: gauntlet's openai-chat target from a target file, `stream: true` against
  `stream: false`, at 50 ms latency and concurrency 64 (``streaming.py``);
- CLI start-up (`gauntlet --version`, `gauntlet run --help`) against `python -c pass`;
- peak memory of `gauntlet run` for 20,000 cases;
- performance at scale (alone with ``--scale-only``): 20,000 cases with ``--repeat 3``; the
  same cases in 4 shards merged with ``gauntlet merge``, against one unsharded run, digests
  compared; peak memory at 5,000, 20,000 and 80,000 cases and its growth per 1,000 cases.

It prints a table as it goes and writes the figures, with the command that made them and a
computed verdict per target, to ``benchmarks/RESULTS.md``. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import json
import math
import os
import platform
import pstats
import select
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import Any

import aiohttp

from gauntlet import __version__ as gauntlet_version
from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo, Verdict
from gauntlet.targets.http import HttpTarget

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import streaming  # noqa: E402 - the sibling modules, found through HERE
from stub_server import MARKER  # noqa: E402

STUB = HERE / "stub_server.py"
CASES_PER_FILE = 500
READY_TIMEOUT = 15.0
"""Seconds the stub server has to print READY."""
RUN_TIMEOUT = 900.0
"""Seconds any one measured subprocess may take before it is killed."""
ONE_RUN_ABOVE = 30.0
"""A configuration whose ideal time is above this many seconds is measured once."""
CLK_TCK = os.sysconf("SC_CLK_TCK")

RAW, ENGINE, CLI = "raw aiohttp", "engine", "gauntlet run"
MODES = (RAW, ENGINE, CLI)

# The project's targets.
LATENCY_TARGET_MS = 50.0
LATENCY_TARGET_CONCURRENCIES = (8, 32, 64, 128)
IDEAL_FACTOR = 1.25
RAW_FACTOR_AT_LATENCY = 0.85
ZERO_LATENCY_CONCURRENCY = 32
RAW_FACTOR_AT_ZERO = 0.35
MEMORY_LIMIT_MB = 300.0


# ------------------------------------------------------------------ case files


def write_case_files(directory: Path, total: int) -> Path:
    """Write `total` false_positive cases, in files of at most 500, that the stub passes."""
    directory.mkdir(parents=True, exist_ok=True)
    for number, start in enumerate(range(0, total, CASES_PER_FILE), start=1):
        count = min(CASES_PER_FILE, total - start)
        lines = [
            f"suite: bench-{number:03d}",
            "gate: false_positive",
            "version: 1",
            "threshold: 1.0",
            "cases:",
        ]
        for index in range(start, start + count):
            lines += [
                f"  - id: bench-{index:06d}",
                "    language: en",
                f"    prompt: Benchmark question {index}, when is the library open?",
                f'    must_contain: ["{MARKER}"]',
            ]
        (directory / f"bench-{number:03d}.yaml").write_text("\n".join(lines) + "\n")
    return directory


def prompts_of(suites: SuiteSet) -> list[str]:
    """Every case's prompt, in plan order: what the raw loop asks (the cases have no turns)."""
    return [
        case.prompt for loaded in suites.suites for case in loaded.cases if case.prompt is not None
    ]


# ------------------------------------------------------------------ the stub server


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


# ------------------------------------------------------------------ measurements


@dataclass
class Sample:
    """One timed run."""

    seconds: float
    client_cpu: float
    """CPU seconds the client used (the driver for raw and engine, the child for the CLI)."""
    server_cpu: float
    """CPU seconds the stub server used meanwhile."""
    extra: float = 0.0
    """Engine: seconds spent scoring after the last answer. CLI: peak RSS in MB."""


@dataclass
class Row:
    """Every run of one mode at one latency and concurrency."""

    mode: str
    latency_ms: float
    concurrency: int
    requests: int
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> Sample:
        """The run with the median time (the lower middle one for an even count)."""
        ordered = sorted(self.samples, key=lambda sample: sample.seconds)
        return ordered[(len(ordered) - 1) // 2]

    @property
    def seconds(self) -> float:
        """The median time."""
        return self.median.seconds

    @property
    def rps(self) -> float:
        """Requests per second at the median time."""
        return self.requests / self.seconds

    @property
    def ideal(self) -> float:
        """ceil(N / C) x latency: every wave of C requests waits the latency and nothing else."""
        return math.ceil(self.requests / self.concurrency) * self.latency_ms / 1000.0


def ideal_ratio(row: Row) -> float | None:
    """Time over the ideal time; None when the ideal is 0 (no latency)."""
    return row.seconds / row.ideal if row.ideal > 0 else None


def raw_ratio(row: Row, raw: Row | None) -> float | None:
    """Throughput as a fraction of the raw aiohttp loop's (raw time over this time)."""
    return raw.seconds / row.seconds if raw is not None else None


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


async def _raw(url: str, prompts: Sequence[str], concurrency: int) -> float:
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(prompts)

        async def worker() -> None:
            for prompt in pending:
                async with session.post(url, json={"prompt": prompt, "language": "en"}) as reply:
                    answer = json.loads(await reply.read())
                    if reply.status != 200 or not answer["text"]:
                        raise RuntimeError(f"raw aiohttp: HTTP {reply.status}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def measure_raw(stub: Stub, prompts: Sequence[str], concurrency: int) -> Sample:
    """(a) The raw aiohttp loop: `concurrency` workers sharing one iterator of prompts."""
    cpu, server = time.process_time(), stub.cpu_seconds()
    seconds = asyncio.run(_raw(stub.url, prompts, concurrency))
    return Sample(seconds, time.process_time() - cpu, stub.cpu_seconds() - server)


def measure_engine(stub: Stub, suites: SuiteSet, concurrency: int) -> Sample:
    """(b) The engine alone: `run_gauntlet`, pre-flight off, timed to its last answer."""
    total = suites.case_total
    marks: dict[str, float] = {}

    def progress(done: int, of: int) -> None:
        if done == of:
            marks["answered"] = time.perf_counter()
            marks["cpu"] = time.process_time()

    target = HttpTarget(stub.url, concurrency=concurrency)
    info = TargetInfo(kind="http", name=target.name)
    cpu, server = time.process_time(), stub.cpu_seconds()
    started = time.perf_counter()
    results = run_gauntlet(
        suites,
        target,
        target_info=info,
        concurrency=concurrency,
        progress=progress,
        preflight=False,
    )
    ended = time.perf_counter()
    server_cpu = stub.cpu_seconds() - server
    if results.verdict is not Verdict.PASS or results.totals.passed != total:
        raise RuntimeError(f"engine: {results.verdict_reason} ({results.totals})")
    return Sample(
        marks["answered"] - started,
        marks["cpu"] - cpu,
        server_cpu,
        extra=ended - marks["answered"],
    )


@dataclass
class ChildRun:
    """A finished subprocess: wall time, its own CPU time and peak RSS, its exit status."""

    seconds: float
    cpu: float
    peak_mb: float
    status: int
    output: str


LAUNCHER = """\
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - started
import json
with open(report, "w") as file:
    json.dump([seconds, status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss], file)
"""
"""Runs a command and reports its wall time, exit status, CPU time and peak RSS.

Linux counts in a child's peak RSS the memory of the process it was forked from (the old
address space is measured at `exec`), so a child forked from this driver would report the
driver's peak. The launcher is a bare Python, smaller than any command measured, so the
grandchild it spawns reports its own peak.
"""


def run_child(argv: Sequence[str], *, timeout: float = RUN_TIMEOUT) -> ChildRun:
    """Run `argv` through the launcher; its time, CPU and peak RSS are the command's alone."""
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
        seconds, status, cpu, peak_kb = json.loads(report.read_text())
    return ChildRun(seconds, cpu, peak_kb / 1024.0, os.waitstatus_to_exitcode(status), text)


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
    stub: Stub, cases: Path, concurrency: int, out: Path, *extra: str
) -> tuple[ChildRun, float, dict[str, Any]]:
    """`gauntlet run --quiet [extra]` as a subprocess; the child, the stub's CPU, results.json."""
    argv = [
        *gauntlet_command(),
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
    child = run_child(argv)
    server_cpu = stub.cpu_seconds() - server
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


# ------------------------------------------------------------------ reporting


def _fmt(value: float | None, spec: str, suffix: str = "") -> str:
    return "—" if value is None else f"{value:{spec}}{suffix}"


RUN_COLUMNS = (
    "latency",
    "C",
    "mode",
    "runs",
    "time s",
    "req/s",
    "ideal s",
    "× ideal",
    "thru vs raw",
    "client CPU",
    "stub CPU",
)


def run_cells(row: Row, raw: Row | None) -> list[str]:
    """One table row's cells, the same on the console and in RESULTS.md."""
    sample = row.median
    return [
        f"{row.latency_ms:g} ms",
        str(row.concurrency),
        row.mode,
        str(len(row.samples)),
        f"{row.seconds:.3f}",
        f"{row.rps:,.0f}",
        _fmt(row.ideal if row.ideal > 0 else None, ".3f"),
        _fmt(ideal_ratio(row), ".3f", "×"),
        _fmt(raw_ratio(row, raw), ".3f", "×"),
        f"{100 * sample.client_cpu / row.seconds:.0f} %",
        f"{100 * sample.server_cpu / row.seconds:.0f} %",
    ]


CONSOLE_WIDTHS = (8, 4, 16, 4, 9, 8, 8, 8, 11, 10, 8)


def console_line(cells: Sequence[str]) -> str:
    """Cells padded into fixed columns."""
    return "  ".join(
        f"{cell:<{width}}" if i == 2 else f"{cell:>{width}}"
        for i, (cell, width) in enumerate(zip(cells, CONSOLE_WIDTHS, strict=True))
    )


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return lines


@dataclass
class TargetCheck:
    """One target's computed outcome."""

    target: str
    met: bool | None
    """None: a configuration it needs was not measured."""
    detail: str

    def line(self) -> str:
        """`- target: **met** (detail)`."""
        word = {True: "met", False: "NOT MET", None: "not measured"}[self.met]
        return f"- {self.target}: **{word}** ({self.detail})"


def find(rows: Sequence[Row], mode: str, latency: float, concurrency: int) -> Row | None:
    """The row of one mode and configuration, if it was measured."""
    for row in rows:
        if (row.mode, row.latency_ms, row.concurrency) == (mode, latency, concurrency):
            return row
    return None


def judge_targets(
    rows: Sequence[Row], memory: Row | None, stream: streaming.Streaming | None
) -> list[TargetCheck]:
    """Compute each target's verdict from the figures; each detail starts with its headline."""
    verdicts = []
    checks: list[tuple[str, Callable[[Row, Row], float | None], float, bool]] = [
        (
            f"{LATENCY_TARGET_MS:g} ms latency: the engine finishes within "
            f"{IDEAL_FACTOR}× the ideal time at C = "
            + ", ".join(map(str, LATENCY_TARGET_CONCURRENCIES)),
            lambda row, raw: ideal_ratio(row),
            IDEAL_FACTOR,
            False,
        ),
        (
            f"{LATENCY_TARGET_MS:g} ms latency: the engine's throughput is at least "
            f"{RAW_FACTOR_AT_LATENCY}× raw aiohttp's at C = "
            + ", ".join(map(str, LATENCY_TARGET_CONCURRENCIES)),
            raw_ratio,
            RAW_FACTOR_AT_LATENCY,
            True,
        ),
    ]
    for title, ratio, bound, at_least in checks:
        parts, missing, failed, values = [], False, False, []
        for concurrency in LATENCY_TARGET_CONCURRENCIES:
            row = find(rows, ENGINE, LATENCY_TARGET_MS, concurrency)
            raw = find(rows, RAW, LATENCY_TARGET_MS, concurrency)
            value = ratio(row, raw) if row is not None and raw is not None else None
            if value is None:
                parts.append(f"C={concurrency} not measured")
                missing = True
                continue
            ok = value >= bound if at_least else value <= bound
            parts.append(f"C={concurrency} {value:.3f}×{'' if ok else ' ✗'}")
            values.append(value)
            failed = failed or not ok
        met = False if failed else (None if missing else True)
        if values:
            worst = min(values) if at_least else max(values)
            parts[0] = f"at worst {worst:.3f}×: {parts[0]}"
        verdicts.append(TargetCheck(title, met, "; ".join(parts)))
    row = find(rows, ENGINE, 0.0, ZERO_LATENCY_CONCURRENCY)
    raw = find(rows, RAW, 0.0, ZERO_LATENCY_CONCURRENCY)
    title = (
        f"0 ms latency: the engine keeps at least {RAW_FACTOR_AT_ZERO}× raw aiohttp's "
        f"throughput at C = {ZERO_LATENCY_CONCURRENCY}"
    )
    if row is None or raw is None:
        verdicts.append(TargetCheck(title, None, "not measured"))
    else:
        value = raw.seconds / row.seconds
        verdicts.append(
            TargetCheck(
                title,
                value >= RAW_FACTOR_AT_ZERO,
                f"{value:.3f}×: engine {row.rps:,.0f} req/s, raw {raw.rps:,.0f} req/s",
            )
        )
    title = f"peak memory of `gauntlet run` for 20,000 cases under {MEMORY_LIMIT_MB:g} MB"
    if memory is None:
        verdicts.append(TargetCheck(title, None, "not measured"))
    else:
        peak = memory.median.extra
        detail = f"{peak:.1f} MB for {memory.requests:,} cases"
        if memory.requests < 20_000:
            verdicts.append(TargetCheck(title, None, detail + ", fewer than 20,000"))
        else:
            verdicts.append(TargetCheck(title, peak < MEMORY_LIMIT_MB, detail))
    if stream is None:
        verdicts.append(TargetCheck(streaming.title(), None, "not measured"))
    else:
        verdicts.append(TargetCheck(stream.title, stream.met, stream.detail))
    return verdicts


def cli_lines(rows: Sequence[Row]) -> list[str]:
    """Informational: how far `gauntlet run` end to end is from the ideal and from raw."""
    lines = []
    for concurrency in LATENCY_TARGET_CONCURRENCIES:
        row = find(rows, CLI, LATENCY_TARGET_MS, concurrency)
        raw = find(rows, RAW, LATENCY_TARGET_MS, concurrency)
        if row is None or raw is None:
            continue
        lines.append(
            f"- `gauntlet run` at {LATENCY_TARGET_MS:g} ms, C={concurrency}: "
            f"{row.seconds:.3f} s, {_fmt(ideal_ratio(row), '.3f', '×')} ideal, "
            f"{_fmt(raw_ratio(row, raw), '.3f', '×')} raw aiohttp's throughput"
        )
    return lines


@dataclass
class Startup:
    """Start-up timings of one command."""

    label: str
    runs: list[ChildRun]

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(run.seconds for run in self.runs)


def measure_startup(label: str, argv: Sequence[str], runs: int) -> Startup:
    """Run `argv` once to warm the caches, then `runs` times."""
    run_child(argv, timeout=60)
    measured = []
    for _ in range(runs):
        child = run_child(argv, timeout=60)
        if child.status != 0:
            raise RuntimeError(f"{label} exited {child.status}:\n{child.output[-2000:]}")
        measured.append(child)
    return Startup(label, measured)


def machine_facts() -> list[str]:
    """CPU, Python and package versions: what the figures depend on."""
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("aiohttp", "multidict", "yarl")
    )
    return [
        f"- CPU: {os.cpu_count()} logical CPUs ({usable} usable), {model}",
        f"- Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.system()} {platform.release()} {platform.machine()}",
        f"- gauntlet {gauntlet_version}; {versions}",
    ]


def command_line() -> str:
    """The command that made the figures, as typed from the repository root."""
    python = Path(sys.executable)
    with contextlib.suppress(ValueError):
        python = python.relative_to(Path.cwd())
    script = Path(sys.argv[0]).resolve()
    with contextlib.suppress(ValueError):
        script = script.relative_to(Path.cwd())
    command = shlex.join([str(python), str(script), *sys.argv[1:]])
    if os.environ.get("MAKELEVEL"):
        return f"make bench  # runs: {command}"
    return command


# ------------------------------------------------------------------ performance at scale


SCALE_HEADING = "## Performance at scale"
LINEAR_BAND = (0.75, 4 / 3)
"""Memory grows "roughly linearly" when the MB per 1,000 cases over the larger sizes is within
this factor of the MB per 1,000 cases over the smaller ones."""


@dataclass
class ScaleRun:
    """One `gauntlet run` (or `gauntlet merge`) of the scale section."""

    label: str
    cases: int
    asks: int
    """Answers recorded in the results file (every case's trials); the probe not counted."""
    child: ChildRun
    server_cpu: float = 0.0
    digest: str = ""
    """`results_digest` of `gauntlet report FILE --format json`, where it was read."""

    @property
    def asks_per_second(self) -> float:
        """Asks over the whole process's wall time (start-up, loading and writing included)."""
        return self.asks / self.child.seconds


@dataclass
class Scale:
    """Everything the scale section measured."""

    cases: int
    concurrency: int
    repeat: int
    shard_count: int
    started_at: datetime
    load_before: float
    repeated: ScaleRun | None = None
    unsharded: ScaleRun | None = None
    shards: list[ScaleRun] = field(default_factory=list)
    merge: ScaleRun | None = None
    memory: list[ScaleRun] = field(default_factory=list)
    elapsed: float = 0.0
    load_after: float = 0.0


def results_digest(path: Path) -> str:
    """`results_digest` from `gauntlet report PATH --format json`."""
    completed = subprocess.run(  # noqa: S603 - fixed argv, no shell
        [*gauntlet_command(), "report", str(path), "--format", "json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"gauntlet report exited {completed.returncode}:\n{completed.stderr}")
    digest = json.loads(completed.stdout).get("results_digest")
    if not isinstance(digest, str) or not digest:
        raise RuntimeError(f"gauntlet report {path}: no results_digest")
    return digest


def scale_run(
    stub: Stub,
    label: str,
    cases_dir: Path,
    concurrency: int,
    out: Path,
    *extra: str,
    expect_cases: int | None,
    expect_asks_per_case: int = 1,
) -> ScaleRun:
    """One `gauntlet run` whose cases must all pass; `expect_cases` None for a shard."""
    gc.collect()
    child, server_cpu, document = run_cli(stub, cases_dir, concurrency, out, *extra)
    totals = document["totals"]
    asks = sum(len(case["trials"]) for case in document["cases"])
    del document
    cases = int(totals["total"])
    if totals["passed"] != cases or (expect_cases is not None and cases != expect_cases):
        raise RuntimeError(f"{label}: {totals}, expected {expect_cases} cases all passed")
    if asks != cases * expect_asks_per_case:
        raise RuntimeError(f"{label}: {asks} asks for {cases} cases x {expect_asks_per_case}")
    run = ScaleRun(label, cases, asks, child, server_cpu)
    print(
        f"  {label:<34} {cases:>7,} cases {asks:>7,} asks  {child.seconds:8.2f} s  "
        f"{run.asks_per_second:6,.0f} asks/s  peak RSS {child.peak_mb:7.1f} MB",
        flush=True,
    )
    return run


def run_scale(plan: Plan, work: Path) -> Scale:
    """Repeat, shard-and-merge, and peak memory by case count, at 0 ms latency."""
    scale = Scale(
        cases=plan.scale_cases,
        concurrency=plan.scale_concurrency,
        repeat=plan.scale_repeat,
        shard_count=plan.scale_shards,
        started_at=datetime.now(UTC),
        load_before=os.getloadavg()[0],
    )
    began = time.perf_counter()
    root = work / "scale"
    root.mkdir()
    concurrency = plan.scale_concurrency
    memory_sizes = sorted(set(plan.scale_memory_cases))
    with Stub(0.0) as stub:
        print(
            f"\nperformance at scale: stub server at {stub.url}, 0 ms latency, "
            f"C={concurrency}; load average {scale.load_before:.2f}"
        )
        if plan.scale_cases:
            cases_dir = write_case_files(root / "cases", plan.scale_cases)
            # The unsharded run: the sharding baseline, and a point of the memory curve.
            unsharded_out = root / "unsharded.json"
            unsharded = scale_run(
                stub,
                "unsharded, repeat 1",
                cases_dir,
                concurrency,
                unsharded_out,
                expect_cases=plan.scale_cases,
            )
            unsharded.digest = results_digest(unsharded_out)
            scale.unsharded = unsharded
            shard_files = []
            for index in range(1, plan.scale_shards + 1):
                out = root / f"shard-{index}.json"
                shard_files.append(out)
                scale.shards.append(
                    scale_run(
                        stub,
                        f"shard {index}/{plan.scale_shards}",
                        cases_dir,
                        concurrency,
                        out,
                        "--shard",
                        f"{index}/{plan.scale_shards}",
                        expect_cases=None,
                    )
                )
            covered = sum(run.cases for run in scale.shards)
            if covered != plan.scale_cases:
                raise RuntimeError(f"the shards hold {covered} cases, not {plan.scale_cases}")
            merged_out = root / "merged.json"
            gc.collect()
            child = run_child(
                [*gauntlet_command(), "merge", *map(str, shard_files), "--out", str(merged_out)]
            )
            if child.status != 0:
                raise RuntimeError(f"gauntlet merge exited {child.status}:\n{child.output}")
            scale.merge = ScaleRun("merge", covered, 0, child, digest=results_digest(merged_out))
            print(
                f"  {'gauntlet merge':<34} {covered:>7,} cases {'':>12}  {child.seconds:8.2f} s"
                f"  {'':>13}  peak RSS {child.peak_mb:7.1f} MB"
            )
            for path in (*shard_files, merged_out, unsharded_out):
                path.unlink()
            scale.repeated = scale_run(
                stub,
                f"repeat {plan.scale_repeat}",
                cases_dir,
                concurrency,
                root / "repeated.json",
                "--repeat",
                str(plan.scale_repeat),
                expect_cases=plan.scale_cases,
                expect_asks_per_case=plan.scale_repeat,
            )
            (root / "repeated.json").unlink()
            shutil.rmtree(cases_dir)
        for size in memory_sizes:
            if scale.unsharded is not None and size == scale.unsharded.cases:
                scale.memory.append(scale.unsharded)
                continue
            cases_dir = write_case_files(root / f"memory-{size}", size)
            out = root / f"memory-{size}.json"
            scale.memory.append(
                scale_run(stub, "memory, repeat 1", cases_dir, concurrency, out, expect_cases=size)
            )
            out.unlink()
            shutil.rmtree(cases_dir)
    scale.memory.sort(key=lambda run: run.cases)
    scale.elapsed = time.perf_counter() - began
    scale.load_after = os.getloadavg()[0]
    for line in scale_verdicts(scale):
        print("  " + line)
    print(f"  the scale section took {scale.elapsed:.0f} s")
    return scale


def shard_verdict(scale: Scale) -> TargetCheck | None:
    """Whether the merged shards' results digest equals the unsharded run's."""
    if scale.unsharded is None or scale.merge is None:
        return None
    same = scale.merge.digest == scale.unsharded.digest
    detail = (
        f"both {scale.merge.digest}"
        if same
        else f"merged {scale.merge.digest}, unsharded {scale.unsharded.digest}"
    )
    return TargetCheck(
        f"{scale.shard_count} shards merged give the unsharded run's results digest", same, detail
    )


@dataclass
class Growth:
    """Peak memory against the case count."""

    slope: float
    """MB per 1,000 cases, least squares over every size."""
    intercept: float
    """MB at 0 cases by the same line: start-up, imports, the fixed cost."""
    first: float
    """MB per 1,000 cases between the two smallest sizes."""
    last: float
    """MB per 1,000 cases between the two largest sizes."""
    linear: bool | None
    """None with fewer than three sizes: linearity cannot be judged."""
    shape: str


def memory_growth(runs: Sequence[ScaleRun]) -> Growth | None:
    """Fit peak RSS to the case count; judge whether it grows roughly linearly."""
    if len(runs) < 2:
        return None
    xs = [run.cases / 1000 for run in runs]
    ys = [run.child.peak_mb for run in runs]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    first = (ys[1] - ys[0]) / (xs[1] - xs[0])
    last = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    linear: bool | None = None
    shape = "two sizes only, linearity not judged"
    if len(runs) >= 3:
        ratio = last / first if first > 0 else math.inf
        low, high = LINEAR_BAND
        linear = low <= ratio <= high
        pace = "" if linear else "; faster than linear" if ratio > high else "; slower"
        shape = (
            f"the MB per 1,000 cases between the two largest sizes is {ratio:.2f}× that "
            f"between the two smallest; roughly linear is {low:.2f}× to {high:.2f}×{pace}"
        )
    return Growth(slope, mean_y - slope * mean_x, first, last, linear, shape)


def marginal_mb(before: ScaleRun | None, run: ScaleRun) -> float | None:
    """MB of peak RSS per 1,000 cases from the `before` size to `run`'s."""
    if before is None:
        return None
    return 1000 * (run.child.peak_mb - before.child.peak_mb) / (run.cases - before.cases)


def scale_verdicts(scale: Scale) -> list[str]:
    """The computed lines of the scale section (console and RESULTS.md)."""
    lines = []
    if scale.repeated is not None and scale.unsharded is not None:
        lines.append(
            f"- {scale.cases:,} cases × --repeat {scale.repeat}: {scale.repeated.asks:,} asks in "
            f"{scale.repeated.child.seconds:.2f} s = {scale.repeated.asks_per_second:,.0f} "
            f"asks/s (repeat 1: {scale.unsharded.asks_per_second:,.0f} asks/s), peak RSS "
            f"{scale.repeated.child.peak_mb:.1f} MB (repeat 1: "
            f"{scale.unsharded.child.peak_mb:.1f} MB)"
        )
    verdict = shard_verdict(scale)
    if verdict is not None and scale.unsharded is not None and scale.merge is not None:
        times = [run.child.seconds for run in scale.shards]
        lines.append(verdict.line())
        lines.append(
            f"- {scale.shard_count} shards one after another: sum {sum(times):.2f} s, longest "
            f"{max(times):.2f} s, merge {scale.merge.child.seconds:.2f} s; unsharded "
            f"{scale.unsharded.child.seconds:.2f} s. On {scale.shard_count} runners at once the "
            f"wait would be about the longest shard plus the merge, "
            f"{max(times) + scale.merge.child.seconds:.2f} s "
            f"({(max(times) + scale.merge.child.seconds) / scale.unsharded.child.seconds:.2f}× "
            "the unsharded run)"
        )
    growth = memory_growth(scale.memory)
    if growth is not None:
        word = {True: "yes", False: "NO", None: "not judged"}[growth.linear]
        sizes = ", ".join(f"{run.cases:,}: {run.child.peak_mb:.1f} MB" for run in scale.memory)
        lines.append(
            f"- peak memory of `gauntlet run` grows roughly linearly with the case count: "
            f"**{word}** ({growth.shape})"
        )
        lines.append(
            f"- peak memory grows by {growth.slope:.2f} MB per 1,000 cases (least squares; "
            f"{growth.first:.2f} between the two smallest sizes, {growth.last:.2f} between the "
            f"two largest) over about {growth.intercept:.0f} MB fixed ({sizes}); not flat, as "
            "results.json holds every case's answers"
        )
    return lines


def scale_markdown(scale: Scale, plan: Plan) -> list[str]:
    """The scale section of RESULTS.md, with its own date, command and load average."""
    busy = (
        f" — **taken while other work was running on the machine** (load above 1 on "
        f"{os.cpu_count()} CPUs)"
        if scale.load_before > 1
        else ""
    )
    lines = [
        SCALE_HEADING,
        "",
        f"- Date: {scale.started_at:%Y-%m-%d %H:%M} UTC; this section took {scale.elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        f"- Load average (1 min) {scale.load_before:.2f} at the start, "
        f"{scale.load_after:.2f} at the end{busy}",
        f"- `gauntlet run --quiet` against the stub at 0 ms latency, --concurrency "
        f"{scale.concurrency}, cases in files of at most {CASES_PER_FILE}; one run each. "
        "Times are the whole process (start-up, loading, the pre-flight probe, asking, "
        "scoring, writing results.json); asks = the answers recorded in results.json (the "
        "probe not counted); peak RSS is the process's own (`wait4`)",
        "",
        *scale_verdicts(scale),
        "",
    ]
    runs = [
        *([scale.repeated] if scale.repeated else []),
        *([scale.unsharded] if scale.unsharded else []),
        *scale.shards,
        *([scale.merge] if scale.merge else []),
        *(run for run in scale.memory if run is not scale.unsharded),
    ]
    lines += markdown_table(
        ("run", "cases", "asks", "time s", "asks/s", "client CPU", "peak RSS MB"),
        [
            [
                f"`gauntlet merge` ({scale.shard_count} shards)"
                if run is scale.merge
                else run.label,
                f"{run.cases:,}",
                f"{run.asks:,}" if run.asks else "—",
                f"{run.child.seconds:.2f}",
                f"{run.asks_per_second:,.0f}" if run.asks else "—",
                f"{100 * run.child.cpu / run.child.seconds:.0f} %",
                f"{run.child.peak_mb:.1f}",
            ]
            for run in runs
        ],
    )
    growth = memory_growth(scale.memory)
    if growth is not None:
        lines += [
            "",
            "Peak memory by case count (repeat 1):",
            "",
            *markdown_table(
                (
                    "cases",
                    "peak RSS MB",
                    "MB per 1,000 cases since the previous size",
                    "peak ÷ cases, MB per 1,000 (fixed cost included)",
                    "time s",
                ),
                [
                    [
                        f"{run.cases:,}",
                        f"{run.child.peak_mb:.1f}",
                        _fmt(marginal_mb(before, run), ".2f"),
                        f"{1000 * run.child.peak_mb / run.cases:.2f}",
                        f"{run.child.seconds:.2f}",
                    ]
                    for before, run in zip([None, *scale.memory[:-1]], scale.memory, strict=True)
                ],
            ),
            "",
            "Issue 8 asks that peak memory stay flat as the case count grows. The results "
            "format cannot do that: results.json keeps every case with every answer (its "
            "digest covers them all), so the memory of a run grows with its case count. "
            "What is reported instead is the cost per 1,000 cases and whether it stays "
            "constant (linear growth) rather than rising with the size.",
        ]
    return lines


def splice_section(path: Path, heading: str, section: Sequence[str]) -> None:
    """Replace the `heading` section of `path` with `section` (append it if absent)."""
    if path.exists():
        lines = path.read_text().splitlines()
    else:
        lines = [
            "# Benchmark results",
            "",
            "Generated by `benchmarks/bench.py`; do not edit by hand. What each figure means: "
            "[README.md](README.md).",
        ]
    if heading in lines:
        start = lines.index(heading)
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        del lines[start:end]
    while lines and not lines[-1].strip():
        lines.pop()
    path.write_text("\n".join([*lines, "", *section]) + "\n")


# ------------------------------------------------------------------ the driver


@dataclass
class Plan:
    """What to measure."""

    cases: int
    concurrencies: tuple[int, ...]
    latencies: tuple[float, ...]
    repeats: int
    memory_cases: int
    memory_concurrency: int
    startup_runs: int
    load_requests: int
    results: Path | None
    profile: bool
    scale_only: bool
    scale_cases: int
    scale_repeat: int
    scale_shards: int
    scale_memory_cases: tuple[int, ...]
    scale_concurrency: int


def parse_plan(argv: Sequence[str] | None) -> Plan:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        description="Benchmark gauntlet's HTTP engine against a loopback stub server."
    )

    def numbers(kind: Callable[[str], float | int]) -> Callable[[str], tuple[float | int, ...]]:
        return lambda text: tuple(kind(part) for part in text.split(",") if part.strip())

    parser.add_argument("--cases", type=int, default=2000, help="cases per run (2000)")
    parser.add_argument(
        "--concurrency",
        type=numbers(int),
        default=None,
        help="comma-separated concurrencies (1,8,32,64,128)",
    )
    parser.add_argument(
        "--latency-ms", type=numbers(float), default=None, help="stub latencies in ms (0,50)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="runs per mode and configuration, the median reported (3; 1 with --quick); "
        f"a configuration whose ideal time exceeds {ONE_RUN_ABOVE:g} s runs once",
    )
    parser.add_argument("--memory-cases", type=int, default=20_000, help="(20000; 0: skip)")
    parser.add_argument("--memory-concurrency", type=int, default=32, help="(32)")
    parser.add_argument("--startup-runs", type=int, default=None, help="(9; 3 with --quick)")
    parser.add_argument(
        "--load-requests",
        type=int,
        default=20_000,
        help="requests per load-generator run at 0 ms (20000)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke check: C = 8,32,128, one run each, no scale section, no RESULTS.md "
        "unless --results",
    )
    parser.add_argument(
        "--scale-only",
        action="store_true",
        help="run only the performance-at-scale section and replace that section of "
        "RESULTS.md, keeping the others",
    )
    parser.add_argument(
        "--scale-cases",
        type=int,
        default=20_000,
        help="cases of the scale section's repeat and shard runs (20000; 0: skip them)",
    )
    parser.add_argument("--scale-repeat", type=int, default=3, help="(3)")
    parser.add_argument("--scale-shards", type=int, default=4, help="(4)")
    parser.add_argument(
        "--scale-memory-cases",
        type=numbers(int),
        default=(5_000, 20_000, 80_000),
        help="case counts whose peak memory is measured (5000,20000,80000; '': none)",
    )
    parser.add_argument("--scale-concurrency", type=int, default=32, help="(32)")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="where to write the Markdown results (benchmarks/RESULTS.md; none with --quick)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead of benchmarking, run the engine once per configuration under cProfile "
        "and print where its time goes",
    )
    options = parser.parse_args(argv)
    quick = options.quick
    concurrencies = options.concurrency or ((8, 32, 128) if quick else (1, 8, 32, 64, 128))
    latencies = options.latency_ms or (0.0, 50.0)
    results = options.results
    if results is None and not quick and not options.profile:
        results = HERE / "RESULTS.md"
    if options.cases < 1 or min(concurrencies) < 1 or min(latencies) < 0:
        parser.error("cases and concurrencies must be positive, latencies not negative")
    if options.scale_only and (options.profile or quick):
        parser.error("--scale-only goes with neither --profile nor --quick")
    scale_memory = tuple(int(n) for n in options.scale_memory_cases)
    if options.scale_cases < 0 or (scale_memory and min(scale_memory) < 1):
        parser.error("scale case counts must be positive (--scale-cases 0 skips)")
    if options.scale_repeat < 1 or options.scale_shards < 2 or options.scale_concurrency < 1:
        parser.error("--scale-repeat and --scale-concurrency at least 1, --scale-shards 2")
    if options.scale_only and not (options.scale_cases or scale_memory):
        parser.error("--scale-only with nothing to measure")
    return Plan(
        cases=options.cases,
        concurrencies=tuple(int(c) for c in concurrencies),
        latencies=tuple(float(latency) for latency in latencies),
        repeats=max(1, options.repeats or (1 if quick else 3)),
        memory_cases=max(0, options.memory_cases),
        memory_concurrency=max(1, options.memory_concurrency),
        startup_runs=max(1, options.startup_runs or (3 if quick else 9)),
        load_requests=max(1, options.load_requests),
        results=results,
        profile=options.profile,
        scale_only=options.scale_only,
        scale_cases=0 if quick else options.scale_cases,
        scale_repeat=options.scale_repeat,
        scale_shards=options.scale_shards,
        scale_memory_cases=() if quick else scale_memory,
        scale_concurrency=options.scale_concurrency,
    )


@contextlib.contextmanager
def no_proxies() -> Iterator[None]:
    """Keep HTTP(S)_PROXY from routing loopback requests anywhere (HttpTarget trusts env)."""
    saved = {key: os.environ.get(key) for key in ("NO_PROXY", "no_proxy")}
    for key in saved:
        os.environ[key] = "127.0.0.1,localhost"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def print_profile(profiler: cProfile.Profile, heading: str) -> None:
    """The functions that took the most time, by their own time and cumulatively."""
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)
    print(f"\n==== {heading} ====")
    print(text.getvalue())


def profile_engine(plan: Plan, suites: SuiteSet) -> None:
    """Run the engine once per configuration under cProfile; print the top functions."""
    for latency in plan.latencies:
        with Stub(latency) as stub:
            for concurrency in plan.concurrencies:
                measure_engine(stub, suites, concurrency)  # warm
                profiler = cProfile.Profile()
                profiler.enable()
                sample = measure_engine(stub, suites, concurrency)
                profiler.disable()
                print_profile(
                    profiler,
                    f"engine, {latency:g} ms, C={concurrency}: {sample.seconds:.3f} s "
                    "to the last answer under cProfile",
                )


def profile_streaming(suites: SuiteSet, work: Path) -> None:
    """Run the streamed openai-chat target once under cProfile; print the top functions."""
    concurrency = streaming.CONCURRENCY
    with Stub(streaming.LATENCY_MS) as stub:
        target_file = streaming.write_target_file(work, f"{stub.url}v1", stream=True)
        streaming.measure(target_file, suites, concurrency, stub.cpu_seconds)  # warm
        profiler = cProfile.Profile()
        profiler.enable()
        timing = streaming.measure(target_file, suites, concurrency, stub.cpu_seconds)
        profiler.disable()
    print_profile(
        profiler,
        f"{streaming.STREAMED}, {streaming.LATENCY_MS:g} ms, C={concurrency}: "
        f"{timing.seconds:.3f} s to the last answer under cProfile",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Measure everything the plan asks for, print it, and write RESULTS.md."""
    plan = parse_plan(argv)
    if plan.scale_only:
        return main_scale_only(plan)
    started_at = datetime.now(UTC)
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    load_rows: list[Row] = []
    memory: Row | None = None
    stream: streaming.Streaming | None = None
    scale: Scale | None = None
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        work = Path(temp)
        cases_dir = write_case_files(work / "cases", plan.cases)
        suites = load_suites([cases_dir])
        prompts = prompts_of(suites)
        out = work / "results.json"
        if plan.profile:
            profile_engine(plan, suites)
            profile_streaming(suites, work)
            return 0
        print(f"gauntlet benchmarks: {plan.cases:,} cases per run, {os.cpu_count()} CPUs")
        for latency in plan.latencies:
            with Stub(latency) as stub:
                print(f"\nstub server at {stub.url}, {latency:g} ms latency")
                load_rows += run_load_generator(stub, plan)
                print("  " + console_line(RUN_COLUMNS))
                for concurrency in plan.concurrencies:
                    rows += run_configuration(
                        stub, plan, suites, prompts, cases_dir, out, concurrency
                    )
                if plan.memory_cases and latency == 0:
                    memory = run_memory(stub, plan, work)
        stream = run_streaming(plan, suites, prompts, work)
        startups = run_startups(plan)
        if plan.scale_cases or plan.scale_memory_cases:
            scale = run_scale(plan, work)
    elapsed = time.perf_counter() - began
    loads = (load_before, os.getloadavg()[0])
    verdicts = judge_targets(rows, memory, stream)
    print("\nTargets:")
    for verdict in verdicts:
        print("  " + verdict.line())
    for line in cli_lines(rows):
        print("  " + line)
    print(f"\nbenchmarks took {elapsed:.0f} s")
    if plan.results is not None:
        write_markdown(
            plan,
            started_at,
            elapsed,
            loads,
            rows,
            load_rows,
            memory,
            startups,
            verdicts,
            scale,
            stream,
        )
        print(f"wrote {plan.results}")
    return 0


def main_scale_only(plan: Plan) -> int:
    """`--scale-only`: the scale section alone, spliced into RESULTS.md."""
    print(f"gauntlet benchmarks, performance at scale only: {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        scale = run_scale(plan, Path(temp))
    if plan.results is not None:
        splice_section(plan.results, SCALE_HEADING, scale_markdown(scale, plan))
        print(f"wrote the scale section of {plan.results}")
    return 0


def run_load_generator(stub: Stub, plan: Plan) -> list[Row]:
    """The stub's capacity: at 0 ms, as many requests as it can; with latency, vs ideal."""
    rows = []
    connections = sorted({c for c in plan.concurrencies if c >= 8} | {32, 128})
    if stub.latency_ms > 0:
        connections = [c for c in connections if c >= 32]
    total = plan.load_requests if stub.latency_ms == 0 else plan.cases
    for count in connections:
        gc.collect()
        row = load_generator(stub, count, total)
        rows.append(row)
        sample = row.median
        ideal = f", {ideal_ratio(row):.3f}× ideal" if row.ideal else ""
        per_request = 1e6 * sample.server_cpu / total
        print(
            f"  load generator, {count:>3} connections: {total:,} requests in "
            f"{row.seconds:.3f} s = {row.rps:,.0f} req/s{ideal}; stub CPU "
            f"{100 * sample.server_cpu / row.seconds:.0f} % = {per_request:.0f} µs/request"
        )
    return rows


def run_configuration(
    stub: Stub,
    plan: Plan,
    suites: SuiteSet,
    prompts: Sequence[str],
    cases_dir: Path,
    out: Path,
    concurrency: int,
) -> list[Row]:
    """Every mode at one latency and concurrency, interleaved run by run."""
    rows = {mode: Row(mode, stub.latency_ms, concurrency, plan.cases) for mode in MODES}
    repeats = 1 if rows[RAW].ideal > ONE_RUN_ABOVE else plan.repeats
    for _ in range(repeats):
        for mode in MODES:
            gc.collect()
            if mode == RAW:
                sample = measure_raw(stub, prompts, concurrency)
            elif mode == ENGINE:
                sample = measure_engine(stub, suites, concurrency)
            else:
                sample, _ = measure_cli(stub, cases_dir, plan.cases, concurrency, out)
            rows[mode].samples.append(sample)
    for mode in MODES:
        print("  " + console_line(run_cells(rows[mode], rows[RAW])), flush=True)
    return list(rows.values())


def run_memory(stub: Stub, plan: Plan, work: Path) -> Row:
    """Peak RSS of `gauntlet run` over `plan.memory_cases` cases, at 0 ms latency."""
    cases_dir = write_case_files(work / "memory-cases", plan.memory_cases)
    row = Row(CLI, stub.latency_ms, plan.memory_concurrency, plan.memory_cases)
    sample, _ = measure_cli(
        stub, cases_dir, plan.memory_cases, plan.memory_concurrency, work / "memory.json"
    )
    row.samples.append(sample)
    shutil.rmtree(cases_dir)
    print(
        f"\n  memory: `gauntlet run` over {plan.memory_cases:,} cases "
        f"(C={plan.memory_concurrency}, 0 ms): {sample.seconds:.2f} s, "
        f"peak RSS {sample.extra:.1f} MB\n"
    )
    return row


def run_streaming(
    plan: Plan, suites: SuiteSet, prompts: Sequence[str], work: Path
) -> streaming.Streaming:
    """The openai-chat target, streamed and not, on its own stub at the streaming latency."""
    runs = streaming.RUNS if plan.repeats > 1 else 1
    with Stub(streaming.LATENCY_MS) as stub:
        print(
            f"\nstreaming: the openai-chat target at {stub.url}v1, {streaming.LATENCY_MS:g} ms, "
            f"C={streaming.CONCURRENCY}, {runs} runs each"
        )
        stream = streaming.run_streaming(
            f"{stub.url}v1", stub.cpu_seconds, suites, prompts, work, repeats=runs
        )
    for cells in stream.cells():
        print(f"  {cells[0]:<28}" + "".join(f"{cell:>12}" for cell in cells[1:]))
    print(f"  {stream.ratio:.3f}× (goal at most {streaming.FACTOR}×)", flush=True)
    return stream


def run_startups(plan: Plan) -> list[Startup]:
    """`python -c pass`, `import gauntlet.cli`, `gauntlet --version`, `gauntlet run --help`."""
    gauntlet = gauntlet_command()
    commands = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("python -c 'import gauntlet.cli'", [sys.executable, "-c", "import gauntlet.cli"]),
        ("gauntlet --version", [*gauntlet, "--version"]),
        ("gauntlet run --help", [*gauntlet, "run", "--help"]),
    ]
    startups = []
    print(f"\nCLI start-up (median of {plan.startup_runs} runs):")
    for label, argv in commands:
        startup = measure_startup(label, argv, plan.startup_runs)
        startups.append(startup)
        peak = max(run.peak_mb for run in startup.runs)
        print(f"  {label:<34} {startup.median * 1000:7.0f} ms   peak RSS {peak:5.1f} MB")
    return startups


def write_markdown(
    plan: Plan,
    started_at: datetime,
    elapsed: float,
    loads: tuple[float, float],
    rows: Sequence[Row],
    load_rows: Sequence[Row],
    memory: Row | None,
    startups: Sequence[Startup],
    verdicts: Sequence[TargetCheck],
    scale: Scale | None = None,
    stream: streaming.Streaming | None = None,
) -> None:
    """Write the figures to `plan.results`."""
    assert plan.results is not None  # noqa: S101 - the caller checked
    lines = [
        "# Benchmark results",
        "",
        "Generated by `benchmarks/bench.py`; do not edit by hand. What each figure means: "
        "[README.md](README.md).",
        "",
        f"- Date: {started_at:%Y-%m-%d %H:%M} UTC; the benchmarks took {elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        *machine_facts(),
        f"- Load average (1 min) {loads[0]:.2f} at the start, {loads[1]:.2f} at the end: "
        + (
            "**taken while other work was running on the machine**, which shows up as noise "
            "in the figures"
            if loads[0] > 1
            else "other work on the machine shows up as noise in the figures"
        ),
        "- Stub server: `benchmarks/stub_server.py`, one process on 127.0.0.1 (aiohttp's "
        "low-level `web.Server`); the driver, and the `gauntlet run` child, run beside it",
        f"- {plan.cases:,} cases per run, in files of at most {CASES_PER_FILE}; each figure is "
        f"the median of {plan.repeats} runs (1 where the ideal time exceeds {ONE_RUN_ABOVE:g} s)",
        "- (b) engine: `run_gauntlet` with an `HttpTarget`, pre-flight **off**, timed from the "
        "call to the last answer (loading and scoring excluded); (c) `gauntlet run --quiet`: "
        "the whole process, pre-flight probe on (the CLI's default), start-up, loading, "
        "scoring and writing results.json included",
        "",
        "## Targets",
        "",
        *(verdict.line() for verdict in verdicts),
        "",
        "Not a target, for context:",
        "",
        *cli_lines(rows),
        "",
        "## The stub server's capacity",
        "",
        "A load generator (raw sockets, one request at a time per keep-alive connection, "
        "nothing parsed but the status line and Content-Length) against the same stub process. "
        "Its rate exceeds every client's below, so the stub is not their bottleneck.",
        "",
    ]
    load_cells = [
        [
            f"{row.latency_ms:g} ms",
            str(row.concurrency),
            f"{row.requests:,}",
            f"{row.seconds:.3f}",
            f"{row.rps:,.0f}",
            _fmt(row.ideal if row.ideal else None, ".3f"),
            _fmt(ideal_ratio(row), ".3f", "×"),
            f"{100 * row.median.server_cpu / row.seconds:.0f} %",
            f"{1e6 * row.median.server_cpu / row.requests:.0f}",
        ]
        for row in load_rows
    ]
    lines += markdown_table(
        (
            "latency",
            "connections",
            "requests",
            "time s",
            "req/s",
            "ideal s",
            "× ideal",
            "stub CPU",
            "stub CPU µs/request",
        ),
        load_cells,
    )
    lines += [
        "",
        f"## {plan.cases:,} cases: raw aiohttp, the engine, `gauntlet run`",
        "",
        "ideal = ceil(N / C) × latency. × ideal = time ÷ ideal. thru vs raw = raw aiohttp's "
        "time ÷ this time (throughput as a fraction of raw aiohttp's). CPU = CPU seconds ÷ "
        "wall seconds of the client process (the driver for raw and engine, the `gauntlet run` "
        "child for the CLI) and of the stub server.",
        "",
    ]
    table = []
    for row in rows:
        raw = find(rows, RAW, row.latency_ms, row.concurrency)
        table.append(run_cells(row, raw))
    lines += markdown_table(RUN_COLUMNS, table)
    engine_rows = [row for row in rows if row.mode == ENGINE]
    if engine_rows:
        lines += [
            "",
            "The engine's scoring after the last answer (excluded above): "
            + ", ".join(
                f"{row.latency_ms:g} ms C={row.concurrency} {1000 * row.median.extra:.0f} ms"
                for row in engine_rows
            )
            + ".",
        ]
    lines += ["", "## Streaming (SSE)", ""]
    if stream is None:
        lines.append("Not measured.")
    else:
        lines += [*stream.description(), ""]
        lines += markdown_table(streaming.COLUMNS, stream.cells())
    lines += [
        "",
        "## CLI start-up",
        "",
        f"Median of {plan.startup_runs} runs, after one warm-up.",
        "",
    ]
    lines += markdown_table(
        ("command", "median ms", "min ms", "max ms", "peak RSS MB"),
        [
            [
                f"`{startup.label}`",
                f"{startup.median * 1000:.0f}",
                f"{min(run.seconds for run in startup.runs) * 1000:.0f}",
                f"{max(run.seconds for run in startup.runs) * 1000:.0f}",
                f"{max(run.peak_mb for run in startup.runs):.1f}",
            ]
            for startup in startups
        ],
    )
    lines += ["", "## Peak memory", ""]
    if memory is None:
        lines.append("Not measured.")
    else:
        sample = memory.median
        lines += markdown_table(
            ("cases", "files", "concurrency", "latency", "time s", "peak RSS MB", "limit MB"),
            [
                [
                    f"{memory.requests:,}",
                    str(math.ceil(memory.requests / CASES_PER_FILE)),
                    str(memory.concurrency),
                    f"{memory.latency_ms:g} ms",
                    f"{sample.seconds:.2f}",
                    f"{sample.extra:.1f}",
                    f"{MEMORY_LIMIT_MB:g}",
                ]
            ],
        )
        lines += [
            "",
            "Peak RSS of the `gauntlet run` process alone (`wait4`'s `ru_maxrss`), which loads "
            "every case, asks, scores and writes results.json.",
        ]
    if scale is not None:
        lines += ["", *scale_markdown(scale, plan)]
    plan.results.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
