"""The guards: a number or a negation similarity cannot be trusted with fails the answer first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.semantic.guards import guard_problems, guarded_languages

# ---------------------------------------------------------------- numbers


def test_every_number_of_the_expected_answer_must_be_in_the_answer() -> None:
    # Trap: checking only that the answer has some number, or that the counts match.
    assert guard_problems("The fee is $45 and $10.", "The fee is $45.", "en")
    assert not guard_problems("The fee is $45.", "You pay $45, that is all.", "en")


@given(
    whole=st.integers(min_value=1, max_value=999_999),
    cents=st.integers(min_value=1, max_value=99),
)
def test_a_number_matches_itself_written_with_either_decimal_mark_or_thousands_marks(
    whole: int, cents: int
) -> None:
    # Trap: reading only one convention, so an es answer writing 1.234,5 fails an en 1,234.5.
    en = f"{whole:,}.{cents:02d}"
    es = en.replace(",", "_").replace(".", ",").replace("_", ".")
    plain = f"{whole}.{cents:02d}"
    for answer in (en, es, plain):
        assert not guard_problems(f"It costs {en} euros.", f"Costs: {answer} euros", "en"), answer


@given(st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=9))
def test_a_decimal_never_matches_the_digits_run_together(whole: int, tenth: int) -> None:
    # Trap: dropping every mark before comparing, so 3.5 and 35 are one number.
    for mark in (".", ","):
        assert guard_problems(
            f"It takes {whole}{mark}{tenth} hours.", f"It takes {whole}{tenth} hours.", "en"
        )
        assert guard_problems(
            f"It takes {whole}{tenth} hours.", f"It takes {whole}{mark}{tenth} hours.", "en"
        )


def test_a_thousand_never_matches_one_by_a_decimal_reading_nobody_writes() -> None:
    # Trap: reading 1,000 as 1.000 too, so "$1,000" is matched by "$1".
    assert guard_problems("The deposit is $1,000.", "The deposit is $1.", "en")
    assert guard_problems("El depósito es de 2.000 euros.", "El depósito es de 2 euros.", "es")
    assert not guard_problems("The deposit is $1,000.", "The deposit is $1000.", "en")
    assert not guard_problems("El depósito es de 2.000 euros.", "The deposit is 2,000 euros", "es")


def test_full_width_and_other_scripts_digits_are_numbers() -> None:
    # Trap: matching only ASCII digits, so a full-width ３ is no number and any answer holds it.
    assert not guard_problems("営業時間は９時から", "9時に開きます", "ja")
    assert guard_problems("営業時間は９時から", "8時に開きます", "ja")
    assert guard_problems("الرسوم ٣٥ دينار", "الرسوم 53 دينار", "ar")


def test_a_number_grouped_by_a_no_break_or_thin_space_is_one_number() -> None:
    # Trap: reading 10 000 as the numbers 10 and 0, so it matches neither 10000 nor itself.
    for space in ("\u00a0", "\u202f", "\u2009"):
        assert not guard_problems(f"Population: 10{space}000.", "Population: 10000.", "fr")
        assert guard_problems(f"Population: 10{space}000.", "Population: 10.", "fr")


# ---------------------------------------------------------------- negation


def test_a_negation_in_one_answer_and_not_the_other_fails_it() -> None:
    # Trap: checking only the answer, so a negated gold answer passes an affirmative reply.
    assert guard_problems("You can pay online.", "You cannot pay online.", "en")
    assert guard_problems("You cannot pay online.", "You can pay online.", "en")
    assert not guard_problems("You can't pay online.", "Paying online is not possible.", "en")


def test_every_english_contraction_is_a_negation_whatever_its_apostrophe() -> None:
    # Trap: a list with straight-apostrophe contractions only, so a curly or modifier-letter
    # apostrophe, or none, hides the negation.
    for apostrophe in ("'", "\u2019", "\u02bc", "\u2018", ""):
        for word in ("don", "doesn", "isn", "won", "can", "shouldn"):
            answer = f"You {word}{apostrophe}t need a permit."
            assert guard_problems("You need a permit.", answer, "en"), answer


def test_spanish_negations_are_read_with_or_without_their_accents() -> None:
    # Trap: matching 'jamás' and 'ningún' only as accented, so a reply typed without accents
    # hides its negation.
    for answer in ("Nunca abre.", "Jamas abre.", "Abre sin cita.", "Ningun dia abre.", "No abre."):
        assert guard_problems("Abre el domingo.", answer, "es"), answer


def test_chinese_negation_is_read_inside_words() -> None:
    # Trap: a word rule on a script without spaces, so 不 inside 不能 is never seen.
    assert guard_problems("您可以在网上付款。", "您不能在网上付款。", "zh")
    assert guard_problems("需要预约。", "没有预约也可以。", "zh-Hans")
    assert not guard_problems("不需要预约。", "无需预约。", "zh")


def test_korean_negation_is_read_as_a_bound_form_or_the_word_an() -> None:
    # Trap: treating 안 as a part of any word (안내, 안전 are no negation) or 않 as a word
    # (it is only ever bound to a verb: 하지 않습니다).
    assert guard_problems("온라인으로 납부할 수 있습니다.", "온라인으로 납부할 수 없습니다.", "ko")
    assert guard_problems("예약이 필요합니다.", "예약이 필요하지 않습니다.", "ko")
    assert guard_problems("주차할 수 있어요.", "주차가 안 돼요.", "ko")
    assert not guard_problems("안내 센터에 문의하세요.", "안내 데스크에 문의하세요.", "ko")


def test_vietnamese_and_tagalog_negations_are_words() -> None:
    # Trap: leaving vi and tl unguarded while saying nothing of it.
    assert guard_problems(
        "Bạn có thể trả tiền trực tuyến.", "Bạn không thể trả tiền trực tuyến.", "vi"
    )
    assert guard_problems("Kailangan ng appointment.", "Hindi kailangan ng appointment.", "tl")
    assert guard_problems("Kailangan ng appointment.", "'Di kailangan ng appointment.", "tl")
    assert {"en", "es", "zh", "ko", "vi", "tl"} <= guarded_languages()


def test_a_language_without_a_negation_list_is_not_said_to_be_guarded() -> None:
    # Trap: a guard that silently passes a language it has no words for while claiming it.
    assert "fr" not in guarded_languages()
    assert not guard_problems("Vous pouvez payer.", "Vous ne pouvez pas payer.", "fr")


def test_vietnamese_negation_words_keep_their_tone_marks() -> None:
    # Trap: folding accents away for every language, so Vietnamese "đúng" (correct) reads as
    # "đừng" (don't) and "cho" (for) as "chớ" (do not): a rewording fails, and two texts that
    # each hold one such word hide a real negation.
    assert not guard_problems("Nộp trước hoặc đúng ngày 31.", "Hạn nộp là ngày 31.", "vi")
    assert not guard_problems("Thư viện cho mượn 5 cuốn.", "Được mượn 5 cuốn ở thư viện.", "vi")
    assert guard_problems("Chợ phiên cần giấy phép.", "Chợ phiên không cần giấy phép.", "vi")
    assert guard_problems("Đặt chỗ trước.", "Đừng đặt chỗ trước.", "vi")
