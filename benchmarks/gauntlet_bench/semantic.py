"""The cost of `match: semantic` (issue 32 item 5): 2,000 golden cases, the in-process builtin.

The same 2,000 golden cases are written twice, once as `match: exact` suites and once as
`match: semantic` ones, and run through the engine (`run_gauntlet`, pre-flight off) with an
in-process target that answers each one with its expected answer reworded, taking turns:

- **exact**: the run as `match: exact` grades it (every reworded answer fails);
- **semantic**: the run with `RunSettings.similarity`, so the engine checks each answer the
  gate passed by meaning as it comes (`similarity_check` through the run's `Embeddings`).

The similarity is what a user runs: the builtin is calibrated on the shipped labels
(`gauntlet.semantic.calibration`, as `gauntlet calibrate --embedder builtin` does; about 2 s),
the record written and read back as `similarity_of` reads it. The ratio is the semantic run's
time over the exact run's (medians). The builtin is loaded once (its load time and the
calibration's are printed apart, not in the ratio), and every semantic run starts with an
empty cache. Every case has its own expected answer, but the answers are drawn from a pool
of `POOL` (case i answers as case i mod `POOL` would), so the cache has something to do: the
cache's figure is how many texts were asked of the embedder against how many were looked up.
Every check must pass with a score (an unjudged check never asks the embedder, and a failed
guard is not a reworded answer passing by meaning), or the measurement is refused.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Results, TargetInfo
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.calibration import calibrate_similarity, write_similarity_record
from gauntlet.semantic.check import Similarity, similarity_of
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.labels import builtin_similarity_labels_dir, load_similarity_labels
from gauntlet.targets.adapters import as_async_target
from gauntlet.targets.contract import TargetResponse
from gauntlet_bench.config import CASES_PER_FILE
from gauntlet_bench.markdown import command_line, fmt, markdown_table

SEMANTIC_HEADING = "## The cost of `match: semantic` (issue 32)"
CASES = 2_000
CONCURRENCY = 32
POOL = 500
"""The answers are drawn from this many: case i answers as case i mod POOL would."""
LANGUAGE = "en"

STREETS = ("Elm", "Oak", "Pine", "Maple", "Cedar", "Birch", "Willow", "Spruce")
WORDINGS = (
    "The {street} Street branch, library number {number}, opens at nine in the morning and "
    "closes at six in the evening on weekdays.",
    "On weekdays the {street} Street branch, library number {number}, opens at nine in the "
    "morning and closes at six in the evening.",
    "Library number {number}, the {street} Street branch, opens at nine in the morning and "
    "closes at six in the evening on weekdays.",
    "Every weekday, library number {number} on {street} Street opens its doors at nine in the "
    "morning and shuts them at six in the evening.",
)
"""How expected answers word the same fact: case i says its pool entry's in wording i // POOL."""


def expected_of(index: int) -> str:
    """The expected answer of case `index`: distinct for every case up to POOL × 4."""
    number = index % POOL
    wording = WORDINGS[(index // POOL) % len(WORDINGS)]
    return wording.format(street=STREETS[number % len(STREETS)], number=number)


def reworded_of(index: int) -> str:
    """Pool entry `index`'s answer reworded: what every case of that entry is answered."""
    street = STREETS[index % len(STREETS)]
    return (
        f"On weekdays library number {index}, the {street} Street branch, is open from "
        "nine a.m. until six p.m."
    )


def answer_of(index: int) -> str:
    """The answer the target gives case `index`: its pool entry's, reworded."""
    return reworded_of(index % POOL)


def write_golden_files(directory: Path, total: int, match: str = "semantic") -> Path:
    """`total` golden cases (`match: semantic` or `exact`), in files of at most 500."""
    directory.mkdir(parents=True, exist_ok=True)
    for number, start in enumerate(range(0, total, CASES_PER_FILE), start=1):
        lines = [
            f"suite: semantic-{number:03d}",
            "gate: golden",
            "version: 1",
            "key_version: 1",
            "threshold: 1.0",
            f"match: {match}",
            "cases:",
        ]
        for index in range(start, min(start + CASES_PER_FILE, total)):
            lines += [
                f"  - id: sem-{index:06d}",
                f"    language: {LANGUAGE}",
                f"    prompt: Benchmark question {index}, when is the library open?",
                f"    expected: {expected_of(index)}",
            ]
        (directory / f"semantic-{number:03d}.yaml").write_text("\n".join(lines) + "\n")
    return directory


class Reworder:
    """An in-process target: each case's pool entry's answer, reworded."""

    name = "bench-reworder"

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        """The reworded answer of the case whose prompt this is."""
        index = int(prompt.removeprefix("Benchmark question ").partition(",")[0])
        return TargetResponse(
            text=answer_of(index), citations=(), context_ids=(), refused=False, escalated=False
        )


@dataclass
class Semantic:
    """Every run of the section, and what the checks came to."""

    cases: int
    load_seconds: float
    started_at: datetime
    load_before: float
    calibration_seconds: float = 0.0
    """Seconds the calibration on the shipped labels took (not counted)."""
    threshold: float = 0.0
    """The threshold the calibration accepted in LANGUAGE."""
    labels: int = 0
    """Labelled pairs the calibration scored."""
    elapsed: float = 0.0
    """Seconds the whole section took."""
    load_after: float = 0.0
    exact: list[float] = field(default_factory=list)
    """Seconds of each exact run."""
    semantic: list[float] = field(default_factory=list)
    """Seconds of each semantic run, its similarity checks in it."""
    asked: int = 0
    """Texts asked of the embedder in one semantic run (the run's `Embeddings`)."""
    wanted: int = 0
    """Texts looked up in one semantic run (from the cache or not)."""
    outcomes: dict[str, int] = field(default_factory=dict)
    """What the similarity checks of the last semantic run came to."""

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


def _run(suites: SuiteSet, similarity: Similarity | None) -> tuple[Results, float]:
    target = as_async_target(Reworder(), concurrency=CONCURRENCY)
    info = TargetInfo(kind="callable", name=Reworder.name)
    settings = RunSettings(
        target=info,
        plan=plan_of(suites),
        similarity=similarity,
        concurrency=CONCURRENCY,
        preflight=False,
    )
    started = time.perf_counter()
    results = run_gauntlet(suites, target, settings)
    return results, time.perf_counter() - started


def _outcomes(results: Results) -> dict[str, int]:
    """What the similarity checks came to; `unscored` counts those the embedder never saw."""
    outcomes: dict[str, int] = {}
    for case in results.cases:
        for trial in case.trials:
            check = trial.similarity
            name: str = "none" if check is None else check.outcome
            if check is not None and check.score is None:
                name += " unscored"
            outcomes[name] = outcomes.get(name, 0) + 1
    return outcomes


def _calibrated(
    work: Path, embedder: BuiltinEmbedder, fingerprint: EmbedderFingerprint
) -> tuple[Path, int]:
    """The builtin's record on the shipped labels, written as `gauntlet calibrate` writes it."""
    labels = load_similarity_labels(builtin_similarity_labels_dir())
    record = asyncio.run(calibrate_similarity(Embeddings(embedder, fingerprint), labels))
    path = work / "similarity.json"
    write_similarity_record(record, path)
    return path, len(labels.items)


def run_semantic(work: Path, cases: int, repeats: int) -> Semantic:
    """Exact and semantic runs of `cases` golden cases, taking turns, `repeats` of each."""
    from gauntlet.semantic.calibration import read_similarity_record

    began, started_at, load_before = time.perf_counter(), datetime.now(UTC), os.getloadavg()[0]
    exact_suites = load_suites([write_golden_files(work / "exact-cases", cases, "exact")])
    semantic_suites = load_suites([write_golden_files(work / "semantic-cases", cases)])
    embedder = BuiltinEmbedder()
    started = time.perf_counter()
    fingerprint = asyncio.run(embedder.open())
    measured = Semantic(
        cases=cases,
        load_seconds=time.perf_counter() - started,
        started_at=started_at,
        load_before=load_before,
    )
    started = time.perf_counter()
    record_path, measured.labels = _calibrated(work, embedder, fingerprint)
    measured.calibration_seconds = time.perf_counter() - started
    record = read_similarity_record(record_path)
    sha256 = hashlib.sha256(record_path.read_bytes()).hexdigest()
    if LANGUAGE not in record.accepted():
        raise RuntimeError(f"semantic bench: the calibration accepted no threshold in {LANGUAGE}")
    measured.threshold = record.accepted()[LANGUAGE]
    for _ in range(repeats):
        gc.collect()
        results, seconds = _run(exact_suites, None)
        if results.totals.total != cases:
            raise RuntimeError(f"semantic bench: {results.totals.total} of {cases} cases ran")
        measured.exact.append(seconds)
        embeddings = Embeddings(embedder, fingerprint)  # an empty cache each run
        similarity = similarity_of(record, fingerprint, embeddings, record_sha256=sha256)
        gc.collect()
        results, seconds = _run(semantic_suites, similarity)
        outcomes = _outcomes(results)
        # Only passes with a score time what passing by meaning costs: an unjudged check
        # never asks the embedder, and a failed guard is not a reworded answer passing.
        if outcomes != {"passed": cases}:
            raise RuntimeError(f"semantic bench: the checks came to {outcomes}")
        measured.semantic.append(seconds)
        measured.asked, measured.wanted = embeddings.asked, embeddings.wanted
        measured.outcomes = outcomes
    asyncio.run(embedder.aclose())
    measured.elapsed, measured.load_after = time.perf_counter() - began, os.getloadavg()[0]
    return measured


def semantic_markdown(measured: Semantic) -> list[str]:
    """The RESULTS.md section, with its own date, command and load average."""
    exact, semantic = statistics.median(measured.exact), statistics.median(measured.semantic)
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
        "reworded, once as `match: exact` suites and once as `match: semantic` ones; exact and "
        f"semantic runs taking turns, medians of {len(measured.exact)}. The semantic run is "
        "the engine's own: `RunSettings.similarity`, each answer the gate passed checked by "
        "meaning as it comes, through the run's `Embeddings` (an empty cache each run).",
        f"- Every case has its own expected answer; the answers are drawn from a pool of "
        f"{POOL:,} (case i answers as case i mod {POOL:,}), so some repeat across cases.",
        f"- The builtin embedder (USE multilingual v3, one BLAS thread) loaded once in "
        f"{measured.load_seconds:.2f} s, and calibrated on the shipped labels "
        f"({measured.labels:,} pairs, `gauntlet.semantic.calibration`, as `gauntlet calibrate "
        f"--embedder builtin` does) in {measured.calibration_seconds:.2f} s, neither counted "
        f"below. The record's threshold in {LANGUAGE}: {measured.threshold:.4g}. The checks "
        f"came to {outcomes}.",
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
            ],
        ),
        "",
        f"- The cache's figure: {measured.asked:,} texts asked of the embedder, of "
        f"{measured.wanted:,} looked up (in the last semantic run; each check looks up its "
        "answer and its expected answer).",
    ]


def _lines(measured: Semantic) -> Sequence[str]:
    return [
        f"model loaded in {measured.load_seconds:.2f} s, calibrated on {measured.labels:,} "
        f"labelled pairs in {measured.calibration_seconds:.2f} s (neither counted); "
        f"threshold in {LANGUAGE} {measured.threshold:.4g}",
        measured.line(),
    ]
