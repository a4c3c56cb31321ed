"""`RemoteEmbedder`: a target file of kind `openai-embeddings`, against servers on 127.0.0.1.

Every reply is hostile input: each way a reply can fail to be one finite vector per text, of
one dimension, is a worded `EmbedderError`, never a traceback and never a vector made up.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import struct
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from gauntlet.errors import ConfigErrors
from gauntlet.redact import Redactor
from gauntlet.semantic.embedder import EmbedderError, Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.remote import RemoteEmbedder, embeddings_url
from gauntlet.targets.target_file import load_embedder_file, load_target_file
from gauntlet.targets.toy.openai import serving_app

from ...cli_helpers import RunCli
from ...toy_servers import running_app

pytestmark = pytest.mark.network

Reply = Callable[[list[str], dict[str, Any]], Awaitable[web.StreamResponse]]
"""Answers one request: the texts asked, and the whole request body."""

DIMENSION = 3


def _vector(text: str) -> list[float]:
    """A vector a healthy server would give `text`: its length, its vowels, one."""
    return [float(len(text)), float(sum(ch in "aeiou" for ch in text)), 1.0]


def _data(texts: Sequence[str]) -> list[dict[str, Any]]:
    return [
        {"object": "embedding", "index": index, "embedding": _vector(text)}
        for index, text in enumerate(texts)
    ]


def _json(body: object, status: int = 200, **headers: str) -> web.Response:
    return web.Response(
        status=status, text=json.dumps(body), content_type="application/json", headers=headers
    )


async def healthy(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
    return _json({"object": "list", "model": "served-model", "data": _data(texts)})


def _later(bad: Reply) -> Reply:
    """Answer the pre-flight ask (one text) well, and every later request with `bad`."""

    async def reply(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        if texts == ["gauntlet"]:
            return await healthy(texts, body)
        return await bad(texts, body)

    return reply


def _body(make: Callable[[list[str]], object]) -> Reply:
    async def reply(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        return _json(make(texts))

    return reply


def _raw(text: str, status: int = 200) -> Reply:
    async def reply(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        return web.Response(status=status, text=text, content_type="application/json")

    return reply


class Server:
    """What a test's server saw."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    def app(self) -> web.Application:
        async def embeddings(request: web.Request) -> web.StreamResponse:
            body = await request.json()
            self.bodies.append(body)
            self.headers.append(dict(request.headers))
            asked = body["input"]
            return await self.reply([asked] if isinstance(asked, str) else list(asked), body)

        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_post("/v1/embeddings", embeddings)
        return app


def _file(tmp_path: Path, port: int, extra: str = "", url: str | None = None) -> Path:
    path = tmp_path / "embedder.yaml"
    url = url or f"http://127.0.0.1:{port}/v1"
    http = "" if "http:" in extra else "http: {timeout: 2, retries: 1}\n"
    path.write_text(
        f"version: 1\nkind: openai-embeddings\nurl: {url}\nmodel: asked-model\n{http}{extra}",
        encoding="utf-8",
    )
    return path


def _embed(
    tmp_path: Path,
    reply: Reply,
    texts: Sequence[str] = ("one", "two", "three"),
    extra: str = "",
    *,
    environ: dict[str, str] | None = None,
    redactor: Redactor | None = None,
) -> tuple[EmbedderFingerprint, list[Vector], Server]:
    server = Server(reply)

    async def go() -> tuple[EmbedderFingerprint, list[Vector]]:
        async with serving_app(server.app()) as port:
            loaded = load_embedder_file(_file(tmp_path, port, extra), environ=environ or {})
            embedder = RemoteEmbedder(loaded, redactor=redactor or Redactor(), sleep=_no_wait)
            try:
                fingerprint = await embedder.open()
                return fingerprint, await embedder.embed(texts)
            finally:
                await embedder.aclose()

    fingerprint, vectors = asyncio.run(go())
    return fingerprint, vectors, server


async def _no_wait(seconds: float) -> None:
    del seconds


def _refused(tmp_path: Path, reply: Reply, extra: str = "") -> str:
    with pytest.raises(EmbedderError) as raised:
        _embed(tmp_path, reply, extra=extra)
    return str(raised.value)


# ---------------------------------------------------------------- a healthy server


def test_the_pre_flight_ask_fingerprints_the_model_the_server_names(tmp_path: Path) -> None:
    # Trap: the fingerprint recording the model asked for, which a server may ignore, so two
    # servers that ran different models would share one calibration record.
    fingerprint, vectors, server = _embed(tmp_path, healthy)
    assert fingerprint.kind == "openai-embeddings"
    assert fingerprint.model == "served-model"
    assert fingerprint.dimension == DIMENSION
    assert fingerprint.host is not None and fingerprint.host.startswith("127.0.0.1:")
    assert vectors == [tuple(_vector(text)) for text in ("one", "two", "three")]
    assert server.bodies[0]["input"] == ["gauntlet"]
    assert server.bodies[0]["model"] == "asked-model"
    assert server.bodies[0]["encoding_format"] == "float"


def test_a_reply_that_names_no_model_is_fingerprinted_by_the_model_asked(tmp_path: Path) -> None:
    # Trap: a missing `model` crashing the fingerprint, or recording an empty name.
    fingerprint, _, _ = _embed(tmp_path, _body(lambda texts: {"data": _data(texts)}))
    assert fingerprint.model == "asked-model"


def test_texts_are_sent_in_batches_of_the_files_size(tmp_path: Path) -> None:
    # Trap: every text in one request, past the server's own limit on inputs.
    texts = [f"text {n}" for n in range(7)]
    _, vectors, server = _embed(tmp_path, healthy, texts, "batch: 3\ndimensions: 3\n")
    assert [body["input"] for body in server.bodies[1:]] == [texts[0:3], texts[3:6], texts[6:]]
    assert all(body["dimensions"] == 3 for body in server.bodies)
    assert vectors == [tuple(_vector(text)) for text in texts]


def test_a_reply_in_another_order_is_put_back_in_order_by_its_index(tmp_path: Path) -> None:
    # Trap: reading `data` in the order it came, giving each text another text's vector.
    _, vectors, _ = _embed(tmp_path, _body(lambda texts: {"data": list(reversed(_data(texts)))}))
    assert vectors == [tuple(_vector(text)) for text in ("one", "two", "three")]


def test_base64_vectors_are_little_endian_float32(tmp_path: Path) -> None:
    # Trap: decoding in the machine's byte order, or as float64.
    def encoded(texts: list[str]) -> object:
        data = _data(texts)
        for item in data:
            item["embedding"] = base64.b64encode(struct.pack("<3f", *item["embedding"])).decode()
        return {"data": data}

    _, vectors, server = _embed(tmp_path, _body(encoded), extra="encoding_format: base64\n")
    assert server.bodies[0]["encoding_format"] == "base64"
    assert vectors == [tuple(_vector(text)) for text in ("one", "two", "three")]


def test_the_api_key_is_sent_and_never_shown(tmp_path: Path) -> None:
    # Trap: a key echoed in an error body printed as it came.
    key = "sk-embed-5ecret-9f1"
    redactor = Redactor()

    async def echo(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        return _json({"error": f"bad key {key}"}, status=400)

    with pytest.raises(EmbedderError) as raised:
        _embed(
            tmp_path,
            echo,
            extra="api_key_env: EMBED_KEY\n",
            environ={"EMBED_KEY": key},
            redactor=redactor,
        )
    assert key not in str(raised.value)
    assert "HTTP 400" in str(raised.value)


def test_a_model_name_that_echoes_the_key_is_masked_in_the_fingerprint(tmp_path: Path) -> None:
    # Trap: the reply's `model` copied into the fingerprint, and from there into results and
    # the evidence pack, by a server that echoes the request's credentials.
    key = "sk-embed-echoed-4b2a"

    async def echo(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        return _json({"model": f"m\n{key}", "data": _data(texts)})

    fingerprint, _, server = _embed(
        tmp_path, echo, extra="api_key_env: EMBED_KEY\n", environ={"EMBED_KEY": key}
    )
    assert server.headers[0]["Authorization"] == f"Bearer {key}"
    assert key not in fingerprint.model
    assert "\n" not in fingerprint.model


def test_a_429_is_retried_as_retry_after_says(tmp_path: Path) -> None:
    # Trap: an embedder's transport that gives up at the first 429, where targets retry.
    calls: list[int] = []

    async def busy(texts: list[str], body: dict[str, Any]) -> web.StreamResponse:
        calls.append(1)
        if len(calls) == 1:
            return _json({"error": "slow down"}, status=429, **{"Retry-After": "1"})
        return await healthy(texts, body)

    fingerprint, _, _ = _embed(tmp_path, busy)
    assert fingerprint.model == "served-model"
    assert len(calls) == 2 + 1  # the 429, the pre-flight again, then the texts


# ---------------------------------------------------------------- hostile replies


def test_an_http_error_is_an_embedder_error(tmp_path: Path) -> None:
    # Trap: a refused request read as an answer with no vectors.
    assert "HTTP 500" in _refused(tmp_path, _raw('{"error": "down"}', status=500))


def test_a_reply_that_is_not_json_is_an_embedder_error(tmp_path: Path) -> None:
    # Trap: a traceback from json.loads on an HTML error page served with status 200.
    assert "not JSON" in _refused(tmp_path, _raw("<html>oops</html>"))


@pytest.mark.parametrize(
    "body", [{}, {"data": None}, {"data": {"0": [1.0]}}, [], "data", {"data": "[]"}]
)
def test_a_reply_without_a_list_of_data_is_an_embedder_error(tmp_path: Path, body: object) -> None:
    # Trap: a missing or mistyped `data` read as no vectors, or raising KeyError.
    assert "data" in _refused(tmp_path, _body(lambda texts: body))


@pytest.mark.parametrize("change", [-1, 1])
def test_a_reply_with_the_wrong_count_of_vectors_is_an_embedder_error(
    tmp_path: Path, change: int
) -> None:
    # Trap: zip() pairing the texts with however many vectors came, silently dropping some.
    def miscounted(texts: list[str]) -> object:
        data = _data([*texts, "extra"]) if change > 0 else _data(texts)[:-1]
        return {"data": data}

    assert "vectors" in _refused(tmp_path, _later(_body(miscounted)))


@pytest.mark.parametrize(
    "indexes", [[0, 0, 1], [0, 1, 3], [1, 2, 3], [-1, 0, 1], [0, 1, "2"], [0, 1, True], [0, 1, 2.0]]
)
def test_indexes_that_are_not_a_permutation_are_an_embedder_error(
    tmp_path: Path, indexes: list[object]
) -> None:
    # Trap: a repeated or out-of-range index giving one text two vectors and another none.
    def reindexed(texts: list[str]) -> object:
        data = _data(texts)
        for item, index in zip(data, indexes, strict=True):
            item["index"] = index
        return {"data": data}

    assert "index" in _refused(tmp_path, _later(_body(reindexed)))


@pytest.mark.parametrize(
    "item", [None, "text", [1.0, 2.0, 3.0], {"index": 0}, {"index": 0, "embedding": None}]
)
def test_an_item_that_is_not_an_embedding_is_an_embedder_error(
    tmp_path: Path, item: object
) -> None:
    # Trap: a KeyError or TypeError escaping as a traceback.
    assert "item 0" in _refused(tmp_path, _body(lambda texts: {"data": [item]}))


@pytest.mark.parametrize("number", ["1", True, None, [1.0], {"x": 1}])
def test_a_vector_with_something_not_a_number_is_an_embedder_error(
    tmp_path: Path, number: object
) -> None:
    # Trap: True read as 1.0, or "1" as a number.
    def spoiled(texts: list[str]) -> object:
        data = _data(texts)
        data[0]["embedding"][1] = number
        return {"data": data}

    assert "not a number" in _refused(tmp_path, _body(spoiled))


@pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_vector_with_a_number_that_is_not_finite_is_an_embedder_error(
    tmp_path: Path, written: str
) -> None:
    # Trap: a NaN vector whose cosine is NaN, and NaN >= threshold is False only by luck.
    body = '{"data": [{"index": 0, "embedding": [1.0, WRITTEN, 1.0]}]}'.replace("WRITTEN", written)
    said = _refused(tmp_path, _raw(body))
    assert "which JSON does not allow" in said or "beyond a 64-bit float's range" in said


def test_a_vector_of_another_dimension_than_the_first_is_an_embedder_error(
    tmp_path: Path,
) -> None:
    # Trap: vectors of two lengths compared by zip, which stops at the shorter.
    def longer(texts: list[str]) -> object:
        data = _data(texts)
        data[1]["embedding"].append(2.0)
        return {"data": data}

    assert "dimension" in _refused(tmp_path, _later(_body(longer)))


def test_a_vector_of_another_dimension_than_the_file_asks_is_an_embedder_error(
    tmp_path: Path,
) -> None:
    # Trap: a server that ignores `dimensions` recorded under a dimension it never gave.
    assert "dimension" in _refused(tmp_path, healthy, extra="dimensions: 8\n")


@pytest.mark.parametrize(
    "encoded",
    [
        base64.b64encode(struct.pack("<2f", 1.0, 2.0)).decode(),  # two numbers, not three
        base64.b64encode(b"\x00" * 13).decode(),  # not a whole number of float32s
        "not base64!",
        base64.b64encode(struct.pack("<3f", 1.0, math.nan, 1.0)).decode(),
        [1.0, 1.0, 1.0],  # numbers where base64 was asked
    ],
)
def test_base64_that_is_not_the_vector_is_an_embedder_error(
    tmp_path: Path, encoded: object
) -> None:
    # Trap: struct.error or binascii.Error escaping, or NaN decoded as a number.
    def reply(texts: list[str]) -> object:
        return {"data": [{"index": 0, "embedding": encoded}]}

    _refused(tmp_path, _body(reply), extra="encoding_format: base64\n")


def test_a_reply_over_the_size_limit_is_an_embedder_error(tmp_path: Path) -> None:
    # Trap: a reply of any size read whole into memory.
    huge = {"data": [{"index": 0, "embedding": [1.0] * 100_000}]}
    said = _refused(
        tmp_path, _body(lambda texts: huge), extra="http: {retries: 0, max_bytes: 10000}\n"
    )
    assert "larger than" in said


def test_a_server_that_cannot_be_reached_is_an_embedder_error(tmp_path: Path) -> None:
    # Trap: a ClientConnectorError raised as a traceback from the pre-flight ask.
    path = _file(tmp_path, 9, url="http://127.0.0.1:9/v1")
    embedder = RemoteEmbedder(
        load_embedder_file(path, environ={}), redactor=Redactor(), sleep=_no_wait
    )

    async def go() -> None:
        try:
            await embedder.open()
        finally:
            await embedder.aclose()

    with pytest.raises(EmbedderError, match="127.0.0.1:9"):
        asyncio.run(go())


def test_embed_before_open_is_an_embedder_error(tmp_path: Path) -> None:
    # Trap: vectors of no known dimension handed out before the pre-flight ask.
    path = _file(tmp_path, 9)
    embedder = RemoteEmbedder(load_embedder_file(path, environ={}), redactor=Redactor())
    with pytest.raises(EmbedderError, match="before it was opened"):
        asyncio.run(embedder.embed(["x"]))
    asyncio.run(embedder.aclose())


# ---------------------------------------------------------------- the file


@pytest.mark.parametrize(
    ("url", "sent"),
    [
        ("http://h.test/v1", "http://h.test/v1/embeddings"),
        ("http://h.test/v1/", "http://h.test/v1/embeddings"),
        ("http://h.test/v1/embeddings", "http://h.test/v1/embeddings"),
        (
            "https://a.test/openai/deployments/d?api-version=2024-02-01",
            "https://a.test/openai/deployments/d/embeddings?api-version=2024-02-01",
        ),
    ],
)
def test_the_url_is_the_base_or_the_whole_embeddings_url(url: str, sent: str) -> None:
    # Trap: `/v1/embeddings/embeddings`, or a query cut into the middle of the path.
    assert embeddings_url(url) == sent


def test_an_embedders_file_given_as_a_target_is_a_located_error(tmp_path: Path) -> None:
    # Trap: an embeddings server asked the suite's chat questions, every case unscoreable.
    path = _file(tmp_path, 9)
    with pytest.raises(ConfigErrors) as raised:
        load_target_file(path, environ={})
    (error,) = raised.value.errors
    assert error.line == 2
    assert "describes an embedder, not a target" in str(error)


def test_a_targets_file_given_as_an_embedder_is_a_located_error(tmp_path: Path) -> None:
    # Trap: a chat server given to --embedder, asked for vectors it never gives.
    path = tmp_path / "chat.yaml"
    path.write_text("version: 1\nkind: gauntlet\nurl: http://native.test/ask\n", encoding="utf-8")
    with pytest.raises(ConfigErrors) as raised:
        load_embedder_file(path, environ={})
    (error,) = raised.value.errors
    assert error.line == 2
    assert "describes a target, not an embedder" in str(error)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("batch: 0", "batch"),
        ("batch: 2049", "batch"),
        ("encoding_format: float16", "encoding_format"),
        ("dimensions: 0", "dimensions"),
        ("api_key_env: lower case", "api_key_env"),
        ("temperature: 0", "temperature"),
    ],
)
def test_an_embedders_file_with_a_bad_key_is_a_located_error(
    tmp_path: Path, line: str, why: str
) -> None:
    # Trap: a key accepted and ignored, or a batch the server cannot take.
    path = _file(tmp_path, 9, extra=f"{line}\n")
    with pytest.raises(ConfigErrors) as raised:
        load_embedder_file(path, environ={})
    (error,) = raised.value.errors
    assert error.line == 6
    assert why in str(error)


def test_an_unset_api_key_variable_is_a_located_error(tmp_path: Path) -> None:
    # Trap: a request sent with `Bearer ` and nothing after it.
    path = _file(tmp_path, 9, extra="api_key_env: EMBED_KEY\n")
    with pytest.raises(ConfigErrors) as raised:
        load_embedder_file(path, environ={})
    (error,) = raised.value.errors
    assert "EMBED_KEY is not set" in str(error)


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "targets" / "toy-embeddings.yaml"


def test_run_refuses_an_embedders_file_as_its_target_at_its_kind(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: `run --target embedder.yaml` asking an embeddings server the suite's questions,
    # every case unscoreable and a results file written as if something ran.
    out = tmp_path / "r.json"
    result = run_cli("run", "--target", str(EXAMPLE), "--out", str(out))
    assert result.code == 2, result.show()
    assert f"{EXAMPLE}:9:7: kind: openai-embeddings describes an embedder, not a target" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_probe_of_an_embedders_file_shows_its_pre_flight_ask(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: probe refusing the one file kind it could check before calibration needs it.
    with running_app(Server(healthy).app()) as base_url:
        path = _file(tmp_path, 0, url=base_url)
        result = run_cli("probe", "--target", str(path))
    assert result.code == 0, result.show()
    assert "an embedder (kind openai-embeddings), for --embedder" in result.stdout
    assert "model      served-model" in result.stdout
    assert "dimension  3" in result.stdout


def test_probe_of_an_embedder_that_cannot_be_reached_exits_2(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: a failed pre-flight ask printed as a traceback, or exiting 0.
    path = _file(tmp_path, 9, url="http://127.0.0.1:9/v1", extra="http: {retries: 0}\n")
    result = run_cli("probe", "--target", str(path))
    assert result.code == 2, result.show()
    assert "127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.stderr
