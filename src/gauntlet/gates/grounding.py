"""The grounding gate: an answer must cite only sources it retrieved, or abstain citing none."""

from __future__ import annotations

from collections.abc import Iterator

from gauntlet.cases.model import GroundingCase
from gauntlet.gates.judgement import Judgement
from gauntlet.gates.readability import is_readable
from gauntlet.gates.reasons import conclude, listed, missing_markers, unreadable
from gauntlet.targets.contract import TargetResponse


def judge(case: GroundingCase, response: TargetResponse, *, retrieved: bool = True) -> Judgement:
    """Judge a response to a grounding case.

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
    if not is_readable(response.text):
        yield unreadable(response.text)
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
    if not is_readable(response.text):
        yield unreadable(response.text)
    if response.citations:
        yield f"cites {listed(response.citations)} where it should abstain"
