"""The guards: what similarity must never be trusted with, checked by rule before it is asked.

Embedders score a negated sentence, or one with another number, as close to the original as
a rewording (0.88 to 0.98 for the models measured for issue 32), so two rules run first and
either fails the answer whatever its similarity:

- **Numbers.** Every number in the gold answer appears in the answer. A number is a run of
  digits (any script's; after NFKC full-width digits are ASCII ones), with `.` or `,`
  between groups read every way the languages here write them, and a no-break or thin space
  between groups of three read as a thousands mark: `1,234.5` and `1.234,5` are one number,
  `3.5` is three and a half, never thirty-five. A single mark followed by exactly three
  digits that are all zeros (`1,000`, `2.000`) is read as thousands only: a decimal reading
  of it would let `$1` match `$1,000`. Chinese numerals are numbers too (`HAN_NUMERALS`): a
  run of them is read by place (`二十五` 25, `一百二十` 120, `两千` 2000) or, without a place
  character, digit by digit (`二〇二六` 2026), so `十点` is `10点` and `三天` is not `五天`.
  `一` alone is not read (it is a syllable of countless words: 一定, 一起, 统一); other words
  built of numerals (十分 "very", 千万 "by all means") are read as numbers, so a rewording
  that drops them fails: the safe side. Any other number written as a word (English `ten`,
  Korean `삼`) is not read, so a reworded answer that spells a number out fails, the safe
  side again.
- **Negation.** A negation present in one and not the other fails it. Each language has its
  negation words (`NEGATIONS`), matched as whole words, and, for a script written without
  spaces or with negation bound into the verb, its negation parts (`NEGATION_PARTS`),
  matched anywhere in the text: Chinese 不, 没, 无... inside any word (不能, 没有), Korean
  않, 못, 없 bound into a verb (하지 않습니다, 할 수 없어요) and 안 only as a word of its own
  (안 돼요; 안내 is no negation). Words are compared casefolded, in en, es and tl without
  accents (`ACCENT_BLIND`; Vietnamese keeps its tone marks), and every apostrophe (’ ʼ ‘)
  is read as `'`, so `don’t`, `dont` and `jamas` count. A part
  matched inside a word that is no negation (中文 非常, Korean 잘못) fails a rewording that
  drops it: the safe side. A language with neither list has no negation guard, and
  `guarded_languages` says which have one.
- **One slot swapped** (the template guard). Both texts are cut into tokens (NFKC,
  casefolded; each Han character is a token, since Chinese has no spaces; a run of digits
  is a token; any other run of letters is a word, so Korean is cut at its spaces, a word
  with its particle). When the two token sequences are identical except for one span
  replaced on both sides (`difflib.SequenceMatcher`), at most `MAX_SLOT` tokens on either
  side, and at least one token is kept, the answer is another fact in the same frame
  ("on Mondays" / "on Thursdays" scores 0.925 on the builtin, above most rewordings). A span
  of digits only on both sides is the numbers guard's to judge (`$1,000` is `$1000`). A
  rewording that changes one word for a synonym fails too: the safe side.
- **Language.** Both texts are identified by py3langid among `IDENTIFIED_LANGUAGES` (the
  languages gauntlet's labels cover); when they differ the answer fails: a correct answer in
  another language is not the answer. A text without letters is not identified. A short text
  misidentified can only fail an answer, never pass one. py3langid comes with the `semantic`
  extra; without it the guard is unavailable (`language_guard_unavailable`), the guards'
  digest says so, and a run lets no similarity gate (`gauntlet.semantic.check`).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import importlib.metadata
import json
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any

import regex

from gauntlet.languages import primary_language

_GROUP_SPACES = str.maketrans(dict.fromkeys("\u00a0\u202f\u2009", "\ue000"))
"""A no-break, narrow no-break or thin space between digit groups is a thousands mark; NFKC
would make it a plain space, so it is kept as a private-use character through folding."""
_NUMBER = regex.compile(r"\d+(?:(?:[.,]\d+)|(?:\ue000\d{3}(?!\d)))*")

HAN_NUMERALS: Mapping[str, int] = MappingProxyType(
    {
        **{
            char: int(unicodedata.numeric(char))
            for char in "〇零一二三四五六七八九十百千万萬亿億兩"
        },
        "两": 2,  # Simplified 兩: Unicode gives 兩 its value, Python's table has none for 两
    }
)
"""The Chinese numerals read as numbers, with their values from Unicode data: the digits,
the places (十 百 千) and the myriads (万 亿), in Simplified and Traditional forms. Not the
financial forms (壹 贰 叁) nor characters that are numerals only rarely (参, 什, 陆)."""

_HAN_NUMBER = regex.compile(f"[{''.join(HAN_NUMERALS)}]+")
_MYRIADS = frozenset({10_000, 100_000_000})

NEGATIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "en": (
            "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor",
            "cannot", "without", "n't", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt",
            "werent", "cant", "wont", "shouldnt", "wouldnt", "couldnt", "havent", "hasnt",
            "hadnt", "mustnt", "neednt",
        ),
        "es": (
            "no", "nunca", "jamas", "ni", "ningun", "ninguna", "ninguno", "ningunas",
            "ningunos", "nadie", "nada", "tampoco", "sin",
        ),
        "ko": ("안",),
        "vi": ("không", "chẳng", "chả", "chưa", "đừng", "chớ", "khỏi"),
        "tl": ("hindi", "di", "'di", "wala", "walang", "huwag", "ayaw", "hwag"),
    }
)  # fmt: skip
"""Each language's negation words, matched as whole words, compared as `_word_form` makes
them (casefolded, accents dropped); a word ending in `n't` counts for English."""

NEGATION_PARTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "zh": ("不", "没", "沒", "无", "無", "非", "别", "別", "未", "勿", "莫", "否"),
        "ko": ("않", "못", "없", "아니", "아닌", "아닙", "지 마", "지마"),
    }
)  # fmt: skip
"""Each language's negation parts, matched anywhere in the text (see the module's doc)."""

ACCENT_BLIND = frozenset({"en", "es", "tl"})
"""Languages whose negation words are matched without accents (`jamas` is `jamás`). Not
Vietnamese, whose tone marks tell words apart: without them `đúng` (correct) is `đừng`
(don't) and `cho` (for) is `chớ` (do not)."""

_WORDS = regex.compile(r"[\p{L}\p{M}']+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'"})


MAX_SLOT = 3
"""The most tokens a swapped slot has on either side. A slot is a name, a day, a place, a
colour: in the shipped labels 40 of the 48 entity swaps that keep the rest of the sentence
are 1 to 3 tokens, and no rewording is one span of 3 or fewer replaced. A longer span is a
rephrased clause, left to similarity (the template pairs of 4 to 13 tokens score 0.35 to
0.93)."""

_TOKENS = regex.compile(r"\p{Han}|\p{N}+|(?:(?!\p{Han})[\p{L}\p{M}'])+")
_DIGITS = regex.compile(r"\p{N}+")
_HAN = regex.compile(r"\p{Han}")

IDENTIFIED_LANGUAGES = ("en", "es", "ko", "tl", "vi", "zh")
"""The languages the language guard tells apart: those gauntlet's similarity labels cover."""

_LANGUAGE_PACKAGE = "py3langid"

GUARDS_VERSION = 3
"""Bumped whenever the guards' rules change in a way their word lists do not show."""


def guards_digest() -> str:
    """`sha256:` over the guards' rules and word lists: what a calibration record was made under.

    A threshold is chosen among the pairs the guards let through, so a record made under other
    guards chose it among other pairs.
    """
    rules = {
        "version": GUARDS_VERSION,
        "negations": {k: list(v) for k, v in sorted(NEGATIONS.items())},
        "parts": {k: list(v) for k, v in sorted(NEGATION_PARTS.items())},
        "accent_blind": sorted(ACCENT_BLIND),
        "template": {"max_slot": MAX_SLOT, "tokens": _TOKENS.pattern},
        "language": {
            "identifier": _identifier_name(),
            "languages": list(IDENTIFIED_LANGUAGES),
        },
    }
    text = json.dumps(rules, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def guarded_languages() -> frozenset[str]:
    """The languages (primary subtags) whose negation is guarded."""
    return frozenset(NEGATIONS) | frozenset(NEGATION_PARTS)


def guard_problems(expected: str, answer: str, language: str) -> tuple[str, ...]:
    """Why similarity may not pass `answer` as `expected` reworded; empty when it may be asked."""
    language = primary_language(language)
    problems = list(_problems(_folded(expected), _folded(answer), language))
    swapped = _swapped_slot(_folded(expected), _folded(answer))
    if swapped is not None:
        problems.append(
            f"the answer is the expected one with {swapped[0]} replaced by {swapped[1]}: "
            "another fact, not a rewording"
        )
    said, says = _identified(expected), _identified(answer)
    if said is not None and says is not None and said != says:
        problems.append(f"the answer is in {says}, the expected answer in {said}")
    return tuple(problems)


def language_guard_unavailable() -> str | None:
    """Why the language guard cannot run here; None when it runs."""
    return _language_identifier()[1]


def _swapped_slot(expected: str, answer: str) -> tuple[str, str] | None:
    """The old and new text of the one slot `answer` swaps in `expected`; None when it is not so."""
    old, new = _TOKENS.findall(expected), _TOKENS.findall(answer)
    if abs(len(old) - len(new)) >= MAX_SLOT:
        return None  # one slot of at most MAX_SLOT tokens cannot change the length this much
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, old_start, old_end, new_start, new_end = changed[0]
    was, now = old[old_start:old_end], new[new_start:new_end]
    if max(len(was), len(now)) > MAX_SLOT or len(was) == len(old):
        return None  # a rephrased clause, or nothing kept: similarity's to judge
    if all(_DIGITS.fullmatch(token) for token in (*was, *now)):
        return None  # a number written another way: the numbers guard judges numbers
    return _joined(was), _joined(now)


def _joined(tokens: Sequence[str]) -> str:
    text = tokens[0]
    for before, token in zip(tokens, tokens[1:], strict=False):
        text += token if _HAN.fullmatch(before) or _HAN.fullmatch(token) else " " + token
    return f'"{text}"'


def _identified(text: str) -> str | None:
    """The language of `text` among `IDENTIFIED_LANGUAGES`; None without letters or the guard."""
    identifier = _language_identifier()[0]
    if identifier is None or not regex.search(r"\p{L}", text):
        return None
    language, _ = identifier.classify(text)
    return str(language)


@functools.cache
def _language_identifier() -> tuple[Any, str | None]:
    """py3langid's identifier restricted to `IDENTIFIED_LANGUAGES`, or None and why not."""
    try:
        langid = importlib.import_module(f"{_LANGUAGE_PACKAGE}.langid")
        identifier = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE)
        identifier.set_languages(list(IDENTIFIED_LANGUAGES))
    except ImportError:
        return None, (
            f"the language guard needs {_LANGUAGE_PACKAGE}, which is not installed "
            "(pip install 'gauntlet-gate[semantic]')"
        )
    except Exception as exc:  # a broken install: the guard is unavailable, never skipped
        return None, f"the language guard's {_LANGUAGE_PACKAGE} did not load: {type(exc).__name__}"
    return identifier, None


def _identifier_name() -> str:
    """What identifies languages, in the guards' digest: a record made without it differs."""
    if language_guard_unavailable() is not None:
        return "unavailable"
    return f"{_LANGUAGE_PACKAGE} {importlib.metadata.version(_LANGUAGE_PACKAGE)}"


def _folded(text: str) -> str:
    kept = text.translate(_GROUP_SPACES)
    return unicodedata.normalize("NFKC", kept).casefold().translate(_APOSTROPHES)


def _word_form(word: str, language: str) -> str:
    """A word as compared: composed, and without accents in an `ACCENT_BLIND` language.

    So a reply typed without accents (é as e, ñ as n) matches there.
    """
    if language not in ACCENT_BLIND:
        return unicodedata.normalize("NFC", word)
    decomposed = unicodedata.normalize("NFD", word)
    bare = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    return unicodedata.normalize("NFC", bare)


def _problems(expected: str, answer: str, language: str) -> Iterator[str]:
    found = set().union(*(readings for _, readings in _numbers(answer)))
    for number, readings in dict(_numbers(expected)).items():
        if not readings & found:
            yield f"the answer does not have the number {number} the expected answer has"
    if language in guarded_languages():
        said, says = _negated(expected, language), _negated(answer, language)
        if said != says:
            where = "the expected answer" if said else "the answer"
            yield f"{where} has a negation the other does not"


def _numbers(text: str) -> Iterator[tuple[str, set[Decimal]]]:
    """Each number of `text` as written, with every value it can be read as."""
    for number in _NUMBER.findall(text):
        yield number, _readings(number)
    for numeral in _HAN_NUMBER.findall(text):
        if numeral.strip("一"):  # `一` alone is a syllable of words (see the module)
            yield numeral, {Decimal(_han_value(numeral))}


def _han_value(numeral: str) -> int:
    """The value of a run of Chinese numerals: by place, or digit by digit without places."""
    values = [HAN_NUMERALS[char] for char in numeral]
    if all(value < 10 for value in values):
        return int("".join(map(str, values)))  # 二〇二六: a year or a code, digit by digit
    total = section = digit = 0
    for value in values:
        if value < 10:
            digit = value
        elif value in _MYRIADS:
            total += (section + digit) * value
            section = digit = 0
        else:  # 十 百 千: the digit before it (one when none, as in 十五) times the place
            section += (digit or 1) * value
            digit = 0
    return total + section + digit


def _negated(text: str, language: str) -> bool:
    if any(part in text for part in NEGATION_PARTS.get(language, ())):
        return True
    words = frozenset(_word_form(word, language) for word in NEGATIONS.get(language, ()))
    for word in _WORDS.findall(text):
        form = _word_form(word, language)
        if form in words or (language == "en" and form.endswith("n't")):
            return True
    return False


def _readings(number: str) -> set[Decimal]:
    """Every value `number` can be read as: `.` and `,` each a decimal mark or a thousands one."""
    number = number.replace("\ue000", "")
    digits = "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in number)
    readings = set()
    for decimal_mark, group_mark in ((".", ","), (",", ".")):
        groups = digits.split(group_mark)
        if len(groups) > 1 and any(len(group.split(decimal_mark)[0]) != 3 for group in groups[1:]):
            continue  # not a thousands mark: groups after it have three digits
        plain = "".join(groups)
        if plain.count(decimal_mark) > 1:
            continue
        whole, _, fraction = plain.partition(decimal_mark)
        if fraction == "000" and decimal_mark in digits and group_mark not in digits:
            continue  # 1,000 is a thousand: nobody writes one with three decimal zeros
        try:
            readings.add(Decimal(plain.replace(decimal_mark, ".")).normalize())
        except InvalidOperation:  # pragma: no cover - the pattern allows only digits and marks
            continue
    return readings


__all__ = [
    "ACCENT_BLIND",
    "GUARDS_VERSION",
    "IDENTIFIED_LANGUAGES",
    "MAX_SLOT",
    "NEGATIONS",
    "NEGATION_PARTS",
    "guard_problems",
    "guarded_languages",
    "guards_digest",
    "language_guard_unavailable",
]
