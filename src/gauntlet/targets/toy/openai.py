"""The Riverbend toy as an OpenAI-compatible chat completions server (aiohttp).

`gauntlet toy serve --api openai` serves the same toy, defects and all, the way a deployed chat
model is reached, so a target file of `kind: openai-chat` can be run against it end to end:

- `GET /v1/models` lists one model, `riverbend-toy`.
- `POST /v1/chat/completions` takes `model`, `messages` (system, developer, user and assistant
  messages with text content; the last one is the user's prompt, the earlier user and assistant
  ones are the conversation's history, system and developer ones are accepted and ignored),
  `stream`, `stream_options.include_usage`, `temperature`, `max_tokens`, `tools` and
  `tool_choice`. A few sampling knobs that cannot change a deterministic toy (`top_p`, `seed`,
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
(`detect_language`). A tool call is made only when `tool_choice` forces one (a named function,
or the first of `tools` for `required`): one call, arguments `{"query": <prompt>}`, content
null, nothing retrieved, `finish_reason: tool_calls`. Token counts in `usage` are
whitespace-separated words (every message's content asked; the content, or the call's
arguments, answered), not a tokenizer's tokens. A stream sends the same message as
`chat.completion.chunk`s: role and context first, the content in `STREAM_PIECES` pieces, the
finish reason, the usage when `stream_options.include_usage` asks for it, then `[DONE]`.
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
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import pairwise
from types import MappingProxyType
from typing import Any, Protocol

from aiohttp import web
from aiohttp.typedefs import Handler

from gauntlet.gates.matching import normalise
from gauntlet.targets.contract import Message, TargetResponse
from gauntlet.targets.toy.assistant import NAME
from gauntlet.targets.toy.http import MAX_BODY_BYTES

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


ESCALATION_PHRASES: Mapping[str, str] = MappingProxyType(
    {
        "en": "988 Suicide & Crisis Lifeline",
        "es": "Línea 988 de Prevención del Suicidio y Crisis",
    }
)
"""The crisis line's name in each language: in every escalated answer, in no other."""

STREAM_PIECES = 20
"""Into how many pieces a streamed answer's text is cut (fewer when the text is shorter)."""


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_SPANISH_WORDS = _word_set(
    "al como con cual cuando de del desde donde el ella ellos en entre es esa ese esta este "
    "esto estoy hay la las le les lo los mas mi mis muy nos para pero por porque que quien se "
    "si sobre su sus te tengo tiene tu tus un una uno usted y ya yo"
)
_ENGLISH_WORDS = _word_set(
    "about an and any are as at be but by can could did do does for from get has have her his "
    "how i if in into is it its just my not of on or our please should so than that the their "
    "them then there they this to was we were what when where which who why will with would "
    "you your"
)
_SPANISH_LETTERS = frozenset("¿¡ñáéíóúü")
_WORD = re.compile(r"[a-z]+")

_ROLES = ("system", "developer", "user", "assistant")
_IGNORED_ROLES = frozenset({"system", "developer"})
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _spanish_lean(text: str) -> int:
    """How far `text` leans Spanish (above 0) or English (below 0)."""
    words = _WORD.findall(normalise(text))
    spanish = sum(word in _SPANISH_WORDS for word in words)
    english = sum(word in _ENGLISH_WORDS for word in words)
    if _SPANISH_LETTERS & set(unicodedata.normalize("NFKC", text).casefold()):
        spanish += 2
    return spanish - english


def detect_language(prompt: str, earlier: Sequence[str] = ()) -> str:
    """The language the toy answers `prompt` in, `es` or `en`, from the user's words alone.

    Each Spanish function word (`de`, `que`, `para`, ...) counts one for Spanish, and `¿`,
    `¡`, `ñ` or an accented vowel anywhere counts two more; each English function word (`the`,
    `what`, `is`, ...) counts one for English. Words that are both (`a`, `me`, `no`) count for
    neither. Words are compared as the gates compare text (NFKC, look-alikes folded, accents
    dropped), so a disguised prompt is read as what it says. The prompt decides when it leans
    either way; a prompt that leans neither (`banana`) is decided by the user's `earlier`
    messages together; and when those lean neither, English, which is what the toy answers
    every language tag but Spanish in.

    Args:
        prompt: The user's latest message.
        earlier: The user's earlier messages in the conversation, oldest first.
    """
    for text in (prompt, " ".join(earlier)):
        lean = _spanish_lean(text)
        if lean:
            return "es" if lean > 0 else "en"
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
    """The last message: the user's."""
    history: tuple[Message, ...]
    """The user and assistant messages before it, oldest first."""
    language: str
    """`en` or `es`, by `detect_language`."""
    stream: bool
    include_usage: bool
    """Streamed: end with a chunk that holds `usage` (`stream_options.include_usage`)."""
    tool: str | None
    """The function `tool_choice` forces a call to, if any."""
    prompt_words: int
    """Words in every message's content: the `usage.prompt_tokens`."""
    digest: str
    """A hash of what was asked, for the completion's and the tool call's ids."""


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
    tool = _forced_tool(_tool_names(data.get("tools")), data.get("tool_choice"))
    *before, (_, prompt) = messages
    history = tuple(
        Message(role="user", content=content)
        if role == "user"
        else Message(role="assistant", content=content)
        for role, content in before
        if role not in _IGNORED_ROLES
    )
    earlier = [message["content"] for message in history if message["role"] == "user"]
    asked = json.dumps([messages, tool], ensure_ascii=False).encode("utf-8")
    return ChatRequest(
        prompt=prompt,
        history=history,
        language=detect_language(prompt, earlier),
        stream=stream,
        include_usage=include_usage,
        tool=tool,
        prompt_words=sum(_words(content) for _, content in messages),
        digest=hashlib.sha256(asked).hexdigest()[:24],
    )


def _messages(value: object) -> list[tuple[str, str]]:
    """Each message's role and content, checked; the last one must be the user's."""
    if not isinstance(value, list) or not value:
        raise BadRequestError("'messages' must be a non-empty list", param="messages")
    read: list[tuple[str, str]] = []
    for index, message in enumerate(value):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise BadRequestError(f"{where} must be an object, not {_show(message)}", param=where)
        extra = sorted(set(message) - {"role", "content", "name"})
        if extra:
            raise BadRequestError(
                f"unrecognized argument in {where}: {extra[0]}", param=f"{where}.{extra[0]}"
            )
        role, content = message.get("role"), message.get("content")
        if role not in _ROLES:
            raise BadRequestError(
                f"{where}.role must be one of {', '.join(_ROLES)}, not {_show(role)}",
                param=f"{where}.role",
            )
        if not isinstance(content, str):
            raise BadRequestError(
                f"{where}.content must be a string (the toy reads text only), not {_show(content)}",
                param=f"{where}.content",
            )
        read.append((role, content))
    if read[-1][0] != "user":
        raise BadRequestError(
            f"the last message must be the user's prompt, not the {read[-1][0]}'s",
            param=f"messages[{len(read) - 1}].role",
        )
    return read


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


def _tool_names(tools: object) -> list[str]:
    """The function names `tools` offers, in order, checked."""
    if tools is None:
        return []
    if not isinstance(tools, list) or not tools:
        raise BadRequestError(
            f"'tools' must be a non-empty list, not {_show(tools)}", param="tools"
        )
    names = []
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(name, str)
            or not _TOOL_NAME.match(name)
        ):
            raise BadRequestError(
                f"tools[{index}] must be "
                '{"type": "function", "function": {"name": <1 to 64 of A-Z a-z 0-9 _ ->, ...}}',
                param=f"tools[{index}]",
            )
        names.append(name)
    return names


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
    tool: str | None
    arguments: str
    completion_words: int

    @property
    def finish_reason(self) -> str:
        return "stop" if self.tool is None else "tool_calls"


def _answer(toy: Answerer, request: ChatRequest) -> _Answer:
    if request.tool is not None:
        arguments = json.dumps({"query": request.prompt}, ensure_ascii=False)
        return _Answer(None, None, (), request.tool, arguments, _words(arguments))
    reply = toy.ask(request.prompt, request.language, request.history)
    content = reply.text + "".join(f" [{cited}]" for cited in reply.citations)
    refusal = content if reply.refused else None
    return _Answer(content, refusal, reply.context_ids, None, "", _words(content))


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

    def tool_call(self, *, arguments: str) -> dict[str, Any]:
        return {
            "id": f"call_{self.request.digest}",
            "type": "function",
            "function": {"name": self.answer.tool, "arguments": arguments},
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
        if answer.tool is not None:
            message["tool_calls"] = [self.tool_call(arguments=answer.arguments)]
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
        if answer.tool is not None:
            yield self._chunk({"tool_calls": [{"index": 0, **self.tool_call(arguments="")}]})
            half = len(answer.arguments) // 2
            for part in (answer.arguments[:half], answer.arguments[half:]):
                yield self._chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]})
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
