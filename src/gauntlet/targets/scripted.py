"""The scripted tool loop: gauntlet plays a case's tools for a chat model, from the case's script.

An `openai-chat` target is a model, not an agent: it asks for tool calls and waits for their
results. When a case (or its suite) declares `tools`, gauntlet holds that conversation itself:

1. Each request carries the tools in OpenAI's format (`[{type: function, function: {name,
   description, parameters}}]`), and on the first turn the target file's `tool_choice`.
2. For each tool call of the assistant's answer, in order, the call is answered:

   - a tool nobody declared: an error result, `unknown tool ...`;
   - arguments that are not a JSON object (undecodable text, duplicate keys, `NaN`, an
     array): an error result, `arguments are not a JSON object: ...`;
   - arguments that break the tool's JSON Schema (draft 2020-12, checked with `jsonschema`):
     an error result, `arguments do not match the schema: ...`;
   - otherwise the case's first `tool_results` entry for that tool whose `when` is a subset of
     the arguments (compared as canonical JSON: key order never matters, objects compared
     the same way inside), else the tool's default (an entry with no `when`), else an error
     result, `no scripted result for these arguments`. A scripted `error` is an error
     result too.

   Every call is recorded as a `ToolCall` carrying the `output` or the `error` it was
   answered with and its `step`: the model turn it came from, counted from 0, so calls of
   one assistant message share a step. Arguments that are not an object are recorded as
   `{}`, the error saying why.
3. The assistant's message and one `role: tool` message per call (its `tool_call_id`, and as
   `content` the output as text, a JSON value written as JSON, or `{"error": "..."}`) are
   added to the conversation, and the model is asked again.
4. An answer with no tool calls ends the loop: it is the final answer, mapped as any answer
   of the target file is, and its `tool_calls` are the whole trajectory. A model still
   calling tools after `max_steps` turns errors the case (never a pass, never a hang).

Nothing but what the case wrote and what the model sent goes into a tool message. Token
usage is summed over the turns (`total_usage`); the time to the first token is the first
turn's. This module is pure but for the `AskTurn` it is given: the target sends each turn.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from gauntlet.cases.model import (
    AdversarialSuite,
    AnyCase,
    AnySuite,
    ToolResult,
    ToolSpec,
    TrajectorySuite,
    UsesTools,
)
from gauntlet.cases.tool_schema import tool_validator
from gauntlet.display import clipped
from gauntlet.errors import TargetError
from gauntlet.targets.contract import ToolCall, Usage, total_usage
from gauntlet.trajectory.scoring import ArgumentsError, Subset

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from gauntlet.targets.mapping import Requested

MAX_PROBLEM = 300
"""The most characters of a schema violation that an error result quotes."""

UNKNOWN_TOOL = "unknown tool"
NOT_AN_OBJECT = "arguments are not a JSON object"
SCHEMA_BROKEN = "arguments do not match the schema"
NO_RESULT = "no scripted result for these arguments"

_T = TypeVar("_T")


@dataclass(frozen=True)
class Scripted:
    """The tools a case offers a chat model, what they return, and how long the loop may run."""

    tools: tuple[ToolSpec, ...]
    """The suite's tools, then the case's."""
    results: tuple[ToolResult, ...] = ()
    """The case's `tool_results`, in the order written."""
    max_steps: int = 8
    """The most model turns; a model still calling tools after them errors the case."""
    _validators: dict[str, Draft202012Validator] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @cached_property
    def by_name(self) -> dict[str, ToolSpec]:
        """The tools by name."""
        return {tool.name: tool for tool in self.tools}

    def validator(self, tool: ToolSpec) -> Draft202012Validator:
        """The tool's arguments schema, compiled once, on a registry that retrieves nothing."""
        found = self._validators.get(tool.name)
        if found is None:
            found = self._validators[tool.name] = tool_validator(tool.parameters)
        return found


def scripted_for(case: AnyCase, suite: AnySuite) -> Scripted | None:
    """What the loop plays for `case` of `suite`: None when neither declares a tool."""
    if not isinstance(case, UsesTools) or not isinstance(suite, TrajectorySuite | AdversarialSuite):
        return None
    tools = (*suite.tools, *case.tools)
    if not tools:
        return None
    return Scripted(tools, case.tool_results, suite.max_steps)


def openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The tools as an OpenAI chat request's `tools`."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


class Answered(NamedTuple):
    """One call answered: as it is recorded, and the `role: tool` message sent back."""

    call: ToolCall
    message: dict[str, Any]


def answer(scripted: Scripted, requested: Requested, step: int) -> Answered:
    """Answer one call the model asked for, from the script; see the module's docstring."""
    output: Any = None
    error = _refusal(scripted, requested)
    arguments = requested.arguments if isinstance(requested.arguments, dict) else {}
    if error is None:
        result = scripted_result(scripted.results, requested.name, arguments)
        if result is None:
            error = NO_RESULT
        elif result.error is not None:
            error = result.error
        else:
            output = result.output
    call = ToolCall(
        id=requested.id,
        name=requested.name,
        arguments=arguments,
        output=output if error is None else None,
        error=error,
        step=step,
    )
    content = as_text(output) if error is None else as_text({"error": error})
    return Answered(call, {"role": "tool", "tool_call_id": requested.id, "content": content})


def _refusal(scripted: Scripted, requested: Requested) -> str | None:
    """Why the call cannot be answered from the script, or None when it can."""
    tool = scripted.by_name.get(requested.name)
    if tool is None:
        offered = ", ".join(scripted.by_name) or "none"
        return f"{UNKNOWN_TOOL} {requested.name!r}: the tools are {offered}"
    if isinstance(requested.arguments, ArgumentsError):
        return f"{NOT_AN_OBJECT}: {requested.arguments.why}"
    # Imported here, not at the top, as the case models do: only cases with tools need it.
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    try:
        problem = best_match(scripted.validator(tool).iter_errors(requested.arguments))
    except Unresolvable as exc:  # the loader refuses such a schema; this is the last guard
        raise TargetError(
            f"the schema of tool {tool.name} refers outside itself ({getattr(exc, 'ref', '?')}), "
            "which gauntlet never fetches"
        ) from None
    except RecursionError:  # the loader refuses such a schema too; this is the last guard
        raise TargetError(
            f"the schema of tool {tool.name} leads back to itself before it reads any "
            "argument, so no call can be checked against it"
        ) from None
    if problem is None:
        return None
    where = f" at {problem.json_path}" if problem.path else ""
    return clipped(f"{SCHEMA_BROKEN}{where}: {problem.message}", MAX_PROBLEM)


def scripted_result(
    results: Sequence[ToolResult], tool: str, arguments: Mapping[str, Any]
) -> ToolResult | None:
    """The first result for `tool` whose `when` the arguments hold, else its default."""
    default = None
    for result in results:
        if result.tool != tool:
            continue
        if result.when is None:
            if default is None:
                default = result
        elif Subset(dict(result.when)).matches(arguments):
            return result
    return default


def as_text(value: Any) -> str:
    """A tool message's content: text as it is, any other JSON value written as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def assistant_message(content: str | None, calls: Sequence[Requested]) -> dict[str, Any]:
    """The assistant's turn as the next request repeats it: its text and its calls as sent."""
    return {
        "role": "assistant",
        # Empty text, not null, when the model sent none: OpenAI takes either beside tool
        # calls, and llama.cpp's server (llama-cpp-python 0.3.36) refuses null with a 500.
        "content": "" if content is None else content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text},
            }
            for call in calls
        ],
    }


class Turn(NamedTuple):
    """One model turn of the loop: the completion, and how it was obtained."""

    completion: Mapping[str, Any]
    attempts: int = 1
    waited: float = 0.0
    usage: Usage | None = None
    first_token_ms: float | None = None


AskTurn = Callable[[list[dict[str, Any]], int], Awaitable[Turn]]
"""Sends the conversation so far (the messages) on turn N (from 0) and gives the turn."""


class Loop(NamedTuple, Generic[_T]):
    """What the loop did: the final answer as `finish` read it, and the whole trajectory."""

    final: _T
    calls: tuple[ToolCall, ...]
    turns: int
    attempts: int
    waited: float
    usage: Usage | None
    first_token_ms: float | None


async def run_loop(
    scripted: Scripted,
    messages: Sequence[dict[str, Any]],
    ask: AskTurn,
    finish: Callable[[Mapping[str, Any]], _T],
) -> Loop[_T]:
    """Ask, answer the tool calls, ask again, until an answer calls no tool.

    Args:
        scripted: The tools, their results and `max_steps`.
        messages: The conversation to start from (system, history, the user's prompt).
        ask: Sends one turn.
        finish: Reads the final completion (the target file's mapping).

    Raises:
        TargetError: a turn got no answer, an answer's calls cannot be read (no id, no name),
            the final answer breaks the mapping (each prefixed with its turn, with every
            turn's attempts counted), or the model still called tools after `max_steps`.
    """
    # Here, not at the top: only a chat target's completion is read through the mapping.
    from gauntlet.targets.mapping import requested_calls

    sent = list(messages)
    calls: list[ToolCall] = []
    usages: list[Usage | None] = []
    attempts, waited, first_ms = 0, 0.0, None
    for step in range(scripted.max_steps):
        try:
            turn = await ask(sent, step)
        except TargetError as exc:
            raise _in_turn(exc, step, attempts + exc.attempts, waited + exc.waited) from None
        attempts, waited = attempts + turn.attempts, waited + turn.waited
        usages.append(turn.usage)
        first_ms = turn.first_token_ms if step == 0 else first_ms
        try:
            content, requested = requested_calls(turn.completion)
            if not requested:
                final = finish(turn.completion)
                usage = _summed(usages)
                return Loop(final, tuple(calls), step + 1, attempts, waited, usage, first_ms)
        except TargetError as exc:
            raise _in_turn(exc, step, attempts, waited) from None
        answered = [answer(scripted, call, step) for call in requested]
        calls += [done.call for done in answered]
        sent += [assistant_message(content, requested), *(done.message for done in answered)]
    made = len(calls)
    error = TargetError(
        f"the model was still calling tools after max_steps {scripted.max_steps} turns "
        f"({made} call{'s' * (made != 1)}, the last {calls[-1].name}); raise the suite's "
        "max_steps if the task needs more"
    )
    error.attempts, error.waited = attempts, waited
    raise error


def _in_turn(exc: TargetError, step: int, attempts: int, waited: float) -> TargetError:
    """`exc` said of turn `step` of the loop, with the loop's attempts and waits."""
    error = type(exc)(f"tool loop, turn {step + 1}: {exc}")
    error.attempts, error.waited = attempts, waited
    return error


def _summed(usages: Sequence[Usage | None]) -> Usage | None:
    """The turns' usage added up; a turn that reported none leaves every count unknown."""
    if all(usage is None for usage in usages):
        return None
    return total_usage([usage or Usage() for usage in usages])


__all__ = [
    "AskTurn",
    "Loop",
    "Scripted",
    "Turn",
    "answer",
    "openai_tools",
    "run_loop",
    "scripted_for",
    "scripted_result",
]
