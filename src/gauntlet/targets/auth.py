"""Credentials an HTTP target sends: a bearer token, or an OAuth 2.0 client-credentials token.

Both are `Authenticator`s for `gauntlet.targets.client.HttpClient`, which asks them to
authorize every attempt and tells them of a 401. Every credential is a secret from the start,
and every token fetched is taught to the run's `Redactor` before anything can show it.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable
from urllib.parse import quote_plus, urlencode, urlsplit

from gauntlet.display import clipped, printable
from gauntlet.errors import TargetContractError, TargetError, UsageError
from gauntlet.redact import Redactor, Secret
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.client import HttpClient, read_capped
from gauntlet.targets.exchange import Reply, Request, header_secrets, shown_url
from gauntlet.version import __version__

TOKEN_MAX_BYTES = 64 * 1024
"""Largest token endpoint answer read: a token, not a download."""

Clock = Callable[[], float]
_Token = tuple[str, float | None]
"""An access token and its lifetime in seconds, if the endpoint said."""


class BearerAuth:
    """`Authorization: Bearer <token>` on every request.

    Args:
        token: The token, as read from the environment.
        what: What the token is, for messages and notes: `$API_TOKEN`, say.

    Raises:
        UsageError: the token is empty or holds a line break.
    """

    def __init__(self, token: str, *, what: str = "the bearer token") -> None:
        if not token.strip():
            raise UsageError(f"{what} is empty")
        if "\r" in token or "\n" in token:
            raise UsageError(f"{what} holds a line break, which no header can carry")
        self._header = f"Bearer {token.strip()}"
        self._secrets = (Secret(token, what), *header_secrets(self._header, what))

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The token, and the header value that carries it."""
        return tuple(dict.fromkeys(self._secrets))

    async def authorize(
        self, request: Request, via: HttpClient, stop: asyncio.Event | None
    ) -> Request:
        """`request` with the token."""
        return request.with_header("Authorization", self._header)

    async def rejected(self, request: Request, via: HttpClient, stop: asyncio.Event | None) -> bool:
        """A fixed token cannot be renewed: the 401 stands."""
        return False


class OAuth2ClientCredentials:
    """An OAuth 2.0 access token from the client-credentials grant (RFC 6749 section 4.4).

    The token is fetched before the first request that needs it, with the client id and
    secret sent as HTTP Basic credentials (section 2.3.1), and fetched again when it is about
    to expire or when the target answers 401. However many requests need a token at once,
    one fetch is made and every one of them waits for it.

    Args:
        token_url: Where to POST for a token.
        client_id: The client's identifier.
        client_secret: The client's secret.
        scope: The scope to ask for, if any.
        refresh_before: Fetch a new token when fewer seconds than this are left of the old
            one's `expires_in` (or than half of it, for a token that lives shorter).
        clock: Seconds on a monotonic clock (tests pass a fake one).

    Raises:
        UsageError: the token URL is not an http:// or https:// URL, or holds credentials;
            the client id or secret is empty.
    """

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        refresh_before: float = 30.0,
        clock: Clock = time.monotonic,
    ) -> None:
        parts = urlsplit(token_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"token_url: expected an http:// or https:// URL, got {shown_url(token_url)!r}"
            )
        if parts.username is not None:
            raise UsageError(
                "token_url: holds credentials, which are not sent: the client id and secret are"
            )
        for value, what in ((client_id, "client id"), (client_secret, "client secret")):
            if not value:
                raise UsageError(f"the OAuth {what} is empty")
        self.token_url = token_url
        self._shown = printable(shown_url(token_url))
        # RFC 6749 2.3.1: each is form-encoded before it is joined into the Basic pair.
        pair = f"{quote_plus(client_id)}:{quote_plus(client_secret)}"
        basic = "Basic " + base64.b64encode(pair.encode()).decode()
        form = {"grant_type": "client_credentials"} | ({"scope": scope} if scope else {})
        self._request = Request(
            "POST",
            token_url,
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "Authorization": basic,
                "User-Agent": f"gauntlet/{__version__}",
            },
            urlencode(form).encode(),
        )
        self._secrets = tuple(
            dict.fromkeys(
                [
                    Secret(client_id, "the OAuth client id"),
                    Secret(quote_plus(client_id), "the OAuth client id"),
                    Secret(client_secret, "the OAuth client secret"),
                    Secret(quote_plus(client_secret), "the OAuth client secret"),
                    *header_secrets(basic, "the OAuth client credentials"),
                ]
            )
        )
        self._refresh_before = refresh_before
        self._clock = clock
        self._token: str | None = None
        self._renew_at: float | None = None
        """When to fetch again, on `clock`; never, for a token without `expires_in`."""
        self._fetching: asyncio.Future[str] | None = None
        self.fetches = 0
        """Tokens asked for so far."""

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The client id and secret, as given, as form-encoded, and as Basic credentials."""
        return self._secrets

    async def authorize(
        self, request: Request, via: HttpClient, stop: asyncio.Event | None
    ) -> Request:
        """`request` with a current token, fetched (once, for every waiter) when there is none.

        Raises:
            TargetError: the token endpoint gave no usable token; the message names its URL
                and what went wrong, never a credential.
        """
        token = self._token
        if token is None or (self._renew_at is not None and self._clock() >= self._renew_at):
            token = await self._fetch_once(via, stop)
        return request.with_header("Authorization", f"Bearer {token}")

    async def rejected(self, request: Request, via: HttpClient, stop: asyncio.Event | None) -> bool:
        """The target refused the token `request` carried: drop it, so the next is fresh.

        A 401 to a token already replaced (by another request's refusal) fetches nothing.
        """
        if self._token is not None and request.headers.get("authorization") == (
            f"Bearer {self._token}"
        ):
            self._token = None
        return True

    async def _fetch_once(self, via: HttpClient, stop: asyncio.Event | None) -> str:
        if self._fetching is None:
            self._fetching = asyncio.ensure_future(self._fetch(via, stop))
            self._fetching.add_done_callback(_retrieved)
        fetching = self._fetching
        try:
            # Shielded: one waiter's deadline or cancellation must not end everyone's fetch.
            return await asyncio.shield(fetching)
        except TargetError as error:
            # Each waiter raises its own copy: callers may reword what they raise.
            copy = type(error)(str(error))
            copy.attempts, copy.waited = error.attempts, error.waited
            raise copy from None

    async def _fetch(self, via: HttpClient, stop: asyncio.Event | None) -> str:
        self.fetches += 1
        asked_at = self._clock()  # the token's life counts from before it was asked for
        try:
            called = await via.call(self._request, self._reader(via.redactor), stop=stop)
        except TargetError as error:
            error.args = (f"getting an OAuth token from {self._shown}: {error}",)
            raise
        finally:
            self._fetching = None
        token, lifetime = called.value
        self._token = token
        self._renew_at = None
        if lifetime is not None:
            ahead = min(self._refresh_before, lifetime / 2)
            self._renew_at = asked_at + lifetime - ahead
        return token

    def _reader(self, redactor: Redactor) -> Callable[[Reply], Awaitable[_Token]]:
        async def read(reply: Reply) -> _Token:
            body = await read_capped(reply, TOKEN_MAX_BYTES)
            try:
                return _token(body, redactor)
            except TargetContractError as problem:
                status = f"HTTP {reply.status} {reply.reason}".rstrip()
                raise TargetError(f"{status} gave no usable token: {problem}") from None

        return read


def _retrieved(fetching: asyncio.Future[str]) -> None:
    """Mark a failed fetch's error as seen: its waiters may all have been cancelled."""
    fetching.cancelled() or fetching.exception()


def _token(body: bytes, redactor: Redactor) -> _Token:
    """The access token and its lifetime in seconds from a token endpoint's JSON answer.

    The token is taught to `redactor` as soon as it is read, before anything is checked.

    Raises:
        TargetContractError: not a JSON object, or a field missing or of the wrong type;
            the message quotes no field but `token_type`.
    """
    try:
        data = loads(body, "the answer")
    except TargetContractError as error:
        # Not quoted: a body that is not JSON may still hold the token, not yet learned.
        raise TargetContractError(str(error).partition(" (body starts ")[0]) from None
    if not isinstance(data, dict):
        raise TargetContractError(f"the answer is a JSON {json_kind(data)}, not an object")
    token = data.get("access_token")
    if isinstance(token, str) and token:
        # Masked whatever its length: it is a credential by what it is, and the server chose
        # it, so no note could let the user pick a longer one.
        what = "an OAuth access token"
        redactor.learn(Secret(token, what, always=True), Secret(token.strip(), what, always=True))
    else:
        found = "missing" if "access_token" not in data else f"a {json_kind(token)}"
        if token == "":
            found = "empty"
        raise TargetContractError(f"access_token: expected a non-empty string, got {found}")
    if "\r" in token or "\n" in token:
        raise TargetContractError("access_token: holds a line break, which no header can carry")
    kind = data.get("token_type")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        found = repr(clipped(kind, 40)) if isinstance(kind, str) else json_kind(kind)
        if "token_type" not in data:
            found = "nothing"
        raise TargetContractError(f"token_type: expected Bearer, got {found}")
    if "expires_in" not in data:
        return token, None
    lifetime = data["expires_in"]
    if isinstance(lifetime, bool) or not isinstance(lifetime, int | float) or lifetime <= 0:
        found = (
            repr(lifetime)
            if isinstance(lifetime, int | float) and not isinstance(lifetime, bool)
            else f"a {json_kind(lifetime)}"
        )
        raise TargetContractError(f"expires_in: expected a positive number of seconds, got {found}")
    return token, float(lifetime)
