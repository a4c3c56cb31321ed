"""`HttpClient`: the one HTTP policy every HTTP target sends through."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator, Sequence
from email.utils import formatdate
from http import HTTPStatus

import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.errors import (
    Interrupted,
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
)
from gauntlet.redact import MASK, Redactor, Secret
from gauntlet.targets.client import (
    Called,
    HttpClient,
    HttpSettings,
    Pacing,
    cookie_header,
    keep_cookies,
    read_capped,
    read_head,
    with_cookies,
)
from gauntlet.targets.exchange import (
    AiohttpExchange,
    ExchangeError,
    MockExchange,
    MockHandler,
    MockReply,
    Pause,
    Reply,
    Request,
)

from ...hostile_server import HostileServer, hostile_server

SECRET = "tok-3f9a1c7e5b"  # noqa: S105 - a test token
POST = Request("POST", "http://example.test/ask", {"Authorization": f"Bearer {SECRET}"}, b"{}")
FAST = HttpSettings(timeout=0.5, retries=2)


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


class Sleeps:
    """A `sleep` that records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def _text(reply: Reply) -> str:
    return (await read_capped(reply, 1000)).decode()


def _client(
    handler: MockHandler | MockExchange,
    settings: HttpSettings = FAST,
    *,
    sleeps: Sleeps | None = None,
    redactor: Redactor | None = None,
    auth: _Renewing | None = None,
) -> HttpClient:
    exchange = handler if isinstance(handler, MockExchange) else MockExchange(handler)
    return HttpClient(
        exchange,
        settings,
        redactor=Redactor([SECRET]) if redactor is None else redactor,
        auth=auth,
        pacing=Pacing(
            sleep=sleeps or Sleeps(),
            rng=random.Random(7),  # noqa: S311 - backoff jitter, not cryptography
        ),
    )


def _call(client: HttpClient, request: Request = POST) -> Called[str]:
    async def go() -> Called[str]:
        try:
            return await client.call(request, _text)
        finally:
            await client.aclose()

    return asyncio.run(go())


def _fails(client: HttpClient, error: type[TargetError], message: str) -> TargetError:
    with pytest.raises(TargetError) as caught:
        _call(client)
    assert type(caught.value) is error, repr(caught.value)
    assert str(caught.value) == message
    return caught.value


def _replies(*replies: MockReply) -> MockHandler:
    """Answers with each reply in turn, then with the last one again and again."""
    queue = iter(replies)
    last = replies[-1]
    return lambda request: next(queue, last)


def test_a_2xx_is_read_and_comes_back_with_how_it_was_got() -> None:
    client = _client(lambda request: MockReply(203, [("X-Session", "s-1")], b"fine"))
    called = _call(client)
    assert (called.value, called.attempts, called.waited) == ("fine", 1, 0.0)
    assert called.headers["x-session"] == "s-1"
    assert client.exchange.closed  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            MockReply(500, body=f'{{"error": "bad token Bearer {SECRET}"}}'.encode()),
            'HTTP 500 Internal Server Error: {"error": "bad token Bearer [REDACTED]"}',
        ),
        (
            MockReply(403, body=b"\x1b[31mno\x1b[0m\n::error::forged", reason=f"No {SECRET}"),
            "HTTP 403 No [REDACTED]: \\x1b[31mno\\x1b[0m\\n::error::forged",
        ),
        (MockReply(404, body=b"\xff\xfe nope"), "HTTP 404 Not Found: \ufffd\ufffd nope"),
        (
            MockReply(302, [("Location", f"https://u:{SECRET}@sso.test/cb?token=t0k-1&x=1")]),
            "HTTP 302 redirect to 'https://sso.test/cb?token=[REDACTED]&x=1': "
            "redirects are not followed",
        ),
    ],
)
def test_only_2xx_is_an_answer_and_the_rest_is_quoted_masked(
    reply: MockReply, message: str
) -> None:
    error = _fails(_client(lambda request: reply), TargetError, message)
    assert (error.attempts, error.waited) == (1, 0.0)


def test_a_refusal_reads_only_the_start_of_a_long_body() -> None:
    # The third chunk would break the exchange if it were read.
    broken = ExchangeError(TargetError("read too far"), retryable=False)
    error = _fails(
        _client(lambda request: MockReply(500, body=[b"x" * 3000, b"y" * 3000, broken])),
        TargetError,
        "HTTP 500 Internal Server Error: " + "x" * 199 + "…",
    )
    assert error.attempts == 1


def test_a_secret_cut_in_half_by_the_quote_is_masked_first() -> None:
    body = ("a" * 195 + SECRET).encode()
    error = _fails(
        _client(lambda request: MockReply(400, body=body)),
        TargetError,
        "HTTP 400 Bad Request: " + "a" * 195 + "[RED…",
    )
    assert SECRET[:4] not in str(error).removeprefix("HTTP 400 Bad Request: ")


def test_503_is_retried_with_backoff_until_an_answer() -> None:
    sleeps = Sleeps()
    client = _client(
        _replies(MockReply(503, body=b"busy"), MockReply(503), MockReply(body=b"ok")),
        sleeps=sleeps,
    )
    called = _call(client)
    assert (called.value, called.attempts) == ("ok", 3)
    assert 0.5 <= sleeps.waits[0] <= 0.75
    assert 1.0 <= sleeps.waits[1] <= 1.5
    assert called.waited == round(sum(sleeps.waits), 3)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_a_status_worth_retrying_ends_named_after_the_last_retry(status: int) -> None:
    sleeps = Sleeps()
    error = _fails(
        _client(lambda request: MockReply(status, body=b"later"), sleeps=sleeps),
        TargetError,
        f"HTTP {status} {HTTPStatus(status).phrase}: later (after 3 attempts)",
    )
    assert (error.attempts, len(sleeps.waits)) == (3, 2)
    assert error.waited == round(sum(sleeps.waits), 3)


@pytest.mark.parametrize(
    ("retry_after", "waits"),
    [
        ("2", [2.0, 2.0]),
        ("3600", [5.0, 5.0]),  # cut to the cap
        ("0", [0.0, 0.0]),
        (formatdate(0, usegmt=True), [0.0, 0.0]),  # a date in the past: no wait
        ("Thu, 01 Jan 1970 00:00:00 -0000", [0.0, 0.0]),  # no zone: read as UTC
    ],
)
def test_retry_after_is_honoured_up_to_the_cap(retry_after: str, waits: list[float]) -> None:
    sleeps = Sleeps()
    settings = HttpSettings(timeout=0.5, retries=2, retry_after_cap=5.0)
    throttled = MockReply(429, [("Retry-After", retry_after)])
    called = _call(
        _client(_replies(throttled, throttled, MockReply(body=b"ok")), settings, sleeps=sleeps)
    )
    assert (called.attempts, sleeps.waits, called.waited) == (3, waits, sum(waits))


def test_a_stop_ends_a_wait_at_once() -> None:
    async def sleep(seconds: float) -> None:
        await asyncio.sleep(seconds)

    client = HttpClient(
        MockExchange(lambda request: MockReply(429, [("Retry-After", "60")])),
        FAST,
        redactor=Redactor(),
        pacing=Pacing(sleep=sleep),
    )

    async def go() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, stop.set)
        await client.call(POST, _text, stop=stop)

    with pytest.raises(Interrupted, match="^interrupted while waiting to retry$"):
        asyncio.run(go())


def test_a_stop_that_is_never_set_lets_the_retry_happen() -> None:
    client = _client(_replies(MockReply(503), MockReply(body=b"ok")))

    async def go() -> Called[str]:
        return await client.call(POST, _text, stop=asyncio.Event())

    assert asyncio.run(go()).attempts == 2


def test_a_contract_error_from_the_reader_is_never_retried() -> None:
    async def read(reply: Reply) -> str:
        raise TargetContractError(f"response is odd: {SECRET}")

    exchange = MockExchange(lambda request: MockReply(body=b"{}"))
    client = _client(exchange)
    with pytest.raises(TargetContractError) as caught:
        asyncio.run(client.call(POST, read))
    assert str(caught.value) == f"response is odd: {MASK}"
    assert (caught.value.attempts, len(exchange.requests)) == (1, 1)


def test_a_body_that_breaks_off_is_retried_as_the_exchange_says() -> None:
    dropped = ExchangeError(TargetUnreachableError("x dropped the connection"), retryable=True)
    exchange = MockExchange(
        _replies(MockReply(body=[b"par", dropped]), MockReply(body=[b"par", b"tial"]))
    )
    called = _call(_client(exchange))
    assert (called.value, called.attempts, len(exchange.requests)) == ("partial", 2, 2)


def test_a_slow_stream_times_out_on_every_attempt() -> None:
    """The deadline covers the whole read: a chunk every 0.1 s never finishes in 0.3 s."""
    sleeps = Sleeps()
    body: list[bytes | Pause | ExchangeError] = [b"a", Pause(0.1)] * 10
    error = _fails(
        _client(
            lambda request: MockReply(body=body),
            HttpSettings(timeout=0.3, retries=1),
            sleeps=sleeps,
        ),
        TargetTimeoutError,
        "no complete answer within 0.3 s (after 2 attempts)",
    )
    assert (error.attempts, len(sleeps.waits)) == (2, 1)


def test_a_slow_server_stream_hits_the_deadline_after_its_first_chunks() -> None:
    """A real chunked stream on 127.0.0.1: some chunks arrive, the deadline ends the rest."""
    got: list[bytes] = []

    async def stream(reply: Reply) -> int:
        async for chunk in reply.chunks():
            got.append(chunk)  # noqa: PERF401 - kept as they come, up to the deadline
        return len(got)  # pragma: no cover - the deadline comes first

    with hostile_server() as server:
        client = HttpClient(
            AiohttpExchange(1),
            HttpSettings(timeout=0.5, retries=0),
            redactor=Redactor(),
        )
        request = Request("GET", server.url("/stream?chunks=20&interval=0.2"), {})

        async def go() -> None:
            try:
                await client.call(request, stream)
            finally:
                await client.aclose()

        with pytest.raises(TargetTimeoutError, match=r"^no complete answer within 0\.5 s$"):
            asyncio.run(go())
    assert 1 <= len(b"".join(got).split(b"\n\n")) - 1 <= 4, got
    assert b"".join(got).startswith(b"data: piece 0\n\n")


def test_a_server_stream_within_the_deadline_is_read_whole(server: HostileServer) -> None:
    client = HttpClient(AiohttpExchange(1), FAST, redactor=Redactor())

    async def go() -> Called[bytes]:
        try:
            return await client.call(
                Request("GET", server.url("/stream?chunks=4&interval=0.01"), {}),
                lambda reply: read_capped(reply, 1000),
            )
        finally:
            await client.aclose()

    called = asyncio.run(go())
    assert called.value == b"".join(f"data: piece {n}\n\n".encode() for n in range(4))
    assert called.headers["content-type"] == "text/event-stream"


def test_the_exchange_secrets_are_taught_to_the_redactor() -> None:
    redactor = Redactor()
    secret = Secret("proxy-pass-77", "the proxy's credentials")
    HttpClient(MockExchange(lambda r: MockReply(), secrets=[secret]), FAST, redactor=redactor)
    assert redactor.text("proxy-pass-77") == MASK


# ------------------------------------------------------------------ authentication


class _Renewing:
    """An authenticator that numbers its credentials and renews them when told of a 401."""

    def __init__(self, *, renews: bool = True, fails: TargetError | None = None) -> None:
        self.renews = renews
        self.fails = fails
        self.current = 1
        self.rejected_with: list[str] = []

    @property
    def secrets(self) -> tuple[Secret, ...]:
        return (Secret("client-secret-55", "the client secret"),)

    async def authorize(
        self, request: Request, via: HttpClient, stop: asyncio.Event | None
    ) -> Request:
        if self.fails is not None:
            raise self.fails
        return request.with_header("Authorization", f"Token {self.current}")

    async def rejected(self, request: Request, via: HttpClient, stop: asyncio.Event | None) -> bool:
        self.rejected_with.append(request.headers["Authorization"])
        self.current += 1
        return self.renews


def _accepts(token: str) -> MockHandler:
    def handler(request: Request) -> MockReply:
        if request.headers.get("authorization") == token:
            return MockReply(body=b"in")
        return MockReply(401, body=b"who are you")

    return handler


def test_a_401_renews_the_credentials_once_and_asks_again() -> None:
    auth = _Renewing()
    exchange = MockExchange(_accepts("Token 2"))
    called = _call(_client(exchange, HttpSettings(timeout=0.5, retries=0), auth=auth))
    assert (called.value, called.attempts) == ("in", 2)
    assert auth.rejected_with == ["Token 1"]
    assert [r.headers["authorization"] for r in exchange.requests] == ["Token 1", "Token 2"]


def test_a_second_401_is_the_answer() -> None:
    auth = _Renewing()
    error = _fails(
        _client(_accepts("Token 9"), auth=auth),
        TargetError,
        "HTTP 401 Unauthorized: who are you",
    )
    assert (error.attempts, auth.rejected_with) == (2, ["Token 1"])


def test_a_401_that_cannot_be_renewed_is_the_answer() -> None:
    auth = _Renewing(renews=False)
    error = _fails(
        _client(_accepts("Token 2"), auth=auth), TargetError, "HTTP 401 Unauthorized: who are you"
    )
    assert error.attempts == 1


def test_a_renewal_does_not_use_up_a_retry() -> None:
    sleeps = Sleeps()
    auth = _Renewing()
    exchange = MockExchange(_replies(MockReply(401), MockReply(503), MockReply(body=b"in")))
    called = _call(
        _client(exchange, HttpSettings(timeout=0.5, retries=1), sleeps=sleeps, auth=auth)
    )
    assert (called.attempts, len(sleeps.waits)) == (3, 1)
    assert 0.5 <= sleeps.waits[0] <= 0.75  # the first backoff step: the renewal was no retry


def test_an_authenticator_that_fails_ends_the_call_with_its_error() -> None:
    failure = TargetUnreachableError("getting an OAuth token from x: down")
    failure.attempts = 3
    exchange = MockExchange(lambda request: MockReply(body=b"never"))
    with pytest.raises(TargetUnreachableError) as caught:
        _call(_client(exchange, auth=_Renewing(fails=failure)))
    assert caught.value is failure
    assert exchange.requests == []


def test_the_authenticators_secrets_are_taught_to_the_redactor() -> None:
    redactor = Redactor()
    _client(lambda request: MockReply(), redactor=redactor, auth=_Renewing())
    assert redactor.text("client-secret-55") == MASK


def test_a_401_without_an_authenticator_is_an_answer_like_any_other() -> None:
    error = _fails(_client(_accepts("x")), TargetError, "HTTP 401 Unauthorized: who are you")
    assert error.attempts == 1


# ------------------------------------------------------------------ reading


def _reply(chunks: Sequence[bytes], headers: Sequence[tuple[str, str]] = ()) -> Reply:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return Reply(200, "OK", CIMultiDictProxy(CIMultiDict(headers)), stream)


@pytest.mark.parametrize(
    ("chunks", "headers", "cap", "body"),
    [
        ([b"abc", b"def"], [], 6, b"abcdef"),
        ([b"abcdef"], [("Content-Length", "6")], 6, b"abcdef"),
        ([], [], 0, b""),
        ([b"abc"], [("Content-Length", " 99 ")], 3, None),  # declared too large: not read
        ([b"abc", b"defg"], [], 6, None),
        ([b"abc"], [("Content-Length", "nonsense")], 3, b"abc"),
    ],
)
def test_a_body_is_read_whole_under_its_cap(
    chunks: list[bytes], headers: list[tuple[str, str]], cap: int, body: bytes | None
) -> None:
    if body is None:
        with pytest.raises(
            TargetContractError, match=rf"^response body is larger than {cap} bytes$"
        ):
            asyncio.run(read_capped(_reply(chunks, headers), cap))
    else:
        assert asyncio.run(read_capped(_reply(chunks, headers), cap)) == body


@pytest.mark.parametrize(
    ("chunks", "limit", "head"),
    [([b"abc", b"def"], 4, b"abcd"), ([b"ab"], 4, b"ab"), ([b"abcd", b"never"], 4, b"abcd")],
)
def test_a_head_is_at_most_its_limit(chunks: list[bytes], limit: int, head: bytes) -> None:
    assert asyncio.run(read_head(_reply(chunks), limit)) == head


# ------------------------------------------------------------------ cookies


def _headers(*cookies: str) -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict(("Set-Cookie", cookie) for cookie in cookies))


def test_cookies_are_kept_by_name_and_dropped_when_they_expire() -> None:
    cookies = {"old": "1", "gone": "2", "dated": "3"}
    keep_cookies(
        cookies,
        _headers(
            "sid=abc; Path=/; Secure; HttpOnly",
            'quoted="a b"',
            "gone=; Max-Age=0",
            f"dated=x; Expires={formatdate(0, usegmt=True)}",
            f"later=y; Expires={formatdate(4102444800, usegmt=True)}",
            "maxed=z; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT",  # Max-Age wins
            "odd=w; Max-Age=soon; Expires=not a date",
            "naive=v; Expires=Thu, 01 Jan 1970 00:00:00",
        ),
    )
    assert cookies == {
        "old": "1",
        "sid": "abc",
        "quoted": '"a b"',
        "later": "y",
        "maxed": "z",
        "odd": "w",
    }


@pytest.mark.parametrize(
    "line", ["no-equals", "=nameless", "bad name=1", "ctl=a\x01b", "semi=a\\b", 'open="a']
)
def test_a_malformed_cookie_is_ignored(line: str) -> None:
    cookies: dict[str, str] = {}
    keep_cookies(cookies, _headers(line))
    assert cookies == {}


def test_cookies_go_back_in_one_header_after_any_given() -> None:
    assert cookie_header({"a": "1", "b": "2"}) == "a=1; b=2"
    plain = Request("GET", "http://x/", {"Accept": "*/*"})
    assert with_cookies(plain, {}) is plain
    assert with_cookies(plain, {"a": "1"}).headers["Cookie"] == "a=1"
    given = Request("GET", "http://x/", {"cookie": "team=blue"})
    assert dict(with_cookies(given, {"a": "1"}).headers) == {"Cookie": "team=blue; a=1"}
