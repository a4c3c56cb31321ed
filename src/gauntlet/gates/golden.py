"""The golden gate: the answer must be the curated one, compared with whitespace collapsed."""

from __future__ import annotations

from collections.abc import Iterator

from gauntlet.cases.model import GoldenCase
from gauntlet.gates.judgement import Judgement
from gauntlet.gates.readability import is_readable
from gauntlet.gates.reasons import conclude, shown, unreadable
from gauntlet.matching import collapse_whitespace
from gauntlet.targets.contract import TargetResponse


def judge(case: GoldenCase, response: TargetResponse, *, exact: bool = True) -> Judgement:
    """Judge a response to a golden case.

    A refusal fails, and so does an unreadable answer, even one equal to `expected`. A readable
    answer must equal `expected` once both have whitespace collapsed; nothing else is folded,
    so case and punctuation count. Without `exact` (a suite with `match: judge`) that last
    comparison is left to the model judge, which is asked only when this passes.
    """
    return conclude(_problems(case, response, exact=exact))


def _problems(case: GoldenCase, response: TargetResponse, *, exact: bool) -> Iterator[str]:
    if response.refused:
        yield "refused a question that has a curated answer"
    expected = collapse_whitespace(case.expected)
    observed = collapse_whitespace(response.text)
    if not is_readable(response.text):
        yield unreadable(response.text)
    elif exact and observed != expected:
        yield (
            "answer differs from the curated one: "
            f"expected {shown(expected)}, observed {shown(observed)}"
        )
