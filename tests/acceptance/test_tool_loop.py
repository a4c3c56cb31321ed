"""The scripted tool loop against a real chat server: what goes out, what is recorded, how it ends.

Each test serves a `FakeChatModel` on 127.0.0.1 that follows a script of assistant messages
and records every request, builds the openai-chat target a target file describes (over the
real aiohttp exchange), and asks it with a case's scripted tools, or runs the command line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import ToolSpec
from gauntlet.errors import TargetError
from gauntlet.targets.configured import build_target
from gauntlet.targets.contract import (
    Conversation,
    FieldName,
    Origin,
    Question,
    ToolCall,
    Traced,
    Usage,
)
from gauntlet.targets.http import PROBE_PROMPT
from gauntlet.targets.scripted import Scripted, scripted_for
from gauntlet.targets.target_file import parse_target_file

from ..cli_helpers import RunCli
from ..fake_chat_model import (
    FakeChatModel,
    Message,
    call,
    calls,
    in_order,
    says,
    serving,
    tool_messages,
)

pytestmark = pytest.mark.network

SUITE = """\
suite: agent
gate: trajectory
version: 1
threshold: 1
max_steps: 3
tools:
  - name: lookup_hours
    description: The opening hours of a library branch.
    parameters:
      type: object
      properties:
        branch: {type: string}
        filters:
          type: object
      required: [branch]
      additionalProperties: false
cases:
  - id: hours-main
    language: en
    prompt: When is the main library open?
    tools:
      - name: now
        description: The current time.
        parameters: {type: object}
    tool_results:
      - tool: lookup_hours
        when: {filters: {open: true, day: sat}, branch: main}
        output: {opens: "10:00", closes: "14:00"}
      - tool: lookup_hours
        when: {branch: main}
        output: {opens: "9:00", closes: "17:00"}
      - tool: lookup_hours
        output: unknown branch
      - tool: now
        output: "08:30"
    expect_calls:
      - name: lookup_hours
        arguments: {branch: main}
    must_contain: ["9:00"]
"""


HOURS = ToolSpec(name="lookup_hours", description="Hours.", parameters={"type": "object"})


def _target_file(url: str, *, stream: bool = False, extra: str = "") -> str:
    return (
        f"version: 1\nkind: openai-chat\nbase_url: {url}\nmodel: fake-agent\n"
        f"stream: {'true' if stream else 'false'}\nsystem: You answer library questions.\n"
        f"{extra}response:\n  citations: {{absent: true}}\n  context_ids: {{absent: true}}\n"
        "  escalated: {absent: true}\n"
    )


@pytest.fixture
def scripted(tmp_path: Path) -> Scripted:
    """The scripted tools of the suite's one case, as the engine builds them."""
    path = tmp_path / "agent.yaml"
    path.write_text(SUITE, encoding="utf-8")
    [loaded] = load_suites([path]).suites
    found = scripted_for(loaded.cases[0], loaded.suite)
    assert found is not None
    return found


def _ask(url: str, tools: Scripted | None, *, stream: bool = False, extra: str = "") -> Traced:
    loaded = parse_target_file(
        _target_file(url, stream=stream, extra=extra), "t.yaml", environ={}, base_dir=Path()
    )

    async def go() -> Traced:
        target = build_target(loaded)
        try:
            return await target.ask(
                Question(
                    "When is the main library open?",
                    "en",
                    conversation=Conversation("hours-main"),
                    tools=tools,
                )
            )
        finally:
            await target.aclose()

    return asyncio.run(go())


@pytest.fixture
def chat() -> Iterator[tuple[FakeChatModel, str]]:
    """A model that looks the hours up (twice in parallel, then once more), then answers."""

    def script(messages: list[Message]) -> Message:
        answered = tool_messages(messages)
        if not answered:
            return calls(
                call("call_a", "lookup_hours", {"branch": "main"}),
                call("call_b", "now", "{}"),
                content="Let me check.",
            )
        if len(answered) == 2:
            return calls(
                call("call_c", "lookup_hours", {"filters": {"day": "sat", "open": True},
                                                "branch": "main"}),
            )  # fmt: skip
        return says("The main library is open 9:00 to 17:00.")

    with serving(script) as served:
        yield served


# ---------------------------------------------------------------- a whole trajectory


@pytest.mark.parametrize("stream", [False, True])
def test_the_loop_offers_the_tools_answers_every_call_and_records_the_trajectory(
    chat: tuple[FakeChatModel, str], scripted: Scripted, stream: bool
) -> None:
    model, url = chat
    traced = _ask(url, scripted, stream=stream, extra="tool_choice: required\n")
    assert traced.response.text == "The main library is open 9:00 to 17:00."
    assert traced.response.tool_calls == (
        ToolCall(id="call_a", name="lookup_hours", arguments={"branch": "main"},
                 output={"opens": "9:00", "closes": "17:00"}, step=0),
        ToolCall(id="call_b", name="now", arguments={}, output="08:30", step=0),
        ToolCall(id="call_c", name="lookup_hours",
                 arguments={"branch": "main", "filters": {"open": True, "day": "sat"}},
                 output={"opens": "10:00", "closes": "14:00"}, step=1),
    )  # fmt: skip
    assert traced.provenance[FieldName.TOOL_CALLS].origin is Origin.DECLARED
    assert "scripted tool loop" in (traced.provenance[FieldName.TOOL_CALLS].rule or "")
    # 10 prompt tokens a message sent: 2, then 5 (+ an assistant turn and 2 results), then 7
    assert traced.usage == Usage(prompt_tokens=140, completion_tokens=15, total_tokens=155)
    assert traced.attempts == 3
    assert (traced.first_token_ms is not None) is stream

    first, second, third = model.requests
    offered = [tool["function"]["name"] for tool in first["tools"]]
    assert offered == ["lookup_hours", "now"]  # the suite's, then the case's
    assert first["tools"][0] == {
        "type": "function",
        "function": {
            "name": "lookup_hours",
            "description": "The opening hours of a library branch.",
            "parameters": {
                "type": "object",
                "properties": {"branch": {"type": "string"}, "filters": {"type": "object"}},
                "required": ["branch"],
                "additionalProperties": False,
            },
        },
    }
    assert all(body["tools"] == first["tools"] for body in (second, third))
    assert first["tool_choice"] == "required"
    assert "tool_choice" not in second and "tool_choice" not in third  # free to answer
    assert [body["stream"] for body in model.requests] == [stream] * 3
    assert first["messages"] == [
        {"role": "system", "content": "You answer library questions."},
        {"role": "user", "content": "When is the main library open?"},
    ]
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                call("call_a", "lookup_hours", {"branch": "main"}),
                call("call_b", "now", "{}"),
            ],
        },
        {"role": "tool", "tool_call_id": "call_a",
         "content": '{"opens": "9:00", "closes": "17:00"}'},
        {"role": "tool", "tool_call_id": "call_b", "content": "08:30"},
    ]  # fmt: skip
    assert third["messages"][:5] == second["messages"]
    assert [message["role"] for message in third["messages"][5:]] == ["assistant", "tool"]
    # The model sent no text beside call_c: it goes back as "", which every server takes.
    assert third["messages"][5]["content"] == ""


def test_a_named_tool_choice_forces_that_tool_on_the_first_turn_only(
    chat: tuple[FakeChatModel, str], scripted: Scripted
) -> None:
    model, url = chat
    forced = "tool_choice: {type: function, function: {name: lookup_hours}}\n"
    _ask(url, scripted, extra=forced)
    first, *rest = model.requests
    assert first["tool_choice"] == {"type": "function", "function": {"name": "lookup_hours"}}
    assert rest and all("tool_choice" not in body for body in rest)


def test_a_streamed_loop_records_what_the_same_loop_not_streamed_records(
    chat: tuple[FakeChatModel, str], scripted: Scripted
) -> None:
    _, url = chat
    whole, streamed = _ask(url, scripted), _ask(url, scripted, stream=True)
    assert streamed.response == whole.response
    assert streamed.usage == whole.usage
    assert streamed.provenance[FieldName.TOOL_CALLS] == whole.provenance[FieldName.TOOL_CALLS]


def test_without_tools_the_target_asks_once_and_offers_none(
    chat: tuple[FakeChatModel, str],
) -> None:
    model, url = chat
    traced = _ask(url, None, extra="tool_choice: required\n")
    assert [made.name for made in traced.response.tool_calls or ()] == ["lookup_hours", "now"]
    [body] = model.requests
    assert "tools" not in body and "tool_choice" not in body


# ---------------------------------------------------------------- calls that cannot be answered


def test_each_call_that_cannot_be_answered_is_recorded_and_answered_with_its_error(
    scripted: Scripted,
) -> None:
    script = in_order(
        calls(
            call("bad_1", "lookup_opening", {"branch": "main"}),
            call("bad_2", "lookup_hours", '{"branch": "main"'),
            call("bad_3", "lookup_hours", {"branch": 3}),
            call("bad_4", "lookup_hours", {"branch": "main", "day": "sat"}),
            call("bad_5", "lookup_hours", '["main"]'),
        ),
        calls(call("ok", "lookup_hours", {"branch": "west"})),
        says("I could not find the hours."),
    )
    with serving(script) as (model, url):
        traced = _ask(url, scripted)
    errors = {made.id: made.error for made in traced.response.tool_calls or ()}
    assert errors["bad_1"] == "unknown tool 'lookup_opening': the tools are lookup_hours, now"
    assert (errors["bad_2"] or "").startswith(
        "arguments are not a JSON object: arguments is not JSON: Expecting ',' delimiter"
    )
    assert errors["bad_3"] == (
        "arguments do not match the schema at $.branch: 3 is not of type 'string'"
    )
    assert errors["bad_4"] == (
        "arguments do not match the schema: Additional properties are not allowed "
        "('day' was unexpected)"
    )
    assert (
        errors["bad_5"]
        == "arguments are not a JSON object: arguments are a JSON array, not an object"
    )
    assert errors["ok"] is None
    recorded = {made.id: made for made in traced.response.tool_calls or ()}
    assert recorded["bad_2"].arguments == {} and recorded["bad_5"].arguments == {}
    assert recorded["bad_3"].arguments == {"branch": 3}
    assert recorded["ok"].output == "unknown branch"  # the tool's default
    assert [made.step for made in recorded.values()] == [0, 0, 0, 0, 0, 1]
    answers = tool_messages(model.requests[1]["messages"])
    assert [json.loads(answer["content"]) for answer in answers] == [
        {"error": errors[f"bad_{number}"]} for number in range(1, 6)
    ]
    # The undecodable arguments go back to the model exactly as it sent them.
    sent_back = model.requests[1]["messages"][-6]["tool_calls"][1]["function"]["arguments"]
    assert sent_back == '{"branch": "main"'


def test_a_tool_with_no_result_for_the_arguments_is_answered_so() -> None:
    no_default = Scripted((HOURS,), (), max_steps=2)
    script = in_order(calls(call("c", "lookup_hours", {"branch": "main"})), says("Sorry."))
    with serving(script) as (model, url):
        traced = _ask(url, no_default)
    [made] = traced.response.tool_calls or ()
    assert made.error == "no scripted result for these arguments"
    [answered] = tool_messages(model.requests[1]["messages"])
    assert json.loads(answered["content"]) == {"error": "no scripted result for these arguments"}


# ---------------------------------------------------------------- how the loop ends


def _forever(messages: list[Message]) -> Message:
    return calls(call(f"c{len(messages)}", "now", "{}"))


def test_a_model_that_keeps_calling_tools_errors_after_max_steps_turns(scripted: Scripted) -> None:
    with serving(_forever) as (model, url), pytest.raises(TargetError) as caught:
        _ask(url, scripted)
    assert str(caught.value) == (
        "the model was still calling tools after max_steps 3 turns (3 calls, the last now); "
        "raise the suite's max_steps if the task needs more"
    )
    assert len(model.requests) == 3
    assert caught.value.attempts == 3


# ---------------------------------------------------------------- the command line


def _agent(messages: list[Message]) -> Message:
    """Looks the hours up for the question it is asked, and answers from what it is told."""
    question = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    answered = tool_messages(messages)
    if question in (PROBE_PROMPT, "Hello there."):  # asked with no tools
        return says("OK.")
    if "forever" in question or (answered and "forever" in messages[1]["content"]):
        return _forever(messages)
    if not answered:
        branch = "main" if "main" in question else "west"
        return calls(call("c1", "lookup_hours", {"branch": branch}))
    told = answered[-1]["content"]
    return says(f"I was told: {told}.")


CLI_CASES = (
    SUITE
    + """\
  - id: hours-west
    language: en
    prompt: When is the west library open?
    tool_results:
      - tool: lookup_hours
        output: unknown branch
    expect_calls:
      - name: lookup_hours
        arguments: {branch: main}
"""
)


def _run(run_cli: RunCli, tmp_path: Path, url: str, cases: str) -> tuple[int, dict[str, Any], str]:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "agent.yaml").write_text(cases, encoding="utf-8")
    (tmp_path / "target.yaml").write_text(_target_file(url), encoding="utf-8")
    out = tmp_path / "results.json"
    result = run_cli(
        "run", "--target", tmp_path / "target.yaml", "--cases", tmp_path / "cases", "--out", out
    )
    assert out.exists(), result.show()
    return result.code, json.loads(out.read_text(encoding="utf-8")), result.show()


def test_gauntlet_run_passes_one_trajectory_case_and_fails_the_other(
    run_cli: RunCli, tmp_path: Path
) -> None:
    with serving(_agent) as (_, url):
        code, results, shown = _run(run_cli, tmp_path, url, CLI_CASES)
    assert code == 1, shown
    cases = {case["case_id"]: case for case in results["cases"]}
    assert cases["hours-main"]["outcome"] == "passed", shown
    [trial] = cases["hours-main"]["trials"]
    assert trial["response"]["tool_calls"] == [
        {
            "id": "c1",
            "name": "lookup_hours",
            "arguments": {"branch": "main"},
            "output": {"opens": "9:00", "closes": "17:00"},
            "error": None,
            "parent_ids": None,
            "latency_ms": None,
            "step": 0,
        }
    ]
    failed = cases["hours-west"]
    assert failed["outcome"] == "failed", shown
    assert failed["reason"] == (
        'order in_order: lookup_hours(exact {"branch":"main"}) was not called; calls: '
        '1: lookup_hours({"branch":"west"})'
    )
    [trial] = failed["trials"]
    assert trial["response"]["tool_calls"][0]["output"] == "unknown branch"


def test_gauntlet_run_errors_a_case_whose_model_never_stops_calling_tools(
    run_cli: RunCli, tmp_path: Path
) -> None:
    forever = SUITE.replace("When is the main library open?", "Call tools forever.")
    with serving(_agent) as (_, url):
        code, results, shown = _run(run_cli, tmp_path, url, forever)
    assert code == 2, shown
    [case] = results["cases"]
    assert case["outcome"] == "errored", shown
    assert "still calling tools after max_steps 3 turns" in case["reason"]


def test_a_conversations_tools_are_offered_on_its_last_turn_only(
    run_cli: RunCli, tmp_path: Path
) -> None:
    two_turns = SUITE.replace(
        "    prompt: When is the main library open?\n",
        "    turns:\n      - user: Hello there.\n      - user: When is the main library open?\n",
    )
    with serving(_agent) as (model, url):
        code, results, shown = _run(run_cli, tmp_path, url, two_turns)
    assert code == 0, shown
    [case] = results["cases"]
    assert case["outcome"] == "passed", shown
    probe, first_turn, *looped = model.requests
    assert "tools" not in probe and "tools" not in first_turn
    assert [body["messages"][-1]["role"] for body in looped] == ["user", "tool"]
    assert all("tools" in body for body in looped)
