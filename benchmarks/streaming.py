"""The streaming benchmark: gauntlet's openai-chat target, streamed (SSE) and whole, on the stub.

`bench.py` runs it against `stub_server.py`'s OpenAI-compatible endpoint. Both modes build the
target as `gauntlet run --target FILE` does: a target file written to disk (`stream: true` or
`stream: false`, nothing else differing), loaded by `load_target_file` and built by
`build_target`. The engine then asks every case with pre-flight off and is timed from the call
to its last answer, like the engine's figures of the main table. The two modes take turns, run
by run, so the noise of a shared machine falls on both alike.

The stub spends its whole latency before the first byte of either answer (see
`stub_server.py`), so the ideal time is the same for both, and the ratio of their times is
what reading 20 events costs the client over reading one JSON body.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from stub_server import STREAM_CHUNKS  # the sibling module: benchmarks/ is on sys.path

from gauntlet.cases.loader import SuiteSet
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo, Verdict
from gauntlet.targets.configured import build_target
from gauntlet.targets.target_file import load_target_file

LATENCY_MS = 50.0
"""The stub's latency for this benchmark."""
CONCURRENCY = 64
FACTOR = 1.15
"""The goal: streamed, the run takes at most this many times as long as not streamed."""
RUNS = 5
"""Runs of each mode (one with `--quick`); a run is about 2 s, so a few more than elsewhere."""

WHOLE, STREAMED = "openai-chat, stream: false", "openai-chat, stream: true"
MODES = (WHOLE, STREAMED)

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
    "× stream: false",
    "client CPU",
    "stub CPU",
)


class Timing(NamedTuple):
    """One run, to its last answer."""

    seconds: float
    client_cpu: float
    """CPU seconds of the driver, which runs the engine."""
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
    results = run_gauntlet(
        suites,
        target,
        target_info=info,
        concurrency=concurrency,
        progress=progress,
        preflight=False,
    )
    server_used = server_cpu() - server
    if results.verdict is not Verdict.PASS or results.totals.passed != suites.case_total:
        raise RuntimeError(f"{info.name}: {results.verdict_reason} ({results.totals})")
    return Timing(marks["answered"] - started, marks["cpu"] - cpu, server_used)


@dataclass
class Streaming:
    """Both modes' runs, and the verdict on the goal."""

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
        """ceil(N / C) x latency, the same for both modes."""
        return math.ceil(self.cases / self.concurrency) * self.latency_ms / 1000.0

    @property
    def ratio(self) -> float:
        """The streamed run's median time over the whole answers' median time."""
        return self.median(STREAMED).seconds / self.median(WHOLE).seconds

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
        if runs == 1:
            return detail
        paired = statistics.median(
            streamed.seconds / whole.seconds
            for streamed, whole in zip(self.runs[STREAMED], self.runs[WHOLE], strict=True)
        )
        return f"{detail}, medians of {runs} runs; run by run, the median ratio is {paired:.3f}×"

    def cells(self) -> list[list[str]]:
        """The table's rows, one per mode."""
        whole = self.median(WHOLE).seconds
        rows = []
        for mode in MODES:
            run = self.median(mode)
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
            "latency; the two take turns, run by run. The stub answers a stream as 20 "
            "`chat.completion.chunk` events (19 pieces of the text, then `finish_reason: "
            '"stop"`) and `data: [DONE]`, each in its own write, or the same text as one '
            "`chat.completion`. Its latency is all spent before the first byte (not spread "
            "between the events), so both modes have the same ideal time. Timed like the "
            "engine above: pre-flight off, from the call to the last answer.",
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
    work: Path,
    *,
    repeats: int,
    latency_ms: float = LATENCY_MS,
    concurrency: int = CONCURRENCY,
) -> Streaming:
    """Measure both modes `repeats` times, taking turns, against the stub at `base_url`."""
    files = {mode: write_target_file(work, base_url, stream=mode == STREAMED) for mode in MODES}
    streaming = Streaming(suites.case_total, concurrency, latency_ms)
    for _ in range(repeats):
        for mode in MODES:
            gc.collect()
            streaming.runs[mode].append(measure(files[mode], suites, concurrency, server_cpu))
    return streaming
