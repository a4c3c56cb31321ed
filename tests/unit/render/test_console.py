"""The terminal summary counts unjudged cases, lists them, and names the judge and its vote."""

from __future__ import annotations

import pytest

from gauntlet.render.console import summary_lines
from gauntlet.run.results import CalibrationSummary, LanguageKappa, Results

from ... import evidence_fixtures as fx


def _plain(results: Results) -> list[str]:
    return [line.plain for line in summary_lines(results)]


def test_a_gate_with_unjudged_cases_says_so() -> None:
    lines = _plain(fx.judged())
    [golden] = [line for line in lines if line.startswith("golden ")]
    assert golden.endswith("1/4    1          1 UNJUDGED")


def test_errored_and_unjudged_cases_are_both_counted() -> None:
    results = fx.judged()
    [gate] = results.gates
    both = results.model_copy(update={"gates": (gate.model_copy(update={"errored": 2}),)})
    [golden] = [line for line in _plain(both) if line.startswith("golden ")]
    assert golden.endswith("2 ERRORED, 1 UNJUDGED")


def test_unjudged_cases_are_listed_with_their_reason() -> None:
    lines = _plain(fx.judged())
    start = lines.index("unjudged cases (1)")
    assert lines[start + 1 : start + 3] == [
        "  golden  jdg-es-trash-day [es]  tests/golden/judged/suite.yaml:36",
        "    judge: the two orders disagree: the judge preferred a position, not an answer",
    ]


def test_a_reason_every_listed_case_shares_is_said_once() -> None:
    results = fx.judged()
    case = next(case for case in results.cases if case.outcome.value == "unjudged")
    twins = (case, case.model_copy(update={"case_id": "jdg-es-trash-day-2", "line": 40}))
    lines = _plain(results.model_copy(update={"cases": (*results.cases, twins[1])}))
    start = lines.index("unjudged cases (2)")
    assert lines[start + 1 : start + 4] == [
        "  each: judge: the two orders disagree: the judge preferred a position, not an answer",
        "  golden  jdg-es-trash-day [es]  tests/golden/judged/suite.yaml:36",
        "  golden  jdg-es-trash-day-2 [es]  tests/golden/judged/suite.yaml:40",
    ]


def test_the_judge_is_named_with_its_vote_and_calibration() -> None:
    lines = _plain(fx.judged())
    judge = lines.index("judge: riverbend-judge-1 at judge.example.test:443: allowed to vote")
    assert lines[judge + 1] == "  kappa en 0.82 [0.65, 0.99], es 0.79 [0.61, 0.97]"
    assert lines[judge + 3].startswith("verdict: WITHHELD (1 case could not be judged")


def test_a_judge_not_let_vote_says_why() -> None:
    fingerprint = fx.JUDGE.fingerprint.model_copy(update={"model": None, "kind": "http"})
    undefined = LanguageKappa(language="es", items=3, kappa=None, low=None, high=None)
    calibration = fx.CALIBRATION.model_copy(update={"languages": (undefined,)})
    judge = fx.JUDGE.model_copy(
        update={
            "refused": "kappa in es is undefined",
            "fingerprint": fingerprint,
            "calibration": calibration,
        }
    )
    lines = _plain(fx.judged(judge=judge))
    at = lines.index(
        "judge: http at judge.example.test:443: not allowed to vote: kappa in es is undefined"
    )
    assert lines[at + 1] == "  kappa es n/a [n/a, n/a]"


@pytest.mark.parametrize("calibration", [None, fx.CALIBRATION.model_copy(update={"languages": ()})])
def test_a_judge_without_calibration_shows_no_figures(
    calibration: CalibrationSummary | None,
) -> None:
    judge = fx.JUDGE.model_copy(
        update={"calibration": calibration, "refused": "no calibration record"}
    )
    lines = _plain(fx.judged(judge=judge))
    at = lines.index(
        "judge: riverbend-judge-1 at judge.example.test:443: not allowed to vote: "
        "no calibration record"
    )
    assert lines[at + 1] == ""


def test_a_run_without_a_judge_names_none() -> None:
    lines = _plain(fx.clean())
    assert not [line for line in lines if line.startswith(("judge:", "unjudged"))]
