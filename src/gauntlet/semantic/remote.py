"""An embedder over `/v1/embeddings`: a target file of kind `openai-embeddings`.

Sent through the engine's own `HttpClient`, so an embeddings server gets what every target
gets: one deadline per attempt, retries with backoff after connect errors, timeouts, 429 and
502/503/504 (`Retry-After` honoured), only 2xx an answer, a size cap on the body, auth from
the environment, and every secret masked in every message.

The reply is hostile input, read strictly: JSON (`gauntlet.strict_json`), a list `data` of
one object per text, their `index` values a permutation of 0..n-1 (the vectors are put back
in that order), each `embedding` a list of finite numbers (or, with `encoding_format: base64`,
base64 of little-endian float32), every vector of the dimension the pre-flight ask gave (and
the file's `dimensions`, when it names one). Anything else is a worded `EmbedderError`: a
vector is never made up or guessed.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import math
import struct
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.display import clipped, printable
from gauntlet.errors import TargetContractError, TargetError
from gauntlet.redact import Redactor
from gauntlet.semantic.embedder import EmbedderError, Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.client import HttpClient, HttpSettings, Pacing, Sleep, read_capped
from gauntlet.targets.configured import authenticator
from gauntlet.targets.exchange import MAX_REASON, AiohttpExchange, Exchange, Reply, Request
from gauntlet.targets.http import parse_header, request_secrets
from gauntlet.targets.target_file import LoadedEmbedder
from gauntlet.version import __version__

PROBE_TEXT = "gauntlet"
"""The one text of the pre-flight ask."""


def embeddings_url(url: str) -> str:
    """`<url>/embeddings`, or `url` itself when it already ends so; its query kept after the path.

    Azure OpenAI wants its `?api-version=...` on every request: a base URL that carries one
    keeps it where a query belongs, not in the middle of the path.
    """
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path += "/embeddings"
    return urlunsplit(parts._replace(path=path))


class RemoteEmbedder:
    """An OpenAI-compatible `/v1/embeddings` server, as a target file of that kind describes it.

    Args:
        loaded: The file, loaded (`gauntlet.targets.target_file.load_embedder_file`).
        redactor: Taught every secret the file read, and every token fetched later.
        exchange: What carries the requests (aiohttp by default).
        sleep: Waits between attempts (tests inject one that does not wait).
    """

    def __init__(
        self,
        loaded: LoadedEmbedder,
        *,
        redactor: Redactor,
        exchange: Exchange | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        spec = loaded.spec
        self.spec = spec
        self.source = loaded.source
        redactor.learn(*loaded.secrets)
        self.url = embeddings_url(spec.url)
        parts = urlsplit(self.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        self.host = f"{parts.hostname}:{port}"
        headers = [
            parse_header(f"{name}: {value}", loaded.environ_values)
            for name, value in spec.headers.items()
        ]
        redactor.learn(*request_secrets(self.url, headers))
        self._headers = CIMultiDictProxy(
            CIMultiDict(
                {"Content-Type": "application/json", "User-Agent": f"gauntlet/{__version__}"}
                | {header.name: header.value for header in headers}
            )
        )
        settings = HttpSettings(
            timeout=spec.http.timeout, retries=spec.http.retries, max_bytes=spec.http.max_bytes
        )
        self._client = HttpClient(
            exchange if exchange is not None else AiohttpExchange(2),
            settings,
            redactor=redactor,
            auth=authenticator(spec, loaded.environ_values),
            pacing=Pacing(sleep=sleep),
        )
        self._dimension: int | None = None

    async def open(self) -> EmbedderFingerprint:
        """Ask one text (the pre-flight ask); what the server turned out to be.

        Raises:
            EmbedderError: the server cannot be reached, or its answer is not one vector.
        """
        (vector,), named = await self._ask([PROBE_TEXT], dimension=self.spec.dimensions)
        self._dimension = len(vector)
        # The name goes into results and packs: a server that echoes a secret there is masked.
        model = self._client.redactor.text(named if named is not None else self.spec.model)
        return EmbedderFingerprint(
            kind="openai-embeddings",
            model=clipped(printable(model), 200),
            dimension=len(vector),
            host=self.host,
        )

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order, `batch` texts a request.

        Raises:
            EmbedderError: the server failed, or answered with something that is not one
                vector of the pre-flight ask's dimension per text.
        """
        if self._dimension is None:
            raise EmbedderError(f"{self.source}: the embedder was asked before it was opened")
        vectors: list[Vector] = []
        size = self.spec.batch
        for start in range(0, len(texts), size):
            got, _ = await self._ask(list(texts[start : start + size]), dimension=self._dimension)
            vectors.extend(got)
        return vectors

    async def aclose(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def _ask(
        self, texts: list[str], *, dimension: int | None
    ) -> tuple[list[Vector], str | None]:
        spec = self.spec
        body: dict[str, Any] = {
            "model": spec.model,
            "input": texts,
            "encoding_format": spec.encoding_format,
        }
        if spec.dimensions is not None:
            body["dimensions"] = spec.dimensions
        request = Request(
            "POST",
            self.url,
            self._headers,
            json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass"),
        )
        max_bytes = spec.http.max_bytes

        async def read(reply: Reply) -> bytes:
            return await read_capped(reply, max_bytes)

        try:
            called = await self._client.call(request, read)
        except TargetError as exc:
            raise EmbedderError(f"{self.source}: the embedder at {self.host}: {exc}") from None
        try:
            return _vectors(called.value, len(texts), spec.encoding_format, dimension)
        except _Refused as refused:
            said = self._client.redactor.text(str(refused))
            raise EmbedderError(
                f"{self.source}: the embedder at {self.host} answered {len(texts)} "
                f"text{'s' if len(texts) != 1 else ''} with {clipped(printable(said), MAX_REASON)}"
            ) from None


class _Refused(Exception):
    """Internal: why a reply is not the vectors asked for."""


def _vectors(
    raw: bytes, count: int, encoding: str, dimension: int | None
) -> tuple[list[Vector], str | None]:
    """The vectors of one reply, in the order of the texts asked, and the model it names."""
    try:
        reply = loads(raw, "a body that")
    except TargetContractError as exc:  # "a body that is not JSON: ...", "... holds NaN"
        raise _Refused(str(exc)) from None
    if not isinstance(reply, dict):
        raise _Refused(f"{json_kind(reply)}, not an object with `data`")
    data = reply.get("data")
    if not isinstance(data, list):
        shown = "no `data`" if "data" not in reply else f"`data` that is {json_kind(data)}"
        raise _Refused(f"{shown}, not a list of embeddings")
    if len(data) != count:
        raise _Refused(f"{len(data)} vectors in `data`")
    placed: list[Vector | None] = [None] * count
    for position, item in enumerate(data):
        if not isinstance(item, dict) or "embedding" not in item:
            raise _Refused(f"item {position} of `data` that is {json_kind(item)}, not an embedding")
        index = item.get("index", position)
        if type(index) is not int or not 0 <= index < count or placed[index] is not None:
            raise _Refused(
                f"an `index` {clipped(printable(repr(index)), 40)} at item {position}: the "
                f"indexes must be 0 to {count - 1}, each once"
            )
        vector = _vector(item["embedding"], position, encoding)
        wanted = dimension if dimension is not None else len(placed[0] or vector)
        if len(vector) != wanted:
            raise _Refused(
                f"a vector of {len(vector)} numbers at item {position}, where the dimension "
                f"is {wanted}"
            )
        placed[index] = vector
    model = reply.get("model")
    named = model if isinstance(model, str) and model.strip() else None
    return [vector for vector in placed if vector is not None], named


def _vector(embedding: object, position: int, encoding: str) -> Vector:
    where = f"item {position}"
    if encoding == "base64":
        if not isinstance(embedding, str):
            raise _Refused(f"{where}'s embedding that is {json_kind(embedding)}, not base64")
        try:
            packed = base64.b64decode(embedding, validate=True)
        except (binascii.Error, ValueError):
            raise _Refused(f"{where}'s embedding that is not base64") from None
        if not packed or len(packed) % 4:
            raise _Refused(
                f"{where}'s embedding of {len(packed)} bytes, not a whole number of float32s"
            )
        numbers: list[object] = list(struct.unpack(f"<{len(packed) // 4}f", packed))
    elif isinstance(embedding, list) and embedding:
        numbers = embedding
    else:
        raise _Refused(f"{where}'s embedding that is {json_kind(embedding)}, not a list of numbers")
    vector: list[float] = []
    for number in numbers:
        if type(number) not in (int, float):  # bool is not a number here
            raise _Refused(f"{where}'s embedding holding {json_kind(number)}, not a number")
        value = float(number)  # type: ignore[arg-type]
        if not math.isfinite(value):
            raise _Refused(f"{where}'s embedding holding a number that is not finite")
        vector.append(value)
    return tuple(vector)


__all__ = ["PROBE_TEXT", "RemoteEmbedder", "embeddings_url"]
