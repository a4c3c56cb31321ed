"""Multi-turn cases: history passed turn by turn, scored per turn, silence at any turn fails."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Outcome, Results, TargetInfo
from gauntlet.run.schedule import schedule
from gauntlet.run.scoring import Observation, gate_trial
from gauntlet.targets.contract import Message, TargetResponse, ToolCall
from gauntlet.targets.exchange import MockExchange, MockReply, Request
from gauntlet.targets.http import GauntletTarget

INFO = TargetInfo(kind="callable", name="scripted")

SUITE = """suite: talk
gate: false_positive
version: 1
threshold: 1
cases:
  - id: talk
    language: en
    turns:
      - user: first
      - user: second
        must_not_contain: [secret]
      - user: third
    must_contain: [third]
"""


def _suites(tmp_path: Path) -> SuiteSet:
    (tmp_path / "s.yaml").write_text(SUITE)
    return load_suites([tmp_path])


def _answer(text: str) -> TargetResponse:
    return TargetResponse(text=text, citations=(), context_ids=(), refused=False, escalated=False)


class Scripted:
    """Answers from a script, keyed by the user's message, and records the history it got."""

    name = "scripted"

    def __init__(self, script: dict[str, str]) -> None:
        self.script = script
        self.seen: list[tuple[str, tuple[Message, ...] | None]] = []

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        self.seen.append((prompt, tuple(history) if history is not None else None))
        return _answer(self.script[prompt])


def _run(tmp_path: Path, target: object) -> Results:
    return run_gauntlet(_suites(tmp_path), target, target_info=INFO)  # type: ignore[arg-type]


def test_each_turn_gets_the_conversation_so_far(tmp_path: Path) -> None:
    target = Scripted({"first": "one", "second": "two", "third": "about third"})
    results = _run(tmp_path, target)
    assert results.cases[0].outcome is Outcome.PASSED
    assert target.seen == [
        ("first", ()),
        ("second", ({"role": "user", "content": "first"}, {"role": "assistant", "content": "one"})),
        (
            "third",
            (
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": "one"},
                {"role": "user", "content": "second"},
                {"role": "assistant", "content": "two"},
            ),
        ),
    ]
    [trial] = results.cases[0].trials
    assert [turn.response.text for turn in trial.turns] == ["one", "two", "about third"]
    assert results.cases[0].prompt == "third"


def test_the_first_turn_that_broke_is_named(tmp_path: Path) -> None:
    results = _run(tmp_path, Scripted({"first": "one", "second": "the secret", "third": "x"}))
    case = results.cases[0]
    assert case.outcome is Outcome.FAILED
    assert case.reason == "turn 2 of 3: says 'secret', which this turn must not"
    # Every turn's answer is kept, the later ones judged too.
    assert [turn.passed for turn in case.trials[0].turns] == [True, False, False]


def test_silence_at_any_turn_fails_the_conversation(tmp_path: Path) -> None:
    results = _run(tmp_path, Scripted({"first": "\u200b", "second": "two", "third": "third"}))
    assert results.cases[0].reason.startswith("turn 1 of 3: unreadable answer: '\\u200b'")


def test_a_target_that_holds_no_conversations_is_told_so(tmp_path: Path) -> None:
    class OneShot:
        name = "one-shot"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            return _answer("hello")

    case = _run(tmp_path, OneShot()).cases[0]
    assert case.outcome is Outcome.ERRORED
    assert case.reason == (
        "turn 1 of 3: one-shot holds no conversations: its ask() takes no `history`, and "
        "multi-turn cases need ask(prompt, language, history=...)"
    )


def test_a_turn_that_gets_no_answer_errors_the_case_at_that_turn(tmp_path: Path) -> None:
    class Breaks:
        name = "breaks"

        def ask(self, prompt: str, language: str, **extra: object) -> TargetResponse:
            if prompt == "second":
                raise RuntimeError("lost the thread")
            return _answer(prompt)

    case = _run(tmp_path, Breaks()).cases[0]
    assert case.outcome is Outcome.ERRORED
    assert case.reason == "turn 2 of 3: the target raised RuntimeError: lost the thread"
    assert [turn.user for turn in case.trials[0].turns] == ["first"]


def test_http_sends_history_only_for_conversations() -> None:
    bodies: list[dict[str, object]] = []

    def handler(request: Request) -> MockReply:
        bodies.append(json.loads(request.body))
        return MockReply.json(_answer("ok").model_dump(mode="json"))

    async def go() -> None:
        target = GauntletTarget("http://t.test/", exchange=MockExchange(handler))
        await target.ask("single", "en")
        await target.ask("again", "en", ({"role": "user", "content": "hi"},))
        await target.aclose()

    asyncio.run(go())
    assert bodies == [
        {"prompt": "single", "language": "en"},
        {"prompt": "again", "language": "en", "history": [{"role": "user", "content": "hi"}]},
    ]


AGENT_SUITE = """suite: agent-talk
gate: trajectory
version: 1
threshold: 1
cases:
  - id: agent-talk
    language: en
    turns:
      - user: hello
      - user: hours please
    expect_calls: [{name: lookup_hours}]
    min_tool_accuracy: 1.0
"""


class Agent:
    """Looks the hours up at the last turn only, reporting its calls at every turn."""

    name = "agent"

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        calls = (
            (ToolCall(id="c1", name="lookup_hours", arguments={}, output="9 to 5"),)
            if prompt == "hours please"
            else ()
        )
        return _answer("Open 9 to 5." if calls else "Hello!").model_copy(
            update={"tool_calls": calls}
        )


def test_a_conversations_last_turn_is_scored_for_its_trajectory(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(AGENT_SUITE)
    results = run_gauntlet(load_suites([tmp_path]), Agent(), target_info=INFO)
    (case,) = results.cases
    assert case.outcome is Outcome.PASSED, case.reason
    (trial,) = case.trials
    assert trial.scores is not None
    assert trial.scores.tool_accuracy == 1.0


def test_a_turn_that_leaks_its_marker_spelled_out_fails_naming_the_spelling(
    tmp_path: Path,
) -> None:
    # Trap: a turn's must_not_contain matched as written only, so a spelled leak passes.
    target = Scripted({"first": "one", "second": "s-e-c-r-e-t", "third": "third"})
    [case] = _run(tmp_path, target).cases
    assert case.outcome is Outcome.FAILED
    assert case.reason == (
        "turn 2 of 3: says 'secret' spelled with its letters apart, which this turn must not"
    )


def _observed(response: TargetResponse, *conversation: TargetResponse) -> Observation:
    return Observation(response, None, 1.0, conversation=conversation)


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        (("one", "two"), "the conversation holds 2 answers for a script of 3 turns"),
        (
            ("one", "two", "third", "more"),
            "the conversation holds 4 answers for a script of 3 turns",
        ),
        ((), "the conversation holds 0 answers for a script of 3 turns"),
    ],
)
def test_a_conversation_that_does_not_answer_each_turn_of_its_script_is_errored(
    tmp_path: Path, said: tuple[str, ...], reason: str
) -> None:
    # Trap: turns paired with answers by zip, so with one answer short the last turn, which
    # the gate judges (here `must_contain: [third]`), is never judged and the case passes.
    [item] = schedule(_suites(tmp_path)).items
    answers = tuple(_answer(text) for text in said)
    trial = gate_trial(
        item, _observed(answers[-1] if answers else _answer("about third"), *answers)
    )
    assert (trial.outcome, trial.reason) == (Outcome.ERRORED, reason)


def test_a_last_answer_that_is_not_the_conversations_last_is_errored(tmp_path: Path) -> None:
    # Trap: the turns judged on one answer, the gate's scores taken from another.
    [item] = schedule(_suites(tmp_path)).items
    answers = (_answer("one"), _answer("two"), _answer("third"))
    trial = gate_trial(item, _observed(_answer("other"), *answers))
    assert (trial.outcome, trial.reason) == (
        Outcome.ERRORED,
        "the answer recorded as the last is not the conversation's last",
    )
    assert gate_trial(item, _observed(answers[-1], *answers)).outcome is Outcome.PASSED
