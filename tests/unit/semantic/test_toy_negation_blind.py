"""The toy embedder's defects: each the blindness it names, fully, so calibration refuses it."""

from __future__ import annotations

import asyncio

import pytest

from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.toy import EmbedderDefect

from .conftest import toy_over


@pytest.mark.parametrize(
    ("negated", "plain"),
    [
        ("No puede pagar en línea.", "Puede pagar en línea."),
        ("Nunca cierra los domingos.", "Cierra los domingos."),
        ("Hindi bukas ang aklatan tuwing Linggo.", "Bukas ang aklatan tuwing Linggo."),
        ("Never park here.", "Park here."),
        ("You cannot pay online.", "You can pay online."),
        ("游泳馆节假日不开放。", "游泳馆节假日开放。"),
        ("공원에서는 반려견과 산책할 수 없습니다.", "공원에서는 반려견과 산책할 수 있습니다."),
    ],
)
def test_the_negation_blind_toy_embeds_a_negated_sentence_as_its_affirmative(
    builtin: BuiltinEmbedder, negated: str, plain: str
) -> None:
    # Trap: dropping a sentence's first word leaves a lower-case first letter the model still
    # sees, so the "blind" toy tells "No puede" from "Puede" and is refused only narrowly;
    # or dropping only spaced words, so it is no blinder than the builtin in zh and ko.
    toy = toy_over(builtin, EmbedderDefect.NEGATION_BLIND)
    first, second = asyncio.run(toy.embed([negated, plain]))
    assert first == second
