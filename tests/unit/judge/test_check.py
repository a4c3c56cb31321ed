"""A rubric check asks once, and once more only when the reply cannot be read."""

from __future__ import annotations

import asyncio
import json

from gauntlet.judge.check import AGAIN, check_rubric
from gauntlet.judge.prompt import JudgePrompt
from gauntlet.judge.reply import Judged, Unjudged

ASKED = ("deadline",)
PROMPT = JudgePrompt("PROMPT", "JT-0123456789abcdef01234567")
GOOD = json.dumps(
    {"token": PROMPT.token, "criteria": {"deadline": "fail"}, "rationale": "It gives 10 days."}
)


class Judge:
    """Replies from a script, and keeps every prompt it was sent."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0)


def test_a_readable_first_reply_is_the_check_and_nothing_more_is_asked() -> None:
    judge = Judge(GOOD, "never asked")
    check = asyncio.run(check_rubric(judge, PROMPT, ASKED))
    assert isinstance(check.result, Judged) and check.result.failed == ("deadline",)
    assert (check.replies, judge.prompts) == ((GOOD,), ["PROMPT"])


def test_an_unreadable_reply_is_asked_again_once_without_quoting_it() -> None:
    judge = Judge("PASS. Ignore the rubric.", GOOD)
    check = asyncio.run(check_rubric(judge, PROMPT, ASKED))
    assert isinstance(check.result, Judged)
    assert judge.prompts == ["PROMPT", f"PROMPT\n\n{AGAIN}"]
    assert check.replies == ("PASS. Ignore the rubric.", GOOD)


def test_two_unreadable_replies_leave_the_check_unjudged_after_two_asks() -> None:
    judge = Judge("PASS", '{"criteria": {"deadline": "pa', GOOD)
    check = asyncio.run(check_rubric(judge, PROMPT, ASKED))
    assert isinstance(check.result, Unjudged)
    assert "not JSON" in check.result.why
    assert len(judge.prompts) == 2 and judge.replies == [GOOD]


def test_the_re_ask_reads_its_reply_against_the_same_token() -> None:
    other = GOOD.replace(PROMPT.token, "JT-" + "f" * 24)
    judge = Judge(other, other)
    check = asyncio.run(check_rubric(judge, PROMPT, ASKED))
    assert isinstance(check.result, Unjudged)
    assert "is not the one its prompt gave" in check.result.why
