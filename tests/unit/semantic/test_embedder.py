"""`Embeddings`, a run's cache of vectors that checks each one, and `cosine`."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence

import pytest

from gauntlet.semantic.embedder import EmbedderError, Embeddings, Vector, cosine, text_key
from gauntlet.semantic.fingerprint import EmbedderFingerprint

FINGERPRINT = EmbedderFingerprint(kind="toy", model="counting", dimension=2)


class Counting:
    """An embedder that records every text asked, and answers what `answer` makes of them."""

    def __init__(self, answer: object = None) -> None:
        self.asked: list[list[str]] = []
        self.answer = answer

    async def open(self) -> EmbedderFingerprint:
        return FINGERPRINT

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.asked.append(list(texts))
        if self.answer is not None:
            return self.answer  # type: ignore[return-value]
        return [(float(len(text)), 1.0) for text in texts]

    async def aclose(self) -> None:
        pass


def test_each_distinct_text_is_asked_once_across_calls() -> None:
    # Trap: a run that embeds the same gold answer once per case, 2,000 times.
    embedder = Counting()
    embeddings = Embeddings(embedder, FINGERPRINT)

    async def go() -> list[list[Vector]]:
        first = await embeddings.vectors(["a", "bb", "a"])
        second = await embeddings.vectors(["bb", "ccc", "a", "ccc"])
        third = await embeddings.vectors(["a"])
        return [first, second, third]

    first, second, third = asyncio.run(go())
    assert embedder.asked == [["a", "bb"], ["ccc"]]
    assert first == [(1.0, 1.0), (2.0, 1.0), (1.0, 1.0)]
    assert second == [(2.0, 1.0), (3.0, 1.0), (1.0, 1.0), (3.0, 1.0)]
    assert third == [(1.0, 1.0)]
    assert (embeddings.asked, embeddings.wanted) == (3, 8)


def test_texts_are_cached_by_their_exact_bytes() -> None:
    # Trap: a key that folds case or trims space, so "Not open" answered for "not open".
    assert len({text_key(text) for text in ("open", "Open", "open ", "ope\u0301n")}) == 4


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ((1.0, 2.0), "answered 1 texts with tuple vectors"),
        ([], "answered 1 texts with 0 vectors"),
        ([(1.0, 2.0), (1.0, 2.0)], "answered 1 texts with 2 vectors"),
        ([[1.0, 2.0]], "does not have the 2 numbers"),
        ([(1.0,)], "does not have the 2 numbers"),
        ([(1.0, 2.0, 3.0)], "does not have the 2 numbers"),
        ([(1, 2.0)], "not finite"),
        ([(True, 2.0)], "not finite"),
        ([(math.nan, 2.0)], "not finite"),
        ([(math.inf, 2.0)], "not finite"),
        ([("1", 2.0)], "not finite"),
        ([(0.0, -0.0)], "all zeros"),
    ],
)
def test_an_answer_that_is_not_one_finite_vector_per_text_is_an_embedder_error(
    answer: object, said: str
) -> None:
    # Trap: a vector of NaN, zeros or the wrong length reaching cosine, whose NaN compares
    # False with every threshold and whose zip stops at the shorter vector.
    embeddings = Embeddings(Counting(answer), FINGERPRINT)
    with pytest.raises(EmbedderError, match=said):
        asyncio.run(embeddings.vectors(["text"]))
    assert embeddings._vectors == {}  # nothing refused is kept for the next ask


def test_cosine_is_the_angle_between_two_vectors() -> None:
    # Trap: a dot product without the norms, which grows with the text's length.
    assert cosine((1.0, 0.0), (5.0, 0.0)) == 1.0
    assert cosine((1.0, 0.0), (0.0, 3.0)) == 0.0
    assert cosine((1.0, 2.0), (-2.0, -4.0)) == pytest.approx(-1.0)
    assert cosine((1.0, 1.0), (1.0, 0.0)) == pytest.approx(math.sqrt(0.5))


def test_cosine_stays_within_minus_one_and_one() -> None:
    # Trap: rounding putting a vector's cosine with itself at 1.0000000000000002.
    vector = (0.1, 0.2, 0.3, 1e-9, 7.0)
    assert -1.0 <= cosine(vector, vector) <= 1.0
    assert cosine(vector, vector) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("a", "b", "said"),
    [
        ((1.0, 2.0), (1.0, 2.0, 3.0), "vectors of 2 and 3 numbers"),
        ((0.0, 0.0), (1.0, 2.0), "no direction"),
        ((1.0, 2.0), (0.0, 0.0), "no direction"),
    ],
)
def test_cosine_refuses_vectors_it_cannot_compare(a: Vector, b: Vector, said: str) -> None:
    # Trap: zip() comparing the first numbers of two vectors of different models.
    with pytest.raises(ValueError, match=said):
        cosine(a, b)
