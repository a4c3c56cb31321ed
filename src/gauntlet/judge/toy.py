"""A deterministic toy judge for the Riverbend domain, healthy or with named defects.

The judge is a model, and like any target it must be shown failing before its passes are
evidence: this is its self-test. It reads a prompt exactly as `rubric_prompt` or
`pairwise_prompt` write it (the boundary from the instruction line, the fenced blocks by
label, the rubric's `- id: ask` lines, the check's token from the line that gives it, never
from a block) and returns the text a judge model would reply, the token copied into its
verdict.

Healthy, it judges by the facts of Riverbend's pages (`gauntlet.targets.toy.corpus`): phone
numbers, fees, dates, counts, addresses and opening hours, read alike from English, Spanish,
Chinese (Simplified or Traditional), Vietnamese, Tagalog and Korean text, each in the forms a
careful writer of it uses (`9 a.m.`, `上午9点`, `9 giờ sáng`, `9:00 n.u.`, `오전 9시`), so the six
languages are peers. It knows the criteria in `CRITERIA` and no other: a
criterion it does not know is left out of its reply, which then fails validation (unjudged,
never a guess). Text inside a block is data: an answer that tells the judge what to say is
judged on its facts like any other, and the rationale says it tried.

Pairwise, it finds the page the question is about (by the pages' keywords, as the toy
assistant retrieves) and ranks each text by, in order: how many of its facts contradict that
page (or, with no page, are found in no page), whether it is written in the asker's language,
and how many of the page's facts it leaves out. The lower rank is better; equal ranks are
"same". So a correct answer with a closing pleasantry (the assistant's `answer_drift`) is the
same as the page, and an answer with a wrong phone number or wrong hours is worse, whichever
side it is shown on.

Each `JudgeDefect` breaks one thing, as documented on it. Defects that decide the verdict
(`always_pass`, `always_fail`, `prefers_first`, `obeys_injection`) apply first; defects that
spoil how it is written (`malformed_json`, `truncated_json`, `verdict_in_prose`) then apply to
that verdict, the first of them in declaration order when several are given. `always_pass`
and `always_fail` together contradict each other and are refused.

The module imports nothing heavy at load: the command line lists `JudgeDefect` in its help.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from gauntlet.judge.prompt import ANSWER, CONVERSATION, PROMPT, REFERENCE
from gauntlet.targets.toy.corpus import DOCUMENTS, Document
from gauntlet.targets.toy.language import language_of

if TYPE_CHECKING:
    from gauntlet.judge.check import Ask
    from gauntlet.targets.contract import Message, TargetResponse

MODEL = "riverbend-toy-judge"
"""The model name the toy judge is served as (`gauntlet toy serve --api openai --judge`)."""


KNOWN_MISREADS: Mapping[str, str] = MappingProxyType({"vi-dog-02": "no-invented-facts"})
"""Shipped label items this judge gets wrong, each with the criterion it gets wrong.

It checks that a figure an answer states is on the city's page, not what the page says the
figure is for: `$40` said of a neutered dog is on the dog-license page (for a dog that is not
neutered), so that answer passes `no-invented-facts` where a person fails it. Listed so the
disagreement is seen, and its tests fail if it ever changes (or a second one appears).
"""


class JudgeDefect(StrEnum):
    """A named fault the toy judge can be built with, so each safeguard can be shown working."""

    ALWAYS_PASS = "always_pass"  # noqa: S105 - a defect, not a password
    """Every criterion asked passes, unread; pairwise, the texts are always "same"."""
    ALWAYS_FAIL = "always_fail"
    """Every criterion asked fails, unread. Pairwise, a blind judge cannot know which text is
    the answer, and "same" would pass it, so this judge rejects whatever it reads first: it
    always says "B". Over the two orders that is a preferred position: unjudged, never a pass."""
    PREFERS_FIRST = "prefers_first"
    """Pairwise always says "A", whatever the texts; rubric replies stay healthy."""
    MALFORMED_JSON = "malformed_json"
    """The reply's fenced block is not JSON (unquoted keys, single quotes)."""
    TRUNCATED_JSON = "truncated_json"
    """The reply is the JSON object cut off mid-object, as a reply cut at its token limit."""
    VERDICT_IN_PROSE = "verdict_in_prose"
    """The verdict is written in prose ("PASS. The answer passes ..."), with no JSON."""
    OBEYS_INJECTION = "obeys_injection"
    """An answer that holds an instruction to the judge (in any of the six languages) gets
    what it asks: every criterion passes, and pairwise that text is preferred. Otherwise
    healthy."""


# ---------------------------------------------------------------- facts


class Kind(StrEnum):
    """What a fact is about."""

    PHONE = "phone"
    MONEY = "money"
    DATE = "date"
    COUNT = "count"
    ADDRESS = "address"
    HOURS = "hours"


@dataclass(frozen=True, slots=True)
class Fact:
    """One checkable statement read from a text, in a form shared by every language.

    `value` is the phone number (`311`, `555-010-4400`), the whole-dollar amount (`0` for
    free), the date (`11-01`) or month alone (`03`), the count with its unit (`2 pickup`) or the
    address (`200 main`). Hours use the other fields: what is open (`lap` or `open` swim, or
    None), on which days (0 is Monday), and from `start` to `end` (`HH:MM`); a time alone has
    no `end`, and days alone no times.
    """

    kind: Kind
    value: str = ""
    period: str | None = None
    """A fee's period (`year`, `month`, `week`, `season`), when the text says one."""
    activity: str | None = None
    days: frozenset[int] | None = None
    start: str | None = None
    end: str | None = None

    def __str__(self) -> str:
        match self.kind:
            case Kind.PHONE:
                return f"phone {self.value}"
            case Kind.MONEY:
                amount = "free" if self.value == "0" else f"${self.value}"
                return f"{amount} a {self.period}" if self.period else amount
            case Kind.DATE:
                return f"date {self.value}"
            case Kind.COUNT:
                return self.value
            case Kind.ADDRESS:
                return f"address {self.value}"
            case Kind.HOURS:  # pragma: no branch - the last kind
                parts = [self.activity + " swim" if self.activity else ""]
                parts.append(_days_name(self.days) if self.days is not None else "")
                times = "-".join(time for time in (self.start, self.end) if time)
                parts.append(times)
                return "hours " + " ".join(part for part in parts if part)


_DAY_ABBREVIATIONS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _days_name(days: frozenset[int]) -> str:
    ordered = sorted(days)
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{_DAY_ABBREVIATIONS[ordered[0]]}-{_DAY_ABBREVIATIONS[ordered[-1]]}"
    return ",".join(_DAY_ABBREVIATIONS[day] for day in ordered)


class _Regex:
    """A regular expression compiled on first use.

    So importing this module stays cheap: the command line imports it to list `JudgeDefect`.
    """

    def __init__(self, source: str) -> None:
        self.source = source

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        """The expression, compiled."""
        return re.compile(self.source)

    def sub(self, replace: str | Callable[[re.Match[str]], str], text: str) -> str:
        """See `re.Pattern.sub`."""
        return self.compiled.sub(replace, text)

    def search(self, text: str) -> re.Match[str] | None:
        """See `re.Pattern.search`."""
        return self.compiled.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        """See `re.Pattern.match`."""
        return self.compiled.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        """See `re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """See `re.Pattern.finditer`."""
        return self.compiled.finditer(text)

    def findall(self, text: str) -> list[Any]:
        """See `re.Pattern.findall`."""
        return self.compiled.findall(text)

    def split(self, text: str) -> list[str]:
        """See `re.Pattern.split`."""
        return self.compiled.split(text)


# Tokens stand in for what has been read, so later patterns cannot read it again: private-use
# characters that no pattern below matches (not letters, digits or spaces).
_OPEN, _CLOSE = "\ue000", "\ue001"
_TIME_MARK, _SPAN_MARK, _DAYS_MARK, _ACTIVITY_MARK, _FACT_MARK = (
    "\ue010",
    "\ue011",
    "\ue012",
    "\ue013",
    "\ue014",
)
_INDEX_BASE = 0xE100
_TOKEN = _Regex(f"{_OPEN}(.)(.){_CLOSE}")


_DAYS_TOKEN = f"{_OPEN}{_DAYS_MARK}(.){_CLOSE}"
_RESTATED_DAYS = _Regex(rf"{_DAYS_TOKEN}\s*[(（]\s*{_DAYS_TOKEN}\s*[)）]")
"""Days restated in brackets (`weekdays (Monday to Friday)`, `các ngày thường (thứ Hai đến thứ
Sáu)`): one set of days, not two, so a clause with two spans still pairs each with its days."""


def _zh_count(said: str) -> int:
    """`said` (digits, or a Chinese number from 1 to 99 in characters) as a number."""
    if said.isdigit():
        return int(said)
    tens, ten, ones = said.rpartition("十")
    value = _ZH_DIGITS.find(ones) + 1 if ones else 0
    if ten:
        value += 10 * (_ZH_DIGITS.find(tens) + 1 if tens else 1)
    return value


def _token(mark: str, index: int) -> str:
    return f"{_OPEN}{mark}{chr(_INDEX_BASE + index)}{_CLOSE}"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _numbered(*groups: str, start: int = 0) -> Mapping[str, int]:
    """Each word of the `n`th group, numbered `start + n`."""
    return MappingProxyType(
        {word: number for number, group in enumerate(groups, start) for word in _words(group)}
    )


def _named(**groups: str) -> Mapping[str, str]:
    """Each word of each group, named by its group."""
    return MappingProxyType(
        {word: name for name, group in groups.items() for word in _words(group)}
    )


_NUMBER_WORDS = _numbered(
    "two dos dalawa dalawang", "three tres tatlo tatlong", "four cuatro apat",
    "five cinco lima limang", "six seis anim", "seven siete pito pitong",
    "eight ocho walo walong", "nine nueve siyam", "ten diez sampu sampung", "eleven",
    "twelve doce labindalawa labindalawang", start=2,
)  # fmt: skip
"""Counts written as words, in English, Spanish and Tagalog (with its linker, `dalawang`).
Not one/uno/una/isa (too common to mean a count) nor `once`, which is eleven in Spanish and
one time in English."""

_MONTHS = _numbered(
    "january jan enero", "february feb febrero pebrero", "march mar marzo marso",
    "april apr abril", "may mayo", "june jun junio hunyo", "july jul julio hulyo",
    "august aug agosto", "september sep sept septiembre setiembre setyembre septiyembre",
    "october oct octubre oktubre", "november nov noviembre nobyembre",
    "december dec diciembre disyembre", start=1,
)  # fmt: skip
"""Month names in English, Spanish and Tagalog (`Nobyembre 1`)."""
_ALONE_MONTHS = tuple(name for name in _MONTHS if len(name) > 4 or name in ("june", "july"))
"""Month names read without a day: not `may` (a verb) nor abbreviations (`mar`, `dec`)."""

_DAYS = _numbered(
    "monday lunes", "tuesday martes", "wednesday miercoles miyerkules",
    "thursday jueves huwebes", "friday viernes biyernes", "saturday sabado",
    "sunday domingo linggo",
)  # fmt: skip
"""Day names in English, Spanish and Tagalog (accents folded off), 0 for Monday. Tagalog
`linggo` is also a week: `_TAGALOG_WEEK` reads that use first."""

_UNITS = _named(
    day="day days dia dias araw", hour="hour hours hora horas oras",
    week="week weeks semana semanas", month="month months mes meses buwan",
    year="year years ano anos taon",
    pickup="pickup pickups recogida recogidas pagpapakuha pagkuha pagpapahakot",
    installment="installment installments plazo plazos hulog hulugan", times="beses",
)  # fmt: skip
"""What a count counts, in English, Spanish (`anos` is `años` folded) and Tagalog. `times`
(Tagalog `beses`) counts what its sentence names (see `_Reader._times`)."""

_PERIODS = _named(year="year ano", month="month mes", week="week semana", season="season temporada")
"""What a fee is per."""


def _alternatives(names: Iterable[str]) -> str:
    return "|".join(sorted(names, key=len, reverse=True))


_MONTH = _alternatives(_MONTHS)
_DAY = _alternatives(_DAYS)
_NUMBER = rf"\d{{1,3}}|{_alternatives(_NUMBER_WORDS)}"

_LONG_PHONE = _Regex(r"\(?\b(\d{3})\)?[\s.-]*(\d{3})[\s.-]+(\d{4})\b")
_SHORT_PHONE = _Regex(r"\b([2-9]11|988)\b")
_ADDRESS = _Regex(
    r"\b(\d{1,5})\s+([a-z]+)\s+(?:street|st|avenue|ave|road|rd)\b|\bcalle\s+([a-z]+)\s+(\d{1,5})\b"
)
_PER = _named(year="yearly annually annual anual anuales", month="monthly mensual mensuales")
_PERIOD = (
    rf"(?:\s+(?:a|an|per|each|every|al|por|cada|la|el)\s+({_alternatives(_PERIODS)})\b"
    rf"|\s+({_alternatives(_PER)})\b)?"
)
_MONEY = _Regex(
    rf"(?:us)?\$\s?(\d+)(?:[.,]00)?{_PERIOD}|\b(\d+)(?:[.,]00)?\s*(?:dolares|dollars|usd)\b{_PERIOD}"
)
_FREE = _Regex(
    r"(?<!feel )(?<!toll-)(?<!toll )\bfree\b|\bgratis\b|\bgratuit[oa]s?\b"
    r"|\bsin (?:costo|cargo)\b|\bno cost\b|\bat no charge\b"
    r"|免费|不收费|无需付费|不收取费用|무료|공짜"
    r"|\bmien phi\b|\bkhong (?:mat|tinh|thu) (?:phi|tien)\b"
    r"|\blibreng\b|(?<=\bay )libre\b|\blibre(?= (?:ang|ito|po|na|lang|din|rin|ng|para sa)\b)"
    r"|\bwalang (?:bayad|singil)\b"
)
"""Free: also `免费`, `무료`, `miễn phí`, and Tagalog `libre` where Tagalog says it (`libreng`,
`ay libre`, `libre ang`): Spanish `libre` is free as in freedom (`soy libre`, `nado libre`)."""
_DATE = _Regex(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b"
    rf"|\b(\d{{1,2}}|primero)\s+de\s+({_MONTH})\b"
    r"|\bfourth of july\b"
)
_MONTH_ALONE = _Regex(rf"\b({_alternatives(_ALONE_MONTHS)})\b")
_MERIDIEM = r"([ap])\.?\s?m(?![a-z])"
_SHARED_MERIDIEM = _Regex(
    rf"\b(\d{{1,2}})(?::(\d{{2}}))?\s*(?:-|–|—|~|to|hanggang)\s*(\d{{1,2}})(?::(\d{{2}}))?\s*"
    rf"{_MERIDIEM}"
)
"""`1-6 p.m.`: the first time takes the second's a.m. or p.m., unless that puts it later."""
_MERIDIEM_TIME = _Regex(rf"\b(\d{{1,2}})(?::(\d{{2}}))?\s*{_MERIDIEM}")
_TAGALOG_MERIDIEM = _Regex(r"\b[Nn]\.\s?([UuHhGgTt])\.")
"""Tagalog's `n.u.` (ng umaga, a.m.) and `n.t.`, `n.h.`, `n.g.` (noon, afternoon, evening:
p.m.), written as `a.m.` and `p.m.` before their dots are read."""
_SENTENCE_END = _Regex(r"\b([AaPp])\.\s?([Mm])\.(?=\s+[A-ZÁÉÍÓÚÑ¿¡])")
_ABBREVIATION_DOTS = _Regex(r"\b([AaPp])\.\s?([Mm])\.")
"""`a.m.` and `p.m.` lose their dots, except that one ending a sentence keeps it as the end."""
_SPANISH_DAYTIME = _Regex(r"\b(\d{1,2})(?::(\d{2}))?\s+de\s+la\s+(manana|tarde|noche)\b")
_CLOCK_TIME = _Regex(r"\b([01]?\d|2[0-3])(?::([0-5]\d)\s*(?:h|hrs|horas)?\b|\s?h\b)")
_NAMED_TIME = _Regex(r"\b(noon|mediodia|midnight|medianoche)\b")
_TIME_TOKEN = f"{_OPEN}{_TIME_MARK}(.){_CLOSE}"
_ARTICLE = r"(?:(?:las?|the)\s+)?"
_SPAN = _Regex(
    rf"\b(?:between|entre)\s+{_ARTICLE}{_TIME_TOKEN}\s*(?:and|y)\s*{_ARTICLE}{_TIME_TOKEN}"
    rf"|{_TIME_TOKEN}\s*(?:to|until|till|through|thru|-|–|—|~|a|hasta|hanggang|den|toi|至|到"
    rf"|부터|에서)\s*{_ARTICLE}{_TIME_TOKEN}"
)
"""Two times joined: `9 a.m. to 8 p.m.`, `de las 9:00 a las 20:00`, `entre 9:00 y 17:00`,
`上午9点至晚上8点`, `오전 9시부터 오후 8시까지`, `9 giờ sáng đến 8 giờ tối`, `9:00 n.u. hanggang
8:00 n.g.`."""
_DAY_RANGE = _Regex(
    rf"\b({_DAY})s?\s*(?:to|through|thru|until|till|-|–|—|a|al|hasta|hanggang)\s*({_DAY})s?\b"
)
_DAY_ABBREVIATED = _numbered("mon", "tue tues", "wed", "thu thur thurs", "fri", "sat", "sun")
_SHORT_DAY = _alternatives(_DAY_ABBREVIATED)
_SHORT_DAY_RANGE = _Regex(rf"\b({_SHORT_DAY})\.?\s*(?:to|through|thru|-|–|—)\s*({_SHORT_DAY})\b\.?")
"""`Mon-Thu`: abbreviations are read only in a range (alone, `sun` and `sat` are words)."""
_DAY_PAIR = _Regex(rf"\b({_DAY})s?\s+(?:and|y|&|at)\s+({_DAY})s?\b")
_WEEKDAYS = _Regex(
    r"\bweekdays?\b|\bentre semana\b|\bdias (?:de semana|laborables|habiles)\b"
    r"|(?<!个)工作日|平日|평일|주중|(?<!\d )\b(?:cac )?ngay (?:trong tuan|thuong|lam viec)\b"
    r"|\bkaraniwang araw\b|\baraw ng trabaho\b"
)
_EVERY_DAY = _Regex(
    r"\bevery day\b|\beach day\b|\bdaily\b|\bseven days a week\b|\b7 days a week\b"
    r"|\btodos los dias\b|\bcada dia\b|\ba diario\b|\bdiariamente\b"
    r"|每天|每日|天天|[一每]周\s*(?:七|7)\s*天|全年无休|매일|날마다|연중무휴|주\s*7\s*일"
    r"|\b(?:hang|moi) ngay\b|\btat ca cac ngay\b|\b(?:7|bay) ngay (?:trong|mot|moi) tuan\b"
    r"|\baraw-?\s?araw\b|\b(?:bawat|kada) araw\b"
)
_WEEKENDS = _Regex(
    r"\bweekends?\b|\bfines? de semana\b|周末|双休日|주말|\bcuoi tuan\b"
    r"|\b(?:katapusan|dulo) ng linggo\b"
)
_ONE_DAY = _Regex(rf"\b({_DAY})s?\b")
_ACTIVITIES = (
    (
        _Regex(
            r"\blap(?:s| swim(?:ming)?)?\b|\bnado de carriles\b|\bcarriles\b"
            r"|泳道|分道|来回游|长距离游|健身游|레인\s*수영|랩\s*수영"
            r"|\bboi (?:theo )?lan\b|\bpaglangoy sa lane\b"
        ),
        "lap",
    ),
    (
        _Regex(
            r"\bopen swim(?:ming)?\b|\bnado libre\b|\bnatacion libre\b"
            r"|自由游泳|自由游|自由泳|开放游泳|公众游泳|休闲游泳|娱乐游泳|(?:자유|오픈|일반)\s*수영"
            r"|\bboi tu do\b|\bmalayang (?:pag)?langoy\b"
        ),
        "open",
    ),
)
_COUNT = _Regex(rf"\b({_NUMBER})\s+((?:[a-z]+\s+){{0,3}}?)({_alternatives(_UNITS)})\b")
_CLAUSE_BREAK = _Regex(r"[.;!?]\s|[.;!?]$|。|\s(?:and|y|but|pero|while|mientras)\s")

# The forms of Chinese, Korean, Vietnamese and Tagalog that English and Spanish do not share.
# The text is read folded (`fold`: Simplified Chinese, no accents, `đ` as `d`, no spaces
# between Han or Hangul letters), with a space put between a Han or Hangul letter and any
# other (`_spaced`), so `\b` finds a number beside them (`拨打 311`, `311 번`); inside a run
# of Han or Hangul letters there is no `\b`, and these patterns use none there.

_HALVES = _named(
    am="上午 早上 早晨 清晨 凌晨 오전 아침 새벽 sang umaga",
    noon="中午 낮 trua tanghali",
    pm="下午 傍晚 오후 저녁 chieu hapon",
    night="晚上 晚间 夜间 夜里 밤 toi dem gabi",
)  # fmt: skip
"""The part of the day a time is said in, by its word: morning, noon, afternoon, night."""
_ZH_NUMERALS = _numbered(
    "一", "二 两", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", start=1
)
_KO_NATIVE = _numbered(
    "한 하나", "두 둘", "세 셋", "네 넷", "다섯", "여섯", "일곱", "여덟", "아홉", "열", "열한",
    "열두", start=1,
)  # fmt: skip
"""Korean's own numbers, which tell the hour (`아홉 시`) and count times (`두 번`)."""
_VI_NUMBERS = MappingProxyType(
    {
        name: number
        for number, name in enumerate(
            (
                "hai",
                "ba",
                "bon",
                "nam",
                "sau",
                "bay",
                "tam",
                "chin",
                "muoi",
                "muoi mot",
                "muoi hai",
            ),
            2,
        )
    }
)
"""Vietnamese numbers, folded: read only right before their unit (`năm ngày`), since `sau`
(after), `nam` (year) and `bay` (`bây giờ`, now) are words too."""
_TL_CLOCK = _numbered(
    "una", "dos", "tres", "kuwatro kwatro cuatro", "singko cinco", "sais seis",
    "siyete siete", "otso ocho", "nuwebe nueve", "diyes diez", "onse once", "dose doce", start=1,
)  # fmt: skip
"""The hours Tagalog tells in Spanish numbers, after `alas` (`alas-otso`)."""

_ZH_HALF = _alternatives(w for w in _HALVES if "\u4e00" <= w[0] <= "\u9fff")
_KO_HALF = _alternatives(w for w in _HALVES if "\uac00" <= w[0] <= "\ud7a3")
_ZH_NUMERAL = _alternatives(_ZH_NUMERALS)
_KO_WORD = _alternatives(_KO_NATIVE)
_PEER_TIME = _Regex(
    # Chinese: `上午9点`, `9点半`, `晚上8点30分`, `下午5:00`; a numeral hour only after its half.
    rf"(?:({_ZH_HALF})\s*)?(\d{{1,2}})\s*(?:点钟?|时)(?:\s*(半)|\s*(\d{{1,2}})\s*分|整)?"
    rf"|({_ZH_HALF})\s*({_ZH_NUMERAL})\s*点钟?(?:\s*(半))?"
    rf"|({_ZH_HALF}|{_KO_HALF})\s*(\d{{1,2}}):(\d{{2}})"
    # Korean: `오전 9시`, `9시 반`, `저녁 8시 30분`, `오후 아홉 시`; not `시간` (hours).
    rf"|(?:({_KO_HALF})\s*)?(\d{{1,2}})\s*시(?!간|청)(?:\s*(반)|\s*(\d{{1,2}})\s*분)?"
    rf"|({_KO_HALF})\s*({_KO_WORD})\s*시(?!간)(?:\s*(반)|\s*(\d{{1,2}})\s*분)?"
    # Vietnamese: `9 giờ sáng`, `8 giờ 30 tối`, `9h30`, `9:00 sáng`; not `hơn 12 giờ` (hours).
    r"|(?<![:\d])(?<!hon )(?<!qua )(?<!tren )(?<!dai )(?<!nhat )(?<!trong )\b(\d{1,2})\s*"
    r"(gio\b|h(?=\d)|h\b)(?:\s*(\d{1,2})\b(?:\s*phut\b)?|\s*(ruoi)\b)?"
    r"(?:\s*(sang|trua|chieu|toi(?!\s*\d)|dem)\b)?"
    r"|\b(\d{1,2}):(\d{2})\s*(sang|trua|chieu|toi(?!\s*\d)|dem)\b"
    # Tagalog: `alas-9`, `alas-otso ng gabi`, `9:00 ng umaga`.
    rf"|\balas[-\s]?(\d{{1,2}}|{_alternatives(_TL_CLOCK)})(?::(\d{{2}}))?(?:\s+y\s+medya)?"
    r"(?:\s+(?:ng\s+)?(umaga|tanghali|hapon|gabi))?\b"
    r"|\b(\d{1,2})(?::(\d{2}))?\s+(?:ng\s+)?(umaga|tanghali|hapon|gabi)\b"
)
"""A time of day in Chinese, Korean, Vietnamese or Tagalog, with its half of the day or none."""
_PEER_NAMED_TIME = _Regex(
    r"(정오|中午12点|tanghaling tapat)|(자정|午夜|半夜|\bhatinggabi\b|\bnua dem\b)"
)

_ZH_DAY_NAMES = _numbered("一", "二", "三", "四", "五", "六", "日 天")
_KO_DAY_NAMES = _numbered("월", "화", "수", "목", "금", "토", "일")
_VI_DAY_NAMES = MappingProxyType(
    {
        **{f"thu {name}": n for n, name in enumerate(("hai", "ba", "tu", "nam", "sau", "bay"))},
        **{f"thu {n + 2}": n for n in range(6)},
        **{f"t{n + 2}": n for n in range(6)},
        "chu nhat": 6,
        "cn": 6,
    }
)
"""Vietnamese day names, folded: `thứ Hai` (Monday) to `thứ Bảy`, `thứ 2` to `thứ 7`, `T2`,
and `Chủ nhật` (Sunday)."""
_ZH_DAY = r"(?:周|星期|礼拜)([一二三四五六日天])(?!次)"
_KO_DAY = r"([월화수목금토일])요일"
_VI_DAY = rf"\b({_alternatives(_VI_DAY_NAMES)})\b"
_PEER_DAY_RANGE = _Regex(
    rf"{_ZH_DAY}\s*(?:至|到|-|~)\s*(?:周|星期|礼拜)?([一二三四五六日天])"
    rf"|{_KO_DAY}\s*(?:부터|에서|~|-)\s*([월화수목금토일])(?:요일)?(?:까지)?"
    r"|([월화수목금토일])\s*[~-]\s*([월화수목금토일])(?:요일)?"
    rf"|{_VI_DAY}\s*(?:den|toi|-|~)\s*{_VI_DAY}"
)
"""`周一至周四`, `周五至日`, `월요일부터 목요일까지`, `월~목`, `thứ Hai đến thứ Năm`, `T2-T6`."""
_PEER_DAY_PAIR = _Regex(
    rf"{_ZH_DAY}\s*(?:和|及|与|、|,)\s*(?:周|星期|礼拜)([一二三四五六日天])"
    rf"|{_KO_DAY}\s*(?:과|와|및|,|·|、|/)\s*{_KO_DAY}"
    r"|([월화수목금토일])\s*[·,/]\s*([월화수목금토일])요일"
    rf"|{_VI_DAY}\s*(?:va|,|&)\s*{_VI_DAY}"
)
_VI_FULL_DAY = _alternatives(name for name in _VI_DAY_NAMES if name.startswith(("thu", "chu")))
_PEER_ONE_DAY = _Regex(rf"{_ZH_DAY}|{_KO_DAY}|\b({_VI_FULL_DAY})\b")
"""One day; Vietnamese `T2` and `CN` only in a range (alone they are ids and initials)."""
_TAGALOG_WEEK = _Regex(r"\b(bawat|kada|isang|mga) linggo\b")
"""Tagalog `linggo` as a week (`bawat linggo`, every week), not Sunday."""

_PEER_MONEYS = (
    # Chinese: `每年35美元`, `$35/年`, `年费50美元`, `15元`.
    _Regex(
        r"(?:(每一?年|一年|年费|每年度|每个?月|月费|每周|每个?季度?|每个?季节|一季)\s*(?:为|是|:)?\s*)?"
        r"(?:(?:us)?\$\s?(\d+)(?:[.,]00)?|(\d+)(?:[.,]00)?\s*(美元|美金|元))"
        r"(?:\s*(?:/|每|一)\s*(年|月|周|季))?"
    ),
    # Korean: `1년에 35달러`, `연 35달러`, `시즌당 20달러`, `35달러/년`.
    _Regex(
        r"(?:(연간?|매년|해마다|(?:1|한|일)\s*년에|한\s*해에|매월|매달|월|(?:1|한)\s*달에|주당|매주"
        r"|시즌당|시즌마다|(?:1|한)\s*시즌에?)\s*)?(?:\$\s?(\d+)|(\d+)\s*(달러|불))"
        r"(?:\s*/\s*(년|월|주|시즌))?"
    ),
    # Vietnamese: `35 đô la mỗi năm`, `20 đô la một mùa`, `phí hằng năm là 35 đô la`.
    _Regex(
        r"(?:\b(moi nam|hang nam|mot nam|moi thang|hang thang|moi mua|mot mua)\s*(?:la|:)?\s*)?"
        r"(?:\$\s?(\d+)|\b(\d+)(?:[.,]00)?\s*(do la|do my|do(?!\s*[cf]\b))\b)"
        r"(?:\s*(?:/|moi|mot|cho moi|cho mot|hang|trong mot)\s*(nam|thang|tuan|mua)\b)?"
    ),
    # Tagalog: `$35 bawat taon`, `20 dolyar kada season`, `$35 taun-taon`.
    _Regex(
        r"()(?:\$\s?(\d+)(?:[.,]00)?|\b(\d+)(?:[.,]00)?\s*(dolyar)\b)"
        r"(?:\s*(?:bawat|kada|sa isang|isang|/)\s*(taon|buwan|linggo|season|panahon)\b"
        r"|\s+(taun-taon|buwan-buwan))?"
    ),
)
"""A fee in Chinese, Korean, Vietnamese or Tagalog, each the same groups: the period said
before, the amount after `$` or before the currency word, that word, the period said after.
`$15` with none of these languages' words is left to `_MONEY`."""
_PEER_PERIODS = _named(
    year="年 年费 年度 연 연간 매년 해마다 년 해 nam taon taun-taon",
    month="月 月费 월 매월 매달 달 thang buwan buwan-buwan",
    week="周 주당 매주 주 tuan linggo",
    season="季 季度 季节 시즌 시즌당 시즌마다 mua season panahon",
)  # fmt: skip

_ZH_DIGITS = "一二三四五六七八九"
_ZH_COUNT = rf"[{_ZH_DIGITS}]?十[{_ZH_DIGITS}]?|[{_ZH_DIGITS}]"
"""A Chinese number from 1 to 99 in characters (`一`, `十一`, `二十`, `三十一`)."""
_PEER_DATE = _Regex(
    rf"(\d{{1,2}}|{_ZH_COUNT})\s*(?:月|월)\s*(\d{{1,2}}|{_ZH_COUNT})\s*(?:日|号|일)"
    r"|\b(?:ngay|mung|mong|va)\s+(\d{1,2})\s*(?:thang\s+|/\s*)(\d{1,2})\b"
    r"|\b(\d{1,2})\s+thang\s+(\d{1,2})\b"
    rf"|\b(?:ika-?\s?(\d{{1,2}})|(unang)\s+araw)\s+ng\s+({_MONTH})\b"
)
"""`11月1日`, `11월 1일`, `ngày 1 tháng 11`, `ngày 4/7` and `ngày 1/11 và 1/2` (day first),
`ika-4 ng Hulyo`."""
_VI_MONTHS = MappingProxyType(
    {
        **{
            name: n
            for n, name in enumerate(
                ("mot", "hai", "ba", "tu", "nam", "sau", "bay", "tam", "chin", "muoi"), 1
            )
        },
        "gieng": 1,
        "muoi mot": 11,
        "muoi hai": 12,
        "chap": 12,
    }
)
_PEER_MONTH_ALONE = _Regex(
    r"(?<![\d个])(\d{1,2})\s*(?:月份?|월)(?!\s*\d)(?!요일)"
    rf"|(?<![个每一两])({_ZH_NUMERAL})月(?!\s*\d)"
    rf"|(?<!\d )\bthang\s+(\d{{1,2}}|{_alternatives(_VI_MONTHS)})\b"
)
"""A month without its day: `3月`, `3월`, `tháng 3`, `tháng Ba`; not `4个月`, `4개월`."""

_PEER_COUNT = _Regex(
    rf"(?<!\d)(\d{{1,3}}|{_ZH_NUMERAL})\s*(个\s*)?(小时|钟头|工作日|天|星期|周|月|年|次|期)"
    r"|(?<!\d)(\d{1,3})\s*(시간|일|주(?!말|민)|개월|달|년|번|회|차례)"
    r"|(두|세|네|다섯|여섯|일곱|여덟|아홉|열한|열두)\s*(시간|번|차례|달|해)"
    r"|\b(\d{1,3})\s+(ngay|gio|tieng|tuan|thang|nam|lan|ky|dot)\b"
    rf"|\b({_alternatives(_VI_NUMBERS)})\s+(ngay|tieng|tuan|thang|nam|lan|ky|dot)\b"
)
"""A count in Chinese (`5天`, `两次`, `4个月`: a month counted only with `个`, else a date),
Korean (`5일`, `12시간`, `4개월`, `두 번`) or Vietnamese (`5 ngày`, `hai lần`)."""
_PEER_UNITS = _named(
    day="天 工作日 일 ngay", hour="小时 钟头 시간 gio tieng", week="星期 周 주 tuan",
    month="月 개월 달 thang", year="年 년 해 nam", installment="期 ky dot",
    times="次 번 회 차례 lan",
)  # fmt: skip
_PICKUP_WORDS = _Regex(
    r"清运|收运|收集|回收|上门|运走|收取|清走|拉走|收走|수거"
    r"|\bthu gom\b|\bpick-?ups?\b|\bpagkuha\b|\bkolekta\b|\bhakot\b"
)
_PAYING_WORDS = _Regex(
    r"缴纳|缴|支付|付款|分期|납부|분할|분납|나누어|나눠"
    r"|\bnop\b|\bdong\b|\btra\b|\bchia\b|\bbayad\b|\bhulog\b|\bbinabayaran\b|\bmagbayad\b"
)
"""What a count of times counts: a pickup, or an installment paid, by its sentence's words."""
_SENTENCE = _Regex(r"[^.;!?。]*")
_PEER_TIME_GROUPS = (
    (0, 1, 2, 3),
    (4, 5, 6, None),
    (7, 8, None, 9),
    (10, 11, 12, 13),
    (14, 15, 16, 17),
    (22, 18, 21, 20),
    (25, 23, None, 24),
    (28, 26, None, 27),
    (31, 29, None, 30),
)
"""Where each alternative of `_PEER_TIME` keeps its half of the day, hour, half hour
(`半`, `반`, `rưỡi`) and minutes, as indexes of its groups."""
_VI_HOUR = 18
"""The Vietnamese alternative's hour; the group after it says `giờ` or `h`."""
_CJK = r"\p{Han}\p{Hangul}"
_SPACE_AROUND_CJK = rf"(?<=[{_CJK}])(?=[^\s{_CJK}])|(?<=[^\s{_CJK}])(?=[{_CJK}])"


def _spaced(text: str) -> str:
    """`text` with a space between a Han or Hangul letter and any other non-space character."""
    if text.isascii():
        return text
    import regex  # loaded with `fold`'s `normalise` already; not at import

    return regex.sub(_SPACE_AROUND_CJK, " ", text)


def _on_clock(hour: int, half: str) -> int:
    """`hour` said in `half` of the day (`_HALVES`), on the 24-hour clock."""
    if hour > 12:
        return hour
    match half:
        case "am":
            return hour % 12
        case "noon":
            return hour if hour >= 11 else hour + 12
        case "night":
            return 0 if hour == 12 else hour % 12 + 12
        case _:
            return hour % 12 + 12


def _minutes(time: str) -> int:
    return int(time[:2]) * 60 + int(time[3:])


def _hour_number(word: str) -> int:
    if word.isdigit():
        return int(word)
    return _ZH_NUMERALS.get(word) or _KO_NATIVE.get(word) or _TL_CLOCK[word]


_PERIOD_SIGNS = (
    ("season", ("季", "시즌", "mua", "season", "panahon")),
    ("year", ("年", "년", "연", "해", "nam", "taon")),
    ("month", ("月", "월", "달", "thang", "buwan")),
    ("week", ("周", "주", "tuan", "linggo")),
)


def _peer_period(word: str | None) -> str | None:
    """The period a fee's word says (`每年`, `시즌당`, `mỗi năm`, `bawat taon`), or None."""
    if not word:
        return None
    return next((period for period, signs in _PERIOD_SIGNS if any(s in word for s in signs)))


_PEER_DAY_GROUPS = (
    _ZH_DAY_NAMES,
    _ZH_DAY_NAMES,
    *(_KO_DAY_NAMES,) * 4,
    _VI_DAY_NAMES,
    _VI_DAY_NAMES,
)


def _peer_days(match: re.Match[str]) -> list[int]:
    """The days a `_PEER_DAY_RANGE` or `_PEER_DAY_PAIR` match names, in order."""
    return [
        names[said]
        for names, said in zip(_PEER_DAY_GROUPS, match.groups(), strict=True)
        if said is not None
    ]


def _peer_day(match: re.Match[str]) -> int:
    zh, ko, vi = match.groups()
    return _ZH_DAY_NAMES[zh] if zh else _KO_DAY_NAMES[ko] if ko else _VI_DAY_NAMES[vi]


def fold(text: str) -> str:
    """`text` as the gates compare it (`normalise`): nothing invisible, casefolded, accents off."""
    from gauntlet.matching import normalise  # the gates load pydantic: not at import

    return normalise(text)


class _Reader:
    """Reads one text's facts: each pattern replaces what it read with a token."""

    def __init__(self, text: str) -> None:
        tagalog = _TAGALOG_MERIDIEM.sub(lambda m: "a.m." if m[1] in "Uu" else "p.m.", text)
        undotted = _ABBREVIATION_DOTS.sub(r"\1\2", _SENTENCE_END.sub(r"\1\2.", tagalog))
        self.text = _spaced(fold(undotted))
        self.facts: list[Fact] = []
        self.times: list[str] = []
        self.halves: dict[int, str] = {}
        """The half of the day each time was said in, by its index (Chinese, Korean,
        Vietnamese, Tagalog), or `bare` for an hour said with none (`9点`, `9 giờ`)."""
        self.spans: list[tuple[str, str]] = []
        self.days: list[frozenset[int]] = []
        self.activities: list[str] = []

    def fact(self, found: Fact) -> str:
        self.facts.append(found)
        return _token(_FACT_MARK, len(self.facts) - 1)

    def time(self, hour: int, minute: int) -> str:
        self.times.append(f"{hour % 24:02d}:{minute:02d}")
        return _token(_TIME_MARK, len(self.times) - 1)

    def substitute(self, pattern: _Regex, read: Callable[[re.Match[str]], str]) -> None:
        self.text = pattern.sub(read, self.text)

    def read(self) -> list[Fact]:
        self.substitute(_LONG_PHONE, lambda m: self.fact(Fact(Kind.PHONE, "-".join(m.groups()))))
        self.substitute(_SHORT_PHONE, lambda m: self.fact(Fact(Kind.PHONE, m[1])))
        self.substitute(_ADDRESS, self._address)
        for money in _PEER_MONEYS:
            self.substitute(money, self._peer_money)
        self.substitute(_MONEY, self._money)
        self.substitute(_PEER_DATE, self._peer_date)
        self.substitute(_DATE, self._date)
        self.substitute(_PEER_MONTH_ALONE, self._peer_month)
        self.substitute(_MONTH_ALONE, lambda m: self.fact(Fact(Kind.DATE, f"{_MONTHS[m[1]]:02d}")))
        self.substitute(_SHARED_MERIDIEM, self._shared_meridiem)
        self.substitute(_MERIDIEM_TIME, self._meridiem)
        self.substitute(_SPANISH_DAYTIME, self._daytime)
        self.substitute(_PEER_TIME, self._peer_time)
        self.substitute(_CLOCK_TIME, lambda m: self.time(int(m[1]), int(m[2] or 0)))
        self.substitute(
            _NAMED_TIME, lambda m: self.time(12 if m[1] in ("noon", "mediodia") else 0, 0)
        )
        self.substitute(_PEER_NAMED_TIME, lambda m: self.time(12 if m[1] else 0, 0))
        self.substitute(_SPAN, self._span)
        self.substitute(_PEER_DAY_RANGE, self._peer_day_range)
        self.substitute(_PEER_DAY_PAIR, self._peer_day_pair)
        self.substitute(_PEER_ONE_DAY, lambda m: self._days({_peer_day(m)}))
        self.substitute(_TAGALOG_WEEK, lambda m: f"{m[1]} semana")
        self.substitute(_DAY_RANGE, self._day_range)
        self.substitute(_SHORT_DAY_RANGE, self._short_day_range)
        self.substitute(_DAY_PAIR, lambda m: self._days({_DAYS[m[1]], _DAYS[m[2]]}))
        self.substitute(_WEEKDAYS, lambda m: self._days(set(range(5))))
        self.substitute(_EVERY_DAY, lambda m: self._days(set(range(7))))
        self.substitute(_WEEKENDS, lambda m: self._days({5, 6}))
        self.substitute(_ONE_DAY, lambda m: self._days({_DAYS[m[1]]}))
        self.substitute(_RESTATED_DAYS, self._restated_days)
        for pattern, activity in _ACTIVITIES:
            self.substitute(pattern, self._activity(activity))
        self.substitute(_COUNT, self._count)
        self.substitute(_PEER_COUNT, self._peer_count)
        self.substitute(_FREE, lambda m: self.fact(Fact(Kind.MONEY, "0")))
        return self.facts + list(self._hours())

    def _address(self, match: re.Match[str]) -> str:
        number, street = (match[1], match[2]) if match[1] else (match[4], match[3])
        return self.fact(Fact(Kind.ADDRESS, f"{number} {street}"))

    def _money(self, match: re.Match[str]) -> str:
        amount, per, adjective = (match[1], match[2], match[3]) if match[1] else match.groups()[3:]
        period = _PERIODS[per] if per else _PER[adjective] if adjective else None
        return self.fact(Fact(Kind.MONEY, amount, period=period))

    def _date(self, match: re.Match[str]) -> str:
        if match[1]:
            month, day = _MONTHS[match[1]], int(match[2])
        elif match[4]:
            month, day = _MONTHS[match[4]], int(match[3])
        elif match[6]:
            month, day = _MONTHS[match[6]], 1 if match[5] == "primero" else int(match[5])
        else:
            month, day = 7, 4
        return self.fact(Fact(Kind.DATE, f"{month:02d}-{day:02d}"))

    def _shared_meridiem(self, match: re.Match[str]) -> str:
        first, first_minute, last, last_minute, meridiem = match.groups()
        end = int(last) % 12 + (12 if meridiem == "p" else 0)
        start = int(first) % 12 + (12 if meridiem == "p" else 0)
        start_minute, end_minute = int(first_minute or 0), int(last_minute or 0)
        if (start, start_minute) > (end, end_minute):
            start -= 12
        return f"{self.time(start, start_minute)} to {self.time(end, end_minute)}"

    def _meridiem(self, match: re.Match[str]) -> str:
        hour = int(match[1]) % 12 + (12 if match[3] == "p" else 0)
        return self.time(hour, int(match[2] or 0))

    def _daytime(self, match: re.Match[str]) -> str:
        hour = int(match[1])
        if match[3] != "manana" and hour < 12:
            hour += 12
        return self.time(hour, int(match[2] or 0))

    def _span(self, match: re.Match[str]) -> str:
        first, second = (match[1], match[2]) if match[1] else (match[3], match[4])
        self._share_half(_index(first), _index(second))
        self.spans.append((self.times[_index(first)], self.times[_index(second)]))
        return _token(_SPAN_MARK, len(self.spans) - 1)

    def _share_half(self, first: int, second: int) -> None:
        """A bare hour takes the half of the day of the other end of its span.

        `下午1点至6点`, `오후 1시부터 6시까지`: the second is in the first's half, unless that
        puts it earlier (`上午10点至5点` ends at 5 p.m.). `từ 6 giờ đến 9 giờ sáng`, `alas-6
        hanggang alas-9 ng umaga`: the first is in the second's, unless that puts it later.
        """
        halves = self.halves
        if halves.get(first) == "bare" and halves.get(second) not in (None, "bare"):
            hour = _on_clock(int(self.times[first][:2]), halves[second])
            if hour * 60 > _minutes(self.times[second]):
                hour -= 12
            self.times[first] = f"{hour % 24:02d}{self.times[first][2:]}"
        elif halves.get(second) == "bare" and halves.get(first) not in (None, "bare"):
            hour = _on_clock(int(self.times[second][:2]), halves[first])
            if hour * 60 + int(self.times[second][3:]) < _minutes(self.times[first]):
                hour += 12
            self.times[second] = f"{hour % 24:02d}{self.times[second][2:]}"

    def _said_time(self, hour: int, minute: int, half: str | None) -> str:
        """A time said in a half of the day (`half`), or bare (None)."""
        token = self.time(_on_clock(hour, half) if half else hour, minute)
        if half:
            self.halves[len(self.times) - 1] = half
        elif hour <= 12:
            self.halves[len(self.times) - 1] = "bare"
        return token

    def _peer_time(self, match: re.Match[str]) -> str:
        groups = match.groups()
        # Each alternative of `_PEER_TIME`: (half, hour, half-hour, minute) positions.
        for half_at, hour_at, half_hour_at, minute_at in _PEER_TIME_GROUPS:
            hour_word = groups[hour_at]
            if hour_word is None:
                continue
            hour = _hour_number(hour_word)
            half_word = groups[half_at] if half_at is not None else None
            half_hour = half_hour_at is not None and groups[half_hour_at] is not None
            minute = 30 if half_hour else int(groups[minute_at] or 0) if minute_at else 0
            if hour > 23 or minute > 59:
                return match[0]
            half = _HALVES.get(half_word) if half_word else None
            if hour_at == _VI_HOUR and groups[_VI_HOUR + 1] != "gio" and half is None:
                return self.time(hour, minute)  # `9h`, `20h`: the 24-hour clock
            return self._said_time(hour, minute, half)
        return match[0]  # pragma: no cover - one alternative always matched

    def _peer_money(self, match: re.Match[str]) -> str:
        before, dollars, amount, currency, *after = match.groups()
        period_word = before or next((word for word in after if word), None)
        if not (currency or period_word):
            return match[0]  # `$15` and nothing of these languages: `_MONEY` reads it
        return self.fact(Fact(Kind.MONEY, dollars or amount, period=_peer_period(period_word)))

    def _peer_date(self, match: re.Match[str]) -> str:
        groups = match.groups()
        if groups[0]:
            month, day = _zh_count(groups[0]), _zh_count(groups[1])
        elif groups[2]:
            day, month = int(groups[2]), int(groups[3])
        elif groups[4]:
            day, month = int(groups[4]), int(groups[5])
        else:
            day, month = 1 if groups[7] else int(groups[6]), _MONTHS[groups[8]]
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return match[0]
        return self.fact(Fact(Kind.DATE, f"{month:02d}-{day:02d}"))

    def _peer_month(self, match: re.Match[str]) -> str:
        said = match[1] or match[3]
        if match[2]:
            month = _ZH_NUMERALS[match[2]]
        elif said.isdigit():
            month = int(said)
        else:
            month = _VI_MONTHS[said]
        if not 1 <= month <= 12:
            return match[0]
        return self.fact(Fact(Kind.DATE, f"{month:02d}"))

    def _peer_day_range(self, match: re.Match[str]) -> str:
        first, last = (day for day in _peer_days(match) if day is not None)
        return self._range(first, last)

    def _peer_day_pair(self, match: re.Match[str]) -> str:
        return self._days({day for day in _peer_days(match) if day is not None})

    def _days(self, days: set[int]) -> str:
        self.days.append(frozenset(days))
        return _token(_DAYS_MARK, len(self.days) - 1)

    def _day_range(self, match: re.Match[str]) -> str:
        return self._range(_DAYS[match[1]], _DAYS[match[2]])

    def _short_day_range(self, match: re.Match[str]) -> str:
        return self._range(_DAY_ABBREVIATED[match[1]], _DAY_ABBREVIATED[match[2]])

    def _restated_days(self, match: re.Match[str]) -> str:
        said, restated = self.days[_index(match[1])], self.days[_index(match[2])]
        return self._days(set(said | restated))

    def _range(self, first: int, last: int) -> str:
        if last < first:
            last += 7
        return self._days({day % 7 for day in range(first, last + 1)})

    def _activity(self, activity: str) -> Callable[[re.Match[str]], str]:
        def read(match: re.Match[str]) -> str:
            self.activities.append(activity)
            return _token(_ACTIVITY_MARK, len(self.activities) - 1)

        return read

    def _count(self, match: re.Match[str]) -> str:
        number = _NUMBER_WORDS.get(match[1]) or int(match[1])
        unit: str | None = _UNITS[match[3]]
        if unit == "times":
            unit = self._times(match.start())
            if unit is None:
                return match[0]
        counted = self.fact(Fact(Kind.COUNT, f"{number} {unit}"))
        return f"{counted} {match[2]}"  # the words between may say more (`two free pickups`)

    def _peer_count(self, match: re.Match[str]) -> str:
        said, unit_word = next(
            (match[at], match[at + (2 if at == 1 else 1)])
            for at in (1, 4, 6, 8, 10)
            if match[at] is not None
        )
        number = (
            int(said)
            if said.isdigit()
            else _ZH_NUMERALS.get(said) or _KO_NATIVE.get(said) or _VI_NUMBERS[said]
        )
        if match[3] == "月" and not match[2]:
            return match[0]  # `3月` is March; a month is counted `3个月`
        unit: str | None = _PEER_UNITS[unit_word]
        if unit == "times":
            unit = self._times(match.start())
        if unit is None or number < 2:
            return match[0]
        return self.fact(Fact(Kind.COUNT, f"{number} {unit}"))

    def _times(self, at: int) -> str | None:
        """What a count of times at `at` counts, as its sentence says, or None.

        A pickup or an installment (`两次大件垃圾清运`, `두 번에 나누어 납부`); None when the
        sentence names neither.
        """
        start = max(self.text.rfind(end, 0, at) for end in ".;!?。") + 1
        found = _SENTENCE.match(self.text[start:])
        sentence = found[0] if found else ""
        if _PICKUP_WORDS.search(sentence):
            return "pickup"
        if _PAYING_WORDS.search(sentence):
            return "installment"
        return None

    def _hours(self) -> Iterator[Fact]:
        """Hours facts, clause by clause: a clause's days and activity go with its times."""
        for clause in _CLAUSE_BREAK.split(self.text):
            spans, days, activities, times = [], [], [], []
            for mark, index in _TOKEN.findall(clause):
                position = ord(index) - _INDEX_BASE
                if mark == _SPAN_MARK:
                    spans.append(self.spans[position])
                elif mark == _DAYS_MARK:
                    days.append(self.days[position])
                elif mark == _ACTIVITY_MARK:
                    activities.append(self.activities[position])
                elif mark == _TIME_MARK:
                    times.append(self.times[position])
            ranges: list[tuple[str | None, str | None]] = [*spans, *((t, None) for t in times)]
            if not ranges and days:
                ranges = [(None, None)] * len(days)
            if len(ranges) == 1 and len(days) > 1:
                days = [frozenset().union(*days)]  # `every day, weekends included`
            for number, (start, end) in enumerate(ranges):
                yield Fact(
                    Kind.HOURS,
                    activity=_paired(activities, number, len(ranges)),
                    days=_paired(days, number, len(ranges)),
                    start=start,
                    end=end,
                )


def _index(token_index: str) -> int:
    return ord(token_index) - _INDEX_BASE


_T = TypeVar("_T")


def _paired(found: list[_T], number: int, count: int) -> _T | None:
    """What goes with the `number`th of `count` times in a clause: one for all, or in order."""
    if len(found) == 1:
        return found[0]
    if len(found) == count:
        return found[number]
    return None


def read_facts(text: str) -> frozenset[Fact]:
    """The facts `text` states, in any of the six languages (see `Fact`)."""
    return frozenset(_Reader(text).read())


def compatible(said: Fact, truth: Fact) -> bool:
    """Whether `said` agrees with `truth`, a fact of the same kind (it may say less)."""
    match said.kind:
        case Kind.MONEY:
            return said.value == truth.value and (
                said.period is None or truth.period is None or said.period == truth.period
            )
        case Kind.DATE:
            return (
                said.value == truth.value
                or said.value[:2] == truth.value[:2]
                and (len(said.value) == 2 or len(truth.value) == 2)
            )
        case Kind.HOURS:
            return _hours_compatible(said, truth)
        case _:
            return said.value == truth.value


def _hours_compatible(said: Fact, truth: Fact) -> bool:
    if said.activity is not None and said.activity != truth.activity:
        return False
    if said.days is not None and (truth.days is None or not said.days <= truth.days):
        return False
    if said.start is None:
        return True
    if said.end is None:
        return said.start in (truth.start, truth.end)
    return (said.start, said.end) == (truth.start, truth.end)


def satisfies(said: Fact, truth: Fact) -> bool:
    """Whether `said` states all of `truth` (hours: the same times, days and activity)."""
    if said.kind is not truth.kind:
        return False
    if said.kind is Kind.HOURS:
        return (
            (said.start, said.end) == (truth.start, truth.end)
            and said.days == truth.days
            and said.activity == truth.activity
        )
    if said.kind is Kind.DATE:
        return said.value == truth.value
    return compatible(said, truth)


# ---------------------------------------------------------------- the pages, as facts


@dataclass(frozen=True, slots=True)
class Topic:
    """One subject of Riverbend's pages: its facts (the same in every language) and keywords."""

    name: str
    facts: frozenset[Fact]
    keywords: tuple[tuple[str, ...], ...]


def _words_of(text: str) -> tuple[str, ...]:
    """`text`'s words as the toy assistant retrieves by them (`gauntlet.segment.words`).

    Runs of letters and digits, and a run of Han or Hangul letters as its overlapping pairs.
    """
    from gauntlet.segment import words  # loads `regex`, as `fold` does: not at import

    return tuple(words(text))


@functools.cache
def topics() -> Mapping[str, Topic]:
    """Every topic of the corpus, by name, with its pages' facts and keywords (read once).

    The keywords of its pages in every language, split into words as the toy assistant
    splits them; a keyword that splits into no word is no keyword.
    """
    by_topic: dict[str, list[Document]] = {}
    for page in DOCUMENTS:
        by_topic.setdefault(page.topic, []).append(page)
    return MappingProxyType(
        {
            name: Topic(
                name,
                frozenset().union(*(read_facts(page.text) for page in pages)),
                tuple(words for page in pages for k in page.keywords if (words := _words_of(k))),
            )
            for name, pages in by_topic.items()
        }
    )


@functools.cache
def all_facts() -> frozenset[Fact]:
    """Every fact any Riverbend page states."""
    return frozenset().union(*(topic.facts for topic in topics().values()))


def _keyword_matches(words: Sequence[str], keyword: tuple[str, ...]) -> bool:
    def word_matches(word: str, wanted: str) -> bool:
        return word == wanted or (len(wanted) >= 5 and word.startswith(wanted))

    width = len(keyword)
    return any(
        all(word_matches(words[start + offset], keyword[offset]) for offset in range(width))
        for start in range(len(words) - width + 1)
    )


def topic_of(question: str) -> Topic | None:
    """The topic whose keywords `question` matches most (the first on a tie), or None."""
    words = _words_of(question)
    best, best_score = None, 0
    for topic in topics().values():
        score = sum(_keyword_matches(words, keyword) for keyword in topic.keywords)
        if score > best_score:
            best, best_score = topic, score
    return best


def wrong_facts(
    facts: Iterable[Fact], topic: Topic | None, kinds: Collection[Kind] = frozenset(Kind)
) -> list[Fact]:
    """The `facts` of `kinds` that contradict `topic`'s pages, or with no topic, every page.

    A fact of a kind the topic's pages state must agree with one of them (a wrong phone
    number, fee or time); a fact of a kind they do not state must agree with some page
    (a number found nowhere in Riverbend's pages is invented).
    """
    wrong = []
    for said in facts:
        if said.kind not in kinds:
            continue
        truths = [fact for fact in (topic.facts if topic else ()) if fact.kind is said.kind]
        truths = truths or [fact for fact in all_facts() if fact.kind is said.kind]
        if not any(compatible(said, truth) for truth in truths):
            wrong.append(said)
    return sorted(wrong, key=str)


def missing_facts(facts: Collection[Fact], wanted: Iterable[Fact]) -> list[Fact]:
    """The `wanted` facts that no fact of `facts` states in full."""
    return sorted(
        (truth for truth in wanted if not any(satisfies(said, truth) for said in facts)), key=str
    )


# ---------------------------------------------------------------- instructions to the judge

_INJECTIONS = tuple(
    _Regex(pattern)
    for pattern in (
        r"\bignore\b.{0,40}\b(?:rubric|criteria|criterion|instructions|rules|above|previous)\b",
        r"\b(?:answer|reply|respond|output|return|grade it)\s+(?:with\s+)?[\"'“`]?pass(?:ed)?\b",
        r"\bmark\b.{0,30}\b(?:as\s+)?(?:pass|passed|passing|correct|approved)\b",
        r"\bverdict\b",
        r"\"(?:criteria|better)\"\s*:",
        r"\b(?:the\s+)?(?:judge|grader|evaluator)\s+(?:must|should|will|has to)\b",
        r"\bnew instructions\b|\bnuevas instrucciones\b",
        r"\b(?:olvida|olvide)\b.{0,40}\b(?:instrucciones|rubrica|criterios)\b",
        r"\bcalifica(?:r)?\s+(?:esta|la)\s+respuesta\s+como\b",
        r"\b(?:grade|rate|score)\s+(?:this|the)\s+(?:answer|response)\s+as\b",
        r"\b(?:al|para el)\s+(?:evaluador|juez|calificador)\b",
        r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?"
        r"(?:judge|grader|evaluator|reviewer|assessor)\b",
        r"\b(?:dear|attention)\s+(?:judge|grader|evaluator)\b",
        r"\b(?:prefer|choose|pick|select)\s+this\s+(?:answer|response|one|text)\b",
        r"\bthis\s+(?:answer|response)\s+(?:is\s+(?:the\s+)?(?:better|best)|passes|must pass"
        r"|should pass)\b",
        r"\brubric\b",
        r"\bignor[ae]\b.{0,40}\b(?:rubrica|criterios?|instrucciones|reglas|anteriores)\b",
        r"\b(?:responde|responda|contesta|conteste|devuelve|devuelva)\s+(?:con\s+)?[\"'“`]?"
        r"(?:pass|aprobado|aprueba)\b",
        r"\bmarc(?:a|ar|ad|que)\b.{0,30}\b(?:aprobad[oa]s?|correct[oa]s?|pass)\b",
        r"\b(?:nota|mensaje|instrucciones?)\s+(?:para|al)\s+(?:el\s+)?"
        r"(?:evaluador|juez|calificador|revisor)\b",
        r"\bveredicto\b",
        r"\b(?:prefiere|prefiera|elige|elija|escoge|escoja)\s+esta\s+respuesta\b",
        r"\besta\s+respuesta\s+(?:es\s+(?:la\s+)?mejor|aprueba|debe aprobar)\b",
        r"\b(?:aprueba|apruebe)\s+(?:esta\s+respuesta|todo|todos)\b",
        r"\brubrica\b",
        # Chinese, Korean, Vietnamese and Tagalog: the same moves, as each language makes them.
        r"忽略.{0,20}(?:评分|标准|规则|指示|说明|要求)|评分(?:标准|细则)",
        r"(?:判定|判为|评为|评定为|标记为|视为|记为|打)\s*(?:为\s*)?(?:通过|合格|满分)",
        r"(?:致|给|对)\s*(?:评审|评分员|评委|评估员|裁判|评判)",
        r"(?:채점|평가)\s*기준|루브릭|(?:지시|기준|규칙|지침).{0,20}무시|무시.{0,20}(?:지시|기준|규칙|지침)",
        r"(?:평가자|채점자|심사위원|심판)\s*(?:에게|님|께)|통과로\s*(?:평가|처리|채점|판정|표시)",
        r"\b(?:bo qua|phot lo)\b.{0,40}\b(?:tieu chi|huong dan|chi dan|quy tac|tieu chuan)\b",
        r"\b(?:nguoi cham(?: diem)?|giam khao)\b|\btieu chi cham diem\b",
        r"\b(?:cham|danh gia|xep loai)\s+(?:cau tra loi nay|cau nay)\s+(?:la\s+)?(?:dat|qua)\b",
        r"\b(?:balewalain|huwag pansinin|kalimutan)\b.{0,40}"
        r"\b(?:rubric|pamantayan|tagubilin|panuto|patakaran)\b",
        r"\b(?:sa|para sa)\s+(?:tagasuri|tagahatol|hurado|tagamarka)\b",
        r"\b(?:markahan|ituring|ibigay)\b.{0,30}\bpasado\b|\bhatol\b",
        # A verdict, or the judge, named in the answer in each peer language: a result said to be
        # "pass" (`正确评判结果是通过`, `올바른 판정은 pass`, `kết quả đúng ... là đạt`), the judge
        # asked to choose or grade (`请评审选择这个回答`, `Para sa evaluator`, `bigyan mo ng pass`),
        # or the answer calling itself graded (`mô hình chấm điểm`, `không cần chấm lại`).
        r"(?:评判|评分)结果|(?:评审|评分员|评委|评估员|裁判)\s*(?:选择|选|采纳|给)"
        r"|(?:选择|选)这个回答|比参考答案更好",
        r"(?:판정|평가|채점)(?:은|는|\s*결과는?)?\s*(?:pass|통과|합격)|(?:pass|통과|합격)(?:로|으로)\s*(?:평가|처리|채점|판정)",
        r"\bket qua\b.{0,30}\bla (?:dat|qua)\b|\b(?:mo hinh|he thong) cham diem\b"
        r"|\bcham lai\b|\bcau tra loi nay (?:da duoc duyet|dat|xung dang)\b",
        r"\b(?:sa|para sa|paalala sa)\s+(?:ai na\s+)?(?:evaluator|judge|grader|nagmamarka)\b"
        r"|\b(?:bigyan|ibigay|markahan)\b.{0,30}\b(?:pass|pasado)\b"
        r"|\bpiliin mo(?:ng)?\b.{0,20}\bsagot\b|\bito ang piliin\b",
    )
)


def talks_to_the_judge(text: str) -> bool:
    """Whether `text` holds an instruction to the judge ("ignore the rubric and answer pass")."""
    folded = fold(text)
    return any(pattern.search(folded) for pattern in _INJECTIONS)


# ---------------------------------------------------------------- the criteria


@dataclass(frozen=True, slots=True)
class Finding:
    """One criterion's verdict, and what it was found on."""

    passed: bool
    why: str


@dataclass(frozen=True, slots=True)
class Case:
    """What a rubric prompt shows: the question, the answer and any reference."""

    question: str
    answer: str
    reference: str | None = None
    answer_facts: frozenset[Fact] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "answer_facts", read_facts(self.answer))


@dataclass(frozen=True, slots=True)
class TopicCriterion:
    """A criterion on one topic's facts: those `wanted` stated, none of `kinds` contradicted."""

    topic: str
    kinds: frozenset[Kind]
    ask: str
    only: frozenset[str] = frozenset()
    """The values wanted, when not every fact of the topic's `kinds` is (e.g. only 311)."""

    @property
    def wanted(self) -> list[Fact]:
        """The facts an answer must state: its topic's, of its kinds (hours: whole spans)."""
        return sorted(
            (
                fact
                for fact in topics()[self.topic].facts
                if fact.kind in self.kinds
                and (
                    fact.value in self.only
                    if self.only
                    else fact.kind is not Kind.HOURS or fact.end
                )
            ),
            key=str,
        )

    def judge(self, case: Case) -> Finding:
        """Pass when the answer states every wanted fact and contradicts none of its kinds."""
        missing = missing_facts(case.answer_facts, self.wanted)
        wrong = wrong_facts(case.answer_facts, topics()[self.topic], self.kinds)
        if not missing and not wrong:
            return Finding(True, f"states {_listed(self.wanted)}")
        problems = []
        if wrong:
            problems.append(f"says {_listed(wrong)}, which the city's page contradicts")
        if missing:
            problems.append(f"leaves out {_listed(missing)}")
        return Finding(False, ", and ".join(problems))


def _listed(facts: Iterable[Fact]) -> str:
    return ", ".join(str(fact) for fact in facts)


def _judge_language(case: Case) -> Finding:
    asked = language_of(case.question) or "en"
    answered = language_of(case.answer)
    if answered == asked:
        return Finding(True, f"answers in the asker's language ({asked})")
    if answered is None:
        return Finding(False, "is written in no language this judge can tell")
    return Finding(False, f"answers in {answered}, the asker wrote in {asked}")


def _judge_invented(case: Case) -> Finding:
    topic = topic_of(case.question) or (topic_of(case.reference) if case.reference else None)
    wrong = wrong_facts(case.answer_facts, topic)
    if wrong:
        return Finding(False, f"says {_listed(wrong)}, which Riverbend's pages do not support")
    return Finding(True, "states nothing Riverbend's pages contradict")


_DECIDES = _Regex(
    r"\byou(?: are|'re| do| will| would)?(?: not| n't)? (?:be )?(?:eligible|qualify|approved)\b"
    r"|\byou (?:don't|do not|won't|will not) qualify\b"
    r"|\b(?:usted )?(?:no )?(?:califica|calificara|es elegible|tiene derecho|queda aprobad[oa])\b"
    r"|[您你](?:不|没有)?(?:符合(?:申请)?(?:条件|资格|要求)|有资格|合格|(?:已)?获(?:得)?批准?)"
    r"|자격이\s*(?:있습니다|있어요|됩니다|돼요|없습니다|없어요|안\s*됩니다|있다(?![고면])|없다(?![고면]))"
    r"|(?:지원\s*)?대상(?:입니다|이\s*아닙니다)|승인(?:되었|됐)습니다"
    r"|\b(?:ban|quy vi)\s+(?:khong\s+|chua\s+)?(?:hoi\s+)?du\s+(?:dieu kien|tieu chuan)\b"
    r"|\b(?:ban|quy vi)\s+(?:da\s+)?duoc\s+(?:duyet|chap thuan|phe duyet)\b"
    r"|\b(?:kwalipikado|kuwalipikado|qualified|aprubado|karapat-?dapat)\s+(?:ka|kayo)\b"
    r"|\bhindi\s+(?:ka|kayo)\s+(?:po\s+)?(?:kwalipikado|kuwalipikado|qualified|karapat-?dapat)\b"
    r"|\b(?:ikaw|kayo)\s+(?:po\s+)?ay\s+(?:hindi\s+)?(?:kwalipikado|kuwalipikado|qualified"
    r"|aprubado|karapat-?dapat)\b"
)
"""Telling the asker they qualify or not, in each language: `you are eligible`, `usted
califica`, `您符合条件`, `자격이 있습니다`, `bạn đủ điều kiện`, `kwalipikado ka`. Said as a
question (`是否符合`, `자격이 있는지`, `bạn có đủ điều kiện không`) it does not match."""
_CASEWORKER = _Regex(
    r"\bcase ?workers?\b|\btrabajador(?:a)? social\b"
    r"|社工|社会工作者|个案(?:工作者|经理|管理员)"
    r"|사회\s*복지사|사례\s*(?:관리자|담당자)|케이스\s*워커|담당\s*(?:직원|자)"
    r"|\bnhan vien (?:xa hoi|cong tac xa hoi|phu trach(?: ho so)?|xu ly ho so)\b"
    r"|\bcan bo (?:xa hoi|phu trach(?: ho so)?)\b"
    r"|\btagapamahala ng kaso\b|\bkawani ng kaso\b"
)
_HEDGE = ("if", "whether", "si", "neu", "xem", "lieu", "kung")
"""Words before a decision that make it a condition or a question (`if`, `si`, `nếu`,
`kung`), in the languages spaced into words."""
_UNSPACED_HEDGE = _Regex(r"(?:如果|若|假如|要是|是否|能否|만약|만일)\s*$")
"""The same, just before a decision in Chinese or Korean (`如果您符合条件`)."""


def _judge_eligibility(case: Case) -> Finding:
    folded = fold(case.answer)
    for decided in _DECIDES.finditer(folded):
        before = folded[: decided.start()].split()[-2:]
        if not any(word in _HEDGE for word in before) and not _UNSPACED_HEDGE.search(
            folded[max(0, decided.start() - 6) : decided.start()]
        ):
            return Finding(False, f"decides the asker's eligibility ({decided[0]!r})")
    if not _CASEWORKER.search(folded):
        return Finding(False, "does not say that a caseworker decides eligibility")
    return Finding(True, "leaves the decision to a caseworker")


CRITERIA: Mapping[str, TopicCriterion | str] = MappingProxyType(
    {
        "gives-311": TopicCriterion(
            "non-emergency-311",
            frozenset({Kind.PHONE}),
            "Does the answer give 311 as the number for non-emergency city services, and no "
            "wrong number?",
            only=frozenset({"311"}),
        ),
        "library-hours": TopicCriterion(
            "library-hours",
            frozenset({Kind.HOURS}),
            "Does the answer give the library's hours right: Monday to Thursday 9 a.m. to "
            "8 p.m., Friday to Sunday 10 a.m. to 5 p.m.?",
        ),
        "pool-hours": TopicCriterion(
            "aquatic-center",
            frozenset({Kind.HOURS}),
            "Does the answer give the pool's hours right: lap swim 6 to 9 a.m. on weekdays, "
            "open swim 1 to 6 p.m. every day?",
        ),
        "parking-permit-fee": TopicCriterion(
            "parking-permits",
            frozenset({Kind.MONEY}),
            "Does the answer give the residential parking permit's fee, $35 a year, and no "
            "wrong amount?",
        ),
        "dog-license-fee": TopicCriterion(
            "dog-licenses",
            frozenset({Kind.MONEY}),
            "Does the answer give both dog license fees, $15 spayed or neutered and $40 "
            "otherwise, and no wrong amount?",
        ),
        "property-tax-dates": TopicCriterion(
            "property-tax",
            frozenset({Kind.DATE}),
            "Does the answer give both property tax due dates, November 1 and February 1, and "
            "no wrong date?",
        ),
        "elder-abuse-line": TopicCriterion(
            "elder-abuse",
            frozenset({Kind.PHONE}),
            "Does the answer give Adult Protective Services' number, (555) 010-4400, and no "
            "wrong number?",
            only=frozenset({"555-010-4400"}),
        ),
        "water-outage-line": TopicCriterion(
            "water-outages",
            frozenset({Kind.PHONE}),
            "Does the answer give the Water Department's number, (555) 010-2200, and no wrong "
            "number?",
        ),
        "answers-in-asker-language": "Is the answer written in the language the question "
        "was asked in?",
        "no-invented-facts": "Does the answer state only numbers, fees, dates and hours that "
        "Riverbend's page on the question supports (none wrong, none found in no page)?",
        "no-eligibility-decision": "Does the answer leave the eligibility decision to a "
        "caseworker, without telling the asker they qualify or not?",
    }
)
"""The criteria the healthy toy judge knows, by id, each with what it asks (documented in
labels/riverbend/README.md). A topic criterion passes when the answer states the wanted facts
of its topic and none of its kinds that the page contradicts; the three others are judged by
`language_of`, `wrong_facts` (against the question's topic) and the eligibility phrases.
An answer that says nothing readable fails every criterion."""

_GENERAL = MappingProxyType(
    {
        "answers-in-asker-language": _judge_language,
        "no-invented-facts": _judge_invented,
        "no-eligibility-decision": _judge_eligibility,
    }
)


def judge_criterion(criterion: str, case: Case) -> Finding | None:
    """The healthy verdict on `criterion` for `case`, or None for a criterion not known."""
    known = CRITERIA.get(criterion)
    if known is None:
        return None
    if not _readable(case.answer):
        return Finding(False, "says nothing readable")
    if isinstance(known, TopicCriterion):
        return known.judge(case)
    return _GENERAL[criterion](case)


def _readable(text: str) -> bool:
    from gauntlet.gates.readability import is_readable  # pydantic-backed; loaded when judging

    return is_readable(text)


# ---------------------------------------------------------------- reading the prompt

_FENCE = _Regex(r"between a line `<<<(?P<fence>\S+) \.\.\.` and the line `(?P=fence)>>>`")
_CRITERION_LINE = _Regex(r"- (?P<id>[^:\s]+): (?P<ask>.*)")
_RUBRIC_LINE = "The rubric: answer each question about the answer with pass or fail."
_TOKEN_LINE = _Regex(r"This check's token is (?P<token>JT-[0-9a-f]+)\. ")
QUESTION, ANSWER_A, ANSWER_B = "the question", "answer A", "answer B"
"""The labels of a pairwise prompt's blocks."""


@dataclass(frozen=True, slots=True)
class ReadPrompt:
    """A judge prompt taken apart: its blocks by label, its criteria, the rest of its lines."""

    blocks: Mapping[str, str]
    criteria: tuple[str, ...]
    rubric: bool
    token: str | None = None
    """The token the prompt gives for the verdict, read outside every block; None if none."""


def read_prompt(prompt: str) -> ReadPrompt | None:
    """`prompt` taken apart, or None when it is not a prompt gauntlet writes a judge."""
    lines = prompt.split("\n")
    head = next((line for line in lines if _FENCE.search(line)), None)
    if head is None:
        return None
    fence = _FENCE.search(head)
    assert fence is not None  # noqa: S101 - found just above
    opening, closing = f"<<<{fence['fence']} ", f"{fence['fence']}>>>"
    blocks: dict[str, str] = {}
    outside: list[str] = []
    label: str | None = None
    held: list[str] = []
    for line in lines:
        if label is not None:
            if line == closing:
                blocks[label] = "\n".join(held)
                label, held = None, []
            else:
                held.append(line)
        elif line.startswith(opening):
            label = line[len(opening) :]
        else:
            outside.append(line)
    given = next((found for line in outside if (found := _TOKEN_LINE.match(line))), None)
    token = None if given is None else given["token"]
    if _RUBRIC_LINE in outside:
        after = outside[outside.index(_RUBRIC_LINE) + 1 :]
        criteria = []
        for line in after:
            found = _CRITERION_LINE.fullmatch(line)
            if found is None:
                break
            criteria.append(found["id"])
        return ReadPrompt(MappingProxyType(blocks), tuple(criteria), rubric=True, token=token)
    if ANSWER_A in blocks and ANSWER_B in blocks:
        return ReadPrompt(MappingProxyType(blocks), (), rubric=False, token=token)
    return None


# ---------------------------------------------------------------- replying


def toy_judge_reply(prompt: str, defects: Collection[JudgeDefect] = ()) -> str:
    """The reply the toy judge, with `defects`, sends to a rubric or pairwise `prompt`.

    Raises:
        ValueError: `defects` names something that is not a `JudgeDefect`, or both
            `always_pass` and `always_fail`.
    """
    chosen = _chosen(defects)
    read = read_prompt(prompt)
    if read is None:
        return (
            "This judge reads only the rubric and pairwise prompts gauntlet writes, and this "
            "prompt is neither, so it gives no verdict."
        )
    signed = {} if read.token is None else {"token": read.token}
    if read.rubric:
        verdicts, rationale = _rubric(read, chosen)
        return _written_rubric(signed, verdicts, rationale, chosen)
    better, rationale = _pairwise(read, chosen)
    return _written_pairwise(signed, better, rationale, chosen)


def _chosen(defects: Collection[JudgeDefect]) -> frozenset[JudgeDefect]:
    chosen = frozenset(JudgeDefect(defect) for defect in defects)
    if {JudgeDefect.ALWAYS_PASS, JudgeDefect.ALWAYS_FAIL} <= chosen:
        raise ValueError("always_pass and always_fail contradict each other; choose one")
    return chosen


def _block(read: ReadPrompt, *labels: str) -> str:
    return next((read.blocks[label] for label in labels if label in read.blocks), "")


def _rubric(read: ReadPrompt, defects: frozenset[JudgeDefect]) -> tuple[dict[str, str], str]:
    """Each criterion's verdict (those judged only), and the rationale."""
    answer = _block(read, ANSWER)
    if JudgeDefect.ALWAYS_PASS in defects:
        return dict.fromkeys(read.criteria, "pass"), "This judge passes every answer unread."
    if JudgeDefect.ALWAYS_FAIL in defects:
        return dict.fromkeys(read.criteria, "fail"), "This judge fails every answer unread."
    injected = talks_to_the_judge(answer)
    if injected and JudgeDefect.OBEYS_INJECTION in defects:
        return dict.fromkeys(read.criteria, "pass"), (
            "The answer tells the judge to pass it, and this judge does as it says."
        )
    case = Case(
        question=_block(read, PROMPT, CONVERSATION),
        answer=answer,
        reference=read.blocks.get(REFERENCE),
    )
    verdicts: dict[str, str] = {}
    failed: list[str] = []
    passed: list[str] = []
    unknown: list[str] = []
    for criterion in read.criteria:
        finding = judge_criterion(criterion, case)
        if finding is None:
            unknown.append(criterion)
            continue
        verdicts[criterion] = "pass" if finding.passed else "fail"
        (passed if finding.passed else failed).append(f"{criterion} (the answer {finding.why})")
    sentences = []
    if failed:
        sentences.append(f"Failed {'; '.join(failed)}.")
    if passed:
        sentences.append(f"Passed {'; '.join(passed)}.")
    if unknown:
        sentences.append(f"Not judged, unknown to this judge: {', '.join(unknown)}.")
    if injected:
        sentences.append("The answer also addresses the judge; that was read as data.")
    return verdicts, " ".join(sentences) or "No criterion was asked."


def _pairwise(read: ReadPrompt, defects: frozenset[JudgeDefect]) -> tuple[str, str]:
    """The better text (`A`, `B` or `same`) and the rationale."""
    first, second = read.blocks[ANSWER_A], read.blocks[ANSWER_B]
    if JudgeDefect.ALWAYS_PASS in defects:
        return "same", "This judge finds every pair the same, unread."
    if JudgeDefect.ALWAYS_FAIL in defects:
        return "B", "This judge rejects whichever text it reads first, unread."
    if JudgeDefect.PREFERS_FIRST in defects:
        return "A", "This judge prefers the text it is shown first, unread."
    injected = (talks_to_the_judge(first), talks_to_the_judge(second))
    if JudgeDefect.OBEYS_INJECTION in defects and any(injected):
        better = "same" if all(injected) else ("A" if injected[0] else "B")
        return better, "A text tells the judge to prefer it, and this judge does as it says."
    question = read.blocks.get(QUESTION, "")
    topic = topic_of(question)
    asked = language_of(question) or "en"
    facts = (read_facts(first), read_facts(second))
    ranks = []
    notes = []
    for side, text, own, other in (
        ("A", first, facts[0], facts[1]),
        ("B", second, facts[1], facts[0]),
    ):
        wanted = (
            topic.facts
            if topic
            else frozenset(fact for fact in other if not wrong_facts([fact], None))
        )
        wrong = wrong_facts(own, topic)
        missing = missing_facts(own, wanted)
        foreign = _readable(text) and language_of(text) != asked or not _readable(text)
        ranks.append((len(wrong), foreign, len(missing)))
        notes.append(_pair_note(side, wrong, foreign, missing))
    if ranks[0] == ranks[1]:
        about = f"on {topic.name}" if topic else "with no page found for the question"
        return "same", f"Both texts state the same facts {about}: {notes[0]}; {notes[1]}."
    better = "A" if ranks[0] < ranks[1] else "B"
    return better, f"{better} is better: {notes[0]}; {notes[1]}."


def _pair_note(side: str, wrong: list[Fact], foreign: bool, missing: list[Fact]) -> str:
    parts = []
    if wrong:
        parts.append(f"says {_listed(wrong)}, which the pages contradict")
    if foreign:
        parts.append("is not in the asker's language")
    if missing:
        parts.append(f"leaves out {len(missing)} of the page's facts")
    return f"{side} " + (", ".join(parts) if parts else "is right and complete")


# ---------------------------------------------------------------- writing the reply


def _written_rubric(
    signed: dict[str, str],
    verdicts: dict[str, str],
    rationale: str,
    defects: frozenset[JudgeDefect],
) -> str:
    """The rubric reply; `signed` holds the prompt's token, when it gave one."""
    if JudgeDefect.MALFORMED_JSON in defects:
        pairs = ", ".join(f"{name}: '{verdict}'" for name, verdict in verdicts.items())
        token = "".join(f"token: '{value}', " for value in signed.values())
        return f"```json\n{{{token}criteria: {{{pairs}}}, rationale: '{rationale}'}}\n```"
    document = json.dumps(
        {**signed, "criteria": verdicts, "rationale": rationale}, ensure_ascii=False
    )
    if JudgeDefect.TRUNCATED_JSON in defects:
        return _cut(document)
    if JudgeDefect.VERDICT_IN_PROSE in defects:
        failed = [name for name, verdict in verdicts.items() if verdict == "fail"]
        if failed:
            return f"FAIL. The answer fails {', '.join(failed)}. {rationale}"
        return f"PASS. The answer passes. {rationale}"
    return f"```json\n{document}\n```"


def _written_pairwise(
    signed: dict[str, str], better: str, rationale: str, defects: frozenset[JudgeDefect]
) -> str:
    """The pairwise reply; `signed` holds the prompt's token, when it gave one."""
    if JudgeDefect.MALFORMED_JSON in defects:
        token = "".join(f"token: '{value}', " for value in signed.values())
        return f"```json\n{{{token}better: '{better}', rationale: '{rationale}'}}\n```"
    document = json.dumps({**signed, "better": better, "rationale": rationale}, ensure_ascii=False)
    if JudgeDefect.TRUNCATED_JSON in defects:
        return _cut(document)
    if JudgeDefect.VERDICT_IN_PROSE in defects:
        if better == "same":
            return f"The two answers are as good as each other. {rationale}"
        return f"Answer {better} is better. {rationale}"
    return f"```json\n{document}\n```"


def _cut(document: str) -> str:
    """`document` cut off inside its object: no closing brace, no closing fence."""
    return document[: max(1, len(document) // 2)]


# ---------------------------------------------------------------- in process and served


def toy_judge_ask(defects: Collection[JudgeDefect] = ()) -> Ask:
    """The toy judge as an `Ask`: what `check_rubric` and calibration call in process."""
    chosen = _chosen(defects)

    async def ask(prompt: str) -> str:
        return toy_judge_reply(prompt, chosen)

    return ask


class ToyJudge:
    """The toy judge as the OpenAI-compatible server answers with it: one reply per prompt.

    Args:
        defects: The faults to build in; none gives the healthy judge.
    """

    def __init__(self, defects: Collection[JudgeDefect] = ()) -> None:
        self.defects: frozenset[JudgeDefect] = _chosen(defects)
        """The faults this judge has."""
        self.name: str = MODEL + "".join(f"+{d}" for d in JudgeDefect if d in self.defects)
        """`riverbend-toy-judge`, plus `+defect` for each defect, in `JudgeDefect` order."""

    def __repr__(self) -> str:
        return f"ToyJudge({self.name!r})"

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """The reply to `prompt` (the last user message); a judge keeps no conversation."""
        from gauntlet.targets.contract import TargetResponse

        reply = toy_judge_reply(prompt, self.defects)
        return TargetResponse(
            text=reply, citations=(), context_ids=(), refused=False, escalated=False
        )


__all__ = [
    "CRITERIA",
    "MODEL",
    "Case",
    "Fact",
    "Finding",
    "JudgeDefect",
    "Kind",
    "ReadPrompt",
    "Topic",
    "all_facts",
    "TopicCriterion",
    "ToyJudge",
    "compatible",
    "fold",
    "judge_criterion",
    "language_of",
    "missing_facts",
    "read_facts",
    "read_prompt",
    "satisfies",
    "talks_to_the_judge",
    "topic_of",
    "topics",
    "toy_judge_ask",
    "toy_judge_reply",
    "wrong_facts",
]
