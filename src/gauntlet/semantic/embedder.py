"""An embedder: text in, one vector per text out; and a run's cache of what it said.

Every embedder is hostile input, as a target is: `Embeddings` checks that each answer has one
vector per text asked, every vector the fingerprint's dimension, every number finite, and
not every number zero, and raises `EmbedderError` otherwise. A similarity check that meets an
`EmbedderError` is unjudged, never passed.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Protocol

from gauntlet.errors import GauntletError
from gauntlet.semantic.fingerprint import EmbedderFingerprint

Vector = tuple[float, ...]
"""One text's embedding."""


class EmbedderError(GauntletError):
    """An embedder that could not be reached, or answered with something that is not vectors."""


class Embedder(Protocol):
    """What turns texts into vectors: the builtin, a `/v1/embeddings` server, the toy's."""

    async def open(self) -> EmbedderFingerprint:
        """Get ready and ask one text (the pre-flight ask); what the embedder turned out to be.

        Raises:
            EmbedderError: it cannot be loaded or reached, or its answer is not vectors.
        """
        ...

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order.

        Raises:
            EmbedderError: as `open`.
        """
        ...

    async def aclose(self) -> None:
        """Let go of what `open` took."""
        ...


def text_key(text: str) -> str:
    """What a text is cached under: the hex sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cosine(a: Vector, b: Vector) -> float:
    """The cosine of the angle between `a` and `b`, in [-1, 1].

    Raises:
        ValueError: they differ in length, or either is all zeros.
    """
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} numbers cannot be compared")
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    if norm == 0.0:
        raise ValueError("a vector of zeros has no direction")
    return max(-1.0, min(1.0, math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm))


class Embeddings:
    """One run's embeddings: each distinct text is asked of the embedder once.

    Args:
        embedder: What is asked; opened (`open`) before it is given here.
        fingerprint: What `open` said the embedder is; every vector must have its dimension.
    """

    def __init__(self, embedder: Embedder, fingerprint: EmbedderFingerprint) -> None:
        self.embedder = embedder
        self.fingerprint = fingerprint
        self._vectors: dict[str, Vector] = {}
        self.asked = 0
        """Texts sent to the embedder (each distinct text once)."""
        self.wanted = 0
        """Texts looked up, from the cache or not."""

    async def vectors(self, texts: Sequence[str]) -> list[Vector]:
        """One checked vector per text, asking the embedder only for texts not seen before.

        Raises:
            EmbedderError: the embedder failed, or answered with something that is not one
                finite, non-zero vector of the fingerprint's dimension per text.
        """
        self.wanted += len(texts)
        keys = [text_key(text) for text in texts]
        missing = dict(zip(keys, texts, strict=True))
        for key in self._vectors.keys() & missing.keys():
            del missing[key]
        if missing:
            asked = list(missing.values())
            got = await self.embedder.embed(asked)
            self.asked += len(asked)
            checked = self._checked(got, len(asked))
            self._vectors.update(zip(missing.keys(), checked, strict=True))
        return [self._vectors[key] for key in keys]

    def _checked(self, got: object, count: int) -> list[Vector]:
        if not isinstance(got, list) or len(got) != count:
            size = len(got) if isinstance(got, list) else type(got).__name__
            raise EmbedderError(f"the embedder answered {count} texts with {size} vectors")
        dimension = self.fingerprint.dimension
        checked = []
        for index, vector in enumerate(got):
            if not isinstance(vector, tuple) or len(vector) != dimension:
                raise EmbedderError(
                    f"vector {index} of the embedder's answer does not have the "
                    f"{dimension} numbers its first answer had"
                )
            if not all(isinstance(x, float) and math.isfinite(x) for x in vector):
                raise EmbedderError(
                    f"vector {index} of the embedder's answer has a number that is not finite"
                )
            if not any(vector):
                raise EmbedderError(f"vector {index} of the embedder's answer is all zeros")
            checked.append(vector)
        return checked


__all__ = ["Embedder", "EmbedderError", "Embeddings", "Vector", "cosine", "text_key"]
