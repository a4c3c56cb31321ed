"""The one seam every target is asked through: `AsyncTarget.ask(question) -> Traced`.

Every kind of target (the native URL, both kinds of target file, an adapted Python target)
takes one `Question`; a user's Python target keeps its documented contract, `name` and
`ask(prompt, language[, history])`, plain or a coroutine, looked at once when it is adapted.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gauntlet.errors import TargetContractError
from gauntlet.targets.adapters import CallableTarget, as_async_target
from gauntlet.targets.build import build_callable_target
from gauntlet.targets.configured import build_target
from gauntlet.targets.contract import AsyncTarget, Message, Question, TargetResponse
from gauntlet.targets.exchange import MockExchange, MockReply, Request
from gauntlet.targets.http import GauntletTarget
from gauntlet.targets.target_file import parse_target_file

BODY = {"text": "a", "citations": [], "context_ids": [], "refused": False, "escalated": False}
HISTORY = (Message(role="user", content="hi"), Message(role="assistant", content="hello"))

ABSENT = "  citations: {absent: true}\n  context_ids: {absent: true}\n  escalated: {absent: true}\n"
OPENAI = (
    "version: 1\nkind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: m\nresponse:\n" + ABSENT
)
TEMPLATE = (
    'version: 1\nkind: http\nurl: http://127.0.0.1:9/chat\nbody: {q: "{{ prompt }}"}\n'
    "response:\n  text: answer\n  refused: {absent: true}\n" + ABSENT
)


def _reply(request: Request) -> MockReply:
    """What each kind reads: the native contract, a chat completion, or the file's JSON."""
    message = {"role": "assistant", "content": "a"}
    if request.url.endswith("/completions"):
        return MockReply.json({"choices": [{"message": message, "finish_reason": "stop"}]})
    return MockReply.json({"answer": "a"} if request.url.endswith("/chat") else BODY)


def _every_kind() -> list[AsyncTarget]:
    def answer(prompt: str, language: str) -> TargetResponse:
        return TargetResponse.model_validate(BODY)

    class Plain:
        name = "plain"
        ask = staticmethod(answer)

    return [
        GauntletTarget("http://127.0.0.1:9/ask", exchange=MockExchange(_reply)),
        *(
            build_target(
                parse_target_file(text, "t.yaml", environ={}, base_dir=Path()),
                exchange=MockExchange(_reply),
            )
            for text in (OPENAI, TEMPLATE)
        ),
        CallableTarget(Plain()),
    ]


def test_every_target_kind_is_asked_with_one_question() -> None:
    # Trap: a kind that keeps its own list of parameters (prompt, language, history, stop,
    # conversation, tools), so a new thing to ask with is added to each kind by hand again.
    async def go() -> None:
        for target in _every_kind():
            parameters = list(inspect.signature(target.ask).parameters)
            assert parameters == ["question"], f"{type(target).__name__}.ask{parameters}"
            traced = await target.ask(Question("hi", "en"))
            assert traced.response.text == "a"
            await target.aclose()

    asyncio.run(go())


def test_a_question_is_one_frozen_value() -> None:
    # Trap: a question a target could change under the engine (its history, its tools).
    question = Question("hi", "en", HISTORY)
    with pytest.raises(AttributeError):
        question.prompt = "other"  # type: ignore[misc]
    assert question.history == HISTORY
    assert (question.tools, question.conversation, question.stop) == (None, None, None)


def _asked(target: object, history: Sequence[Message] | None) -> list[Any]:
    async def go() -> list[Any]:
        adapted = as_async_target(target)  # type: ignore[arg-type]
        await adapted.ask(Question("hi", "en", None if history is None else tuple(history)))
        await adapted.aclose()
        return target.seen  # type: ignore[attr-defined,no-any-return]

    return asyncio.run(go())


class _Sync:
    name = "sync"

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def ask(self, prompt: str, language: str, history: Sequence[Message] = ()) -> TargetResponse:
        self.seen.append((prompt, language, tuple(history)))
        return TargetResponse.model_validate(BODY)


class _Async(_Sync):
    name = "async"

    async def ask(  # type: ignore[override]
        self, prompt: str, language: str, history: Sequence[Message] = ()
    ) -> TargetResponse:
        return super().ask(prompt, language, history)


class _Keywords(_Sync):
    name = "keywords"

    def ask(self, prompt: str, language: str, **extra: Any) -> TargetResponse:  # type: ignore[override]
        return super().ask(prompt, language, extra.get("history", ()))


@pytest.mark.parametrize("kind", [_Sync, _Async, _Keywords])
def test_the_documented_python_contract_is_kept(kind: type[_Sync]) -> None:
    # Trap: the seam's new shape leaking to users: a Python target written to the documented
    # `ask(prompt, language[, history])`, plain or a coroutine, must answer as it always did.
    assert _asked(kind(), None) == [("hi", "en", ())]
    assert _asked(kind(), HISTORY) == [("hi", "en", HISTORY)]


def test_history_for_a_python_target_without_it_is_a_contract_error() -> None:
    # Trap: history dropped silently for a target whose ask() cannot take it.
    class Single:
        name = "single"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            return TargetResponse.model_validate(BODY)

    adapted = CallableTarget(Single())
    assert adapted.holds_conversations is False
    with pytest.raises(TargetContractError, match="takes no `history`"):
        asyncio.run(adapted.ask(Question("hi", "en", HISTORY)))


class _Shifty:
    """A Python target whose attributes change each time they are read."""

    def __init__(self, names: Sequence[object]) -> None:
        self._names = list(names)
        self.reads = 0

    @property
    def name(self) -> object:
        self.reads += 1
        return self._names[min(self.reads, len(self._names)) - 1]

    def ask(self, prompt: str, language: str) -> TargetResponse:
        return TargetResponse.model_validate(BODY)


SHIFTY = """
from gauntlet.targets.contract import TargetResponse

class Shifty:
    reads = 0

    @property
    def name(self):
        Shifty.reads += 1
        return "good" if Shifty.reads == 1 else 42

    def ask(self, prompt, language):
        return TargetResponse(
            text=prompt, citations=(), context_ids=(), refused=False, escalated=False
        )

def make():
    return Shifty()
"""


def test_a_python_targets_name_is_read_once_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the name checked on one read and recorded from another, so a target can pass
    # the check with text and then put anything (not text, a secret) in the results.
    module = f"shifty_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{module}.py").write_text(SHIFTY)
    monkeypatch.chdir(tmp_path)
    try:
        built = build_callable_target(f"{module}:make", concurrency=1)
        reads = sys.modules[module].Shifty.reads
    finally:
        sys.modules.pop(module, None)
    assert (built.name, built.target.name, reads) == ("good", "good", 1)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (42, "without a `name` text"),
        ("   ", "without a `name` text"),
        ("bad \udcff", "a lone surrogate"),
    ],
)
def test_a_python_target_adapted_with_a_bad_name_is_refused(name: object, message: str) -> None:
    # Trap: a name checked only on the `--callable` path, so a target adapted elsewhere (the
    # engine's own adaptation of a library caller's object) records whatever it gave.
    with pytest.raises(TargetContractError, match=message):
        CallableTarget(_Shifty([name]))  # type: ignore[arg-type]
