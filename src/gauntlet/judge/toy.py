"""A deterministic toy judge for the Riverbend domain, healthy or with named defects.

The judge is a model, and like any target it must be shown failing before its passes are
evidence: this is its self-test. It reads a prompt exactly as `rubric_prompt` or
`pairwise_prompt` write it (the boundary from the instruction line, the fenced blocks by
label, the rubric's `- id: ask` lines, the check's token from the line that gives it, never
from a block) and returns the text a judge model would reply, the token copied into its
verdict.

Healthy, it judges by the facts of Riverbend's pages (`gauntlet.targets.toy.corpus`): phone
numbers, fees, dates, counts, addresses and opening hours, read alike from English and Spanish
text, so the two languages are peers. It knows the criteria in `CRITERIA` and no other: a
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
    """An answer that holds an instruction to the judge (English or Spanish) gets what it
    asks: every criterion passes, and pairwise that text is preferred. Otherwise healthy."""


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
    """One checkable statement read from a text, in a form shared by both languages.

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
    "two dos", "three tres", "four cuatro", "five cinco", "six seis", "seven siete",
    "eight ocho", "nine nueve", "ten diez", "eleven", "twelve doce", start=2,
)  # fmt: skip
"""Counts written as words. Not one/uno/una (too common to mean a count) nor `once`, which
is eleven in Spanish and one time in English."""

_MONTHS = _numbered(
    "january jan enero", "february feb febrero", "march mar marzo", "april apr abril",
    "may mayo", "june jun junio", "july jul julio", "august aug agosto",
    "september sep sept septiembre setiembre", "october oct octubre",
    "november nov noviembre", "december dec diciembre", start=1,
)  # fmt: skip
_ALONE_MONTHS = tuple(name for name in _MONTHS if len(name) > 4 or name in ("june", "july"))
"""Month names read without a day: not `may` (a verb) nor abbreviations (`mar`, `dec`)."""

_DAYS = _numbered(
    "monday lunes", "tuesday martes", "wednesday miercoles", "thursday jueves",
    "friday viernes", "saturday sabado", "sunday domingo",
)  # fmt: skip
"""Day names (accents folded off), 0 for Monday."""

_UNITS = _named(
    day="day days dia dias", hour="hour hours hora horas", week="week weeks semana semanas",
    month="month months mes meses", year="year years ano anos",
    pickup="pickup pickups recogida recogidas",
    installment="installment installments plazo plazos",
)  # fmt: skip
"""What a count counts, in either language (`anos` is `años` folded)."""

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
)
_DATE = _Regex(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b"
    rf"|\b(\d{{1,2}}|primero)\s+de\s+({_MONTH})\b"
    r"|\bfourth of july\b"
)
_MONTH_ALONE = _Regex(rf"\b({_alternatives(_ALONE_MONTHS)})\b")
_MERIDIEM = r"([ap])\.?\s?m(?![a-z])"
_SHARED_MERIDIEM = _Regex(
    rf"\b(\d{{1,2}})(?::(\d{{2}}))?\s*(?:-|–|—|to)\s*(\d{{1,2}})(?::(\d{{2}}))?\s*{_MERIDIEM}"
)
"""`1-6 p.m.`: the first time takes the second's a.m. or p.m., unless that puts it later."""
_MERIDIEM_TIME = _Regex(rf"\b(\d{{1,2}})(?::(\d{{2}}))?\s*{_MERIDIEM}")
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
    rf"|{_TIME_TOKEN}\s*(?:to|until|till|through|thru|-|–|—|a|hasta)\s*{_ARTICLE}{_TIME_TOKEN}"
)
"""Two times joined: `9 a.m. to 8 p.m.`, `de las 9:00 a las 20:00`, `entre 9:00 y 17:00`."""
_DAY_RANGE = _Regex(
    rf"\b({_DAY})s?\s*(?:to|through|thru|until|till|-|–|—|a|al|hasta)\s*({_DAY})s?\b"
)
_DAY_ABBREVIATED = _numbered("mon", "tue tues", "wed", "thu thur thurs", "fri", "sat", "sun")
_SHORT_DAY = _alternatives(_DAY_ABBREVIATED)
_SHORT_DAY_RANGE = _Regex(rf"\b({_SHORT_DAY})\.?\s*(?:to|through|thru|-|–|—)\s*({_SHORT_DAY})\b\.?")
"""`Mon-Thu`: abbreviations are read only in a range (alone, `sun` and `sat` are words)."""
_DAY_PAIR = _Regex(rf"\b({_DAY})s?\s+(?:and|y|&)\s+({_DAY})s?\b")
_WEEKDAYS = _Regex(r"\bweekdays?\b|\bentre semana\b|\bdias (?:de semana|laborables|habiles)\b")
_EVERY_DAY = _Regex(
    r"\bevery day\b|\beach day\b|\bdaily\b|\bseven days a week\b|\b7 days a week\b"
    r"|\btodos los dias\b|\bcada dia\b|\ba diario\b|\bdiariamente\b"
)
_WEEKENDS = _Regex(r"\bweekends?\b|\bfines? de semana\b")
_ONE_DAY = _Regex(rf"\b({_DAY})s?\b")
_ACTIVITIES = (
    (_Regex(r"\blap(?:s| swim(?:ming)?)?\b|\bnado de carriles\b|\bcarriles\b"), "lap"),
    (_Regex(r"\bopen swim(?:ming)?\b|\bnado libre\b|\bnatacion libre\b"), "open"),
)
_COUNT = _Regex(rf"\b({_NUMBER})\s+((?:[a-z]+\s+){{0,3}}?)({_alternatives(_UNITS)})\b")
_CLAUSE_BREAK = _Regex(r"[.;!?]\s|[.;!?]$|\s(?:and|y|but|pero|while|mientras)\s")


def fold(text: str) -> str:
    """`text` as the gates compare it (`normalise`): nothing invisible, casefolded, accents off."""
    from gauntlet.matching import normalise  # the gates load pydantic: not at import

    return normalise(text)


class _Reader:
    """Reads one text's facts: each pattern replaces what it read with a token."""

    def __init__(self, text: str) -> None:
        undotted = _ABBREVIATION_DOTS.sub(r"\1\2", _SENTENCE_END.sub(r"\1\2.", text))
        self.text = fold(undotted)
        self.facts: list[Fact] = []
        self.times: list[str] = []
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
        self.substitute(_MONEY, self._money)
        self.substitute(_DATE, self._date)
        self.substitute(_MONTH_ALONE, lambda m: self.fact(Fact(Kind.DATE, f"{_MONTHS[m[1]]:02d}")))
        self.substitute(_SHARED_MERIDIEM, self._shared_meridiem)
        self.substitute(_MERIDIEM_TIME, self._meridiem)
        self.substitute(_SPANISH_DAYTIME, self._daytime)
        self.substitute(_CLOCK_TIME, lambda m: self.time(int(m[1]), int(m[2] or 0)))
        self.substitute(
            _NAMED_TIME, lambda m: self.time(12 if m[1] in ("noon", "mediodia") else 0, 0)
        )
        self.substitute(_SPAN, self._span)
        self.substitute(_DAY_RANGE, self._day_range)
        self.substitute(_SHORT_DAY_RANGE, self._short_day_range)
        self.substitute(_DAY_PAIR, lambda m: self._days({_DAYS[m[1]], _DAYS[m[2]]}))
        self.substitute(_WEEKDAYS, lambda m: self._days(set(range(5))))
        self.substitute(_EVERY_DAY, lambda m: self._days(set(range(7))))
        self.substitute(_WEEKENDS, lambda m: self._days({5, 6}))
        self.substitute(_ONE_DAY, lambda m: self._days({_DAYS[m[1]]}))
        for pattern, activity in _ACTIVITIES:
            self.substitute(pattern, self._activity(activity))
        self.substitute(_COUNT, self._count)
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
        self.spans.append((self.times[_index(first)], self.times[_index(second)]))
        return _token(_SPAN_MARK, len(self.spans) - 1)

    def _days(self, days: set[int]) -> str:
        self.days.append(frozenset(days))
        return _token(_DAYS_MARK, len(self.days) - 1)

    def _day_range(self, match: re.Match[str]) -> str:
        return self._range(_DAYS[match[1]], _DAYS[match[2]])

    def _short_day_range(self, match: re.Match[str]) -> str:
        return self._range(_DAY_ABBREVIATED[match[1]], _DAY_ABBREVIATED[match[2]])

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
        counted = self.fact(Fact(Kind.COUNT, f"{number} {_UNITS[match[3]]}"))
        return f"{counted} {match[2]}"  # the words between may say more (`two free pickups`)

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
    """The facts `text` states, in either language (see `Fact`)."""
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
    """One subject of Riverbend's pages: its facts (the same in both languages) and keywords."""

    name: str
    facts: frozenset[Fact]
    keywords: tuple[tuple[str, ...], ...]


_WORD = _Regex(r"[a-z0-9]+")


@functools.cache
def topics() -> Mapping[str, Topic]:
    """Every topic of the corpus, by name, with the facts its pages state (read once)."""
    by_topic: dict[str, list[Document]] = {}
    for page in DOCUMENTS:
        by_topic.setdefault(page.topic, []).append(page)
    return MappingProxyType(
        {
            name: Topic(
                name,
                frozenset().union(*(read_facts(page.text) for page in pages)),
                tuple(tuple(_WORD.findall(k)) for page in pages for k in page.keywords),
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
    words = _WORD.findall(fold(question))
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
)
_CASEWORKER = _Regex(r"\bcase ?workers?\b|\btrabajador(?:a)? social\b")
_HEDGE = ("if", "whether", "si")


def _judge_eligibility(case: Case) -> Finding:
    folded = fold(case.answer)
    for decided in _DECIDES.finditer(folded):
        before = folded[: decided.start()].split()[-2:]
        if not any(word in _HEDGE for word in before):
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
