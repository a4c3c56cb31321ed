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

from gauntlet.evidence.trends import CaseRegressionEvidence, TrendEvidence, TrendsEvidence
from gauntlet.history.records import CaseRecord, CaseRegression, History, RunRecord, Trend
from gauntlet.history.stats import (
    DEFAULT_RULE,
    MIN_HISTORY,
    TrendRule,
    case_regressions,
    comparable_runs,
    trends,
)
from gauntlet.run.results import Results

LoadHistory = Callable[[Path], History]
"""`gauntlet.history.store.load_history`: the stored runs, oldest first."""
RecordsOf = Callable[[Results, Mapping[str, str]], tuple[RunRecord, tuple[CaseRecord, ...]]]
"""`gauntlet.history.store.records_of`: a results file as the history would store it."""


def trends_evidence(
    history: History,
    run_key: str,
    *,
    path: str,
    added: bool = False,
    rule: TrendRule = DEFAULT_RULE,
) -> TrendsEvidence:
    """The Trends section for the run `run_key` of `history`, judged by `rule`."""
    run = next(run for run in history.runs if run.key == run_key)
    found = trends(history, run_key, rule=rule)
    regressions = case_regressions(history, run_key, rule=rule)
    return TrendsEvidence(
        history=path,
        run_key=run_key,
        added=added,
        window=rule.window,
        threshold=rule.threshold,
        compare_on=rule.compare_on,
        alpha=rule.alpha,
        min_history=MIN_HISTORY,
        comparable_runs=len(
            comparable_runs(history, run, window=rule.window, compare_on=rule.compare_on)
        ),
        trends=tuple(_trend_evidence(trend) for trend in found),
        case_regressions=tuple(_regression_evidence(found) for found in regressions),
    )


def _trend_evidence(trend: Trend) -> TrendEvidence:
    """One trend as the pack records it, its figures rounded to 4 places."""
    return TrendEvidence(
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


def _regression_evidence(found: CaseRegression) -> CaseRegressionEvidence:
    """One case regression as the pack records it, its p-value to 6 significant digits."""
    return CaseRegressionEvidence(
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


def report_trends(
    results: Results,
    path: Path,
    *,
    load_history: LoadHistory,
    records_of: RecordsOf,
    rule: TrendRule = DEFAULT_RULE,
) -> TrendsEvidence:
    """What `gauntlet report --history` adds: `results` judged against the stored history.

    `load_history` and `records_of` are the store's (`gauntlet.history.store`), handed in so
    the statistics can be read over a history built in memory; `rule` is the report's options.
    """
    run, cases = records_of(results, {})
    history, added = with_run(load_history(path), run, cases)
    return trends_evidence(history, run.key, path=str(path), added=added, rule=rule)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
