"""The judge as a target: its fingerprint, and asking it one prompt.

A judge is described by a target file like any target (`gauntlet run --judge FILE`), and is
reached through the same engine: deadline, retries, redaction. What it is, for calibration,
is its fingerprint: a calibration record holds for one fingerprint and no other, so a judge
whose model, host, prompt, temperature or reply length changed must be calibrated again.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from gauntlet.judge.check import AGAIN, Ask
from gauntlet.judge.fingerprint import JudgeFingerprint
from gauntlet.judge.pairwise import pairwise_prompt
from gauntlet.judge.prompt import Block, Criterion, rubric_prompt
from gauntlet.targets.contract import AsyncTarget, Conversation, Question, Usage, total_usage
from gauntlet.targets.spec import GauntletSpec, OpenAIChatSpec
from gauntlet.targets.target_file import LoadedTarget


def _prompt_sha256() -> str:
    """sha256 of the judge's prompts as written for one fixed example, and the re-ask line.

    Any change to the wording gauntlet sends a judge changes it, so a calibration made with
    other words does not carry over.
    """
    criteria = [Criterion("criterion-id", "The question?")]
    blocks = [Block("the prompt", "prompt"), Block("the answer", "answer")]
    rubric = rubric_prompt(criteria, blocks, random.Random(0))  # noqa: S311 - a fixed example
    pairwise = pairwise_prompt("question", "first", "second", random.Random(0))  # noqa: S311
    return hashlib.sha256("\0".join([rubric.text, pairwise.text, AGAIN]).encode()).hexdigest()


JUDGE_PROMPT_SHA256 = _prompt_sha256()
"""The fingerprint of the prompts this gauntlet sends a judge."""


def judge_fingerprint(loaded: LoadedTarget) -> JudgeFingerprint:
    """The fingerprint of the judge `loaded` describes."""
    spec = loaded.spec
    if isinstance(spec, OpenAIChatSpec):
        url, model = spec.base_url, spec.model
        temperature, max_tokens = spec.temperature, spec.max_tokens
    else:
        url, model, temperature, max_tokens = spec.url, None, None, None
    parts = urlsplit(str(url))
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = f"{parts.hostname}:{port}"
    kind: Literal["gauntlet", "openai-chat", "http"] = (
        "gauntlet" if isinstance(spec, GauntletSpec) else spec.kind
    )
    return JudgeFingerprint(
        kind=kind,
        model=model,
        host=host,
        prompt_sha256=JUDGE_PROMPT_SHA256,
        temperature=temperature,
        max_tokens=max_tokens,
    )


@dataclass
class UsageTally:
    """Tokens the judge reported, over every reply: kept apart from the target's."""

    reported: list[Usage] = field(default_factory=list)
    replies: int = 0

    @property
    def total(self) -> Usage | None:
        """Every reported count added up; None when no reply reported any."""
        return total_usage(self.reported)


def judge_asker(
    target: AsyncTarget, *, language: str, case_id: str, tally: UsageTally | None = None
) -> Ask:
    """An `Ask` that sends each prompt to `target` as one user message.

    Every ask is its own conversation (a judge keeps no state between checks). Errors are
    raised as the target raises them (`TargetError`): the caller records the check unjudged.
    """

    async def ask(prompt: str) -> str:
        traced = await target.ask(
            Question(prompt, language, conversation=Conversation(case_id=case_id))
        )
        if tally is not None:
            tally.replies += 1
            if traced.usage is not None:
                tally.reported.append(traced.usage)
        return traced.response.text

    return ask


__all__ = [
    "JUDGE_PROMPT_SHA256",
    "JudgeFingerprint",
    "UsageTally",
    "judge_asker",
    "judge_fingerprint",
]
