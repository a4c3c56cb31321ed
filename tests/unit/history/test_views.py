"""What the history commands print, as pure functions of constructed histories."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.errors import UsageError
from gauntlet.history.records import CaseRecord, History, RunRecord
from gauntlet.history.views import counts, list_lines, pick_run, trend_lines

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _run(number: int, *, plan: str = "sha256:" + "a" * 64, verdict: str = "pass") -> RunRecord:
    return RunRecord(
        key=f"sha256:{number:064x}",
        number=number,
        started_at=START + timedelta(minutes=number),
        finished_at=START + timedelta(minutes=number, seconds=5),
        gauntlet_version="0.1.0",
        target_kind="toy",
        target_name="riverbend-toy",
        target_fingerprint="sha256:" + "f" * 64,
        plan_digest=plan,
        suites=(("s", 1),),
        results_digest="sha256:" + "d" * 64,
        verdict=verdict,
    )


def _case(run: RunRecord, case_id: str, outcome: str, *, passes: int = 1) -> CaseRecord:
    return CaseRecord(
        run_key=run.key,
        suite="s",
        gate="golden",
        case_id=case_id,
        language="es" if case_id.endswith("es") else "en",
        outcome=outcome,
        passes=passes,
        repeats=3,
        latency_ms=None,
        tokens=None,
    )


def test_counts_leave_waived_cases_out_of_the_pass_rate_and_count_the_rest() -> None:
    run = _run(1)
    tally = counts(
        [
            _case(run, "a-en", "passed", passes=3),
            _case(run, "b-en", "failed", passes=2),
            _case(run, "c-en", "waived", passes=0),
            _case(run, "d-en", "not_run", passes=0),
            _case(run, "e-en", "unjudged", passes=0),
            _case(run, "f-en", "errored", passes=0),
        ]
    )
    assert (tally.cases, tally.passed, tally.failed, tally.errored, tally.waived) == (6, 1, 1, 1, 1)
    assert tally.other == 2
    assert tally.pass_rate == 1 / 5
    assert (tally.asks_passed, tally.asks) == (5, 18)
    assert counts([_case(run, "c-en", "waived", passes=0)]).pass_rate is None


def test_an_empty_history_lists_no_runs_and_cannot_be_picked_or_trended() -> None:
    empty = History(runs=(), cases=())
    assert list_lines(empty) == ["the history holds no runs yet"]
    with pytest.raises(UsageError, match="no runs yet"):
        pick_run(empty, "latest")
    with pytest.raises(UsageError, match="no runs yet"):
        trend_lines(empty)


def test_a_run_without_labels_lists_a_dash() -> None:
    run = _run(1)
    (_, line) = list_lines(History(runs=(run,), cases=(_case(run, "a-en", "passed"),)))
    assert line.endswith("1/1  -")


def test_the_trend_keeps_runs_of_the_newest_plan_and_says_how_many_it_left_out() -> None:
    old = _run(1, plan="sha256:" + "b" * 64)
    second, third = _run(2), _run(3, verdict="fail")
    history = History(
        runs=(old, second, third),
        cases=(
            _case(old, "a-en", "failed"),
            _case(second, "a-en", "passed", passes=3),
            _case(second, "a-es", "passed", passes=3),
            _case(third, "a-en", "failed", passes=1),
            _case(third, "a-es", "passed", passes=2),
        ),
    )
    head, _, *rows = trend_lines(history, language="es", suite="s")
    assert head == (
        "pass rate of language es, suite s over 2 comparable runs (plan sha256:aaaaaaaaaaaa...); "
        "1 run of other plans left out"
    )
    assert [row.split()[0] for row in rows] == ["2", "3"]
    assert [row.split()[7] for row in rows] == ["3/3", "2/3"]
    everything = trend_lines(history)
    assert everything[0].startswith("pass rate of every case over 2 comparable runs")
    assert [row.split()[6] for row in everything[2:]] == ["100.0%", "50.0%"]


def test_a_comparable_run_without_cases_in_the_slice_shows_no_rate() -> None:
    second, third = _run(2), _run(3)
    history = History(
        runs=(second, third),
        cases=(_case(second, "a-es", "passed"), _case(third, "a-en", "passed")),
    )
    _, _, first, last = trend_lines(history, language="es")
    assert first.split()[4:7] == ["1", "1", "100.0%"]
    assert last.split()[4:7] == ["0", "0", "-"]
    single = History(runs=(replace(third, number=1),), cases=(_case(third, "a-en", "passed"),))
    assert "over 1 comparable run (plan" in trend_lines(single)[0]


@pytest.mark.parametrize("verdict", ["withheld", "unscoreable"])
def test_a_run_without_a_verdict_has_no_pass_rate_in_the_trend(verdict: str) -> None:
    # Trap: printing the passed share of a run that reached no verdict (most of its cases got
    # no answer) as its pass rate, and judging that share as a drop against its history.
    runs = [_run(n) for n in (1, 2, 3)] + [_run(4, verdict=verdict)]
    cases = [_case(run, "a-en", "passed", passes=3) for run in runs[:3]]
    cases += [_case(runs[3], "a-en", "passed", passes=3)]
    cases += [_case(runs[3], f"{n}-en", "errored", passes=0) for n in "bcdefghij"]
    head, _, *rows = trend_lines(History(runs=tuple(runs), cases=tuple(cases)))
    last = rows[-1].split()
    assert last[3] == verdict.upper()
    assert last[4:7] == ["10", "1", verdict]
    assert "FLAGGED" not in rows[-1] and "%" not in rows[-1]
    assert last[-5:] == ["no", "verdict:", "not", "judged", "-"]
    assert all("%" in row for row in rows[:-1])  # the runs with a verdict keep their rates
