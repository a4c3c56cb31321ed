"""Counting outcomes: one constructor, `Totals.of`, and one grouping, `Totals.by`."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.run.results import LanguageCount, Outcome, Totals
from gauntlet.targets.toy import ToyDefect

from ...evidence_fixtures import with_defect


@dataclass(frozen=True)
class _Case:
    outcome: str
    language: str
    gate: str = "grounding"


def test_each_outcome_is_counted_under_its_own_name() -> None:
    outcomes = [
        Outcome.PASSED,
        Outcome.PASSED,
        Outcome.FAILED,
        Outcome.ERRORED,
        Outcome.NOT_RUN,
        Outcome.UNJUDGED,
        Outcome.UNJUDGED,
        Outcome.WAIVED,
    ]
    assert Totals.of(outcomes) == Totals(
        total=8, passed=2, failed=1, errored=1, not_run=1, unjudged=2, waived=1
    )


def test_an_outcome_stored_as_text_counts_as_the_outcome_it_names() -> None:
    """The history stores outcomes as text: they must count as the run counted them."""
    as_text = ["passed", "failed", "waived", "errored", "not_run", "unjudged", "passed"]
    assert Totals.of(as_text) == Totals.of(Outcome(value) for value in as_text)


def test_nothing_counted_is_all_zeros() -> None:
    assert Totals.of([]) == Totals(total=0, passed=0, failed=0, errored=0, not_run=0)


@given(st.lists(st.sampled_from(list(Outcome))))
def test_the_counts_add_up_to_the_total(outcomes: list[Outcome]) -> None:
    totals = Totals.of(outcomes)
    assert totals.total == len(outcomes)
    parts = (totals.passed, totals.failed, totals.errored, totals.not_run, totals.unjudged)
    assert sum(parts) + totals.waived == totals.total


def test_groups_are_counted_apart_and_given_in_sorted_order_of_their_keys() -> None:
    cases = [
        _Case("passed", "es", "refusal"),
        _Case("failed", "en", "refusal"),
        _Case("passed", "en", "grounding"),
        _Case("waived", "en", "refusal"),
    ]
    grouped = Totals.by(cases, lambda case: (case.gate, case.language))
    assert list(grouped) == [("grounding", "en"), ("refusal", "en"), ("refusal", "es")]
    assert grouped["refusal", "en"] == Totals.of(["failed", "waived"])
    assert grouped["refusal", "es"].passed == 1


def test_per_language_counts_each_language_of_the_cases() -> None:
    cases = [_Case("passed", "es"), _Case("failed", "en"), _Case("passed", "en")]
    assert Totals.per_language(cases) == {
        "en": Totals.of(["failed", "passed"]),
        "es": Totals.of(["passed"]),
    }
    assert LanguageCount.each(cases) == (
        LanguageCount(language="en", total=2, passed=1),
        LanguageCount(language="es", total=1, passed=1),
    )


def test_a_run_counts_its_totals_gates_and_languages_as_totals_of_does() -> None:
    results = with_defect(ToyDefect.DROP_CITATIONS)
    assert results.totals == Totals.of(case.outcome for case in results.cases)
    for gate in results.gates:
        mine = [case for case in results.cases if case.gate is gate.gate]
        assert gate.languages == LanguageCount.each(mine)
        assert gate.failed == Totals.of(case.outcome for case in mine).failed
