"""One HTTP policy for every HTTP-based target: deadlines, retries, statuses, caps, cookies.

`HttpClient.call` sends a `Request` through an `Exchange` and hands a 2xx reply to the caller's
reader. Around that it holds the policy every target shares:

- one deadline per attempt, covering connect, send and the whole read, so a body that
  trickles in (or a stream that never ends) times out like a server that never answers;
- retries with jittered exponential backoff after connect errors, dropped connections,
  timeouts, 429 and 502/503/504, honouring `Retry-After` up to a cap; a `stop` event ends a
  wait at once;
- only 2xx is an answer: a redirect is never followed (its `Location` named, masked), and any
  other status is an error quoting the start of the body, secrets masked;
- errors the reader raises (a contract error) are never retried;
- every message is masked, then made printable, before anything cuts it short;
- with an `Authenticator`, each attempt is authorized, and a 401 triggers one refresh and one
  more attempt.

Cookies are kept per conversation by the caller, with `keep_cookies` and `with_cookies`: the
exchange itself keeps none, so none crosses from one case to another.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Generic, NamedTuple, NoReturn, Protocol, TypeVar

from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.display import clipped, masking, printable
from gauntlet.errors import Interrupted, TargetContractError, TargetError, TargetTimeoutError
from gauntlet.redact import Redactor, Secret
from gauntlet.targets.exchange import (
    MAX_REASON,
    Exchange,
    ExchangeError,
    Headers,
    Reply,
    Request,
    shown_url,
)
from gauntlet.targets.spec import DEFAULT_MAX_BYTES

RETRY_AFTER_CAP = 60.0
"""Longest wait a `Retry-After` may ask for; a longer one is cut to this."""
BACKOFF_BASE = 0.5
"""First backoff in seconds; it doubles with each retry, with up to 50% jitter added."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})
ERROR_BODY_BYTES = 4096
"""How much of a non-2xx answer's body is read, to show its start."""

DEADLINE_MISSED = "no complete answer within"
"""How every ask that timed out begins its reason (after a multi-turn case's `turn N of M: `)."""
_MISSED = re.compile(
    r"(?:turn [0-9]+ of [0-9]+: )?no complete answer within [0-9.e+]+ s"
    r"(?: \(after [0-9]+ attempts\))?"
)
_DIGITS = re.compile(r"[0-9]+")
_COOKIE_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_COOKIE_VALUE = re.compile(r'[^\x00-\x1f\x7f;"\\]*|"[^\x00-\x1f\x7f;"\\]*"')

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
Reader = Callable[[Reply], Awaitable[T]]
"""Reads a 2xx reply into the caller's value; raises `TargetError` (never retried) if it can't."""


@dataclass(frozen=True)
class HttpSettings:
    """How patiently and how much an HTTP target reads."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds for one attempt's whole exchange: connect, send, and the last byte read."""
    retries: int = DEFAULT_RETRIES
    """Retries after the first attempt, for connect errors, timeouts, 429 and 502/503/504."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Largest decoded body accepted."""
    retry_after_cap: float = RETRY_AFTER_CAP
    backoff_base: float = BACKOFF_BASE


Clock = Callable[[], float]


@dataclass(frozen=True)
class Pacing:
    """How an HTTP client spends time and measures it: what tests replace to run at once.

    Apart from `HttpSettings` (what a target file sets) because only a test chooses it.
    """

    sleep: Sleep = asyncio.sleep
    """Waits between attempts."""
    rng: random.Random | None = None
    """Draws the backoff's jitter; a fresh generator per client when None."""
    clock: Clock = time.perf_counter
    """Times an answer: its latency and its first token."""


DEFAULT_PACING = Pacing()
"""Real waits, fresh jitter, the process's performance counter."""


class Called(NamedTuple, Generic[T]):
    """What `HttpClient.call` got: the reader's value, and how."""

    value: T
    attempts: int
    """Requests sent, the last one answered."""
    waited: float
    """Seconds spent waiting between attempts."""
    headers: Headers
    """The answering reply's headers."""


class Authenticator(Protocol):
    """Authorizes each attempt of an `HttpClient` (see `gauntlet.targets.auth`)."""

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The credentials it was given, known before the first request."""
        ...

    async def authorize(
        self, request: Request, via: HttpClient, stop: asyncio.Event | None
    ) -> Request:
        """`request` with its credentials; `via` sends any request this needs (a token's).

        Raises:
            TargetError: no credentials could be had; the ask fails with it as it is.
        """
        ...

    async def rejected(self, request: Request, via: HttpClient, stop: asyncio.Event | None) -> bool:
        """The target answered 401 to `request`: renew what can be; whether to try again."""
        ...


class HttpClient:
    """Sends requests through an exchange under gauntlet's HTTP policy (see the module).

    Args:
        exchange: What carries the requests; its secrets are taught to `redactor`.
        settings: Deadline, retries, backoff and size cap.
        redactor: The run's: every message is masked with it; the exchange's and the
            authenticator's secrets are taught to it now, and every token fetched later.
        auth: Authorizes each attempt; a 401 makes it renew once.
        pacing: How it waits between attempts and times answers (tests inject a recorder).
        hints: What to say after a refusal with a given status (a 404 from a base URL
            without `/v1`, say): appended to the error, so the user reads what to change.
    """

    def __init__(
        self,
        exchange: Exchange,
        settings: HttpSettings,
        *,
        redactor: Redactor,
        auth: Authenticator | None = None,
        pacing: Pacing = DEFAULT_PACING,
        hints: Mapping[int, str] | None = None,
    ) -> None:
        self.exchange = exchange
        self._hints = dict(hints or {})
        self.settings = settings
        self.redactor = redactor
        self._auth = auth
        self._sleep = pacing.sleep
        self._rng = pacing.rng or random.Random()  # noqa: S311 - jitter, not cryptography
        self.pacing = replace(pacing, rng=self._rng)
        self._deadline = f"{DEADLINE_MISSED} {settings.timeout:g} s"
        redactor.learn(*exchange.secrets)
        self._plain = self
        if auth is not None:
            redactor.learn(*auth.secrets)
            self._plain = HttpClient(exchange, settings, redactor=redactor, pacing=self.pacing)

    async def call(
        self, request: Request, read: Reader[T], *, stop: asyncio.Event | None = None
    ) -> Called[T]:
        """Send `request` until a 2xx reply comes, and read it with `read`.

        Args:
            request: What to send, as is (plus the authenticator's credentials).
            read: Reads the 2xx reply, within the attempt's deadline: `read_capped` for a
                whole body, or `reply.chunks()` for a stream.
            stop: Set when the run is interrupted: a wait before a retry ends at once (a
                `Retry-After` may ask for a minute).

        Raises:
            TargetError: the last attempt's failure, masked and printable, with `attempts`
                and `waited` set on it; or the authenticator's own, as it raised it.
            Interrupted: `stop` was set while waiting to retry.
        """
        # Messages quote reason phrases and bodies: the secrets are masked before any cut.
        with masking(self.redactor.text):  # one coroutine, not two: each costs at every wake-up
            auth = self._auth
            attempts = 0
            renewed = 0
            waited = 0.0
            while True:
                attempts += 1
                sent = request if auth is None else await auth.authorize(request, self._plain, stop)
                try:
                    value, headers = await self._attempt(sent, read)
                except _Unauthorized as refused:
                    if renewed or auth is None or not await auth.rejected(sent, self._plain, stop):
                        raise self._finished(refused.error, attempts, waited) from None
                    renewed = 1
                    continue
                except ExchangeError as failure:
                    error = failure.error
                    if not failure.retryable:
                        raise self._finished(error, attempts, waited) from None
                    if attempts - renewed > self.settings.retries:
                        said = (
                            f"{error} (after {attempts} attempts)" if attempts > 1 else str(error)
                        )
                        raise self._finished(error, attempts, waited, said) from None
                    wait = self._wait(attempts - renewed, failure.retry_after)
                    waited += wait
                    await self._pause(wait, stop)
                    continue
                except TargetError as error:
                    raise self._finished(error, attempts, waited) from None
                return Called(value, attempts, round(waited, 3), headers)

    async def _attempt(self, request: Request, read: Reader[T]) -> tuple[T, Headers]:
        try:
            async with asyncio.timeout(self.settings.timeout):
                async with self.exchange.send(request) as reply:
                    status = reply.status
                    if 200 <= status < 300:
                        return await read(reply), reply.headers
                    if 300 <= status < 400:
                        location = shown_url(reply.headers.get("location", "nowhere"))
                        raise TargetError(
                            f"HTTP {status} redirect to {location!r}: redirects are not followed"
                        )
                    said = _refused(status, reply.reason, await read_head(reply))
                    refused = TargetError(said + self._hints.get(status, ""))
                    if status in RETRY_STATUSES:
                        after = _retry_after(reply.headers.get("retry-after"))
                        raise ExchangeError(refused, retryable=True, retry_after=after)
                    if status == 401 and self._auth is not None:
                        raise _Unauthorized(refused)
                    raise refused
        except TimeoutError:
            raise ExchangeError(TargetTimeoutError(self._deadline), retryable=True) from None

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

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.settings.retry_after_cap))
        backoff = self.settings.backoff_base * float(2 ** (attempt - 1))
        return round(backoff * (1.0 + 0.5 * self._rng.random()), 3)

    def _finished(
        self, error: TargetError, attempts: int, waited: float, said: str | None = None
    ) -> TargetError:
        """`error` as it may be shown: secrets masked, on one line, attempts recorded.

        Masked here, before anything cuts the message short, so no cut leaves part of a
        secret (a reason phrase or a body may echo the credentials a request carried). A new
        error of the same kind: the one given may be raised again by whoever made it.
        """
        shown = type(error)(printable(self.redactor.text(str(error) if said is None else said)))
        shown.attempts = attempts
        shown.waited = round(waited, 3)
        return shown

    async def aclose(self) -> None:
        """Close the exchange."""
        await self.exchange.aclose()


class _Unauthorized(Exception):
    """Internal: the target answered 401 and an authenticator may renew its credentials."""

    def __init__(self, error: TargetError) -> None:
        super().__init__(str(error))
        self.error = error


async def read_capped(reply: Reply, max_bytes: int) -> bytes:
    """The whole decoded body, refused as soon as it passes `max_bytes` (a bomb counts in full).

    Raises:
        TargetContractError: the body is larger than `max_bytes`, by its `Content-Length`
            or as it arrives.
    """
    declared = reply.headers.get("content-length")
    if declared is not None and _DIGITS.fullmatch(declared.strip()) and int(declared) > max_bytes:
        _too_large(max_bytes)
    parts: list[bytes] = []
    size = 0
    async for chunk in reply.chunks():
        size += len(chunk)
        if size > max_bytes:
            _too_large(max_bytes)
        parts.append(chunk)
    return b"".join(parts)  # one part (the usual case) comes back as it is, uncopied


async def read_head(reply: Reply, limit: int = ERROR_BODY_BYTES) -> bytes:
    """At most the first `limit` bytes of the body; the rest is never read."""
    head = bytearray()
    async for chunk in reply.chunks():
        head += chunk
        if len(head) >= limit:
            break
    return bytes(head[:limit])


def missed_deadline(reason: str) -> bool:
    """Whether `reason` is gauntlet's own word for an ask that timed out, and nothing else.

    Matched whole, so a target's error body that quotes the words is never counted.
    """
    return _MISSED.fullmatch(reason) is not None


def _too_large(limit: int) -> NoReturn:
    raise TargetContractError(f"response body is larger than {limit:,} bytes")


def _refused(status: int, reason: str, head: bytes) -> str:
    """`HTTP 422 Unprocessable Entity: <the body's start>`: the body often says why.

    The body is masked before it is cut to `MAX_REASON` characters (see `HttpClient.call`),
    so a cut never leaves part of a secret.
    """
    said = f"HTTP {status} {reason}".rstrip()
    body = head.decode("utf-8", errors="replace").strip()
    return f"{said}: {clipped(body, MAX_REASON)}" if body else said


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


# ------------------------------------------------------------------ cookies


def keep_cookies(cookies: MutableMapping[str, str], headers: Headers) -> None:
    """Update one conversation's `cookies` from a reply's `Set-Cookie` headers.

    A cookie is kept by name, whatever its domain or path (a conversation talks to one
    target); one that expires now (`Max-Age=0`, an `Expires` in the past) is dropped. A
    malformed one (no `=`, a name that is not a token, a control character) is ignored.
    """
    for line in headers.getall("set-cookie", ()):
        pair, _, attributes = line.partition(";")
        name, equals, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not _COOKIE_NAME.fullmatch(name) or not _COOKIE_VALUE.fullmatch(value):
            continue
        if _expired(attributes):
            cookies.pop(name, None)
        else:
            cookies[name] = value


def _expired(attributes: str) -> bool:
    """Whether a `Set-Cookie`'s attributes say it ends now: `Max-Age` first, then `Expires`."""
    expires: str | None = None
    for attribute in attributes.split(";"):
        key, _, value = attribute.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key == "max-age" and re.fullmatch(r"-?[0-9]+", value):
            return int(value) <= 0
        if key == "expires":
            expires = value
    if expires is None:
        return False
    try:
        when = parsedate_to_datetime(expires)
    except (TypeError, ValueError):
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when <= datetime.now(UTC)


def cookie_header(cookies: Mapping[str, str]) -> str:
    """`cookies` as one `Cookie` header's value: `a=1; b=2`."""
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def with_cookies(request: Request, cookies: Mapping[str, str]) -> Request:
    """`request` carrying `cookies` in one `Cookie` header, after any it already had."""
    if not cookies:
        return request
    sent = cookie_header(cookies)
    given = request.headers.get("cookie")
    return request.with_header("Cookie", f"{given}; {sent}" if given else sent)
