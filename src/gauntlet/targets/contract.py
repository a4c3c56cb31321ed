"""The target contract: what a target is, and the response it must give for every prompt."""

from __future__ import annotations

import asyncio
import json
import re
import reprlib
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    NamedTuple,
    Protocol,
    TypedDict,
    runtime_checkable,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from gauntlet.display import masked, printable, unencodable
from gauntlet.errors import TargetContractError
from gauntlet.record import Record
from gauntlet.redact import Secret

if TYPE_CHECKING:  # the loop's module reads answers into this module's models
    from gauntlet.targets.scripted import Scripted

_SHOWN = 60
"""The most characters of a wrong value that a contract error quotes."""


def _encodable(text: str) -> str:
    """`text`, if UTF-8 can encode it; see `unencodable`."""
    why = unencodable(text)
    if why is not None:
        raise PydanticCustomError("not_utf8", why)
    return text


ContractText = Annotated[StrictStr, AfterValidator(_encodable)]
"""A string the contract accepts: strictly a `str`, and one UTF-8 can encode."""


def _finite(value: Any) -> Any:
    """`value`, if JSON can write it: pydantic's `JsonValue` lets NaN and infinities through."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        raise PydanticCustomError(
            "not_json", "holds NaN or an infinity, which JSON cannot write"
        ) from None
    return value


JsonObject = Annotated[dict[str, JsonValue], AfterValidator(_finite)]
FiniteJson = Annotated[JsonValue, AfterValidator(_finite)]


class ToolCall(Record):
    """One tool call the target reports having made while answering, as it came."""

    id: ContractText
    """The call's id, unique within the answer's calls (parent ids refer to it)."""
    name: ContractText
    """The tool called."""
    arguments: JsonObject
    """The arguments, a JSON object (a chat API's JSON text is decoded first)."""
    output: FiniteJson = None
    """What the tool returned, text or JSON; null or left out when not reported."""
    error: ContractText | None = None
    """The tool's error, when the call failed."""
    parent_ids: tuple[ContractText, ...] | None = None
    """Ids of the calls whose output this call was made from, when the target reports it."""
    latency_ms: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    """How long the tool took, when reported."""
    step: Annotated[int, Field(ge=0)] | None = None
    """Which step of the trajectory the call belongs to: calls sharing a step were issued
    together (in parallel) and their order means nothing. Left out by every call: one call per
    step, in list order."""


class TargetResponse(Record):
    """What a target answered and what it reports having done.

    Every field but `tool_calls` is required: the harness checks what a target says and never
    infers it. `tool_calls` left out (or null) means "not reported", which a gate that reads
    the trajectory refuses; `[]` means "no tool was called".
    """

    text: ContractText
    """The answer as the user would see it."""
    citations: tuple[ContractText, ...]
    """Ids of the sources the answer cites."""
    context_ids: tuple[ContractText, ...]
    """Ids of the sources the target retrieved for this prompt (what it could cite)."""
    refused: StrictBool
    """The target declined to answer."""
    escalated: StrictBool
    """The target routed the user to a human (a crisis line, staff)."""
    tool_calls: tuple[ToolCall, ...] | None = None
    """The tools the target called for this answer, in order; None when not reported. Ids are
    unique: a parent id names one call."""

    @field_validator("tool_calls")
    @classmethod
    def _ids_unique(cls, calls: tuple[ToolCall, ...] | None) -> tuple[ToolCall, ...] | None:
        ids = [call.id for call in calls or ()]
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        if repeated:
            raise PydanticCustomError(
                "ids_repeated", "repeated call id {ids}", {"ids": ", ".join(map(repr, repeated))}
            )
        return calls


class Message(TypedDict):
    """One earlier message of a conversation, as multi-turn cases pass them in `history`."""

    role: Literal["user", "assistant"]
    content: str


class FieldName(StrEnum):
    """A field of the target contract, as gates read it."""

    TEXT = "text"
    CITATIONS = "citations"
    CONTEXT_IDS = "context_ids"
    REFUSED = "refused"
    ESCALATED = "escalated"
    TOOL_CALLS = "tool_calls"


class Origin(StrEnum):
    """Where a field of a response came from."""

    DECLARED = "declared"
    """The target reported it."""
    DERIVED = "derived"
    """A rule in the target file derived it from what the target reported."""
    ABSENT = "absent"
    """Nobody supplied it: the value in the response is a stand-in no gate may pass on."""


class FieldSource(BaseModel):
    """How one field of one response was obtained."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    origin: Origin
    rule: str | None = None
    """How, in a few words: `JMESPath data.answer`, `regex \\[(RB-\\d+)\\] over the text`."""


Provenance = Mapping[FieldName, FieldSource]
"""Each contract field's source, for one response (or, statically, for a target)."""

DECLARED: Provenance = MappingProxyType(
    {
        name: FieldSource(origin=Origin.DECLARED)
        for name in FieldName
        if name is not FieldName.TOOL_CALLS
    }
)
"""What the native contract gives: every field reported by the target itself (a trajectory
only when the answer carries one; see `declared`)."""

NATIVE: Provenance = MappingProxyType(
    {**DECLARED, FieldName.TOOL_CALLS: FieldSource(origin=Origin.DECLARED)}
)
"""What a native target may supply, known before any ask: every field, its trajectory too
(each answer's own provenance says whether that answer reported one)."""
_NOT_REPORTED: Provenance = MappingProxyType(
    {**DECLARED, FieldName.TOOL_CALLS: FieldSource(origin=Origin.ABSENT, rule="not reported")}
)


def declared(response: TargetResponse) -> Provenance:
    """A native answer's provenance: every field declared, `tool_calls` only when reported."""
    return NATIVE if response.tool_calls is not None else _NOT_REPORTED


class Usage(BaseModel):
    """Tokens the target reports having used for one answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Never below zero: a count no target can have used (a hand-edited results file) would
    # lower the pack's totals; an OpenAI answer's negative count is already "not reported".
    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)
    total_tokens: int | None = Field(default=None, ge=0)


def total_usage(reported: Sequence[Usage]) -> Usage | None:
    """The tokens of several answers added up; a count any of them left out is unknown."""
    if not reported:
        return None

    def total(counts: list[int | None]) -> int | None:
        known = [count for count in counts if count is not None]
        return sum(known) if len(known) == len(counts) else None

    return Usage(
        prompt_tokens=total([usage.prompt_tokens for usage in reported]),
        completion_tokens=total([usage.completion_tokens for usage in reported]),
        total_tokens=total([usage.total_tokens for usage in reported]),
    )


class Traced(NamedTuple):
    """A response with how it was obtained: attempts made and seconds waited between them."""

    response: TargetResponse
    attempts: int = 1
    waited: float = 0.0
    provenance: Provenance = DECLARED
    """Each field's source in this response."""
    usage: Usage | None = None
    first_token_ms: float | None = None
    """For a streamed answer: milliseconds from sending to the first piece of text."""
    answered_text: str | None = None
    """The text as the target sent it, where the gates read another (markers cut out)."""
    finish_reason: str | None = None
    """Why the answer ended, as the target said (`stop`, `length`: cut at `max_tokens`, ...);
    None when it did not say. Checked with `finish_reason_of`."""


FINISH_REASON_LENGTH = "length"
"""The `finish_reason` of an answer the server cut at its `max_tokens`."""

MAX_FINISH_REASON = 40
"""The most characters of a finish reason kept: a server's word, never an essay."""


_FINISH_WORD = re.compile(rf"[a-z0-9_]{{1,{MAX_FINISH_REASON}}}")


def finish_reason_of(value: object) -> str | None:
    """A finish reason as an answer gave it, made safe to keep; None unless non-empty text.

    A server's word, so hostile like the rest: kept only when it is a word (lower-case letters,
    digits and `_`, at most `MAX_FINISH_REASON` characters, as `stop`, `length`,
    `tool_calls`), else not reported. Never cut: a cut text could keep the start of a secret
    that no mask, which sees only whole secrets, would find.
    """
    if not isinstance(value, str) or _FINISH_WORD.fullmatch(value) is None:
        return None
    return value


@dataclass
class Conversation:
    """What a target keeps for one conversation: one ask of one case, all its turns.

    Made fresh by the engine for every ask, so no session id or cookie crosses cases.
    """

    case_id: str
    session_id: str | None = None
    """The server's session id, once it has given one."""
    cookies: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Question:
    """One turn to ask a target: everything `AsyncTarget.ask` is given, as one value.

    Named for what the engine puts to a target, apart from the CLI's `TargetRequest` (which
    target to build), the judge's `Ask` (its seam to a model) and an HTTP `Request` (what a
    target sends over the wire).
    """

    prompt: str
    """The user's message."""
    language: str
    """Its BCP 47 language."""
    history: tuple[Message, ...] | None = None
    """The earlier messages of a multi-turn case (the user's and the target's own answers);
    None for a single-turn case, so a target that takes no history is never sent one."""
    tools: Scripted | None = None
    """The case's scripted tools, on its last turn only: a target that holds a tool loop
    itself (an `openai-chat` target file) plays them for the model and reports every call;
    any other target uses its own tools and reports its calls (or not) as it always does."""
    conversation: Conversation | None = None
    """The conversation this turn belongs to: cookies and a session id kept within it."""
    stop: asyncio.Event | None = None
    """Set when the run is interrupted: a wait before a retry ends at once."""


PROBE_LANGUAGE = "en"
"""The language a target's pre-flight `probe` asks in."""


class AsyncTarget(Protocol):
    """The one interface the engine asks through: every kind of target is adapted to it."""

    @property
    def name(self) -> str:
        """What the results call the target: never a credential."""
        ...

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """Every value that must never appear in any output."""
        ...

    def provides(self, language: str) -> Provenance:
        """Where each contract field will come from in `language`, known before any ask.

        A field derived from phrases is absent in a language the target file gives none for.
        """
        ...

    @property
    def holds_conversations(self) -> bool:
        """Whether multi-turn cases can be asked (history is passed)."""
        ...

    async def ask(self, question: Question) -> Traced:
        """Answer one turn; raise `TargetError` (with attempts set) when no answer came.

        Everything the turn is asked with travels in `question`: a new thing to ask with is
        a field there, never another parameter on every kind of target.
        """
        ...

    async def probe(self) -> Traced | None:
        """One pre-flight ask (in `PROBE_LANGUAGE`), or None for a target that needs none."""
        ...

    async def aclose(self) -> None:
        """Release connections and threads."""
        ...


@runtime_checkable
class Target(Protocol):
    """Anything with a `name` that answers a prompt in a language.

    `ask` may be a plain function or a coroutine function; the engine awaits the latter and
    runs the former in a worker thread.
    """

    name: str

    def ask(self, prompt: str, language: str) -> TargetResponse | Awaitable[TargetResponse]:
        """Answer `prompt`, written in the BCP 47 `language`.

        A target that holds conversations also takes `history`: the earlier messages of a
        multi-turn case (the user's and its own answers), as a tuple of `Message`. It is
        passed only for multi-turn cases, so a single-turn target needs no such parameter.
        """
        ...


def check_response(value: object) -> TargetResponse:
    """Accept a `TargetResponse`, or a mapping with exactly its fields and types.

    Nothing is inferred: a missing field, an extra field or a wrong type is a contract error
    that names the field. A `TargetResponse` is checked as its fields, like a mapping, and
    what is returned is always a validated `TargetResponse` (never a subclass).

    Raises:
        TargetContractError: `value` is neither.
    """
    if isinstance(value, TargetResponse):
        # Being an instance proves nothing: `model_construct` and `model_copy(update=...)`
        # skip validation, a subclass may add fields, and `object.__new__` sets nothing at
        # all. Validating the fields again costs about 2 us an answer, against the 0.06 us
        # of taking the instance as it came.
        fields = getattr(value, "__dict__", None) or {}
        value = {**fields, **(getattr(value, "__pydantic_extra__", None) or {})}
    if not isinstance(value, dict):
        raise TargetContractError(
            f"expected a TargetResponse (or a mapping of its fields), got {type(value).__name__}"
        )
    try:
        return TargetResponse.model_validate(value)
    except ValidationError as exc:
        raise TargetContractError(describe_contract_errors(exc)) from None


def describe_contract_errors(exc: ValidationError) -> str:
    """One sentence per contract problem, each naming its field."""
    problems = []
    for error in exc.errors(include_url=False):
        field = printable(".".join(str(part) for part in error["loc"])) or "response"
        match error["type"]:
            case "missing":
                problems.append(f"{field}: missing")
            case "extra_forbidden":
                problems.append(f"{field}: not a field of the contract")
            case "not_utf8" | "not_json" | "ids_repeated":
                problems.append(f"{field}: {error['msg']}")
            case "string_unicode":  # pydantic's own check, which only a mapping's keys meet
                problems.append(
                    f"{field}: the key {_shown(error['input'])} holds a lone surrogate, "
                    "which UTF-8 cannot encode"
                )
            case _:
                problems.append(f"{field}: {error['msg'].lower()}, got {_shown(error['input'])}")
    return "target contract broken: " + "; ".join(problems)


class _ShortRepr(reprlib.Repr):
    """`reprlib`'s bounded repr, which also survives an integer too long for `repr`."""

    def repr_str(self, x: str, level: int) -> str:
        return super().repr_str(masked(x), level)  # masked before reprlib cuts it

    def repr_int(self, x: int, level: int) -> str:
        try:
            return super().repr_int(x, level)
        except ValueError:  # `repr` refuses an integer of more than 4,300 digits
            return f"<an integer of {x.bit_length():,} bits>"


_SHORT = _ShortRepr()
_SHORT.maxstring = _SHORT.maxother = _SHOWN


def _shown(value: object) -> str:
    """`value` as a contract error quotes it: at most `_SHOWN` characters, on one line.

    What a callable puts in a field may be any object: one too big to print whole, nested
    too deeply for `repr`, or with a `__repr__` that raises. `reprlib` bounds the first two
    and stands in for the third.
    """
    return printable(f"{_SHORT.repr(value):.{_SHOWN}}")
