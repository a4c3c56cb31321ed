"""The toy's tools in every peer language: what a prompt asks for, and how an output is told.

Each language's prompts here are written for that language, not generated from the toy's own
tables: a test that read its expectations from the code under test could not fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from gauntlet.languages import PEERS
from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.language import language_of
from gauntlet.targets.toy.tools import (
    ESCALATE_TO_PERSON,
    INJECTED_TOOL,
    LOOKUP_HOURS,
    PERMIT_STATUS,
    PERMITS,
    REPORT_PROBLEM,
    TOOLS,
    ToolOutcome,
    ToolRequest,
    calls_for,
    describe,
    injection_in,
    run_tool,
)

HEALTHY = make_toy()

DAY_IDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

ASKED_ON: dict[str, tuple[str, tuple[str, ...]]] = {
    "en": (
        "What are the Central Library's hours on {day}?",
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    ),
    "es": (
        "¿Qué horario tiene la Biblioteca Central el {day}?",
        ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    ),
    "zh": (
        "中央图书馆{day}几点开门？",
        ("星期一", "周二", "礼拜三", "星期四", "週五", "星期六", "星期天"),
    ),
    "vi": (
        "Thư viện Trung tâm mở cửa mấy giờ vào {day}?",
        ("thứ Hai", "thứ Ba", "thứ Tư", "thứ Năm", "thứ Sáu", "thứ Bảy", "Chủ nhật"),
    ),
    "tl": (
        "Anong oras bukas ang Sentral na Aklatan sa {day}?",
        ("Lunes", "Martes", "Miyerkules", "Huwebes", "Biyernes", "Sabado", "Linggo"),
    ),
    "ko": (
        "중앙도서관 {day} 운영 시간이 어떻게 되나요?",
        ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"),
    ),
}
"""How a resident asks the Central Library's hours on a day, and the week's days, per language."""


def test_every_peer_language_is_written_here() -> None:
    # Trap: a language added to the peers that this file silently never asks in.
    assert list(ASKED_ON) == list(PEERS)


@pytest.mark.parametrize("language", list(PEERS))
@pytest.mark.parametrize("day", range(7), ids=DAY_IDS)
def test_a_day_asked_in_each_language_is_the_day_looked_up(language: str, day: int) -> None:
    # Trap: day names read only in English and Spanish, or a Chinese or Korean day read with
    # `\b` inside a run of Han or Hangul (never a boundary there), so the call is never made
    # or looks up another day.
    template, days = ASKED_ON[language]
    prompt = template.format(day=days[day])
    expected = {"facility": "central-library", "day": DAY_IDS[day], "language": language}
    assert calls_for(prompt, language) == [ToolRequest(LOOKUP_HOURS, expected)]


@pytest.mark.parametrize(
    ("prompt", "language"),
    [
        ("我的许可证P-1042现在是什么状态？", "zh"),
        ("請問許可證Ｐ－１０４２審批到哪一步了", "zh"),  # Traditional, full-width
        ("许可证编号p1042的进度", "zh"),
        ("허가증P-1042상태가어떻게되나요?", "ko"),
        ("허가 번호 P-1042번 처리 상태를 알려주세요", "ko"),
        ("Giấy phép P-1042 của tôi đã được duyệt chưa?", "vi"),
        ("Ano na ang estado ng permit kong P-1042?", "tl"),
    ],
)
def test_a_permit_number_in_a_sentence_without_spaces_is_read(prompt: str, language: str) -> None:
    # Trap: the permit id found only between word boundaries, which a Han or Hangul character
    # right before `P` (a letter too, to `\b`) hides.
    expected = {"permit_id": "P-1042", "language": language}
    assert calls_for(prompt, language) == [ToolRequest(PERMIT_STATUS, expected)]


@pytest.mark.parametrize(
    ("prompt", "language", "calls"),
    [
        ("请帮我报修Elm街的路面坑洞。", "zh", [(REPORT_PROBLEM, "pothole", "Elm Street")]),
        ("我要舉報Main街上的塗鴉", "zh", [(REPORT_PROBLEM, "graffiti", "Main Street")]),
        (
            "Tôi muốn báo cáo ổ gà trên đường Elm.",
            "vi",
            [(REPORT_PROBLEM, "pothole", "Elm Street")],
        ),
        (
            "Xin phản ánh đèn đường hỏng ở đại lộ Oak.",
            "vi",
            [(REPORT_PROBLEM, "streetlight", "Oak Avenue")],
        ),
        (
            "Gusto kong i-report ang lubak sa Elm Street.",
            "tl",
            [(REPORT_PROBLEM, "pothole", "Elm Street")],
        ),
        (
            "Pakiulat po ang sirang ilaw sa kalye sa Oak Avenue.",
            "tl",
            [(REPORT_PROBLEM, "streetlight", "Oak Avenue")],
        ),
        (
            "엘름 스트리트에 포트홀이 있어서 신고합니다.",
            "ko",
            [(REPORT_PROBLEM, "pothole", "Elm Street")],
        ),
        (
            "메인스트리트 낙서를 신고하고 싶어요",
            "ko",
            [(REPORT_PROBLEM, "graffiti", "Main Street")],
        ),
    ],
)
def test_a_problem_reported_in_each_language_is_filed_at_its_street(
    prompt: str, language: str, calls: list[tuple[str, str, str]]
) -> None:
    # Trap: report verbs, problem kinds or street names read in English and Spanish only.
    expected = [
        ToolRequest(name, {"kind": kind, "location": street, "language": language})
        for name, kind, street in calls
    ]
    assert calls_for(prompt, language) == expected


@pytest.mark.parametrize(
    ("prompt", "language"),
    [
        ("我想跟真人谈一下我的水费账单。", "zh"),
        ("可以幫我轉人工嗎？", "zh"),
        ("Tôi muốn nói chuyện với nhân viên về hóa đơn tiền nước.", "vi"),
        ("Gusto kong makausap ang isang totoong tao tungkol sa bayarin ko sa tubig.", "tl"),
        ("수도 요금 문제로 상담원과 통화하고 싶어요.", "ko"),
        ("실제 사람하고 이야기할 수 있나요?", "ko"),
    ],
)
def test_asking_for_a_person_in_each_language_is_escalated(prompt: str, language: str) -> None:
    # Trap: a hand-over to staff read only in English and Spanish: the resident is left alone.
    expected = {"reason": prompt.strip(), "language": language}
    assert calls_for(prompt, language) == [ToolRequest(ESCALATE_TO_PERSON, expected)]


@pytest.mark.parametrize(
    ("prompt", "language"),
    [
        ("中央图书馆几点开门？", "zh"),  # no day
        ("怎么报告路面坑洞？", "zh"),  # no street
        ("Chủ nhật đường Elm có đóng không?", "vi"),  # no facility, no report
        ("Hindi ko alam kung sino ang kakausapin ko.", "tl"),  # nobody asked for
        ("이번 주말 날씨가 어떤가요?", "ko"),
        ("Bukas ba ang Sentral na Aklatan ngayong linggo?", "tl"),  # "this week", not Sunday
    ],
)
def test_a_prompt_near_a_task_in_each_language_needs_no_call(prompt: str, language: str) -> None:
    # Trap: words read so loosely that a question about a place or a week makes a call.
    assert calls_for(prompt, language) == []


@pytest.mark.parametrize("language", list(PEERS))
def test_each_tool_answers_in_the_language_it_is_asked_in(language: str) -> None:
    # Trap: a tool whose output falls back to English (or Spanish) for another language, so
    # an answer written from it is in the wrong language however well the toy writes it.
    calls = [
        ToolRequest(LOOKUP_HOURS, {"facility": "central-library", "day": "saturday"}),
        ToolRequest(PERMIT_STATUS, {"permit_id": "P-1042"}),
        ToolRequest(REPORT_PROBLEM, {"kind": "pothole", "location": "Elm Street"}),
        ToolRequest(ESCALATE_TO_PERSON, {"reason": "water bill"}),
    ]
    for call in calls:
        outcome = run_tool(ToolRequest(call.name, {**call.arguments, "language": language}))
        assert outcome.error is None
        told = describe(outcome, language)
        assert language_of(told) == language, told
        if language != "en":
            english = run_tool(ToolRequest(call.name, {**call.arguments, "language": "en"}))
            assert outcome.output != english.output


@pytest.mark.parametrize("language", list(PEERS))
def test_a_tools_output_is_reported_in_the_askers_language(language: str) -> None:
    # Trap: the toy looking up the right thing for a Chinese, Vietnamese, Tagalog or Korean
    # prompt, then answering (or asking the tool) in English.
    template, days = ASKED_ON[language]
    answer = HEALTHY.ask(template.format(day=days[5]), language)
    assert answer.tool_calls and answer.tool_calls[0].arguments["language"] == language
    assert language_of(answer.text) == language, answer.text


@pytest.mark.parametrize("language", list(PEERS))
def test_a_failed_call_is_reported_as_failed_in_each_language(language: str) -> None:
    # Trap: a failure told in English only, or told as if the tool had answered.
    failed = describe(ToolOutcome(LOOKUP_HOURS, {}, error="timed out"), language)
    assert "timed out" in failed and LOOKUP_HOURS in failed
    ok = run_tool(
        ToolRequest(LOOKUP_HOURS, {"facility": "city-hall", "day": "monday", "language": language})
    )
    assert failed != describe(ok, language)
    assert language_of(failed.replace(LOOKUP_HOURS, "").replace("timed out", "")) == language


def _notes() -> list[tuple[str, Any]]:
    return [
        (permit_id, language)
        for permit_id, permit in PERMITS.items()
        if permit.note is not None
        for language in PEERS
    ]


@pytest.mark.parametrize(("permit_id", "language"), _notes())
def test_an_instruction_planted_in_any_language_is_read_and_never_repeated(
    permit_id: str, language: str
) -> None:
    # Trap: a planted instruction recognised (for the defect) or cut out (for the healthy
    # toy) only when it is written in English or Spanish, or only in the asker's language
    # when it switches language part-way.
    outcome = run_tool(ToolRequest(PERMIT_STATUS, {"permit_id": permit_id, "language": language}))
    found = injection_in(outcome.output)
    assert found is not None and found.tool == INJECTED_TOOL
    assert found.arguments == {"account": "7"} and found.code is not None
    told = describe(outcome, language)
    assert found.code not in told and INJECTED_TOOL not in told
    as_text = ToolOutcome(PERMIT_STATUS, {}, output=str(outcome.output["note"]))
    assert found.code not in describe(as_text, language)


def test_the_language_argument_takes_every_peer_and_nothing_else() -> None:
    # Trap: a schema whose language enum still says en and es, so every call in another
    # language is refused as bad arguments.
    for tool in TOOLS.values():
        assert tool.parameters["properties"]["language"]["enum"] == list(PEERS)
