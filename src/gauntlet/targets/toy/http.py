"""The Riverbend toy over HTTP: `POST /` with a prompt, a JSON `TargetResponse` back (stdlib)."""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gauntlet.targets.contract import Message
from gauntlet.targets.toy.assistant import RiverbendToy

MAX_BODY_BYTES = 64 * 1024
"""The largest request body the server reads; a larger one is refused with 400."""

_DISCARD_LIMIT = 16 * MAX_BODY_BYTES
_FIELDS = frozenset({"prompt", "language"})
_OPTIONAL = frozenset({"history"})


class _BadRequest(Exception):
    """A request the server cannot answer; the message says why."""


def serve(
    host: str, port: int, toy: RiverbendToy, *, log_requests: bool = False
) -> ThreadingHTTPServer:
    """Bind an HTTP server that answers with `toy`; the caller runs `serve_forever`.

    `POST /` with the JSON object `{"prompt": str, "language": str}` gets 200 and the JSON of
    the toy's `TargetResponse`. A body that is not that object gets 400 with `{"error": ...}`,
    another method on `/` 405, and any other path 404, each with a JSON error.

    Args:
        host: The address to bind, e.g. `127.0.0.1`.
        port: The port to bind; 0 picks a free one (read it from `server_address`).
        toy: The toy that answers.
        log_requests: Log each request to stderr, as `http.server` does; off by default.

    Returns:
        The bound server, not yet serving. Call `shutdown` and `server_close` when done.
    """

    class Handler(_ToyHandler):
        pass

    Handler.toy = toy
    Handler.log_requests = log_requests
    return ThreadingHTTPServer((host, port), Handler)


class _ToyHandler(BaseHTTPRequestHandler):
    toy: RiverbendToy
    log_requests: bool = False
    server_version = "riverbend-toy"
    protocol_version = "HTTP/1.1"
    timeout = 60  # seconds a kept-alive connection may sit idle before its thread ends

    def do_POST(self) -> None:
        """Answer `POST /`; other paths get 404."""
        if self._path() != "/":
            self._drain()
            self._send(HTTPStatus.NOT_FOUND, {"error": f"no such path: {self.path}"})
            return
        try:
            prompt, language, history = _parse(self._read_body())
        except _BadRequest as problem:
            self._send(HTTPStatus.BAD_REQUEST, {"error": str(problem)})
            return
        answer = self.toy.ask(prompt, language, history)
        self._send(HTTPStatus.OK, answer.model_dump(mode="json"))

    def do_GET(self) -> None:
        """Only `POST /` is served."""
        self._not_served()

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def _not_served(self) -> None:
        self._drain()
        if self._path() != "/":
            self._send(HTTPStatus.NOT_FOUND, {"error": f"no such path: {self.path}"})
        else:
            self._send(
                HTTPStatus.METHOD_NOT_ALLOWED,
                {"error": f"use POST, not {self.command}"},
                allow="POST",
            )

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def _length(self) -> int:
        raw = self.headers.get("Content-Length")
        if raw is None:
            return 0
        try:
            length = int(raw)
        except ValueError:
            length = -1
        if length < 0:
            # Where this body ends is unknown, so the connection cannot carry another request.
            self.close_connection = True
            raise _BadRequest(f"Content-Length is not a length in bytes: {raw!r}")
        return length

    def _read_body(self) -> bytes:
        length = self._length()
        if length > MAX_BODY_BYTES:
            self._discard(length)
            raise _BadRequest(f"body of {length} bytes is over the {MAX_BODY_BYTES}-byte limit")
        return self.rfile.read(length)

    def _drain(self) -> None:
        """Read and drop a body this server will not use."""
        try:
            length = self._length()
        except _BadRequest:
            length = 0
        self._discard(length)

    def _discard(self, length: int) -> None:
        # Reading what the client sends, up to a bound, lets it finish writing and read the
        # answer; past the bound the connection is closed instead.
        if length > _DISCARD_LIMIT:
            self.close_connection = True
            return
        while length > 0:
            chunk = self.rfile.read(min(length, 64 * 1024))
            if not chunk:
                break
            length -= len(chunk)

    def _send(self, status: HTTPStatus, body: dict[str, Any], *, allow: str = "") -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if allow:
            self.send_header("Allow", allow)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Log to stderr only when the server was asked to."""
        if self.log_requests:
            super().log_message(format, *args)


def _parse(body: bytes) -> tuple[str, str, list[Message] | None]:
    """The prompt and language of a request body, or `_BadRequest` saying what is wrong."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise _BadRequest(f"body is not JSON: {problem}") from None
    if not isinstance(data, dict):
        raise _BadRequest(f"body must be a JSON object, not {type(data).__name__}")
    missing = sorted(_FIELDS - data.keys())
    if missing:
        raise _BadRequest(f"missing field(s): {', '.join(missing)}")
    unknown = sorted(data.keys() - _FIELDS - _OPTIONAL)
    if unknown:
        raise _BadRequest(f"unknown field(s): {', '.join(unknown)}")
    wrong = sorted(name for name in _FIELDS if not isinstance(data[name], str))
    if wrong:
        raise _BadRequest(f"field(s) must be strings: {', '.join(wrong)}")
    history = data.get("history")
    if history is not None and not (
        isinstance(history, list)
        and all(
            isinstance(m, dict)
            and set(m) == {"role", "content"}
            and m["role"] in ("user", "assistant")
            and isinstance(m["content"], str)
            for m in history
        )
    ):
        raise _BadRequest("history must be a list of {role: user|assistant, content: str}")
    return data["prompt"], data["language"], history
