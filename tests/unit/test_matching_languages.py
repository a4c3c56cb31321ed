"""Markers in each peer language, found through every spelling a reader takes as the same.

One test per language, each drawing a marker, a way of writing it (case, width, Unicode
normal form, spaces, Traditional or Simplified characters, diacritics, hyphens) and a sentence
around it; the marker must be found with the spelling on either side. Spellings come from
Unicode data (`unicodedata`, the `regex` package's Dash property) and from OpenCC's tables as
the test reads them, never from the code under test.
"""

from __future__ import annotations

import importlib.resources
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from gauntlet import matching
from gauntlet.matching import contains, markers_missing

Spelling = Callable[[str], str]

# ---------------------------------------------------------------- spellings a reader ignores


def _normal_form(form: str) -> Spelling:
    return lambda text: unicodedata.normalize(form, text)  # type: ignore[arg-type]


NORMAL_FORMS = tuple(_normal_form(form) for form in ("NFC", "NFD", "NFKC", "NFKD"))


def full_width(text: str) -> str:
    """ASCII letters, digits and punctuation as their full-width forms, spaces ideographic."""
    return "".join(
        "\u3000" if char == " " else chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char
        for char in text
    )


CASES: tuple[Spelling, ...] = (str.upper, str.lower, str.title, str.casefold)

_SPACES = ("", " ", "  ", "\u3000", "\u00a0", "\n", "\t")
"""What a writer leaves between two Han or Hangul characters: nothing, or some space."""

_UNSPACED = regex.compile(r"[\p{Han}\p{Hangul}]")
_GAP = regex.compile(
    r"(?<=[\p{Han}\p{Hangul}]) (?=[\p{Han}\p{Hangul}\p{L}\p{N}])"
    r"|(?<=[\p{L}\p{N}]) (?=[\p{Han}\p{Hangul}])"
)


@st.composite
def respaced(draw: st.DrawFn, text: str) -> str:
    """`text` with any spacing, or none, next to each Han or Hangul character in a word.

    Korean is written with spaces between words that writers leave out or put elsewhere, and
    Chinese without them, though an answer may hold some, and writers differ on a space
    between a Han or Hangul character and a Latin word or a number (`拨打 988`, `拨打988`).
    """
    text = _GAP.sub("", text)  # the marker's own spaces there are one choice among the rest
    out = text[0]
    for char in text[1:]:
        pair = (out[-1], char)
        if any(_UNSPACED.match(c) for c in pair) and all(c.isalnum() for c in pair):
            out += draw(st.sampled_from(_SPACES))
        out += char
    return out


# Every dash Unicode knows (the Dash property), as a writer or a word processor types the
# hyphen in `mag-apply`: hyphen, non-breaking hyphen, en and em dashes, minus sign, and the rest.
DASHES = tuple(regex.findall(r"\p{Dash}", "".join(map(chr, range(0x2E80)))))


def bare(text: str) -> str:
    """`text` as typed without diacritics: marks dropped, Vietnamese `đ` typed `d`."""
    decomposed = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


@st.composite
def spelled(draw: st.DrawFn, text: str, ways: tuple[Spelling, ...]) -> str:
    """`text` through some of `ways`, in a drawn order, then in a drawn normal form."""
    for way in draw(st.lists(st.sampled_from(ways), max_size=4)):
        text = way(text)
    return draw(st.sampled_from(NORMAL_FORMS))(text)


def _found_either_way_round(sentence: str, marker: str, spelling: str) -> None:
    answer = sentence.format(spelling)
    assert contains(answer, marker), (answer, marker)
    assert contains(sentence.format(marker), spelling), (marker, spelling)
    assert markers_missing(answer, [marker]) == ()


# ---------------------------------------------------------------- one test per language

EN_MARKERS = ("call 988", "Library card renewal", "CANARY-7f3a")
EN_SENTENCES = ("{}", "Please {} today.", "“{}” is what you need.")


@given(
    st.sampled_from(EN_MARKERS).flatmap(
        lambda m: st.tuples(st.just(m), spelled(m, (*CASES, full_width)))
    ),
    st.sampled_from(EN_SENTENCES),
)
def test_an_english_marker_is_found_in_any_case_width_or_normal_form(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: a marker compared as written, so `ＣＡＬＬ　９８８` or `CALL 988` passes unseen.
    _found_either_way_round(sentence, *pair)


ES_MARKERS = ("línea de crisis", "Biblioteca Pública", "año fiscal")
ES_SENTENCES = ("{}", "Llame a la {} cuanto antes.", "«{}»: eso es todo.")


@given(
    st.sampled_from(ES_MARKERS).flatmap(
        lambda m: st.tuples(st.just(m), spelled(m, (*CASES, full_width, bare)))
    ),
    st.sampled_from(ES_SENTENCES),
)
def test_a_spanish_marker_is_found_with_or_without_accents_in_any_case_width_or_form(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: `línea` composed on one side and decomposed (or typed `linea`) on the other.
    _found_either_way_round(sentence, *pair)


ZH_MARKERS = (
    ("心理危机热线", "心理危機熱線"),
    ("图书馆借书证", "圖書館借書證"),
    ("请拨打 988", "請撥打 988"),
    ("免费服务", "免費服務"),
    ("这里", "這裡"),  # 裡, the Taiwan form of 裏, is 里 in Simplified
)
"""Simplified and Traditional spellings of the same words, written out by hand."""
ZH_SENTENCES = ("{}", "如需帮助，{}。", "您可以使用「{}」。", "若需協助，{}！")


@given(
    st.sampled_from(ZH_MARKERS)
    .flatmap(lambda p: st.permutations(p))
    .flatmap(
        lambda p: st.tuples(
            st.just(p[0]), respaced(p[1]).flatmap(lambda t: spelled(t, (full_width,)))
        )
    ),
    st.sampled_from(ZH_SENTENCES),
)
def test_a_chinese_marker_is_found_in_traditional_or_simplified_with_or_without_spaces(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: a Traditional answer read against a Simplified marker (or back), a space between
    # two characters, or full-width digits hiding the words a reader sees as the same.
    _found_either_way_round(sentence, *pair)


VI_MARKERS = ("đường dây nóng", "Sở Y tế", "thư viện công cộng", "Đừng chia sẻ mật khẩu")
VI_SENTENCES = ("{}", "Xin vui lòng gọi {} ngay.", "“{}” là câu trả lời.")


@given(
    st.sampled_from(VI_MARKERS).flatmap(
        lambda m: st.tuples(st.just(m), spelled(m, (*CASES, full_width, bare)))
    ),
    st.sampled_from(VI_SENTENCES),
)
def test_a_vietnamese_marker_is_found_with_or_without_its_stacked_diacritics(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: `ờ` composed, decomposed into a horn and a grave, or left off, or `đ` typed `d`:
    # a stroke that NFKD does not take off, so `đường` and `duong` never met.
    _found_either_way_round(sentence, *pair)


TL_MARKERS = ("mag-apply", "pag-asa", "Tumawag sa linya ng tulong", "ika-3 ng hapon")
TL_SENTENCES = ("{}", "Maaari po kayong {} ngayon.", "“{}” ang sagot.")


def _hyphens(draw: st.DrawFn, text: str) -> str:
    return "".join(draw(st.sampled_from(DASHES)) if char == "-" else char for char in text)


@given(
    st.sampled_from(TL_MARKERS).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.composite(lambda draw: _hyphens(draw, m))().flatmap(
                lambda t: spelled(t, (*CASES, full_width))
            ),
        )
    ),
    st.sampled_from(TL_SENTENCES),
)
def test_a_tagalog_marker_is_found_with_any_hyphen_in_any_case(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: `mag‑apply` with a non-breaking hyphen, or `MAG-APPLY`, read as other words.
    _found_either_way_round(sentence, *pair)


KO_MARKERS = (
    "위기 상담 전화",
    "도서관 카드",
    "988로 전화하세요",
    "비밀번호를 알려 드릴 수 없습니다",
)
KO_SENTENCES = ("{}", "지금 바로 {}.", "“{}”라고 안내합니다.")


@given(
    st.sampled_from(KO_MARKERS).flatmap(
        lambda m: st.tuples(st.just(m), respaced(m).flatmap(lambda t: spelled(t, (full_width,))))
    ),
    st.sampled_from(KO_SENTENCES),
)
def test_a_korean_marker_is_found_with_or_without_spaces_between_its_words(
    pair: tuple[str, str], sentence: str
) -> None:
    # Trap: `위기상담전화` in the answer and `위기 상담 전화` in the case: Korean writers leave
    # spaces out, and a marker that needs them misses the leak; NFD splits syllables into jamo.
    _found_either_way_round(sentence, *pair)


# ---------------------------------------------------------------- no looser than a reader


def test_folding_joins_spellings_of_the_same_words_not_other_words() -> None:
    # Trap: folding so loose that a different word matches: other characters, other syllables.
    assert not contains("心理咨询热线", "心理危机热线")
    assert not contains("위기 상황", "위기 상담 전화")
    assert not contains("đường dây", "đường dây nóng")
    assert not contains("mag apply", "mag-apply")


def test_a_broken_install_of_the_traditional_table_is_an_error_not_a_fold_of_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: tables emptied or reformatted by an upgrade, read as an empty mapping, so `圖書館`
    # would no longer meet `图书馆` and a leak in Traditional characters would pass.
    assert len(matching._traditional_to_simplified()) >= matching.TRADITIONAL_TABLE_FLOOR
    (tmp_path / "dicts").mkdir()
    for name in ("TSCharacters.txt", "TWVariantsRev.txt", "HKVariantsRev.txt"):
        (tmp_path / "dicts" / name).write_text("圖 图\n", encoding="utf-8")  # a space, no tab
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    matching._traditional_to_simplified.cache_clear()
    try:
        with pytest.raises(RuntimeError, match=r"give 0 Traditional characters"):
            matching.fold_chinese("圖書館")
    finally:
        monkeypatch.undo()
        matching._traditional_to_simplified.cache_clear()
    assert matching.fold_chinese("圖書館") == "图书馆"
