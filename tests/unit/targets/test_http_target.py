"""The HTTP target over `httpx.MockTransport`: the request it sends and the errors it maps."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from gauntlet.errors import (
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
    UsageError,
)
from gauntlet.targets.http import HttpTarget

BODY = {"text": "a", "citations": [], "context_ids": [], "refused": False, "escalated": False}


def _target(handler: httpx.MockTransport) -> HttpTarget:
    return HttpTarget(
        "https://user:secret@example.test:8443/ask?key=1",
        headers={"X-Api-Key": "k"},
        client=httpx.AsyncClient(transport=handler),
    )


def _ask(target: HttpTarget) -> object:
    async def go() -> object:
        try:
            return await target.ask("hello", "es")
        finally:
            await target.aclose()

    return asyncio.run(go())


def test_the_request_follows_the_contract() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=BODY)

    _ask(_target(httpx.MockTransport(handler)))
    [request] = seen
    assert request.method == "POST"
    assert json.loads(request.content) == {"prompt": "hello", "language": "es"}
    assert request.headers["X-Api-Key"] == "k"


def test_the_name_carries_no_credentials_or_query() -> None:
    target = _target(httpx.MockTransport(lambda r: httpx.Response(200, json=BODY)))
    assert target.name == "https://example.test:8443/ask"
    asyncio.run(target.aclose())


@pytest.mark.parametrize(
    ("handler", "error", "message"),
    [
        (lambda r: httpx.Response(500), TargetError, "HTTP 500 Internal Server Error"),
        (lambda r: httpx.Response(302, headers={"Location": "/x"}), TargetError, "HTTP 302"),
        (lambda r: httpx.Response(200, text="not json"), TargetContractError, "not JSON"),
        (
            lambda r: httpx.Response(200, json={**BODY, "refused": "no"}),
            TargetContractError,
            "refused",
        ),
    ],
)
def test_bad_answers_become_target_errors(
    handler: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        _ask(_target(httpx.MockTransport(handler)))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("exception", "error"),
    [
        (httpx.ConnectError("refused"), TargetUnreachableError),
        (httpx.ReadTimeout("slow"), TargetTimeoutError),
        (httpx.RemoteProtocolError("garbled"), TargetError),
    ],
)
def test_transport_failures_are_converted(exception: Exception, error: type[Exception]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exception

    with pytest.raises(error):
        _ask(_target(httpx.MockTransport(handler)))


@pytest.mark.parametrize("url", ["ftp://example.test/", "example.test", "http:///nohost"])
def test_a_url_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match="expected an http:// or https:// URL"):
        HttpTarget(url)
