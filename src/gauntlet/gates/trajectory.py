"""The trajectory gate: the calls an agent made, in what order, and whether its answer uses them.

A case states any of: `expect_calls` with an `order`, `forbid_calls`, `max_calls`,
`min_tool_accuracy`, `must_contain`, `expected` and `min_faithfulness`. It passes when every
stated check holds, the answer is readable and it was not refused; the reason names each check
that did not hold, with the calls as they were made. The arithmetic is
`gauntlet.trajectory.scoring` and `gauntlet.trajectory.faithfulness`; this module turns a case
and an answer into their inputs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from gauntlet.cases.model import (
    ArgumentsMatch,
    CallMatcher,
    GateName,
    TrajectoryCase,
    TrajectorySuite,
    UsesTools,
)
from gauntlet.gates.california import simm
from gauntlet.gates.judgement import Judgement, TrajectoryScores
from gauntlet.gates.reasons import conclude, if_unreadable, missing_markers
from gauntlet.gates.spec import GateFamily, GateSpec
from gauntlet.targets.contract import FieldName, TargetResponse, ToolCall
from gauntlet.trajectory import faithfulness as faith  # a module: it imports the gates
from gauntlet.trajectory import scoring

NOT_REPORTED = "the target did not report its tool calls, which this case checks"


def pattern(matcher: str | CallMatcher, where: str = "") -> scoring.CallPattern:
    """A case file's call (a bare name, or a name with an arguments matcher) as scoring's.

    `where` is the matcher's place in its case (`forbid_calls[0]`), which names a pattern
    that runs past its time limit.
    """
    if isinstance(matcher, str):
        return scoring.CallPattern(matcher)
    arguments = matcher.arguments
    if arguments is None:
        return scoring.CallPattern(matcher.name)
    match matcher.match:
        case ArgumentsMatch.EXACT:
            return scoring.CallPattern(matcher.name, scoring.Exact(dict(arguments)))
        case ArgumentsMatch.SUBSET:
            return scoring.CallPattern(matcher.name, scoring.Subset(dict(arguments)))
        case ArgumentsMatch.REGEX:
            return scoring.CallPattern(
                matcher.name, scoring.Regex({k: str(v) for k, v in arguments.items()}, where)
            )


def patterns(matchers: Sequence[str | CallMatcher], key: str) -> tuple[scoring.CallPattern, ...]:
    """The calls of a case's `key` (`expect_calls`, `forbid_calls`), each named by its place."""
    return tuple(pattern(matcher, f"{key}[{index}]") for index, matcher in enumerate(matchers))


def observed(calls: Sequence[ToolCall]) -> list[list[scoring.Call]] | str:
    """The calls as steps, or why they cannot be read as a trajectory."""
    made = [scoring.Call(call.name, dict(call.arguments), call.step) for call in calls]
    try:
        return scoring.group_steps(made)
    except ValueError as exc:
        return f"the tool calls cannot be read as steps: {exc}"


def spec(case: TrajectoryCase) -> scoring.TrajectorySpec:
    """The case's call checks, as scoring states them."""
    return scoring.TrajectorySpec(
        expect_calls=patterns(case.expect_calls, "expect_calls"),
        order=scoring.Order(case.order.value),
        forbid_calls=patterns(case.forbid_calls, "forbid_calls"),
        max_calls=case.max_calls,
        min_tool_accuracy=case.min_tool_accuracy,
    )


def forbidden(case: UsesTools, steps: scoring.Steps) -> tuple[scoring.TrajectoryVerdict, ...]:
    """The verdict of `forbid_calls` alone, for a gate that checks nothing else of the calls."""
    if not case.forbid_calls:
        return ()
    verdict = scoring.judge(
        scoring.TrajectorySpec(
            order=scoring.Order.ANY_ORDER,
            forbid_calls=patterns(case.forbid_calls, "forbid_calls"),
        ),
        steps,
    )
    return (verdict,)


def made(
    expected: Sequence[str | CallMatcher], steps: scoring.Steps, failure: str
) -> tuple[scoring.TrajectoryVerdict, ...]:
    """The verdict of `expected` calls alone, any order, other calls allowed.

    For a gate that checks nothing else of them: none when each was made, else the verdict
    with each reason after `failure: `.
    """
    if not expected:
        return ()
    verdict = scoring.judge(
        scoring.TrajectorySpec(
            expect_calls=patterns(expected, "expect_calls"), order=scoring.Order.ANY_ORDER
        ),
        steps,
    )
    reasons = tuple(f"{failure}: {reason}" for reason in verdict.reasons)
    return (replace(verdict, reasons=reasons),) if reasons else ()


def judge(case: TrajectoryCase, response: TargetResponse) -> Judgement:
    """Grade one answer of a trajectory case: every stated check, and the silence rule."""
    reasons: list[str] = []
    scores = None
    if response.refused:
        reasons.append("refused a task it had tools for")
    reasons.extend(if_unreadable(response.text))
    if response.tool_calls is None:
        reasons.append(NOT_REPORTED)
    else:
        steps = observed(response.tool_calls)
        if isinstance(steps, str):
            reasons.append(steps)
        else:
            verdict = scoring.judge(spec(case), steps)
            reasons.extend(verdict.reasons)
            faithful = _faithfulness(case, response, reasons)
            scores = TrajectoryScores(
                tool_accuracy=verdict.tool_accuracy,
                faithfulness=faithful,
                departed_at=verdict.departed_at,
            )
    reasons.extend(missing_markers(response.text, case.must_contain))
    reasons.extend(_expected(case, response))
    judged = conclude(reasons)
    return judged._replace(scores=scores)


def _faithfulness(
    case: TrajectoryCase, response: TargetResponse, reasons: list[str]
) -> float | None:
    if case.min_faithfulness is None:
        return None
    sources = [
        faith.source_text(call.output)
        for call in response.tool_calls or ()
        if call.output is not None
    ]
    found = faith.faithfulness(
        response.text, [*sources, *case.context], case.language, case.claim_overlap
    )
    if not found.claims:
        reasons.append("min_faithfulness: the answer makes no claim a tool's output could support")
    elif found.score < case.min_faithfulness:
        unsupported = "; ".join(repr(claim) for claim in found.unsupported)
        reasons.append(
            f"min_faithfulness: {found.score:.3f} of the answer's claims are supported, below "
            f"{case.min_faithfulness:.3f}; unsupported by any tool output or context: {unsupported}"
        )
    return found.score


def _expected(case: TrajectoryCase, response: TargetResponse) -> Iterator[str]:
    if case.expected is None:
        return
    covered = faith.faithfulness(case.expected, [response.text], case.language, case.claim_overlap)
    if covered.unsupported:
        missing = "; ".join(repr(claim) for claim in covered.unsupported)
        yield f"expected: the answer does not say {missing}"


SPEC = GateSpec(
    name=GateName.TRAJECTORY,
    case_model=TrajectoryCase,
    suite_model=TrajectorySuite,
    judge=judge,
    family=GateFamily.COMPETENCE,
    capability=True,
    informs=(
        simm(
            "Part 2, Mandatory Minimum Safeguards, row: human verification of accuracy and "
            "factuality",
            "Each failing case's trajectory (every tool call, its arguments and output, and "
            "the step where it went wrong) gives the people verifying accuracy a record of "
            "what the feature did, not only what it said.",
        ),
        simm(
            "Part 2, Human Oversight and Monitoring, item (a)",
            "Faithfulness measures how much of an answer the tools' outputs support in the "
            "cases run: answers that contradict the lookup they made show as unsupported.",
        ),
        simm(
            "Part 2, Details of Transparency, item (b)",
            "A versioned, repeatable run that records every tool call is a mechanism to "
            "audit which actions the feature took on a resident's behalf.",
        ),
        simm(
            "Section V, common safeguards: support for multiple languages or dialects",
            "Trajectory cases are run and counted per language, so the result shows whether "
            "the feature uses its tools as well in each language tested.",
        ),
    ),
    reads=frozenset({FieldName.TEXT, FieldName.REFUSED, FieldName.TOOL_CALLS}),
)
"""The gate, as the rest of gauntlet knows it."""


__all__ = ["SPEC", "forbidden", "judge", "observed", "pattern", "patterns", "spec"]
