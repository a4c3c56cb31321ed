"""`is_readable` and `said_something`: silence in every shape is unreadable, prose never is."""

from __future__ import annotations

import string
import time
import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gauntlet.gates.readability import is_readable, said_something
from gauntlet.silence import SILENT_SHAPES
from tests.invisibles import BLANK_FILLERS, invisibles
from tests.unit.gates.builders import response

CITATION_MARKERS = (
    "[1]",
    "[12, 13]",
    "[^2]",
    "[RB-001]",
    "[RB-001, RB-002]",
    "[source: RB-001]",
    "[sources: RB-001, RB-002]",
    "[fuente: RB-101]",
    "[fuentes: RB-101, RB-102]",
    "(sources: RB-001, RB-002)",
    "(fuente: RB-101)",
    "[Source: RB-001]",
    "[ 1 ; 2 ]",
    "［RB-001］",
    "[1][2][RB-003]",
    "[source: Riverbend library FAQ]",
)


@pytest.mark.parametrize("text", SILENT_SHAPES, ids=ascii)
def test_every_silent_shape_is_unreadable(text: str) -> None:
    # Trap: an empty, invisible, punctuation-only or citation-only answer read as an answer.
    assert is_readable(text) is False


@pytest.mark.parametrize(
    "text",
    [
        "\u3164",  # Hangul filler: a letter by category, blank on screen
        "\u115f\u1160",  # Hangul choseong and jungseong fillers
        "\uffa0",  # half-width Hangul filler
        "\u2800",  # braille pattern blank
        "\u3164 \u3164\n\u2800",  # fillers between spaces
        "\u034f\ufe0f\U000e0001",  # grapheme joiner, variation selector, language tag
        "\u0301\u20dd",  # combining marks with no letter to sit on
        "[RB-001] \u3164",  # a citation marker beside a filler
    ],
    ids=ascii,
)
def test_blank_fillers_ignorables_and_marks_are_silence(text: str) -> None:
    # Trap: U+3164 counted as a letter, so an answer of fillers passes every absence-check.
    assert is_readable(text) is False


@given(st.text(st.one_of(invisibles(), st.sampled_from(" \n\t\u00a0\u3000"))))
def test_an_answer_of_only_invisible_characters_and_spaces_is_silence(text: str) -> None:
    # Trap: a hand list of blank characters, so the one left off it reads as an answer.
    assert is_readable(text) is False


@pytest.mark.parametrize("filler", BLANK_FILLERS, ids=ascii)
def test_a_blank_filler_does_not_hide_the_answer_beside_it(filler: str) -> None:
    # Trap: dropping fillers drops the words next to them.
    assert is_readable(f"{filler}Opens at 9{filler}") is True


@pytest.mark.parametrize("marker", CITATION_MARKERS)
def test_a_bare_citation_marker_is_unreadable(marker: str) -> None:
    # Trap: the letters inside a citation marker counted as something said.
    assert is_readable(marker) is False


@pytest.mark.parametrize("marker", CITATION_MARKERS)
def test_an_answer_with_a_citation_marker_is_readable(marker: str) -> None:
    # Trap: dropping the marker drops the answer around it.
    assert is_readable(f"Opens at 9 {marker}.") is True


@pytest.mark.parametrize(
    "text",
    [
        "[The library opens at 9]",
        "(open daily)",
        "[Opens at 9, RB-001]",
        "[source]",
        "(1)",
        "[9am]",
        "9",
        "ｏｐｅｎ",
        "abierta…",
        "🙂 yes",
    ],
)
def test_bracketed_and_short_prose_is_readable(text: str) -> None:
    # Trap: a bracket taken for a citation marker, so a real answer is called silence.
    assert is_readable(text) is True


def _has_ascii_letter_outside_brackets(text: str) -> bool:
    depth = 0  # every opening and closing punctuation counts: `【` is a bracket as `[` is
    for char in text:
        if unicodedata.category(char) == "Ps":
            depth += 1
        elif unicodedata.category(char) == "Pe":
            depth = max(depth - 1, 0)
        elif depth == 0 and char in string.ascii_letters:
            return True
    return False


@given(st.text(), st.sampled_from(string.ascii_letters), st.text())
def test_an_ascii_letter_outside_brackets_is_always_readable(
    before: str, letter: str, after: str
) -> None:
    # Trap: marker-dropping that reaches past a bracket pair and eats real text. Brackets are
    # counted after NFKC, which turns full-width brackets into plain ones.
    text = before + letter + after
    assume(_has_ascii_letter_outside_brackets(unicodedata.normalize("NFKC", text)))
    assert is_readable(text) is True


def _unicode_silence() -> tuple[str, ...]:
    """The CJK blocks' punctuation, spaces, symbols and modifier letters, from Unicode data.

    CJK Symbols and Punctuation, Hiragana, Katakana, the vertical and compatibility forms and
    the half-width and full-width forms: every character in them that is not a letter or a
    number by category, and the modifier letters (Lm), which only repeat or lengthen the
    letter before them (`々`, `ー`, `ゝ`, the half-width sound marks) and say nothing alone.
    """
    blocks = ((0x3000, 0x30FF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))
    return tuple(
        char
        for first, last in blocks
        for char in map(chr, range(first, last + 1))
        if unicodedata.category(char)[0] in "PZS" or unicodedata.category(char) == "Lm"
    )


CJK_SILENCE = _unicode_silence()


@pytest.mark.parametrize(
    "text",
    ["。。。", "……", "\u3000\u3000", "、", "「」", "？！", "ーー", "々", "〻", "・・・", "ｰ", "〜"],
    ids=ascii,
)
def test_a_reply_of_cjk_punctuation_or_modifier_letters_alone_is_silence(text: str) -> None:
    # Trap: `ー` and `々` are letters by `isalnum`, so a reply of them passes every absence check.
    assert is_readable(text) is False


@given(st.text(st.one_of(st.sampled_from(CJK_SILENCE), st.sampled_from(BLANK_FILLERS)), min_size=1))
def test_any_reply_of_cjk_punctuation_spaces_fillers_or_modifier_letters_is_silence(
    text: str,
) -> None:
    # Trap: a hand list of CJK punctuation, so the mark left off it reads as an answer.
    assert is_readable(text) is False


PEER_CITATION_MARKERS = (
    "【1】",
    "【RB-201】",
    "〔RB-501〕",
    "〖2〗",
    "【1】【2】",
    "［RB-301］",
    "[来源：RB-201]",
    "（來源：RB-201）",
    "【出处：RB-202】",
    "[출처: RB-501]",
    "(참고: RB-502, RB-503)",
    "[nguồn: RB-301]",
    "(Nguồn: RB-302)",
    "[pinagmulan: RB-401]",
    "(Sanggunian: RB-402)",
)
"""Citation markers as answers in Chinese, Korean, Vietnamese and Tagalog write them."""


@pytest.mark.parametrize("marker", PEER_CITATION_MARKERS)
def test_a_bare_citation_marker_in_any_peer_language_is_unreadable(marker: str) -> None:
    # Trap: `【1】` or `[来源：RB-201]` read as an answer, since only `[...]` and the English and
    # Spanish labels were citation markers.
    assert is_readable(marker) is False


@pytest.mark.parametrize("marker", PEER_CITATION_MARKERS)
def test_an_answer_with_a_citation_marker_in_any_peer_language_is_readable(marker: str) -> None:
    # Trap: dropping the marker drops the answer around it.
    assert is_readable(f"图书馆周日开放{marker}。") is True


@pytest.mark.parametrize(
    "text",
    ["好", "네", "Có", "Oo", "人々", "コーヒー", "【通知】", "[来源不明]", "〇", "(출처 없음)"],
)
def test_a_short_answer_in_any_peer_language_is_readable(text: str) -> None:
    # Trap: silence read so widely that a one-word answer, or a bracket of prose, is lost.
    assert is_readable(text) is True


def test_readable_text_says_something() -> None:
    # Trap: the baseline for the two declared decisions below.
    assert said_something(response(text="Opens at 9.")) is True


def test_silence_says_nothing() -> None:
    # Trap: an empty answer with no declared decision counted as a reply.
    assert said_something(response(text="")) is False


def test_a_declared_refusal_says_something() -> None:
    # Trap: a reported refusal without text mistaken for silence.
    assert said_something(response(text="", refused=True)) is True


def test_a_declared_escalation_says_something() -> None:
    # Trap: a reported escalation without text mistaken for silence.
    assert said_something(response(text="", escalated=True)) is True


HOSTILE_MARKERS = {
    "items": "[" + "1," * 50_000,
    "ids": "[" + "a1-" * 40_000,
    "id-parts": "[RB-001" + "-a1" * 40_000,
    "digits": "[a" + "1" * 100_000 + "x",
    "letters": "[" + "a" * 100_000 + "1x",
    "spaces": "[1" + " " * 100_000 + "x",
    "separators": "[1" + " , " * 40_000,
    "label": "(source:" + " " * 100_000,
    "openings": "[1" * 50_000,
    "labels": "(source:x" * 12_000,
    "mixed": "[ 1 ; a1 , " * 10_000,
}
"""A long unclosed marker of each shape the pattern could backtrack over, and many openings."""


@pytest.mark.parametrize("text", HOSTILE_MARKERS.values(), ids=HOSTILE_MARKERS.keys())
def test_the_citation_marker_pattern_stays_linear_over_hostile_text(text: str) -> None:
    # Trap: a marker pattern with two ways to match one run of text, so an unclosed marker
    # 100,000 characters long takes hours to reject (it runs on every answer, unbounded).
    started = time.monotonic()
    assert is_readable(text) is True
    assert time.monotonic() - started < 2.0  # linear: well under 0.1 s; quadratic: hours
