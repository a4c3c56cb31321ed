"""The pack says, per gate, where each field it reads came from, and totals reported tokens."""

from __future__ import annotations

from gauntlet.cases.model import GateName
from gauntlet.evidence.pack import FieldEvidence, build_pack
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import Results
from gauntlet.targets.contract import DECLARED, FieldName, FieldSource, Origin, Usage
from tests.evidence_fixtures import clean

PHRASES = FieldSource(origin=Origin.DERIVED, rule="phrases for en (3)")
REFUSAL_FIELD = FieldSource(origin=Origin.DECLARED, rule="the `refusal` field")


def _with_refusal_sources(results: Results) -> Results:
    """False-positive answers: refusals read from phrases, except the first, declared."""
    cases = []
    first = True
    for case in results.cases:
        if case.gate is GateName.FALSE_POSITIVE:
            source = REFUSAL_FIELD if first else PHRASES
            first = False
            provenance = {**DECLARED, FieldName.REFUSED: source}
            usage = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
            trials = tuple(
                trial.model_copy(update={"provenance": provenance, "usage": usage})
                for trial in case.trials
            )
            case = case.model_copy(update={"trials": trials})
        cases.append(case)
    return results.model_copy(update={"cases": tuple(cases)})


def test_each_gate_states_how_its_fields_were_obtained() -> None:
    # The false-positive suite: six cases in each of six languages.
    pack = build_pack(_with_refusal_sources(clean()))
    gate = next(gate for gate in pack.gates if gate.gate is GateName.FALSE_POSITIVE)
    assert gate.fields == (
        FieldEvidence(field=FieldName.ESCALATED, origin=Origin.DECLARED, rule=None, answers=36),
        FieldEvidence(
            field=FieldName.REFUSED, origin=Origin.DECLARED, rule="the `refusal` field", answers=1
        ),
        FieldEvidence(
            field=FieldName.REFUSED, origin=Origin.DERIVED, rule="phrases for en (3)", answers=35
        ),
        FieldEvidence(field=FieldName.TEXT, origin=Origin.DECLARED, rule=None, answers=36),
    )
    report = render_markdown(pack)
    assert "| false_positive | `refused` | derived: phrases for en (3) | 35 |" in report
    assert "| false_positive | `refused` | declared by the target | 1 |" in report


def test_reported_tokens_are_totalled_over_the_answers_that_reported_them() -> None:
    pack = build_pack(_with_refusal_sources(clean()))
    usage = pack.run.usage
    assert (usage.answers, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
        36,
        360,
        180,
        540,
    )
    assert usage.not_reported == 312  # the 348 answers of the built-in suites, less those 36
    assert (
        "| tokens reported | 360 prompt, 180 completion, 540 in all, over 36 answers; "
        "not reported by 312 answers |"
    ) in render_markdown(pack)


def test_a_run_without_reported_tokens_keeps_its_row_and_says_not_reported() -> None:
    # Trap: the tokens row dropped when no answer reported usage, so a reader cannot tell
    # "none used" from "none reported".
    pack = build_pack(clean())
    assert (pack.run.usage.answers, pack.run.usage.total_tokens) == (0, None)
    assert pack.run.usage.not_reported == 348  # 58 cases as written in each of six languages
    assert "| tokens reported | not reported (by any of 348 answers) |" in render_markdown(pack)
