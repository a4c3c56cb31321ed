"""From a target file's rules to a `TargetResponse`: bodies out, fields back, with provenance.

Pure functions, no I/O. `render_body` fills a request body's placeholders; `read_path` reads one
field of a JSON answer with JMESPath and checks its type; `cite_from_text` and
`decide_from_text` derive citations and decisions from the answer's text; `map_http` and
`map_openai` turn a whole answer into a `Mapped` response that says, for every field, whether
the target declared it, a rule derived it, or nobody supplied it. `provides` says the same of a
target file before any ask, so a gate that needs a field nobody supplies is refused up front.
Tool calls are read in the native shape or OpenAI's (see `read_path`) by one reader, whatever
the source; `requested_calls` gives the scripted tool loop an answer's calls with arguments
that are not an object kept as an `ArgumentsError`, to be answered rather than raised.

Nothing is guessed. A value of the wrong type is a `TargetContractError` naming the field, the
expression and what it found; a field nobody supplied gets a stand-in value recorded as
`Origin.ABSENT`, which no gate may pass on (the engine enforces that).
"""

from __future__ import annotations

import copy
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, assert_never, overload

import jmespath
import jmespath.exceptions
from jmespath.parser import ParsedResult
from jmespath.visitor import TreeInterpreter
from pydantic import JsonValue, ValidationError

from gauntlet.display import clipped, masked, printable, unencodable
from gauntlet.errors import TargetContractError
from gauntlet.matching import phrases_found
from gauntlet.patterns import PatternTimeout, user_pattern
from gauntlet.targets.contract import (
    FieldName,
    FieldSource,
    Origin,
    Provenance,
    TargetResponse,
    ToolCall,
    check_response,
    describe_contract_errors,
    finish_reason_of,
)
from gauntlet.targets.spec import (
    CITATIONS_PATTERN_FIELD,
    PLACEHOLDER,
    Absent,
    CitationsFromText,
    DecisionFromText,
    HttpResponse,
    OpenAIResponse,
    Placeholder,
)
from gauntlet.trajectory.scoring import ArgumentsError, decode_arguments

if TYPE_CHECKING:
    from jmespath.visitor import _TreeNode

SHOWN = 60
"""The most characters of a found value that a contract error quotes."""

MAX_WHY = 160
"""The most characters of JMESPath's own message, when an expression fails on an answer."""

DECLARED_ABSENT = "the target file declares it absent"
"""The rule of a field the target file says `absent: true` for."""

REFUSAL_FIELD = "the `refusal` field"
CONTENT_FILTER = "finish_reason content_filter"
OPENAI_REFUSAL = f"{REFUSAL_FIELD} and {CONTENT_FILTER}"
"""How an openai-chat answer declares a refusal, as `provides` states it."""

_CONTENT = "choices[0].message.content"
_TOOL_CALLS = TOOL_CALLS_PATH = "choices[0].message.tool_calls"
"""Where an openai-chat answer's tool calls are."""
_REFUSAL = "choices[0].message.refusal"
_STREAMED_CONTENT = "`choices[0].delta.content`, joined across the stream's chunks"
_FINISH_REASON = "choices[0].finish_reason"

_CLOSING = frozenset(".,;:!?)]}»”’…、。，．！？；：")
"""Characters that close on the word before them: a cut marker's space before one goes too."""


class Mapped(NamedTuple):
    """One answer read through a target file: the response and how each field was obtained."""

    response: TargetResponse
    provenance: Provenance
    """Every field of `FieldName`, tool calls included."""
    answered_text: str | None
    """The text as the target sent it, when markers were cut out of `response.text`."""
    finish_reason: str | None = None
    """Why the answer ended, as it said (`finish_reason_of`); None when it did not say."""


# ---------------------------------------------------------------- request bodies


def render_body(template: JsonValue, values: Mapping[Placeholder, JsonValue]) -> JsonValue:
    """`template` with its placeholders filled, as a new structure; `template` is untouched.

    A string leaf that is exactly one placeholder (`"{{ prompt }}"`, spaces inside optional)
    becomes the value with its JSON type: history a list, a missing session id null. In a
    string with other text around them, each placeholder becomes the value as text (null as
    nothing). Keys are never templated, and an inserted value is never scanned again, so no
    prompt can add a key or fill another placeholder.

    Raises:
        ValueError: a placeholder with no value, or a list or object placed inside other text.
            The loader refuses both before any ask.
    """
    if isinstance(template, dict):
        return {key: render_body(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [render_body(item, values) for item in template]
    if not isinstance(template, str):
        return template
    whole = PLACEHOLDER.fullmatch(template)
    if whole is not None:
        return copy.deepcopy(_value_of(whole, values))
    return PLACEHOLDER.sub(lambda match: _as_text(match, values), template)


def _value_of(match: re.Match[str], values: Mapping[Placeholder, JsonValue]) -> JsonValue:
    name = match.group(1)
    if name not in values:
        raise ValueError(f"the body names {match.group()}, which has no value")
    return values[Placeholder(name)]


def _as_text(match: re.Match[str], values: Mapping[Placeholder, JsonValue]) -> str:
    value = _value_of(match, values)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list | dict):
        raise ValueError(
            f"{match.group()} holds {'a list' if isinstance(value, list) else 'an object'}, "
            "which cannot go inside other text: make it the whole string"
        )
    return json.dumps(value)


# ---------------------------------------------------------------- quoting what was found


def described(value: object) -> str:
    """`value` as a contract error quotes it: its JSON kind and, briefly, itself.

    At most `SHOWN` characters of the value, masked (see `gauntlet.display.masking`) before
    they are cut, on one line.
    """
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean {'true' if value else 'false'}"
    if isinstance(value, str):
        return f"a string {_quoted(repr(masked(value)))}" if value else "an empty string"
    if isinstance(value, int | float):
        return f"a number {_number(value)}"
    if isinstance(value, list):
        return f"a list {_quoted(_json(value))}" if value else "an empty list"
    if isinstance(value, dict):
        return f"an object {_quoted(_json(value))}" if value else "an empty object"
    return f"a value of type {printable(type(value).__name__)}"  # not JSON: a caller's own


def _quoted(text: str) -> str:
    return printable(text if len(text) <= SHOWN else text[: SHOWN - 1] + "…")


def _number(value: float) -> str:
    try:
        return _quoted(json.dumps(value))
    except ValueError:  # more than 4,300 digits: Python refuses to write it
        return f"of {int(value).bit_length():,} bits"


def _json(value: object) -> str:
    try:
        return masked(json.dumps(value, ensure_ascii=False))
    except (ValueError, TypeError, RecursionError):
        size = len(value) if isinstance(value, list | dict) else 0
        return f"of {size:,} items"


# ---------------------------------------------------------------- reading with JMESPath


@lru_cache(maxsize=1024)
def _compiled(expression: str) -> ParsedResult:
    return jmespath.compile(expression)


class _Dropped(Exception):  # not an error to report: `search_path` words it
    """A projection's item that came out null, which JMESPath would leave out of the list."""

    def __init__(self, at: str, item: object) -> None:
        super().__init__(at)
        self.at = at
        self.item = item


class _Strict(TreeInterpreter):
    """JMESPath's own interpreter, except that no projection drops an item.

    JMESPath leaves out of a projection (`a[*].b`, `a[].b`, `a[0:2].b`, `a.*.b`, and what
    a filter `a[?c].b` kept) every item whose right side is null: an item without the field,
    a null, or an item of another type. Read as fewer citations, fewer tool calls or less
    text, such an item changes a verdict unseen (a citation in another shape reads as "cites
    nothing", which passes an abstention). Here it raises `_Dropped` instead. A filter still
    leaves out what its condition rejects: that is the file's own, written choice.
    """

    def visit_projection(self, node: _TreeNode, value: Any) -> list[Any] | None:
        base = self.visit(node["children"][0], value)
        if not isinstance(base, list):
            return None
        numbered = ((f"[{n}]", item) for n, item in enumerate(base))
        return self._projected(node["children"][1], numbered)

    def visit_value_projection(self, node: _TreeNode, value: Any) -> list[Any] | None:
        base = self.visit(node["children"][0], value)
        if not isinstance(base, dict):
            return None
        named = ((_quoted(repr(masked(str(key)))), item) for key, item in base.items())
        return self._projected(node["children"][1], named)

    def visit_filter_projection(self, node: _TreeNode, value: Any) -> list[Any] | None:
        base = self.visit(node["children"][0], value)
        if not isinstance(base, list):
            return None
        condition = node["children"][2]
        kept = (
            (f"[{n}]", item)
            for n, item in enumerate(base)
            if self._is_true(self.visit(condition, item))  # type: ignore[attr-defined]
        )
        return self._projected(node["children"][1], kept)

    def _projected(self, right: _TreeNode, items: Iterable[tuple[str, Any]]) -> list[Any]:
        collected = []
        for at, item in items:
            current = self.visit(right, item)
            if current is None:
                raise _Dropped(at, item)
            collected.append(current)
        return collected


def search_path(expression: str, document: Any, what: str) -> Any:
    """What `expression` finds in `document`, as JMESPath finds it (null when nothing).

    Except that a projection never drops an item (see `_Strict`): that is an error here.

    Raises:
        TargetContractError: the expression failed on this document (a function given the
            wrong type, or one that does not exist), or one of its projections would drop an
            item; named with `what` (`text`, `done`).
    """
    shown = printable(expression)
    try:
        return _Strict().visit(_compiled(expression).parsed, document)
    except _Dropped as dropped:
        raise TargetContractError(
            f"{what}: JMESPath `{shown}` found nothing (null) for item {dropped.at} of a "
            f"projection ({described(dropped.item)}), which would drop it; to leave items out "
            "on purpose, select them with a filter (`[?...]`)"
        ) from None
    except jmespath.exceptions.JMESPathError as exc:
        # jmespath's message may quote the value it choked on: masked and cut like any quote.
        why = printable(clipped(" ".join(str(exc).split()) or type(exc).__name__, MAX_WHY))
        raise TargetContractError(
            f"{what}: JMESPath `{shown}` could not be applied: {why}"
        ) from None


@overload
def read_path(expression: str, document: Any, field: Literal[FieldName.TEXT]) -> str: ...
@overload
def read_path(
    expression: str,
    document: Any,
    field: Literal[FieldName.CITATIONS, FieldName.CONTEXT_IDS],
) -> tuple[str, ...]: ...
@overload
def read_path(
    expression: str, document: Any, field: Literal[FieldName.REFUSED, FieldName.ESCALATED]
) -> bool: ...
@overload
def read_path(
    expression: str, document: Any, field: Literal[FieldName.TOOL_CALLS]
) -> tuple[ToolCall, ...]: ...
@overload
def read_path(
    expression: str, document: Any, field: FieldName
) -> str | tuple[str, ...] | bool | tuple[ToolCall, ...]: ...


def read_path(
    expression: str, document: Any, field: FieldName
) -> str | tuple[str, ...] | bool | tuple[ToolCall, ...]:
    """The value of `field` that `expression` finds in `document`, checked for the field's type.

    `text` is a string; `citations` and `context_ids` a list of ids (non-empty strings),
    returned as a tuple; `refused` and `escalated` strictly true or false (not 0, 1 or
    "true"); `tool_calls` a list of calls, each in one of two shapes:

    - native: `{"id", "name", "arguments", "output"?, "error"?, "parent_ids"?,
      "latency_ms"?, "step"?}`, and no other key;
    - OpenAI's: `{"id", "type": "function", "function": {"name", "arguments"}}` (`type` may
      be left out; other keys, such as a stream's `index`, are ignored), with the native
      shape's optional keys beside `function` if the target reports them.

    The id and the name are non-empty strings, ids unique within the list; the arguments a
    JSON object, or a JSON text decoded strictly (`decode_arguments`: duplicate keys, `NaN`
    and anything but an object refused); `output` any JSON value, `error` a string,
    `parent_ids` a list of ids, `latency_ms` a number and `step` a whole number, each 0 or
    more, and each of these null or left out when not reported.

    Raises:
        TargetContractError: the value found has another type, or the expression failed on
            this document; the message names the field, the expression and what it found
            (and, inside a tool call, the call's place and id).
    """
    found = search_path(expression, document, field)
    where = _Where(field, f"JMESPath `{printable(expression)}`")
    match field:
        case FieldName.TEXT:
            return where.text(found, "")
        case FieldName.CITATIONS | FieldName.CONTEXT_IDS:
            return where.ids(found)
        case FieldName.REFUSED | FieldName.ESCALATED:
            return where.decision(found)
        case FieldName.TOOL_CALLS:
            return where.tool_calls(found, "")
        case _:
            assert_never(field)


class _Where(NamedTuple):
    """Checks what a source found for a field, and says so, naming where, when it is wrong.

    With a JMESPath `source`, a place is relative to what the expression found
    (`[0].function.name`); without one, it is the answer's own path
    (`choices[0].message.tool_calls[0].function.name`). Once a tool call's id is read, every
    place in that call also names the call (`(call 'c1')`).
    """

    field: FieldName
    source: str | None
    """`JMESPath \\`answer\\``, or None for a fixed path in an openai-chat answer."""
    call: str | None = None
    """The id of the tool call being read, once known."""

    def place(self, at: str) -> str:
        named = f" (call {printable(repr(self.call))})" if self.call is not None else ""
        if self.source is None:
            return f"`{at}`{named}"
        return f" at {at}{named}" if at else named

    def wrong(self, found: object, at: str, expected: str) -> TargetContractError:
        if self.source is None:
            return TargetContractError(
                f"{self.field}: {self.place(at)} is {described(found)}, not {expected}"
            )
        if found is None and not at:
            return TargetContractError(f"{self.field}: {self.source} found nothing (null)")
        return TargetContractError(
            f"{self.field}: {self.source} found {described(found)}{self.place(at)}, not {expected}"
        )

    def said(self, at: str, what: str) -> TargetContractError:
        """An error about the value at `at`: `what` says what is wrong with it."""
        if self.source is None:
            return TargetContractError(f"{self.field}: {self.place(at)} {what}")
        return TargetContractError(
            f"{self.field}: {self.source} found a value{self.place(at)} that {what}"
        )

    def text(self, found: object, at: str, expected: str = "a string") -> str:
        if not isinstance(found, str):
            raise self.wrong(found, at, expected)
        why = unencodable(found)
        if why is not None:
            if self.source is None:
                raise TargetContractError(f"{self.field}: {self.place(at)} {why}")
            raise TargetContractError(
                f"{self.field}: {self.source} found a string{self.place(at)} that {why}"
            )
        return found

    def name(self, found: object, at: str, expected: str) -> str:
        """A non-empty string: an id or a tool's name."""
        if found == "":
            raise self.wrong(found, at, expected)
        return self.text(found, at, expected)

    def ids(self, found: object) -> tuple[str, ...]:
        if not isinstance(found, list):
            raise self.wrong(found, "", "a list of ids")
        for index, item in enumerate(found):
            self.name(item, f"[{index}]", "an id (a non-empty string)")
        return tuple(found)

    def decision(self, found: object) -> bool:
        if not isinstance(found, bool):
            raise self.wrong(found, "", "true or false")
        return found

    def key(self, found: Mapping[str, Any], key: str, at: str) -> Any:
        if key in found:
            return found[key]
        if self.source is None:
            raise TargetContractError(f"{self.field}: {self.place(at)} has no `{key}`")
        raise TargetContractError(f"{self.field}: {self.source} found no `{key}`{self.place(at)}")

    # ------------------------------------------------------------ tool calls

    def tool_calls(self, found: object, at: str) -> tuple[ToolCall, ...]:
        return tuple(self.strict(call) for call in self.requested(found, at))

    def requested(self, found: object, at: str) -> list[Requested]:
        """Each call in `found` read, its arguments decoded or why they cannot be."""
        if not isinstance(found, list):
            raise self.wrong(found, at, "a list of tool calls")
        calls: list[Requested] = []
        first: dict[str, str] = {}
        for index, item in enumerate(found):
            place = f"{at}[{index}]"
            call = self.tool_call(item, place)
            earlier = first.setdefault(call.id, place)
            if earlier != place:
                raise self._replace(call=call.id).said(
                    f"{place}.id",
                    f"repeats the id of {earlier if self.source else f'`{earlier}`'}: "
                    "each call's id must be unique",
                )
            calls.append(call)
        return calls

    def tool_call(self, found: object, at: str) -> Requested:
        """One call, in the native shape or OpenAI's; see `read_path`."""
        if not isinstance(found, dict):
            raise self.wrong(found, at, "a tool call (an object)")
        call_id = self.name(self.key(found, "id", at), f"{at}.id", _AN_ID)
        named = self._replace(call=call_id)
        if "function" in found:
            mixed = [key for key in ("name", "arguments") if key in found]
            if mixed:
                raise named.said(
                    f"{at}.{mixed[0]}",
                    "is beside `function`: give the name and arguments in `function` "
                    "(OpenAI's shape) or beside `id` (the native shape), not both",
                )
            kind = found.get("type", "function")
            if kind != "function":
                raise named.wrong(kind, f"{at}.type", '"function"')
            function = found["function"]
            inner = f"{at}.function"
            if not isinstance(function, dict):
                raise named.wrong(function, inner, "an object")
        else:
            unknown = [key for key in found if key not in _NATIVE_KEYS]
            if unknown:
                raise named.said(
                    f"{at}.{unknown[0]}",
                    "is not a field of a tool call (those are "
                    f"{', '.join(_NATIVE_KEYS)}; or OpenAI's `function`)",
                )
            function, inner = found, at
        name = named.name(named.key(function, "name", inner), f"{inner}.name", _A_NAME)
        raw = named.key(function, "arguments", inner)
        if isinstance(raw, dict):
            named.encodable(raw, f"{inner}.arguments")
            arguments: dict[str, Any] | ArgumentsError = raw
            text = _canonical(raw)
        else:
            text = named.text(raw, f"{inner}.arguments", "a JSON text or an object")
            arguments = decode_arguments(text)
        return Requested(
            call_id, name, arguments, text, f"{inner}.arguments", named.reported(found, at)
        )

    def reported(self, found: Mapping[str, Any], at: str) -> dict[str, Any]:
        """The optional fields a call may report beside its name and arguments, checked."""
        kept: dict[str, Any] = {}
        for key in _REPORTED:
            value = found.get(key)
            if value is None:
                continue
            place = f"{at}.{key}"
            if key == "output":
                self.encodable(value, place)
            elif key == "error":
                self.text(value, place, "a string or null")
            elif key == "parent_ids":
                if not isinstance(value, list):
                    raise self.wrong(value, place, "a list of call ids or null")
                for index, item in enumerate(value):
                    self.name(item, f"{place}[{index}]", _AN_ID)
                value = tuple(value)
            elif key == "latency_ms":
                number = isinstance(value, int | float) and not isinstance(value, bool)
                if not number or not math.isfinite(value) or value < 0:
                    raise self.wrong(value, place, "a number of milliseconds, 0 or more, or null")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:  # step
                raise self.wrong(value, place, "a whole number, 0 or more, or null")
            kept[key] = value
        return kept

    def encodable(self, value: Any, at: str) -> None:
        """Refuse a JSON value holding a string UTF-8 cannot encode (a lone surrogate)."""
        try:
            json.dumps(value, ensure_ascii=False, allow_nan=False).encode()
        except UnicodeEncodeError:
            raise self.said(at, "holds a lone surrogate, which UTF-8 cannot encode") from None
        except (ValueError, RecursionError):
            raise self.said(at, "is not a JSON value that can be written back") from None

    def strict(self, call: Requested) -> ToolCall:
        """`call` as the contract holds it; arguments that are not an object are an error."""
        if isinstance(call.arguments, ArgumentsError):
            raise self._replace(call=call.id).said(
                call.arguments_at, f"is not a JSON object: {call.arguments.why}"
            )
        try:
            return ToolCall(id=call.id, name=call.name, arguments=call.arguments, **call.reported)
        except ValidationError as exc:  # pragma: no cover - every field is checked above
            raise TargetContractError(
                f"{self.field}: call {call.id!r}: {describe_contract_errors(exc)}"
            ) from None


_AN_ID = "the call's id (a non-empty string)"
_A_NAME = "the tool's name (a non-empty string)"
_REPORTED = ("output", "error", "parent_ids", "latency_ms", "step")
"""What a call may report beside its id, name and arguments, in either shape."""
_NATIVE_KEYS = ("id", "name", "arguments", *_REPORTED)


class Requested(NamedTuple):
    """One tool call as an answer gave it, its arguments decoded or why they are not."""

    id: str
    name: str
    arguments: dict[str, Any] | ArgumentsError
    """The arguments, a JSON object, or why the text sent is not one."""
    arguments_text: str
    """The arguments as sent: the JSON text, or an object written as canonical JSON."""
    arguments_at: str
    """Where the arguments are in the answer, for an error that names them."""
    reported: dict[str, Any]
    """The optional fields the call reported (`output`, `error`, `step`, ...), checked."""


def _canonical(arguments: dict[str, Any]) -> str:
    """An arguments object as one canonical JSON text: keys sorted, no spaces, non-ASCII as is."""
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------- derivations


def cite_from_text(rule: CitationsFromText, text: str) -> tuple[tuple[str, ...], str]:
    """The ids `rule` finds in `text`, and the text the gates read.

    Ids come in order of first appearance, each once: the pattern's one group, or its whole
    match when it has none; a match whose group is empty or did not take part gives no id.
    With `remove_from_text`, every match is cut out of the text and the spaces the cut
    leaves collapse (`word [RB-001].` becomes `word.`); otherwise the text is returned as is.

    Raises:
        TargetContractError: the pattern ran past its time limit (`gauntlet.patterns`): the
            answer's citations are unknown, never "none".
    """
    pattern = user_pattern(rule.from_text, CITATIONS_PATTERN_FIELD)
    try:
        matches = pattern.finditer(text)
    except PatternTimeout as exc:
        raise TargetContractError(str(exc)) from None
    ids = (match.group(1) if pattern.groups else match.group() for match in matches)
    cited = tuple(dict.fromkeys(found for found in ids if found))
    if not rule.remove_from_text or not matches:
        return cited, text
    kept = text[: matches[0].start()]
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following is not None else len(text)
        kept = _joined(kept, text[match.end() : end])
    return cited, kept


def _is_space(char: str) -> bool:
    """A space within a line: a tab or a Unicode space separator, never a line break."""
    return char == "\t" or unicodedata.category(char) == "Zs"


def _joined(left: str, right: str) -> str:
    """`left` and `right`, the two sides of a cut marker, without the spaces the cut left.

    Before a space, a line break, closing punctuation or the end of the text, the spaces
    before the cut go; then, at the start of the text or of a line, the spaces after it.
    """
    if left and _is_space(left[-1]) and (not right or right[0] in _CLOSING or right[0].isspace()):
        end = len(left)
        while end and _is_space(left[end - 1]):
            end -= 1
        left = left[:end]
    if not left or left[-1] == "\n":
        start = 0
        while start < len(right) and _is_space(right[start]):
            start += 1
        right = right[start:]
    return left + right


def phrases_for(rule: DecisionFromText, language: str) -> tuple[str, list[str]] | None:
    """The language tag of `rule` that serves `language`, and its phrases; None when none does.

    The tag itself first, then shorter prefixes of it (`es-MX` -> `es`), compared without
    regard to case, as BCP 47 tags are.
    """
    by_tag = {tag.lower(): tag for tag in rule.from_text}
    subtags = language.lower().split("-")
    for length in range(len(subtags), 0, -1):
        tag = by_tag.get("-".join(subtags[:length]))
        if tag is not None:
            return tag, rule.from_text[tag]
    return None


def decide_from_text(rule: DecisionFromText, text: str, language: str) -> bool | None:
    """Whether `text` holds one of the phrases `rule` gives for `language`.

    Matched as the gates match markers (see `gauntlet.matching.normalise`), at word edges
    where the script has them (see `gauntlet.matching.phrases_found`). None when
    the rule has no phrases for the language: the caller records the field as absent for that
    case, never as "no".
    """
    found = phrases_for(rule, language)
    if found is None:
        return None
    return bool(phrases_found(text, found[1]))


def _phrases_rule(rule: DecisionFromText, language: str) -> FieldSource:
    found = phrases_for(rule, language)
    if found is None:
        return FieldSource(origin=Origin.ABSENT, rule=f"no phrases for language {language}")
    tag, phrases = found
    return FieldSource(origin=Origin.DERIVED, rule=f"phrases for {tag} ({len(phrases)})")


def _regex_rule(rule: CitationsFromText) -> str:
    removed = ", markers removed from the text" if rule.remove_from_text else ""
    return f"regex `{printable(rule.from_text)}` over the answer{removed}"


def _jmespath_rule(expression: str) -> str:
    return f"JMESPath `{printable(expression)}`"


# ---------------------------------------------------------------- whole responses

_ABSENT = FieldSource(origin=Origin.ABSENT, rule=DECLARED_ABSENT)


class _Fields:
    """The fields of one answer as they are read, each with its source."""

    def __init__(self, text: str, text_source: FieldSource) -> None:
        self.text = text
        self.answered = text
        self.values: dict[FieldName, Any] = {FieldName.TEXT: text}
        self.sources: dict[FieldName, FieldSource] = {FieldName.TEXT: text_source}

    def put(self, field: FieldName, value: Any, origin: Origin, rule: str) -> None:
        self.values[field] = value
        self.sources[field] = FieldSource(origin=origin, rule=rule)

    def absent(self, field: FieldName, rule: str = DECLARED_ABSENT) -> None:
        stand_in = False if field in (FieldName.REFUSED, FieldName.ESCALATED) else ()
        self.put(field, stand_in, Origin.ABSENT, rule)

    def citations(self, source: str | CitationsFromText | Absent, document: Any) -> None:
        field = FieldName.CITATIONS
        if isinstance(source, str):
            self.put(
                field, read_path(source, document, field), Origin.DECLARED, _jmespath_rule(source)
            )
        elif isinstance(source, CitationsFromText):
            ids, self.text = cite_from_text(source, self.answered)
            self.values[FieldName.TEXT] = self.text
            self.put(field, ids, Origin.DERIVED, _regex_rule(source))
        else:
            self.absent(field)

    def context_ids(self, source: str | Absent, document: Any) -> None:
        if isinstance(source, str):
            ids = read_path(source, document, FieldName.CONTEXT_IDS)
            self.put(FieldName.CONTEXT_IDS, ids, Origin.DECLARED, _jmespath_rule(source))
        else:
            self.absent(FieldName.CONTEXT_IDS)

    def decision(
        self,
        field: Literal[FieldName.REFUSED, FieldName.ESCALATED],
        source: str | DecisionFromText | Absent,
        document: Any,
        language: str,
    ) -> None:
        if isinstance(source, str):
            self.put(
                field, read_path(source, document, field), Origin.DECLARED, _jmespath_rule(source)
            )
        elif isinstance(source, DecisionFromText):
            self.phrases(field, source, language)
        else:
            self.absent(field)

    def phrases(self, field: FieldName, rule: DecisionFromText, language: str) -> None:
        decided = decide_from_text(rule, self.answered, language)
        source = _phrases_rule(rule, language)
        if decided is None:
            self.absent(field, source.rule or "")
        else:
            self.values[field] = decided
            self.sources[field] = source

    def mapped(self, tool_calls: tuple[ToolCall, ...]) -> Mapped:
        values = {name: self.values[name] for name in FieldName if name is not FieldName.TOOL_CALLS}
        reported = self.sources[FieldName.TOOL_CALLS].origin is not Origin.ABSENT
        response = check_response(values).model_copy(
            update={"tool_calls": tool_calls if reported else None}
        )
        provenance = {name: self.sources[name] for name in FieldName}
        answered = self.answered if self.text != self.answered else None
        return Mapped(response, provenance, answered)


def map_http(
    spec: HttpResponse, document: Any, language: str, *, text: str | None = None
) -> Mapped:
    """Read an `http` target's answer through its `response` mapping.

    Args:
        spec: The target file's `response` mapping.
        document: The parsed JSON answer; for a stream, its last chunk.
        language: The case's language, which chooses the phrases of a derived decision.
        text: For a stream, the text assembled from every chunk's piece; read from
            `document` with `spec.text` when not given.

    Raises:
        TargetContractError: a field's expression found a value of the wrong type.
    """
    if text is None:
        source = FieldSource(origin=Origin.DECLARED, rule=_jmespath_rule(spec.text))
        fields = _Fields(read_path(spec.text, document, FieldName.TEXT), source)
    else:
        rule = f"{_jmespath_rule(spec.text)}, joined across the stream's chunks"
        fields = _Fields(text, FieldSource(origin=Origin.DECLARED, rule=rule))
    fields.citations(spec.citations, document)
    fields.context_ids(spec.context_ids, document)
    fields.decision(FieldName.REFUSED, spec.refused, document, language)
    fields.decision(FieldName.ESCALATED, spec.escalated, document, language)
    if isinstance(spec.tool_calls, str):
        calls = read_path(spec.tool_calls, document, FieldName.TOOL_CALLS)
        fields.put(FieldName.TOOL_CALLS, calls, Origin.DECLARED, _jmespath_rule(spec.tool_calls))
    else:
        calls = ()
        fields.absent(FieldName.TOOL_CALLS)
    finish = None
    if spec.finish_reason is not None:
        found = search_path(spec.finish_reason, document, "finish_reason")
        if found is not None and not isinstance(found, str):
            raise TargetContractError(
                f"finish_reason: JMESPath `{spec.finish_reason}` found {described(found)}, not text"
            )
        finish = finish_reason_of(found)
    return fields.mapped(calls)._replace(finish_reason=finish)


_MISSING = object()


def _shape(path: str, found: object, expected: str) -> TargetContractError:
    if found is _MISSING:
        return TargetContractError(f"`{path}` is missing from the answer, which needs {expected}")
    return TargetContractError(f"`{path}` is {described(found)}, not {expected}")


def _message(completion: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """`choices[0]` and its `message`, checked for their shape."""
    if not isinstance(completion, Mapping):
        raise TargetContractError(f"the answer is {described(completion)}, not an object")
    choices = completion.get("choices", _MISSING)
    if not isinstance(choices, list):
        raise _shape("choices", choices, "a list")
    if not choices:
        raise TargetContractError("`choices` is an empty list: the answer has no message")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _shape("choices[0]", choice, "an object")
    message = choice.get("message", _MISSING)
    if not isinstance(message, dict):
        raise _shape("choices[0].message", message, "an object")
    for path, value in (
        (_CONTENT, message.get("content")),
        (_REFUSAL, message.get("refusal")),
        (_FINISH_REASON, choice.get("finish_reason")),
    ):
        if value is not None and not isinstance(value, str):
            raise _shape(path, value, "a string or null")
    return choice, message


def map_openai(
    spec: OpenAIResponse, completion: Mapping[str, Any], language: str, *, streamed: bool = False
) -> Mapped:
    """Read an OpenAI-compatible chat completion: `choices[0].message` and the file's rules.

    The text is `message.content`. Null content is an empty text beside tool calls, the
    refusal's text beside a declared refusal (an empty text beside `content_filter`), and a
    contract error otherwise. A refusal is declared by a non-empty `message.refusal` or by
    `finish_reason: content_filter`; failing those, the target file's phrases decide it;
    failing phrases, a `refusal` key that is null declares "no"; and with no `refusal` key
    at all the field is absent. The file's JMESPath rules read the whole completion.
    `streamed` says the completion was assembled from a stream's chunks (`assemble_openai`),
    so the text's provenance names the deltas it was joined from.

    Raises:
        TargetContractError: the completion is not shaped like one (the path is named), or a
            rule found a value of the wrong type.
    """
    choice, message = _message(completion)
    content: str | None = message.get("content")
    refusal: str | None = message.get("refusal")
    raw_calls = message.get("tool_calls")
    at_path = _Where(FieldName.TOOL_CALLS, None)
    calls = () if raw_calls is None else at_path.tool_calls(raw_calls, _TOOL_CALLS)

    declared = None
    if refusal:
        declared = REFUSAL_FIELD
    elif choice.get("finish_reason") == "content_filter":
        declared = CONTENT_FILTER

    text, text_rule = _openai_text(content, refusal, declared, has_calls=bool(calls))
    if content is not None and streamed:
        text_rule = _STREAMED_CONTENT
    text = _Where(FieldName.TEXT, None).text(text, _CONTENT if content is not None else _REFUSAL)
    fields = _Fields(text, FieldSource(origin=Origin.DECLARED, rule=text_rule))
    fields.citations(spec.citations, completion)
    fields.context_ids(spec.context_ids, completion)
    if declared is not None:
        fields.put(FieldName.REFUSED, True, Origin.DECLARED, declared)
    elif spec.refused is not None:
        fields.phrases(FieldName.REFUSED, spec.refused, language)
    elif "refusal" in message:
        said = "null" if refusal is None else "empty"
        fields.put(FieldName.REFUSED, False, Origin.DECLARED, f"{REFUSAL_FIELD} ({said})")
    else:
        fields.absent(FieldName.REFUSED, "the answer has no `refusal` field, the file no phrases")
    fields.decision(FieldName.ESCALATED, spec.escalated, completion, language)
    fields.put(FieldName.TOOL_CALLS, calls, Origin.DECLARED, f"`{_TOOL_CALLS}`")
    finish = finish_reason_of(choice.get("finish_reason"))
    return fields.mapped(calls)._replace(finish_reason=finish)


def _openai_text(
    content: str | None, refusal: str | None, declared: str | None, *, has_calls: bool
) -> tuple[str, str]:
    """The answer's text and how it was read: the content, or what a null content stands for.

    Null content is an empty text beside tool calls or a declared refusal, and the refusal's
    text beside a refusal; with none of these the answer has no text, a contract error.
    """
    if content is not None:
        return content, f"`{_CONTENT}`"
    if has_calls:
        return "", f"`{_CONTENT}` (null beside tool calls)"
    if refusal:
        return refusal, f"`{_REFUSAL}` (the content is null)"
    if declared is not None:
        return "", f"`{_CONTENT}` (null beside {declared})"
    raise TargetContractError(
        f"text: the answer has no content: `{_CONTENT}` is null, with no tool calls and no refusal"
    )


def requested_calls(completion: object) -> tuple[str | None, tuple[Requested, ...]]:
    """An openai-chat answer's text and the tool calls it asks for, as a tool loop reads them.

    The calls are read as `map_openai` reads them, but arguments that are not a JSON object
    are returned as an `ArgumentsError`, not raised: the loop answers such a call with an
    error result and records it.

    Raises:
        TargetContractError: the completion is not shaped like one, or a call has no id or
            name, or a field of the wrong type (the path is named).
    """
    _, message = _message(completion)
    raw = message.get("tool_calls")
    content: str | None = message.get("content")
    if raw is None:
        return content, ()
    return content, tuple(_Where(FieldName.TOOL_CALLS, None).requested(raw, _TOOL_CALLS))


# ---------------------------------------------------------------- before any ask


def _static(source: str | CitationsFromText | DecisionFromText | Absent) -> FieldSource:
    if isinstance(source, str):
        return FieldSource(origin=Origin.DECLARED, rule=_jmespath_rule(source))
    if isinstance(source, CitationsFromText):
        return FieldSource(origin=Origin.DERIVED, rule=_regex_rule(source))
    if isinstance(source, DecisionFromText):
        return FieldSource(origin=Origin.DERIVED, rule=_languages_rule(source))
    return _ABSENT


def _languages_rule(rule: DecisionFromText) -> str:
    return f"phrases for {', '.join(rule.from_text)}"


def provides(spec: HttpResponse | OpenAIResponse) -> Provenance:
    """Where each field of a target file's answers will come from, known before any ask.

    A field is absent here only when the file says `absent: true`; a derived decision may
    still be absent for a case whose language its phrases do not cover (see
    `languages_without_phrases`), and an openai-chat refusal for an answer with no `refusal`
    field.
    """
    if isinstance(spec, HttpResponse):
        return {
            FieldName.TEXT: _static(spec.text),
            FieldName.CITATIONS: _static(spec.citations),
            FieldName.CONTEXT_IDS: _static(spec.context_ids),
            FieldName.REFUSED: _static(spec.refused),
            FieldName.ESCALATED: _static(spec.escalated),
            FieldName.TOOL_CALLS: _static(spec.tool_calls),
        }
    if spec.refused is None:
        refused = FieldSource(origin=Origin.DECLARED, rule=OPENAI_REFUSAL)
    else:
        rule = f"{_languages_rule(spec.refused)}, besides {OPENAI_REFUSAL}"
        refused = FieldSource(origin=Origin.DERIVED, rule=rule)
    return {
        FieldName.TEXT: FieldSource(origin=Origin.DECLARED, rule=f"`{_CONTENT}`"),
        FieldName.CITATIONS: _static(spec.citations),
        FieldName.CONTEXT_IDS: _static(spec.context_ids),
        FieldName.REFUSED: refused,
        FieldName.ESCALATED: _static(spec.escalated),
        FieldName.TOOL_CALLS: FieldSource(origin=Origin.DECLARED, rule=f"`{_TOOL_CALLS}`"),
    }


def languages_without_phrases(
    spec: HttpResponse | OpenAIResponse, languages: Iterable[str]
) -> dict[FieldName, list[str]]:
    """For each field derived from phrases, the `languages` its phrases do not cover.

    Only fields that miss a language are listed, each language once, in the order given; an
    empty result means every case's language is covered.
    """
    wanted = list(dict.fromkeys(languages))
    rules = {FieldName.REFUSED: spec.refused, FieldName.ESCALATED: spec.escalated}
    missing: dict[FieldName, list[str]] = {}
    for field, rule in rules.items():
        if isinstance(rule, DecisionFromText):
            uncovered = [language for language in wanted if phrases_for(rule, language) is None]
            if uncovered:
                missing[field] = uncovered
    return missing
