"""The history's statistics on constructed histories whose answers are worked out by hand."""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.evidence.trends import Family
from gauntlet.history.records import CaseRecord, History, RunRecord
from gauntlet.history.stats import (
    TrendRule,
    binomial_tail,
    case_regressions,
    comparable_runs,
    flaky_cases,
    pass_rate,
    regressed_cases,
    series,
    tokens_per_case,
    trends,
)
from gauntlet.proportions import percentile

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _run(number: int, *, plan: str = "plan-a", labels: dict[str, str] | None = None) -> RunRecord:
    return RunRecord(
        key=f"run-{number:03d}",
        number=number,
        started_at=T0 + timedelta(hours=number),
        finished_at=T0 + timedelta(hours=number, minutes=1),
        gauntlet_version="0.test",
        target_kind="toy",
        target_name="riverbend",
        target_fingerprint="f" * 64,
        plan_digest=plan,
        suites=(("s", 1),),
        results_digest=f"{number:064d}",
        verdict="pass",
        labels=labels or {},
    )


def _case(  # a record has many fields
    run: RunRecord,
    case_id: str = "c1",
    *,
    gate: str = "grounding",
    language: str = "en",
    suite: str = "s",
    outcome: str = "passed",
    passes: int | None = None,
    repeats: int = 1,
    latency: float | None = 100.0,
    tokens: int | None = 10,
) -> CaseRecord:
    if passes is None:
        passes = repeats if outcome == "passed" else 0
    return CaseRecord(
        run_key=run.key,
        suite=suite,
        gate=gate,
        case_id=case_id,
        language=language,
        outcome=outcome,
        passes=passes,
        repeats=repeats,
        latency_ms=latency,
        tokens=tokens,
    )


def _rates(rates: list[float], *, cases: int = 100, gate: str = "grounding") -> History:
    """One run per rate, each of `cases` cases, `rate * cases` of them passing."""
    runs, records = [], []
    for number, rate in enumerate(rates, start=1):
        run = _run(number)
        runs.append(run)
        passing = round(rate * cases)
        records += [
            _case(run, f"c{i}", gate=gate, outcome="passed" if i < passing else "failed")
            for i in range(cases)
        ]
    return History(runs=tuple(runs), cases=tuple(records))


def _latencies(values: list[float]) -> History:
    runs = [_run(number) for number in range(1, len(values) + 1)]
    return History(
        runs=tuple(runs),
        cases=tuple(_case(run, latency=value) for run, value in zip(runs, values, strict=True)),
    )


def test_a_flat_history_flags_any_drop_below_its_mean_and_nothing_at_it() -> None:
    points = series(_rates([1.0] * 5 + [0.9, 1.0]), gate="grounding")
    dropped, back = points[-2].trend, points[-1].trend
    assert dropped.flagged
    assert dropped.z is None
    assert dropped.rule == "flat history: 0.9 below its mean 1 over 5 comparable runs"
    # the 0.9 run is now in the history, so it is no longer flat: 1.0 is above its mean
    assert not back.flagged
    assert back.rule.startswith("z = ")
    flat_again = series(_rates([1.0] * 6), gate="grounding")[-1].trend
    assert not flat_again.flagged
    assert flat_again.rule == "flat history: 1 not below its mean 1 over 5 comparable runs"


def test_a_real_drop_is_flagged_with_z_worked_out_by_hand() -> None:
    history = [0.95, 0.97, 0.96, 0.98, 0.94]
    trend = series(_rates([*history, 0.80]), gate="grounding")[-1].trend
    mean = 0.96
    sd = math.sqrt((0.01**2 + 0.01**2 + 0 + 0.02**2 + 0.02**2) / 4)  # sample: n - 1
    assert trend.history == pytest.approx(tuple(history))
    assert trend.mean == pytest.approx(mean)
    assert trend.stdev == pytest.approx(sd)
    assert trend.z == pytest.approx((0.80 - mean) / sd)  # -10.12
    assert trend.flagged
    assert trend.rule == "z = -10.12 <= -1.5 over 5 comparable runs (mean 0.96, sd 0.01581)"
    assert trend.family is Family.COMPETENCE


def test_noise_within_its_spread_is_not_flagged() -> None:
    # each run's z against the runs before it: 0.44, -0.39, 0.53, -1.43, 0.71, -0.42
    wandering = [0.96, 0.98, 0.95, 0.97, 0.96, 0.97, 0.95, 0.97, 0.96]
    points = series(_rates(wandering), gate="grounding")
    judged = [point.trend for point in points if point.trend.z is not None]
    assert len(judged) == len(wandering) - 3
    assert all(abs(trend.z or 0) < 1.5 for trend in judged)
    assert not any(point.trend.flagged for point in points)


def test_a_drop_exactly_at_the_threshold_is_flagged_and_a_smaller_one_is_not() -> None:
    # history 0.9, 1.0, 0.9, 1.0 has mean 0.95 and sd 0.0577; 0.85 gives z = -1.73
    assert series(_rates([0.9, 1.0, 0.9, 1.0, 0.85], cases=20))[-1].trend.flagged
    assert not series(_rates([0.9, 1.0, 0.9, 1.0, 0.9], cases=20))[-1].trend.flagged
    # a custom threshold moves the line
    assert not series(_rates([0.9, 1.0, 0.9, 1.0, 0.85], cases=20), rule=TrendRule(threshold=-2))[
        -1
    ].trend.flagged


def test_too_little_history_is_said_and_never_flagged() -> None:
    points = series(_rates([1.0, 1.0, 0.0]), gate="grounding")
    assert [point.trend.rule for point in points] == [
        "not enough history: 0 comparable runs, 3 needed",
        "not enough history: 1 comparable run, 3 needed",
        "not enough history: 2 comparable runs, 3 needed",
    ]
    assert not any(point.trend.flagged for point in points)
    assert points[0].trend.mean is None
    assert points[1].trend.stdev is None
    assert points[2].trend.mean == 1.0


def test_latency_rising_is_flagged_and_falling_is_not() -> None:
    history = [100.0, 102.0, 98.0, 101.0, 99.0]
    rising = series(_latencies([*history, 150.0]), metric="latency_p50_ms")[-1].trend
    assert rising.flagged
    assert rising.family is Family.COST
    assert rising.z == pytest.approx((150 - 100) / math.sqrt(10 / 4))
    assert rising.rule.startswith("z = 31.62 >= 1.5 over 5 comparable runs")
    falling = series(_latencies([*history, 50.0]), metric="latency_p95_ms")[-1].trend
    assert not falling.flagged
    assert falling.rule.startswith("z = -31.62 < 1.5")


def test_a_flat_cost_history_flags_any_rise() -> None:
    trend = series(_latencies([100.0] * 4 + [101.0]), metric="latency_p50_ms")[-1].trend
    assert trend.flagged
    assert trend.rule == "flat history: 101 above its mean 100 over 4 comparable runs"


def test_tokens_are_none_unless_every_case_reported_them() -> None:
    run = _run(1)
    assert tokens_per_case([_case(run, "a", tokens=10), _case(run, "b", tokens=30)]) == 20
    assert tokens_per_case([_case(run, "a", tokens=10), _case(run, "b", tokens=None)]) is None
    assert tokens_per_case([]) is None
    history = History(runs=(run,), cases=(_case(run, tokens=None),))
    point = series(history, metric="tokens_per_case")[0]
    assert point.value is None
    assert point.trend.rule == "no value in this run: no case counted for it"
    assert not point.trend.flagged


def test_waived_cases_leave_the_denominator_and_gaps_stay_in_it() -> None:
    run = _run(1)
    passed = [_case(run, f"p{i}") for i in range(3)]
    assert pass_rate([*passed, _case(run, "w", outcome="waived")]) == 1.0
    assert pass_rate([*passed, _case(run, "e", outcome="errored")]) == 0.75
    assert pass_rate([*passed, _case(run, "u", outcome="unjudged")]) == 0.75
    assert pass_rate([_case(run, "w", outcome="waived")]) is None


def test_percentiles_interpolate_between_closest_ranks() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.95) == pytest.approx(3.85)
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([], 0.5) is None


def test_comparable_runs_share_the_plan_and_label_and_keep_the_window() -> None:
    runs = [
        _run(1, labels={"branch": "main"}),
        _run(2, plan="plan-b", labels={"branch": "main"}),
        _run(3, labels={"branch": "feature"}),
        _run(4, labels={"branch": "main"}),
        _run(5),
        _run(6, labels={"branch": "main"}),
    ]
    history = History(runs=tuple(runs), cases=())
    now = runs[-1]
    assert comparable_runs(history, now) == (runs[0], runs[2], runs[3], runs[4])
    assert comparable_runs(history, now, window=2) == (runs[3], runs[4])
    assert comparable_runs(history, now, compare_on="branch") == (runs[0], runs[3])
    assert comparable_runs(history, runs[4], compare_on="branch") == ()
    assert comparable_runs(history, runs[0]) == ()


def test_the_window_keeps_only_the_latest_runs() -> None:
    # an old collapse outside the window does not widen the spread
    trend = series(_rates([0.0, 1.0, 1.0, 1.0, 0.9]), rule=TrendRule(window=3))[-1].trend
    assert trend.history == (1.0, 1.0, 1.0)
    assert trend.flagged
    assert trend.rule.startswith("flat history")


def test_families_follow_the_gates() -> None:
    run = _run(1)
    history = History(
        runs=(run,),
        cases=(_case(run, "a", gate="adversarial"), _case(run, "g", gate="grounding")),
    )
    assert series(history, gate="adversarial")[0].trend.family is Family.SAFETY
    assert series(history, gate="grounding")[0].trend.family is Family.COMPETENCE
    assert series(history)[0].trend.family is Family.COMPETENCE  # mixed: see _family
    safety_only = History(runs=(run,), cases=(_case(run, "a", gate="refusal"),))
    assert series(safety_only)[0].trend.family is Family.SAFETY
    assert series(safety_only, metric="tokens_per_case")[0].trend.family is Family.COST


def test_trends_lists_every_selection_flagged_first_safety_before_competence() -> None:
    runs = [_run(number) for number in range(1, 6)]
    cases = []
    for run in runs:
        last = run is runs[-1]
        cases += [
            _case(run, "a-en", gate="adversarial", outcome="failed" if last else "passed"),
            _case(run, "a-es", gate="adversarial", language="es"),
            _case(run, "g-en", gate="grounding", suite="g", outcome="failed" if last else "passed"),
            _case(run, "g-es", gate="grounding", suite="g", language="es"),
        ]
    found = trends(History(runs=tuple(runs), cases=tuple(cases)), runs[-1].key)
    described = [(t.flagged, t.family, t.metric, t.gate, t.language, t.suite) for t in found]
    assert described == [
        (True, Family.SAFETY, "pass_rate", "adversarial", None, None),
        (True, Family.SAFETY, "pass_rate", "adversarial", "en", None),
        (True, Family.SAFETY, "pass_rate", "adversarial", None, "s"),
        (True, Family.COMPETENCE, "pass_rate", "grounding", None, None),
        (True, Family.COMPETENCE, "pass_rate", "grounding", "en", None),
        (True, Family.COMPETENCE, "pass_rate", "grounding", None, "g"),
        (False, Family.SAFETY, "pass_rate", "adversarial", "es", None),
        (False, Family.COMPETENCE, "pass_rate", "grounding", "es", None),
        (False, Family.COST, "latency_p50_ms", None, None, None),
        (False, Family.COST, "latency_p95_ms", None, None, None),
        (False, Family.COST, "tokens_per_case", None, None, None),
    ]


def test_languages_flagged_alike_are_listed_in_column_order_not_the_order_cases_ran() -> None:
    # Trap: ties (every language fell the same way) listed as the results file happened to
    # order the cases, Korean before English, where every table and parity line puts them
    # in column order.
    runs = [_run(number) for number in range(1, 6)]
    cases = [
        _case(
            run,
            f"g-{language}",
            language=language,
            outcome="failed" if run is runs[-1] else "passed",
        )
        for run in runs
        for language in ("ko", "tl", "en", "zh", "es", "vi")
    ]
    found = trends(History(runs=tuple(runs), cases=tuple(cases)), runs[-1].key)
    flagged = [t.language for t in found if t.flagged and t.language is not None]
    assert flagged == ["en", "es", "zh", "vi", "tl", "ko"]


def test_trends_orders_within_a_family_by_the_worst_z() -> None:
    runs = [_run(number) for number in range(1, 6)]
    cases = []
    for number, run in enumerate(runs):
        cases += [_case(run, f"x{i}", latency=100.0 + number % 2) for i in range(3)]
    latest = runs[-1]
    history = History(
        runs=tuple(runs),
        cases=tuple(c for c in cases if c.run_key != latest.key)
        + (
            _case(latest, "x0", latency=102.0),
            _case(latest, "x1", latency=102.0),
            _case(latest, "x2", latency=120.0),
        ),
    )
    cost = [t.metric for t in trends(history, latest.key) if t.family is Family.COST]
    assert cost[:2] == ["latency_p95_ms", "latency_p50_ms"]


def test_the_binomial_tail_matches_values_worked_out_by_hand() -> None:
    assert binomial_tail(3, 3, 0.05) == pytest.approx(0.05**3)
    assert binomial_tail(1, 3, 0.05) == pytest.approx(1 - 0.95**3)
    assert binomial_tail(2, 4, 0.1) == pytest.approx(6 * 0.01 * 0.81 + 4 * 0.001 * 0.9 + 0.0001)
    assert binomial_tail(0, 5, 0.3) == 1.0
    with pytest.raises(ValueError, match="at_least"):
        binomial_tail(4, 3, 0.5)


def _clean_then(now: CaseRecord | None, *, runs: int = 9, repeats: int = 1) -> History:
    records = [_run(number) for number in range(1, runs + 2)]
    cases = [_case(run, repeats=repeats) for run in records[:-1]]
    latest = records[-1]
    if now is not None:
        cases.append(now)
    cases.append(_case(latest, "steady"))
    return History(runs=tuple(records), cases=tuple(cases))


def test_a_consistent_case_failing_every_ask_now_is_a_significant_regression() -> None:
    latest = _run(10)
    history = _clean_then(_case(latest, outcome="failed", repeats=3))
    (found,) = case_regressions(history, latest.key)
    # 9 clean asks: q = (0 + 0.5) / (9 + 1) = 0.05; P(X >= 3 | n = 3) = 0.05 ** 3
    assert (found.passed_before, found.trials_before) == (9, 9)
    assert (found.failed_now, found.trials_now) == (3, 3)
    assert found.p_value == pytest.approx(0.000125)
    assert found.flagged
    assert found.rule == (
        "P(X >= 3) = 0.000125 < 0.05 for X ~ Binomial(3, q = 0.0500); "
        "q = (0 failures + 0.5) / (9 earlier asks + 1) over 9 comparable runs"
    )


def test_one_failed_ask_after_nine_clean_ones_is_not_significant() -> None:
    latest = _run(10)
    (found,) = case_regressions(_clean_then(_case(latest, outcome="failed")), latest.key)
    assert found.p_value == pytest.approx(0.05)
    assert not found.flagged
    assert ">= 0.05" in found.rule
    # a looser alpha flags it
    (loose,) = case_regressions(
        _clean_then(_case(latest, outcome="failed")), latest.key, rule=TrendRule(alpha=0.1)
    )
    assert loose.flagged


def test_a_flaky_pass_now_counts_its_failed_asks() -> None:
    latest = _run(4)
    history = _clean_then(_case(latest, passes=2, repeats=5), runs=3, repeats=10)
    (found,) = case_regressions(history, latest.key)
    q = 0.5 / 31
    assert found.p_value == pytest.approx(binomial_tail(3, 5, q))
    assert found.flagged


def test_cases_without_a_consistent_history_are_not_tested() -> None:
    latest = _run(4)
    shaky = [_run(number) for number in range(1, 4)]
    history = History(
        runs=(*shaky, latest),
        cases=(
            _case(shaky[0]),
            _case(shaky[1], outcome="failed"),
            _case(shaky[2]),
            _case(latest, outcome="failed"),
            _case(latest, "new", outcome="failed"),
            _case(latest, "gap", outcome="errored"),
        ),
    )
    assert case_regressions(history, latest.key) == ()


def test_case_regressions_list_safety_first_and_refuse_a_bad_alpha() -> None:
    records = [_run(number) for number in range(1, 12)]
    latest = records[-1]
    cases = [
        _case(run, case_id, gate=gate)
        for run in records[:-1]
        for case_id, gate in (("g", "grounding"), ("a", "adversarial"))
    ]
    cases += [
        _case(latest, "g", gate="grounding", outcome="failed"),
        _case(latest, "a", gate="adversarial", outcome="failed"),
    ]
    found = case_regressions(History(runs=tuple(records), cases=tuple(cases)), latest.key)
    assert [r.case_id for r in found] == ["a", "g"]
    with pytest.raises(ValueError, match="alpha"):
        case_regressions(
            History(runs=tuple(records), cases=tuple(cases)), latest.key, rule=TrendRule(alpha=1)
        )


def test_flaky_cases_rank_closest_to_half_then_most_asked() -> None:
    runs = [_run(1), _run(2), _run(3, plan="plan-b"), _run(4)]
    history = History(
        runs=tuple(runs),
        cases=(
            _case(runs[0], "steady"),
            _case(runs[1], "steady"),
            _case(runs[0], "coin", passes=2, repeats=4),
            _case(runs[0], "mostly", passes=9, repeats=10),
            _case(runs[0], "coin-more", passes=3, repeats=5),
            _case(runs[1], "coin-more", passes=2, repeats=5),
            _case(runs[0], "across", outcome="failed"),
            _case(runs[1], "across"),
            _case(runs[3], "across", outcome="failed"),
            _case(runs[2], "other-plan", passes=1, repeats=2),
            _case(runs[1], "gap", outcome="errored"),
        ),
    )
    found = flaky_cases(history)
    assert [(f.case_id, f.passes, f.trials, f.runs) for f in found] == [
        ("coin-more", 5, 10, 2),
        ("coin", 2, 4, 1),
        ("other-plan", 1, 2, 1),
        ("across", 1, 3, 3),
        ("mostly", 9, 10, 1),
    ]
    assert "other-plan" not in {f.case_id for f in flaky_cases(history, plan_digest="plan-a")}


def test_bad_arguments_are_refused() -> None:
    history = _rates([1.0])
    with pytest.raises(ValueError, match="metric"):
        series(history, metric="speed")
    with pytest.raises(ValueError, match="window"):
        series(history, rule=TrendRule(window=0))
    with pytest.raises(ValueError, match="threshold"):
        series(history, rule=TrendRule(threshold=0))
    with pytest.raises(ValueError, match="no run nowhere"):
        trends(history, "nowhere")


@given(
    st.lists(st.integers(min_value=0, max_value=1000), min_size=4, max_size=12),
    st.integers(min_value=-10_000, max_value=10_000),
)
def test_z_is_invariant_to_adding_a_constant_to_every_value(values: list[int], shift: int) -> None:
    plain = series(_latencies([float(v) for v in values]), metric="latency_p50_ms")
    shifted = series(_latencies([float(v + shift) for v in values]), metric="latency_p50_ms")
    for one, other in zip(plain, shifted, strict=True):
        assert one.trend.flagged is other.trend.flagged
        if one.trend.z is None:
            assert other.trend.z is None
        else:
            assert other.trend.z == pytest.approx(one.trend.z, abs=1e-6)


@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.sampled_from(["plan-a", "plan-b"])),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=1, max_value=5),
)
def test_a_run_is_never_compared_with_itself_or_a_later_run(
    shape: list[tuple[int, str]], window: int
) -> None:
    runs = []
    for index, (hour, plan) in enumerate(shape):
        run = _run(index, plan=plan)
        runs.append(RunRecord(**{**run.__dict__, "started_at": T0 + timedelta(hours=hour)}))
    history = History(runs=tuple(runs), cases=tuple(_case(run) for run in runs))
    for run in runs:
        earlier = comparable_runs(history, run, window=window)
        assert len(earlier) <= window
        for other in earlier:
            assert other.key != run.key
            assert (other.started_at, other.key) < (run.started_at, run.key)
            assert other.plan_digest == run.plan_digest
    for point in series(history, rule=TrendRule(window=window)):
        assert len(point.trend.history) <= window


def test_a_run_without_cases_in_the_selection_has_no_point() -> None:
    first, second = _run(1), _run(2)
    history = History(
        runs=(first, second),
        cases=(_case(first, "es", language="es"), _case(second, "en")),
    )
    assert [point.run for point in series(history, language="es")] == [first]
    assert [point.run for point in series(history)] == [first, second]


def test_a_flat_history_flag_leads_its_family_before_a_z_flag() -> None:
    runs = [_run(number) for number in range(1, 6)]
    cases = []
    for number, run in enumerate(runs):
        last = run is runs[-1]
        cases += [_case(run, "flat", suite="a", outcome="failed" if last else "passed")]
        noisy = "failed" if (last or number == 1) else "passed"
        cases += [
            _case(run, f"n{i}", suite="b", outcome=noisy if i == 0 else "passed") for i in range(2)
        ]
    found = trends(History(runs=tuple(runs), cases=tuple(cases)), runs[-1].key)
    flagged = [(t.suite, t.z is None) for t in found if t.flagged and t.suite]
    assert flagged == [("a", True), ("b", False)]


# ---------------------------------------------------------------- flaky or regressed: one rule

_OUTCOME = {"P": "passed", "F": "failed", "E": "errored", "N": "not_run", "U": "unjudged"}


def _course(shape: str, *, repeats: int = 1, plan: str = "plan-a") -> History:
    """One case over runs: a letter per run (P passed, F failed, E errored, N not run, U
    unjudged), or `p/r` for an ask tally, such as `2/3`, as a comma-separated list."""
    runs, cases = [], []
    for number, shown in enumerate(shape.split(","), start=1):
        run = _run(number, plan=plan)
        runs.append(run)
        if "/" in shown:
            passes, asks = map(int, shown.split("/"))
            outcome = "passed" if passes == asks else "failed"
            cases.append(_case(run, "c", outcome=outcome, passes=passes, repeats=asks))
        else:
            cases.append(_case(run, "c", outcome=_OUTCOME[shown], repeats=repeats))
    return History(runs=tuple(runs), cases=tuple(cases))


def _kinds(history: History) -> tuple[bool, bool]:
    """Whether the case is listed as flaky, and whether as regressed."""
    return bool(flaky_cases(history)), bool(regressed_cases(history))


def test_a_consistent_regression_is_a_regression_not_flaky() -> None:
    # Trap: counting a case that passed in earlier runs and fails in every recent one as
    # "flaky" because its outcomes over all runs are mixed (the dashboard listed exactly that).
    history = _course("P,P,P,P,F,F", repeats=3)
    assert flaky_cases(history) == ()
    [found] = regressed_cases(history)
    assert (found.case_id, found.last_passed, found.failing_since) == ("c", 4, 5)
    assert (found.failing_runs, found.runs) == (2, 6)


def test_outcomes_that_alternate_across_runs_are_flaky() -> None:
    # Trap: calling only mixed asks within one run flaky, so a case that passes, fails and
    # passes again across runs (never twice in one run) is listed as a regression or not at all.
    assert _kinds(_course("P,F,P")) == (True, False)
    assert _kinds(_course("P,P,F,P,F,F")) == (True, False)
    assert _kinds(_course("F,P,F")) == (True, False)


def test_asks_that_alternate_within_one_run_are_flaky() -> None:
    # Trap: judging a run by its case outcome only, so 2 of 3 asks passing reads as a clean
    # failure in a P,P,F course and the case is called a steady regression.
    assert _kinds(_course("3/3,3/3,2/3")) == (True, False)
    assert _kinds(_course("1/2")) == (True, False)


def test_runs_without_a_judged_answer_neither_break_nor_make_a_course() -> None:
    # Trap: reading an errored, not-run or unjudged case (a withheld run) as a failure, so a
    # steady case looks flaky, or as a break, so a regression goes unlisted.
    assert _kinds(_course("P,E,P,N,P,U")) == (False, False)
    assert _kinds(_course("P,P,E,F,N,F")) == (False, True)
    [found] = regressed_cases(_course("P,P,E,F,N,F"))
    assert (found.last_passed, found.failing_since, found.failing_runs) == (2, 4, 2)


def test_a_recovery_and_a_steady_case_are_neither_flaky_nor_regressed() -> None:
    # Trap: listing any change as a regression, or a case failing from its first run (never
    # passed, so it did not regress) as one.
    assert _kinds(_course("F,F,P,P")) == (False, False)
    assert _kinds(_course("F,F,F")) == (False, False)
    assert _kinds(_course("P,P,P")) == (False, False)


def test_only_comparable_runs_make_a_course() -> None:
    # Trap: splicing runs of different plans (different cases asked) into one course, so a
    # case edited between plans looks like it alternated.
    first, second, third = _run(1), _run(2, plan="plan-b"), _run(3)
    history = History(
        runs=(first, second, third),
        cases=(
            _case(first, "c"),
            _case(second, "c", outcome="failed"),
            _case(third, "c"),
        ),
    )
    assert _kinds(history) == (False, False)
    assert regressed_cases(history, plan_digest="plan-b") == ()


def test_regressions_list_safety_first_then_the_newest() -> None:
    runs = [_run(number) for number in range(1, 5)]
    shapes = {"old": "PFFF", "new": "PPPF", "safe": "PPFF"}
    cases = [
        _case(run, case_id, gate="refusal" if case_id == "safe" else "grounding",
              outcome=_OUTCOME[shape[index]])
        for case_id, shape in shapes.items()
        for index, run in enumerate(runs)
    ]  # fmt: skip
    found = regressed_cases(History(runs=tuple(runs), cases=tuple(cases)))
    assert [f.case_id for f in found] == ["safe", "new", "old"]


_JUDGED = st.tuples(st.integers(1, 4), st.booleans())
"""One run of a case whose asks all agreed: (asks, passed)."""


@given(st.lists(_JUDGED, min_size=1, max_size=8), st.lists(_JUDGED, min_size=0, max_size=8))
def test_a_monotone_change_is_never_flaky(
    before: list[tuple[int, bool]], after: list[tuple[int, bool]]
) -> None:
    # Trap: any rule that counts a single change of outcome (all asks agreeing in each run) as
    # flakiness; a monotone course is a regression (passing then failing) or a recovery.
    first = before[0][1]
    course = [(asks, first) for asks, _ in before] + [(asks, not first) for asks, _ in after]
    history = _course(",".join(f"{asks if ok else 0}/{asks}" for asks, ok in course))
    assert flaky_cases(history) == ()
    assert bool(regressed_cases(history)) is (first and bool(after))


@given(
    st.lists(_JUDGED, min_size=0, max_size=4),
    st.lists(_JUDGED, min_size=0, max_size=4),
    st.booleans(),
    st.integers(1, 4),
)
def test_an_alternation_is_always_flaky_and_never_a_regression(
    before: list[tuple[int, bool]], after: list[tuple[int, bool]], first: bool, asks: int
) -> None:
    # Trap: a rule that looks only at the first and last runs (or the pass share), so an
    # outcome that went one way and came back reads as steady or as a regression.
    turn = [(asks, first), (asks, not first), (asks, first)]
    course = before + turn + after
    history = _course(",".join(f"{n if ok else 0}/{n}" for n, ok in course))
    assert len(flaky_cases(history)) == 1
    assert regressed_cases(history) == ()


@given(st.integers(2, 6), st.data())
def test_mixed_asks_in_any_run_are_always_flaky(asks: int, data: st.DataObject) -> None:
    passes = data.draw(st.integers(1, asks - 1))
    steady = data.draw(st.lists(st.booleans(), max_size=5))
    at = data.draw(st.integers(0, len(steady)))
    course = [f"{asks if ok else 0}/{asks}" for ok in steady]
    course.insert(at, f"{passes}/{asks}")
    history = _course(",".join(course))
    assert len(flaky_cases(history)) == 1
    assert regressed_cases(history) == ()


# ---------------------------------------------------------------- a run without a verdict


def _verdictless(run: RunRecord, verdict: str) -> RunRecord:
    return dataclasses.replace(run, verdict=verdict)


@pytest.mark.parametrize("verdict", ["withheld", "unscoreable"])
def test_a_run_without_a_verdict_enters_no_statistic_as_a_pass_rate(verdict: str) -> None:
    # Trap: leaving a withheld or unscoreable run's passed share in the comparable history of
    # the runs after it (and judging it as a run of its own), so 1 of 20 cases "passed" in a
    # run that mostly got no answer drags the mean down and hides a real drop, or is flagged.
    runs = [_run(number) for number in range(1, 6)]
    runs[3] = _verdictless(runs[3], verdict)
    cases = [
        _case(run, f"c{i}", outcome="passed" if run is not runs[3] or i == 0 else "failed")
        for run in runs
        for i in range(20)
    ]
    history = History(runs=tuple(runs), cases=tuple(cases))
    points = {point.run.number: point for point in series(history, gate="grounding")}
    assert points[4].value is None
    assert not points[4].trend.flagged
    assert verdict in points[4].trend.rule
    assert points[5].trend.history == (1.0, 1.0, 1.0)
    [latest] = [t for t in trends(history, runs[4].key) if t.metric == "pass_rate" and t.suite]
    assert latest.history == (1.0, 1.0, 1.0)
    assert all(t.current is None for t in trends(history, runs[3].key) if t.metric == "pass_rate")
    # Its failures are not regressions, and its asks are no case's history.
    assert case_regressions(history, runs[3].key) == ()
    failing = dataclasses.replace(cases[-1], outcome="failed", passes=0)
    again = History(runs=tuple(runs), cases=(*cases[:-1], failing))
    [found] = case_regressions(again, runs[4].key)
    assert (found.passed_before, found.trials_before) == (3, 3)


@pytest.mark.parametrize("verdict", ["withheld", "unscoreable"])
def test_a_run_without_a_verdict_neither_breaks_nor_makes_a_cases_course(verdict: str) -> None:
    # Trap: reading the cases of a run that reached no verdict as judged runs of a case's
    # course, so a steady case looks flaky (P,P,F,P) or a steady failure looks like it passed
    # once and regressed (F,P,F,F), when the odd run is the one that reached no verdict.
    for shape, kinds in (("P,P,F,P", (False, False)), ("F,P,F,F", (False, False))):
        history = _course(shape)
        odd = history.runs[2 if shape.startswith("P") else 1]
        runs = tuple(_verdictless(run, verdict) if run is odd else run for run in history.runs)
        assert _kinds(History(runs=runs, cases=history.cases)) == kinds, shape
