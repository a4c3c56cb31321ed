"""An `Exchange` over an `httpx.AsyncClient`, for tests that send through `httpx.MockTransport`.

Only tests import httpx: the package's own exchanges are aiohttp's and the mock.
"""

from __future__ import annotations

import httpx
from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.errors import TargetError, TargetTimeoutError, TargetUnreachableError
from gauntlet.redact import Secret
from gauntlet.targets.exchange import ExchangeError, Reply, Request, said, url_name


class HttpxExchange:
    """Sends through `client`, and closes it with itself."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    @property
    def secrets(self) -> tuple[Secret, ...]:
        return ()

    def send(self, request: Request) -> _Sending:
        return _Sending(self._client, request)

    async def aclose(self) -> None:
        await self._client.aclose()


class _Sending:
    def __init__(self, client: httpx.AsyncClient, request: Request) -> None:
        self._client = client
        self._request = request
        self._reply: httpx.Response | None = None

    async def __aenter__(self) -> Reply:
        request = self._client.build_request(
            self._request.method,
            self._request.url,
            content=self._request.body,
            headers=list(self._request.headers.items()),
        )
        try:
            reply = await self._client.send(request, stream=True, follow_redirects=False)
        except httpx.HTTPError as exc:
            raise _failure(exc, self._request.url) from None
        self._reply = reply
        headers = CIMultiDictProxy(CIMultiDict(reply.headers.multi_items()))
        return Reply(reply.status_code, reply.reason_phrase, headers, reply.aiter_bytes)

    async def __aexit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        if self._reply is not None:
            await self._reply.aclose()
        if isinstance(error, httpx.HTTPError):
            raise _failure(error, self._request.url) from None


def _failure(exc: httpx.HTTPError, url: str) -> ExchangeError:
    if isinstance(exc, httpx.TimeoutException):
        return ExchangeError(TargetTimeoutError(f"timed out: {type(exc).__name__}"), retryable=True)
    if isinstance(exc, httpx.NetworkError):
        return ExchangeError(
            TargetUnreachableError(f"cannot connect to {url_name(url)}: {said(exc)}"),
            retryable=True,
        )
    return ExchangeError(
        TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}"), retryable=False
    )
