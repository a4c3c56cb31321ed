"""The evidence pack's Trends section: the reported run against its stored history. Pure.

`gauntlet report --history FILE` loads the history, adds the run being reported to it in
memory when the history does not already hold it (by key), and judges that run against the
comparable runs before it with `gauntlet.history.stats`. The figures are rounded to 4 places
here, as the rest of the pack's are, so the JSON stays stable; each rule is the statistics'
own sentence, with the numbers it was decided on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from gauntlet.history.records import CaseRecord, Family, History, RunRecord
from gauntlet.history.stats import (
    DEFAULT_ALPHA,
    DEFAULT_THRESHOLD,
    DEFAULT_WINDOW,
    MIN_HISTORY,
    case_regressions,
    comparable_runs,
    trends,
)
from gauntlet.run.results import Results

LoadHistory = Callable[[Path], History]
"""`gauntlet.history.store.load_history`: the stored runs, oldest first."""
RecordsOf = Callable[[Results, Mapping[str, str]], tuple[RunRecord, tuple[CaseRecord, ...]]]
"""`gauntlet.history.store.records_of`: a results file as the history would store it."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class TrendEvidence(_Record):
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


class CaseRegressionEvidence(_Record):
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


class TrendsEvidence(_Record):
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


def trends_evidence(  # noqa: PLR0913 - every option of the report's Trends section
    history: History,
    run_key: str,
    *,
    path: str,
    added: bool = False,
    window: int = DEFAULT_WINDOW,
    threshold: float = DEFAULT_THRESHOLD,
    compare_on: str | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> TrendsEvidence:
    """The Trends section for the run `run_key` of `history`."""
    run = next(run for run in history.runs if run.key == run_key)
    found = trends(history, run_key, window=window, threshold=threshold, compare_on=compare_on)
    regressions = case_regressions(
        history, run_key, window=window, alpha=alpha, compare_on=compare_on
    )
    return TrendsEvidence(
        history=path,
        run_key=run_key,
        added=added,
        window=window,
        threshold=threshold,
        compare_on=compare_on,
        alpha=alpha,
        min_history=MIN_HISTORY,
        comparable_runs=len(comparable_runs(history, run, window=window, compare_on=compare_on)),
        trends=tuple(
            TrendEvidence(
                metric=trend.metric,
                family=trend.family,
                gate=trend.gate,
                language=trend.language,
                suite=trend.suite,
                current=_round(trend.current),
                history=tuple(round(value, 4) for value in trend.history),
                mean=_round(trend.mean),
                stdev=_round(trend.stdev),
                z=_round(trend.z),
                flagged=trend.flagged,
                rule=trend.rule,
            )
            for trend in found
        ),
        case_regressions=tuple(
            CaseRegressionEvidence(
                suite=found.suite,
                gate=found.gate,
                case_id=found.case_id,
                language=found.language,
                passed_before=found.passed_before,
                trials_before=found.trials_before,
                failed_now=found.failed_now,
                trials_now=found.trials_now,
                p_value=float(f"{found.p_value:.6g}"),
                flagged=found.flagged,
                rule=found.rule,
            )
            for found in regressions
        ),
    )


def with_run(
    history: History, run: RunRecord, cases: tuple[CaseRecord, ...]
) -> tuple[History, bool]:
    """The history with `run` added in memory unless it holds it already (by key).

    Returns the history and whether the run was added. The runs stay oldest first.
    """
    if any(stored.key == run.key for stored in history.runs):
        return history, False
    runs = sorted((*history.runs, run), key=lambda r: (r.started_at, r.key))
    return History(runs=tuple(runs), cases=(*history.cases, *cases)), True


def report_trends(  # noqa: PLR0913 - the report's options, and the store's two functions
    results: Results,
    path: Path,
    *,
    load_history: LoadHistory,
    records_of: RecordsOf,
    window: int = DEFAULT_WINDOW,
    threshold: float = DEFAULT_THRESHOLD,
    compare_on: str | None = None,
) -> TrendsEvidence:
    """What `gauntlet report --history` adds: `results` judged against the stored history."""
    run, cases = records_of(results, {})
    history, added = with_run(load_history(path), run, cases)
    return trends_evidence(
        history,
        run.key,
        path=str(path),
        added=added,
        window=window,
        threshold=threshold,
        compare_on=compare_on,
    )


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
