"""The HTTP target over `MockExchange` (and httpx's): the request it sends, the errors it maps."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Sequence

import httpx
import pytest
from multidict import CIMultiDictProxy

from gauntlet.errors import (
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
    UsageError,
)
from gauntlet.redact import MASK, Redactor
from gauntlet.targets.auth import BearerAuth
from gauntlet.targets.client import Pacing
from gauntlet.targets.contract import (
    NATIVE,
    AsyncTarget,
    Conversation,
    FieldName,
    Origin,
    Question,
    TargetResponse,
    Traced,
    declared,
)
from gauntlet.targets.exchange import (
    MAX_REASON,
    ExchangeError,
    MockExchange,
    MockHandler,
    MockReply,
    Request,
    said,
)
from gauntlet.targets.http import PROBE_PROMPT, GauntletTarget, HttpSettings, environment_proxy

from ...httpx_exchange import HttpxExchange

BODY = {"text": "a", "citations": [], "context_ids": [], "refused": False, "escalated": False}
OK = MockReply.json(BODY)


class Sleeps:
    """A `sleep` that records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _target(exchange: MockExchange | HttpxExchange, **options: object) -> GauntletTarget:
    return GauntletTarget(
        "https://user:secret@example.test:8443/ask?key=1",
        headers={"X-Api-Key": "k"},
        exchange=exchange,
        pacing=Pacing(
            sleep=Sleeps(),
            rng=random.Random(7),  # noqa: S311 - backoff jitter, not cryptography
        ),
        **options,  # type: ignore[arg-type]
    )


def _ask(target: GauntletTarget, prompt: str = "hello", language: str = "es") -> Traced:
    async def go() -> Traced:
        try:
            return await target.ask(Question(prompt, language))
        finally:
            await target.aclose()

    return asyncio.run(go())


def _fails(handler: MockHandler, error: type[TargetError], message: str) -> TargetError:
    """Ask once through `handler`: exactly `error` (not a subclass), with exactly `message`."""
    with pytest.raises(TargetError) as caught:
        _ask(_target(MockExchange(handler)))
    assert type(caught.value) is error, repr(caught.value)
    assert str(caught.value) == message
    return caught.value


def test_the_request_follows_the_contract() -> None:
    exchange = MockExchange(lambda request: OK)
    traced = _ask(_target(exchange))
    response = TargetResponse.model_validate(BODY)
    assert traced == Traced(response, 1, 0.0, provenance=declared(response))
    assert traced.provenance[FieldName.TOOL_CALLS].origin is Origin.ABSENT  # not reported
    [request] = exchange.requests
    assert (request.method, request.url) == ("POST", "https://example.test:8443/ask?key=1")
    assert json.loads(request.body) == {"prompt": "hello", "language": "es"}
    assert request.headers["X-Api-Key"] == "k"
    assert request.headers["Authorization"] == "Basic dXNlcjpzZWNyZXQ="  # user:secret
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"].startswith("gauntlet/")
    assert exchange.closed


def test_it_is_an_async_target_that_declares_every_field() -> None:
    target: AsyncTarget = _target(MockExchange(lambda request: OK))
    assert target.provides("en") is NATIVE
    assert target.provides("es") is NATIVE
    assert target.holds_conversations is True
    probed = asyncio.run(target.probe())
    assert probed is not None and probed.response.text == "a"


def test_the_probe_asks_the_probe_prompt_in_english() -> None:
    exchange = MockExchange(lambda request: OK)
    asyncio.run(_target(exchange).probe())
    [request] = exchange.requests
    assert json.loads(request.body) == {"prompt": PROBE_PROMPT, "language": "en"}


def test_history_is_sent_only_for_a_conversation() -> None:
    exchange = MockExchange(lambda request: OK)
    target = _target(exchange)

    async def go() -> None:
        await target.ask(Question("single", "en"))
        await target.ask(Question("again", "en", ({"role": "user", "content": "hi"},)))

    asyncio.run(go())
    assert [json.loads(request.body) for request in exchange.requests] == [
        {"prompt": "single", "language": "en"},
        {"prompt": "again", "language": "en", "history": [{"role": "user", "content": "hi"}]},
    ]


def test_the_name_carries_no_credentials_or_query() -> None:
    assert _target(MockExchange(lambda request: OK)).name == "https://example.test:8443/ask"


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (MockReply(500), TargetError, "HTTP 500 Internal Server Error"),
        (
            MockReply(500, body=b"  the model is down\n"),
            TargetError,
            "HTTP 500 Internal Server Error: the model is down",
        ),
        (MockReply(418, reason=""), TargetError, "HTTP 418"),
        (MockReply(599), TargetError, "HTTP 599"),
        (
            MockReply(302, [("Location", "/x")]),
            TargetError,
            "HTTP 302 redirect to '/x': redirects are not followed",
        ),
        (MockReply(304), TargetError, "HTTP 304 redirect to 'nowhere': redirects are not followed"),
        (
            MockReply(200, body=b"not json"),
            TargetContractError,
            "response is not JSON: Expecting value at line 1, column 1 (body starts 'not json')",
        ),
        (
            MockReply.json({**BODY, "refused": "no"}),
            TargetContractError,
            "target contract broken: refused: input should be a valid boolean, got 'no'",
        ),
        (
            MockReply.json([BODY]),
            TargetContractError,
            "response is a JSON array, not an object with the contract's fields",
        ),
    ],
)
def test_bad_answers_become_target_errors(
    reply: MockReply, error: type[TargetError], message: str
) -> None:
    failed = _fails(lambda request: reply, error, message)
    assert (failed.attempts, failed.waited) == (1, 0.0)


def test_a_refusal_quotes_the_start_of_its_body_masked_then_cut() -> None:
    body = ("x" * 190 + "Basic dXNlcjpzZWNyZXQ=" + "y" * 5000).encode()
    failed = _fails(
        lambda request: MockReply(400, body=body),
        TargetError,
        "HTTP 400 Bad Request: " + "x" * 190 + "[REDACTED" + "…",
    )
    assert "dXNlcjpz" not in str(failed)
    assert len(str(failed)) == len("HTTP 400 Bad Request: ") + MAX_REASON


@pytest.mark.parametrize(
    ("failure", "error", "message"),
    [
        (
            ExchangeError(TargetUnreachableError("cannot connect to x: refused"), retryable=True),
            TargetUnreachableError,
            "cannot connect to x: refused (after 3 attempts)",
        ),
        (
            ExchangeError(TargetError("response is not valid HTTP: garbled"), retryable=False),
            TargetError,
            "response is not valid HTTP: garbled",
        ),
    ],
)
def test_exchange_failures_end_as_their_errors(
    failure: ExchangeError, error: type[TargetError], message: str
) -> None:
    def handler(request: Request) -> MockReply:
        raise failure

    failed = _fails(handler, error, message)
    assert failed.attempts == (3 if failure.retryable else 1)


@pytest.mark.parametrize(
    ("exception", "error", "message"),
    [
        (
            httpx.ConnectError("refused"),
            TargetUnreachableError,
            "cannot connect to https://example.test:8443/ask: refused (after 3 attempts)",
        ),
        (
            httpx.ReadTimeout("slow"),
            TargetTimeoutError,
            "timed out: ReadTimeout (after 3 attempts)",
        ),
        (
            httpx.RemoteProtocolError("garbled"),
            TargetError,
            "HTTP exchange failed: RemoteProtocolError: garbled",
        ),
    ],
)
def test_httpx_transport_failures_are_converted(
    exception: Exception, error: type[TargetError], message: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exception

    exchange = HttpxExchange(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    with pytest.raises(TargetError) as caught:
        _ask(_target(exchange))
    assert type(caught.value) is error
    assert str(caught.value) == message


def test_an_httpx_exchange_sends_the_same_request() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, json=BODY, headers=[("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]
        )

    exchange = HttpxExchange(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    conversation = Conversation("case")
    target = _target(exchange)
    asyncio.run(target.ask(Question("hello", "es", conversation=conversation)))
    [request] = seen
    assert json.loads(request.content) == {"prompt": "hello", "language": "es"}
    assert request.headers["X-Api-Key"] == "k"
    assert conversation.cookies == {"a": "1", "b": "2"}


@pytest.mark.parametrize("url", ["ftp://example.test/", "example.test", "http:///nohost"])
def test_a_url_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match="expected an http:// or https:// URL"):
        GauntletTarget(url)


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


def test_a_socks_proxy_is_refused_when_the_target_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ALL_PROXY", "socks5://user:pw@p:1080")
    with pytest.raises(UsageError, match=r"^the environment's proxy 'socks5://p:1080' for "):
        GauntletTarget("https://a.test/ask")


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
    assert GauntletTarget(url).name == name


def test_a_url_urllib_cannot_split_is_refused() -> None:
    with pytest.raises(UsageError, match=r"^url: cannot be used as a URL: Invalid IPv6 URL$"):
        GauntletTarget("http://[::1/ask")


@pytest.mark.parametrize("url", ["http://h:abc/", "http://h:99999/"])
def test_a_url_with_a_bad_port_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match=r"^url: the port is not a number from 0 to "):
        GauntletTarget(url)


def test_a_long_transport_message_is_cut_to_one_short_line() -> None:
    text = said(OSError("first line\n" + "word " * 100))
    assert "\n" not in text
    assert len(text) == MAX_REASON
    assert text.startswith("first line word word")
    assert text.endswith("…")


def test_a_header_replaces_a_default_whatever_its_case() -> None:
    exchange = MockExchange(lambda request: OK)
    target = GauntletTarget(
        "http://example.test/",
        headers={"content-type": "application/json; charset=utf-8"},
        exchange=exchange,
    )
    asyncio.run(target.ask(Question("hello", "en")))
    [request] = exchange.requests
    assert isinstance(request.headers, CIMultiDictProxy)
    assert request.headers.getall("content-type") == ["application/json; charset=utf-8"]
    assert request.headers["user-agent"].startswith("gauntlet/")


def test_a_body_that_breaks_off_mid_stream_is_an_error() -> None:
    class Broken(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b'{"text": '
            raise httpx.ReadError("connection reset")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Broken())

    exchange = HttpxExchange(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    with pytest.raises(TargetUnreachableError) as caught:
        _ask(_target(exchange))
    assert str(caught.value) == (
        "cannot connect to https://example.test:8443/ask: connection reset (after 3 attempts)"
    )


def test_a_mock_body_that_breaks_off_is_retried_then_an_error() -> None:
    dropped = ExchangeError(TargetUnreachableError("x dropped the connection"), retryable=True)
    reply = MockReply(200, body=[b'{"text": ', dropped])
    failed = _fails(
        lambda request: reply,
        TargetUnreachableError,
        "x dropped the connection (after 3 attempts)",
    )
    assert failed.attempts == 3


@pytest.mark.parametrize("retry_after", ["²", "١٢", "1²", "12 seconds"], ids=ascii)
def test_a_retry_after_that_is_not_ascii_digits_or_a_date_is_ignored(retry_after: str) -> None:
    # The trap: "²".isdigit() is true and float("²") raises, which crashed the run; and
    # float("١٢") is 12.0, so Arabic-Indic digits were waited for as if they were ASCII.
    answers = iter([MockReply(429, [("Retry-After", retry_after)])])
    sleeps = Sleeps()
    target = GauntletTarget(
        "http://example.test/",
        exchange=MockExchange(lambda request: next(answers, OK)),
        pacing=Pacing(
            sleep=sleeps,
            rng=random.Random(7),  # noqa: S311 - backoff jitter, not cryptography
        ),
    )
    traced = _ask(target)
    # The backoff is used instead: its first step, 0.5 s, with up to 50% jitter.
    assert traced.attempts == 2
    assert len(sleeps.waits) == 1
    assert 0.5 <= sleeps.waits[0] <= 0.75


def _cookie_jar(replies: Sequence[Sequence[tuple[str, str]]]) -> MockExchange:
    """Answers each request with the next list of headers (Set-Cookie, say)."""
    queue = iter(replies)
    return MockExchange(lambda request: MockReply.json(BODY, headers=next(queue)))


def test_cookies_are_kept_within_a_conversation_and_not_across_two() -> None:
    exchange = _cookie_jar(
        [
            [("Set-Cookie", "sid=one; Path=/; HttpOnly"), ("Set-Cookie", "turn=1")],
            [("Set-Cookie", "turn=2; Max-Age=60")],
            [],
            [("Set-Cookie", "sid=two")],
            [],
            [("Set-Cookie", "stray=1")],
        ]
    )
    target = GauntletTarget("http://example.test/", exchange=exchange, headers={"Cookie": "a=b"})
    first, second = Conversation("case-1"), Conversation("case-2")

    async def go() -> None:
        for conversation in (first, first, first, second, second):
            await target.ask(Question("hi", "en", conversation=conversation))
        await target.ask(Question("alone", "en"))

    asyncio.run(go())
    sent = [request.headers.get("cookie") for request in exchange.requests]
    assert sent == [
        "a=b",
        "a=b; sid=one; turn=1",
        "a=b; sid=one; turn=2",
        "a=b",
        "a=b; sid=two",
        "a=b",
    ]
    assert first.cookies == {"sid": "one", "turn": "2"}
    assert second.cookies == {"sid": "two"}


def test_a_bearer_token_goes_on_every_request_and_is_a_secret() -> None:
    exchange = MockExchange(lambda request: OK)
    redactor = Redactor()
    target = GauntletTarget(
        "http://example.test/",
        exchange=exchange,
        auth=BearerAuth("tok-8c1d5e2f9a", what="$API_TOKEN"),
        redactor=redactor,
    )
    _ask(target)
    [request] = exchange.requests
    assert request.headers["Authorization"] == "Bearer tok-8c1d5e2f9a"
    assert {"tok-8c1d5e2f9a", "Bearer tok-8c1d5e2f9a"} <= {s.value for s in target.secrets}
    assert redactor.text("say tok-8c1d5e2f9a") == f"say {MASK}"


def test_a_401_to_a_bearer_token_is_not_asked_again() -> None:
    exchange = MockExchange(lambda request: MockReply(401, body=b"no"))
    target = GauntletTarget(
        "http://example.test/", exchange=exchange, auth=BearerAuth("tok-8c1d5e2f9a")
    )
    with pytest.raises(TargetError, match=r"^HTTP 401 Unauthorized: no$") as caught:
        _ask(target)
    assert caught.value.attempts == 1
    assert len(exchange.requests) == 1


@pytest.mark.parametrize(
    ("url", "headers", "message"),
    [
        (
            "http://u:p@example.test/",
            {},
            "url has credentials and auth is given: choose one",
        ),
        (
            "http://example.test/",
            {"authorization": "Bearer x"},
            "headers sets Authorization and auth is given: choose one",
        ),
    ],
)
def test_auth_and_another_authorization_are_refused_together(
    url: str, headers: dict[str, str], message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        GauntletTarget(url, headers=headers, auth=BearerAuth("tok-8c1d5e2f9a"))
    assert str(caught.value) == message


def test_the_runs_redactor_learns_the_targets_secrets() -> None:
    redactor = Redactor()
    GauntletTarget(
        "http://me:pa55w0rd-x@example.test/", exchange=MockExchange(lambda r: OK), redactor=redactor
    )
    assert redactor.text("pa55w0rd-x") == MASK


def test_settings_reach_the_policy() -> None:
    async def slow(request: Request) -> MockReply:
        await asyncio.sleep(5)
        return OK  # pragma: no cover - the deadline ends it first

    target = GauntletTarget(
        "http://example.test/",
        exchange=MockExchange(slow),
        settings=HttpSettings(timeout=0.05, retries=0),
    )
    with pytest.raises(TargetTimeoutError, match=r"^no complete answer within 0\.05 s$"):
        _ask(target)
