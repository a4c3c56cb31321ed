"""The grounding gate: an answer must cite only sources it retrieved, or abstain citing none."""

from __future__ import annotations

from collections.abc import Iterator

from gauntlet.cases.model import GateName, GroundingCase, GroundingSuite
from gauntlet.gates.california import SCM_2305_3, MappingRow, Verification, simm
from gauntlet.gates.judgement import Judgement
from gauntlet.gates.reasons import conclude, if_unreadable, listed, missing_markers
from gauntlet.gates.spec import Asked, GateFamily, GateSpec
from gauntlet.targets.contract import FieldName, TargetResponse


def judge(case: GroundingCase, response: TargetResponse, *, retrieved: bool = True) -> Judgement:
    """Grade a response to a grounding case.

    With `expect_grounded: true` the answer must be readable, not refused, cite at least one
    source, and cite only ids among its `context_ids`. With `expect_grounded: false` it must
    abstain: readable text that cites nothing (a declared refusal with readable text is an
    abstention; without readable text it is silence). Either way every `must_contain` marker
    must be present. With `retrieved` false (the target does not report `context_ids` and the
    suite accepts that), whether the citations were retrieved is not checked.
    """
    return conclude(_problems(case, response, retrieved))


def _problems(case: GroundingCase, response: TargetResponse, retrieved: bool) -> Iterator[str]:
    yield from _grounded(response, retrieved) if case.expect_grounded else _abstained(response)
    yield from missing_markers(response.text, case.must_contain)


def _grounded(response: TargetResponse, retrieved: bool) -> Iterator[str]:
    if response.refused:
        yield "refused a question it should answer from its sources"
    yield from if_unreadable(response.text)
    if not retrieved:
        if not response.citations:
            yield "uncited answer: it cites no source"
        return
    shown = f"(retrieved: {listed(response.context_ids)})"
    if not response.citations:
        yield f"uncited answer: it cites no source {shown}"
    foreign = [cited for cited in response.citations if cited not in response.context_ids]
    if foreign:
        yield f"cites {listed(foreign)}, which it did not retrieve {shown}"


def _abstained(response: TargetResponse) -> Iterator[str]:
    yield from if_unreadable(response.text)
    if response.citations:
        yield f"cites {listed(response.citations)} where it should abstain"


def _expects_grounding(case: GroundingCase) -> bool:
    """An abstention can be satisfied by saying nothing; a grounded answer cannot."""
    return case.expect_grounded


def _asked(case: GroundingCase, response: TargetResponse, asked: Asked) -> Judgement:
    """Retrieval is not checked when the suite does without `context_ids` and got none."""
    return judge(case, response, retrieved=FieldName.CONTEXT_IDS not in asked.without)


SPEC = GateSpec(
    name=GateName.GROUNDING,
    case_model=GroundingCase,
    suite_model=GroundingSuite,
    judge=judge,
    family=GateFamily.COMPETENCE,
    capability=_expects_grounding,
    informs=(
        simm(
            "Section III, GenAI Risk Table Assessment Scale: Validated versus Not Validated",
            "Whether the feature's answers held to their sources in the cases run informs "
            'the choice between the Low ("Validated") and Moderate ("Not Validated") rows.',
        ),
        simm(
            "Part 1, Questionnaire, item (h)",
            "Grounding checks run on every merge are a safeguard the agency can name when "
            "asked which safeguards are deployed.",
        ),
        simm(
            "Part 2, Mandatory Minimum Safeguards, row: human verification of accuracy and "
            "factuality",
            "The failing cases and their reasons give the people verifying accuracy a record "
            "of where answers departed from their sources.",
        ),
        simm(
            "Part 2, Mandatory Minimum Safeguards, row: citing credible sources for "
            "published statements of fact",
            "The gate checks that answers cite only sources the feature retrieved, and "
            "abstain without citing when no source supports an answer.",
        ),
        simm(
            "Part 2, Human Oversight and Monitoring, item (a)",
            "The grounding pass rate measures hallucination in the cases run.",
        ),
        simm(
            "Section V, common safeguards: links back to the source material",
            "Each grounded answer is checked for citations that lead back to the source "
            "material the feature retrieved.",
        ),
        MappingRow(
            document=SCM_2305_3,
            item="Contract managers monitor and validate GenAI deliverables",
            informs="A run on every merge is a repeatable check of the feature's answers "
            "for inaccuracies, fabricated content and hallucinations.",
            verification=Verification.READ,
        ),
    ),
    reads=frozenset(
        {FieldName.TEXT, FieldName.CITATIONS, FieldName.CONTEXT_IDS, FieldName.REFUSED}
    ),
    judge_asked=_asked,
)
"""The gate, as the rest of gauntlet knows it."""
