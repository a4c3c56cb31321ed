"""The server itself, asked without gauntlet: what test_transport.py takes as given.

If one of these fails, the server (or its set-up in scripts/real_llm.py) broke the premise,
and a failure in test_transport.py says nothing about gauntlet.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from .conftest import requires_server

pytestmark = requires_server

QUESTION = [
    {"role": "system", "content": "You are the Riverbend city services assistant."},
    {"role": "user", "content": "¿Cuál es el horario de la biblioteca? Answer in one line."},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_service",
            "parameters": {
                "type": "object",
                "properties": {"topic": {"type": "string", "enum": ["library", "parking"]}},
                "required": ["topic"],
            },
        },
    }
]
FORCED = {"type": "function", "function": {"name": "lookup_service"}}


def _ask(base_url: str, **fields: Any) -> dict[str, Any]:
    body = {"model": "smollm2", "messages": QUESTION, "temperature": 0, "seed": 0, **fields}
    with httpx.Client(base_url=base_url, timeout=300) as client:
        answer = client.post("/chat/completions", json={**body, "stream": False})
    assert answer.status_code == 200, answer.text
    message: dict[str, Any] = answer.json()["choices"][0]
    return message


def _stream(base_url: str, **fields: Any) -> tuple[list[dict[str, Any]], bool]:
    """The stream's chunks, and whether it ended with `data: [DONE]`."""
    body = {"model": "smollm2", "messages": QUESTION, "temperature": 0, "seed": 0, **fields}
    chunks: list[dict[str, Any]] = []
    done = False
    with (
        httpx.Client(base_url=base_url, timeout=300) as client,
        client.stream("POST", "/chat/completions", json={**body, "stream": True}) as answer,
    ):
        assert answer.status_code == 200, answer.read()
        assert answer.headers["content-type"].startswith("text/event-stream")
        for line in answer.iter_lines():
            if not line.startswith("data: "):
                continue
            assert not done, f"data after [DONE]: {line}"
            if line == "data: [DONE]":
                done = True
            else:
                chunks.append(json.loads(line.removeprefix("data: ")))
    return chunks, done


def test_streamed_and_whole_answers_are_the_same(base_url: str) -> None:
    whole = _ask(base_url, max_tokens=48)
    chunks, done = _stream(base_url, max_tokens=48)
    assert done
    text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks)
    assert text == whole["message"]["content"]
    assert text
    assert chunks[-1]["choices"][0]["finish_reason"] == whole["finish_reason"]


def test_a_forced_tool_call_is_a_tool_call_streamed_or_not(base_url: str) -> None:
    whole = _ask(base_url, max_tokens=32, tools=TOOLS, tool_choice=FORCED)
    assert whole["finish_reason"] == "tool_calls"
    [call] = whole["message"]["tool_calls"]
    assert call["function"]["name"] == "lookup_service"
    assert json.loads(call["function"]["arguments"]) in ({"topic": "library"}, {"topic": "parking"})

    chunks, done = _stream(base_url, max_tokens=32, tools=TOOLS, tool_choice=FORCED)
    assert done
    fragments = [
        fragment
        for chunk in chunks
        for fragment in chunk["choices"][0]["delta"].get("tool_calls") or ()
    ]
    assert {fragment["index"] for fragment in fragments} == {0}
    arguments = "".join(fragment["function"]["arguments"] or "" for fragment in fragments)
    assert arguments == call["function"]["arguments"]
    assert fragments[0]["function"]["name"] == "lookup_service"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
