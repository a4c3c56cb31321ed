"""Bearer tokens and OAuth 2.0 client credentials: fetched, refreshed, single-flight, masked."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import socket
from collections.abc import Iterator, Sequence
from urllib.parse import parse_qs

import pytest

from gauntlet.errors import TargetError, TargetUnreachableError, UsageError
from gauntlet.redact import MASK, Redactor
from gauntlet.targets.auth import BearerAuth, OAuth2ClientCredentials
from gauntlet.targets.client import HttpClient, HttpSettings, Pacing
from gauntlet.targets.contract import Question, Traced
from gauntlet.targets.exchange import Exchange, MockExchange, MockReply, Request
from gauntlet.targets.http import GauntletTarget

from ...hostile_server import CLIENT_ID, CLIENT_SECRET, HostileServer, hostile_server

pytestmark = pytest.mark.network

FAST = HttpSettings(timeout=2.0, retries=1)


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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


def _oauth(
    token_url: str,
    *,
    clock: Clock | None = None,
    secret: str = CLIENT_SECRET,
    scope: str | None = "ask",
    refresh_before: float = 30.0,
) -> OAuth2ClientCredentials:
    return OAuth2ClientCredentials(
        token_url,
        CLIENT_ID,
        secret,
        scope=scope,
        refresh_before=refresh_before,
        clock=clock or Clock(),
    )


def _target(
    url: str,
    auth: OAuth2ClientCredentials | BearerAuth,
    redactor: Redactor | None = None,
    exchange: Exchange | None = None,
) -> GauntletTarget:
    return GauntletTarget(
        url,
        settings=FAST,
        concurrency=16,
        auth=auth,
        redactor=redactor,
        exchange=exchange,
        pacing=Pacing(
            sleep=Sleeps(),
            rng=random.Random(7),  # noqa: S311 - backoff jitter, not cryptography
        ),
    )


def _asks(
    target: GauntletTarget, prompts: Sequence[str], *, together: bool = False
) -> list[Traced]:
    async def go() -> list[Traced]:
        try:
            if together:
                return list(await asyncio.gather(*(target.ask(Question(p, "en")) for p in prompts)))
            return [await target.ask(Question(prompt, "en")) for prompt in prompts]
        finally:
            await target.aclose()

    return asyncio.run(go())


def _fails(target: GauntletTarget, error: type[TargetError], message: str) -> TargetError:
    with pytest.raises(TargetError) as caught:
        _asks(target, ["hello"])
    assert type(caught.value) is error, repr(caught.value)
    assert str(caught.value) == message
    return caught.value


def test_the_first_ask_fetches_a_token_and_the_next_reuse_it(server: HostileServer) -> None:
    auth = _oauth(server.url("/token"))
    answers = _asks(_target(server.url("/protected"), auth), ["one", "two"])
    assert [traced.response.text for traced in answers] == ["You asked: one", "You asked: two"]
    token_request, *asks = server.seen
    assert token_request.path == "/token"
    assert token_request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert token_request.headers["accept"] == "application/json"
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert token_request.headers["authorization"] == f"Basic {basic}"
    assert token_request.body == b"grant_type=client_credentials&scope=ask"
    assert [seen.headers["authorization"] for seen in asks] == ["Bearer at-0001-9c41f07e2b"] * 2
    assert (server.hits("/token"), auth.fetches) == (1, 1)


def test_no_scope_is_asked_for_when_none_is_given(server: HostileServer) -> None:
    _asks(_target(server.url("/protected"), _oauth(server.url("/token"), scope=None)), ["a"])
    assert server.seen[0].body == b"grant_type=client_credentials"


def test_the_client_is_authenticated_with_form_encoded_basic_credentials() -> None:
    """RFC 6749 2.3.1: the id and secret are form-encoded before they are joined."""
    seen: list[Request] = []

    def handler(request: Request) -> MockReply:
        seen.append(request)
        if request.url.endswith("/token"):
            return MockReply.json({"access_token": "tok-0a1b2c3d4e", "token_type": "bearer"})
        return MockReply.json(_answer())

    auth = OAuth2ClientCredentials(
        "https://auth.test/token", "my client", "p@ss:w&rd", scope="read write"
    )
    _asks(_target("https://api.test/ask", auth, exchange=MockExchange(handler)), ["a"])
    token_request, ask = seen
    pair = base64.b64decode(token_request.headers["Authorization"].removeprefix("Basic "))
    assert pair == b"my+client:p%40ss%3Aw%26rd"
    assert parse_qs(token_request.body.decode()) == {
        "grant_type": ["client_credentials"],
        "scope": ["read write"],
    }
    assert ask.headers["Authorization"] == "Bearer tok-0a1b2c3d4e"
    secrets = {secret.value for secret in auth.secrets}
    assert {"my client", "p@ss:w&rd", "p%40ss%3Aw%26rd", "my+client:p%40ss%3Aw%26rd"} <= secrets


def _answer(text: str = "fine") -> dict[str, object]:
    return {"text": text, "citations": [], "context_ids": [], "refused": False, "escalated": False}


def test_a_token_is_refreshed_before_it_expires(server: HostileServer) -> None:
    clock = Clock()
    auth = _oauth(server.url("/token?expires=100"), clock=clock, refresh_before=30)
    target = _target(server.url("/protected"), auth)

    async def go() -> list[int]:
        fetched = []
        try:
            for now in (1000.0, 1069.9, 1070.0, 1100.0, 1139.9, 1140.0):
                clock.now = now
                await target.ask(Question("hi", "en"))
                fetched.append(auth.fetches)
        finally:
            await target.aclose()
        return fetched

    # Asked for at 1000 and living 100 s, it is renewed 30 s early: at 1070, then at 1140.
    assert asyncio.run(go()) == [1, 1, 2, 2, 2, 3]
    asked = [seen.headers["authorization"] for seen in server.seen if seen.path == "/protected"]
    assert asked == [
        "Bearer at-0001-9c41f07e2b",
        "Bearer at-0001-9c41f07e2b",
        "Bearer at-0002-9c41f07e2b",
        "Bearer at-0002-9c41f07e2b",
        "Bearer at-0002-9c41f07e2b",
        "Bearer at-0003-9c41f07e2b",
    ]


def test_a_token_that_lives_shorter_than_the_margin_is_renewed_at_half_its_life(
    server: HostileServer,
) -> None:
    clock = Clock()
    auth = _oauth(server.url("/token?expires=10"), clock=clock, refresh_before=30)
    target = _target(server.url("/protected"), auth)

    async def go() -> list[int]:
        fetched = []
        try:
            for now in (1000.0, 1004.9, 1005.0):
                clock.now = now
                await target.ask(Question("hi", "en"))
                fetched.append(auth.fetches)
        finally:
            await target.aclose()
        return fetched

    assert asyncio.run(go()) == [1, 1, 2]


def test_a_token_without_a_lifetime_is_kept_until_a_401(server: HostileServer) -> None:
    clock = Clock()
    auth = _oauth(server.url("/token?expires=none"), clock=clock)
    target = _target(server.url("/protected"), auth)

    async def go() -> list[Traced]:
        try:
            first = await target.ask(Question("one", "en"))
            clock.now += 10**9
            second = await target.ask(Question("two", "en"))
            server.revoke()
            third = await target.ask(Question("three", "en"))
            return [first, second, third]
        finally:
            await target.aclose()

    answers = asyncio.run(go())
    assert [traced.response.text for traced in answers] == [
        "You asked: one",
        "You asked: two",
        "You asked: three",
    ]
    assert [traced.attempts for traced in answers] == [1, 1, 2]  # a 401, a new token, again
    assert (auth.fetches, server.hits("/token")) == (2, 2)


def test_a_hundred_asks_at_once_fetch_one_token(server: HostileServer) -> None:
    auth = _oauth(server.url("/token?delay=0.2"))
    prompts = [f"question {n}" for n in range(100)]
    answers = _asks(_target(server.url("/protected"), auth), prompts, together=True)
    assert sorted(traced.response.text for traced in answers) == sorted(
        f"You asked: {prompt}" for prompt in prompts
    )
    assert (auth.fetches, server.hits("/token")) == (1, 1)


def test_many_401s_at_once_fetch_one_new_token(server: HostileServer) -> None:
    auth = _oauth(server.url("/token?delay=0.1"))
    target = _target(server.url("/protected"), auth)

    async def go() -> list[Traced]:
        try:
            await target.ask(Question("warm up", "en"))
            server.revoke()
            return list(
                await asyncio.gather(*(target.ask(Question(f"q{n}", "en")) for n in range(50)))
            )
        finally:
            await target.aclose()

    answers = asyncio.run(go())
    assert len(answers) == 50
    assert (auth.fetches, server.hits("/token")) == (2, 2)
    assert {traced.attempts for traced in answers} == {2}


def test_a_second_401_after_a_new_token_is_the_answer_and_masked(server: HostileServer) -> None:
    """`/401-echo` refuses every token, quoting it in its reason phrase and its body."""
    auth = _oauth(server.url("/token"))
    error = _fails(
        _target(server.url("/401-echo"), auth),
        TargetError,
        f'HTTP 401 Unauthorized Bearer {MASK}: {{"error": "bad credentials Bearer {MASK}"}}',
    )
    assert (error.attempts, auth.fetches) == (2, 2)
    assert server.tokens == ["at-0001-9c41f07e2b", "at-0002-9c41f07e2b"]


def test_a_token_is_never_shown_in_an_answer_or_an_error(server: HostileServer) -> None:
    redactor = Redactor()
    target = _target(server.url("/protected?echo=1"), _oauth(server.url("/token")), redactor)
    [traced] = _asks(target, ["hello"])
    [token] = server.tokens
    assert traced.response.text == f"You asked: hello with {token}"  # the gates judge this
    assert redactor.model(traced.response).text == f"You asked: hello with {MASK}"
    error = _fails(
        _target(server.url("/protected?fail=500"), _oauth(server.url("/token")), redactor),
        TargetError,
        f'HTTP 500 Internal Server Error: {{"error": "{MASK} is fine but we are not"}}',
    )
    assert all(token not in str(error) for token in server.tokens)


@pytest.mark.parametrize(
    ("query", "secret", "error", "said"),
    [
        (
            "fail=400",
            CLIENT_SECRET,
            TargetError,
            f'HTTP 400 Bad Request: {{"error": "invalid_client", "error_description": '
            f'"got {MASK}"}}',
        ),
        (
            "",
            "not-the-secret-1",
            TargetError,
            f'HTTP 401 Unauthorized: {{"error": "invalid_client", "error_description": '
            f'"got {MASK}"}}',
        ),
        (
            "fail=500",
            CLIENT_SECRET,
            TargetError,
            "HTTP 500 Internal Server Error: token store down",
        ),
        (
            "fail=html",
            CLIENT_SECRET,
            TargetError,
            "HTTP 200 OK gave no usable token: the answer is not JSON: Expecting value at line "
            "1, column 1",
        ),
        (
            "type=mac",
            CLIENT_SECRET,
            TargetError,
            "HTTP 200 OK gave no usable token: token_type: expected Bearer, got 'mac'",
        ),
    ],
)
def test_a_token_endpoint_that_gives_no_token_is_named_without_a_secret(
    server: HostileServer, query: str, secret: str, error: type[TargetError], said: str
) -> None:
    token_url = server.url(f"/token?{query}" if query else "/token")
    failed = _fails(
        _target(server.url("/protected"), _oauth(token_url, secret=secret)),
        error,
        f"getting an OAuth token from {token_url}: {said}",
    )
    assert failed.attempts == 1
    assert server.hits("/protected") == 0
    assert secret not in str(failed)
    assert base64.b64encode(f"{CLIENT_ID}:{secret}".encode()).decode() not in str(failed)


def test_a_token_endpoint_that_is_down_is_named_after_its_retries(server: HostileServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token_url = f"http://127.0.0.1:{port}/token?api_key=k3y-secret"
    shown = f"http://127.0.0.1:{port}/token?api_key={MASK}"
    with pytest.raises(TargetUnreachableError) as caught:
        _asks(_target(server.url("/protected"), _oauth(token_url)), ["hello"])
    assert str(caught.value).startswith(
        f"getting an OAuth token from {shown}: cannot connect to http://127.0.0.1:{port}/token: "
    )
    assert str(caught.value).endswith(" (after 2 attempts)")
    assert caught.value.attempts == 2


def test_a_failed_fetch_is_tried_again_by_the_next_ask() -> None:
    answers = iter([MockReply(500, body=b"later"), MockReply.json(_token())])

    def handler(request: Request) -> MockReply:
        return next(answers) if request.url.endswith("/token") else MockReply.json(_answer())

    target = _target(
        "https://api.test/ask", _oauth("https://auth.test/token"), exchange=MockExchange(handler)
    )

    async def go() -> str:
        try:
            with pytest.raises(TargetError, match=r"HTTP 500 Internal Server Error: later$"):
                await target.ask(Question("one", "en"))
            return (await target.ask(Question("two", "en"))).response.text
        finally:
            await target.aclose()

    assert asyncio.run(go()) == "fine"


def test_a_waiter_that_gives_up_leaves_the_fetch_to_the_others() -> None:
    release = asyncio.Event

    async def go() -> str:
        gate = release()

        async def handler(request: Request) -> MockReply:
            if request.url.endswith("/token"):
                await gate.wait()
                return MockReply.json(_token())
            return MockReply.json(_answer())

        auth = _oauth("https://auth.test/token")
        target = _target("https://api.test/ask", auth, exchange=MockExchange(handler))
        first = asyncio.ensure_future(target.ask(Question("one", "en")))
        second = asyncio.ensure_future(target.ask(Question("two", "en")))
        await asyncio.sleep(0.01)
        first.cancel()
        gate.set()
        text = (await second).response.text
        assert first.cancelled() and auth.fetches == 1
        return text

    assert asyncio.run(go()) == "fine"


def _token(**fields: object) -> dict[str, object]:
    return {"access_token": "tok-5d6e7f8a9b", "token_type": "Bearer", **fields}


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ([1], "the answer is a JSON array, not an object"),
        ({"token_type": "Bearer"}, "access_token: expected a non-empty string, got missing"),
        (_token(access_token=""), "access_token: expected a non-empty string, got empty"),
        (_token(access_token=5), "access_token: expected a non-empty string, got a number"),
        (
            _token(access_token="tok-5d6e\n7f8a9b"),  # noqa: S106 - a test token
            "access_token: holds a line break, which no header can carry",
        ),
        ({"access_token": "tok-5d6e7f8a9b"}, "token_type: expected Bearer, got nothing"),
        (_token(token_type=None), "token_type: expected Bearer, got null"),
        (
            _token(token_type="MAC\x1b[2J"),  # noqa: S106 - not a password
            "token_type: expected Bearer, got 'MAC\\x1b[2J'",
        ),
        (
            _token(expires_in="3600"),
            "expires_in: expected a positive number of seconds, got a string",
        ),
        (_token(expires_in=0), "expires_in: expected a positive number of seconds, got 0"),
        (_token(expires_in=-5.5), "expires_in: expected a positive number of seconds, got -5.5"),
        (
            _token(expires_in=True),
            "expires_in: expected a positive number of seconds, got a boolean",
        ),
    ],
)
def test_a_token_answer_is_read_strictly(answer: object, problem: str) -> None:
    def handler(request: Request) -> MockReply:
        return MockReply.json(answer)

    redactor = Redactor()
    auth = _oauth("https://auth.test/token")
    target = _target("https://api.test/ask", auth, redactor, exchange=MockExchange(handler))
    with pytest.raises(TargetError) as caught:
        _asks(target, ["a"])
    assert str(caught.value) == (
        f"getting an OAuth token from https://auth.test/token: HTTP 200 OK gave no usable "
        f"token: {problem}"
    )
    if (
        isinstance(answer, dict)
        and isinstance(answer.get("access_token"), str)
        and answer["access_token"]
    ):
        assert redactor.text(answer["access_token"]) == MASK  # learned before any check


def test_a_token_answer_with_a_key_twice_is_refused() -> None:
    body = b'{"access_token": "a-token-123", "access_token": "b-token-456", "token_type": "Bearer"}'
    exchange = MockExchange(lambda request: MockReply(200, body=body))
    target = _target("https://api.test/ask", _oauth("https://auth.test/token"), exchange=exchange)
    with pytest.raises(TargetError, match=r"gave no usable token: the answer has the key "):
        _asks(target, ["a"])


def test_the_token_is_fetched_through_the_client_it_is_given() -> None:
    exchange = MockExchange(lambda request: MockReply.json(_token(expires_in=60)))
    redactor = Redactor()
    client = HttpClient(exchange, FAST, redactor=redactor)
    auth = _oauth("https://auth.test/token")
    request = Request("POST", "https://api.test/ask", {"X-A": "1"}, b"{}")
    authorized = asyncio.run(auth.authorize(request, client, None))
    assert dict(authorized.headers) == {"X-A": "1", "Authorization": "Bearer tok-5d6e7f8a9b"}
    assert redactor.text("tok-5d6e7f8a9b") == MASK
    assert json.loads(authorized.body) == {}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ("ftp://auth.test/token", "id", "secret"),
            "token_url: expected an http:// or https:// URL, got 'ftp://auth.test/token'",
        ),
        (
            ("https://u:p@auth.test/token", "id", "secret"),
            "token_url: holds credentials, which are not sent: the client id and secret are",
        ),
        (("https://auth.test/token", "", "secret"), "the OAuth client id is empty"),
        (("https://auth.test/token", "id", ""), "the OAuth client secret is empty"),
    ],
)
def test_oauth_settings_that_cannot_work_are_refused(
    arguments: tuple[str, str, str], message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        OAuth2ClientCredentials(*arguments)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "$API_TOKEN is empty"),
        ("  ", "$API_TOKEN is empty"),
        ("a\nb", "$API_TOKEN holds a line break, which no header can carry"),
    ],
)
def test_a_bearer_token_that_cannot_be_sent_is_refused(token: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        BearerAuth(token, what="$API_TOKEN")
    assert str(caught.value) == message


def test_a_bearer_token_is_sent_to_a_real_server_and_masked_where_echoed(
    server: HostileServer,
) -> None:
    redactor = Redactor()
    target = _target(server.url("/echo-auth"), BearerAuth("tok-77aa88bb99"), redactor)
    [traced] = _asks(target, ["hello"])
    assert traced.response.text == "You sent Authorization: Bearer tok-77aa88bb99 to /echo-auth"
    assert redactor.model(traced.response).text == f"You sent Authorization: {MASK} to /echo-auth"


def test_a_token_answer_that_breaks_off_is_refused_without_quoting_it() -> None:
    body = b'{"access_token": "tok-5d6e7f8a9b", "token_type": '
    exchange = MockExchange(lambda request: MockReply(200, body=body))
    target = _target("https://api.test/ask", _oauth("https://auth.test/token"), exchange=exchange)
    with pytest.raises(TargetError) as caught:
        _asks(target, ["a"])
    assert str(caught.value) == (
        "getting an OAuth token from https://auth.test/token: HTTP 200 OK gave no usable token: "
        "the answer is not JSON: Expecting value at line 1, column 50"
    )
