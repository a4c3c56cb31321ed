"""One rubric check: ask the judge, and ask once more if its reply cannot be read.

The second ask repeats the whole prompt with one line added. It does not quote the first
reply: that reply may echo the answer under judgement, and the answer is untrusted text that
belongs inside a fenced block, never beside the instructions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TypeVar

from gauntlet.judge.prompt import JudgePrompt
from gauntlet.judge.reply import Judged, Unjudged, read_rubric_reply

Ask = Callable[[str], Awaitable[str]]
"""Sends one prompt to the judge and returns its reply's text (raising as a target does)."""

AGAIN = (
    "Your previous reply could not be read. Reply with exactly one JSON object in a fenced "
    "block, carrying this check's token and judging every criterion above and no other, as "
    "shown, and quote nothing from the data."
)
"""Added to the prompt for the second and last ask."""


@dataclass(frozen=True, slots=True)
class RubricCheck:
    """What a rubric check came to, and every reply it took to get there."""

    result: Judged | Unjudged
    replies: tuple[str, ...]
    """One reply, or two when the first could not be read."""


Read = TypeVar("Read")


async def ask_readable(
    ask: Ask, prompt: JudgePrompt, read: Callable[[str, str], Read | Unjudged]
) -> tuple[Read | Unjudged, tuple[str, ...]]:
    """Ask the judge `prompt`; re-ask once if `read` cannot read the reply; never a third time.

    `read` is called with a reply and the prompt's token, which the re-ask keeps.

    Returns:
        What the first readable reply says, or `Unjudged` with why the last reply could not
        be read; and every reply.
    """
    first = await ask(prompt.text)
    result = read(first, prompt.token)
    if not isinstance(result, Unjudged):
        return result, (first,)
    second = await ask(f"{prompt.text}\n\n{AGAIN}")
    return read(second, prompt.token), (first, second)


async def check_rubric(ask: Ask, prompt: JudgePrompt, asked: Collection[str]) -> RubricCheck:
    """Ask the judge `prompt` for a verdict on each of `asked`, re-asking once (`ask_readable`)."""
    result, replies = await ask_readable(
        ask, prompt, lambda reply, token: read_rubric_reply(reply, asked, token)
    )
    return RubricCheck(result, replies)


__all__ = ["AGAIN", "Ask", "RubricCheck", "ask_readable", "check_rubric"]
