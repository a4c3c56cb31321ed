"""The cost of `match: semantic` (issue 32 item 5): 2,000 golden cases, the in-process builtin.

The same 2,000 golden cases are run through the engine (`run_gauntlet`, pre-flight off) with
an in-process target that answers each one with its expected answer reworded, taking turns:

- **exact**: the run as `match: exact` grades it;
- **semantic**: the same run, then each answer checked against its expected answer by
  `similarity_check` through one run's `Embeddings` (each distinct text embedded once), in
  plan order, as a gate would check them one by one. The engine's hook for `match: semantic`
  is not on this branch yet, so the checks run after the engine rather than inside it.

The ratio is the semantic run's time over the exact run's (medians). The builtin is loaded
once (its load time is printed apart, not in the ratio), and every semantic run starts with
an empty cache: 2,000 expected answers and 2,000 answers are about 4,000 distinct texts. The
cache's figure is how many texts were asked of the embedder against how many were looked up.
The threshold is a fixed one for timing only (no calibration record is read); every check
must pass (a failed guard or an unjudged check would skip the embedder and measure less), or
the measurement is refused.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.cases.model import GoldenCase
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Results, TargetInfo
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.semantic.builtin import BATCH, BuiltinEmbedder
from gauntlet.semantic.check import Similarity, similarity_check
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.targets.adapters import as_async_target
from gauntlet.targets.contract import TargetResponse
from gauntlet_bench.config import CASES_PER_FILE
from gauntlet_bench.markdown import command_line, fmt, markdown_table

SEMANTIC_HEADING = "## The cost of `match: semantic` (issue 32)"
CASES = 2_000
CONCURRENCY = 32
TIMING_THRESHOLD = 0.5
"""A threshold for timing only: the cost does not depend on it."""

STREETS = ("Elm", "Oak", "Pine", "Maple", "Cedar", "Birch", "Willow", "Spruce")


def expected_of(index: int) -> str:
    """The expected answer of case `index`: distinct for every case."""
    street = STREETS[index % len(STREETS)]
    return (
        f"The {street} Street branch, library number {index}, opens at nine in the morning "
        "and closes at six in the evening on weekdays."
    )


def reworded_of(index: int) -> str:
    """The answer the target gives case `index`: its expected answer reworded."""
    street = STREETS[index % len(STREETS)]
    return (
        f"On weekdays library number {index}, the {street} Street branch, is open from "
        "nine a.m. until six p.m."
    )


def write_golden_files(directory: Path, total: int) -> Path:
    """`total` golden cases (`match: exact`), in files of at most 500."""
    directory.mkdir(parents=True, exist_ok=True)
    for number, start in enumerate(range(0, total, CASES_PER_FILE), start=1):
        lines = [
            f"suite: semantic-{number:03d}",
            "gate: golden",
            "version: 1",
            "key_version: 1",
            "threshold: 1.0",
            "cases:",
        ]
        for index in range(start, min(start + CASES_PER_FILE, total)):
            lines += [
                f"  - id: sem-{index:06d}",
                "    language: en",
                f"    prompt: Benchmark question {index}, when is the library open?",
                f"    expected: {expected_of(index)}",
            ]
        (directory / f"semantic-{number:03d}.yaml").write_text("\n".join(lines) + "\n")
    return directory


class Reworder:
    """An in-process target: each case's expected answer, reworded."""

    name = "bench-reworder"

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        """The reworded answer of the case whose prompt this is."""
        index = int(prompt.removeprefix("Benchmark question ").partition(",")[0])
        return TargetResponse(
            text=reworded_of(index), citations=(), context_ids=(), refused=False, escalated=False
        )


@dataclass
class Semantic:
    """Every run of the section, and what the checks came to."""

    cases: int
    load_seconds: float
    started_at: datetime
    load_before: float
    elapsed: float = 0.0
    """Seconds the whole section took."""
    load_after: float = 0.0
    exact: list[float] = field(default_factory=list)
    """Seconds of each exact run."""
    semantic: list[float] = field(default_factory=list)
    """Seconds of each semantic run: the engine's run and the similarity checks."""
    checks: list[float] = field(default_factory=list)
    """Seconds of the similarity checks alone, in each semantic run."""
    batched: list[float] = field(default_factory=list)
    """Seconds of the same checks with every text embedded in one call first (for the
    engine's hook to come: what asking the embedder in batches would save)."""
    asked: int = 0
    """Texts asked of the embedder in one semantic run."""
    wanted: int = 0
    """Texts looked up in one semantic run (from the cache or not)."""
    outcomes: dict[str, int] = field(default_factory=dict)
    """What the checks of the last run came to."""

    @property
    def ratio(self) -> float:
        """The semantic run's median time over the exact run's."""
        return statistics.median(self.semantic) / statistics.median(self.exact)

    def lines(self) -> Sequence[str]:
        """The console lines."""
        return _lines(self)

    def line(self) -> str:
        """The section's figure, as the console prints it."""
        return (
            f"`match: semantic` on {self.cases:,} golden cases takes {self.ratio:.2f}× "
            f"`match: exact` ({statistics.median(self.semantic):.3f} s against "
            f"{statistics.median(self.exact):.3f} s, medians of {len(self.exact)}); "
            f"embeddings asked {self.asked:,} of {self.wanted:,} looked up"
        )


def _run(suites: SuiteSet) -> tuple[Results, float]:
    target = as_async_target(Reworder(), concurrency=CONCURRENCY)
    info = TargetInfo(kind="callable", name=Reworder.name)
    settings = RunSettings(
        target=info, plan=plan_of(suites), concurrency=CONCURRENCY, preflight=False
    )
    started = time.perf_counter()
    results = run_gauntlet(suites, target, settings)
    return results, time.perf_counter() - started


async def _checks(
    suites: SuiteSet,
    results: Results,
    embedder: BuiltinEmbedder,
    fingerprint: EmbedderFingerprint,
    *,
    batched: bool = False,
) -> tuple[Embeddings, dict[str, int]]:
    expected = {
        case.id: case.expected
        for loaded in suites.suites
        for case in loaded.cases
        if isinstance(case, GoldenCase)
    }
    embeddings = Embeddings(embedder, fingerprint)
    similarity = Similarity(
        fingerprint=fingerprint, thresholds={"en": TIMING_THRESHOLD}, embeddings=embeddings
    )
    if batched:  # every text asked at once, so each check finds its two in the cache
        texts = [expected[case.case_id] for case in results.cases]
        texts += [t.response.text for case in results.cases for t in case.trials if t.response]
        await embeddings.vectors(texts)
    outcomes: dict[str, int] = {}
    for case in results.cases:
        for trial in case.trials:
            answer = trial.response.text if trial.response is not None else ""
            check = await similarity_check(similarity, expected[case.case_id], answer, "en")
            outcomes[check.outcome] = outcomes.get(check.outcome, 0) + 1
    return embeddings, outcomes


def run_semantic(work: Path, cases: int, repeats: int) -> Semantic:
    """Exact and semantic runs of `cases` golden cases, taking turns, `repeats` of each."""
    began, started_at, load_before = time.perf_counter(), datetime.now(UTC), os.getloadavg()[0]
    suites = load_suites([write_golden_files(work / "semantic-cases", cases)])
    embedder = BuiltinEmbedder()
    started = time.perf_counter()
    fingerprint = asyncio.run(embedder.open())
    measured = Semantic(
        cases=cases,
        load_seconds=time.perf_counter() - started,
        started_at=started_at,
        load_before=load_before,
    )
    for _ in range(repeats):
        gc.collect()
        results, seconds = _run(suites)
        if results.totals.total != cases:
            raise RuntimeError(f"semantic bench: {results.totals.total} of {cases} cases ran")
        measured.exact.append(seconds)
        gc.collect()
        results, seconds = _run(suites)
        checking = time.perf_counter()
        embeddings, outcomes = asyncio.run(_checks(suites, results, embedder, fingerprint))
        checked = time.perf_counter() - checking
        if outcomes != {"passed": cases}:  # a guard that failed would skip the embedder
            raise RuntimeError(f"semantic bench: the checks came to {outcomes}")
        measured.semantic.append(seconds + checked)
        measured.checks.append(checked)
        measured.asked, measured.wanted = embeddings.asked, embeddings.wanted
        measured.outcomes = outcomes
        gc.collect()
        checking = time.perf_counter()
        _, again = asyncio.run(_checks(suites, results, embedder, fingerprint, batched=True))
        measured.batched.append(time.perf_counter() - checking)
        if again != outcomes:
            raise RuntimeError(f"semantic bench: batched, the checks came to {again}")
    asyncio.run(embedder.aclose())
    measured.elapsed, measured.load_after = time.perf_counter() - began, os.getloadavg()[0]
    return measured


def semantic_markdown(measured: Semantic) -> list[str]:
    """The RESULTS.md section, with its own date, command and load average."""
    exact, semantic = statistics.median(measured.exact), statistics.median(measured.semantic)
    checks, batched = statistics.median(measured.checks), statistics.median(measured.batched)
    outcomes = ", ".join(f"{count:,} {name}" for name, count in sorted(measured.outcomes.items()))
    busy = (
        f" — **taken while other work was running on the machine** (load above 1 on "
        f"{os.cpu_count()} CPUs)"
        if measured.load_before > 1
        else ""
    )
    return [
        SEMANTIC_HEADING,
        "",
        f"- Date: {measured.started_at:%Y-%m-%d %H:%M} UTC; this section took "
        f"{measured.elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        f"- Load average (1 min) {measured.load_before:.2f} at the start, "
        f"{measured.load_after:.2f} at the end{busy}",
        f"- {measured.cases:,} golden cases through the engine (`run_gauntlet`, pre-flight off, "
        f"C = {CONCURRENCY}) against an in-process target answering each expected answer "
        "reworded; exact and semantic runs taking turns, medians of "
        f"{len(measured.exact)}. The engine's hook for `match: semantic` is not in this tree "
        "yet: the semantic run is the engine's run, then `similarity_check` over its "
        f"{measured.cases:,} answer and expected-answer pairs through one run's `Embeddings` "
        "(an empty cache each run), in plan order.",
        f"- The builtin embedder (USE multilingual v3, one BLAS thread) loaded once in "
        f"{measured.load_seconds:.2f} s, not counted below. The checks came to {outcomes} "
        f"(a timing threshold of {TIMING_THRESHOLD}, no calibration record).",
        "",
        *markdown_table(
            ["run", "time s", "per case ms", "× exact"],
            [
                [
                    "`match: exact`",
                    fmt(exact, ".3f"),
                    fmt(1000 * exact / measured.cases, ".2f"),
                    "1.00×",
                ],
                [
                    "`match: semantic`",
                    fmt(semantic, ".3f"),
                    fmt(1000 * semantic / measured.cases, ".2f"),
                    fmt(measured.ratio, ".2f", "×"),
                ],
                [
                    "the similarity checks alone",
                    fmt(checks, ".3f"),
                    fmt(1000 * checks / measured.cases, ".2f"),
                    fmt(checks / exact, ".2f", "×"),
                ],
                [
                    "the checks, every text embedded in one call first",
                    fmt(batched, ".3f"),
                    fmt(1000 * batched / measured.cases, ".2f"),
                    fmt(batched / exact, ".2f", "×"),
                ],
            ],
        ),
        "",
        "- Each `similarity_check` asks the embedder for its two texts (one call a case); "
        "the last row asks for every text in one call first (in batches of "
        f"{BATCH}), which is what an engine hook asking in batches would cost instead.",
        "",
        f"- The cache's figure: {measured.asked:,} texts asked of the embedder, of "
        f"{measured.wanted:,} looked up (each distinct text once a run).",
    ]


def _lines(measured: Semantic) -> Sequence[str]:
    return [
        f"model loaded in {measured.load_seconds:.2f} s (not counted)",
        measured.line(),
        f"the similarity checks alone: {statistics.median(measured.checks):.3f} s; every "
        f"text embedded in one call first: {statistics.median(measured.batched):.3f} s",
    ]
