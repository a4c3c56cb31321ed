"""The HTTP target over `httpx.MockTransport`: the request it sends and the errors it maps."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator

import httpx
import pytest

from gauntlet.errors import (
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
    UsageError,
)
from gauntlet.targets.contract import Traced
from gauntlet.targets.http import MAX_REASON, HttpTarget, _said, environment_proxy

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


@pytest.mark.parametrize(
    ("url", "environ", "proxy"),
    [
        ("http://a.test/x", {}, None),
        ("http://a.test/x", {"HTTP_PROXY": "http://p:1"}, "http://p:1"),
        (
            "http://a.test/x",
            {"http_proxy": "http://low:1", "HTTP_PROXY": "http://up:1"},
            "http://low:1",
        ),
        ("https://a.test/x", {"HTTP_PROXY": "http://p:1"}, None),
        ("https://a.test/x", {"HTTPS_PROXY": "http://s:1"}, "http://s:1"),
        ("https://a.test/x", {"ALL_PROXY": "http://all:1"}, "http://all:1"),
        ("http://a.test/x", {"HTTP_PROXY": "http://p:1", "NO_PROXY": "a.test"}, None),
        ("http://b.a.test/x", {"HTTP_PROXY": "http://p:1", "no_proxy": ".a.test"}, None),
        ("http://a.test/x", {"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}, None),
        ("http://a.test/x", {"HTTP_PROXY": "http://p:1", "NO_PROXY": "other.test"}, "http://p:1"),
    ],
)
def test_the_environment_names_the_proxy(
    url: str, environ: dict[str, str], proxy: str | None
) -> None:
    assert environment_proxy(url, environ) == proxy


def test_a_socks_proxy_is_refused_without_its_credentials_or_the_query() -> None:
    with pytest.raises(
        UsageError, match=r"proxy 'socks5://p:1080' for https://a\.test is not an http"
    ) as caught:
        environment_proxy("https://a.test/?key=k3y", {"ALL_PROXY": "socks5://user:pw@p:1080"})
    assert "pw" not in str(caught.value)
    assert "k3y" not in str(caught.value)


def test_an_ipv6_proxy_keeps_its_brackets_without_its_credentials() -> None:
    with pytest.raises(UsageError, match=r"proxy 'socks5://\[::1\]:1080' for"):
        environment_proxy("http://a.test/", {"ALL_PROXY": "socks5://u:p@[::1]:1080"})


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://u:p@[::1]:8080/x?key=1", "http://[::1]:8080/x"),
        ("https://example.test", "https://example.test/"),
    ],
)
def test_the_name_keeps_host_port_and_path_only(url: str, name: str) -> None:
    assert HttpTarget(url).name == name


@pytest.mark.parametrize("url", ["http://h:abc/", "http://h:99999/"])
def test_a_url_with_a_bad_port_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match=r"^--http-url: the port is not a number from 0 to "):
        HttpTarget(url)


def test_a_long_transport_message_is_cut_to_one_short_line() -> None:
    said = _said(OSError("first line\n" + "word " * 100))
    assert "\n" not in said
    assert len(said) == MAX_REASON
    assert said.startswith("first line word word")
    assert said.endswith("…")


def test_a_header_replaces_a_default_whatever_its_case() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=BODY)

    target = HttpTarget(
        "http://example.test/",
        headers={"content-type": "application/json; charset=utf-8"},
        client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    asyncio.run(target.ask("hello", "en"))
    asyncio.run(target.aclose())
    [request] = seen
    assert request.headers.get_list("content-type") == ["application/json; charset=utf-8"]
    assert request.headers["user-agent"].startswith("gauntlet/")


def test_a_body_that_breaks_off_mid_stream_is_an_error() -> None:
    class Broken(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b'{"text": '
            raise httpx.ReadError("connection reset")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Broken())

    with pytest.raises(TargetUnreachableError, match="connection reset"):
        _ask(_target(httpx.MockTransport(handler)))


@pytest.mark.parametrize("retry_after", ["²", "١٢", "1²", "12 seconds"], ids=ascii)
def test_a_retry_after_that_is_not_ascii_digits_or_a_date_is_ignored(retry_after: str) -> None:
    # The trap: "²".isdigit() is true and float("²") raises, which crashed the run; and
    # float("١٢") is 12.0, so Arabic-Indic digits were waited for as if they were ASCII.
    throttled = httpx.Response(429, headers=[(b"Retry-After", retry_after.encode())])
    answers = iter([throttled])
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    target = HttpTarget(
        "http://example.test/",
        client=httpx.AsyncClient(
            transport=httpx.MockTransport(lambda r: next(answers, httpx.Response(200, json=BODY)))
        ),
        sleep=sleep,
        rng=random.Random(7),  # noqa: S311 - backoff jitter, not cryptography
    )

    async def go() -> Traced:
        try:
            return await target.ask_traced("hello", "en")
        finally:
            await target.aclose()

    traced = asyncio.run(go())
    # The backoff is used instead: its first step, 0.5 s, with up to 50% jitter.
    assert traced.attempts == 2
    assert len(waits) == 1
    assert 0.5 <= waits[0] <= 0.75
