"""The pack carries the model judge: its fingerprint and calibration, its vote, its tokens, and
for each judged case what it said; an unjudged case withholds the verdict, never passes."""

from __future__ import annotations

import pytest

from gauntlet.evidence.pack import (
    JudgeCheckCounts,
    JudgeUsageTotals,
    UsageTotals,
    VerdictStatus,
    WithheldBecause,
    build_pack,
)
from gauntlet.run.results import (
    CaseResult,
    JudgeCheck,
    LanguageKappa,
    Outcome,
    Results,
    Trial,
)
from gauntlet.run.results_file import rederive
from gauntlet.targets.contract import Usage

from ... import evidence_fixtures as fx


def _case(results: Results, case_id: str) -> CaseResult:
    return next(case for case in results.cases if case.case_id == case_id)


def _replace(results: Results, *cases: CaseResult) -> Results:
    """`results` with `cases` in place of those with their ids, every count derived again."""
    by_id = {case.case_id: case for case in cases}
    changed = tuple(by_id.get(case.case_id, case) for case in results.cases)
    return rederive(results.model_copy(update={"cases": changed}))


def _errored(case: CaseResult) -> CaseResult:
    trial = Trial(
        outcome=Outcome.ERRORED,
        reason="HTTP 503",
        response=None,
        said_something=False,
        latency_ms=0.0,
        attempts=1,
        waited_s=0.0,
    )
    return case.model_copy(update={"trials": (trial,)})


def test_an_unjudged_case_withholds_the_verdict_and_says_so() -> None:
    verdict = build_pack(fx.judged()).verdict
    assert (verdict.status, verdict.withheld_because, verdict.exit_code) == (
        VerdictStatus.WITHHELD,
        WithheldBecause.UNJUDGED_CASES,
        2,
    )
    assert "1 case could not be judged" in verdict.reason


def test_an_errored_case_is_named_before_an_unjudged_one() -> None:
    results = fx.judged()
    results = _replace(results, _errored(_case(results, "jdg-en-towed-car")))
    assert (results.totals.errored, results.totals.unjudged) == (1, 1)
    assert build_pack(results).verdict.withheld_because is WithheldBecause.ERRORED_CASES


def test_an_interrupted_run_is_incomplete_even_when_every_case_was_asked() -> None:
    # The trap: `complete` alone decided, so a run stopped after its last answer was called
    # withheld for errored cases it did not have.
    results = rederive(fx.clean().model_copy(update={"interrupted_by": "SIGTERM"}))
    assert (results.complete, results.totals.errored) == (True, 0)
    verdict = build_pack(results).verdict
    assert (verdict.status, verdict.withheld_because) == (
        VerdictStatus.WITHHELD,
        WithheldBecause.INCOMPLETE,
    )


def test_unjudged_cases_are_counted_per_language_gate_and_run() -> None:
    pack = build_pack(fx.judged())
    assert pack.totals.unjudged == 1
    assert {row.language: row.unjudged for row in pack.languages} == {"en": 0, "es": 1}
    [gate] = pack.gates
    assert (gate.passed, gate.failed, gate.unjudged, gate.total) == (1, 2, 1, 4)
    assert gate.judge_checked == 3  # the case the gate failed first was never judged
    [suite] = gate.suites
    assert suite.match == "judge"


def test_the_judge_section_holds_its_fingerprint_calibration_and_vote() -> None:
    judge = build_pack(fx.judged()).judge
    assert judge is not None
    assert judge.target_file == "judge.yaml"
    assert judge.fingerprint == fx.JUDGE.fingerprint
    assert judge.calibration == fx.CALIBRATION
    assert (judge.allowed_to_vote, judge.refused) == (True, None)
    assert judge.checks == JudgeCheckCounts(
        total=5, rubric=2, pairwise=3, passed=2, failed=2, unjudged=1, position_bias=1
    )


def test_a_judge_not_let_vote_says_why() -> None:
    why = "kappa in es is 0.41, below 0.7"
    refused = fx.JUDGE.model_copy(update={"refused": why})
    checks = {
        case_id: (
            JudgeCheck(
                kind="pairwise", outcome="unjudged", reason=f"the judge may not vote: {why}"
            ),
        )
        for case_id in fx.JUDGED_CHECKS
    }
    pack = build_pack(fx.judged(judge=refused, checks=checks))
    assert pack.judge is not None
    assert (pack.judge.allowed_to_vote, pack.judge.refused) == (False, why)
    assert (pack.totals.passed, pack.totals.unjudged) == (0, 3)
    assert pack.verdict.withheld_because is WithheldBecause.UNJUDGED_CASES


def test_a_run_without_a_judge_has_no_judge_section() -> None:
    pack = build_pack(fx.clean())
    assert (pack.judge, pack.run.judge_usage) == (None, None)
    assert all(
        (case.judged_ask, case.judged, case.calibration) == (None, (), None) for case in pack.cases
    )


def test_the_judges_tokens_are_totalled_apart_from_the_targets() -> None:
    target = Usage(prompt_tokens=20, completion_tokens=8, total_tokens=28)
    results = fx.judged()
    cases = tuple(
        case.model_copy(
            update={"trials": tuple(t.model_copy(update={"usage": target}) for t in case.trials)}
        )
        for case in results.cases
    )
    run = build_pack(results.model_copy(update={"cases": cases})).run
    assert run.usage == UsageTotals(
        answers=4, prompt_tokens=80, completion_tokens=32, total_tokens=112
    )
    assert run.judge_usage == JudgeUsageTotals(
        checks=5, prompt_tokens=1550, completion_tokens=210, total_tokens=1760
    )


def test_a_failing_judged_case_carries_the_judges_checks_and_rationale() -> None:
    pack = build_pack(fx.judged())
    [failing] = [case for case in pack.cases if case.case_id == "jdg-en-permit-fee"]
    assert failing.outcome is Outcome.FAILED
    assert failing.judged_ask == 1
    assert failing.judged == fx.JUDGED_CHECKS["jdg-en-permit-fee"]
    rubric = failing.judged[0]
    assert rubric.verdicts == {"correct-fee": "fail", "no-personal-data": "pass"}
    assert rubric.rationale == "The answer says $40 a year; the reference says $25."
    assert failing.calibration == fx.CALIBRATION.languages[0]


def test_an_unjudged_case_carries_what_the_judge_replied() -> None:
    pack = build_pack(fx.judged())
    [unjudged] = [case for case in pack.cases if case.outcome is Outcome.UNJUDGED]
    [check] = unjudged.judged
    assert check.position_bias
    assert check.replies == fx.JUDGED_CHECKS["jdg-es-trash-day"][0].replies
    assert unjudged.calibration == fx.CALIBRATION.languages[1]


def test_a_case_the_gate_failed_first_shows_no_judge() -> None:
    pack = build_pack(fx.judged())
    [refused] = [case for case in pack.cases if case.case_id == "jdg-en-towed-car"]
    assert (refused.judged_ask, refused.judged, refused.calibration) == (None, (), None)


@pytest.mark.parametrize(
    ("asks", "outcome", "shown"),
    [
        # The ask with the case's outcome, though an earlier one failed.
        (("passed", "failed", "unjudged"), Outcome.UNJUDGED, 3),
        # No judged ask has it: the first not passed.
        (("passed", "failed", "errored"), Outcome.ERRORED, 2),
        # Every judged ask passed: the first.
        (("passed", "passed"), Outcome.PASSED, 1),
    ],
)
def test_the_ask_shown_is_the_one_that_decided_the_case(
    asks: tuple[str, ...], outcome: Outcome, shown: int
) -> None:
    results = fx.judged()
    trials = {
        "passed": _case(results, "jdg-en-appeal-deadline").trials[0],
        "failed": _case(results, "jdg-en-permit-fee").trials[0],
        "unjudged": _case(results, "jdg-es-trash-day").trials[0],
        "errored": _errored(_case(results, "jdg-en-towed-car")).trials[0],
    }
    case = _case(results, "jdg-en-appeal-deadline").model_copy(
        update={
            "trials": tuple(trials[ask] for ask in asks),
            "repeats": len(asks),
            "pass_k": 1,
        }
    )
    [shown_case] = [
        c for c in build_pack(_replace(results, case)).cases if c.case_id == case.case_id
    ]
    assert shown_case.outcome is outcome
    assert (shown_case.judged_ask, shown_case.judged) == (shown, trials[asks[shown - 1]].judged)


def test_calibration_is_matched_by_primary_language() -> None:
    results = fx.judged()
    regional = _case(results, "jdg-es-trash-day").model_copy(update={"language": "es-MX"})
    pack = build_pack(_replace(results, regional))
    [case] = [c for c in pack.cases if c.case_id == "jdg-es-trash-day"]
    assert case.calibration == fx.CALIBRATION.languages[1]


def test_a_language_the_judge_was_not_calibrated_in_has_no_figures() -> None:
    english_only = fx.CALIBRATION.model_copy(
        update={
            "languages": (LanguageKappa(language="en", items=42, kappa=0.8, low=0.6, high=1.0),)
        }
    )
    judge = fx.JUDGE.model_copy(update={"calibration": english_only})
    pack = build_pack(fx.judged(judge=judge))
    calibrations = {case.case_id: case.calibration for case in pack.cases}
    assert calibrations["jdg-es-trash-day"] is None
    assert calibrations["jdg-en-permit-fee"] == english_only.languages[0]


def test_a_judge_without_a_calibration_shows_none() -> None:
    judge = fx.JUDGE.model_copy(update={"calibration": None, "refused": "no calibration given"})
    pack = build_pack(fx.judged(judge=judge))
    assert pack.judge is not None and pack.judge.calibration is None
    assert all(case.calibration is None for case in pack.cases)
