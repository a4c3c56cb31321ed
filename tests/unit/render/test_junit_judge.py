"""JUnit: a case the judge left unjudged is an error (never a pass, never a failure), and a
judged case's element says what the judge said, beside its calibration."""

from __future__ import annotations

import xml.etree.ElementTree as ET  # parsing our own output

from junitparser import JUnitXml

from gauntlet.evidence.pack import build_pack
from gauntlet.render.junit import render_junit
from gauntlet.run.results import LanguageKappa, Outcome

from ... import evidence_fixtures as fx


def _testcases(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml.split("\n", 1)[1])  # noqa: S314 - our own output
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_an_unjudged_case_is_an_error_with_its_reason() -> None:
    pack = build_pack(fx.judged())
    xml = render_junit(pack)
    parsed = JUnitXml.fromstring(xml)
    outcomes = [case.outcome for case in pack.cases]
    assert (parsed.tests, parsed.failures, parsed.errors, parsed.skipped) == (4, 2, 1, 0)
    assert parsed.errors == outcomes.count(Outcome.ERRORED) + outcomes.count(Outcome.UNJUDGED)
    [unjudged] = [case for case in pack.cases if case.outcome is Outcome.UNJUDGED]
    element = _testcases(xml)["jdg-es-trash-day [es]"]
    [child] = list(element)
    assert child.tag == "error"
    assert child.get("message") == unjudged.reason
    assert child.text is not None
    lines = child.text.splitlines()
    assert lines[:3] == [
        unjudged.reason,
        "judge kappa es 0.79 [0.61, 0.97] (ask 1)",
        "judge pairwise unjudged (position bias): the two orders disagree: the judge preferred "
        "a position, not an answer; rationale: A names the days first.",
    ]
    assert lines[3].startswith('  reply 1: ```json\\n{"better": "A"')


def test_a_passing_judged_case_has_no_child() -> None:
    element = _testcases(render_junit(build_pack(fx.judged())))["jdg-en-appeal-deadline [en]"]
    assert list(element) == []


def test_a_judged_failure_gives_the_verdicts_and_the_rationale_once() -> None:
    element = _testcases(render_junit(build_pack(fx.judged())))["jdg-en-permit-fee [en]"]
    [failure] = list(element)
    assert failure.tag == "failure"
    assert failure.text is not None
    assert failure.text.splitlines()[1:] == [
        "judge kappa en 0.82 [0.65, 0.99] (ask 1)",
        "judge rubric failed: correct-fee fail, no-personal-data pass; rationale: The answer "
        "says $40 a year; the reference says $25.",
        "judge pairwise failed: worse than the reference in both orders: The fee is wrong.",
    ]


def test_an_undefined_kappa_is_said_so() -> None:
    undefined = LanguageKappa(language="es", items=3, kappa=None, low=None, high=None)
    calibration = fx.CALIBRATION.model_copy(update={"languages": (undefined,)})
    judge = fx.JUDGE.model_copy(update={"calibration": calibration})
    xml = render_junit(build_pack(fx.judged(judge=judge)))
    [error] = list(_testcases(xml)["jdg-es-trash-day [es]"])
    assert error.text is not None
    assert "judge kappa es undefined [n/a] (ask 1)" in error.text.splitlines()
    # No English row: the English failure says nothing of a calibration it does not have.
    [failure] = list(_testcases(xml)["jdg-en-permit-fee [en]"])
    assert failure.text is not None
    assert "judge kappa" not in failure.text


def test_a_check_that_passed_beside_one_that_failed_is_shown_without_a_reason() -> None:
    rubric = fx.JUDGED_CHECKS["jdg-en-permit-fee"][0]
    passed = fx.JUDGED_CHECKS["jdg-en-appeal-deadline"][1]
    checks = {**fx.JUDGED_CHECKS, "jdg-en-permit-fee": (rubric, passed)}
    xml = render_junit(build_pack(fx.judged(checks=checks)))
    [failure] = list(_testcases(xml)["jdg-en-permit-fee [en]"])
    assert failure.text is not None
    assert failure.text.splitlines()[-1] == (
        "judge pairwise passed; rationale: Both give the same deadline and places."
    )
