"""Asking the model judge about answers the gates passed: the one other edge that asks.

A case with `judge` criteria, or in a golden suite with `match: judge`, has checks only a model
can make. They are made after the gate's own checks pass, never before: the judge can fail an
ask, never pass one the gate failed. Every way a judge can fail to give a verdict (it is not
calibrated, it is down, its reply cannot be read, the two pairwise orders disagree) leaves the
check unjudged, which withholds the run's verdict; none of them is a pass or a failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from gauntlet.cases.model import AnyCase, GoldenCase, GoldenMatch
from gauntlet.display import printable
from gauntlet.errors import TargetError, describe_raised
from gauntlet.judge.check import Ask, ask_readable, check_rubric
from gauntlet.judge.judge_file import UsageTally, judge_asker
from gauntlet.judge.pairwise import (
    PairwiseOutcome,
    Preferred,
    answer_side,
    combine,
    pairwise_prompt,
    read_pairwise_reply,
)
from gauntlet.judge.prompt import Criterion, case_blocks, rubric_prompt, seeded
from gauntlet.judge.reply import QUOTED, Judged
from gauntlet.languages import in_column_order, primary_language
from gauntlet.run.results import CheckOutcome, JudgeCheck, SuiteInfo, check_outcome
from gauntlet.run.settings import Judge
from gauntlet.targets.adapters import TargetRaisedError
from gauntlet.targets.contract import TargetResponse

__all__ = ["judge_checks"]


async def judge_checks(
    judge: Judge,
    case: AnyCase,
    info: SuiteInfo,
    ask_number: int,
    conversation: Sequence[TargetResponse],
    bound: asyncio.Semaphore,
) -> tuple[JudgeCheck, ...]:
    """Every judged check of one answer the gate passed, each its own `JudgeCheck`.

    `conversation` is every answer of the ask, in order: the last is the one judged. At most
    `bound` allows checks go at a time (the run makes one, `judge.concurrency` wide).
    """
    kinds = []
    if case.judge is not None:
        kinds.append("rubric")
    if info.match is GoldenMatch.JUDGE:
        kinds.append("pairwise")
    why = _why_not(judge, case.language)
    if why is not None or judge.target is None:
        why = why or "the judge read back from a results file cannot be asked"
        return tuple(_unjudged(kind, why) for kind in kinds)
    checks = []
    async with bound:
        for kind in kinds:
            tally = UsageTally()
            ask = judge_asker(judge.target, language=case.language, case_id=case.id, tally=tally)
            try:
                if kind == "rubric":
                    made = await _rubric(judge.seed, case, ask_number, conversation, ask)
                else:
                    made = await _pairwise(judge.seed, case, ask_number, conversation, ask)
            except TargetRaisedError as exc:  # a Python judge's own code
                made = _unjudged(kind, f"the judge raised {exc.raised}")
            except TargetError as exc:
                made = _unjudged(kind, f"the judge gave no reply: {exc}")
            except Exception as exc:  # a judge that fails is unjudged, not a crash
                made = _unjudged(kind, f"the judge raised {describe_raised(exc)}")
            checks.append(made.model_copy(update={"usage": tally.total}))
    return tuple(checks)


def _why_not(judge: Judge, language: str) -> str | None:
    if judge.refused is not None:
        return f"the judge may not vote: {judge.refused}"
    if primary_language(language) not in judge.languages:
        known = ", ".join(in_column_order(judge.languages)) or "none"
        return f"the judge was not calibrated in {primary_language(language)} (calibrated: {known})"
    return None


async def _rubric(
    seed: str,
    case: AnyCase,
    ask_number: int,
    conversation: Sequence[TargetResponse],
    ask: Ask,
) -> JudgeCheck:
    response, earlier = conversation[-1], conversation[:-1]
    assert case.judge is not None  # noqa: S101 - asked only for a case with criteria
    criteria = [Criterion(criterion.id, criterion.ask) for criterion in case.judge.criteria]
    blocks = case_blocks(
        _question(case, earlier),
        response.text,
        reference=case.expected if isinstance(case, GoldenCase) else None,
        sources=response.context_ids or (),
        conversation=case.turns is not None,
    )
    rng = seeded(seed, case.id, ask_number)
    prompt = rubric_prompt(criteria, blocks, rng)
    made = await check_rubric(ask, prompt, [criterion.id for criterion in criteria])
    replies = tuple(_cut(reply) for reply in made.replies)
    result = made.result
    if not isinstance(result, Judged):
        return _unjudged("rubric", f"the judge's reply could not be read: {result.why}", replies)
    failed = result.failed
    return JudgeCheck(
        kind="rubric",
        outcome=check_outcome(verdict.value for verdict in result.verdicts.values()),
        reason=(f"failed {', '.join(failed)}: {_cut(result.rationale)}" if failed else ""),
        verdicts={name: verdict.value for name, verdict in result.verdicts.items()},
        families={criterion.id: criterion.family for criterion in case.judge.criteria},
        rationale=_cut(result.rationale),
        replies=replies,
    )


async def _pairwise(
    seed: str,
    case: AnyCase,
    ask_number: int,
    conversation: Sequence[TargetResponse],
    ask: Ask,
) -> JudgeCheck:
    response, earlier = conversation[-1], conversation[:-1]
    assert isinstance(case, GoldenCase)  # noqa: S101 - match: judge is a golden suite's
    # Its own draws: the coin must not move when rubric criteria are added to the case.
    rng = seeded(seed, f"{case.id}\0pairwise", ask_number)
    side = answer_side(rng)
    answer, reference = response.text, case.expected
    orders = [(answer, reference), (reference, answer)] if side == "A" else [
        (reference, answer), (answer, reference)
    ]  # fmt: skip
    question = _question(case, earlier)
    read = []
    replies: list[str] = []
    for first, second in orders:
        result, said = await ask_readable(
            ask, pairwise_prompt(question, first, second, rng), read_pairwise_reply
        )
        read.append(result)
        replies += said
    combined = combine(read[0], read[1], side)
    outcome = _OUTCOMES[combined.outcome]
    rationale = next((_cut(r.rationale) for r in read if isinstance(r, Preferred)), "")
    return JudgeCheck(
        kind="pairwise",
        outcome=outcome,
        reason="" if outcome == "passed" else _cut(combined.why),
        rationale=rationale,
        replies=tuple(_cut(reply) for reply in replies),
        answer_first=side,
        position_bias=combined.position_bias,
    )


_OUTCOMES: dict[PairwiseOutcome, CheckOutcome] = {
    PairwiseOutcome.PASSED: "passed",
    PairwiseOutcome.FAILED: "failed",
    PairwiseOutcome.UNJUDGED: "unjudged",
}


def _question(case: AnyCase, earlier: Sequence[TargetResponse]) -> str:
    """What the judge is told was asked: the prompt, or the conversation up to the last turn.

    `earlier` holds the target's answers to the turns before the last.
    """
    if case.turns is None:
        return case.final_prompt
    lines = []
    for number, turn in enumerate(case.turns, 1):
        lines.append(f"user (turn {number}): {turn.user}")
        if number <= len(earlier):
            lines.append(f"assistant (turn {number}): {earlier[number - 1].text}")
    return "\n".join(lines)


def _unjudged(kind: str, why: str, replies: tuple[str, ...] = ()) -> JudgeCheck:
    return JudgeCheck(
        kind="rubric" if kind == "rubric" else "pairwise",
        outcome="unjudged",
        reason=_cut(why, 400),
        replies=replies,
    )


def _cut(text: str, limit: int = QUOTED) -> str:
    """`text` on one line, every control character escaped, cut after `limit` characters."""
    shown = printable(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(text)} characters)"
