"""The native HTTP target: POST `{"prompt", "language"}` to a URL, read a `TargetResponse` back.

`GauntletTarget` builds the request and reads the answer; how it is sent is the policy every HTTP
target shares (`gauntlet.targets.client.HttpClient`: one deadline for each attempt's whole
exchange; retries with backoff, honouring `Retry-After`, on connect errors, dropped
connections, timeouts, 429 and 502/503/504; only 2xx is an answer; redirects never followed),
over an `Exchange` (`gauntlet.targets.exchange`): by default one aiohttp session per run whose
pool is sized to the concurrency, and in tests a `MockExchange`. The body is read under a size
cap and as strict JSON; cookies are kept within one conversation only.

The names other modules import from here (`HttpSettings`, `environment_proxy`, `shown_url`)
live in those two modules now and stay importable from this one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.errors import Parameter, TargetContractError, UsageError
from gauntlet.redact import Redactor, Secret, is_credential_name
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.client import (
    BACKOFF_BASE,
    DEFAULT_PACING,
    ERROR_BODY_BYTES,
    RETRY_AFTER_CAP,
    RETRY_STATUSES,
    Authenticator,
    HttpClient,
    HttpSettings,
    Pacing,
    keep_cookies,
    read_capped,
    with_cookies,
)
from gauntlet.targets.contract import (
    NATIVE,
    PROBE_LANGUAGE,
    Message,
    Provenance,
    Question,
    TargetResponse,
    Traced,
    check_response,
    declared,
)
from gauntlet.targets.exchange import (
    MAX_REASON,
    AiohttpExchange,
    Exchange,
    Reply,
    Request,
    basic_credentials,
    environment_proxy,
    header_secrets,
    query_secrets,
    shown_url,
    without_userinfo,
)
from gauntlet.targets.spec import DEFAULT_MAX_BYTES
from gauntlet.version import __version__

__all__ = [
    "BACKOFF_BASE",
    "DEFAULT_MAX_BYTES",
    "ERROR_BODY_BYTES",
    "MAX_REASON",
    "PROBE_PROMPT",
    "RETRY_AFTER_CAP",
    "RETRY_STATUSES",
    "Header",
    "HttpSettings",
    "GauntletTarget",
    "environment_proxy",
    "parse_contract_body",
    "parse_header",
    "request_secrets",
    "shown_url",
]

PROBE_PROMPT = "gauntlet pre-flight check: please answer briefly."

_HEADER_NAME = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER = re.compile(rf"^(?P<name>{_HEADER_NAME}):\s*(?P<value>.*)$")
_LEADING_NAME = re.compile(rf"^\s*(?P<name>{_HEADER_NAME})")
_ENV_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")

# The parameters errors name as data; the command line words them as its options.
_HEADER_PARAMETER = Parameter("header")
_URL = Parameter("url")
_HEADERS = Parameter("headers")


class Header(NamedTuple):
    """One header as `parse_header` read it, with the values it read from the environment."""

    name: str
    value: str
    from_environment: tuple[str, ...] = ()
    """The value of each `${VAR}` in it: secrets, whatever the header is called."""


def parse_header(header: str, environ: Mapping[str, str]) -> Header:
    """Parse `header`, written `Name: value`, where `${VAR}` in the value is read from `environ`.

    No message quotes the value: it is often a token, and is not known to be one yet.

    Raises:
        UsageError: `header` is not `Name: value`, or names an unset variable; about the
            parameter `header` (the command line's `--header`).
    """
    match = _HEADER.match(header)
    if match is None:
        # Named only when something follows the name: a header that is one word may be the
        # value itself.
        leading = _LEADING_NAME.match(header)
        named = f" {leading['name']!r}" if leading and header[leading.end() :].strip() else ""
        raise UsageError(
            _HEADER_PARAMETER,
            f"{named}: expected 'Name: value', with a colon after the name (the value is not "
            "shown)",
        )
    name = match["name"]
    read: list[str] = []

    def expand(reference: re.Match[str]) -> str:
        variable = reference["name"]
        if variable not in environ:
            raise UsageError(
                _HEADER_PARAMETER, f" {name}: environment variable {variable} is not set"
            )
        read.append(environ[variable])
        return environ[variable]

    # Trimmed after the variables are read, as HTTP trims it: the value that travels, and so
    # the value (and each variable's part of it) that a target can say back.
    value = _ENV_REFERENCE.sub(expand, match["value"]).strip()
    if "\r" in value or "\n" in value:
        raise UsageError(_HEADER_PARAMETER, f" {name}: a header value cannot hold a line break")
    return Header(name, value, tuple(read))


def _checked_url(url: str) -> tuple[SplitResult, SplitResult]:
    """`url` split, and split again without its user info; refused unless http(s) with a host."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # urllib's words for a bracket left open
        raise UsageError(_URL, f": cannot be used as a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(_URL, f": expected an http:// or https:// URL, got {shown_url(url)!r}")
    try:
        return parts, without_userinfo(parts)
    except ValueError:  # urllib's words for a port that is not a port
        raise UsageError(_URL, ": the port is not a number from 0 to 65535") from None


def _as_headers(headers: Mapping[str, str] | Sequence[Header] | None) -> list[Header]:
    """`headers` as `Header`s, in the order given."""
    if isinstance(headers, Mapping):
        return [Header(name, value) for name, value in headers.items()]
    return list(headers or [])


class GauntletTarget:
    """A deployed feature that speaks the HTTP target contract.

    Args:
        url: Where to POST. Credentials in it are sent but never shown.
        headers: Sent with every request: plain names and values, or `Header`s from
            `parse_header`. Which values are secrets: see `secrets`.
        settings: Deadline, retries and size cap.
        concurrency: Size of the connection pool, to match the engine's bound.
        exchange: What carries the requests (a `MockExchange` in tests); by default an
            `AiohttpExchange` with a pool of `concurrency`. It is closed with the target.
        auth: Credentials for every request (`gauntlet.targets.auth`).
        redactor: The run's `Redactor`: this target's secrets are taught to it now, and any
            token fetched during the run as soon as it arrives. By default one of its own.
        pacing: How the client waits between attempts (tests inject a recorder).

    Raises:
        UsageError: the URL is not http:// or https://, or its port is not a port; the URL's
            credentials, a header and `auth` would set `Authorization` twice (each about the
            parameters `url` and `headers`); the environment's proxy for the URL cannot be
            used.
    """

    holds_conversations = True
    """Multi-turn cases send the earlier turns as `history`."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | Sequence[Header] | None = None,
        settings: HttpSettings | None = None,
        concurrency: int = 8,
        exchange: Exchange | None = None,
        auth: Authenticator | None = None,
        redactor: Redactor | None = None,
        pacing: Pacing = DEFAULT_PACING,
    ) -> None:
        parts, bare = _checked_url(url)
        self.name = f"{parts.scheme}://{bare.netloc}{parts.path or '/'}"
        """Scheme, host, port and path: never credentials or a query string."""
        self.settings = settings or HttpSettings()
        given = _as_headers(headers)
        self._headers = {header.name: header.value for header in given}
        self._from_environment = {header.name: header.from_environment for header in given}
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
        authorization = any(name.lower() == "authorization" for name in self._headers)
        if parts.username is not None:
            if authorization:
                raise UsageError(
                    _URL, " has credentials and ", _HEADERS, " sets Authorization: choose one"
                )
            if auth is not None:
                raise UsageError(_URL, " has credentials and auth is given: choose one")
            self._headers["Authorization"] = basic_credentials(parts.username, parts.password)
            parts = bare
            self._secret_headers.add("Authorization")
        elif authorization and auth is not None:
            raise UsageError(_HEADERS, " sets Authorization and auth is given: choose one")
        self.url = urlunsplit(parts)
        if exchange is None:
            exchange = AiohttpExchange(concurrency)
        if isinstance(exchange, AiohttpExchange):
            exchange.proxy_for(self.url)  # a proxy that cannot be used is refused now
        self._exchange = exchange
        self._auth = auth
        # Built once: each ask only adds its body (and a conversation's cookies).
        self._sent = CIMultiDictProxy(CIMultiDict(_request_headers(self._headers)))
        self._max_bytes = self.settings.max_bytes
        self._redactor = redactor if redactor is not None else Redactor()
        self._redactor.learn(*self.secrets)
        self._client = HttpClient(
            exchange, self.settings, redactor=self._redactor, auth=auth, pacing=pacing
        )

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """Every value that must never appear in any output, with what it is.

        The values of headers named like credentials (`Authorization`, `Cookie`, `X-Api-Key`,
        ...) or written with `${VAR}`, with the token after a scheme such as `Bearer` and the
        pair inside `Basic`; every value read from the environment; the URL's password, as
        written and decoded (not its user name); query values named like credentials; the
        credentials of a proxy named by the environment; and those `auth` was given. Other
        headers (`X-Api-Version: 1`) are not secrets, and masking them would rewrite the
        answers. Tokens fetched during the run are not known here: they are taught to the
        run's `Redactor` as they arrive.
        """
        sent = [
            Header(name, value, self._from_environment.get(name, ()))
            for name, value in self._headers.items()
        ]
        found = request_secrets(self.url, sent, credentials=self._secret_headers)
        found += self._exchange.secrets
        found += self._url_password
        if self._auth is not None:
            found += self._auth.secrets
        return tuple(dict.fromkeys(secret for secret in found if secret.value))

    async def ask(self, question: Question) -> Traced:
        """Ask, retrying as configured, and say how many attempts and how long the waits were.

        The question's `stop` ends a wait before a retry at once (a `Retry-After` may ask for
        a minute); its `conversation` keeps the cookies the target sets, in it alone. Its
        `tools` are ignored: a native target calls its own tools and reports them in its
        answer's `tool_calls`.

        Raises:
            TargetError: the last attempt's failure, with `attempts` and `waited` set on it.
            Interrupted: `stop` was set while waiting to retry.
        """
        conversation = question.conversation
        body = json.dumps(
            _body(question.prompt, question.language, question.history),
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
        ).encode()
        request = Request("POST", self.url, self._sent, body)
        if conversation is not None and conversation.cookies:
            request = with_cookies(request, conversation.cookies)
        called = await self._client.call(request, self._read, stop=question.stop)
        if conversation is not None:
            keep_cookies(conversation.cookies, called.headers)
        return Traced(called.value, called.attempts, called.waited, declared(called.value))

    async def _read(self, reply: Reply) -> TargetResponse:
        return parse_contract_body(await read_capped(reply, self._max_bytes))

    async def probe(self) -> Traced:
        """Ask one probe before the suite, so a broken target fails fast.

        A target that is down or speaks another shape fails the run at once instead of
        erroring every case.

        Raises:
            TargetError: what came back instead of a contract answer.
        """
        return await self.ask(Question(PROBE_PROMPT, PROBE_LANGUAGE))

    def provides(self, language: str) -> Provenance:  # the same in every language
        """Every field declared: the native contract has them all."""
        return NATIVE

    async def aclose(self) -> None:
        """Close the exchange's connections."""
        await self._exchange.aclose()


def request_secrets(
    url: str, headers: Sequence[Header], *, credentials: Collection[str] = ()
) -> list[Secret]:
    """The secrets a request to `url` with `headers` carries, in the forms they travel in.

    The one place that decides what of a request is secret, for every HTTP target: each
    header named like a credential, written with `${VAR}` or listed in `credentials` (its
    value as sent, the token after its scheme and a `Basic` pair decoded); each value read
    from the environment, as read and as it travels (a header value's edges are trimmed:
    HTTP keeps no space around a value); and each query value named like a credential, as
    written, as sent and decoded.
    """
    found: list[Secret] = []
    for header in headers:
        if (
            header.from_environment
            or is_credential_name(header.name)
            or header.name in (credentials)
        ):
            found += header_secrets(header.value, f"the value of header {header.name}")
        for value in header.from_environment:
            what = "a value read from the environment"
            found += [Secret(value, what), Secret(value.strip(), what)]
    found += query_secrets(url)
    return list(dict.fromkeys(secret for secret in found if secret.value))


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
    data = loads(body)
    if not isinstance(data, dict):
        raise TargetContractError(
            f"response is a JSON {json_kind(data)}, not an object with the contract's fields"
        )
    return check_response(data)
