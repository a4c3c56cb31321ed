"""Benchmark gauntlet's HTTP engine against a loopback stub, and check the project's targets.

Run it with ``make bench`` (or ``.venv/bin/python benchmarks/bench.py``; ``--help`` lists the
options). In one run it measures:

- the stub server's capacity, with a load generator far cheaper than any HTTP client, so
  that the figures below are known to be the client's and not the server's;
- for each latency and concurrency: (a) a minimal raw aiohttp loop, the floor for a Python
  client; (b) the engine alone, `run_gauntlet` with an `HttpTarget`, timed from the call to
  the last answer (start-up, loading and scoring excluded); (c) `gauntlet run` end to end, as
  a subprocess on generated case files;
- CLI start-up (`gauntlet --version`, `gauntlet run --help`) against `python -c pass`;
- peak memory of `gauntlet run` for 20,000 cases.

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

import aiohttp

from gauntlet import __version__ as gauntlet_version
from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo, Verdict
from gauntlet.targets.http import HttpTarget

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from stub_server import MARKER  # noqa: E402 - the sibling module, found through HERE

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
    """Every case's prompt, in plan order: what the raw loop asks."""
    return [case.prompt for loaded in suites.suites for case in loaded.cases]


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


def measure_cli(
    stub: Stub, cases: Path, total: int, concurrency: int, out: Path
) -> tuple[Sample, ChildRun]:
    """(c) `gauntlet run --quiet` end to end, as a subprocess: start-up, load, probe, score."""
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
    ]
    server = stub.cpu_seconds()
    child = run_child(argv)
    server_cpu = stub.cpu_seconds() - server
    if child.status != 0:
        raise RuntimeError(f"gauntlet run exited {child.status}:\n{child.output[-2000:]}")
    totals = json.loads(out.read_text())["totals"]
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


def judge_targets(rows: Sequence[Row], memory: Row | None) -> list[TargetCheck]:
    """Compute each target's verdict from the figures."""
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
        parts, missing, failed = [], False, False
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
            failed = failed or not ok
        met = False if failed else (None if missing else True)
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
        f"{name} {metadata.version(name)}" for name in ("aiohttp", "httpx", "httpx-aiohttp")
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
        help="a smoke check: C = 8,32,128, one run each, no RESULTS.md unless --results",
    )
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
                text = io.StringIO()
                stats = pstats.Stats(profiler, stream=text)
                stats.sort_stats("tottime").print_stats(30)
                stats.sort_stats("cumulative").print_stats(40)
                print(
                    f"\n==== engine, {latency:g} ms, C={concurrency}: {sample.seconds:.3f} s "
                    f"to the last answer under cProfile ===="
                )
                print(text.getvalue())


def main(argv: Sequence[str] | None = None) -> int:
    """Measure everything the plan asks for, print it, and write RESULTS.md."""
    plan = parse_plan(argv)
    started_at = datetime.now(UTC)
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    load_rows: list[Row] = []
    memory: Row | None = None
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        work = Path(temp)
        cases_dir = write_case_files(work / "cases", plan.cases)
        suites = load_suites([cases_dir])
        prompts = prompts_of(suites)
        out = work / "results.json"
        if plan.profile:
            profile_engine(plan, suites)
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
        startups = run_startups(plan)
    elapsed = time.perf_counter() - began
    loads = (load_before, os.getloadavg()[0])
    verdicts = judge_targets(rows, memory)
    print("\nTargets:")
    for verdict in verdicts:
        print("  " + verdict.line())
    for line in cli_lines(rows):
        print("  " + line)
    print(f"\nbenchmarks took {elapsed:.0f} s")
    if plan.results is not None:
        write_markdown(
            plan, started_at, elapsed, loads, rows, load_rows, memory, startups, verdicts
        )
        print(f"wrote {plan.results}")
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
        "other work on the machine shows up as noise in the figures",
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
    plan.results.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
