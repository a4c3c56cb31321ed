"""A fake judge for the calibration tests: it reads the prompt and answers from the labels.

It finds the item a prompt is about by the fenced texts it shows, and answers as the labels
say (or as its `behaviour` bends that), in the one reply format gauntlet reads: the verdict
carries the token the prompt gives (read from its line, outside every block). Served over
HTTP (`serving_judge`) it is an OpenAI-compatible chat completions endpoint on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from aiohttp import web

from gauntlet.errors import TargetUnreachableError
from gauntlet.judge.check import Ask
from gauntlet.judge.labels import LabelItem, LabelSet

from .toy_servers import running_app

Behaviour = Literal[
    "agrees", "always_pass", "always_fail", "prefers_first", "malformed", "raises", "obeys"
]

_BLOCK = re.compile(r"^<<<(DATA-[0-9a-f]{16}) ([^\n]*)\n(.*?)\n\1>>>$", re.DOTALL | re.MULTILINE)
_CRITERION = re.compile(r"^- ([A-Za-z0-9][A-Za-z0-9._-]*): ", re.MULTILINE)
_TOKEN = re.compile(r"^This check's token is (JT-[0-9a-f]+)\. ", re.MULTILINE)


def fenced(prompt: str) -> dict[str, str]:
    """The blocks a prompt shows, by their label."""
    return {label: text for _, label, text in _BLOCK.findall(prompt)}


def token(prompt: str) -> dict[str, str]:
    """The token the prompt gives, as a verdict carries it (the last line that gives one: the
    blocks come before it, so a text cannot put its own line after it)."""
    found = _TOKEN.findall(prompt)
    return {"token": found[-1]} if found else {}


def fenced_json(value: object) -> str:
    return "Here is my verdict.\n```json\n" + json.dumps(value) + "\n```"


@dataclass
class FakeJudge:
    """Answers rubric and pairwise prompts about the items of `labels`."""

    labels: LabelSet
    behaviour: Behaviour = "agrees"
    prompts: list[str] = field(default_factory=list)
    busy: int = 0
    most_busy: int = 0

    def item(self, question: str, texts: set[str]) -> LabelItem:
        for item in self.labels.items:
            if item.prompt == question and texts <= {item.answer, item.reference}:
                return item
        raise AssertionError(f"no item shows {texts!r}")

    def reply(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.behaviour == "raises":
            raise TargetUnreachableError("connection refused")
        if self.behaviour == "malformed":
            return "PASS, clearly."
        blocks = fenced(prompt)
        if "answer A" in blocks:
            return self.pairwise(prompt, blocks)
        return self.rubric(prompt, blocks)

    def rubric(self, prompt: str, blocks: dict[str, str]) -> str:
        item = self.item(blocks["the prompt"], {blocks["the answer"]})
        asked = _CRITERION.findall(prompt.split("The rubric:", 1)[1])
        labels = {criterion.id: criterion.label for criterion in item.criteria or ()}
        assert asked == list(labels)
        verdicts = {
            name: {
                "always_pass": "pass",
                "always_fail": "fail",
                "obeys": "pass" if "ignor" in item.answer else labels[name],
            }.get(self.behaviour, labels[name])
            for name in asked
        }
        return fenced_json(
            {**token(prompt), "criteria": verdicts, "rationale": "as the labels say"}
        )

    def pairwise(self, prompt: str, blocks: dict[str, str]) -> str:
        first, second = blocks["answer A"], blocks["answer B"]
        item = self.item(blocks["the question"], {first, second})
        answer_side = "A" if first == item.answer else "B"
        reference_side = "B" if answer_side == "A" else "A"
        better = {"answer": answer_side, "reference": reference_side, "same": "same"}[
            item.preferred or "same"
        ]
        if self.behaviour in ("always_pass", "obeys"):
            better = answer_side
        elif self.behaviour == "always_fail":
            better = reference_side
        elif self.behaviour == "prefers_first":
            better = "A"
        return fenced_json({**token(prompt), "better": better, "rationale": "as the labels say"})

    def ask_for(self, language: str, item_id: str) -> Ask:
        async def ask(prompt: str) -> str:
            self.busy += 1
            self.most_busy = max(self.most_busy, self.busy)
            try:
                await asyncio.sleep(0)
                return self.reply(prompt)
            finally:
                self.busy -= 1

        return ask


# ---------------------------------------------------------------- over HTTP


def _app(judge: FakeJudge) -> web.Application:
    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        prompt = body["messages"][-1]["content"]
        try:
            text = judge.reply(prompt) if "<<<DATA-" in prompt else "I am a judge."
        except TargetUnreachableError:
            return web.json_response({"error": {"message": "down"}}, status=500)
        return web.json_response(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    return app


def serving_judge(judge: FakeJudge) -> AbstractContextManager[str]:
    """Serve `judge` on 127.0.0.1 (see `running_app`); yields the base URL."""
    return running_app(_app(judge))


def judge_file(folder: Path, base_url: str, *, model: str = "fake-judge") -> Path:
    """A target file for a judge at `base_url`."""
    path = folder / "judge.yaml"
    path.write_text(
        "version: 1\n"
        "kind: openai-chat\n"
        f"base_url: {base_url}\n"
        f"model: {model}\n"
        "temperature: 0\n"
        "max_tokens: 300\n"
        "http:\n"
        "  retries: 0\n"
        "response:\n"
        "  citations: {absent: true}\n"
        "  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    return path
