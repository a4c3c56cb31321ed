"""A real HTTP/1.1 server on 127.0.0.1 that misbehaves in one documented way per path."""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import json
import socket
import ssl
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import pytest

MAX_REQUEST_BYTES = 64 * 1024
"""The largest request body the server reads; a larger one gets 413."""
HUGE_BYTES = 2 * 1024 * 1024
"""The size of `/huge`: twice the HTTP target's default cap."""
BOMB_BYTES = 10 * 1024 * 1024
"""What `/bomb` inflates to: ten times the HTTP target's default cap."""
CITED = "RB-1"
"""The one source every good answer retrieves and cites, so grounding cases pass."""
CLIENT_ID = "gauntlet-client"
"""The OAuth client `/token` knows."""
CLIENT_SECRET = "cl13nt-s3cret-7d4e"  # noqa: S105 - a test fixture
"""Its secret."""

PATHS = (
    "/ok",
    "/slow",
    "/trickle",
    "/429-seconds",
    "/429-date",
    "/flaky-500",
    "/flaky-503",
    "/boom",
    "/not-json",
    "/html",
    "/list",
    "/wrong-types",
    "/nan",
    "/duplicate-key",
    "/redirect",
    "/huge",
    "/bomb",
    "/echo-auth",
    "/hang-up",
    "/truncated",
    "/bad-gzip",
    "/set-cookie",
    "/not-http",
    "/echo-basic",
    "/401-echo",
    "/422",
    "/redirect-secret",
    "/429-cases",
    "/esc-reason",
    "/surrogate",
    "/deep",
    "/stream",
    "/cookie-jar",
    "/token",
    "/protected",
    "/cut-stream/chat/completions",
)
"""Every path with a behaviour; any other path gets 404."""


def answer(text: str, **fields: object) -> dict[str, object]:
    """A contract answer citing `CITED`, with `fields` overriding any of its fields."""
    return {
        "text": text,
        "citations": [CITED],
        "context_ids": [CITED],
        "refused": False,
        "escalated": False,
        **fields,
    }


def _json(value: object) -> bytes:
    return json.dumps(value).encode()


def _prompt(raw: bytes) -> str:
    """The `prompt` of a JSON request body, or "" for any other body."""
    try:
        data = json.loads(raw)
    except ValueError:
        return ""
    prompt = data.get("prompt") if isinstance(data, dict) else None
    return prompt if isinstance(prompt, str) else ""


@functools.cache
def _bomb() -> bytes:
    """Valid-looking contract JSON of `BOMB_BYTES` and more, gzipped to a few kilobytes."""
    body = b'{"text": "' + b"0" * BOMB_BYTES + b'", "citations": [], "context_ids": [], '
    return gzip.compress(body + b'"refused": false, "escalated": false}', compresslevel=9)


@dataclass(frozen=True)
class Seen:
    """One request the server read."""

    path: str
    """The request target as sent: path and query string."""
    headers: Mapping[str, str]
    """The request's headers, their names lower-cased."""
    prompt: str
    client_port: int
    """The port of the client's end of the connection: one per connection."""
    body: bytes = b""
    """The request's body as sent."""


@dataclass
class _State:
    throttle: int
    slow_seconds: float
    trickle_interval: float
    closing: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    hits: Counter[str] = field(default_factory=Counter)
    seen: list[Seen] = field(default_factory=list)
    connections: set[socket.socket] = field(default_factory=set)
    errors: list[BaseException] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    """Every access token `/token` issued, in order."""
    revoked: set[str] = field(default_factory=set)


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True  # server_close joins every handler thread

    def __init__(self, state: _State) -> None:
        self.state = state
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Keep a handler's failure (a client that went away) off stderr."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hostile"
    body = b""
    """The body of the request being answered."""
    timeout = 10  # an idle kept-alive connection ends its thread after this many seconds

    @property
    def state(self) -> _State:
        return cast(_Server, self.server).state

    def setup(self) -> None:
        super().setup()
        with self.state.lock:
            self.state.connections.add(self.connection)

    def finish(self) -> None:
        with self.state.lock:
            self.state.connections.discard(self.connection)
        with suppress(OSError):  # the client closed the connection first
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing."""

    def do_GET(self) -> None:
        """Behave as for POST, with an empty prompt."""
        self._dispatch()

    def do_CONNECT(self) -> None:
        """As a proxy asked for a tunnel: record the request, then refuse it with 407."""
        with self.state.lock:
            self.state.seen.append(
                Seen(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    "",
                    self.client_address[1],
                )
            )
        self._send(407, b"", headers={"Proxy-Authenticate": 'Basic realm="hostile"'})
        self.close_connection = True

    def do_POST(self) -> None:
        """Read the prompt and behave as the path says."""
        self._dispatch()

    def _dispatch(self) -> None:
        try:
            raw = self._read_body()
        except ValueError:
            self._send(413, b"")
            self.close_connection = True
            return
        self.body = raw
        prompt = _prompt(raw)
        parts = urlsplit(self.path)
        query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        with self.state.lock:
            self.state.hits[parts.path] += 1
            hit = self.state.hits[parts.path]
            self.state.seen.append(
                Seen(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    prompt,
                    self.client_address[1],
                    raw,
                )
            )
        try:
            self._behave(parts.path, query, prompt, hit)
        except OSError as exc:  # the client gave up (a deadline, a size cap): expected
            with self.state.lock:
                self.state.errors.append(exc)
            self.close_connection = True

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length", "0")
        size = int(length) if length.isdigit() else 0
        if size > MAX_REQUEST_BYTES:
            raise ValueError("request body too large")
        return self.rfile.read(size) if size else b""

    def _behave(self, path: str, query: Mapping[str, str], prompt: str, hit: int) -> None:
        state = self.state
        good = _json(answer(f"You asked: {prompt}"))
        match path:
            case "/ok":
                self._send(200, good)
            case "/slow":
                if not state.closing.wait(state.slow_seconds):
                    self._send(200, good)
            case "/trickle":
                self._trickle(good)
            case "/429-seconds":
                after = query.get("after", "1")
                if hit <= state.throttle:
                    self._send(429, b"", headers={"Retry-After": after})
                else:
                    self._send(200, good)
            case "/429-date":
                ahead = float(query.get("after", "30"))
                if hit <= state.throttle:
                    date = formatdate(time.time() + ahead, usegmt=True)
                    self._send(429, b"", headers={"Retry-After": date})
                else:
                    self._send(200, good)
            case "/flaky-500":
                self._send(500 if hit == 1 else 200, b"" if hit == 1 else good)
            case "/flaky-503":
                self._send(503 if hit <= state.throttle else 200, good)
            case "/boom":
                if "boom" in prompt.lower():
                    self._send(500, b"boom")
                else:
                    self._send(200, good)
            case "/not-json":
                self._send(200, b"this is not json")
            case "/html":
                page = b"<!doctype html><html><body><h1>Welcome</h1></body></html>"
                self._send(200, page, content_type="text/html; charset=utf-8")
            case "/list":
                self._send(200, _json([answer("one"), answer("two")]))
            case "/wrong-types":
                self._send(200, _json(answer("fine", refused="no")))
            case "/nan":
                body = b'{"text": NaN, "citations": [], "context_ids": [], '
                self._send(200, body + b'"refused": false, "escalated": false}')
            case "/duplicate-key":
                body = b'{"text": "a", "text": "b", "citations": [], "context_ids": [], '
                self._send(200, body + b'"refused": false, "escalated": false}')
            case "/redirect":
                self._send(302, b"", headers={"Location": "/ok"})
            case "/huge":
                self._huge(chunked=query.get("chunked") == "1")
            case "/bomb":
                self._send(200, _bomb(), headers={"Content-Encoding": "gzip"})
            case "/echo-auth":
                authorization = self.headers.get("Authorization", "(none)")
                text = f"You sent Authorization: {authorization} to {self.path}"
                self._send(200, _json(answer(text)))
            case "/hang-up":
                # Read the request, then close the connection without a word: the first
                # `throttle` times, so a retry can be seen to succeed.
                if hit <= state.throttle:
                    self.close_connection = True
                else:
                    self._send(200, good)
            case "/truncated":
                self._send(200, good, declared=len(good) + 100)
                self.close_connection = True
            case "/bad-gzip":
                self._send(200, b"this is not gzip", headers={"Content-Encoding": "gzip"})
            case "/not-http":
                # Another protocol's greeting where a status line should be.
                self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
                self.close_connection = True
            case "/echo-basic":
                # Decodes Basic credentials and says them back, as a debugging endpoint would.
                scheme, _, token = self.headers.get("Authorization", "").partition(" ")
                try:
                    pair = base64.b64decode(token, validate=True).decode()
                except (binascii.Error, UnicodeDecodeError):
                    pair = "(none)"
                user, _, password = pair.partition(":")
                text = f"You are {user} ({scheme}) with password {password}"
                self._send(200, _json(answer(text)))
            case "/401-echo":
                # Refuses, quoting the credentials it got in the reason phrase and the body.
                authorization = self.headers.get("Authorization", "(none)")
                body = _json({"error": f"bad credentials {authorization}"})
                self._send(401, body, reason=f"Unauthorized {authorization}")
            case "/422":
                # For a prompt saying "bad": the explanation a real API gives, with a terminal
                # escape and a line break that must reach no terminal and no report raw.
                body = b"field 'prompt' \x1b[31mis required\x1b[0m\n::error::forged"
                if "bad" in prompt.lower():
                    self._send(422, body, content_type="text/plain")
                else:
                    self._send(200, good)
            case "/429-cases":
                # The pre-flight probe is answered; every case is told to come back in a minute.
                if prompt.startswith("gauntlet pre-flight"):
                    self._send(200, good)
                else:
                    self._send(429, b"", headers={"Retry-After": query.get("after", "60")})
            case "/echo-cut":
                # Echoes the credentials where an error message cuts its quote short: at
                # character 52 of a body that is not JSON, or where a quote of a long value of
                # the wrong type is cut (reprlib keeps its start and its end).
                authorization = self.headers.get("Authorization", "(none)")
                padded = "x" * 45 + authorization + "y" * 20
                if query.get("as") == "field":
                    self._send(200, _json(answer("fine", refused=padded)))
                else:
                    self._send(200, padded.encode(), content_type="text/plain")
            case "/esc-reason":
                # A reason phrase that would clear a terminal and recolour what follows.
                self._send(500, b"", reason="Internal \x1b[2J\x1b[31mError")
            case "/redirect-secret":
                location = (
                    "https://login:pa55w0rd-9f2c@sso.example.test/cb?token=t0k-84c1e6d2aa&x=1"
                )
                self._send(302, b"", headers={"Location": location})
            case "/surrogate":
                # For a prompt saying "boom": JSON's escape for a lone surrogate, which
                # Python's json reads as a `str` that no UTF-8 file can hold.
                if "boom" in prompt.lower():
                    self._send(200, _json(answer("Open \ud800 9 to 5.")))
                else:
                    self._send(200, good)
            case "/deep":
                # JSON nested deeper than any parser recurses: a hundred thousand arrays.
                self._send(200, b"[" * 100_000)
            case "/set-cookie":
                text = f"You sent Cookie: {self.headers.get('Cookie', '(none)')}"
                self._send(200, _json(answer(text)), headers={"Set-Cookie": "session=s1; Path=/"})
            case "/cookie-jar":
                # A session per conversation: a new id when none is sent, and a turn counter,
                # in two Set-Cookie headers; says back the Cookie header it got.
                sent = self.headers.get("Cookie", "(none)")
                jar = dict(part.strip().partition("=")[::2] for part in sent.split(";"))
                turn = int(jar["turn"]) + 1 if jar.get("turn", "").isdigit() else 1
                cookies = [f"turn={turn}; Path=/; HttpOnly"]
                if "id" not in jar:
                    cookies.append(f"id=conversation-{hit}; Path=/")
                text = f"You sent Cookie: {sent}"
                self._send_cookies(_json(answer(text)), cookies)
            case "/stream":
                self._stream(query)
            case "/token":
                self._token(query, hit)
            case "/protected":
                self._protected(query, prompt)
            case "/cut-stream/chat/completions":
                self._cut_stream()
            case _:
                self._send(404, _json({"error": f"no behaviour at {path}"}))

    def _send(
        self,
        status: int,
        body: bytes,
        *,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
        declared: int | None = None,
        reason: str | None = None,
    ) -> None:
        """Send a whole response; `declared` claims another Content-Length than the body's."""
        self.send_response(status, reason)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if declared is None else declared))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _send_cookies(self, body: bytes, cookies: list[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for cookie in cookies:
            self.send_header("Set-Cookie", cookie)
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, query: Mapping[str, str]) -> None:
        """`chunks` lines of `data: piece N`, chunked, `interval` seconds apart."""
        interval = float(query.get("interval", "0"))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for number in range(int(query.get("chunks", "3"))):
            if number and self.state.closing.wait(interval):
                self.close_connection = True
                return
            piece = f"data: piece {number}\n\n".encode()
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _cut_stream(self) -> None:
        """An OpenAI chat stream cut short as llama-cpp-python's server cuts one when another
        request arrives: a piece of text, then `data: [DONE]` with no `finish_reason` ever sent.
        """
        chunk = {
            "id": "chatcmpl-cut",
            "object": "chat.completion.chunk",
            "model": "cut",
            "choices": [{"index": 0, "delta": {"content": "Open 9"}, "finish_reason": None}],
        }
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self._send(200, body, content_type="text/event-stream")

    def _token(self, query: Mapping[str, str], hit: int) -> None:
        """An OAuth 2.0 token endpoint for the client-credentials grant (RFC 6749 4.4).

        Query: `fail=400|500|html` answers that way; `type` is the token_type (Bearer);
        `expires` the expires_in (3600; `none` leaves it out); `delay` seconds to wait.
        """
        if self.state.closing.wait(float(query.get("delay", "0"))):
            return
        authorization = self.headers.get("Authorization", "")
        expected = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        form = parse_qs(self.body.decode())
        fail = query.get("fail")
        if fail == "500":
            self._send(500, b"token store down", content_type="text/plain")
        elif fail == "html":
            self._send(200, b"<html>sign in</html>", content_type="text/html")
        elif fail == "400" or authorization != f"Basic {expected}":
            # Says back the credentials it got, as a careless server would.
            said = {"error": "invalid_client", "error_description": f"got {authorization}"}
            self._send(400 if fail == "400" else 401, _json(said))
        elif form.get("grant_type") != ["client_credentials"]:
            self._send(400, _json({"error": "unsupported_grant_type"}))
        else:
            token = f"at-{hit:04d}-9c41f07e2b"
            with self.state.lock:
                self.state.tokens.append(token)
            issued: dict[str, object] = {
                "access_token": token,
                "token_type": query.get("type", "Bearer"),
            }
            if query.get("expires", "3600") != "none":
                issued["expires_in"] = int(query.get("expires", "3600"))
            if "scope" in form:
                issued["scope"] = form["scope"][-1]
            self._send(200, _json(issued))

    def _protected(self, query: Mapping[str, str], prompt: str) -> None:
        """Answers only a Bearer token `/token` issued and nobody revoked.

        Query: `echo=1` puts the token in the answer; `fail=500` refuses, quoting it.
        """
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        with self.state.lock:
            good = scheme == "Bearer" and token in self.state.tokens
            good = good and token not in self.state.revoked
        if not good:
            self._send(401, _json({"error": f"invalid token {token}"}))
        elif query.get("fail") == "500":
            self._send(500, _json({"error": f"{token} is fine but we are not"}))
        elif query.get("echo") == "1":
            self._send(200, _json(answer(f"You asked: {prompt} with {token}")))
        else:
            self._send(200, _json(answer(f"You asked: {prompt}")))

    def _trickle(self, body: bytes) -> None:
        """Headers at once, then one byte every `trickle_interval`: each read is quick."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        for byte in body:
            if self.state.closing.wait(self.state.trickle_interval):
                self.close_connection = True
                return
            self.wfile.write(bytes([byte]))
            self.wfile.flush()

    def _huge(self, *, chunked: bool) -> None:
        """Valid-looking contract JSON of `HUGE_BYTES`, declared or chunked without a length."""
        body = _json(answer("a" * HUGE_BYTES))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if not chunked:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        step = 64 * 1024
        for start in range(0, len(body), step):
            piece = body[start : start + step]
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


class HostileServer:
    """The server, serving from a background thread until `close` (or the `with` block ends).

    Args:
        throttle: How many times `/429-*` and `/flaky-503` refuse before answering.
        slow_seconds: How long `/slow` sleeps before answering.
        trickle_interval: Seconds between the bytes of `/trickle`'s body.
        tls: Serve HTTPS with this context (and `url` says https://).
    """

    def __init__(
        self,
        *,
        throttle: int = 2,
        slow_seconds: float = 5.0,
        trickle_interval: float = 0.2,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._state = _State(throttle, slow_seconds, trickle_interval)
        self._server = _Server(self._state)
        self._scheme = "http"
        if tls is not None:
            # A client that refuses the certificate fails the handshake in `accept`, which
            # the server shrugs off as the OSError it is.
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"hostile-server-{self.port}",
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The port it listens on, on 127.0.0.1."""
        return int(self._server.server_address[1])

    def url(self, path: str, *, userinfo: str = "") -> str:
        """The URL of `path` (with a query, if any), with `user:password@` when given."""
        at = f"{userinfo}@" if userinfo else ""
        return f"{self._scheme}://{at}127.0.0.1:{self.port}{path}"

    def hits(self, path: str) -> int:
        """How many requests reached `path` (without its query)."""
        with self._state.lock:
            return self._state.hits[path]

    @property
    def seen(self) -> list[Seen]:
        """Every request read so far, in order."""
        with self._state.lock:
            return list(self._state.seen)

    @property
    def tokens(self) -> list[str]:
        """Every access token `/token` issued, in order."""
        with self._state.lock:
            return list(self._state.tokens)

    def revoke(self) -> None:
        """Make `/protected` refuse every token issued so far."""
        with self._state.lock:
            self._state.revoked |= set(self._state.tokens)

    def close(self) -> None:
        """Stop serving, cut every open connection and join every thread."""
        self._state.closing.set()
        self._server.shutdown()
        with self._state.lock:
            connections = list(self._state.connections)
        for connection in connections:
            with suppress(OSError):  # already closed
                connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


@contextmanager
def hostile_server(**options: Any) -> Iterator[HostileServer]:
    """A running `HostileServer` (see its arguments), always shut down afterwards."""
    server = HostileServer(**options)
    try:
        yield server
    finally:
        server.close()


def write_oauth_target(path: Path, server: HostileServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write a target file that asks `/protected` with a token from `/token`, and return it.

    The client's id and secret are set in the test's environment, where the file reads them.
    """
    monkeypatch.setenv("RB_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("RB_CLIENT_SECRET", CLIENT_SECRET)
    path.write_text(
        f"version: 1\nkind: gauntlet\nurl: {server.url('/protected?echo=1')}\n"
        f"auth:\n  kind: oauth2-client-credentials\n  token_url: {server.url('/token')}\n"
        "  client_id_env: RB_CLIENT_ID\n  client_secret_env: RB_CLIENT_SECRET\n",
        encoding="utf-8",
    )
    return path
