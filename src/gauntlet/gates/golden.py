"""The golden gate: the answer must be the curated one, compared with whitespace collapsed."""

from __future__ import annotations

from collections.abc import Iterator

from gauntlet.cases.model import GateName, GoldenCase, GoldenSuite
from gauntlet.gates.california import simm
from gauntlet.gates.judgement import Judgement
from gauntlet.gates.readability import is_readable
from gauntlet.gates.reasons import conclude, shown, unreadable
from gauntlet.gates.spec import Asked, GateFamily, GateSpec
from gauntlet.matching import collapse_whitespace
from gauntlet.targets.contract import FieldName, TargetResponse


def judge(case: GoldenCase, response: TargetResponse, *, exact: bool = True) -> Judgement:
    """Grade a response to a golden case.

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


def _asked(case: GoldenCase, response: TargetResponse, asked: Asked) -> Judgement:
    """With `match: judge`, the comparison with `expected` is the model judge's."""
    return judge(case, response, exact=asked.exact)


SPEC = GateSpec(
    name=GateName.GOLDEN,
    case_model=GoldenCase,
    suite_model=GoldenSuite,
    judge=judge,
    family=GateFamily.COMPETENCE,
    capability=True,
    informs=(
        simm(
            "Part 2, Human Oversight and Monitoring, item (c)",
            "Rerunning curated answers on every change, with drift against a baseline, is "
            "one way owners test that the feature behaves as it did when assessed.",
        ),
        simm(
            "Part 1, signature block: a new assessment when GenAI features beyond those "
            "documented are enabled",
            "Golden drift flags behaviour that differs from what was assessed, a prompt to "
            "ask whether a new assessment is due.",
        ),
        simm(
            "Section V, common safeguards: regular audits and curated validated responses",
            "The golden suite is a set of curated validated responses, and each run is a "
            "repeatable audit against it.",
        ),
        simm(
            "Section V, Generative AI Platforms and Code Analysis: continuous benchmarking",
            "Running the golden suite on every merge benchmarks the feature continuously.",
        ),
    ),
    reads=frozenset({FieldName.TEXT, FieldName.REFUSED}),
    judge_asked=_asked,
)
"""The gate, as the rest of gauntlet knows it."""
