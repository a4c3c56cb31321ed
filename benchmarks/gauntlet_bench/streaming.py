"""The streaming benchmark: gauntlet's openai-chat target, streamed (SSE) and whole, on the stub.

`bench.py` runs it against `stub_server.py`'s OpenAI-compatible endpoint. Both modes build the
target as `gauntlet run --target FILE` does: a target file written to disk (`stream: true` or
`stream: false`, nothing else differing), loaded by `load_target_file` and built by
`build_target`. The engine then asks every case with pre-flight off and is timed from the call
to its last answer, like the engine's figures of the main table. The two modes take turns, run
by run, so the noise of a shared machine falls on both alike.

The stub spends its whole latency before the first byte of either answer (see
`stub_server.py`), so the ideal time is the same for both, and the ratio of their times is
what a streamed answer costs over one JSON body. Part of that cost is not gauntlet's: the stub
writes, and the client's aiohttp reads, 21 pieces instead of one. So a raw aiohttp pair runs
too, for context, taking turns with the other two: the least a Python client can do with the
same answers (read the body, `json.loads` each event), streamed and not.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import aiohttp

from gauntlet.cases.loader import SuiteSet
from gauntlet.cli.collector import young_only_while_running
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo, Verdict
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.targets.configured import build_target
from gauntlet.targets.target_file import load_target_file
from stub_server import MARKER, STREAM_CHUNKS  # the sibling module: benchmarks/ is on sys.path

LATENCY_MS = 50.0
"""The stub's latency for this benchmark."""
CONCURRENCY = 64
FACTOR = 1.15
"""The goal: streamed, the run takes at most this many times as long as not streamed."""
RUNS = 5
"""Runs of each mode (one with `--quick`); a run is about 2 s, so a few more than elsewhere."""

WHOLE, STREAMED = "openai-chat, stream: false", "openai-chat, stream: true"
RAW_WHOLE, RAW_STREAMED = "raw aiohttp, stream: false", "raw aiohttp, stream: true"
MODES = (RAW_WHOLE, RAW_STREAMED, WHOLE, STREAMED)
BASELINE = {RAW_WHOLE: RAW_WHOLE, RAW_STREAMED: RAW_WHOLE, WHOLE: WHOLE, STREAMED: WHOLE}
"""What each mode's time is divided by in the table: the same client, not streaming."""

TARGET_FILE = """\
version: 1
kind: openai-chat
name: "benchmark stub, {mode}"
base_url: {base_url}
model: bench-stub
stream: {stream}
response:
  citations: {{absent: true}}
  context_ids: {{absent: true}}
  escalated:
    from_text:
      en: ["988 Suicide & Crisis Lifeline"]
"""
"""The benchmark's target file; the stub answers no citations, retrieved ids or escalation."""

COLUMNS = (
    "mode",
    "runs",
    "time s",
    "req/s",
    "ideal s",
    "× ideal",
    "× its stream: false",
    "client CPU",
    "stub CPU",
)


class Timing(NamedTuple):
    """One run, to its last answer."""

    seconds: float
    client_cpu: float
    """CPU seconds of the driver, which runs the client (the engine, or the raw loop)."""
    server_cpu: float
    """CPU seconds of the stub server meanwhile."""


def write_target_file(directory: Path, base_url: str, *, stream: bool) -> Path:
    """Write the target file of one mode into `directory`; return its path."""
    mode = STREAMED if stream else WHOLE
    path = directory / f"openai-chat-stream-{str(stream).lower()}.yaml"
    path.write_text(
        TARGET_FILE.format(mode=mode, base_url=base_url, stream=str(stream).lower()),
        encoding="utf-8",
    )
    return path


def measure(
    target_file: Path, suites: SuiteSet, concurrency: int, server_cpu: Callable[[], float]
) -> Timing:
    """Run the engine once on the target `target_file` describes, timed to the last answer."""
    loaded = load_target_file(target_file)
    target = build_target(loaded, concurrency=concurrency)
    info = TargetInfo(kind="openai-chat", name=target.name, target_file=str(target_file))
    marks: dict[str, float] = {}

    def progress(done: int, of: int) -> None:
        if done == of:
            marks["answered"] = time.perf_counter()
            marks["cpu"] = time.process_time()

    cpu, server = time.process_time(), server_cpu()
    started = time.perf_counter()
    with young_only_while_running():  # as `gauntlet run` sets the collector
        results = run_gauntlet(
            suites,
            target,
            RunSettings(
                target=info, plan=plan_of(suites), concurrency=concurrency, preflight=False
            ),
            progress=progress,
        )
    server_used = server_cpu() - server
    if results.verdict is not Verdict.PASS or results.totals.passed != suites.case_total:
        raise RuntimeError(f"{info.name}: {results.verdict_reason} ({results.totals})")
    return Timing(marks["answered"] - started, marks["cpu"] - cpu, server_used)


def measure_raw(
    url: str,
    prompts: Sequence[str],
    concurrency: int,
    server_cpu: Callable[[], float],
    *,
    stream: bool,
) -> Timing:
    """The raw aiohttp loop: `concurrency` workers sharing one iterator of prompts."""
    cpu, server = time.process_time(), server_cpu()
    seconds = asyncio.run(_raw(url, prompts, concurrency, stream))
    return Timing(seconds, time.process_time() - cpu, server_cpu() - server)


async def _raw(url: str, prompts: Sequence[str], concurrency: int, stream: bool) -> float:
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(prompts)

        async def worker() -> None:
            for prompt in pending:
                messages = [{"role": "user", "content": prompt}]
                body = {"model": "bench-stub", "messages": messages, "stream": stream}
                async with session.post(url, json=body) as reply:
                    data = await reply.read()
                    text = _streamed_text(data) if stream else _completion_text(data)
                    if reply.status != 200 or MARKER not in text:
                        raise RuntimeError(f"raw aiohttp: HTTP {reply.status}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def _completion_text(body: bytes) -> str:
    return str(json.loads(body)["choices"][0]["message"]["content"])


def _streamed_text(body: bytes) -> str:
    pieces = [
        json.loads(line[len(b"data: ") :])["choices"][0]["delta"].get("content") or ""
        for line in body.splitlines()
        if line.startswith(b"data: ") and line != b"data: [DONE]"
    ]
    return "".join(pieces)


@dataclass
class Streaming:
    """Every mode's runs, and the verdict on the goal."""

    cases: int
    concurrency: int
    latency_ms: float
    runs: dict[str, list[Timing]] = field(default_factory=lambda: {mode: [] for mode in MODES})

    def median(self, mode: str) -> Timing:
        """The run of `mode` with the median time (the lower middle one for an even count)."""
        ordered = sorted(self.runs[mode], key=lambda run: run.seconds)
        return ordered[(len(ordered) - 1) // 2]

    @property
    def ideal(self) -> float:
        """ceil(N / C) x latency, the same for every mode."""
        return math.ceil(self.cases / self.concurrency) * self.latency_ms / 1000.0

    @property
    def ratio(self) -> float:
        """The openai-chat target's median time streamed over its median time not streamed."""
        return self.median(STREAMED).seconds / self.median(WHOLE).seconds

    @property
    def raw_ratio(self) -> float:
        """The same ratio for raw aiohttp: what streaming costs without gauntlet."""
        return self.median(RAW_STREAMED).seconds / self.median(RAW_WHOLE).seconds

    @property
    def met(self) -> bool:
        """Whether streaming stays within `FACTOR` of not streaming."""
        return self.ratio <= FACTOR

    @property
    def title(self) -> str:
        """The goal, as the Targets section states it."""
        return title(self.latency_ms, self.concurrency)

    @property
    def detail(self) -> str:
        """The figures behind the verdict, the ratio first."""
        detail = (
            f"{self.ratio:.3f}×: stream: true {self.median(STREAMED).seconds:.3f} s, "
            f"stream: false {self.median(WHOLE).seconds:.3f} s"
        )
        runs = len(self.runs[STREAMED])
        if runs > 1:
            paired = statistics.median(
                streamed.seconds / whole.seconds
                for streamed, whole in zip(self.runs[STREAMED], self.runs[WHOLE], strict=True)
            )
            detail += f", medians of {runs} runs (run by run, the median ratio is {paired:.3f}×)"
        return f"{detail}; raw aiohttp's own ratio, for context, {self.raw_ratio:.3f}×"

    def cells(self) -> list[list[str]]:
        """The table's rows, one per mode."""
        rows = []
        for mode in MODES:
            run = self.median(mode)
            whole = self.median(BASELINE[mode]).seconds
            rows.append(
                [
                    mode,
                    str(len(self.runs[mode])),
                    f"{run.seconds:.3f}",
                    f"{self.cases / run.seconds:,.0f}",
                    f"{self.ideal:.3f}",
                    f"{run.seconds / self.ideal:.3f}×",
                    f"{run.seconds / whole:.3f}×",
                    f"{100 * run.client_cpu / run.seconds:.0f} %",
                    f"{100 * run.server_cpu / run.seconds:.0f} %",
                ]
            )
        return rows

    def description(self) -> list[str]:
        """What ran, for RESULTS.md."""
        return [
            f"gauntlet's `openai-chat` target, built from a target file with `stream: true` and "
            f"again with `stream: false`, asks the stub's `POST /v1/chat/completions` the same "
            f"{self.cases:,} cases at concurrency {self.concurrency}, {self.latency_ms:g} ms "
            f"latency. The stub answers a stream as {STREAM_CHUNKS} `chat.completion.chunk` "
            f"events ({STREAM_CHUNKS - 1} pieces of the text, then `finish_reason: "
            '"stop"`) and `data: [DONE]`, each in its own write, or the same text as one '
            "`chat.completion`. Its latency is all spent before the first byte (not spread "
            "between the events), so every mode has the same ideal time. Timed like the engine "
            "above: pre-flight off, from the call to the last answer. For context, not the "
            "goal: raw aiohttp (one session, the body read whole, each event `json.loads`-ed) "
            "asks the same, streamed and not; its ratio is what streaming costs before gauntlet "
            "does anything (the stub's writes, aiohttp's reads). The four modes take turns, run "
            "by run, so the noise of a shared machine falls on all of them alike: the ratios "
            "are the figures to read, not the times.",
        ]


def title(latency_ms: float = LATENCY_MS, concurrency: int = CONCURRENCY) -> str:
    """The streaming goal, worded as the Targets section states it."""
    return (
        f"{latency_ms:g} ms latency, C = {concurrency}: the openai-chat target streamed (SSE, "
        f"{STREAM_CHUNKS} chunks an answer) takes at most {FACTOR}× its time not streamed"
    )


def run_streaming(
    base_url: str,
    server_cpu: Callable[[], float],
    suites: SuiteSet,
    prompts: Sequence[str],
    work: Path,
    *,
    repeats: int,
    latency_ms: float = LATENCY_MS,
    concurrency: int = CONCURRENCY,
) -> Streaming:
    """Measure every mode `repeats` times, taking turns, against the stub at `base_url`."""
    files = {stream: write_target_file(work, base_url, stream=stream) for stream in (False, True)}
    url = f"{base_url}/chat/completions"
    streaming = Streaming(suites.case_total, concurrency, latency_ms)
    for _ in range(repeats):
        for mode in MODES:
            gc.collect()
            stream = mode in (STREAMED, RAW_STREAMED)
            if mode in (RAW_WHOLE, RAW_STREAMED):
                run = measure_raw(url, prompts, concurrency, server_cpu, stream=stream)
            else:
                run = measure(files[stream], suites, concurrency, server_cpu)
            streaming.runs[mode].append(run)
    return streaming
