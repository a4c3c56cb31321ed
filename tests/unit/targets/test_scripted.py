"""The scripted tool loop's own rules: which result answers a call, and how the loop ends.

The loop is driven here by an `AskTurn` that hands out completions from a list, with no
network; `tests/acceptance/test_tool_loop.py` runs it against a real server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import ToolResult, ToolSpec
from gauntlet.errors import TargetContractError, TargetError, TargetTimeoutError
from gauntlet.targets.contract import ToolCall, Usage
from gauntlet.targets.mapping import Requested
from gauntlet.targets.scripted import (
    Loop,
    Scripted,
    Turn,
    answer,
    openai_tools,
    run_loop,
    scripted_for,
    scripted_result,
)
from gauntlet.trajectory.scoring import ArgumentsError

LOOKUP = ToolSpec(
    name="lookup_hours",
    description="Opening hours of a branch.",
    parameters={
        "type": "object",
        "properties": {
            "branch": {"type": "string"},
            "day": {"type": "string", "enum": ["mon", "sat"]},
            "filters": {"type": "object"},
        },
        "required": ["branch"],
        "additionalProperties": False,
    },
)
NOW = ToolSpec(name="now", description="The time.", parameters={"type": "object"})


def _result(tool: str, when: dict[str, Any] | None = None, **said: Any) -> ToolResult:
    return ToolResult.model_validate({"tool": tool, **({"when": when} if when else {}), **said})


RESULTS = (
    _result("lookup_hours", {"branch": "main", "filters": {"a": 1, "b": [1, 2]}}, output="deep"),
    _result("lookup_hours", {"branch": "main"}, output={"opens": "9:00"}),
    _result("lookup_hours", output="no such branch"),
    _result("lookup_hours", {"branch": "east"}, error="the east branch is closed"),
)
SCRIPTED = Scripted((LOOKUP, NOW), RESULTS, max_steps=3)


def _asked(name: str, arguments: object, call_id: str = "c1") -> Requested:
    decoded: dict[str, Any] | ArgumentsError
    if isinstance(arguments, str):
        decoded = ArgumentsError("arguments is not JSON: nope")
        text = arguments
    else:
        assert isinstance(arguments, dict)
        decoded, text = arguments, json.dumps(arguments)
    return Requested(call_id, name, decoded, text, "somewhere", {})


# ---------------------------------------------------------------- which result answers


@pytest.mark.parametrize(
    ("arguments", "output"),
    [
        ({"branch": "main"}, {"opens": "9:00"}),
        ({"day": "sat", "branch": "main"}, {"opens": "9:00"}),  # more arguments than `when`
        ({"filters": {"b": [1, 2], "a": 1, "c": 3}, "branch": "main"}, "deep"),  # key order
        ({"filters": {"b": [2, 1], "a": 1}, "branch": "main"}, {"opens": "9:00"}),  # lists whole
        ({"branch": "west"}, "no such branch"),  # the default, written before a later `when`
        ({"branch": "Main"}, "no such branch"),
    ],
)
def test_the_first_result_whose_when_the_arguments_hold_answers_else_the_default(
    arguments: dict[str, Any], output: object
) -> None:
    result = scripted_result(RESULTS, "lookup_hours", arguments)
    assert result is not None and result.output == output


def test_a_when_written_after_the_default_still_comes_first() -> None:
    result = scripted_result(RESULTS, "lookup_hours", {"branch": "east"})
    assert result is not None and result.error == "the east branch is closed"


def test_of_two_defaults_the_first_answers() -> None:
    # The case loader refuses two; the rule still holds for results built another way.
    results = (_result("now", output="first"), _result("now", output="second"))
    result = scripted_result(results, "now", {})
    assert result is not None and result.output == "first"


def test_a_tool_with_no_default_has_no_result_for_other_arguments() -> None:
    results = (_result("lookup_hours", {"branch": "main"}, output="x"),)
    assert scripted_result(results, "lookup_hours", {"branch": "west"}) is None
    assert scripted_result(results, "now", {}) is None


# ---------------------------------------------------------------- answering one call


def test_a_call_the_script_answers_records_its_output_and_step() -> None:
    done = answer(SCRIPTED, _asked("lookup_hours", {"branch": "main"}, "call_7"), 2)
    assert done.call == ToolCall(
        id="call_7",
        name="lookup_hours",
        arguments={"branch": "main"},
        output={"opens": "9:00"},
        step=2,
    )
    assert done.message == {
        "role": "tool",
        "tool_call_id": "call_7",
        "content": '{"opens": "9:00"}',  # a JSON value written as JSON
    }
    text = answer(SCRIPTED, _asked("lookup_hours", {"branch": "west"}), 0)
    assert text.message["content"] == "no such branch"  # text as it is


@pytest.mark.parametrize(
    ("asked", "error"),
    [
        (
            _asked("lookup_opening", {"branch": "main"}),
            "unknown tool 'lookup_opening': the tools are lookup_hours, now",
        ),
        (
            _asked("lookup_hours", '{"branch": '),
            "arguments are not a JSON object: arguments is not JSON: nope",
        ),
        (
            _asked("lookup_hours", {"branch": 7}),
            "arguments do not match the schema at $.branch: 7 is not of type 'string'",
        ),
        (
            _asked("lookup_hours", {"branch": "main", "day": "sun"}),
            "arguments do not match the schema at $.day: 'sun' is not one of ['mon', 'sat']",
        ),
        (
            _asked("lookup_hours", {}),
            "arguments do not match the schema: 'branch' is a required property",
        ),
        (
            _asked("lookup_hours", {"branch": "main", "city": "x"}),
            "arguments do not match the schema: Additional properties are not allowed "
            "('city' was unexpected)",
        ),
        (_asked("lookup_hours", {"branch": "east"}), "the east branch is closed"),
        (_asked("now", {}), "no scripted result for these arguments"),
    ],
)
def test_a_call_that_cannot_be_answered_is_recorded_with_the_error_it_was_answered_with(
    asked: Requested, error: str
) -> None:
    done = answer(SCRIPTED, asked, 1)
    assert done.call.error == error
    assert done.call.output is None
    assert done.call.step == 1
    assert done.call.arguments == (asked.arguments if isinstance(asked.arguments, dict) else {})
    assert json.loads(done.message["content"]) == {"error": error}
    assert done.message["tool_call_id"] == asked.id


def test_a_long_schema_violation_is_cut() -> None:
    done = answer(SCRIPTED, _asked("lookup_hours", {"branch": "x" * 1000, "day": "y" * 900}), 0)
    assert done.call.error is not None
    assert len(done.call.error) <= 300
    assert done.call.error.endswith("…")


# ---------------------------------------------------------------- what a case offers


def _suite(tmp_path: Path, gate: str, tools: list[dict[str, Any]], case: dict[str, Any]) -> Any:
    """A suite of one case, loaded from a file as `gauntlet run` loads it."""
    base: dict[str, Any] = {"id": f"{gate}-c", "language": "en", "prompt": "p"}
    if gate == "adversarial":
        base |= {"attack_type": "prompt_leak", "must_not_contain": ["X"]}
    if gate == "grounding":
        base |= {"expect_grounded": False}
    if gate == "trajectory":
        base |= {"max_calls": 2}
    suite: dict[str, Any] = {
        "suite": gate,
        "gate": gate,
        "version": 1,
        "threshold": 1,
        "cases": [{**base, **case}],
    }
    if gate != "grounding":
        suite |= {"tools": tools, "max_steps": 5}
    path = tmp_path / f"{gate}.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")  # JSON is YAML
    [loaded] = load_suites([path]).suites
    return loaded.suite


def test_a_case_is_offered_its_suites_tools_then_its_own_with_its_results(tmp_path: Path) -> None:
    spec = LOOKUP.model_dump()
    for gate in ("trajectory", "adversarial"):
        suite = _suite(
            tmp_path,
            gate,
            [NOW.model_dump()],
            {"tools": [spec], "tool_results": [{"tool": "now", "output": "noon"}]},
        )
        scripted = scripted_for(suite.cases[0], suite)
        assert scripted == Scripted((NOW, LOOKUP), (_result("now", output="noon"),), max_steps=5), (
            gate
        )


def test_a_case_with_no_tools_anywhere_runs_no_loop(tmp_path: Path) -> None:
    for gate in ("trajectory", "grounding"):
        suite = _suite(tmp_path, gate, [], {})
        assert scripted_for(suite.cases[0], suite) is None


def test_the_tools_go_out_in_openais_format() -> None:
    assert openai_tools([NOW]) == [
        {
            "type": "function",
            "function": {
                "name": "now",
                "description": "The time.",
                "parameters": {"type": "object"},
            },
        }
    ]


# ---------------------------------------------------------------- the loop


def _completion(
    content: str | None = None, tool_calls: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _loop(
    turns: Sequence[Turn | TargetError], scripted: Scripted = SCRIPTED
) -> tuple[Loop[Mapping[str, Any]], list[list[dict[str, Any]]]]:
    """Run the loop over `turns`; also give the messages each turn was sent."""
    handed = list(turns)
    sent: list[list[dict[str, Any]]] = []

    async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
        assert step == len(sent)
        sent.append(list(messages))
        turn = handed.pop(0)
        if isinstance(turn, TargetError):
            raise turn
        return turn

    start = [{"role": "user", "content": "When?"}]
    return asyncio.run(run_loop(scripted, start, ask, lambda completion: completion)), sent


def test_the_loop_answers_each_turns_calls_until_an_answer_calls_none() -> None:
    first = _completion(
        "Looking.",
        [
            _call("a", "lookup_hours", '{"branch": "main"}'),
            _call("b", "now", "{}"),
        ],
    )
    second = _completion(None, [_call("a", "lookup_hours", '{"branch": "west"}')])
    final = _completion("Open at 9:00.")
    loop, sent = _loop(
        [
            Turn(first, attempts=2, waited=0.5, usage=Usage(prompt_tokens=1, total_tokens=3),
                 first_token_ms=12.0),
            Turn(second, usage=Usage(prompt_tokens=2, total_tokens=5), first_token_ms=99.0),
            Turn(final, usage=Usage(prompt_tokens=3, total_tokens=7)),
        ]
    )  # fmt: skip
    assert loop.final == final
    assert loop.calls == (
        ToolCall(id="a", name="lookup_hours", arguments={"branch": "main"},
                 output={"opens": "9:00"}, step=0),
        ToolCall(id="b", name="now", arguments={}, error="no scripted result for these arguments",
                 step=0),
        ToolCall(id="a", name="lookup_hours", arguments={"branch": "west"},
                 output="no such branch", step=1),
    )  # fmt: skip
    assert (loop.turns, loop.attempts, loop.waited) == (3, 4, 0.5)
    assert loop.usage == Usage(prompt_tokens=6, total_tokens=15)  # completion_tokens unknown
    assert loop.first_token_ms == 12.0
    assert sent[1][1:] == [
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                _call("a", "lookup_hours", '{"branch": "main"}'),  # the arguments as sent
                _call("b", "now", "{}"),
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"opens": "9:00"}'},
        {
            "role": "tool",
            "tool_call_id": "b",
            "content": '{"error": "no scripted result for these arguments"}',
        },
    ]
    assert len(sent[2]) == len(sent[1]) + 2


def test_a_turn_that_reports_no_usage_leaves_the_sum_unknown() -> None:
    loop, _ = _loop(
        [
            Turn(_completion(None, [_call("a", "now", "{}")]), usage=Usage(total_tokens=3)),
            Turn(_completion("Done.")),
        ]
    )
    assert loop.usage == Usage()
    nothing, _ = _loop([Turn(_completion("Done."))])
    assert nothing.usage is None
    assert nothing.calls == ()


def test_a_model_still_calling_tools_after_max_steps_is_an_error_not_an_answer() -> None:
    calling = Turn(_completion(None, [_call("a", "now", "{}")]), attempts=2, waited=1.0)
    with pytest.raises(TargetError) as caught:
        _loop([calling] * 3)
    assert type(caught.value) is TargetError
    assert str(caught.value) == (
        "the model was still calling tools after max_steps 3 turns (3 calls, the last now); "
        "raise the suite's max_steps if the task needs more"
    )
    assert (caught.value.attempts, caught.value.waited) == (6, 3.0)


def test_a_turn_that_fails_is_named_with_every_earlier_turns_attempts_counted() -> None:
    calling = Turn(_completion(None, [_call("a", "now", "{}")]), attempts=2, waited=1.0)
    timed_out = TargetTimeoutError("no answer within 30 s")
    timed_out.attempts, timed_out.waited = 3, 2.0
    with pytest.raises(TargetTimeoutError) as caught:
        _loop([calling, timed_out])
    assert str(caught.value) == "tool loop, turn 2: no answer within 30 s"
    assert (caught.value.attempts, caught.value.waited) == (5, 3.0)


@pytest.mark.parametrize(
    ("completion", "message"),
    [
        (
            _completion(None, [{"type": "function", "function": {"name": "now"}}]),
            "tool loop, turn 1: tool_calls: `choices[0].message.tool_calls[0]` has no `id`",
        ),
        (
            {"choices": []},
            "tool loop, turn 1: `choices` is an empty list: the answer has no message",
        ),
    ],
)
def test_an_answer_whose_calls_cannot_be_read_is_a_contract_error(
    completion: dict[str, Any], message: str
) -> None:
    with pytest.raises(TargetContractError) as caught:
        _loop([Turn(completion, attempts=2)])
    assert str(caught.value) == message
    assert caught.value.attempts == 2


def test_a_final_answer_the_mapping_refuses_is_named_with_its_turn() -> None:
    def finish(completion: Mapping[str, Any]) -> None:
        raise TargetContractError("text: the answer has no content")

    async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
        if step == 0:
            return Turn(_completion(None, [_call("a", "now", "{}")]))
        return Turn(_completion("x"))

    with pytest.raises(TargetContractError) as caught:
        asyncio.run(run_loop(SCRIPTED, [], ask, finish))
    assert str(caught.value) == "tool loop, turn 2: text: the answer has no content"
    assert caught.value.attempts == 2
