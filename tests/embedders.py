"""The embedders tests share: each loaded once a session (the model takes about 1.5 s).

An opened embedder holds no event loop (the model runs in a thread), so one opened here
serves every test, each in its own `asyncio.run`.
"""

from __future__ import annotations

import asyncio
from functools import cache

from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder


@cache
def opened_toy(*defects: EmbedderDefect) -> tuple[ToyEmbedder, EmbedderFingerprint]:
    """The toy embedder with `defects`, opened once a session, and its fingerprint."""
    embedder = ToyEmbedder(defects)
    return embedder, asyncio.run(embedder.open())


def toy_embeddings(*defects: EmbedderDefect) -> Embeddings:
    """A fresh run's cache over the session's toy embedder with `defects`."""
    embedder, fingerprint = opened_toy(*defects)
    return Embeddings(embedder, fingerprint)
