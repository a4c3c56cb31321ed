"""The evidence pack's Trends section, as recorded: a run against its stored history.

The records only; `gauntlet.history.trends` builds them from a history with the statistics of
`gauntlet.history.stats`, and the renderers read them.
"""

from __future__ import annotations

from enum import StrEnum

from gauntlet.record import Record


class Family(StrEnum):
    """Which side of the gate a metric belongs to: safety flags are listed first."""

    SAFETY = "safety"
    COMPETENCE = "competence"
    COST = "cost"
    """Latency and tokens."""


class TrendEvidence(Record):
    """One metric of this run against its comparable history."""

    metric: str
    """`pass_rate`, `latency_p50_ms`, `latency_p95_ms` or `tokens_per_case`."""
    family: Family
    """Safety (adversarial, refusal, disclosure pass rates), competence, or cost (latency and
    tokens): flagged safety trends are listed first."""
    gate: str | None
    language: str | None
    suite: str | None
    current: float | None
    """This run's value; None when nothing counted (or, for tokens, some case reported none)."""
    history: tuple[float, ...]
    """The value in each comparable earlier run with one, oldest first (at most the window)."""
    mean: float | None
    stdev: float | None
    """The sample standard deviation of `history`; None below two values."""
    z: float | None
    """(current - mean) / stdev; None with too little history or a flat one."""
    flagged: bool
    rule: str
    """The rule applied, with its numbers: `z = -2.31 <= -1.5 over 12 comparable runs (...)`."""


class CaseRegressionEvidence(Record):
    """A case failing asks now that passed its history, with an exact binomial test."""

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


class TrendsEvidence(Record):
    """This run against the runs before it in a stored history."""

    history: str
    """The history file, as named on the command line."""
    run_key: str
    """This run's key in the history."""
    added: bool
    """The history did not hold this run: it was added in memory for the report, not stored."""
    window: int
    """At most this many comparable earlier runs are used."""
    threshold: float
    """A pass rate is flagged at z <= threshold; latency and tokens at z >= -threshold."""
    compare_on: str | None
    """The label comparable runs must share with this run (such as `branch`), if any."""
    alpha: float
    """A case regression is flagged when its p-value is below this."""
    min_history: int
    """Comparable values needed before anything is flagged."""
    comparable_runs: int
    """Earlier runs of the same plan (and label) within the window."""
    trends: tuple[TrendEvidence, ...]
    """Flagged first, safety before competence before cost, then the worst z."""
    case_regressions: tuple[CaseRegressionEvidence, ...]
    """Flagged first, safety first, then the smallest p-value."""

    @property
    def flagged(self) -> tuple[TrendEvidence, ...]:
        """The trends flagged, in the order listed."""
        return tuple(trend for trend in self.trends if trend.flagged)
