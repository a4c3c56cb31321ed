"""What the run history holds and what its statistics say: the records every part shares.

The store (`gauntlet.history.store`) writes runs into SQLite and reads them back as these
records; the statistics (`gauntlet.history.stats`) are pure functions of them; the report's
Trends section and the site's dashboard render what the statistics return. Nothing here does
I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from gauntlet.evidence.trends import Family


@dataclass(frozen=True)
class RunRecord:
    """One run (or one shard) as the history keeps it."""

    key: str
    """The run's identity in the history: sha256 over its results digest, start time, run id
    and shard, so importing the same results file twice stores one run, and two runs whose
    answers happen to be identical are still two."""
    number: int
    """Its place in the history, 1 for the oldest stored (by start time, then key)."""
    started_at: datetime
    finished_at: datetime
    gauntlet_version: str
    target_kind: str
    target_name: str
    target_fingerprint: str
    """sha256 over the target's kind, name, defects and target file: runs of one target."""
    plan_digest: str
    """The results' plan digest: runs with the same one asked the same suites and cases."""
    suites: tuple[tuple[str, int], ...]
    """Each suite's name and version, as run."""
    results_digest: str
    verdict: str
    labels: dict[str, str] = field(default_factory=dict)
    """`--label key=value` pairs, such as branch and commit."""


HAS_VERDICT = frozenset({"pass", "fail"})
"""The verdicts whose runs have a pass rate to show. A run withheld or unscoreable (or with any
other verdict) reached none: most of its cases may have got no answer, so its passed share is
not a pass rate, and every view shows the verdict's word in its place."""


def no_verdict(run: RunRecord) -> str | None:
    """The word shown instead of a run's numbers when it reached no verdict; None otherwise."""
    return None if run.verdict in HAS_VERDICT else run.verdict.lower()


@dataclass(frozen=True)
class CaseRecord:
    """One case of one stored run."""

    run_key: str
    suite: str
    gate: str
    case_id: str
    language: str
    outcome: str
    """As the results file says it: passed, failed, errored, not_run, unjudged, waived."""
    passes: int
    repeats: int
    """Asks: with `--repeat`, each ask is one trial of the case."""
    latency_ms: float | None
    """The median latency of its asks; None when none was answered."""
    tokens: int | None
    """Total tokens over its asks, when every ask reported them; else None."""
    first_token_ms: tuple[float, ...] = ()
    """Each answered ask's time to its first streamed piece, in ms, in ask order: one per
    ask, not the case's median, so a run's median and p95 over them are the evidence pack's
    own (taken over asks). Empty when no answered ask streamed, or the run was stored before
    the history kept them (schema 4): not reported."""


@dataclass(frozen=True)
class History:
    """Stored runs, oldest first, and their cases."""

    runs: tuple[RunRecord, ...]
    cases: tuple[CaseRecord, ...]


@dataclass(frozen=True)
class Trend:
    """One metric of the newest run against its comparable history: flagged or not, and why."""

    metric: str
    """`pass_rate`, `latency_p50_ms`, `latency_p95_ms`, `tokens_per_case`,
    `first_token_p50_ms` or `first_token_p95_ms`."""
    family: Family
    gate: str | None
    language: str | None
    suite: str | None
    current: float | None
    history: tuple[float, ...]
    """The metric in each comparable earlier run, oldest first (at most the window)."""
    mean: float | None
    stdev: float | None
    z: float | None
    """(current - mean) / stdev; None when there is too little history or no spread."""
    flagged: bool
    rule: str
    """In words: `z <= -1.5 over 12 comparable runs`, `flat history: below its mean 1.0`,
    `not enough history: 2 comparable runs, 3 needed`."""


@dataclass(frozen=True)
class CaseRegression:
    """A case that passed in its history and fails now, with an exact binomial test."""

    suite: str
    gate: str
    case_id: str
    language: str
    passed_before: int
    trials_before: int
    """Asks in the comparable history (repeats counted as trials)."""
    failed_now: int
    trials_now: int
    p_value: float
    """P(at least `failed_now` failures in `trials_now` asks) at the historical failure rate."""
    flagged: bool
    rule: str


@dataclass(frozen=True)
class FlakyCase:
    """A case whose outcomes alternate: across the asks of one run, or across comparable runs.

    The rule is `gauntlet.history.stats.flaky_cases`'s.
    """

    suite: str
    gate: str
    case_id: str
    language: str
    passes: int
    trials: int
    runs: int
    """Runs it appears in."""


@dataclass(frozen=True)
class RegressedCase:
    """A case that passed in earlier comparable runs and has failed every ask since.

    Steady on both sides (no alternation, so not flaky): the rule is
    `gauntlet.history.stats.regressed_cases`'s.
    """

    suite: str
    gate: str
    case_id: str
    language: str
    last_passed: int
    """The number of the last run in which it passed."""
    failing_since: int
    """The number of the first run in which it failed every ask, after `last_passed`."""
    failing_runs: int
    """Runs it has failed in since (every one of its latest judged runs)."""
    runs: int
    """Comparable runs it was judged in."""


@dataclass(frozen=True)
class Point:
    """One run's value of one metric, judged against the comparable runs before it."""

    run: RunRecord
    value: float | None
    trend: Trend
    """The metric of this run against its own history (the runs before it): `flagged` marks
    the run on a chart."""
