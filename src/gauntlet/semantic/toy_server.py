"""The toy embedder served as an OpenAI-compatible `/v1/embeddings` API on 127.0.0.1.

`gauntlet toy serve --api embeddings [--embedder-defect NAME]` runs it, so the
`openai-embeddings` transport can be seen working (and each defect failing calibration)
without a network: `POST /v1/embeddings` (`input` one text or a list, `encoding_format`
`float` or `base64`), `GET /v1/models` and `GET /health`. It answers as a model named for its
defects (`gauntlet-toy-embedder+negation_blind`), so a record made with the healthy toy never
gates a defective one. A request it cannot read gets OpenAI's error shape and status 400.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web

from gauntlet.errors import TargetContractError
from gauntlet.semantic.embedder import Embedder, EmbedderError
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.toy.openai import serving_app

MODEL = "gauntlet-toy-embedder"
"""The model the healthy toy embedder answers as."""
MAX_BODY_BYTES = 4 * 1024 * 1024
"""The largest request the server reads."""
MAX_INPUTS = 2048
"""The most texts one request may carry, as OpenAI allows."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_EMBEDDER = web.AppKey("embedder", Embedder)
_MODEL = web.AppKey("model", str)


def model_name(defects: frozenset[EmbedderDefect]) -> str:
    """The model the toy with `defects` answers as: `MODEL`, `+` each defect in one order."""
    return "+".join([MODEL, *sorted(defects)])


class _BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def _json(status: int, body: Mapping[str, Any]) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        content_type="application/json",
        charset="utf-8",
    )


def _error(status: int, message: str, param: str | None = None) -> web.Response:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return _json(status, {"error": error})


@web.middleware
async def _openai_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Paths and methods the server does not serve get OpenAI-style JSON errors."""
    try:
        return await handler(request)
    except web.HTTPMethodNotAllowed as refused:
        allowed = ", ".join(sorted(refused.allowed_methods))
        return _error(405, f"{request.method} is not allowed on {request.path}; use {allowed}")
    except web.HTTPNotFound:
        return _error(404, f"Invalid URL ({request.method} {request.path})")


def _parse(body: bytes) -> tuple[list[str], str]:
    """The texts asked and the encoding wanted, or `_BadRequest` saying why not."""
    try:
        asked = loads(body, "the request body")
    except TargetContractError as exc:  # strict_json words every failure
        raise _BadRequest(str(exc)) from None
    if not isinstance(asked, dict):
        raise _BadRequest(f"the request body is {json_kind(asked)}, not an object")
    unknown = sorted(set(asked) - {"input", "model", "encoding_format", "dimensions", "user"})
    if unknown:
        raise _BadRequest(f"unknown field {unknown[0]!r}", unknown[0])
    if not isinstance(asked.get("model"), str):
        raise _BadRequest("`model` must be a string", "model")
    texts = asked.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise _BadRequest("`input` must be a string or a non-empty list of strings", "input")
    if len(texts) > MAX_INPUTS:
        raise _BadRequest(f"`input` holds {len(texts)} texts; at most {MAX_INPUTS}", "input")
    encoding = asked.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise _BadRequest("`encoding_format` must be float or base64", "encoding_format")
    dimensions = asked.get("dimensions")
    if dimensions is not None and dimensions != 512:
        raise _BadRequest("the toy embedder's vectors have 512 numbers only", "dimensions")
    return texts, encoding


async def _embeddings(request: web.Request) -> web.Response:
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return _error(400, f"the body is over the {MAX_BODY_BYTES}-byte limit")
    try:
        texts, encoding = _parse(body)
    except _BadRequest as problem:
        return _error(400, str(problem), problem.param)
    try:
        vectors = await request.app[_EMBEDDER].embed(texts)
    except EmbedderError as exc:
        return _error(500, str(exc))
    data = [
        {
            "object": "embedding",
            "index": index,
            "embedding": (
                base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
                if encoding == "base64"
                else list(vector)
            ),
        }
        for index, vector in enumerate(vectors)
    ]
    words = sum(len(text.split()) for text in texts)
    return _json(
        200,
        {
            "object": "list",
            "data": data,
            "model": request.app[_MODEL],
            "usage": {"prompt_tokens": words, "total_tokens": words},
        },
    )


async def _models(request: web.Request) -> web.Response:
    model = {"id": request.app[_MODEL], "object": "model", "created": 0, "owned_by": "gauntlet"}
    return _json(200, {"object": "list", "data": [model]})


async def _health(request: web.Request) -> web.Response:
    return _json(200, {"status": "ok"})


def create_app(embedder: ToyEmbedder) -> web.Application:
    """The aiohttp application that serves `embedder`, opened when the server starts."""
    app = web.Application(middlewares=[_openai_errors], client_max_size=MAX_BODY_BYTES)
    app[_EMBEDDER] = embedder
    app[_MODEL] = model_name(embedder.defects)

    async def opened(app: web.Application) -> AsyncIterator[None]:
        await embedder.open()
        yield
        await embedder.aclose()

    app.cleanup_ctx.append(opened)
    app.router.add_post("/v1/embeddings", _embeddings)
    app.router.add_get("/v1/models", _models)
    app.router.add_get("/health", _health)
    return app


@asynccontextmanager
async def serving(
    embedder: ToyEmbedder, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[int]:
    """Serve `embedder` on `host`:`port` (0: any free one) while the block runs; the bound port."""
    async with serving_app(create_app(embedder), host, port) as bound:
        yield bound


def serve_forever(
    host: str, port: int, embedder: ToyEmbedder, *, on_ready: Callable[[int], None]
) -> None:
    """Serve `embedder` until interrupted (Ctrl-C raises `KeyboardInterrupt` out of here)."""

    async def main() -> None:
        async with serving(embedder, host, port) as bound:
            on_ready(bound)
            await asyncio.Event().wait()

    asyncio.run(main())


__all__ = ["MODEL", "create_app", "model_name", "serve_forever", "serving"]
