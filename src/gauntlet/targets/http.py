"""HTTP targets: POST `{"prompt", "language"}` to a URL and read a `TargetResponse` back.

One `httpx.AsyncClient` serves a whole run, over the `httpx-aiohttp` transport: httpx's own
connection pool slows down as concurrency grows, aiohttp's does not, and the httpx interface
keeps `httpx.MockTransport` for unit tests. Every attempt has one deadline for the whole
exchange; connect errors, timeouts, 429 and 502/503/504 are retried with backoff (honouring
`Retry-After`); the body is streamed under a size cap; and the JSON is read strictly.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, NoReturn
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

import httpx
from httpx_aiohttp import HttpxAiohttpClient

from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.errors import (
    TargetContractError,
    TargetError,
    TargetTimeoutError,
    TargetUnreachableError,
    UsageError,
)
from gauntlet.targets.contract import Message, TargetResponse, Traced, check_response

DEFAULT_MAX_BYTES = 1024 * 1024
"""Largest decoded response body accepted (1 MiB): an answer, not a download."""
RETRY_AFTER_CAP = 60.0
"""Longest wait a `Retry-After` may ask for; a longer one is cut to this."""
BACKOFF_BASE = 0.5
"""First backoff in seconds; it doubles with each retry, with up to 50% jitter added."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})

PROBE_PROMPT = "gauntlet pre-flight check: please answer briefly."

_HEADER = re.compile(r"^(?P<name>[!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(?P<value>.*)$")
_ENV_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")
_CREDENTIAL_QUERY = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|signature|credential|session", re.IGNORECASE
)

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


def parse_header(spec: str, environ: Mapping[str, str]) -> tuple[str, str]:
    """Parse `--header 'Name: value'`, where `${VAR}` in the value is read from `environ`.

    Raises:
        UsageError: the spec is not `Name: value`, or names an unset variable.
    """
    match = _HEADER.match(spec)
    if match is None:
        raise UsageError(f"--header {spec.split(':', 1)[0]!r}...: expected 'Name: value'")
    name = match["name"]

    def expand(reference: re.Match[str]) -> str:
        variable = reference["name"]
        if variable not in environ:
            raise UsageError(f"--header {name}: environment variable {variable} is not set")
        return environ[variable]

    value = _ENV_REFERENCE.sub(expand, match["value"].strip())
    if "\r" in value or "\n" in value:
        raise UsageError(f"--header {name}: a header value cannot hold a line break")
    return name, value


class HttpTarget:
    """A deployed feature that speaks the HTTP target contract.

    Args:
        url: Where to POST. Credentials in it are sent but never shown.
        headers: Sent with every request; their values are secrets (see `secrets`).
        settings: Deadline, retries and size cap.
        concurrency: Size of the connection pool, to match the engine's bound.
        client: An `httpx.AsyncClient` to use instead (with a `MockTransport`, say).
        sleep: Waits between attempts (tests inject a recorder).
        rng: Jitter for the backoff.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        settings: HttpSettings | None = None,
        concurrency: int = 8,
        client: httpx.AsyncClient | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"--http-url: expected an http:// or https:// URL, got {url!r}")
        port = f":{parts.port}" if parts.port else ""
        self.name = f"{parts.scheme}://{parts.hostname}{port}{parts.path or '/'}"
        """Scheme, host, port and path: never credentials or a query string."""
        self.settings = settings or HttpSettings()
        self._headers = dict(headers or {})
        # Credentials in the URL are sent once, as Basic auth, and never left in the URL
        # (aiohttp refuses a URL with credentials beside an Authorization header).
        self._url_credentials = tuple(p for p in (parts.username, parts.password) if p)
        if parts.username is not None:
            if any(name.lower() == "authorization" for name in self._headers):
                raise UsageError(
                    "--http-url has credentials and --header sets Authorization: choose one"
                )
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
            netloc = f"{parts.hostname}{port}"
            if ":" in (parts.hostname or ""):
                netloc = f"[{parts.hostname}]{port}"
            parts = parts._replace(netloc=netloc)
        self.url = urlunsplit(parts)
        self._sleep = sleep
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography
        self._client = client or HttpxAiohttpClient(
            timeout=httpx.Timeout(self.settings.timeout),
            limits=httpx.Limits(
                max_connections=max(1, concurrency), max_keepalive_connections=max(1, concurrency)
            ),
            follow_redirects=False,
            verify=True,
            trust_env=True,  # proxies from HTTP(S)_PROXY / NO_PROXY
        )

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every value that must never appear in any output.

        Header values (and the token after a scheme such as `Bearer`), the URL's user and
        password, and query values whose names look like credentials.
        """
        found: list[str] = []
        for value in self._headers.values():
            found.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.isalpha():
                found.append(token)
        found += self._url_credentials
        parts = urlsplit(self.url)
        found += [v for k, v in parse_qsl(parts.query) if v and _CREDENTIAL_QUERY.search(k)]
        return tuple(secret for secret in found if secret)

    async def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """Ask, retrying as configured; see `ask_traced`."""
        return (await self.ask_traced(prompt, language, history)).response

    async def ask_traced(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> Traced:
        """Ask, retrying as configured, and say how many attempts and how long the waits were.

        Raises:
            TargetError: the last attempt's failure, with `attempts` and `waited` set on it.
        """
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
                    _stamp(error, attempts, waited)
                    raise error from failure
                wait = self._wait(attempts, failure.retry_after)
                waited += wait
                await self._sleep(wait)
                continue
            except TargetError as error:
                _stamp(error, attempts, waited)
                raise
            return Traced(response, attempts, round(waited, 3))

    async def probe(self) -> TargetResponse:
        """Ask one probe before the suite, so a broken target fails fast.

        A target that is down or speaks another shape fails the run at once instead of
        erroring every case.

        Raises:
            TargetError: what came back instead of a contract answer.
        """
        return await self.ask(PROBE_PROMPT, "en")

    async def aclose(self) -> None:
        """Close the client and its connections."""
        await self._client.aclose()

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.settings.retry_after_cap))
        backoff = self.settings.backoff_base * float(2 ** (attempt - 1))
        return round(backoff * (1.0 + 0.5 * self._rng.random()), 3)

    async def _attempt(self, request_body: dict[str, object]) -> TargetResponse:
        try:
            async with asyncio.timeout(self.settings.timeout):
                status, reason, headers, body = await self._exchange(request_body)
        except TimeoutError:
            raise _Retryable(
                TargetTimeoutError(f"no complete answer within {self.settings.timeout:g} s")
            ) from None
        except (httpx.TimeoutException, httpx.NetworkError) as exc:
            # NOTE: httpx-aiohttp maps some connection failures to ConnectTimeout; the
            # operating system's error at the root of the chain says what really happened.
            root = _root_cause(exc)
            if isinstance(root, OSError) and not isinstance(root, TimeoutError):
                raise _Retryable(
                    TargetUnreachableError(f"cannot connect to {self.name}: {_first_line(root)}")
                ) from None
            if isinstance(exc, httpx.TimeoutException):
                raise _Retryable(TargetTimeoutError(f"timed out: {type(exc).__name__}")) from None
            raise _Retryable(
                TargetUnreachableError(f"cannot connect to {self.name}: {_first_line(exc)}")
            ) from None
        except httpx.HTTPError as exc:
            raise TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}") from None
        except (ValueError, OSError) as exc:
            # The transport's own refusals (aiohttp raises ValueError for some requests).
            raise TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}") from None
        if status in RETRY_STATUSES:
            raise _Retryable(
                TargetError(f"HTTP {status} {reason}"), _retry_after(headers.get("retry-after"))
            )
        if 300 <= status < 400:
            location = headers.get("location", "nowhere")
            raise TargetError(f"HTTP {status} redirect to {location!r}: redirects are not followed")
        if not 200 <= status < 300:
            raise TargetError(f"HTTP {status} {reason}")
        return parse_contract_body(body)

    async def _exchange(
        self, request_body: dict[str, object]
    ) -> tuple[int, str, httpx.Headers, bytes]:
        request = self._client.build_request(
            "POST", self.url, json=request_body, headers=self._headers
        )
        reply = await self._client.send(request, stream=True)
        try:
            if not 200 <= reply.status_code < 300:
                return reply.status_code, reply.reason_phrase, reply.headers, b""
            declared = reply.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.settings.max_bytes:
                _too_large(self.settings.max_bytes)
            body = bytearray()
            async for chunk in reply.aiter_bytes():  # decoded: a compressed bomb counts in full
                body += chunk
                if len(body) > self.settings.max_bytes:
                    _too_large(self.settings.max_bytes)
            return reply.status_code, reply.reason_phrase, reply.headers, bytes(body)
        finally:
            await reply.aclose()


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
        TargetContractError: not UTF-8 JSON, NaN or infinity, a duplicate key, not an object,
            or a field that breaks the contract (named).
    """
    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise TargetContractError(
            f"response is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
            f"(body starts {body[:60]!r})"
        ) from None
    except UnicodeDecodeError as exc:
        raise TargetContractError(f"response is not UTF-8 JSON: {exc.reason}") from None
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
    if value.isdigit():
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


def _stamp(error: TargetError, attempts: int, waited: float) -> None:
    error.attempts = attempts
    error.waited = round(waited, 3)


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc


def _first_line(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0]
