"""`GauntletTarget` against a hostile HTTP server on 127.0.0.1: each misbehaviour ends as told."""

from __future__ import annotations

import asyncio
import random
import socket
import ssl
import time
from collections.abc import Iterator

import aiohttp
import httpx
import pytest
import trustme

from gauntlet.errors import (
    Interrupted,
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
)
from gauntlet.targets.client import Pacing
from gauntlet.targets.contract import Conversation, Question, TargetResponse, Traced
from gauntlet.targets.exchange import AiohttpExchange, Exchange, MockExchange, MockReply
from gauntlet.targets.http import GauntletTarget, HttpSettings

from ...hostile_server import HostileServer, answer, hostile_server
from ...httpx_exchange import HttpxExchange

pytestmark = pytest.mark.network

FAST = HttpSettings(timeout=0.5, retries=2)
"""A short deadline, so a test that waits for it stays quick."""


class Sleeps:
    """A `sleep` that records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


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
    exchange: Exchange | None = None,
) -> GauntletTarget:
    jitter = random.Random(7)  # noqa: S311 - backoff jitter, not cryptography
    return GauntletTarget(
        url,
        headers=headers,
        settings=settings,
        exchange=exchange,
        pacing=Pacing(sleep=sleeps, rng=jitter),
    )


def _unused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: a connection to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ask(target: GauntletTarget, prompt: str = "hello") -> Traced:
    async def go() -> Traced:
        try:
            return await target.ask(Question(prompt, "en"))
        finally:
            await target.aclose()

    return asyncio.run(go())


def _fails(target: GauntletTarget, error: type[TargetError], match: str) -> TargetError:
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


def test_one_pool_sized_to_the_concurrency_serves_every_ask(server: HostileServer) -> None:
    """Twelve asks at once through a pool of three: three connections, each kept alive."""
    target = GauntletTarget(server.url("/ok"), settings=FAST, concurrency=3)
    pools: list[aiohttp.BaseConnector | None] = []

    async def go() -> list[Traced]:
        try:
            asks = (target.ask(Question(f"question {n}", "en")) for n in range(12))
            return await asyncio.gather(*asks)
        finally:
            # What carried them: aiohttp's pool, not httpx's (the benchmarks rest on this).
            pools.append(target._exchange._session.connector)  # type: ignore[attr-defined]
            await target.aclose()

    answers = asyncio.run(go())
    assert sorted(traced.response.text for traced in answers) == sorted(
        f"You asked: question {n}" for n in range(12)
    )
    ports = {seen.client_port for seen in server.seen}
    assert len(ports) == 3, ports
    [pool] = pools
    assert isinstance(pool, aiohttp.TCPConnector)
    assert pool.limit == 3


def test_every_request_says_who_sent_it(server: HostileServer, sleeps: Sleeps) -> None:
    _ask(_target(server.url("/ok"), sleeps))
    [seen] = server.seen
    assert seen.headers["user-agent"].startswith("gauntlet/")


def test_a_header_replaces_a_default_whatever_its_case(
    server: HostileServer, sleeps: Sleeps
) -> None:
    _ask(_target(server.url("/ok"), sleeps, headers={"user-agent": "probe/1"}))
    [seen] = server.seen
    assert seen.headers["user-agent"] == "probe/1"


def test_no_cookie_is_carried_from_one_case_to_the_next(server: HostileServer) -> None:
    # By name, not by address: a cookie jar may ignore cookies from a bare IP address anyway.
    url = server.url("/set-cookie").replace("127.0.0.1", "localhost")
    target = GauntletTarget(url, settings=FAST)

    async def go() -> list[str]:
        try:
            asks = [await target.ask(Question(prompt, "en")) for prompt in ("a", "b")]
            return [traced.response.text for traced in asks]
        finally:
            await target.aclose()

    assert asyncio.run(go()) == ["You sent Cookie: (none)"] * 2


def test_the_environments_proxy_carries_the_request(
    server: HostileServer, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hostile server stands in for the proxy: it is sent the whole URL, for any host."""
    monkeypatch.setenv("HTTP_PROXY", server.url(""))
    traced = _ask(_target("http://gauntlet.invalid/ok", sleeps))
    assert traced.response.text == "You asked: hello"
    [seen] = server.seen
    assert seen.path == "http://gauntlet.invalid/ok"
    assert "proxy-authorization" not in seen.headers


def test_the_proxys_credentials_go_to_the_proxy(
    server: HostileServer, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url("", userinfo="proxy%20user:pr0xy"))
    target = _target("http://gauntlet.invalid/ok", sleeps)
    basic = "cHJveHkgdXNlcjpwcjB4eQ=="  # base64("proxy user:pr0xy")
    assert {f"Basic {basic}", basic, "pr0xy"} <= {secret.value for secret in target.secrets}
    _ask(target)
    [seen] = server.seen
    assert seen.headers["proxy-authorization"] == "Basic cHJveHkgdXNlcjpwcjB4eQ=="


def test_a_proxy_that_is_down_is_named(sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch) -> None:
    port = _unused_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://user:pw@127.0.0.1:{port}/")
    error = _fails(
        _target("http://gauntlet.invalid/ok", sleeps, HttpSettings(timeout=0.5, retries=0)),
        TargetUnreachableError,
        rf"^cannot connect to http://gauntlet\.invalid/ok through the proxy "
        rf"http://127\.0\.0\.1:{port}: ",
    )
    assert "pw" not in str(error)


def test_a_tunnel_the_proxy_refuses_is_an_error_and_carries_its_credentials(
    server: HostileServer, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For https:// the proxy is asked for a tunnel (CONNECT), with the credentials on it."""
    monkeypatch.setenv("HTTPS_PROXY", server.url("", userinfo="proxy%20user:pr0xy"))
    target = _target("https://gauntlet.invalid/ok", sleeps)
    # Not on the requests themselves, which travel through the tunnel to the target.
    exchange = target._exchange
    assert isinstance(exchange, AiohttpExchange)
    route = exchange._route(target.url)
    assert route.request_headers is None
    assert route.tunnel_headers == {"Proxy-Authorization": "Basic cHJveHkgdXNlcjpwcjB4eQ=="}
    error = _fails(
        target,
        TargetUnreachableError,
        r"^the proxy http://127\.0\.0\.1:\d+ refused to reach https://gauntlet\.invalid/ok: "
        r"HTTP 407 Proxy Authentication Required$",
    )
    assert (error.attempts, sleeps.waits) == (1, [])
    [seen] = server.seen
    assert seen.path == "gauntlet.invalid:443"
    assert seen.headers["proxy-authorization"] == "Basic cHJveHkgdXNlcjpwcjB4eQ=="


def test_no_proxy_exempts_a_host(
    server: HostileServer, sleeps: Sleeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    traced = _ask(_target(server.url("/ok"), sleeps))
    assert traced.response.text == "You asked: hello"
    assert [seen.path for seen in server.seen] == ["/ok"]


def test_an_injected_exchange_is_used_instead(server: HostileServer, sleeps: Sleeps) -> None:
    exchange = MockExchange(lambda request: MockReply.json(answer("from the mock")))
    traced = _ask(_target(server.url("/ok"), sleeps, exchange=exchange))
    assert traced.response.text == "from the mock"
    assert [request.url for request in exchange.requests] == [server.url("/ok")]
    assert exchange.closed
    assert server.hits("/ok") == 0


def test_an_httpx_client_can_carry_the_requests(server: HostileServer, sleeps: Sleeps) -> None:
    asked: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return httpx.Response(200, json=answer("from httpx"))

    exchange = HttpxExchange(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    traced = _ask(_target(server.url("/ok"), sleeps, exchange=exchange))
    assert traced.response.text == "from httpx"
    assert [str(request.url) for request in asked] == [server.url("/ok")]
    assert server.hits("/ok") == 0


def test_a_certificate_nobody_trusts_fails_at_once(sleeps: Sleeps) -> None:
    """TLS is verified by default, and a failed verification is not worth a retry."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1").configure_cert(context)
    with hostile_server(tls=context) as server:
        error = _fails(
            _target(server.url("/ok"), sleeps),
            TargetUnreachableError,
            r"^cannot connect to https://127\.0\.0\.1:\d+/ok: TLS failed: .*certificate verify",
        )
        assert (error.attempts, sleeps.waits, server.hits("/ok")) == (1, [], 0)


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
    port = _unused_port()
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


def test_a_dropped_connection_is_retried(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/hang-up"), sleeps))
    assert traced.response.text == "You asked: hello"
    assert (traced.attempts, server.hits("/hang-up")) == (3, 3)
    assert len(sleeps.waits) == 2


def test_a_connection_dropped_past_the_last_retry_is_unreachable(
    server: HostileServer, sleeps: Sleeps
) -> None:
    error = _fails(
        _target(server.url("/hang-up"), sleeps, HttpSettings(timeout=0.5, retries=1)),
        TargetUnreachableError,
        r"^http://127\.0\.0\.1:\d+/hang-up dropped the connection before answering: .+ "
        r"\(after 2 attempts\)$",
    )
    assert (error.attempts, server.hits("/hang-up")) == (2, 2)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/truncated", r"Not enough data to satisfy content length header \(received \d+ of"),
        ("/bad-gzip", r"Can not decode content-encoding: gzip$"),
    ],
)
def test_a_broken_body_is_an_error_and_not_retried(
    server: HostileServer, sleeps: Sleeps, path: str, reason: str
) -> None:
    error = _fails(
        _target(server.url(path), sleeps), TargetError, rf"^response body is broken: {reason}"
    )
    assert (error.attempts, sleeps.waits, server.hits(path)) == (1, [], 1)


def test_a_reply_that_is_not_http_is_an_error_and_not_retried(
    server: HostileServer, sleeps: Sleeps
) -> None:
    error = _fails(
        _target(server.url("/not-http"), sleeps),
        TargetError,
        r"^response is not valid HTTP: Bad status line: .*b'SSH-2\.0-OpenSSH_9\.6' \^$",
    )
    assert (error.attempts, sleeps.waits, server.hits("/not-http")) == (1, [], 1)


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
        target = GauntletTarget(server.url("/429-seconds"), settings=FAST)
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
        ("/html", r"^response is not JSON: .*\(body starts '<!doctype html><html>"),
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
    assert [secret.value for secret in target.secrets] == ["Bearer tok-123", "tok-123"]
    traced = _ask(target)
    assert traced.response.text == "You sent Authorization: Bearer tok-123 to /echo-auth"


def test_credentials_in_the_url_are_sent(server: HostileServer, sleeps: Sleeps) -> None:
    traced = _ask(_target(server.url("/echo-auth?api_key=k3y", userinfo="user:s3cret"), sleeps))
    assert traced.response.text.startswith("You sent Authorization: Basic dXNlcjpzM2NyZXQ=")


def test_the_basic_credentials_built_from_the_url_are_secrets() -> None:
    target = GauntletTarget("http://user:s3cret@127.0.0.1:9/ask?api_key=k3y")
    asyncio.run(target.aclose())
    secrets = {secret.value for secret in target.secrets}
    assert {"s3cret", "k3y", "Basic dXNlcjpzM2NyZXQ=", "dXNlcjpzM2NyZXQ="} <= secrets


def test_a_stop_ends_a_wait_before_a_retry_at_once(server: HostileServer) -> None:
    """`Retry-After: 60` is waited out only while the run goes on; a signal ends the wait."""
    target = GauntletTarget(server.url("/429-cases?after=60"), settings=FAST)

    async def go() -> float:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.3, stop.set)
        started = asyncio.get_running_loop().time()
        try:
            with pytest.raises(Interrupted, match="interrupted while waiting to retry"):
                await target.ask(Question("a case", "en", stop=stop))
        finally:
            await target.aclose()
        return asyncio.get_running_loop().time() - started

    took = asyncio.run(go())
    assert took < 30, f"the wait went on {took:.1f} s after the stop"  # not the 60 s asked for
    assert server.hits("/429-cases") == 1


def test_cookies_are_kept_within_one_conversation_and_never_across_two(
    server: HostileServer,
) -> None:
    url = server.url("/cookie-jar").replace("127.0.0.1", "localhost")
    target = GauntletTarget(url, settings=FAST)
    first, second = Conversation("case-1"), Conversation("case-2")

    async def go() -> list[str]:
        said = []
        try:
            for conversation in (first, first, second, first, None):
                traced = await target.ask(Question("hi", "en", conversation=conversation))
                said.append(traced.response.text)
        finally:
            await target.aclose()
        return said

    assert asyncio.run(go()) == [
        "You sent Cookie: (none)",
        "You sent Cookie: turn=1; id=conversation-1",
        "You sent Cookie: (none)",
        "You sent Cookie: turn=2; id=conversation-1",
        "You sent Cookie: (none)",
    ]
    assert first.cookies == {"turn": "3", "id": "conversation-1"}
    assert second.cookies == {"turn": "1", "id": "conversation-3"}


def test_a_refusal_quotes_its_body_with_the_credentials_masked(
    server: HostileServer, sleeps: Sleeps
) -> None:
    target = _target(
        server.url("/401-echo"), sleeps, headers={"Authorization": "Bearer tok-5e6f7a8b"}
    )
    error = _fails(
        target,
        TargetError,
        r'^HTTP 401 Unauthorized \[REDACTED\]: \{"error": "bad credentials \[REDACTED\]"\}$',
    )
    assert (error.attempts, sleeps.waits) == (1, [])


def test_503_past_the_last_retry_quotes_the_start_of_its_body(sleeps: Sleeps) -> None:
    with hostile_server(throttle=5) as server:
        error = _fails(
            _target(server.url("/flaky-503"), sleeps, HttpSettings(timeout=0.5, retries=1)),
            TargetError,
            r'^HTTP 503 Service Unavailable: \{"text": "You asked: hello", "citations": '
            r'\["RB-1"\], .*"escalated": false\} \(after 2 attempts\)$',
        )
        assert (error.attempts, server.hits("/flaky-503"), len(sleeps.waits)) == (2, 2, 1)
