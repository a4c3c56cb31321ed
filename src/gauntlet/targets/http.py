"""HTTP targets: POST `{"prompt", "language"}` to a URL and read a `TargetResponse` back.

A run sends through one aiohttp session whose connection pool is sized to the concurrency.
httpx's own pool slows down as concurrency grows; over the `httpx-aiohttp` transport it kept
up, but building httpx's request, cookie and stream objects for every request held the engine
to 0.30x raw aiohttp's throughput on a 2-core runner (`make bench`, before this change), where
the target is 0.35x. An `httpx.AsyncClient` can still be passed in, so unit tests use
`httpx.MockTransport`. Either way the policy is the same and lives here: one deadline for each
attempt's whole exchange; retries with backoff (honouring `Retry-After`) on connect errors,
dropped connections, timeouts, 429 and 502/503/504; the decoded body streamed under a size
cap; redirects never followed; no cookies kept between cases; the JSON read strictly.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import re
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn, Protocol
from urllib.parse import SplitResult, unquote, unquote_plus, urlsplit, urlunsplit

import aiohttp

from gauntlet import __version__
from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.display import clipped, masking, printable
from gauntlet.errors import (
    Interrupted,
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
    UsageError,
)
from gauntlet.redact import MASK, Redactor, Secret, is_credential_name
from gauntlet.targets.contract import (
    DECLARED,
    Conversation,
    Message,
    Provenance,
    TargetResponse,
    Traced,
    check_response,
)

DEFAULT_MAX_BYTES = 1024 * 1024
"""Largest decoded response body accepted (1 MiB): an answer, not a download."""
RETRY_AFTER_CAP = 60.0
"""Longest wait a `Retry-After` may ask for; a longer one is cut to this."""
BACKOFF_BASE = 0.5
"""First backoff in seconds; it doubles with each retry, with up to 50% jitter added."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})

PROBE_PROMPT = "gauntlet pre-flight check: please answer briefly."

_HEADER_NAME = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER = re.compile(rf"^(?P<name>{_HEADER_NAME}):\s*(?P<value>.*)$")
_LEADING_NAME = re.compile(rf"^\s*(?P<name>{_HEADER_NAME})")
_ENV_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")
_DIGITS = re.compile(r"[0-9]+")

if TYPE_CHECKING:  # httpx is imported only when a client is passed in
    import httpx

MAX_REASON = 200
"""The longest a transport library's message, or a refused answer's body, is quoted."""
ERROR_BODY_BYTES = 4096
"""How much of a non-2xx answer's body is read, to show its start."""

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class HttpSettings:
    """How patiently and how much an `HttpTarget` reads."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds for one attempt's whole exchange: connect, send, and the last byte read."""
    retries: int = DEFAULT_RETRIES
    """Retries after the first attempt, for connect errors, timeouts, 429 and 502/503/504."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Largest decoded body accepted."""
    retry_after_cap: float = RETRY_AFTER_CAP
    backoff_base: float = BACKOFF_BASE


class _Retryable(Exception):
    """Internal: an attempt failed in a way another attempt may not."""

    def __init__(self, error: TargetError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class Header(NamedTuple):
    """One `--header`, with the values it read from the environment."""

    name: str
    value: str
    from_environment: tuple[str, ...] = ()
    """The value of each `${VAR}` in it: secrets, whatever the header is called."""


def parse_header(spec: str, environ: Mapping[str, str]) -> Header:
    """Parse `--header 'Name: value'`, where `${VAR}` in the value is read from `environ`.

    No message quotes the value: it is often a token, and is not known to be one yet.

    Raises:
        UsageError: the spec is not `Name: value`, or names an unset variable.
    """
    match = _HEADER.match(spec)
    if match is None:
        # Named only when something follows the name: a spec that is one word may be the
        # value itself.
        leading = _LEADING_NAME.match(spec)
        named = f" {leading['name']!r}" if leading and spec[leading.end() :].strip() else ""
        raise UsageError(
            f"--header{named}: expected 'Name: value', with a colon after the name "
            "(the value is not shown)"
        )
    name = match["name"]
    read: list[str] = []

    def expand(reference: re.Match[str]) -> str:
        variable = reference["name"]
        if variable not in environ:
            raise UsageError(f"--header {name}: environment variable {variable} is not set")
        read.append(environ[variable])
        return environ[variable]

    value = _ENV_REFERENCE.sub(expand, match["value"].strip())
    if "\r" in value or "\n" in value:
        raise UsageError(f"--header {name}: a header value cannot hold a line break")
    return Header(name, value, tuple(read))


class HttpTarget:
    """A deployed feature that speaks the HTTP target contract.

    Args:
        url: Where to POST. Credentials in it are sent but never shown.
        headers: Sent with every request: plain names and values, or `Header`s from
            `parse_header`. Which values are secrets: see `secrets`.
        settings: Deadline, retries and size cap.
        concurrency: Size of the connection pool, to match the engine's bound.
        client: An `httpx.AsyncClient` to send through instead of aiohttp (with a
            `MockTransport`, say); it is closed with the target.
        sleep: Waits between attempts (tests inject a recorder).
        rng: Jitter for the backoff.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | Sequence[Header] | None = None,
        settings: HttpSettings | None = None,
        concurrency: int = 8,
        client: httpx.AsyncClient | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"--http-url: expected an http:// or https:// URL, got {shown_url(url)!r}"
            )
        try:
            bare = _without_userinfo(parts)
        except ValueError:  # urllib's words for a port that is not a port
            raise UsageError("--http-url: the port is not a number from 0 to 65535") from None
        self.name = f"{parts.scheme}://{bare.netloc}{parts.path or '/'}"
        """Scheme, host, port and path: never credentials or a query string."""
        self.settings = settings or HttpSettings()
        given = (
            [Header(name, value) for name, value in headers.items()]
            if isinstance(headers, Mapping)
            else list(headers or [])
        )
        self._headers = {header.name: header.value for header in given}
        self._from_environment = {v for header in given for v in header.from_environment}
        self._secret_headers = {
            header.name
            for header in given
            if header.from_environment or is_credential_name(header.name)
        }
        # Credentials in the URL are sent once, as Basic auth, and never left in the URL
        # (aiohttp refuses a URL with credentials beside an Authorization header). The user
        # name is an identifier, not a secret: masking `assistant` would rewrite the answers.
        self._url_password = [
            Secret(form, "the URL's password")
            for form in dict.fromkeys((parts.password, unquote(parts.password or "")))
            if form
        ]
        if parts.username is not None:
            if any(name.lower() == "authorization" for name in self._headers):
                raise UsageError(
                    "--http-url has credentials and --header sets Authorization: choose one"
                )
            self._headers["Authorization"] = _basic(parts.username, parts.password)
            parts = bare
            self._secret_headers.add("Authorization")
        self.url = urlunsplit(parts)
        self._sleep = sleep
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography
        sent = _request_headers(self._headers)
        self._exchange: _Exchange = (
            _HttpxExchange(client, self.url, sent, self.name)
            if client is not None
            else _AiohttpExchange(self.url, sent, self.name, max(1, concurrency))
        )
        self._redactor = Redactor(self.secrets)

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """Every value that must never appear in any output, with what it is.

        The values of headers named like credentials (`Authorization`, `Cookie`, `X-Api-Key`,
        ...) or written with `${VAR}`, with the token after a scheme such as `Bearer` and the
        pair inside `Basic`; every value read from the environment; the URL's password, as
        written and decoded (not its user name); query values named like credentials; and the
        credentials of a proxy named by the environment. Other headers (`X-Api-Version: 1`)
        are not secrets, and masking them would rewrite the answers.
        """
        found: list[Secret] = []
        for name, value in self._headers.items():
            if name in self._secret_headers:
                found += _header_secrets(value, f"the value of header {name}")
        found += [
            Secret(value, "a value read from the environment")
            for value in sorted(self._from_environment)
        ]
        if isinstance(self._exchange, _AiohttpExchange):
            for value in self._exchange.secrets:
                found += _header_secrets(value, "the proxy's credentials")
        found += self._url_password
        found += [
            Secret(form, f"the URL's {name} parameter")
            for name, forms in _credential_query_values(urlsplit(self.url).query)
            for form in forms
        ]
        return tuple(dict.fromkeys(secret for secret in found if secret.value))

    async def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """Ask, retrying as configured; see `ask_traced`."""
        return (await self.ask_traced(prompt, language, history)).response

    async def ask_traced(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None = None,
        *,
        stop: asyncio.Event | None = None,
        conversation: Conversation | None = None,  # noqa: ARG002 - the native contract is stateless
    ) -> Traced:
        """Ask, retrying as configured, and say how many attempts and how long the waits were.

        Args:
            prompt: The user's message.
            language: Its BCP 47 language.
            history: The earlier messages of a conversation, for a multi-turn case.
            stop: Set when the run is interrupted: a wait before a retry ends at once (a
                `Retry-After` may ask for a minute).
            conversation: Unused: the native contract carries its history in the body.

        Raises:
            TargetError: the last attempt's failure, with `attempts` and `waited` set on it.
            Interrupted: `stop` was set while waiting to retry.
        """
        # Messages quote reason phrases and bodies: the secrets are masked before any cut.
        with masking(self._redactor.text):
            return await self._ask_with_retries(prompt, language, history, stop)

    async def _ask_with_retries(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None,
        stop: asyncio.Event | None,
    ) -> Traced:
        waited = 0.0
        attempts = 0
        while True:
            attempts += 1
            try:
                response = await self._attempt(_body(prompt, language, history))
            except _Retryable as failure:
                if attempts > self.settings.retries:
                    error = failure.error
                    if attempts > 1:
                        error.args = (f"{error} (after {attempts} attempts)",)
                    raise self._finished(error, attempts, waited) from failure
                wait = self._wait(attempts, failure.retry_after)
                waited += wait
                await self._pause(wait, stop)
                continue
            except TargetError as error:
                raise self._finished(error, attempts, waited) from None
            return Traced(response, attempts, round(waited, 3))

    async def _pause(self, seconds: float, stop: asyncio.Event | None) -> None:
        if stop is None:
            await self._sleep(seconds)
            return
        sleeping = asyncio.ensure_future(self._sleep(seconds))
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({sleeping, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeping.cancel()
            stopping.cancel()
        if stop.is_set():
            raise Interrupted("interrupted while waiting to retry")

    def _finished(self, error: TargetError, attempts: int, waited: float) -> TargetError:
        """`error` as it may be shown: secrets masked, on one line, attempts recorded.

        Masked here, before anything cuts the message short, so no cut leaves part of a
        secret (a reason phrase or a body may echo the credentials a request carried).
        """
        error.args = (printable(self._redactor.text(str(error))),)
        error.attempts = attempts
        error.waited = round(waited, 3)
        return error

    async def probe(self) -> Traced:
        """Ask one probe before the suite, so a broken target fails fast.

        A target that is down or speaks another shape fails the run at once instead of
        erroring every case.

        Raises:
            TargetError: what came back instead of a contract answer.
        """
        return await self.ask_traced(PROBE_PROMPT, "en")

    def provides(self, language: str) -> Provenance:  # noqa: ARG002 - the same in every language
        """Every field declared: the native contract has them all."""
        return DECLARED

    holds_conversations = True
    """History is sent in the body for multi-turn cases."""

    async def aclose(self) -> None:
        """Close the connections (and an `httpx.AsyncClient` passed in)."""
        await self._exchange.aclose()

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.settings.retry_after_cap))
        backoff = self.settings.backoff_base * float(2 ** (attempt - 1))
        return round(backoff * (1.0 + 0.5 * self._rng.random()), 3)

    async def _attempt(self, request_body: dict[str, object]) -> TargetResponse:
        content = json.dumps(
            request_body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode()
        try:
            async with asyncio.timeout(self.settings.timeout):
                reply = await self._exchange.post(content, self.settings.max_bytes)
        except TimeoutError:
            raise _Retryable(
                TargetTimeoutError(f"no complete answer within {self.settings.timeout:g} s")
            ) from None
        status = reply.status
        if status in RETRY_STATUSES:
            raise _Retryable(
                TargetError(self._refused(reply)),
                _retry_after(reply.headers.get("retry-after")),
            )
        if 300 <= status < 400:
            location = shown_url(reply.headers.get("location", "nowhere"))
            raise TargetError(f"HTTP {status} redirect to {location!r}: redirects are not followed")
        if not 200 <= status < 300:
            raise TargetError(self._refused(reply))
        return parse_contract_body(reply.body)

    def _refused(self, reply: _Reply) -> str:
        """`HTTP 422 Unprocessable Entity: <the body's start>`: the body often says why.

        The body is masked before it is cut to `MAX_REASON` characters (see `ask_traced`), so
        a cut never leaves part of a secret.
        """
        said = f"HTTP {reply.status} {reply.reason}".rstrip()
        body = reply.body.decode("utf-8", errors="replace").strip()
        return f"{said}: {clipped(body, MAX_REASON)}" if body else said


class _Reply(NamedTuple):
    """What one exchange brought back: for a status that is not 2xx, only the body's start."""

    status: int
    reason: str
    headers: Mapping[str, str]
    """Case-insensitive."""
    body: bytes


class _Exchange(Protocol):
    """Sends one POST and reads the reply, mapping its library's failures to ours.

    Raises `_Retryable` for a failure another attempt may not meet, `TargetError` otherwise.
    The caller holds the deadline.
    """

    async def post(self, content: bytes, max_bytes: int) -> _Reply: ...

    async def aclose(self) -> None: ...


class _AiohttpExchange:
    """The production path: one aiohttp session, made on first use inside the run's loop."""

    def __init__(self, url: str, headers: Mapping[str, str], name: str, pool: int) -> None:
        self._url = url
        self._headers = dict(headers)
        self._name = name
        self._pool = pool
        self._session: aiohttp.ClientSession | None = None
        # NOTE: not aiohttp's `trust_env`, which looks the proxy up again on every request
        # (in a thread) and adds credentials from ~/.netrc, clashing with --header
        # Authorization. The URL is fixed for the run, so its proxy is found once.
        self._proxy, proxy_auth, proxy_password = _split_credentials(environment_proxy(url))
        self._proxy_shown = urlsplit(self._proxy or "")._replace(path="", query="").geturl()
        # The proxy's credentials ride on the request itself for http://, and on the
        # CONNECT that opens the tunnel for https://.
        self._proxy_headers: dict[str, str] | None = None
        if proxy_auth is not None and urlsplit(url).scheme == "https":
            self._proxy_headers = proxy_auth
        elif proxy_auth is not None:
            self._headers |= proxy_auth
        self.secrets = (*(proxy_auth or {}).values(), *([proxy_password] if proxy_password else []))
        """The proxy's credentials, if any: never to be shown."""

    def _open(self) -> aiohttp.ClientSession:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=self._pool, ssl=True),  # TLS verified
            headers=self._headers,
            cookie_jar=aiohttp.DummyCookieJar(),  # no state carried from one case to the next
            timeout=aiohttp.ClientTimeout(total=None),  # the caller's deadline governs
        )
        return self._session

    async def post(self, content: bytes, max_bytes: int) -> _Reply:
        session = self._session or self._open()
        try:
            async with session.post(
                self._url,
                data=content,
                allow_redirects=False,
                proxy=self._proxy,
                proxy_headers=self._proxy_headers,
            ) as reply:
                reason = reply.reason or ""
                if not 200 <= reply.status < 300:
                    head = await _read_head(reply.content.iter_any(), ERROR_BODY_BYTES)
                    return _Reply(reply.status, reason, reply.headers, head)
                body = await _read_capped(
                    reply.content.iter_any(), reply.headers.get("content-length"), max_bytes
                )
                return _Reply(reply.status, reason, reply.headers, body)
        except (aiohttp.ClientSSLError, aiohttp.ClientConnectorCertificateError) as exc:
            raise TargetUnreachableError(
                f"cannot connect to {self._name}: TLS failed: {_said(exc)}"
            ) from None
        except aiohttp.ClientProxyConnectionError as exc:
            raise _Retryable(
                TargetUnreachableError(
                    f"cannot connect to {self._name} through the proxy {self._proxy_shown}: "
                    f"{_said(exc)}"
                )
            ) from None
        except aiohttp.ClientHttpProxyError as exc:
            raise TargetUnreachableError(
                f"the proxy {self._proxy_shown} refused to reach {self._name}: "
                f"HTTP {exc.status} {exc.message}"
            ) from None
        except aiohttp.ClientConnectorError as exc:
            raise _Retryable(
                TargetUnreachableError(f"cannot connect to {self._name}: {_said(exc)}")
            ) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            raise _Retryable(
                TargetUnreachableError(
                    f"{self._name} dropped the connection before answering: {_said(exc)}"
                )
            ) from None
        except aiohttp.ClientPayloadError as exc:
            raise TargetError(f"response body is broken: {_said(exc)}") from None
        except aiohttp.ClientResponseError as exc:
            raise TargetError(f"response is not valid HTTP: {_said(exc)}") from None
        except (aiohttp.ClientError, ValueError) as exc:
            raise TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}") from None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _HttpxExchange:
    """Sends through an `httpx.AsyncClient` that was passed in."""

    def __init__(
        self, client: httpx.AsyncClient, url: str, headers: Mapping[str, str], name: str
    ) -> None:
        self._client = client
        self._url = url
        self._headers = dict(headers)
        self._name = name

    async def post(self, content: bytes, max_bytes: int) -> _Reply:
        import httpx  # noqa: PLC0415 - only this path needs it

        request = self._client.build_request(
            "POST", self._url, content=content, headers=self._headers
        )
        try:
            reply = await self._client.send(request, stream=True, follow_redirects=False)
            try:
                if not 200 <= reply.status_code < 300:
                    head = await _read_head(reply.aiter_bytes(), ERROR_BODY_BYTES)
                    return _Reply(reply.status_code, reply.reason_phrase, reply.headers, head)
                body = await _read_capped(
                    reply.aiter_bytes(), reply.headers.get("content-length"), max_bytes
                )
                return _Reply(reply.status_code, reply.reason_phrase, reply.headers, body)
            finally:
                await reply.aclose()
        except httpx.TimeoutException as exc:
            raise _Retryable(TargetTimeoutError(f"timed out: {type(exc).__name__}")) from None
        except httpx.NetworkError as exc:
            raise _Retryable(
                TargetUnreachableError(f"cannot connect to {self._name}: {_said(exc)}")
            ) from None
        except httpx.HTTPError as exc:
            raise TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}") from None

    async def aclose(self) -> None:
        await self._client.aclose()


async def _read_capped(chunks: AsyncIterator[bytes], declared: str | None, limit: int) -> bytes:
    """The decoded body, refused as soon as it passes `limit` bytes (a bomb counts in full)."""
    if declared is not None and _DIGITS.fullmatch(declared.strip()) and int(declared) > limit:
        _too_large(limit)
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            _too_large(limit)
    return bytes(body)


async def _read_head(chunks: AsyncIterator[bytes], limit: int) -> bytes:
    """At most the first `limit` bytes of a body; the rest is never read."""
    head = bytearray()
    async for chunk in chunks:
        head += chunk
        if len(head) >= limit:
            break
    return bytes(head[:limit])


def environment_proxy(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The proxy the environment names for `url`, if any.

    `HTTP_PROXY` or `HTTPS_PROXY` by the URL's scheme, else `ALL_PROXY`; none when `NO_PROXY`
    exempts the host. Each name is read in lower case first, then upper case, as curl does.

    Raises:
        UsageError: the proxy is not an http:// or https:// URL (aiohttp speaks no SOCKS).
    """
    env = os.environ if environ is None else environ
    proxies: dict[str, str] = {}
    for name in ("http", "https", "all", "no"):
        value = env.get(f"{name}_proxy") or env.get(f"{name.upper()}_PROXY")
        if value:
            proxies[name] = value
    parts = urlsplit(url)
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    # The standard library's own NO_PROXY matching, which typeshed does not declare.
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if proxy is None or bypass(parts.hostname or "", proxies):
        return None
    if urlsplit(proxy).scheme not in ("http", "https"):
        shown = _without_userinfo(urlsplit(proxy)).geturl()
        raise UsageError(
            f"the environment's proxy {shown!r} for {parts.scheme}://{parts.hostname} "
            "is not an http:// URL: only http:// proxies are supported"
        )
    return proxy


def _split_credentials(
    proxy: str | None,
) -> tuple[str | None, dict[str, str] | None, str | None]:
    """A proxy URL without its `user:password@`; the proxy's Basic auth header; the password.

    aiohttp sends no credentials that are left in an explicit proxy URL.
    """
    if proxy is None:
        return None, None, None
    parts = urlsplit(proxy)
    if parts.username is None:
        return proxy, None, None
    auth = {"Proxy-Authorization": _basic(parts.username, parts.password)}
    password = unquote(parts.password) if parts.password else None
    return _without_userinfo(parts).geturl(), auth, password


def _without_userinfo(parts: SplitResult) -> SplitResult:
    """The URL without `user:password@` (an IPv6 host keeps its brackets)."""
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port else ""
    return parts._replace(netloc=f"{host}{port}")


def _header_secrets(value: str, what: str) -> list[Secret]:
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
        user, _, password = pair.partition(":")
        found += [Secret(pair, what), Secret(password, what)]
    return found


def _credential_query_values(query: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each query parameter named like a credential, with its value as written and decoded."""
    found = []
    for field in query.split("&"):
        name, _, raw = field.partition("=")
        if raw and is_credential_name(unquote_plus(name)):
            found.append((unquote_plus(name), tuple(dict.fromkeys((raw, unquote_plus(raw))))))
    return found


def shown_url(url: str) -> str:
    """`url` as it may be shown: no `user:password@`, credential query values masked.

    Used for URLs that gauntlet did not choose (a redirect's `Location`, a bad `--http-url`),
    whose secrets it cannot know: a signed link's token is masked by its parameter's name.
    """
    try:
        parts = urlsplit(url)
        if parts.username is not None or parts.password is not None:
            parts = _without_userinfo(parts)
    except ValueError:
        return "(a malformed URL)"
    fields = []
    for field in parts.query.split("&") if parts.query else []:
        name, equals, raw = field.partition("=")
        masked = raw and is_credential_name(unquote_plus(name))
        fields.append(f"{name}{equals}{MASK}" if masked else field)
    return urlunsplit(parts._replace(query="&".join(fields)))


def _basic(username: str, password: str | None) -> str:
    """A Basic `Authorization` value from a URL's (percent-encoded) user and password."""
    pair = f"{unquote(username)}:{unquote(password or '')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def _request_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """What every request carries: the contract's content type, our name, then `--header`s.

    A `--header` replaces a default of the same name, whatever its case.
    """
    given = {name.lower() for name in headers}
    defaults = {"Content-Type": "application/json", "User-Agent": f"gauntlet/{__version__}"}
    kept = {name: value for name, value in defaults.items() if name.lower() not in given}
    return kept | dict(headers)


def _body(prompt: str, language: str, history: Sequence[Message] | None) -> dict[str, object]:
    """The request body; `history` only for a multi-turn case.

    Single-turn targets that refuse unknown fields keep working.
    """
    body: dict[str, object] = {"prompt": prompt, "language": language}
    if history is not None:
        body["history"] = [dict(message) for message in history]
    return body


def parse_contract_body(body: bytes) -> TargetResponse:
    """Read a response body as the contract's JSON object, strictly.

    Raises:
        TargetContractError: not UTF-8 JSON, NaN or infinity, a duplicate key, nesting or a
            number too deep or too long to read, not an object, or a field that breaks the
            contract (named).
    """
    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise TargetContractError(
            f"response is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
            f"(body starts {clipped(body.decode('utf-8', errors='replace'), 60)!r})"
        ) from None
    except UnicodeDecodeError as exc:
        raise TargetContractError(f"response is not UTF-8 JSON: {exc.reason}") from None
    except RecursionError:  # the json module recurses once per array or object it opens
        raise TargetContractError("response is nested too deeply") from None
    except ValueError:  # int() refuses more than 4,300 digits; the json module raises no other
        raise TargetContractError(
            "response holds a number too long to read (more than 4,300 digits)"
        ) from None
    if not isinstance(data, dict):
        raise TargetContractError(
            f"response is a JSON {_json_kind(data)}, not an object with the contract's fields"
        )
    return check_response(data)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise TargetContractError(f"response has the key {key!r} twice")
        seen[key] = value
    return seen


def _no_constants(name: str) -> NoReturn:
    raise TargetContractError(f"response holds {name}, which JSON does not allow")


def _json_kind(value: object) -> str:
    match value:
        case list():
            return "array"
        case str():
            return "string"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case _:
            return "null"


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a `Retry-After` header: delta-seconds or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    if _DIGITS.fullmatch(value):  # ASCII digits only: "²".isdigit() is true, float("²") fails
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _too_large(limit: int) -> NoReturn:
    raise TargetContractError(f"response body is larger than {limit:,} bytes")


def _said(exc: BaseException) -> str:
    """What an exception says, on one line and briefly: a reason goes in a table cell.

    aiohttp's HTTP parse errors carry their words in `message`, theirs or their cause's.
    """
    said = [getattr(error, "message", None) for error in (exc, exc.__cause__) if error]
    text = next((m for m in said if isinstance(m, str) and m), str(exc) or type(exc).__name__)
    return clipped(" ".join(text.split()), MAX_REASON)
