"""The Riverbend toy as an OpenAI-compatible chat completions server (aiohttp).

`gauntlet toy serve --api openai` serves the same toy, defects and all, the way a deployed chat
model is reached, so a target file of `kind: openai-chat` can be run against it end to end:

- `GET /v1/models` lists one model, `riverbend-toy`.
- `POST /v1/chat/completions` takes `model`, `messages` (system, developer, user, assistant
  and tool messages with text content; the last user message is the prompt, the earlier user
  and assistant ones are the conversation's history, system and developer ones are accepted
  and ignored), `stream`, `stream_options.include_usage`, `temperature`, `max_tokens`, `tools`
  and `tool_choice`. A few sampling knobs that cannot change a deterministic toy (`top_p`, `seed`,
  `n` of 1, `user`, `max_completion_tokens`, `parallel_tool_calls`) are checked and ignored;
  `max_tokens` is checked and ignored too (no answer of the toy is long enough to cut). Any
  other field is refused, as the OpenAI API refuses it, so nobody mistakes a setting the toy
  ignores for one it honours.

The answer is the toy's `TargetResponse` as a chat model would give it. Citations exist only in
the text: each cited id is appended as a ` [RB-001]` marker, in order. A refusal is declared in
`message.refusal` (and is the content too). The ids the toy retrieved are in
`message.context.retrieved`, an extension shaped like Azure OpenAI's "On Your Data"
`message.context`. Escalation has no field: every escalated answer, and no other, carries the
crisis line's name, `ESCALATION_PHRASES`, so a target file derives `escalated` from it.

The OpenAI API is told no language, so the toy's is detected from the user's words
(`detect_language`).

Tools. Without `tools` the toy runs its own (`gauntlet.targets.toy.tools`) and the answer shows
only the text. With `tools`, the client runs them: a prompt that needs a tool the request
offers (by name) is answered with an assistant message whose `tool_calls` call it (ids
`call_1`, `call_2`, ... numbered after the conversation's earlier calls, arguments as JSON
text, content null, nothing retrieved, `finish_reason: tool_calls`), several in one message
unless `parallel_tool_calls` is false; a needed tool that is not offered is not called, and
the toy answers from its pages instead. Once every call has a `role: tool` message answering
it (`tool_call_id`), the toy answers from those messages' content, read as JSON when it is
JSON, `{"error": "..."}` being an error: what the client returned, never the toy's own data.
`tool_choice: none` forbids a call; a forced function the task needs is called with the
task's arguments, and any other forced call (a named function, or the first of `tools` for
`required`) gets one call with `{"query": <prompt>}`. The conversation is checked as OpenAI
checks it: an assistant message with `tool_calls` (content null or text) is followed by a
tool message for each of its calls, each call answered once, ids never reused, and the last
message is the user's prompt or a tool's result.

Token counts in `usage` are
whitespace-separated words (every message's content asked; the content, or the calls'
arguments, answered), not a tokenizer's tokens. A stream sends the same message as
`chat.completion.chunk`s: role and context first, each tool call's name then its arguments in
two halves, the content in `STREAM_PIECES` pieces, the finish reason, the usage when
`stream_options.include_usage` asks for it, then `[DONE]`.
Refused requests get OpenAI's error shape, `{"error": {"message", "type":
"invalid_request_error", "param", "code"}}`: 400, or 404 (`model_not_found`) for another
model, and 404 or 405 for another path or method.

`gauntlet toy serve --api openai --judge` serves the toy judge (`gauntlet.judge.toy.ToyJudge`)
the same way, as the model `riverbend-toy-judge`: the content of each answer is the judge's
reply to the last user message, a prompt gauntlet wrote for a judge. Anything with the toy's
`name` and `ask` can be served (`Answerer`), under the model name it is given.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import pairwise
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from aiohttp import web
from aiohttp.typedefs import Handler

from gauntlet.targets.contract import Message, TargetResponse
from gauntlet.targets.toy.assistant import NAME
from gauntlet.targets.toy.http import MAX_BODY_BYTES
from gauntlet.targets.toy.language import language_of
from gauntlet.targets.toy.speech import SPEECHES
from gauntlet.targets.toy.tools import LANGUAGES as TOOL_LANGUAGES
from gauntlet.targets.toy.tools import ToolOutcome, ToolRequest

MODEL = NAME
"""The one model the server lists and answers as: `riverbend-toy`, whatever its defects."""


class Answerer(Protocol):
    """What the server answers with: the toy, or the toy judge."""

    @property
    def name(self) -> str:
        """Its name, defects included: each completion's `system_fingerprint`."""
        ...

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """The answer to `prompt`, the last user message, after the conversation `history`."""
        ...


@runtime_checkable
class Agent(Protocol):
    """An answerer that can also choose tool calls for a client to make: the toy."""

    def next_move(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None = None,
        steps: Sequence[Sequence[ToolOutcome]] = (),
        *,
        offered: Collection[str] | None = None,
        parallel: bool = True,
        may_call: bool = True,
    ) -> list[ToolRequest] | TargetResponse:
        """The calls to make next, or the answer (see `RiverbendToy.next_move`)."""
        ...


ESCALATION_PHRASES: Mapping[str, str] = MappingProxyType(
    {language: speech.crisis_line for language, speech in SPEECHES.items()}
)
"""The crisis line's name in each language: in every escalated answer, in no other."""

STREAM_PIECES = 20
"""Into how many pieces a streamed answer's text is cut (fewer when the text is shorter)."""


_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def detect_language(prompt: str, earlier: Sequence[str] = ()) -> str:
    """The language the toy answers `prompt` in, one it speaks, from the user's words alone.

    Each text is read by the toys' one rule (`language_of`: Hangul and Han characters, common
    words of each language, and Vietnamese and Spanish letters, counted as the gates fold
    text), the toy judge's too; a language the toy's tools speak counts as one it speaks, so a
    task's calls and their outputs come in it. The prompt decides when it counts for one
    language; a prompt that counts for none (`banana`) is decided by the user's `earlier`
    messages together; and when those count for none, English, which is what the toy answers
    a language it does not speak in.

    Args:
        prompt: The user's latest message.
        earlier: The user's earlier messages in the conversation, oldest first.
    """
    for text in (prompt, " ".join(earlier)):
        language = language_of(text)
        if language is not None and (language in SPEECHES or language in TOOL_LANGUAGES):
            return language
    return "en"


# ---------------------------------------------------------------- requests


class BadRequestError(Exception):
    """A request the server refuses; the message says why, in OpenAI's error shape."""

    def __init__(
        self, message: str, *, param: str | None = None, code: str | None = None, status: int = 400
    ) -> None:
        super().__init__(message)
        self.param = param
        self.code = code
        self.status = status


@dataclass(frozen=True)
class ChatRequest:
    """What a chat completions request asks of the toy."""

    prompt: str
    """The last user message."""
    history: tuple[Message, ...]
    """The user and assistant messages with text before it, oldest first."""
    language: str
    """The language the toy answers in, by `detect_language`."""
    stream: bool
    include_usage: bool
    """Streamed: end with a chunk that holds `usage` (`stream_options.include_usage`)."""
    tool: str | None
    """The function `tool_choice` forces a call to, if any (the first of `tools` for
    `required`)."""
    prompt_words: int
    """Words in every message's content: the `usage.prompt_tokens`."""
    digest: str
    """A hash of what was asked, for the completion's id."""
    offered: tuple[str, ...] = ()
    """The names of the functions in `tools`, in order."""
    named: bool = False
    """`tool_choice` names the function `tool` (rather than `required`)."""
    no_calls: bool = False
    """`tool_choice` is `none`: the answer must not call a tool."""
    parallel: bool = True
    """Calls may go together in one message (`parallel_tool_calls` is not false)."""
    steps: tuple[tuple[ToolOutcome, ...], ...] = ()
    """The tool calls made since the prompt, one step per assistant message, each with the
    content of the `tool` message that answered it."""
    calls_made: int = 0
    """Tool calls in the whole conversation so far: new calls are numbered after them."""


@dataclass(frozen=True)
class _Call:
    """A tool call an assistant message holds."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class _Read:
    """One message of the request, checked."""

    role: str
    content: str | None
    calls: tuple[_Call, ...] = ()
    """An assistant message's tool calls."""
    answers: str | None = None
    """A tool message's `tool_call_id`."""


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _is_temperature(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 2


def _is_probability(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _is_one(value: object) -> bool:
    return _is_int(value) and value == 1


def _is_text(value: object) -> bool:
    return isinstance(value, str)


_SCALARS: Mapping[str, tuple[Callable[[object], bool], str]] = MappingProxyType(
    {
        "stream": (_is_bool, "a boolean"),
        "temperature": (_is_temperature, "a number from 0 to 2"),
        "top_p": (_is_probability, "a number from 0 to 1"),
        "max_tokens": (_is_positive_int, "an integer of at least 1"),
        "max_completion_tokens": (_is_positive_int, "an integer of at least 1"),
        "seed": (_is_int, "an integer"),
        "n": (_is_one, "1 (the toy gives one choice)"),
        "user": (_is_text, "a string"),
        "parallel_tool_calls": (_is_bool, "a boolean"),
    }
)
"""The optional scalar fields, each with its check and what it wants; null is always allowed."""

_FIELDS = frozenset({"model", "messages", "stream_options", "tools", "tool_choice", *_SCALARS})


def _show(value: object) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def parse_request(body: bytes, model: str = MODEL) -> ChatRequest:
    """Read a `POST /v1/chat/completions` body asking for `model`.

    Raises:
        BadRequestError: the body is not a request the toy can answer (404 for another model).
    """
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise BadRequestError(f"the body is not JSON: {problem}") from None
    except RecursionError:
        raise BadRequestError("the body is not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise BadRequestError(f"the body must be a JSON object, not {type(data).__name__}")
    for name in ("model", "messages"):
        if name not in data:
            raise BadRequestError(f"missing required parameter: '{name}'", param=name)
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise BadRequestError(
            f"unrecognized request argument supplied: {unknown[0]}", param=unknown[0]
        )
    for name, (check, wanted) in _SCALARS.items():
        if data.get(name) is not None and not check(data[name]):
            raise BadRequestError(f"'{name}' must be {wanted}, not {_show(data[name])}", param=name)
    if data["model"] != model:
        raise BadRequestError(
            f"the model {_show(data['model'])} does not exist; this server has '{model}'",
            param="model",
            code="model_not_found",
            status=404,
        )
    messages = _messages(data["messages"])
    stream = data.get("stream") is True
    include_usage = _include_usage(data.get("stream_options"), stream=stream)
    offered = _tool_names(data.get("tools"))
    choice = data.get("tool_choice")
    tool = _forced_tool(offered, choice)
    last = max(index for index, message in enumerate(messages) if message.role == "user")
    prompt = messages[last].content or ""
    history = tuple(
        Message(role="user", content=message.content)
        if message.role == "user"
        else Message(role="assistant", content=message.content)
        for message in messages[:last]
        if message.role in ("user", "assistant") and message.content is not None
    )
    earlier = [message["content"] for message in history if message["role"] == "user"]
    asked = json.dumps(
        [data["messages"], data.get("tools"), choice], ensure_ascii=False, sort_keys=True
    ).encode("utf-8")
    return ChatRequest(
        prompt=prompt,
        history=history,
        language=detect_language(prompt, earlier),
        stream=stream,
        include_usage=include_usage,
        tool=tool,
        prompt_words=sum(_words(message.content or "") for message in messages),
        digest=hashlib.sha256(asked).hexdigest()[:24],
        offered=tuple(offered),
        named=isinstance(choice, dict),
        no_calls=choice == "none",
        parallel=data.get("parallel_tool_calls") is not False,
        steps=_steps(messages[last + 1 :]),
        calls_made=sum(len(message.calls) for message in messages),
    )


_ALLOWED_KEYS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "system": frozenset({"role", "content", "name"}),
        "developer": frozenset({"role", "content", "name"}),
        "user": frozenset({"role", "content", "name"}),
        # `context` is the toy's own extension, accepted back as a client echoes the message.
        "assistant": frozenset({"role", "content", "name", "tool_calls", "refusal", "context"}),
        "tool": frozenset({"role", "content", "tool_call_id"}),
    }
)
"""The keys each role's message may have."""

_CALL_SHAPE = (
    '{"id": <text>, "type": "function", "function": {"name": <1 to 64 of A-Z a-z 0-9 _ ->, '
    '"arguments": <JSON text>}}'
)


def _messages(value: object) -> list[_Read]:
    """Each message, checked one by one and as a conversation.

    A `tool` message answers a call of the assistant message before it (directly, or after
    other tool messages answering the same one), each call once; every call is answered
    before the next other message; and the last message is the user's prompt or a tool's
    result.
    """
    if not isinstance(value, list) or not value:
        raise BadRequestError("'messages' must be a non-empty list", param="messages")
    read = [_message(index, message) for index, message in enumerate(value)]
    _check_calls_answered(read)
    if read[-1].role not in ("user", "tool"):
        raise BadRequestError(
            f"the last message must be the user's prompt or a tool's result, not the "
            f"{read[-1].role}'s",
            param=f"messages[{len(read) - 1}].role",
        )
    if not any(message.role == "user" for message in read):
        raise BadRequestError("the conversation has no user message", param="messages")
    return read


def _message(index: int, message: object) -> _Read:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise BadRequestError(f"{where} must be an object, not {_show(message)}", param=where)
    role, content = message.get("role"), message.get("content")
    if not isinstance(role, str) or role not in _ALLOWED_KEYS:
        raise BadRequestError(
            f"{where}.role must be one of {', '.join(_ALLOWED_KEYS)}, not {_show(role)}",
            param=f"{where}.role",
        )
    extra = sorted(set(message) - _ALLOWED_KEYS[role])
    if extra:
        raise BadRequestError(
            f"unrecognized argument in {where}: {extra[0]}", param=f"{where}.{extra[0]}"
        )
    calls = _calls(where, message["tool_calls"]) if "tool_calls" in message else ()
    if not (isinstance(content, str) or (content is None and calls)):
        wanted = "a string, or null with tool_calls" if role == "assistant" else "a string"
        raise BadRequestError(
            f"{where}.content must be {wanted} (the toy reads text only), not {_show(content)}",
            param=f"{where}.content",
        )
    refusal = message.get("refusal")
    if refusal is not None and not isinstance(refusal, str):
        raise BadRequestError(
            f"{where}.refusal must be a string or null, not {_show(refusal)}",
            param=f"{where}.refusal",
        )
    if not isinstance(message.get("context", {}), dict):
        raise BadRequestError(
            f"{where}.context must be an object, not {_show(message['context'])}",
            param=f"{where}.context",
        )
    answers = None
    if role == "tool":
        answers = message.get("tool_call_id")
        if not isinstance(answers, str) or not answers:
            raise BadRequestError(
                f"{where}.tool_call_id must be the id of the call it answers, not {_show(answers)}",
                param=f"{where}.tool_call_id",
            )
    return _Read(role, content, calls, answers)


def _calls(where: str, value: object) -> tuple[_Call, ...]:
    if not isinstance(value, list) or not value:
        raise BadRequestError(
            f"{where}.tool_calls must be a non-empty list of calls, not {_show(value)}",
            param=f"{where}.tool_calls",
        )
    calls = []
    for index, call in enumerate(value):
        function = call.get("function") if isinstance(call, dict) else None
        if not (
            isinstance(call, dict)
            and set(call) == {"id", "type", "function"}
            and isinstance(call["id"], str)
            and call["id"]
            and call["type"] == "function"
            and isinstance(function, dict)
            and set(function) == {"name", "arguments"}
            and isinstance(function["name"], str)
            and _TOOL_NAME.match(function["name"])
            and isinstance(function["arguments"], str)
        ):
            raise BadRequestError(
                f"{where}.tool_calls[{index}] must be {_CALL_SHAPE}, not {_show(call)}",
                param=f"{where}.tool_calls[{index}]",
            )
        calls.append(_Call(call["id"], function["name"], function["arguments"]))
    return tuple(calls)


def _check_calls_answered(read: Sequence[_Read]) -> None:
    """Refuse a tool message that answers no open call, and a call left unanswered."""
    seen: set[str] = set()
    open_calls: dict[str, None] = {}
    for index, message in enumerate(read):
        where = f"messages[{index}]"
        if message.role == "tool":
            if message.answers not in open_calls:
                raise BadRequestError(
                    f"{where} answers the tool call {_show(message.answers)}, which no tool "
                    "call of the assistant message before it left unanswered",
                    param=f"{where}.tool_call_id",
                )
            del open_calls[message.answers]
            continue
        if open_calls:
            raise BadRequestError(
                f"{where}: the tool calls {', '.join(open_calls)} have no tool message "
                "answering them; each call is answered before the next message",
                param=where,
            )
        for call in message.calls:
            if call.id in seen:
                raise BadRequestError(
                    f"{where}: the tool call id {_show(call.id)} is used twice", param=where
                )
            seen.add(call.id)
            open_calls[call.id] = None
    if open_calls:
        raise BadRequestError(
            f"the tool calls {', '.join(open_calls)} have no tool message answering them",
            param="messages",
        )


def _steps(after_prompt: Sequence[_Read]) -> tuple[tuple[ToolOutcome, ...], ...]:
    """The calls made since the prompt, step by step, with what each tool message returned."""
    results = {message.answers: message.content or "" for message in after_prompt}
    return tuple(
        tuple(_outcome(call, results[call.id]) for call in message.calls)
        for message in after_prompt
        if message.calls
    )


def _outcome(call: _Call, content: str) -> ToolOutcome:
    """A call and its tool message: JSON content is read as JSON; `{"error": ...}` is an error."""
    try:
        arguments = json.loads(call.arguments)
    except (json.JSONDecodeError, RecursionError):
        arguments = None
    if not isinstance(arguments, dict):
        arguments = {}
    try:
        output: Any = json.loads(content)
    except (json.JSONDecodeError, RecursionError):
        output = content
    if isinstance(output, dict) and set(output) == {"error"} and isinstance(output["error"], str):
        return ToolOutcome(call.name, arguments, error=output["error"])
    return ToolOutcome(call.name, arguments, output=output)


def _include_usage(options: object, *, stream: bool) -> bool:
    """`stream_options.include_usage`, checked."""
    if options is None:
        return False
    if not stream:
        raise BadRequestError(
            "'stream_options' is only allowed when 'stream' is true", param="stream_options"
        )
    if not isinstance(options, dict) or set(options) - {"include_usage"}:
        raise BadRequestError(
            f"'stream_options' must be {{\"include_usage\": true|false}}, not {_show(options)}",
            param="stream_options",
        )
    include = options.get("include_usage")
    if include is not None and not isinstance(include, bool):
        raise BadRequestError(
            f"'stream_options.include_usage' must be a boolean, not {_show(include)}",
            param="stream_options.include_usage",
        )
    return include is True


_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})


def _tool_names(tools: object) -> list[str]:
    """The function names `tools` offers, in order, checked."""
    if tools is None:
        return []
    if not isinstance(tools, list) or not tools:
        raise BadRequestError(
            f"'tools' must be a non-empty list, not {_show(tools)}", param="tools"
        )
    names: list[str] = []
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(name, str)
            or not _TOOL_NAME.match(name)
        ):
            raise BadRequestError(
                f"{where} must be "
                '{"type": "function", "function": {"name": <1 to 64 of A-Z a-z 0-9 _ ->, ...}}',
                param=where,
            )
        assert isinstance(function, dict)  # noqa: S101 - the name was read from it
        extra = sorted(set(tool) - {"type", "function"}) or sorted(set(function) - _FUNCTION_KEYS)
        if extra:
            raise BadRequestError(
                f"unrecognized argument in {where}: {extra[0]}", param=f"{where}.{extra[0]}"
            )
        for key, check, wanted in (
            ("description", _is_text, "a string"),
            ("parameters", _is_object, "a JSON Schema object"),
            ("strict", _is_bool, "a boolean"),
        ):
            if function.get(key) is not None and not check(function[key]):
                raise BadRequestError(
                    f"{where}.function.{key} must be {wanted}, not {_show(function[key])}",
                    param=f"{where}.function.{key}",
                )
        if name in names:
            raise BadRequestError(
                f"{where}.function.name: the function {_show(name)} is offered twice",
                param=f"{where}.function.name",
            )
        names.append(name)
    return names


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _forced_tool(names: list[str], choice: object) -> str | None:
    """The function `tool_choice` forces a call to: the one named, or the first for `required`."""
    if choice is None or choice in ("none", "auto"):
        return None
    if choice == "required":
        named: object = names[0] if names else None
    elif (
        isinstance(choice, dict)
        and set(choice) == {"type", "function"}
        and choice["type"] == "function"
        and isinstance(choice["function"], dict)
        and set(choice["function"]) == {"name"}
    ):
        named = choice["function"]["name"]
    else:
        raise BadRequestError(
            "'tool_choice' must be none, auto, required or "
            f'{{"type": "function", "function": {{"name": ...}}}}, not {_show(choice)}',
            param="tool_choice",
        )
    if not names:
        raise BadRequestError(
            "'tool_choice' is only allowed when 'tools' are specified", param="tool_choice"
        )
    for name in names:
        if name == named:
            return name
    raise BadRequestError(
        f"'tool_choice' names the function {_show(named)}, which is not in 'tools'",
        param="tool_choice",
    )


# ---------------------------------------------------------------- answers


def _words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class _Answer:
    """One answer, from which the completion and the stream of chunks are both written."""

    content: str | None
    refusal: str | None
    retrieved: tuple[str, ...]
    calls: tuple[_Call, ...]
    """The tool calls the answer makes (content null), or none."""
    completion_words: int

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.calls else "stop"


def _answer(toy: Answerer, request: ChatRequest) -> _Answer:
    """What the toy answers: tool calls for the client to make, or its text.

    An agent offered tools calls them (only those offered, none under `tool_choice:
    none`, and from the outputs the client sent back); a forced `tool_choice` it has no use
    for gets one call with `{"query": <prompt>}`. Anything else is asked as the toy is asked
    natively, which runs its own tools.
    """
    if isinstance(toy, Agent) and request.offered:
        move = toy.next_move(
            request.prompt,
            request.language,
            request.history,
            request.steps,
            offered=request.offered,
            parallel=request.parallel,
            may_call=not request.no_calls,
        )
        if isinstance(move, list) and request.named:
            move = [call for call in move if call.name == request.tool]
        if isinstance(move, list) and move:
            return _calling(request, [(call.name, dict(call.arguments)) for call in move])
        if isinstance(move, TargetResponse) and (request.tool is None or request.steps):
            return _saying(move)
    if request.tool is not None and not request.steps:
        return _calling(request, [(request.tool, {"query": request.prompt})])
    return _saying(toy.ask(request.prompt, request.language, request.history))


def _calling(request: ChatRequest, calls: list[tuple[str, dict[str, Any]]]) -> _Answer:
    made = tuple(
        _Call(
            f"call_{request.calls_made + number}",
            name,
            json.dumps(arguments, ensure_ascii=False),
        )
        for number, (name, arguments) in enumerate(calls, start=1)
    )
    words = sum(_words(call.arguments) for call in made)
    return _Answer(None, None, (), made, words)


def _saying(reply: TargetResponse) -> _Answer:
    content = reply.text + "".join(f" [{cited}]" for cited in reply.citations)
    refusal = content if reply.refused else None
    return _Answer(content, refusal, reply.context_ids, (), _words(content))


class _Completion:
    """The fields every answer to one request shares."""

    def __init__(self, toy: Answerer, request: ChatRequest, model: str) -> None:
        self.request = request
        self.answer = _answer(toy, request)
        self.head: dict[str, Any] = {
            "id": f"chatcmpl-{request.digest}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": toy.name,
        }

    def usage(self) -> dict[str, int]:
        prompt, completion = self.request.prompt_words, self.answer.completion_words
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    @staticmethod
    def tool_call(call: _Call, *, arguments: str) -> dict[str, Any]:
        return {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": arguments},
        }

    def body(self) -> dict[str, Any]:
        """The `chat.completion` of a request that does not stream."""
        answer = self.answer
        message: dict[str, Any] = {
            "role": "assistant",
            "content": answer.content,
            "refusal": answer.refusal,
            "context": {"retrieved": list(answer.retrieved)},
        }
        if answer.calls:
            message["tool_calls"] = [
                self.tool_call(call, arguments=call.arguments) for call in answer.calls
            ]
        choice = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": answer.finish_reason,
        }
        return {**self.head, "choices": [choice], "usage": self.usage()}

    def chunks(self) -> Iterator[dict[str, Any]]:
        """The `chat.completion.chunk`s of a request that streams, `[DONE]` not included."""
        answer = self.answer
        first: dict[str, Any] = {
            "role": "assistant",
            "content": None if answer.content is None else "",
            "refusal": None if answer.refusal is None else "",
            "context": {"retrieved": list(answer.retrieved)},
        }
        yield self._chunk(first)
        for index, call in enumerate(answer.calls):
            opening = {"index": index, **self.tool_call(call, arguments="")}
            yield self._chunk({"tool_calls": [opening]})
            half = len(call.arguments) // 2
            for part in (call.arguments[:half], call.arguments[half:]):
                yield self._chunk(
                    {"tool_calls": [{"index": index, "function": {"arguments": part}}]}
                )
        for piece in split_text(answer.content or ""):
            delta = {"content": piece}
            if answer.refusal is not None:
                delta["refusal"] = piece
            yield self._chunk(delta)
        yield self._chunk({}, finish_reason=answer.finish_reason)
        if self.request.include_usage:
            yield {**self._head(), "choices": [], "usage": self.usage()}

    def _head(self) -> dict[str, Any]:
        head = {**self.head, "object": "chat.completion.chunk"}
        if self.request.include_usage:
            head["usage"] = None
        return head

    def _chunk(self, delta: dict[str, Any], *, finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**self._head(), "choices": [choice]}


def split_text(text: str, pieces: int = STREAM_PIECES) -> list[str]:
    """`text` cut into `pieces` runs of characters as even as can be (fewer if it is shorter)."""
    count = min(pieces, len(text))
    bounds = [len(text) * index // count for index in range(count + 1)] if count else []
    return [text[start:end] for start, end in pairwise(bounds)]


# ---------------------------------------------------------------- the server

_TOY = web.AppKey("toy", Answerer)
_MODEL = web.AppKey("model", str)


def _json(status: int, body: Mapping[str, Any], **headers: str) -> web.Response:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return web.Response(
        status=status, body=data, content_type="application/json", charset="utf-8", headers=headers
    )


def _error(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    **headers: str,
) -> web.Response:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return _json(status, {"error": error}, **headers)


@web.middleware
async def _openai_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Paths and methods the server does not serve get OpenAI-style JSON errors."""
    try:
        return await handler(request)
    except web.HTTPMethodNotAllowed as refused:
        allowed = ", ".join(sorted(refused.allowed_methods))
        return _error(
            405, f"{request.method} is not allowed on {request.path}; use {allowed}", Allow=allowed
        )
    except web.HTTPNotFound:
        return _error(404, f"Invalid URL ({request.method} {request.path})")


async def _models(request: web.Request) -> web.Response:
    model = {"id": request.app[_MODEL], "object": "model", "created": 0, "owned_by": "gauntlet"}
    return _json(200, {"object": "list", "data": [model]})


async def _chat_completions(request: web.Request) -> web.StreamResponse:
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return _error(400, f"the body is over the {MAX_BODY_BYTES}-byte limit")
    try:
        asked = parse_request(body, request.app[_MODEL])
    except BadRequestError as problem:
        return _error(problem.status, str(problem), param=problem.param, code=problem.code)
    completion = _Completion(request.app[_TOY], asked, request.app[_MODEL])
    if not asked.stream:
        return _json(200, completion.body())
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
    )
    await response.prepare(request)
    for chunk in completion.chunks():
        data = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        await response.write(f"data: {data}\n\n".encode())
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


def create_app(toy: Answerer, model: str = MODEL) -> web.Application:
    """The aiohttp application that answers with `toy` as `model` (see the module's description)."""
    app = web.Application(middlewares=[_openai_errors], client_max_size=MAX_BODY_BYTES)
    app[_TOY] = toy
    app[_MODEL] = model
    app.router.add_get("/v1/models", _models)
    app.router.add_post("/v1/chat/completions", _chat_completions)
    return app


@asynccontextmanager
async def serving(
    toy: Answerer, host: str = "127.0.0.1", port: int = 0, *, model: str = MODEL
) -> AsyncIterator[int]:
    """Serve `toy` as `model` on `host`:`port` (0: any free one) while the block runs.

    Yields the bound port.
    """
    async with serving_app(create_app(toy, model), host, port) as bound:
        yield bound


@asynccontextmanager
async def serving_app(
    app: web.Application, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[int]:
    """Serve the aiohttp `app` on `host`:`port` (0: any free one) while the block runs.

    Yields the bound port.
    """
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        yield int(runner.addresses[0][1])
    finally:
        await runner.cleanup()


def serve_forever(
    host: str, port: int, toy: Answerer, *, on_ready: Callable[[int], None], model: str = MODEL
) -> None:
    """Serve `toy` until interrupted (Ctrl-C raises `KeyboardInterrupt` out of here).

    Args:
        host: The address to bind, e.g. `127.0.0.1`.
        port: The port to bind; 0 picks a free one.
        toy: The toy (or the toy judge) that answers.
        on_ready: Called once with the bound port, when requests are being accepted.
        model: The one model the server lists and answers as.
    """

    async def main() -> None:
        async with serving(toy, host, port, model=model) as bound:
            on_ready(bound)
            await asyncio.Event().wait()

    asyncio.run(main())
