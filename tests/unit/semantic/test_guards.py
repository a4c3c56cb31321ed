"""The guards: a number or a negation similarity cannot be trusted with fails the answer first."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.languages import primary_language
from gauntlet.semantic.guards import IDENTIFIED_LANGUAGES, guard_problems, guarded_languages
from gauntlet.semantic.labels import builtin_similarity_labels_dir, load_similarity_labels

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
        assert not guard_problems(f"It costs {en} euros.", f"It costs {answer} euros.", "en"), (
            answer
        )


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
    assert not guard_problems(
        "El depósito es de 2.000 euros.", "Son 2,000 euros de depósito.", "es"
    )


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


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        ("请在三天内提交申请。", "申请须在五天之内提交。"),
        ("罚款为二十五元。", "罚款是五十二元。"),
        ("每人限借十五本书。", "每位读者最多可借十本。"),
        ("办公室在二〇二六年一月关闭。", "办公室将于二〇二五年一月停止办公。"),
        ("服務費為一百二十元。", "服务费是一百元。"),  # Traditional, against Simplified
        ("请在3天内提交。", "申请须在五天之内提交。"),
    ],
)
def test_a_number_written_in_chinese_numerals_must_be_in_the_answer(
    expected: str, answer: str
) -> None:
    # Trap: only digits are numbers, so a reworded answer that changes 三 to 五 gives the
    # numbers guard nothing to read and similarity, which scores them alike, passes it.
    assert any("number" in problem for problem in guard_problems(expected, answer, "zh"))


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        ("请在三天内提交申请。", "申请须在3天之内提交。"),
        ("图书馆上午10点开门。", "图书馆早上十点开门。"),
        ("罚款为二十五元。", "罚款是25元。"),
        ("每人限借十五本书。", "每位读者最多可借１５本。"),  # full-width digits
        ("押金为一千元。", "押金是1,000元。"),
        ("押金為兩百元。", "押金是200元。"),
        ("办公室在二〇二六年一月关闭。", "办公室将于2026年1月停止办公。"),
        ("请一定带上身份证。", "请务必携带身份证。"),  # 一 alone is a word, not the number
    ],
)
def test_a_number_in_chinese_numerals_matches_the_same_number_in_digits(
    expected: str, answer: str
) -> None:
    # Trap: a number read in one script only, so 十点 and 10点 are different facts.
    assert not [p for p in guard_problems(expected, answer, "zh") if "number" in p]


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
    assert not guard_problems("안내 센터에 문의하세요.", "문의는 안내 센터에 하세요.", "ko")


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


# ---------------------------------------------------------------- one slot swapped

_SLOTS = st.sampled_from(
    [
        ("en", "Trash is collected on {}.", ("Mondays", "Thursdays", "Fridays")),
        ("en", "Glass goes in the {} bin.", ("blue", "green", "grey")),
        ("en", "The main branch is on {} Street.", ("Elm", "Cedar", "Oak Grove")),
        ("es", "El mercadillo se monta los {}.", ("martes", "jueves", "sábados")),
        ("es", "Lleve el vidrio al {}.", ("contenedor verde", "punto limpio", "centro")),
        ("tl", "Kinokolekta ang basura tuwing {}.", ("Lunes", "Huwebes", "Biyernes")),
        ("vi", "Rác được thu gom vào thứ {}.", ("hai", "năm", "sáu")),
        ("ko", "쓰레기는 {} 수거합니다.", ("월요일에", "목요일에", "금요일에")),
        ("zh", "垃圾每周{}收集。", ("一", "四", "五")),
        ("zh", "请到{}办理。", ("街道办", "邮局", "税务局")),
    ]
)


@given(_SLOTS, st.data())
def test_an_answer_that_swaps_one_slot_of_the_expected_is_another_fact(
    slot: tuple[str, str, tuple[str, ...]], data: st.DataObject
) -> None:
    # Trap: trusting similarity with a sentence one slot apart ("Mondays" for "Thursdays"
    # scores 0.925, above most rewordings), or catching only a one-word swap, one script, or
    # the swap in one direction.
    language, frame, fillers = slot
    old, new = data.draw(st.permutations(fillers))[:2]
    problems = guard_problems(frame.format(old), frame.format(new), language)
    assert any("another fact, not a rewording" in problem for problem in problems), problems
    (named,) = regex.findall(r'with "([^"]+)" replaced', " ".join(problems))
    assert named.replace(" ", "") in old.casefold().replace(" ", ""), problems


def test_a_reworded_answer_that_reorders_its_clauses_passes_the_template_guard() -> None:
    # Trap: failing every pair that shares words, so a reordered, courteous or lengthened
    # rewording fails as if a slot were swapped; or reading a number written another way
    # (the numbers guard's to judge) as a swapped slot.
    for language, expected, answer in [
        ("en", "The pool opens at 9 on Saturdays.", "On Saturdays, the pool opens at 9."),
        ("en", "Call 311 to report a pothole.", "Please call 311 to report a pothole."),
        ("en", "Trash is collected on Mondays.", "Trash is collected on Mondays!"),
        ("en", "The deposit is $1,000.", "The deposit is $1000."),
        ("es", "El mercadillo se monta los martes.", "Los martes se monta el mercadillo."),
        ("zh", "图书馆周六上午9点开门。", "周六上午9点，图书馆开门。"),
        (
            "ko",
            "도서관은 토요일 오전 9시에 문을 엽니다.",
            "토요일에는 오전 9시에 도서관이 문을 엽니다.",
        ),
    ]:
        assert not guard_problems(expected, answer, language), (expected, answer)


_WORDS_DRAWN = st.lists(
    st.sampled_from(["the", "pool", "opens", "at", "nine", "on", "saturdays", "city", "hall"]),
    min_size=2,
    max_size=12,
)


@given(_WORDS_DRAWN, _WORDS_DRAWN, st.data())
def test_an_answer_that_only_adds_words_is_never_a_swapped_slot(
    sentence: list[str], added: list[str], data: st.DataObject
) -> None:
    # Trap: reading any change near a kept word as a swap, so an answer that only adds a
    # courtesy or a clause ("please", "as usual") fails as another fact.
    where = data.draw(st.integers(min_value=0, max_value=len(sentence)))
    answer = sentence[:where] + added + sentence[where:]
    problems = guard_problems(" ".join(sentence), " ".join(answer), "en")
    assert not any("another fact" in problem for problem in problems), (sentence, answer)


def test_a_long_replaced_span_is_a_rewording_for_similarity_to_judge() -> None:
    # Trap: an unbounded span, so any answer sharing a first word with the expected one
    # (the whole rest replaced) is called "one slot swapped" and a rephrased ending fails.
    expected = "Bring a photo ID to register to vote."
    answer = "Bring a document with your picture on it when you sign up to vote."
    assert not guard_problems(expected, answer, "en")


# ---------------------------------------------------------------- language


def test_an_answer_in_another_language_fails_the_language_guard() -> None:
    # Trap: a correct answer in the wrong language passing on similarity (en/es pairs score
    # 0.79 to 0.905 on the builtin), or the guard catching only English answers.
    for language, expected, answer, said in [
        ("es", "Puede pagar el IBI en cualquier oficina bancaria.",
         "You can pay the property tax at any bank branch.", "en"),
        ("en", "You can pay your water bill online.",
         "Puede pagar su factura del agua en línea.", "es"),
        ("zh", "回收中心周日关门。", "The recycling center is closed on Sundays.", "en"),
        ("ko", "재활용센터는 일요일에 쉽니다.", "The recycling center is closed on Sundays.", "en"),
        ("vi", "Trung tâm tái chế đóng cửa vào chủ nhật.",
         "El centro de reciclaje cierra los domingos.", "es"),
        ("tl", "Sarado ang recycling center tuwing Linggo.", "回收中心周日关门。", "zh"),
    ]:  # fmt: skip
        problems = guard_problems(expected, answer, language)
        assert f"the answer is in {said}, the expected answer in {language}" in problems, (
            expected,
            problems,
        )


def test_an_answer_in_the_expected_language_passes_the_language_guard() -> None:
    # Trap: a guard that fails short answers or answers with a name from another language,
    # or that fails an answer with no words at all as "another language".
    for language, expected, answer in [
        ("en", "Call 311 to report a pothole.", "To report a pothole, please call 311."),
        ("es", "El mercadillo se monta los martes.", "Los martes hay mercadillo."),
        ("tl", "Magdala ng ID para makaboto.", "Kailangan mong magdala ng ID para makaboto."),
        ("en", "Call 311.", "311"),
    ]:
        assert not guard_problems(expected, answer, language), (expected, answer)


def test_the_language_guard_tells_apart_every_language_the_labels_cover() -> None:
    # Trap: a language added to the labels but not to the identifier's set, so its answers are
    # read as the nearest other language and every one fails, or the guard is silently loose.
    labels = load_similarity_labels(builtin_similarity_labels_dir())
    covered = {primary_language(item.language) for item in labels.items}
    assert covered == set(IDENTIFIED_LANGUAGES)
