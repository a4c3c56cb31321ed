"""`HttpTarget` against a real, hostile HTTP server on 127.0.0.1: each misbehaviour ends as told."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from httpx_aiohttp import AiohttpTransport, HttpxAiohttpClient

from gauntlet.errors import (
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
)
from gauntlet.targets.contract import TargetResponse, Traced
from gauntlet.targets.http import HttpSettings, HttpTarget

from ...hostile_server import CITED, HostileServer, answer, hostile_server

pytestmark = pytest.mark.network

FAST = HttpSettings(timeout=0.5, retries=2)
"""A short deadline, so a test that waits for it stays quick."""


class Sleeps:
    """A `sleep` that records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client trusts the environment: no proxy may stand between it and 127.0.0.1."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


def _target(
    url: str,
    sleeps: Sleeps,
    settings: HttpSettings = FAST,
    *,
    headers: dict[str, str] | None = None,
    client: httpx.AsyncClient | None = None,
) -> HttpTarget:
    jitter = random.Random(7)  # noqa: S311 - backoff jitter, not cryptography
    return HttpTarget(
        url, headers=headers, settings=settings, client=client, sleep=sleeps, rng=jitter
    )


def _ask(target: HttpTarget, prompt: str = "hello") -> Traced:
    async def go() -> Traced:
        try:
            return await target.ask_traced(prompt, "en")
        finally:
            await target.aclose()

    return asyncio.run(go())


def _fails(target: HttpTarget, error: type[TargetError], match: str) -> TargetError:
    """Ask, expecting exactly `error` (not a subclass or a parent) with a matching reason."""
    with pytest.raises(TargetError, match=match) as caught:
        _ask(target)
    assert type(caught.value) is error, repr(caught.value)
    return caught.value


def test_a_good_answer_comes_back_on_the_first_attempt(
    server: HostileServer, sleeps: Sleeps
) -> None:
    traced = _ask(_target(server.url("/ok"), sleeps), "opening hours?")
    assert traced.response == TargetResponse.model_validate(answer("You asked: opening hours?"))
    assert (traced.attempts, traced.waited, sleeps.waits) == (1, 0.0, [])
    [seen] = server.seen
    assert seen.headers["content-type"] == "application/json"
    assert (seen.path, seen.prompt) == ("/ok", "opening hours?")


def test_the_default_client_is_httpx_over_aiohttp(server: HostileServer) -> None:
    target = HttpTarget(server.url("/ok"), settings=FAST)
    client = target._client
    assert isinstance(client, HttpxAiohttpClient)
    assert isinstance(client._transport, AiohttpTransport)
    assert _ask(target).response.citations == (CITED,)
    assert server.hits("/ok") == 1


def test_an_injected_client_is_used_instead(server: HostileServer, sleeps: Sleeps) -> None:
    asked: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return httpx.Response(200, json=answer("from the mock"))

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    traced = _ask(_target(server.url("/ok"), sleeps, client=client))
    assert traced.response.text == "from the mock"
    assert [str(request.url) for request in asked] == [server.url("/ok")]
    assert server.hits("/ok") == 0


def test_a_slow_answer_times_out_on_every_attempt(server: HostileServer, sleeps: Sleeps) -> None:
    settings = HttpSettings(timeout=0.5, retries=1)
    error = _fails(
        _target(server.url("/slow"), sleeps, settings),
        TargetTimeoutError,
        r"(no complete answer within 0\.5 s|timed out: \w+) \(after 2 attempts\)$",
    )
    assert (error.attempts, server.hits("/slow")) == (2, 2)
    assert error.waited == pytest.approx(sum(sleeps.waits))
    assert len(sleeps.waits) == 1


def test_a_trickling_body_hits_the_whole_exchange_deadline(
    server: HostileServer, sleeps: Sleeps
) -> None:
    """A byte every 0.2 s never trips a per-read timeout; only the attempt's deadline ends it."""
    settings = HttpSettings(timeout=0.5, retries=0)
    error = _fails(
        _target(server.url("/trickle"), sleeps, settings),
        TargetTimeoutError,
        r"^no complete answer within 0\.5 s$",
    )
    assert (error.attempts, error.waited, sleeps.waits) == (1, 0.0, [])


def test_a_refused_connection_is_unreachable_after_every_retry(sleeps: Sleeps) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on the port now: every connection attempt is refused at once.
    error = _fails(
        _target(f"http://127.0.0.1:{port}/ask", sleeps),
        TargetUnreachableError,
        rf"^cannot connect to http://127\.0\.0\.1:{port}/ask: .+ \(after 3 attempts\)$",
    )
    assert error.attempts == 3
    assert len(sleeps.waits) == 2
    # Exponential backoff from 0.5 s with up to 50% jitter: [0.5, 0.75] then [1.0, 1.5].
    assert 0.5 <= sleeps.waits[0] <= 0.75
    assert 1.0 <= sleeps.waits[1] <= 1.5
    assert error.waited == pytest.approx(sum(sleeps.waits), abs=0.002)


def test_429_with_retry_after_seconds_waits_as_told(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/429-seconds"), sleeps))
    assert traced.response.text == "You asked: hello"
    assert (traced.attempts, traced.waited, sleeps.waits) == (3, 2.0, [1.0, 1.0])
    assert server.hits("/429-seconds") == 3


def test_429_past_the_last_retry_is_an_error_naming_the_status(
    server: HostileServer, sleeps: Sleeps
) -> None:
    error = _fails(
        _target(server.url("/429-seconds"), sleeps, HttpSettings(timeout=0.5, retries=1)),
        TargetError,
        r"^HTTP 429 Too Many Requests \(after 2 attempts\)$",
    )
    assert (error.attempts, error.waited, sleeps.waits) == (2, 1.0, [1.0])
    assert server.hits("/429-seconds") == 2


def test_429_with_an_http_date_waits_until_that_date(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/429-date?after=30"), sleeps))
    assert traced.attempts == 3
    assert len(sleeps.waits) == 2
    # The date has whole seconds and is read a moment later: a little under 30 s, never over.
    assert all(20.0 < wait <= 30.0 for wait in sleeps.waits), sleeps.waits
    assert traced.waited == pytest.approx(sum(sleeps.waits), abs=0.002)


@pytest.mark.parametrize("path", ["/429-seconds?after=3600", "/429-date?after=3600"])
def test_a_retry_after_past_the_cap_is_cut_to_the_cap(
    server: HostileServer, sleeps: Sleeps, path: str
) -> None:
    settings = HttpSettings(timeout=0.5, retries=2, retry_after_cap=5.0)
    traced = _ask(_target(server.url(path), sleeps, settings))
    assert (traced.attempts, traced.waited, sleeps.waits) == (3, 10.0, [5.0, 5.0])


def test_a_real_retry_after_is_really_waited() -> None:
    """The one test that sleeps for real: the default `sleep` honours `Retry-After: 1`."""
    with hostile_server(throttle=1) as server:
        target = HttpTarget(server.url("/429-seconds"), settings=FAST)
        started = time.monotonic()
        traced = _ask(target)
        elapsed = time.monotonic() - started
        assert (traced.attempts, traced.waited) == (2, 1.0)
        assert server.hits("/429-seconds") == 2
    assert elapsed >= 0.5  # a generous lower bound: the wait happened, however fast the host


def test_500_is_not_retried(server: HostileServer, sleeps: Sleeps) -> None:
    error = _fails(
        _target(server.url("/flaky-500"), sleeps),
        TargetError,
        r"^HTTP 500 Internal Server Error$",
    )
    assert (error.attempts, error.waited, sleeps.waits) == (1, 0.0, [])
    assert server.hits("/flaky-500") == 1


def test_503_is_retried_with_backoff(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/flaky-503"), sleeps))
    assert traced.response.text == "You asked: hello"
    assert traced.attempts == 3
    assert server.hits("/flaky-503") == 3
    assert 0.5 <= sleeps.waits[0] <= 0.75
    assert 1.0 <= sleeps.waits[1] <= 1.5
    assert traced.waited == pytest.approx(sum(sleeps.waits), abs=0.002)


def test_a_redirect_is_an_error_and_never_followed(server: HostileServer, sleeps: Sleeps) -> None:
    error = _fails(
        _target(server.url("/redirect"), sleeps),
        TargetError,
        r"^HTTP 302 redirect to '/ok': redirects are not followed$",
    )
    assert (error.attempts, sleeps.waits) == (1, [])
    assert server.hits("/redirect") == 1
    assert server.hits("/ok") == 0


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/not-json", r"^response is not JSON: Expecting value at line 1, column 1 "),
        ("/html", r"^response is not JSON: .*\(body starts b'<!doctype html><html>"),
        ("/list", r"^response is a JSON array, not an object"),
        ("/wrong-types", r"^target contract broken: refused: .*got 'no'$"),
        ("/nan", r"^response holds NaN, which JSON does not allow$"),
        ("/duplicate-key", r"^response has the key 'text' twice$"),
        ("/huge", r"^response body is larger than 1,048,576 bytes$"),
        ("/huge?chunked=1", r"^response body is larger than 1,048,576 bytes$"),
        ("/bomb", r"^response body is larger than 1,048,576 bytes$"),
    ],
)
def test_a_body_that_breaks_the_contract_is_a_contract_error(
    server: HostileServer, sleeps: Sleeps, path: str, reason: str
) -> None:
    error = _fails(_target(server.url(path), sleeps), TargetContractError, reason)
    assert (error.attempts, error.waited, sleeps.waits) == (1, 0.0, [])


def test_a_smaller_cap_applies_to_an_ordinary_answer(server: HostileServer, sleeps: Sleeps) -> None:
    settings = HttpSettings(timeout=0.5, retries=0, max_bytes=20)
    _fails(
        _target(server.url("/ok"), sleeps, settings),
        TargetContractError,
        r"^response body is larger than 20 bytes$",
    )


def test_headers_reach_the_server_and_are_secrets(server: HostileServer, sleeps: Sleeps) -> None:
    target = _target(server.url("/echo-auth"), sleeps, headers={"Authorization": "Bearer tok-123"})
    assert target.secrets == ("Bearer tok-123", "tok-123")
    traced = _ask(target)
    assert traced.response.text == "You sent Authorization: Bearer tok-123 to /echo-auth"


def test_credentials_in_the_url_are_sent(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/echo-auth?api_key=k3y", userinfo="user:s3cret"), sleeps))
    assert traced.response.text.startswith("You sent Authorization: Basic dXNlcjpzM2NyZXQ=")


def test_the_basic_credentials_built_from_the_url_are_secrets() -> None:
    target = HttpTarget("http://user:s3cret@127.0.0.1:9/ask?api_key=k3y")
    asyncio.run(target.aclose())
    assert {"s3cret", "k3y", "Basic dXNlcjpzM2NyZXQ=", "dXNlcjpzM2NyZXQ="} <= set(target.secrets)
