"""What the run history says about a run: trends, case regressions and flaky cases. Pure.

Every function here is a pure function of a `History` (see `gauntlet.history.records`), so the
same history always gives the same answer, and the rules below can be checked by hand.

Comparable runs. A run is judged only against runs that asked the same suites and cases (the
same `plan_digest`), optionally also carrying the same value of one label (`compare_on`, such
as `branch`; a run without that label is compared with the runs without it), that started
before it (by start time, then key: the order the history numbers runs in), and only the last
`window` of those. A run is never compared with itself or with a later run.

Metrics, over the cases selected (by gate, language and suite; all when none is given):

- `pass_rate`: passed / (total - waived). A waived case failed and a live waiver tolerated it,
  so it leaves the denominator, as it leaves the pack's pass rates; an errored, unjudged or not
  run case is never a pass and stays in it. None when nothing counted, and None for a run that
  reached no verdict (withheld, unscoreable: `gauntlet.history.records.no_verdict`): most of
  its cases may have got no answer, so its passed share is not a pass rate. Such a run has no
  pass rate of its own, is in no pass rate's history, and its cases are in no case's
  regression test nor course (below): it enters no statistic as a pass rate.
- `latency_p50_ms`, `latency_p95_ms`: percentiles of the cases' (median) latencies, by linear
  interpolation between the closest ranks (the "inclusive" method: `p50` of 1, 2, 3, 4 is 2.5).
  None when no selected case was answered.
- `tokens_per_case`: mean tokens per case, only when every selected case reported its tokens;
  None otherwise (a mean over the cases that happened to report would compare unlike runs).
- `first_token_p50_ms`, `first_token_p95_ms`: percentiles (as latency's) of the time to first
  token of every answered ask that streamed, over asks as the evidence pack takes them, so a
  gate's figures are its pack's. None when no selected ask streamed (not reported). Drawn on
  the dashboard; not among a run's `trends`, whose run-wide cost metrics are `RUN_WIDE`.

The z rule. A comparable run without a value (nothing counted) is skipped. With fewer than
`MIN_HISTORY` values nothing is flagged ("not enough history"). Otherwise z = (current - mean)
/ sample standard deviation of the history values; a pass rate is flagged when z <= threshold
(default -1.5: a drop), a latency or token figure when z >= -threshold (a rise). When the
history is flat (standard deviation below `FLAT`), z is undefined and any pass-rate drop below
the mean is flagged (any rise above it for latency and tokens): after thirty runs at 100%, one
run at 90% is a change, not noise.

Case regressions. A case that failed some of its asks now, whose comparable history passed at
least `CONSISTENT` of its asks, is tested with an exact one-sided binomial test: p = P(X >=
failed now) for X ~ Binomial(asks now, q), where q = (failures before + 1/2) / (asks before +
1), the mean of the failure rate's posterior under Jeffreys' prior Beta(1/2, 1/2). A spotless
history therefore never gives q = 0 (which would make any failure infinitely unlikely), and q
shrinks as clean asks accumulate: 9 clean asks give q = 0.05, so failing 1 ask of 1 now gives
p = 0.05 (not below the default alpha), failing 3 of 3 gives p = 0.000125.

Flaky and regressed cases (the one definition; the dashboard and every list use it). A case's
course is its judged runs among comparable runs (one plan digest), in run order; a run whose
case errored, was not run or is unjudged, or a run that reached no verdict, tells nothing of
its answers and is skipped, never read as a failure nor as a break. Each judged run is P
(every ask passed), F (no ask passed) or M (mixed: some asks passed, some failed; with
`--repeat`, whatever the case's outcome).

- Flaky: the outcomes alternate. Some run is M (across the asks of one run), or the course
  changes between P and F more than once (across runs: P,F,P or F,P,F), in any plan's course.
- Regressed: not flaky, and the course of the newest plan it was judged in is P runs then F
  runs, at least one of each: it passed, then failed every ask of every run since. A single
  change is never flaky; F then P (a recovery) and F throughout (never passed) are neither.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from statistics import fmean, stdev

from gauntlet.evidence.trends import Family
from gauntlet.gates import GateFamily, family_of
from gauntlet.history.records import (
    CaseRecord,
    CaseRegression,
    FlakyCase,
    History,
    Point,
    RegressedCase,
    RunRecord,
    Trend,
    no_verdict,
)
from gauntlet.languages import in_column_order
from gauntlet.proportions import percentile
from gauntlet.words import plural

METRICS = (
    "pass_rate",
    "latency_p50_ms",
    "latency_p95_ms",
    "tokens_per_case",
    "first_token_p50_ms",
    "first_token_p95_ms",
)
"""The metrics a series can follow."""
RUN_WIDE = ("latency_p50_ms", "latency_p95_ms", "tokens_per_case")
"""The cost metrics `trends` judges each run on, over all its cases."""
MIN_HISTORY = 3
"""Comparable values needed before anything is flagged."""
FLAT = 1e-9
"""A standard deviation below this is a flat history: z is undefined."""
CONSISTENT = 0.8
"""A case is tested for regression only when its history passed at least this share of asks."""
DEFAULT_WINDOW = 30
DEFAULT_THRESHOLD = -1.5
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True, kw_only=True)
class TrendRule:
    """How a run is judged against its history: the options every statistic here shares.

    They travel together from `gauntlet report --history` (or the dashboard's defaults) to
    each series and case regression, and the evidence pack records them as the rule it used.

    Args:
        window: The last this many comparable runs are compared (at least 1).
        threshold: The z a pass rate is flagged at or below (a drop; below 0).
        compare_on: A label whose value comparable runs share, or None.
        alpha: A case regression is flagged when its p-value is below this (0 to 1).
    """

    window: int = DEFAULT_WINDOW
    threshold: float = DEFAULT_THRESHOLD
    compare_on: str | None = None
    alpha: float = DEFAULT_ALPHA


DEFAULT_RULE = TrendRule()
"""Every option at its default."""

_COUNTED = frozenset({"passed", "failed", "waived"})
"""Outcomes whose asks were answered and judged: the trials of a case."""
_FAMILY_ORDER = (Family.SAFETY, Family.COMPETENCE, Family.COST)


def comparable_runs(
    history: History, run: RunRecord, *, window: int = DEFAULT_WINDOW, compare_on: str | None = None
) -> tuple[RunRecord, ...]:
    """The runs `run` is judged against: same plan (and label), earlier, the last `window`."""
    _check_window(window)
    earlier = sorted(
        (
            other
            for other in history.runs
            if other.plan_digest == run.plan_digest
            and _order(other) < _order(run)
            and (compare_on is None or other.labels.get(compare_on) == run.labels.get(compare_on))
        ),
        key=_order,
    )
    return tuple(earlier[-window:])


def series(
    history: History,
    *,
    metric: str = "pass_rate",
    gate: str | None = None,
    language: str | None = None,
    suite: str | None = None,
    rule: TrendRule = DEFAULT_RULE,
) -> tuple[Point, ...]:
    """One point per run with cases in the selection, oldest first.

    Each point's trend judges that run against the comparable runs before it, by `rule`.
    """
    _check_metric(metric)
    _check_threshold(rule.threshold)
    _check_window(rule.window)
    by_run = _cases_by_run(history)
    selected = {
        run.key: _select(by_run.get(run.key, ()), gate, language, suite) for run in history.runs
    }
    family = _family(metric, gate, [case for cases in selected.values() for case in cases])
    measure = _MEASURES[metric]

    def value_of(run: RunRecord) -> float | None:
        if metric == "pass_rate" and no_verdict(run) is not None:
            return None  # its passed share is not a pass rate: not its value, nor a baseline
        return measure(selected[run.key])

    points = []
    for run in sorted(history.runs, key=_order):
        if not selected[run.key]:
            continue
        values = tuple(
            value
            for other in comparable_runs(
                history, run, window=rule.window, compare_on=rule.compare_on
            )
            if (value := value_of(other)) is not None
        )
        value = value_of(run)
        trend = _judge(metric, family, (gate, language, suite), value, values, rule.threshold)
        word = no_verdict(run) if metric == "pass_rate" else None
        if word is not None:
            trend = replace(trend, rule=f"no value in this run: it reached no verdict ({word})")
        points.append(Point(run=run, value=value, trend=trend))
    return tuple(points)


def trends(
    history: History,
    run_key: str,
    *,
    rule: TrendRule = DEFAULT_RULE,
) -> tuple[Trend, ...]:
    """Every trend of one run against its comparable history.

    Each gate x language, gate and suite pass rate, and the run-wide latency p50/p95 and
    tokens per case: flagged first, safety before competence before cost, then worst z first.
    """
    _run(history, run_key)
    cases = _cases_by_run(history).get(run_key, ())
    gates = _unique(case.gate for case in cases)
    selections: list[tuple[str, str | None, str | None, str | None]] = []
    for name in gates:
        of_gate = [case for case in cases if case.gate == name]
        selections.append(("pass_rate", name, None, None))
        selections += [
            ("pass_rate", name, language, None)
            # In column order, so languages flagged alike are listed as every table lists them.
            for language in in_column_order(case.language for case in of_gate)
        ]
        selections += [
            ("pass_rate", name, None, suite) for suite in _unique(case.suite for case in of_gate)
        ]
    selections += [(cost, None, None, None) for cost in RUN_WIDE]
    found = []
    for metric, gate, language, suite in selections:
        points = series(
            history, metric=metric, gate=gate, language=language, suite=suite, rule=rule
        )
        found += [point.trend for point in points if point.run.key == run_key]
    return tuple(sorted(found, key=_trend_order))


def case_regressions(
    history: History, run_key: str, *, rule: TrendRule = DEFAULT_RULE
) -> tuple[CaseRegression, ...]:
    """Cases failing asks now that passed at least `CONSISTENT` of their history's asks.

    Each with its exact binomial p-value (flagged below `rule.alpha`): flagged first, safety
    first, then by p.
    """
    if not 0 < rule.alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {rule.alpha}")
    run = _run(history, run_key)
    if no_verdict(run) is not None:
        return ()  # its failures are not judged: most of its cases may have got no answer
    by_run = _cases_by_run(history)
    earlier = [
        other
        for other in comparable_runs(history, run, window=rule.window, compare_on=rule.compare_on)
        if no_verdict(other) is None
    ]
    found = []
    for case in by_run.get(run_key, ()):
        if case.outcome not in _COUNTED or case.passes >= case.repeats:
            continue
        before = [
            old
            for other in earlier
            for old in by_run.get(other.key, ())
            if (old.suite, old.case_id, old.language) == (case.suite, case.case_id, case.language)
            and old.outcome in _COUNTED
        ]
        regression = _regression(case, before, len(earlier), rule.alpha)
        if regression is not None:
            found.append(regression)
    return tuple(
        sorted(
            found,
            key=lambda r: (not r.flagged, not _safety(r.gate), r.p_value, r.case_id),
        )
    )


def _regression(
    case: CaseRecord, before: Sequence[CaseRecord], runs: int, alpha: float
) -> CaseRegression | None:
    """The binomial test of `case` against its records in `runs` comparable runs `before`.

    None when that history is empty or passed fewer than `CONSISTENT` of its asks.
    """
    passed_before = sum(old.passes for old in before)
    trials_before = sum(old.repeats for old in before)
    if not trials_before or passed_before < CONSISTENT * trials_before:
        return None
    failed_now = case.repeats - case.passes
    q = (trials_before - passed_before + 0.5) / (trials_before + 1)
    p = binomial_tail(failed_now, case.repeats, q)
    flagged = p < alpha
    rule = (
        f"P(X >= {failed_now}) = {p:.3g} {'<' if flagged else '>='} {alpha:g} for X ~ "
        f"Binomial({case.repeats}, q = {q:.4f}); q = ({trials_before - passed_before} "
        f"failures + 0.5) / ({trials_before} earlier asks + 1) over {runs} "
        "comparable runs"
    )
    return CaseRegression(
        suite=case.suite,
        gate=case.gate,
        case_id=case.case_id,
        language=case.language,
        passed_before=passed_before,
        trials_before=trials_before,
        failed_now=failed_now,
        trials_now=case.repeats,
        p_value=p,
        flagged=flagged,
        rule=rule,
    )


def flaky_cases(history: History, *, plan_digest: str | None = None) -> tuple[FlakyCase, ...]:
    """Cases whose outcomes alternate (the module's rule), of one plan if given.

    Each with its passes over its asks in the runs considered. The closest to 50% first, then
    the most asked.
    """
    flaky = [
        FlakyCase(
            suite=course.key[0],
            gate=course.key[1],
            case_id=course.key[2],
            language=course.key[3],
            passes=course.passes,
            trials=course.trials,
            runs=course.appearances,
        )
        for course in _courses(history, plan_digest)
        if course.flaky
    ]
    return tuple(
        sorted(
            flaky,
            key=lambda f: (abs(f.passes / f.trials - 0.5), -f.trials, f.suite, f.case_id),
        )
    )


def regressed_cases(
    history: History, *, plan_digest: str | None = None
) -> tuple[RegressedCase, ...]:
    """Cases that passed, then failed every ask of every run since (the module's rule).

    Safety gates first, then the newest regression first.
    """
    found = []
    for course in _courses(history, plan_digest):
        marks = course.latest
        if course.flaky or not marks or marks[0][1] != "P" or marks[-1][1] != "F":
            continue
        failing = [number for number, mark in marks if mark == "F"]
        found.append(
            RegressedCase(
                suite=course.key[0],
                gate=course.key[1],
                case_id=course.key[2],
                language=course.key[3],
                last_passed=max(number for number, mark in marks if mark == "P"),
                failing_since=failing[0],
                failing_runs=len(failing),
                runs=len(marks),
            )
        )
    return tuple(
        sorted(
            found,
            key=lambda r: (not _safety(r.gate), -r.failing_since, r.suite, r.case_id, r.language),
        )
    )


@dataclass
class _Course:
    """One case's judged runs per plan, as (run number, P/F/M), and its tallies."""

    key: tuple[str, str, str, str]
    """suite, gate, case id, language."""
    by_plan: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    newest_plan: str | None = None
    passes: int = 0
    trials: int = 0
    appearances: int = 0

    @property
    def flaky(self) -> bool:
        return any(_alternates([mark for _, mark in marks]) for marks in self.by_plan.values())

    @property
    def latest(self) -> list[tuple[int, str]]:
        return self.by_plan.get(self.newest_plan, []) if self.newest_plan is not None else []


def _alternates(marks: list[str]) -> bool:
    """Mixed asks in a run, or more than one change between passed and failed runs."""
    changes = sum(1 for before, after in itertools.pairwise(marks) if before != after)
    return "M" in marks or changes > 1


def _courses(history: History, plan_digest: str | None) -> list[_Course]:
    by_run = _cases_by_run(history)
    courses: dict[tuple[str, str, str, str], _Course] = {}
    for run in sorted(history.runs, key=_order):
        if plan_digest not in (None, run.plan_digest):
            continue
        judged = no_verdict(run) is None
        for case in by_run.get(run.key, ()):
            key = (case.suite, case.gate, case.case_id, case.language)
            course = courses.setdefault(key, _Course(key))
            course.appearances += 1
            if not judged or case.outcome not in _COUNTED or case.repeats < 1:
                continue
            course.passes += case.passes
            course.trials += case.repeats
            mark = "P" if case.passes >= case.repeats else "F" if case.passes <= 0 else "M"
            course.by_plan.setdefault(run.plan_digest, []).append((run.number, mark))
            course.newest_plan = run.plan_digest
    return list(courses.values())


def binomial_tail(at_least: int, trials: int, q: float) -> float:
    """P(X >= at_least) for X ~ Binomial(trials, q), summed exactly term by term."""
    if not 0 <= at_least <= trials:
        raise ValueError(f"at_least must be between 0 and {trials}, not {at_least}")
    if at_least == 0:
        return 1.0  # certain: the sum would round just short of it
    return min(
        1.0,
        math.fsum(
            math.comb(trials, k) * q**k * (1 - q) ** (trials - k)
            for k in range(at_least, trials + 1)
        ),
    )


def pass_rate(cases: Iterable[CaseRecord]) -> float | None:
    """Passed / (total - waived); None when nothing counted."""
    listed = list(cases)
    counted = [case for case in listed if case.outcome != "waived"]
    if not counted:
        return None
    return sum(case.outcome == "passed" for case in counted) / len(counted)


def tokens_per_case(cases: Iterable[CaseRecord]) -> float | None:
    """Mean tokens per case when every case reported them; else None."""
    tokens = [case.tokens for case in cases]
    if not tokens or any(count is None for count in tokens):
        return None
    return fmean(count for count in tokens if count is not None)


def _latency(share: float) -> Callable[[Iterable[CaseRecord]], float | None]:
    def measure(cases: Iterable[CaseRecord]) -> float | None:
        return percentile((c.latency_ms for c in cases if c.latency_ms is not None), share)

    return measure


def _first_token(share: float) -> Callable[[Iterable[CaseRecord]], float | None]:
    def measure(cases: Iterable[CaseRecord]) -> float | None:
        return percentile((first for c in cases for first in c.first_token_ms), share)

    return measure


_MEASURES: dict[str, Callable[[Iterable[CaseRecord]], float | None]] = {
    "pass_rate": pass_rate,
    "latency_p50_ms": _latency(0.5),
    "latency_p95_ms": _latency(0.95),
    "tokens_per_case": tokens_per_case,
    "first_token_p50_ms": _first_token(0.5),
    "first_token_p95_ms": _first_token(0.95),
}


def _judge(
    metric: str,
    family: Family,
    where: tuple[str | None, str | None, str | None],
    current: float | None,
    values: tuple[float, ...],
    threshold: float,
) -> Trend:
    """One value against its history, by the rules in the module's docstring."""
    n = len(values)
    mean = fmean(values) if values else None
    sd = stdev(values) if n >= 2 else None  # a sample stdev needs two
    z: float | None = None
    flagged = False
    rise = metric != "pass_rate"
    if current is None:
        rule = "no value in this run: no case counted for it"
    elif n < MIN_HISTORY or mean is None or sd is None:
        rule = f"not enough history: {plural(n, 'comparable run')}, {MIN_HISTORY} needed"
    elif sd < FLAT:
        word = "above" if rise else "below"
        flagged = current > mean + FLAT if rise else current < mean - FLAT
        rule = (
            f"flat history: {_num(current)} {'' if flagged else 'not '}{word} its mean "
            f"{_num(mean)} over {n} comparable runs"
        )
    else:
        z = (current - mean) / sd
        limit = -threshold if rise else threshold
        flagged = z >= limit if rise else z <= limit
        sign = (">=" if flagged else "<") if rise else ("<=" if flagged else ">")
        rule = (
            f"z = {z:.2f} {sign} {limit:g} over {n} comparable runs "
            f"(mean {_num(mean)}, sd {_num(sd)})"
        )
    gate, language, suite = where
    return Trend(
        metric=metric,
        family=family,
        gate=gate,
        language=language,
        suite=suite,
        current=current,
        history=values,
        mean=mean,
        stdev=sd,
        z=z,
        flagged=flagged,
        rule=rule,
    )


def _num(value: float) -> str:
    return f"{value:.4g}"


def _family(metric: str, gate: str | None, cases: list[CaseRecord]) -> Family:
    """Cost for latency and tokens; safety for a pass rate of safety gates only.

    A pass rate mixing safety and competence gates is competence: it cannot say a safety case
    regressed, and the per-gate trends beside it do.
    """
    if metric != "pass_rate":
        return Family.COST
    gates = {gate} if gate is not None else {case.gate for case in cases}
    return Family.SAFETY if gates and all(map(_safety, gates)) else Family.COMPETENCE


def _safety(gate: str) -> bool:
    """Whether `gate` is a safety gate; a name no gate has now is not."""
    return family_of(gate) is GateFamily.SAFETY


def _trend_order(trend: Trend) -> tuple[bool, int, float]:
    """Flagged, family, then the worst first: a flat history's flag (no z) leads its family."""
    if trend.z is None:
        severity = -math.inf if trend.flagged else math.inf
    else:
        severity = trend.z if trend.metric == "pass_rate" else -trend.z
    return (not trend.flagged, _FAMILY_ORDER.index(trend.family), severity)


def _select(
    cases: Iterable[CaseRecord], gate: str | None, language: str | None, suite: str | None
) -> list[CaseRecord]:
    return [
        case
        for case in cases
        if gate in (None, case.gate)
        and language in (None, case.language)
        and suite in (None, case.suite)
    ]


def _cases_by_run(history: History) -> dict[str, tuple[CaseRecord, ...]]:
    grouped: dict[str, list[CaseRecord]] = {}
    for case in history.cases:
        grouped.setdefault(case.run_key, []).append(case)
    return {key: tuple(cases) for key, cases in grouped.items()}


def _run(history: History, run_key: str) -> RunRecord:
    for run in history.runs:
        if run.key == run_key:
            return run
    raise ValueError(f"no run {run_key} in the history")


def _order(run: RunRecord) -> tuple[datetime, str]:
    return (run.started_at, run.key)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")


def _check_window(window: int) -> None:
    if window < 1:
        raise ValueError(f"window must be at least 1, not {window}")


def _check_threshold(threshold: float) -> None:
    if not (math.isfinite(threshold) and threshold < 0):
        raise ValueError(f"threshold must be a finite number below 0 (a drop), not {threshold}")
