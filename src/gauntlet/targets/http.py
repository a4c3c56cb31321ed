"""HTTP targets: POST `{"prompt", "language"}` to a URL and read a `TargetResponse` back."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx

from gauntlet.errors import TargetError, TargetTimeoutError, TargetUnreachableError
from gauntlet.targets.contract import TargetResponse, parse_response_json

DEFAULT_TIMEOUT = 30.0


class HttpTarget:
    """A deployed feature that speaks the HTTP target contract.

    One `httpx.AsyncClient` serves every case of a run; pass your own (with a
    `httpx.MockTransport`, say) to test without a server. Redirects are never followed.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TargetError(f"--http-url {url!r}: expected an http:// or https:// URL")
        self.url = url
        # The name goes into results and evidence: never credentials or a query string.
        port = f":{parts.port}" if parts.port else ""
        self.name = f"{parts.scheme}://{parts.hostname}{port}{parts.path or '/'}"
        self._headers = dict(headers or {})
        self._client = client or httpx.AsyncClient(timeout=timeout, follow_redirects=False)

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        """POST the prompt and parse the answer strictly.

        Raises:
            TargetUnreachableError: the connection could not be made.
            TargetTimeoutError: no whole answer within the timeout.
            TargetError: a status other than 200, or another transport failure.
            TargetContractError: the body is not a `TargetResponse`.
        """
        try:
            reply = await self._client.post(
                self.url, json={"prompt": prompt, "language": language}, headers=self._headers
            )
        except httpx.TimeoutException as exc:
            raise TargetTimeoutError(f"no answer in time: {type(exc).__name__}") from exc
        except (httpx.ConnectError, httpx.UnsupportedProtocol) as exc:
            raise TargetUnreachableError(f"cannot connect to {self.name}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise TargetError(f"HTTP exchange failed: {type(exc).__name__}: {exc}") from exc
        if reply.status_code != 200:
            raise TargetError(f"HTTP {reply.status_code} {reply.reason_phrase} from {self.name}")
        return parse_response_json(reply.content)

    async def aclose(self) -> None:
        """Close the client."""
        await self._client.aclose()
