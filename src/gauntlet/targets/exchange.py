"""The HTTP exchange seam: one request out, its reply streamed back, failures in gauntlet's words.

An `Exchange` sends a `Request` and yields the `Reply` inside an `async with` block; the body
is read from `Reply.chunks()` within that block, and leaving it releases the connection. Every
failure of the transport library, while sending or while reading, leaves as one
`ExchangeError`, which carries the `TargetError` to report and whether another attempt may
succeed. Nothing else is decided here: deadlines, retries, status codes and size caps are the
policy of `gauntlet.targets.client.HttpClient`, the same over every exchange.

`AiohttpExchange` is the production path: one aiohttp session per run, its pool sized to the
concurrency (httpx's own pool slows down as concurrency grows, and its per-request objects
held the engine to 0.30x raw aiohttp at 0 ms latency in `make bench`), TLS verified, no
cookie jar, redirects never followed, and the environment's proxy found once per origin.
`MockExchange` is its test double, shipped beside it as httpx ships `MockTransport`: replies
are made by a handler, and every request is recorded.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import inspect
import json
import os
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from http import HTTPStatus
from types import TracebackType
from typing import Protocol
from urllib.parse import SplitResult, unquote, unquote_plus, urlsplit, urlunsplit

import aiohttp
import yarl
from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.display import clipped
from gauntlet.errors import TargetError, TargetUnreachableError, UsageError
from gauntlet.redact import MASK, Secret, is_credential_name

MAX_REASON = 200
"""The longest a transport library's message, or a refused answer's body, is quoted."""

Headers = CIMultiDictProxy[str]
"""A reply's headers: case-insensitive, and `getall` gives every value of a repeated one."""


@dataclass(frozen=True, slots=True)
class Request:
    """One HTTP request, as the target built it."""

    method: str
    url: str
    """Absolute, with no `user:password@` (credentials go in a header)."""
    headers: Mapping[str, str]
    """Sent as given; a `CIMultiDictProxy` built once is passed to aiohttp without a copy."""
    body: bytes = b""

    def with_header(self, name: str, value: str) -> Request:
        """This request with `name` set to `value`, replacing it whatever its case."""
        headers = CIMultiDict(self.headers)
        headers[name] = value
        return dataclasses.replace(self, headers=CIMultiDictProxy(headers))


class Reply:
    """A reply's status line and headers; its body is read from `chunks()`.

    Args:
        status: The status code.
        reason: The reason phrase, or "".
        headers: Case-insensitive, every value kept (several `Set-Cookie`, say).
        chunks: Makes the iterator of the decoded body's pieces.
    """

    __slots__ = ("_chunks", "headers", "reason", "status")

    def __init__(
        self,
        status: int,
        reason: str,
        headers: Headers,
        chunks: Callable[[], AsyncIterator[bytes]],
    ) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers
        self._chunks = chunks

    def chunks(self) -> AsyncIterator[bytes]:
        """The decoded body, piece by piece as it arrives.

        Read it once, inside the `send` block that gave this reply; a failure while reading
        is raised as an `ExchangeError` when the block ends.
        """
        return self._chunks()


class ExchangeError(Exception):
    """An exchange failed: the error to report, and whether another attempt may succeed.

    Args:
        error: What to report: `TargetUnreachableError` when nothing answered,
            `TargetTimeoutError` for the library's own timeouts, `TargetError` otherwise.
        retryable: Whether another attempt may succeed (a refused or dropped connection may;
            a certificate nobody trusts or a reply that is not HTTP will not).
        retry_after: Seconds the other side asked to wait, if it said.
    """

    def __init__(
        self, error: TargetError, *, retryable: bool, retry_after: float | None = None
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.retryable = retryable
        self.retry_after = retry_after


class Exchange(Protocol):
    """Sends requests and yields their replies, in gauntlet's errors.

    `send` raises `ExchangeError` for every failure of its transport, while sending or while
    the body is read inside its block; any other exception raised inside the block passes
    through unchanged. The caller holds the deadline: cancelling a `send` must be safe.
    """

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """Credentials the exchange adds on its own (a proxy's), never to be shown."""
        ...

    def send(self, request: Request) -> AbstractAsyncContextManager[Reply]:
        """Send `request`; the block gets the reply, and leaving it releases the connection."""
        ...

    async def aclose(self) -> None:
        """Close every connection."""
        ...


# ------------------------------------------------------------------ aiohttp


@dataclass(frozen=True, slots=True)
class _Route:
    """How requests to one origin travel: directly, or through the environment's proxy."""

    proxy: str | None = None
    """The proxy's URL without its credentials."""
    shown: str = ""
    """The proxy as messages name it: scheme, host and port."""
    tunnel_headers: Mapping[str, str] | None = None
    """Sent on the CONNECT that opens a tunnel (https:// through a proxy)."""
    request_headers: Mapping[str, str] | None = None
    """Added to the request itself (http:// through a proxy, which reads it)."""


_DIRECT = _Route()
_ROUTES_KEPT = 1024
"""How many URLs' routes are remembered before the memo starts afresh (origins stay)."""


class AiohttpExchange:
    """The production exchange: one aiohttp session, made on first use inside the run's loop.

    Args:
        pool: Most connections open at once; match the engine's concurrency.
        environ: Where proxies are read from (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`,
            `NO_PROXY`); the process environment by default.
    """

    def __init__(self, pool: int, *, environ: Mapping[str, str] | None = None) -> None:
        self._pool = max(1, pool)
        self._environ = os.environ if environ is None else environ
        self._session: aiohttp.ClientSession | None = None
        # NOTE: not aiohttp's `trust_env`, which looks the proxy up again on every request
        # (in a thread) and adds credentials from ~/.netrc, clashing with an Authorization
        # header. The proxy is found once per origin, and remembered by URL as well, so a
        # target that sends to one URL pays for one dictionary lookup.
        self._origins: dict[tuple[str, str, int | None], _Route] = {}
        self._urls: dict[str, _Route] = {}
        self._secrets = _proxy_secrets(self._environ)

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The credentials of every proxy the environment names, in every form sent."""
        return self._secrets

    def proxy_for(self, url: str) -> str | None:
        """The proxy requests to `url` go through (without its credentials), if any.

        Looked up once per origin. Call it before the run to refuse a proxy that cannot be
        used while the command line can still say so.

        Raises:
            UsageError: the environment's proxy is not an http:// URL, or not a URL.
        """
        return self._route(url).proxy

    def _route(self, url: str) -> _Route:
        route = self._urls.get(url)
        if route is not None:
            return route
        parts = urlsplit(url)
        try:
            origin = (parts.scheme, parts.hostname or "", parts.port)
        except ValueError:  # a port that is not a port: aiohttp says so when it is sent
            return _DIRECT
        route = self._origins.get(origin)
        if route is None:
            route = self._origins[origin] = _find_route(url, self._environ)
        if len(self._urls) >= _ROUTES_KEPT:
            self._urls.clear()
        self._urls[url] = route
        return route

    def send(self, request: Request) -> AbstractAsyncContextManager[Reply]:
        """Send `request` through the session's pool; see `Exchange.send`."""
        return _AiohttpSending(self, request)

    def _open(self) -> aiohttp.ClientSession:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=self._pool, ssl=True),  # TLS verified
            cookie_jar=aiohttp.DummyCookieJar(),  # no state carried from one case to the next
            timeout=aiohttp.ClientTimeout(total=None),  # the caller's deadline governs
        )
        return self._session

    async def aclose(self) -> None:
        """Close the session; a later `send` opens a new one."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()


class _AiohttpSending:
    """`AiohttpExchange.send`'s block: aiohttp's response, with its failures mapped to ours."""

    __slots__ = ("_exchange", "_request", "_response", "_route")
    _response: aiohttp.ClientResponse
    """Set by `__aenter__`; `__aexit__` is called only after it succeeded."""

    def __init__(self, exchange: AiohttpExchange, request: Request) -> None:
        self._exchange = exchange
        self._request = request
        self._route = _DIRECT

    async def __aenter__(self) -> Reply:
        request = self._request
        exchange = self._exchange
        route = exchange._urls.get(request.url)
        if route is None:
            try:
                route = exchange._route(request.url)
            except UsageError as exc:
                raise ExchangeError(TargetUnreachableError(str(exc)), retryable=False) from None
        self._route = route
        headers = request.headers
        if route.request_headers is not None:
            headers = CIMultiDict(headers)
            headers.update(route.request_headers)
        session = exchange._session or exchange._open()
        try:
            # Awaited, not entered: one coroutine fewer to pass through at every wake-up.
            # Leaving the block does what aiohttp's own block does (release, wait for close).
            response = self._response = await session.request(
                request.method,
                request.url,
                data=request.body,
                headers=headers,
                allow_redirects=False,
                proxy=route.proxy,
                proxy_headers=route.tunnel_headers,
            )
        except (aiohttp.ClientError, ValueError) as exc:
            raise _aiohttp_failure(exc, request.url, route) from None
        return Reply(
            response.status, response.reason or "", response.headers, response.content.iter_any
        )

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        response = self._response
        response.release()  # the connection goes back to the pool, or closes if unread
        await response.wait_for_close()
        if isinstance(error, aiohttp.ClientError):
            raise _aiohttp_failure(error, self._request.url, self._route) from None


def _aiohttp_failure(exc: Exception, url: str, route: _Route) -> ExchangeError:
    """The failure aiohttp raised, in gauntlet's words, and whether to try again."""
    name = url_name(url)
    match exc:
        case aiohttp.ClientSSLError() | aiohttp.ClientConnectorCertificateError():
            return ExchangeError(
                TargetUnreachableError(f"cannot connect to {name}: TLS failed: {said(exc)}"),
                retryable=False,
            )
        case aiohttp.ClientProxyConnectionError():
            return ExchangeError(
                TargetUnreachableError(
                    f"cannot connect to {name} through the proxy {route.shown}: {said(exc)}"
                ),
                retryable=True,
            )
        case aiohttp.ClientHttpProxyError():
            return ExchangeError(
                TargetUnreachableError(
                    f"the proxy {route.shown} refused to reach {name}: "
                    f"HTTP {exc.status} {exc.message}"
                ),
                retryable=False,
            )
        case aiohttp.ClientConnectorError():
            return ExchangeError(
                TargetUnreachableError(f"cannot connect to {name}: {said(exc)}"), retryable=True
            )
        case aiohttp.ServerDisconnectedError() | aiohttp.ClientOSError():
            return ExchangeError(
                TargetUnreachableError(
                    f"{name} dropped the connection before answering: {said(exc)}"
                ),
                retryable=True,
            )
        case aiohttp.ClientPayloadError():
            return ExchangeError(
                TargetError(f"response body is broken: {said(exc)}"), retryable=False
            )
        case aiohttp.ClientResponseError():
            return ExchangeError(
                TargetError(f"response is not valid HTTP: {said(exc)}"), retryable=False
            )
        case _:
            return ExchangeError(
                TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}"),
                retryable=False,
            )


def said(exc: BaseException) -> str:
    """What an exception says, on one line and briefly: a reason goes in a table cell.

    aiohttp's HTTP parse errors carry their words in `message`, theirs or their cause's.
    """
    found = [getattr(error, "message", None) for error in (exc, exc.__cause__) if error]
    text = next((m for m in found if isinstance(m, str) and m), str(exc) or type(exc).__name__)
    return clipped(" ".join(text.split()), MAX_REASON)


# ------------------------------------------------------------------ proxies and URLs


def environment_proxy(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy the environment names for `url`, if any.

    `HTTP_PROXY` or `HTTPS_PROXY` by the URL's scheme, else `ALL_PROXY`; none when `NO_PROXY`
    exempts the host. Each name is read in lower case first, then upper case, as curl does.

    Raises:
        UsageError: the proxy is not an http:// or https:// URL (aiohttp speaks no SOCKS).
    """
    proxies = _named_proxies(os.environ if environ is None else environ)
    parts = urlsplit(url)
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    # The standard library's own NO_PROXY matching, which typeshed does not declare.
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if proxy is None or bypass(parts.hostname or "", proxies):
        return None
    try:
        proxy_parts = urlsplit(proxy)
    except ValueError:  # urllib's words for a bracket left open
        raise UsageError(
            f"the environment's proxy for {parts.scheme}://{parts.hostname} is not a URL"
        ) from None
    if proxy_parts.scheme not in ("http", "https"):
        shown = without_userinfo(proxy_parts).geturl()
        raise UsageError(
            f"the environment's proxy {shown!r} for {parts.scheme}://{parts.hostname} "
            "is not an http:// URL: only http:// proxies are supported"
        )
    return proxy


def _named_proxies(environ: Mapping[str, str]) -> dict[str, str]:
    """The `http`, `https`, `all` proxies and `no` exemptions set, lower case winning."""
    proxies: dict[str, str] = {}
    for name in ("http", "https", "all", "no"):
        value = environ.get(f"{name}_proxy") or environ.get(f"{name.upper()}_PROXY")
        if value:
            proxies[name] = value
    return proxies


def _find_route(url: str, environ: Mapping[str, str]) -> _Route:
    """How to reach `url`: the environment's proxy, with its credentials where they belong."""
    proxy = environment_proxy(url, environ)
    if proxy is None:
        return _DIRECT
    parts = urlsplit(proxy)
    try:
        bare = without_userinfo(parts)
    except ValueError:  # urllib's words for a port that is not a port
        target = urlsplit(url)
        raise UsageError(
            f"the environment's proxy for {target.scheme}://{target.hostname} has a port "
            "that is not a number from 0 to 65535"
        ) from None
    shown = bare._replace(path="", query="", fragment="").geturl()
    if parts.username is None:
        return _Route(proxy, shown)
    # aiohttp sends no credentials left in a proxy URL. They ride on the request itself for
    # http://, and on the CONNECT that opens the tunnel for https://.
    auth = {"Proxy-Authorization": basic_credentials(parts.username, parts.password)}
    if urlsplit(url).scheme == "https":
        return _Route(bare.geturl(), shown, tunnel_headers=auth)
    return _Route(bare.geturl(), shown, request_headers=auth)


def _proxy_secrets(environ: Mapping[str, str]) -> tuple[Secret, ...]:
    """The credentials of every proxy the environment names, as written and as sent."""
    found: list[Secret] = []
    for name, proxy in _named_proxies(environ).items():
        if name == "no":
            continue
        try:
            parts = urlsplit(proxy)
        except ValueError:  # refused, without its value, when a request would use it
            continue
        if parts.username is None:
            continue
        what = "the proxy's credentials"
        found += header_secrets(basic_credentials(parts.username, parts.password), what)
        if parts.password:
            found.append(Secret(parts.password, what))
    return tuple(dict.fromkeys(secret for secret in found if secret.value))


def without_userinfo(parts: SplitResult) -> SplitResult:
    """The URL without `user:password@` (an IPv6 host keeps its brackets).

    Raises:
        ValueError: the port is not a number from 0 to 65535.
    """
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port else ""
    return parts._replace(netloc=f"{host}{port}")


def url_name(url: str) -> str:
    """Scheme, host, port and path of `url`: how messages name where a request went."""
    parts = urlsplit(url)
    try:
        netloc = without_userinfo(parts).netloc
    except ValueError:
        netloc = parts.hostname or ""
    return f"{parts.scheme}://{netloc}{parts.path or '/'}"


def shown_url(url: str) -> str:
    """`url` as it may be shown: no `user:password@`, credential query values masked.

    Used for URLs that gauntlet did not choose (a redirect's `Location`, a bad `--http-url`),
    whose secrets it cannot know: a signed link's token is masked by its parameter's name.
    """
    try:
        parts = urlsplit(url)
        if parts.username is not None or parts.password is not None:
            parts = without_userinfo(parts)
    except ValueError:
        return "(a malformed URL)"
    fields = []
    for field in parts.query.split("&") if parts.query else []:
        name, equals, raw = field.partition("=")
        masked = raw and is_credential_name(unquote_plus(name))
        fields.append(f"{name}{equals}{MASK}" if masked else field)
    return urlunsplit(parts._replace(query="&".join(fields)))


def query_secrets(url: str) -> list[Secret]:
    """Each query value of `url` named like a credential, in every form it travels.

    As written, as aiohttp sends it (yarl quotes a query its own way: `%2F` goes out as `/`),
    and decoded as a server reads it (`+` as a space, and as a plus): a target that says back
    its query says it in one of these.
    """
    try:
        sent = yarl.URL(url).raw_query_string
    except (ValueError, TypeError):  # refused when it is sent, without its value
        sent = ""
    found = []
    for query in dict.fromkeys((urlsplit(url).query, sent)):
        for field in query.split("&") if query else []:
            name, _, raw = field.partition("=")
            if not (raw and is_credential_name(unquote_plus(name))):
                continue
            what = f"the URL's {unquote_plus(name)} parameter"
            found += [Secret(form, what) for form in (raw, unquote_plus(raw), unquote(raw))]
    return list(dict.fromkeys(found))


def basic_credentials(username: str, password: str | None) -> str:
    """A Basic `Authorization` value from a URL's (percent-encoded) user and password."""
    pair = f"{unquote(username)}:{unquote(password or '')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def header_secrets(value: str, what: str) -> list[Secret]:
    """A credential header's value, the token after its scheme, and a Basic pair decoded."""
    found = [Secret(value, what)]
    scheme, _, token = value.partition(" ")
    token = token.strip()
    if not (token and scheme.isalpha()):
        return found
    found.append(Secret(token, what))
    if scheme.lower() == "basic":
        try:
            pair = base64.b64decode(token, validate=True).decode()
        except ValueError:  # binascii.Error and UnicodeDecodeError alike
            return found
        _, _, password = pair.partition(":")
        found += [Secret(pair, what), Secret(password, what)]
    return found


# ------------------------------------------------------------------ the test double


@dataclass(frozen=True, slots=True)
class Pause:
    """In a `MockReply`'s body: wait this many seconds before the next chunk."""

    seconds: float


MockBody = bytes | Sequence[bytes | Pause | ExchangeError]
"""A whole body, or its chunks in order with pauses between them and, where the connection
breaks, the `ExchangeError` a real exchange would raise there."""


@dataclass(frozen=True, slots=True)
class MockReply:
    """What a `MockExchange` handler answers."""

    status: int = 200
    headers: Sequence[tuple[str, str]] = ()
    """Name and value pairs, in order; a name may repeat (several `Set-Cookie`)."""
    body: MockBody = b""
    reason: str | None = None
    """The reason phrase; by default the standard one for the status, or ""."""

    @classmethod
    def json(
        cls, value: object, *, status: int = 200, headers: Sequence[tuple[str, str]] = ()
    ) -> MockReply:
        """A reply whose body is `value` as JSON, with `Content-Type: application/json`."""
        body = json.dumps(value).encode()
        return cls(status, (("Content-Type", "application/json"), *headers), body)


MockHandler = Callable[[Request], MockReply | Awaitable[MockReply]]
"""Answers one request (or raises `ExchangeError`, as a connection that failed)."""


class MockExchange:
    """An `Exchange` that answers from a handler, in process, and records every request.

    Args:
        handler: Makes each reply; a plain function or a coroutine function.
        secrets: What the exchange reports as its own secrets.
    """

    def __init__(self, handler: MockHandler, *, secrets: Sequence[Secret] = ()) -> None:
        self._handler = handler
        self._secrets = tuple(secrets)
        self.requests: list[Request] = []
        """Every request sent, in order."""
        self.closed = False
        """Whether `aclose` was called."""

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """As given."""
        return self._secrets

    def send(self, request: Request) -> AbstractAsyncContextManager[Reply]:
        """Record `request` and answer it with the handler's reply."""
        return self._send(request)

    @asynccontextmanager
    async def _send(self, request: Request) -> AsyncIterator[Reply]:
        self.requests.append(request)
        made = self._handler(request)
        answer = await made if inspect.isawaitable(made) else made
        reason = answer.reason
        if reason is None:
            reason = HTTPStatus(answer.status).phrase if answer.status in _KNOWN else ""
        headers = CIMultiDictProxy(CIMultiDict(answer.headers))
        yield Reply(answer.status, reason, headers, lambda: _mock_chunks(answer.body))

    async def aclose(self) -> None:
        """Remember that it was closed."""
        self.closed = True


_KNOWN = frozenset(status.value for status in HTTPStatus)


async def _mock_chunks(body: MockBody) -> AsyncIterator[bytes]:
    if isinstance(body, bytes):
        if body:
            yield body
        return
    for item in body:
        if isinstance(item, Pause):
            await asyncio.sleep(item.seconds)
        elif isinstance(item, ExchangeError):
            raise ExchangeError(
                type(item.error)(str(item.error)),  # a fresh error each time it is raised
                retryable=item.retryable,
                retry_after=item.retry_after,
            )
        else:
            yield item
