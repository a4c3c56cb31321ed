"""Drift with a judge: a case that passed and is now unjudged has lost its pass, and says so."""

from __future__ import annotations

from gauntlet.evidence.drift import Direction, compare
from gauntlet.evidence.pack import build_pack
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import JudgeCheck, Outcome, Results

from ... import evidence_fixtures as fx


def _all_judged_pass() -> Results:
    """The judged run, but the judge passed the Spanish answer in both orders."""
    passed = JudgeCheck(kind="pairwise", outcome="passed", reason="", answer_first="A")
    return fx.judged(checks={**fx.JUDGED_CHECKS, "jdg-es-trash-day": (passed,)})


def test_a_case_passed_then_unjudged_is_a_regression_named_as_unjudged() -> None:
    drift = compare(fx.judged(), _all_judged_pass())
    [change] = drift.newly_failing
    assert (change.case_id, change.baseline, change.current) == (
        "jdg-es-trash-day",
        Outcome.PASSED,
        Outcome.UNJUDGED,
    )
    assert (drift.competence, drift.safety) == (Direction.REGRESSED, Direction.UNCHANGED)
    report = render_markdown(build_pack(fx.judged(), baseline=_all_judged_pass()))
    assert "- es: `jdg-es-trash-day` (golden, now unjudged)" in report


def test_a_case_unjudged_then_passed_is_an_improvement_named_as_such() -> None:
    drift = compare(_all_judged_pass(), fx.judged())
    [change] = drift.newly_passing
    assert (change.baseline, change.current) == (Outcome.UNJUDGED, Outcome.PASSED)
    assert drift.competence is Direction.IMPROVED
    report = render_markdown(build_pack(_all_judged_pass(), baseline=fx.judged()))
    assert "- es: `jdg-es-trash-day` (golden, was unjudged)" in report


def test_a_case_not_asked_is_named_as_such() -> None:
    report = render_markdown(build_pack(fx.incomplete(), baseline=fx.clean()))
    assert "(golden, now not asked)" in report
    assert "now not_run" not in report


def test_an_answer_changed_while_still_unjudged_is_not_called_a_change_of_outcome() -> None:
    baseline = fx.judged()
    case = next(c for c in baseline.cases if c.case_id == "jdg-es-trash-day")
    [trial] = case.trials
    assert trial.response is not None
    reworded = trial.response.model_copy(update={"text": trial.response.text + " Gracias."})
    moved = case.model_copy(update={"trials": (trial.model_copy(update={"response": reworded}),)})
    current = baseline.model_copy(
        update={"cases": tuple(moved if c is case else c for c in baseline.cases)}
    )
    drift = compare(current, baseline)
    assert [c.case_id for c in drift.answer_changed] == ["jdg-es-trash-day"]
    report = render_markdown(build_pack(current, baseline=baseline))
    assert "- es: `jdg-es-trash-day` (golden)" in report
