"""The two verdict vocabularies, mapped in one place: the table in `Verdict`'s docstring."""

from __future__ import annotations

import pytest

from gauntlet.evidence.pack import VerdictStatus
from gauntlet.run import results, tally
from gauntlet.run.results import (
    VERDICT_STATUS,
    JudgeLabel,
    Verdict,
    check_outcome,
    exit_code_for,
)


@pytest.mark.parametrize(
    ("labels", "outcome"),
    [
        (["pass", "pass"], "passed"),
        (["pass", "fail"], "failed"),
        (["fail"], "failed"),
        ([], "passed"),
    ],
)
def test_a_rubric_check_fails_when_any_criterion_is_labelled_fail(
    labels: list[JudgeLabel], outcome: str
) -> None:
    assert check_outcome(labels) == outcome


def test_every_verdict_has_a_status_in_the_pack_and_only_pass_and_fail_are_reached() -> None:
    assert set(VERDICT_STATUS) == set(Verdict)
    assert {VerdictStatus(status) for status in VERDICT_STATUS.values()} == set(VerdictStatus)
    assert VERDICT_STATUS[Verdict.UNSCOREABLE] == VERDICT_STATUS[Verdict.WITHHELD] == "withheld"
    assert VERDICT_STATUS[Verdict.PASS] == "pass"
    assert VERDICT_STATUS[Verdict.FAIL] == "fail"


def test_every_verdict_has_an_exit_code() -> None:
    assert sorted(int(exit_code_for(verdict)) for verdict in Verdict) == [0, 1, 2, 4]


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (results, "check_outcome"),
        (results, "VERDICT_STATUS"),
        (results, "exit_code_for"),
        (results, "Totals"),
        (results, "JudgeLabel"),
        (results, "CheckOutcome"),
        (tally, "judged_outcome"),
        (tally, "decide_case"),
        (tally, "decide_verdict"),
    ],
)
def test_the_table_names_the_code_that_maps_each_word(module: object, name: str) -> None:
    """The table in `Verdict`'s docstring is the one place; each step it names is code."""
    assert f"`{name}`" in (Verdict.__doc__ or "") or f".{name}`" in (Verdict.__doc__ or "")
    assert hasattr(module, name)
