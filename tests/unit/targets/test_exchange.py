"""The exchange seam: `MockExchange` as a test double, `AiohttpExchange`'s routes and secrets."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import gauntlet
from gauntlet.errors import TargetError, TargetUnreachableError, UsageError
from gauntlet.redact import Secret
from gauntlet.targets.exchange import (
    AiohttpExchange,
    Exchange,
    ExchangeError,
    MockExchange,
    MockReply,
    Pause,
    Reply,
    Request,
    header_secrets,
    url_name,
)

from ...hostile_server import HostileServer, hostile_server

GET = Request("GET", "http://example.test/x", {"Accept": "*/*"})


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


async def _body(reply: Reply) -> list[bytes]:
    return [chunk async for chunk in reply.chunks()]


def _exchange(exchange: Exchange, request: Request = GET) -> tuple[Reply, list[bytes]]:
    async def go() -> tuple[Reply, list[bytes]]:
        try:
            async with exchange.send(request) as reply:
                return reply, await _body(reply)
        finally:
            await exchange.aclose()

    return asyncio.run(go())


def test_a_mock_records_each_request_and_answers_from_its_handler() -> None:
    exchange = MockExchange(lambda request: MockReply(201, [("X-A", "1")], b"made"))
    reply, body = _exchange(exchange)
    assert (reply.status, reply.reason, reply.headers["x-a"], body) == (
        201,
        "Created",
        "1",
        [b"made"],
    )
    assert exchange.requests == [GET]
    assert exchange.closed


def test_a_mock_handler_may_be_a_coroutine() -> None:
    async def handler(request: Request) -> MockReply:
        await asyncio.sleep(0)
        return MockReply.json({"a": 1}, status=202, headers=[("X-B", "2")])

    reply, body = _exchange(MockExchange(handler))
    assert (reply.status, reply.reason, body) == (202, "Accepted", [b'{"a": 1}'])
    assert list(reply.headers.items()) == [("Content-Type", "application/json"), ("X-B", "2")]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [(MockReply(599), ""), (MockReply(200, reason="Fine"), "Fine"), (MockReply(404), "Not Found")],
)
def test_a_mock_reason_is_the_standard_phrase_unless_given(reply: MockReply, reason: str) -> None:
    answered, body = _exchange(MockExchange(lambda request: reply))
    assert (answered.reason, body) == (reason, [])


def test_a_mock_keeps_every_value_of_a_repeated_header() -> None:
    cookies = [("Set-Cookie", "a=1"), ("set-cookie", "b=2")]
    reply, _ = _exchange(MockExchange(lambda request: MockReply(headers=cookies)))
    assert reply.headers.getall("SET-COOKIE") == ["a=1", "b=2"]


def test_a_mock_streams_its_chunks_with_their_pauses() -> None:
    reply = MockReply(body=[b"one", Pause(0.05), b"two", b"three"])
    started = time.monotonic()
    _, body = _exchange(MockExchange(lambda request: reply))
    assert body == [b"one", b"two", b"three"]
    assert time.monotonic() - started >= 0.05


def test_a_mock_raises_a_fresh_error_where_the_body_breaks() -> None:
    broken = ExchangeError(TargetUnreachableError("dropped"), retryable=True, retry_after=2.0)
    exchange = MockExchange(lambda request: MockReply(body=[b"part", broken]))
    raised: list[ExchangeError] = []
    got: list[bytes] = []

    async def go() -> None:
        for _ in range(2):
            with pytest.raises(ExchangeError) as caught:
                async with exchange.send(GET) as reply:
                    async for chunk in reply.chunks():
                        got.append(chunk)  # noqa: PERF401 - the last raises mid-way
            raised.append(caught.value)

    asyncio.run(go())
    assert got == [b"part", b"part"]
    first, second = raised
    assert first is not broken and first.error is not second.error
    assert (type(first.error), str(first.error)) == (TargetUnreachableError, "dropped")
    assert (first.retryable, first.retry_after) == (True, 2.0)


def test_a_mock_reports_the_secrets_it_was_given() -> None:
    secret = Secret("proxy-pass-1", "the proxy's credentials")
    assert MockExchange(lambda request: MockReply(), secrets=[secret]).secrets == (secret,)


def test_a_header_is_replaced_whatever_its_case_and_the_request_kept() -> None:
    changed = GET.with_header("accept", "application/json")
    assert dict(changed.headers) == {"accept": "application/json"}
    assert dict(GET.headers) == {"Accept": "*/*"}
    assert (changed.method, changed.url, changed.body) == (GET.method, GET.url, GET.body)


def test_an_exchange_error_says_what_its_error_says() -> None:
    failure = ExchangeError(TargetError("HTTP exchange failed: x"), retryable=False)
    assert (str(failure), failure.retry_after) == ("HTTP exchange failed: x", None)


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://u:p@Example.test:8443/a/b?key=1#f", "https://example.test:8443/a/b"),
        ("http://[::1]:80/", "http://[::1]:80/"),
        ("http://h:abc/x", "http://h/x"),
        ("http://h", "http://h/"),
    ],
)
def test_a_url_is_named_without_credentials_or_query(url: str, name: str) -> None:
    assert url_name(url) == name


# ------------------------------------------------------------------ aiohttp


def test_the_proxies_credentials_are_secrets_in_every_form_sent() -> None:
    environ = {
        "http_proxy": "http://alice:pa%40ss-1@p:1",
        "HTTP_PROXY": "http://ignored:never-used@p:1",  # the lower-case name wins
        "ALL_PROXY": "http://only-a-user@p:2",
        "HTTPS_PROXY": "http://[::1",  # not a URL: refused when used, not here
        "NO_PROXY": "http://x:y@z",
    }
    exchange = AiohttpExchange(2, environ=environ)
    what = "the proxy's credentials"
    assert exchange.secrets == (
        Secret("Basic YWxpY2U6cGFAc3MtMQ==", what),
        Secret("YWxpY2U6cGFAc3MtMQ==", what),
        Secret("alice:pa@ss-1", what),
        Secret("pa@ss-1", what),
        Secret("pa%40ss-1", what),
        Secret("Basic b25seS1hLXVzZXI6", what),
        Secret("b25seS1hLXVzZXI6", what),
        Secret("only-a-user:", what),
    )


def test_a_proxy_is_looked_up_once_per_origin() -> None:
    environ = {"HTTP_PROXY": "http://user:pw@proxy.test:3128", "NO_PROXY": "direct.test"}
    exchange = AiohttpExchange(1, environ=environ)
    assert exchange.proxy_for("http://a.test/x") == "http://proxy.test:3128"
    assert exchange.proxy_for("http://direct.test/") is None
    environ["NO_PROXY"] = "a.test"  # too late: both routes are known
    assert exchange.proxy_for("http://a.test/y?q=1") == "http://proxy.test:3128"
    assert exchange.proxy_for("http://direct.test/z") is None
    assert exchange.proxy_for("http://b.test/") == "http://proxy.test:3128"  # a new origin
    route = exchange._route("http://a.test/x")
    assert route.request_headers == {"Proxy-Authorization": "Basic dXNlcjpwdw=="}
    assert (route.tunnel_headers, route.shown) == (None, "http://proxy.test:3128")


def test_a_url_with_a_bad_port_goes_direct_and_fails_when_sent() -> None:
    exchange = AiohttpExchange(1, environ={"HTTP_PROXY": "http://p:1"})
    assert exchange.proxy_for("http://h:abc/") is None
    with pytest.raises(ExchangeError) as caught:
        _exchange(exchange, Request("GET", "http://h:abc/", {}))
    assert not caught.value.retryable
    assert str(caught.value).startswith("HTTP exchange failed: InvalidUrlClientError: ")


def test_the_memo_of_routes_starts_afresh_when_full() -> None:
    exchange = AiohttpExchange(1, environ={})
    for number in range(1100):
        exchange.proxy_for(f"http://a.test/{number}")
    assert len(exchange._urls) == 1100 - 1024
    assert len(exchange._origins) == 1


@pytest.mark.parametrize(
    ("proxy", "message"),
    [
        ("http://[::1", "the environment's proxy for http://a.test is not a URL"),
        (
            "http://user:pw@p:99999",
            "the environment's proxy for http://a.test has a port that is not a number from "
            "0 to 65535",
        ),
        (
            "socks5://user:pw@p:1080",
            "the environment's proxy 'socks5://p:1080' for http://a.test is not an http:// "
            "URL: only http:// proxies are supported",
        ),
    ],
)
def test_a_proxy_that_cannot_be_used_is_refused_by_name_without_its_credentials(
    proxy: str, message: str
) -> None:
    exchange = AiohttpExchange(1, environ={"HTTP_PROXY": proxy})
    with pytest.raises(UsageError) as caught:
        exchange.proxy_for("http://a.test/")
    assert str(caught.value) == message
    with pytest.raises(ExchangeError) as failed:
        _exchange(exchange, Request("GET", "http://a.test/", {}))
    assert (type(failed.value.error), str(failed.value), failed.value.retryable) == (
        TargetUnreachableError,
        message,
        False,
    )


def test_aiohttp_gives_every_set_cookie_and_streams_the_body(server: HostileServer) -> None:
    exchange = AiohttpExchange(1)
    reply, body = _exchange(exchange, Request("POST", server.url("/cookie-jar"), {}))
    assert reply.status == 200
    assert reply.headers.getall("set-cookie") == [
        "turn=1; Path=/; HttpOnly",
        "id=conversation-1; Path=/",
    ]
    assert b"".join(body).startswith(b'{"text": "You sent Cookie: (none)"')


def test_aiohttp_sends_headers_as_given_and_keeps_no_cookie(server: HostileServer) -> None:
    exchange = AiohttpExchange(1)

    async def go() -> None:
        try:
            for _ in range(2):
                request = Request("POST", server.url("/set-cookie"), {"X-Run": "r1"}, b"{}")
                async with exchange.send(request) as reply:
                    await _body(reply)
        finally:
            await exchange.aclose()

    asyncio.run(go())
    assert [seen.headers.get("cookie") for seen in server.seen] == [None, None]
    assert [seen.headers["x-run"] for seen in server.seen] == ["r1", "r1"]


def test_aiohttp_opens_a_new_session_after_it_was_closed(server: HostileServer) -> None:
    exchange = AiohttpExchange(1)
    request = Request("GET", server.url("/ok"), {})
    assert _exchange(exchange, request)[0].status == 200
    assert _exchange(exchange, request)[0].status == 200  # another loop, another session
    assert server.hits("/ok") == 2


def test_an_error_raised_inside_the_block_passes_through(server: HostileServer) -> None:
    exchange = AiohttpExchange(1)

    async def go() -> None:
        try:
            async with exchange.send(Request("GET", server.url("/ok"), {})):
                raise TargetError("the reader's own")
        finally:
            await exchange.aclose()

    with pytest.raises(TargetError, match="^the reader's own$"):
        asyncio.run(go())


@pytest.mark.parametrize(
    ("value", "secrets"),
    [
        ("Bearer tok-1", ["Bearer tok-1", "tok-1"]),
        ("Basic not-base64!", ["Basic not-base64!", "not-base64!"]),
        ("Basic dTpw", ["Basic dTpw", "dTpw", "u:p", "p"]),
        ("k3y-only", ["k3y-only"]),
        ("Bearer ", ["Bearer "]),
    ],
)
def test_a_credential_header_is_a_secret_in_every_form(value: str, secrets: list[str]) -> None:
    assert [secret.value for secret in header_secrets(value, "x")] == secrets


def test_the_package_never_imports_httpx() -> None:
    """httpx is a test dependency only: no module of the package names it in an import."""
    package = Path(gauntlet.__file__).parent
    importing = re.compile(r"^\s*(import|from)\s+httpx\b", re.MULTILINE)
    assert [p for p in package.rglob("*.py") if importing.search(p.read_text("utf-8"))] == []
    probe = (
        "import sys\n"
        "import gauntlet.targets.http, gauntlet.targets.auth, gauntlet.targets.client\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'jsonschema')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
