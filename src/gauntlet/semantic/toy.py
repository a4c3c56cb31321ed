"""The toy embedder: the builtin with a defect, so calibration and the guards are seen failing.

Healthy, it is the builtin (`gauntlet.semantic.builtin`) under another fingerprint. Each
defect breaks it the way embedders are known to break:

- `similar_everything`: every text gets one vector, so everything is "the same meaning".
- `negation_blind`: negation words (every language's, `gauntlet.semantic.guards.NEGATIONS`)
  are dropped before embedding, and the text casefolded, so "you can" and "you cannot" are
  one text to it, and so are "No puede..." and "Puede..." (a dropped first word would
  otherwise leave a lower-case first letter the model sees). Chinese negation characters
  (`NEGATION_PARTS["zh"]`: 不, 没...) are dropped too, and Korean 없 ("there is not") is read
  as 있 ("there is"), so it is blind in those languages as well.
- `english_only`: a text the toys do not read as English gets a vector drawn from its bytes,
  so a Spanish rewording is as far from its original as any other text.

Served over `/v1/embeddings` by `gauntlet.semantic.toy_server` for the transport's tests.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from enum import StrEnum

import regex

from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.embedder import Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.guards import NEGATION_PARTS, NEGATIONS
from gauntlet.targets.toy.language import language_of


class EmbedderDefect(StrEnum):
    """A defect the toy embedder can be given."""

    SIMILAR_EVERYTHING = "similar_everything"
    NEGATION_BLIND = "negation_blind"
    ENGLISH_ONLY = "english_only"


_WORD = regex.compile(r"[\p{L}\p{M}'\u2019]+")
_NEGATIONS = frozenset(word for words in NEGATIONS.values() for word in words)


class ToyEmbedder:
    """The builtin, with `defects` injected."""

    def __init__(self, defects: Iterable[EmbedderDefect] = ()) -> None:
        self.defects = frozenset(defects)
        self._builtin = BuiltinEmbedder()

    async def open(self) -> EmbedderFingerprint:
        """Open the builtin under it; the toy's fingerprint names the defects."""
        builtin = await self._builtin.open()
        return builtin.model_copy(
            update={
                "kind": "toy",
                "model": f"toy over {builtin.model}",
                "defects": tuple(sorted(self.defects)),
            }
        )

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """The builtin's vectors, as each defect bends them."""
        if EmbedderDefect.SIMILAR_EVERYTHING in self.defects:
            (one,) = await self._builtin.embed(["everything"])
            return [one for _ in texts]
        if EmbedderDefect.NEGATION_BLIND in self.defects:
            texts = [_without_negation(text).casefold() for text in texts]
        vectors = await self._builtin.embed(texts)
        if EmbedderDefect.ENGLISH_ONLY in self.defects:
            vectors = [
                vector if language_of(text) == "en" else _noise(text, len(vector))
                for text, vector in zip(texts, vectors, strict=True)
            ]
        return vectors

    async def aclose(self) -> None:
        """Close the builtin under it."""
        await self._builtin.aclose()


_UNDONE = {"cannot": "can", "can't": "can", "won't": "will"}
"""English negations that are a verb with its negation fused: the verb is kept."""

_UNDONE_PARTS = str.maketrans({**dict.fromkeys(NEGATION_PARTS["zh"]), "없": "있"})
"""Chinese negation characters dropped, and Korean 없 (there is not) read as 있 (there is)."""


def _without_negation(text: str) -> str:
    def kept(match: regex.Match[str]) -> str:
        word = match.group().casefold().replace("\u2019", "'")
        if word in _UNDONE:
            return _UNDONE[word]
        if word.endswith("n't"):
            return word[: -len("n't")]
        return "" if word in _NEGATIONS else match.group()

    return " ".join(_WORD.sub(kept, text.translate(_UNDONE_PARTS)).split())


def _noise(text: str, size: int) -> Vector:
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8])
    draw = random.Random(seed)  # noqa: S311 - a defect's noise, not a secret
    return tuple(draw.gauss(0.0, 1.0) for _ in range(size))


__all__ = ["EmbedderDefect", "ToyEmbedder"]
