"""A scripted OpenAI-compatible chat model on 127.0.0.1: it follows a script, and records requests.

The script is a function of the request: it is given the request's messages and returns the
assistant's next message (`says(...)` or `calls(...)`), so one server can hold many
conversations at once, each deciding from what it has been told so far. Every request's body
is recorded, in order. A request with `"stream": true` is answered as OpenAI streams:
Server-Sent Events, the text in pieces and each call's arguments cut in three, the
`finish_reason` chunk, a usage-only chunk when `stream_options.include_usage` asks for one
(as OpenAI does), then `data: [DONE]`.

Every answer reports usage (10 prompt tokens per message sent, 5 completion tokens) unless
the model is made with `usage=False`, as a server that never counts. A message made with
`says(text, finish_reason="length")` ends with that reason (as a model cut at `max_tokens`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

from .toy_servers import running_app

Message = dict[str, Any]
Script = Callable[[list[Message]], Message]
"""Given the messages of a request, the assistant's next message."""


def call(call_id: str, name: str, arguments: str | dict[str, Any]) -> dict[str, Any]:
    """One tool call as an OpenAI answer holds it; an object's arguments are written as JSON."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def calls(*made: dict[str, Any], content: str | None = None) -> Message:
    """An assistant message asking for `made` (in parallel when more than one)."""
    return {"role": "assistant", "content": content, "tool_calls": list(made)}


def says(text: str, *, finish_reason: str | None = None) -> Message:
    """An assistant message that answers with `text` and calls nothing.

    `finish_reason` replaces the usual `stop` (the server sends it, not in the message).
    """
    message: Message = {"role": "assistant", "content": text, "refusal": None}
    if finish_reason is not None:
        message[_FINISH] = finish_reason
    return message


_FINISH = "_finish_reason"
"""Where `says` keeps a finish reason for the server to send, never in the message."""


def in_order(*replies: Message) -> Script:
    """A script that gives `replies` one after another, whatever it is asked."""
    queue = list(replies)

    def script(messages: list[Message]) -> Message:
        assert queue, "the model was asked more often than its script says"
        return queue.pop(0)

    return script


def tool_messages(messages: list[Message]) -> list[Message]:
    """The `role: tool` messages of a request."""
    return [message for message in messages if message["role"] == "tool"]


def usage(messages: list[Message]) -> dict[str, int]:
    """What the model reports having used for one answer to `messages`."""
    prompt = 10 * len(messages)
    return {"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5}


class FakeChatModel:
    """The server's state: the script, and every request body it was sent."""

    def __init__(self, script: Script, *, usage: bool = True) -> None:
        self.script = script
        self.usage = usage
        """False: no answer reports usage, whole or streamed."""
        self.requests: list[dict[str, Any]] = []

    def app(self) -> web.Application:
        """The aiohttp app serving `POST /v1/chat/completions`."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._complete)
        return app

    async def _complete(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        messages: list[Message] = body["messages"]
        message = dict(self.script(messages))
        reason = message.pop(_FINISH, None) or (
            "tool_calls" if message.get("tool_calls") else "stop"
        )
        used = usage(messages) if self.usage else None
        if not body.get("stream"):
            completion = {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            }
            return web.json_response(completion | ({"usage": used} if used else {}))
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await stream.prepare(request)
        asked = (body.get("stream_options") or {}).get("include_usage") is True
        for chunk in _chunks(message, reason, used if asked else None):
            await stream.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await stream.write(b"data: [DONE]\n\n")
        await stream.write_eof()
        return stream

    @property
    def bodies_messages(self) -> list[list[Message]]:
        """The messages of each request, in order."""
        return [body["messages"] for body in self.requests]


def _chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-s",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
    }


def _thirds(text: str) -> list[str]:
    third = max(1, len(text) // 3)
    return [text[:third], text[third : 2 * third], text[2 * third :]]


def _chunks(message: Message, reason: str, used: dict[str, int] | None) -> Iterator[dict[str, Any]]:
    yield _chunk({"role": "assistant", "content": None})
    content = message.get("content")
    if content:
        for piece in _thirds(content):
            yield _chunk({"content": piece})
    for index, made in enumerate(message.get("tool_calls") or ()):
        function = made["function"]
        head = {"index": index, "id": made["id"], "type": "function"}
        yield _chunk({"tool_calls": [{**head, "function": {"name": function["name"]}}]})
        for piece in _thirds(function["arguments"]):
            yield _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield _chunk({}, reason)
    if used is not None:
        yield {"id": "chatcmpl-s", "object": "chat.completion.chunk", "choices": [], "usage": used}


@contextmanager
def serving(script: Script, *, usage: bool = True) -> Iterator[tuple[FakeChatModel, str]]:
    """Serve a `FakeChatModel` following `script`; yields it and its base URL (up to `/v1`)."""
    model = FakeChatModel(script, usage=usage)
    with running_app(model.app()) as url:
        yield model, url
