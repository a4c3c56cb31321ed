"""Faithfulness: claims split by sentence, supported by shared content words and every number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.trajectory.faithfulness import (
    content_words,
    faithfulness,
    sentences,
    source_text,
    supports,
)

HOURS = "Central Library: Monday to Friday 10 a.m. to 6 p.m.; Saturday 10 a.m. to 2 p.m."
HORARIO = "Biblioteca Central: de lunes a viernes de 10 a.m. a 6 p.m.; sábado de 10 a.m. a 2 p.m."


def test_sentences_end_at_stops_followed_by_a_capital_not_at_abbreviations() -> None:
    text = "It opens at 9 a.m. on Mondays. It is closed Sunday! Need more?\nCall 311."
    assert sentences(text) == [
        "It opens at 9 a.m. on Mondays.",
        "It is closed Sunday!",
        "Need more?",
        "Call 311.",
    ]


def test_a_decimal_is_not_a_sentence_end() -> None:
    assert sentences("The fee is 4.50 dollars. Pay online.") == [
        "The fee is 4.50 dollars.",
        "Pay online.",
    ]


def test_a_sentence_ends_at_a_full_stop_of_any_script() -> None:
    # Trap: only `.`, `!` and `?` followed by a space end a sentence, so a Chinese answer
    # (no space after `。`) is one claim however many it makes, and an answer drawn from two
    # tools' outputs is held to each output as a whole, where neither supports it.
    assert sentences("已上报：路灯故障，Oak大道。星期日，市政厅不开放！还要查别的吗？") == [
        "已上报：路灯故障，Oak大道。",
        "星期日，市政厅不开放！",
        "还要查别的吗？",
    ]
    assert sentences("पुस्तकालय खुला है। शनिवार को बंद है।") == [
        "पुस्तकालय खुला है।",
        "शनिवार को बंद है।",
    ]
    report = source_text({"ticket": "T-8550", "kind": "路灯故障", "location": "Oak大道"})
    hours = source_text({"facility": "市政厅", "day": "星期日", "open": False})
    answer = "已上报：路灯故障，Oak大道，工单号 T-8550。星期日，市政厅不开放。还要查别的吗？"
    assert faithfulness(answer, [report, hours], "zh", 0.5).score == 1.0


def test_function_words_and_single_letters_are_not_content_words() -> None:
    assert content_words("The library is open at 9 a.m.", "en") == {"library", "open", "9"}
    assert content_words("La biblioteca está abierta a las 9 a.m.", "es") == {
        "biblioteca",
        "abierta",
        "9",
    }


def test_a_language_without_a_list_keeps_every_word_of_two_letters_or_more() -> None:
    assert content_words("Le musée est ouvert", "fr") == {"le", "musee", "est", "ouvert"}


def test_a_faithful_answer_scores_one_in_english_and_spanish() -> None:
    english = faithfulness(
        "The Central Library is open Monday to Friday from 10 a.m. to 6 p.m.", [HOURS], "en", 0.5
    )
    spanish = faithfulness(
        "La Biblioteca Central abre de lunes a viernes de 10 a.m. a 6 p.m.", [HORARIO], "es", 0.5
    )
    assert (english.score, spanish.score) == (1.0, 1.0)


def test_a_changed_number_makes_a_claim_unsupported_whatever_the_overlap() -> None:
    # Every word but the hours is the source's: the numbers rule decides.
    found = faithfulness(
        "The Central Library is open Monday to Friday from 9 a.m. to 5 p.m. "
        "On Saturday it opens at 10 a.m.",
        [HOURS],
        "en",
        0.5,
    )
    assert found.score == 0.5
    assert found.unsupported == (
        "The Central Library is open Monday to Friday from 9 a.m. to 5 p.m.",
    )


def test_overlap_is_a_threshold_on_the_share_of_content_words() -> None:
    claim = content_words("Central Library parking garage", "en")  # 4 words, 2 in the source
    source = frozenset(content_words(HOURS, "en"))
    assert supports(claim, source, 0.5) is True
    assert supports(claim, source, 0.51) is False


def test_questions_and_wordless_sentences_are_not_claims() -> None:
    found = faithfulness("Sure! Anything else I can look up?", [HOURS], "en", 0.5)
    assert found.claims == ()
    assert found.score == 1.0


def test_any_source_may_support_a_claim_and_json_outputs_are_read_as_text() -> None:
    permit = source_text({"permit": "P-1042", "status": "approved"})
    found = faithfulness(
        "Permit P-1042 is approved. The library opens at 10 a.m.", [HOURS, permit], "en", 0.5
    )
    assert found.score == 1.0


def test_a_claim_supported_by_no_source_is_unsupported() -> None:
    assert faithfulness("Parking is free downtown.", [HOURS], "en", 0.5).score == 0.0


def test_accents_case_and_lookalikes_fold_before_comparing() -> None:
    found = faithfulness("El SÁBADO abre a las 10 а.m.", [HORARIO], "es", 0.5)  # Cyrillic а
    assert found.score == 1.0


@given(st.text(max_size=200), st.lists(st.text(max_size=200), max_size=3))
def test_the_score_is_always_a_fraction(answer: str, sources: list[str]) -> None:
    score = faithfulness(answer, sources, "en", 0.5).score
    assert 0.0 <= score <= 1.0


@given(st.text(max_size=200))
def test_an_answer_supports_itself(answer: str) -> None:
    assert faithfulness(answer, [answer], "en", 1.0).score == 1.0


@pytest.mark.parametrize(
    ("language", "text", "words"),
    [
        ("EN", "the library", {"library"}),
        ("en-US", "the library", {"library"}),
        ("es-MX", "la biblioteca", {"biblioteca"}),
        ("ES", "la biblioteca", {"biblioteca"}),
    ],
)
def test_a_region_or_case_in_the_tag_uses_the_languages_list(
    language: str, text: str, words: set[str]
) -> None:
    assert content_words(text, language) == words
