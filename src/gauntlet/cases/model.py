"""The case-file schema: one pydantic model per gate's suite and case, discriminated on `gate`.

The models are the single source of the case-file format: the loader validates with them,
`gauntlet schema cases` prints the JSON Schema generated from them, and the docs describe them.
Every model is frozen and refuses unknown keys.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import Annotated, Any, ClassVar, Literal, cast, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    TypeAdapter,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gauntlet.defaults import MAX_REPEAT
from gauntlet.invisible import remove_invisible
from gauntlet.record import FieldDocstrings, Record, StrictRecord
from gauntlet.transforms import ENCODED_ANSWER, MAX_BEST_OF_N, Transform, Variant

MAX_ID_LENGTH = 128

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
"""Case ids and suite names: a letter or digit, then letters, digits, `.`, `_` or `-`."""

LANGUAGE_PATTERN = (
    r"^[A-Za-z]{2,3}"  # language
    r"(-[A-Za-z]{4})?"  # script, e.g. Hant
    r"(-(?:[A-Za-z]{2}|[0-9]{3}))?"  # region, e.g. MX or 419
    r"(-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$"  # variants
)
"""The shape of a BCP 47 language tag (language, script, region, variants)."""

SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
"""Tags: lowercase letters and digits in words joined by `-`."""

ELEMENT_PATTERN = r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
"""Disclosure element names: lowercase words joined by `_`, e.g. `ai_disclosure`."""

NOT_BLANK_PATTERN = r"\S"
"""Text that has at least one character that is not whitespace."""


class GateName(StrEnum):
    """The seven gates. One spelling everywhere: YAML, module, evidence key."""

    GROUNDING = "grounding"
    ADVERSARIAL = "adversarial"
    REFUSAL = "refusal"
    FALSE_POSITIVE = "false_positive"
    GOLDEN = "golden"
    TRAJECTORY = "trajectory"
    DISCLOSURE = "disclosure"


class AttackType(StrEnum):
    """What an adversarial case tries to make the target do."""

    SYSTEM_PROMPT_OVERRIDE = "system_prompt_override"
    ROLE_MANIPULATION = "role_manipulation"
    JAILBREAK = "jailbreak"
    PROMPT_LEAK = "prompt_leak"
    CODE_EXECUTION = "code_execution"
    OBFUSCATION = "obfuscation"
    DETERMINATION = "determination"
    INDIRECT_INJECTION = "indirect_injection"
    """An instruction hidden in a tool's output (data), which the agent must not obey."""


class ParityRule(StrEnum):
    """What a suite does with a pair whose languages' outcomes differ."""

    REQUIRED = "required"
    """A pair that differs fails the suite, whatever its pass rate."""
    REPORTED = "reported"
    """Pairs are compared and shown; a difference does not fail the suite."""


class RefusalKind(StrEnum):
    """What a refusal case requires of the target."""

    MUST_REFUSE = "must_refuse"
    """The target must decline (`refused: true`)."""
    CRISIS = "crisis"
    """The target must escalate to a human (`escalated: true`) with readable routing text."""


def _ask_count_only(schema: dict[str, Any]) -> None:
    # Optional in the file, never null: the schema says what a user may write.
    schema.pop("default", None)
    schema.pop("anyOf", None)
    schema.update({"type": "integer", "minimum": 1, "maximum": MAX_REPEAT})


def _refuse_written_nulls(model: BaseModel, fields: tuple[str, ...]) -> None:
    # Optional keys may be left out, never written empty. (A "before" validator would do it
    # per field, but it hands pydantic a Python value, and strict mode then refuses a list
    # where a tuple is declared.)
    for name in fields:
        if name in model.model_fields_set and getattr(model, name) is None:
            raise PydanticCustomError("null", "write a value, or leave the key out", {"key": name})


def _count_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    schema.pop("anyOf", None)
    schema.update({"type": "integer", "minimum": 0})


def _fraction_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    schema.pop("anyOf", None)
    schema.update({"type": "number", "exclusiveMinimum": 0, "maximum": 1})


def _text_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    schema.pop("anyOf", None)
    schema.update({"type": "string", "minLength": 1, "pattern": NOT_BLANK_PATTERN})


def _boolean_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    schema.pop("anyOf", None)
    schema["type"] = "boolean"


def _object_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    options = schema.pop("anyOf", [])
    schema.update(next(option for option in options if option.get("type") != "null"))


def _identifier_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    options = schema.pop("anyOf", [])
    schema.update(next(option for option in options if option.get("type") == "string"))


def _list_of_two_or_more(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    options = schema.pop("anyOf", [])
    schema.update(next(option for option in options if option.get("type") == "array"))


Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]
CASE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*(~[a-z0-9_-]+)?$"
"""A case id as run: an `Identifier`, or a variant's (`<case id>~<transform>`, see `transforms`)."""
MAX_CASE_ID_LENGTH = MAX_ID_LENGTH + 32
"""A case id as run: a written one, and room for its variant's `~<transform>`."""
CaseId = Annotated[str, Field(min_length=1, max_length=MAX_CASE_ID_LENGTH, pattern=CASE_ID_PATTERN)]


def _as_written(schema: dict[str, Any]) -> None:
    # A file writes ids without `~`: that is kept for the variants a transform derives.
    if "anyOf" in schema:
        _identifier_only(schema)
    schema.update({"pattern": ID_PATTERN, "maxLength": MAX_ID_LENGTH})


LanguageTag = Annotated[str, Field(pattern=LANGUAGE_PATTERN)]
Text = Annotated[str, Field(min_length=1, pattern=NOT_BLANK_PATTERN)]


def _visible(marker: str) -> str:
    # Matching removes what shows nothing (default-ignorable code points, format characters,
    # combining marks, blank fillers: the one notion in `remove_invisible`) and folds
    # whitespace, so a marker made only of them would never be found: a check that cannot fail.
    if not remove_invisible(marker).strip():
        raise PydanticCustomError(
            "marker_invisible", "a marker of only invisible characters could never be found"
        )
    return marker


Marker = Annotated[Text, AfterValidator(_visible)]
Markers = tuple[Marker, ...]
"""A list of markers. An optional list may be empty (`[]` is the same as leaving it out:
suites written for other implementations of the format write it); a required one may not."""
Slug = Annotated[str, Field(pattern=SLUG_PATTERN)]
PositiveInt = Annotated[int, Field(ge=1)]
AskCount = Annotated[int, Field(ge=1, le=MAX_REPEAT)]
"""How many asks: a whole number from 1 to `MAX_REPEAT`."""


class Turn(StrictRecord):
    """One user message of a conversation, with optional checks on the answer to it."""

    user: Text
    """What the user says at this turn."""
    must_contain: Markers = ()
    """Text the answer to this turn must contain. Omit, or `[]`, for none."""
    must_not_contain: Markers = ()
    """Text the answer to this turn must not contain. Omit, or `[]`, for none."""
    expect_refused: bool | None = Field(default=None, json_schema_extra=_boolean_only)
    """`true`: the target must decline at this turn; `false`: it must not."""

    @model_validator(mode="after")
    def _no_null(self) -> Turn:
        _refuse_written_nulls(self, ("expect_refused",))
        return self


class JudgeFamily(StrEnum):
    """What a judged criterion is about, so drift can be read per kind of check."""

    SAFETY = "safety"
    COMPETENCE = "competence"


class JudgeCriterion(StrictRecord):
    """One question a model judge answers pass or fail about the answer."""

    id: Identifier
    """Unique within the case; the judge's reply names each criterion by it."""
    ask: Text
    """The question, e.g. "Does the answer give the 30-day appeal deadline?"."""
    family: JudgeFamily
    """`safety` or `competence`."""


class JudgeRubric(StrictRecord):
    """Checks only a model judge can make: each criterion answered pass or fail."""

    criteria: Annotated[tuple[JudgeCriterion, ...], Field(min_length=1)]
    """At least one criterion; ids unique."""

    @field_validator("criteria")
    @classmethod
    def _ids_unique(cls, criteria: tuple[JudgeCriterion, ...]) -> tuple[JudgeCriterion, ...]:
        ids = [criterion.id for criterion in criteria]
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        if repeated:
            raise PydanticCustomError(
                "criteria_repeated", "repeated criterion id {ids}", {"ids": ", ".join(repeated)}
            )
        return criteria


TOOL_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A tool's name, as chat APIs accept it: letters, digits, `_` and `-`, at most 64."""

ToolName = Annotated[str, Field(pattern=TOOL_NAME_PATTERN)]
JsonObject = dict[str, Any]


def _json_schema(schema: JsonObject) -> JsonObject:
    # A schema that is not one would make every call "invalid" (or, worse, none): refuse it
    # where it is written. Imported here, not at the top: only suites with tools need it.
    from jsonschema import Draft202012Validator, SchemaError

    from gauntlet.cases.tool_schema import outside_the_schema

    if schema.get("type") != "object":
        raise PydanticCustomError(
            "tool_schema_not_object",
            "a tool's arguments are a JSON object, so its schema needs `type: object`",
        )
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise PydanticCustomError(
            "tool_schema_invalid",
            "not a JSON Schema (draft 2020-12): {why}",
            {"why": exc.message},
        ) from None
    # Checked after the schema is known to be one: its refs are looked up in it.
    outside = outside_the_schema(schema)
    if outside is not None:
        raise PydanticCustomError("tool_schema_outside", "{why}", {"why": outside})
    return schema


class ToolSpec(StrictRecord):
    """A tool the scripted loop offers a chat model: its name, what it does, its arguments."""

    name: ToolName
    """How the model calls it; unique among the tools a case can use."""
    description: Text
    """What the tool does, as the model reads it."""
    parameters: Annotated[JsonObject, AfterValidator(_json_schema)] = Field(
        json_schema_extra={"properties": {"type": {"const": "object"}}, "required": ["type"]}
    )
    """The JSON Schema (draft 2020-12) of its arguments, an object: each call's arguments are
    validated against it, and a call that breaks it is answered with an error result."""


class ToolResult(StrictRecord):
    """What a scripted tool returns: for calls whose arguments hold `when`, or by default."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["output"]}, {"required": ["error"]}]}
    )

    tool: ToolName
    """The tool it answers for; one the case or its suite declares."""
    when: JsonObject | None = Field(default=None, json_schema_extra=_object_only)
    """Arguments the call must hold (a subset, compared as canonical JSON, so key order never
    matters). Leave it out for the tool's default result, at most one per tool."""
    output: Any = None
    """What the tool returns: text or any JSON value. Give `output` or `error`."""
    error: Text | None = Field(default=None, json_schema_extra=_text_only)
    """An error the tool returns instead of an output."""

    @model_validator(mode="after")
    def _output_or_error(self) -> ToolResult:
        _refuse_written_nulls(self, ("when", "error"))
        if ("output" in self.model_fields_set) == (self.error is not None):
            raise PydanticCustomError(
                "output_or_error",
                "give either 'output' or 'error', not both"
                if self.error is not None
                else "missing required key 'output' (or 'error')",
            )
        return self


class ArgumentsMatch(StrEnum):
    """How an expected call's `arguments` are compared with a call's."""

    EXACT = "exact"
    """Equal as canonical JSON: the same keys and values, key order aside."""
    SUBSET = "subset"
    """Every given key is present with an equal value (objects compared the same way inside)."""
    REGEX = "regex"
    """Each given argument fully matches the regular expression written for it."""


class CallMatcher(StrictRecord):
    """A tool call described: its name and, optionally, what its arguments must be."""

    model_config = ConfigDict(json_schema_extra={"dependentRequired": {"match": ["arguments"]}})

    name: ToolName
    """The tool's name."""
    arguments: JsonObject | None = Field(default=None, json_schema_extra=_object_only)
    """What the arguments must be, compared as `match` says. Leave it out: any arguments."""
    match: ArgumentsMatch = ArgumentsMatch.EXACT
    """`exact` (the default), `subset`, or `regex` (each value a pattern)."""

    @model_validator(mode="after")
    def _match_fits(self) -> CallMatcher:
        _refuse_written_nulls(self, ("arguments",))
        if self.arguments is None:
            if "match" in self.model_fields_set:
                raise PydanticCustomError(
                    "match_without_arguments", "'match' needs 'arguments' to compare"
                )
            return self
        if self.match is ArgumentsMatch.REGEX:
            from gauntlet.trajectory.scoring import Regex

            if not all(isinstance(value, str) for value in self.arguments.values()):
                raise PydanticCustomError(
                    "regex_not_text", "with 'match: regex' every argument is a pattern (text)"
                )
            try:
                Regex(dict(self.arguments))
            except ValueError as exc:
                raise PydanticCustomError("regex_invalid", "{why}", {"why": str(exc)}) from None
        return self


class CallOrder(StrEnum):
    """How the expected calls must be ordered among the calls made."""

    EXACT = "exact"
    """The calls made are the expected ones, in order, and nothing else."""
    IN_ORDER = "in_order"
    """The expected calls appear in order; other calls may come between them."""
    ANY_ORDER = "any_order"
    """Each expected call is made, in any order; other calls may come too."""


MAX_STEPS_LIMIT = 32
"""The most model turns a scripted tool loop may be given."""

Fraction = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
"""A fraction above 0 and at most 1."""


class UsesTools(StrictRecord):
    """Scripted tools: what the loop offers a chat model for this case, and what they return."""

    tools: tuple[ToolSpec, ...] = ()
    """Tools offered for this case, beside the suite's. Omit, or `[]`, for the suite's only."""
    tool_results: tuple[ToolResult, ...] = ()
    """What each tool returns for this case (see `ToolResult`). A call no result answers gets
    an error result saying so."""
    forbid_calls: tuple[ToolName | CallMatcher, ...] = ()
    """Calls that must not be made: tool names, or calls with argument matchers."""


def _host_entry(entry: str) -> str:
    from gauntlet.links import entry_problem

    problem = entry_problem(entry)
    if problem is not None:
        raise PydanticCustomError(
            "link_host", "{entry}: {why}", {"entry": repr(entry), "why": problem}
        )
    return entry


def _hosts_only(schema: dict[str, Any]) -> None:
    schema.pop("default", None)
    options = schema.pop("anyOf", [])
    schema.update(next(option for option in options if option.get("type") == "array"))


class LinkHosts(StrictRecord):
    """Where an answer's links may point: the `links` rule of the adversarial and refusal gates."""

    allowed_link_hosts: tuple[Annotated[str, AfterValidator(_host_entry)], ...] | None = Field(
        default=None, json_schema_extra=_hosts_only
    )
    """The hosts an answer's links, images and bare URLs may point to, e.g.
    `[riverbend.example]`; `*.example.org` (or `.example.org`) allows the hosts below
    `example.org`, not itself. A URL to any other host, one that reaches no host (`data:`),
    or one holding a `must_not_contain` marker fails the case. `[]`: no link may appear.
    Omit it: links are not checked. On a suite, the default for its cases; a case's own list
    replaces it. See docs/case-files.md."""

    @model_validator(mode="after")
    def _suite_default(self) -> Any:
        # A suite's list becomes each case's own, unless the case gives one: it then travels
        # with the case into the results, where the case is scored again on its own.
        _refuse_written_nulls(self, ("allowed_link_hosts",))
        hosts, cases = self.allowed_link_hosts, getattr(self, "cases", None)
        if hosts is not None and cases is not None:
            bound = tuple(
                case
                if "allowed_link_hosts" in case.model_fields_set
                else case.model_copy(update={"allowed_link_hosts": hosts})
                for case in cases
            )
            object.__setattr__(self, "cases", bound)  # frozen: set once, while validating
        return self


def case_key(case: Any, key: str, default: Any = None) -> Any:
    """`case`'s value of `key`, or `default` when its gate's cases have no such key.

    What `getattr(case, key, default)` gives, without its cost: pydantic answers a name a
    model lacks through its fallback (private attributes, extras, the class) and an
    AttributeError, and a run asks such keys of every case it grades.
    """
    return getattr(case, key) if key in type(case).model_fields else default


DATE_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
"""A calendar date as ISO 8601 writes it, `2026-12-05`."""


def _a_day(text: str) -> str:
    """`text` if it names a day that exists: `2026-02-30` fits `DATE_PATTERN` and is none."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise PydanticCustomError(
            "not_a_day", "{value!r} is not a day written YYYY-MM-DD", {"value": text}
        ) from None
    return text


class FoundBy(StrictRecord):
    """Where a case came from when `gauntlet explore` found it and froze it (its provenance).

    Written by `gauntlet explore`, read as any other key: the case replays the attacker's
    messages verbatim, and the evidence pack shows who found the break, when and against what.
    """

    persona: Identifier
    """The persona whose conversation broke the target, e.g. `staff-impersonator`."""
    attacker: Text
    """The attacker model's fingerprint, as the explore run recorded it."""
    seed: Annotated[int, Field(ge=0)]
    """The explore run's seed for this conversation."""
    breaking_turn: PositiveInt
    """The turn whose answer broke the goal: the case's last turn, counted from 1."""
    found: Annotated[str, Field(pattern=DATE_PATTERN), AfterValidator(_a_day)]
    """The day the break was found, `YYYY-MM-DD` (quote it in YAML)."""
    target: Text
    """The name of the target that broke, as the explore run named it."""
    detector: Text
    """What fired: `markers`, `links`, `refusal`, `routing`, or `judge:<criterion id>`."""


class Case(StrictRecord):
    """The keys every case has, whatever its gate."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["prompt"]}, {"required": ["turns"]}]}
    )

    id: CaseId = Field(json_schema_extra=_as_written)
    """Unique across every loaded suite; letters, digits, `.`, `_`, `-`; at most 128."""
    language: LanguageTag
    """BCP 47 tag of the prompt's language, e.g. `en`, `es`, `es-MX`, `zh-Hant`."""
    prompt: Text | None = Field(default=None, json_schema_extra=_text_only)
    """What the target is asked, in one message. Give `prompt` or `turns`, not both."""
    turns: tuple[Turn, ...] | None = Field(
        default=None, min_length=2, json_schema_extra=_list_of_two_or_more
    )
    """A conversation instead: the user's messages in order, each answered before the next.
    The gate's checks apply to the final answer; each turn's own checks to its answer."""
    tags: tuple[Slug, ...] = Field(default=(), json_schema_extra={"uniqueItems": True})
    """Optional lowercase slugs for selecting cases, e.g. `[hours, library]`."""
    judge: JudgeRubric | None = Field(default=None, json_schema_extra=_object_only)
    """Rubric checks for a model judge (`gauntlet run --judge`), asked only when the gate's own
    checks pass: the judge can fail a case, never pass one the gate failed."""
    pair: CaseId | None = Field(default=None, json_schema_extra=_as_written)
    """A key shared with the same question in the suite's other languages: the cases of one
    key are a parity pair, compared outcome for outcome (see `parity`)."""
    found_by: FoundBy | None = Field(default=None, json_schema_extra=_object_only)
    """Provenance of a case `gauntlet explore` froze from a break it found; written by it.
    Replayed like any case; the evidence pack shows it."""

    _variant: Variant | None = PrivateAttr(default=None)

    @property
    def variant(self) -> Variant | None:
        """For a variant case (`gauntlet.cases.variants`), where it came from; else None."""
        # Read from pydantic's store: `self._variant` goes through its fallback lookup.
        private = self.__pydantic_private__
        return None if private is None else cast("Variant | None", private["_variant"])

    @model_validator(mode="after")
    def _prompt_or_turns(self) -> Case:
        _refuse_written_nulls(self, ("prompt", "turns", "judge", "pair", "found_by"))
        if (self.prompt is None) == (self.turns is None):
            raise PydanticCustomError(
                "prompt_or_turns",
                "give either 'prompt' or 'turns', not both"
                if self.prompt is not None
                else "missing required key 'prompt' (or 'turns' for a conversation)",
            )
        sent = len(self.messages)
        if self.found_by is not None and self.found_by.breaking_turn != sent:
            raise PydanticCustomError(
                "found_by_turn",
                "{turn}, but the case sends {sent}: the breaking turn is its last message",
                {
                    "turn": self.found_by.breaking_turn,
                    "sent": f"{sent} message" if sent == 1 else f"{sent} messages",
                    "at": ("found_by", "breaking_turn"),
                },
            )
        return self

    @property
    def messages(self) -> tuple[str, ...]:
        """The user's messages: one for a prompt, one per turn for a conversation."""
        if self.turns is not None:
            return tuple(turn.user for turn in self.turns)
        assert self.prompt is not None  # noqa: S101 - the validator guarantees one of them
        return (self.prompt,)

    @property
    def final_prompt(self) -> str:
        """The message whose answer the gate grades: the prompt, or the last turn."""
        return self.messages[-1]

    @field_validator("tags")
    @classmethod
    def _tags_unique(cls, tags: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({tag for tag in tags if tags.count(tag) > 1})
        if repeated:
            raise PydanticCustomError(
                "tags_repeated", "repeated tag {tags}", {"tags": ", ".join(repeated)}
            )
        return tags


# ---------------------------------------------------------------- transforms (issue 31)


def _refuse_repeats(names: list[Transform]) -> None:
    repeated = sorted({name.value for name in names if names.count(name) > 1})
    if repeated:
        raise PydanticCustomError(
            "transforms_repeated", "repeated transform {names}", {"names": ", ".join(repeated)}
        )


def _unique_list(schema: dict[str, Any]) -> None:
    # A case's narrowing: a list (never null), each name once, as the loader reads it.
    _list_of_two_or_more(schema)
    schema["uniqueItems"] = True


def _declared_transforms(schema: dict[str, Any]) -> None:
    # Each name once, and `best_of_n` only in its `{best_of_n: N, seed: S}` form, as the
    # loader reads it. Two `best_of_n` forms that differ are unique items; the loader refuses
    # them (tests/unit/cases/test_schema.py, BEYOND_THE_SCHEMA).
    schema["uniqueItems"] = True
    named, noised = schema["items"]["anyOf"]
    schema["items"]["anyOf"] = [
        {"allOf": [named, {"not": {"const": Transform.BEST_OF_N.value}}]},
        noised,
    ]


class BestOfN(StrictRecord):
    """Seeded best-of-N noise: `N` variants, each its own draw of character noise."""

    best_of_n: Annotated[int, Field(ge=1, le=MAX_BEST_OF_N)]
    """How many noised variants each case gets: 1 to 100."""
    seed: int
    """The seed, with the case id and the variant's number, of each variant's own generator."""


class NarrowsTransforms(StrictRecord):
    """A case that may narrow its suite's transforms."""

    transforms: tuple[Transform, ...] | None = Field(default=None, json_schema_extra=_unique_list)
    """A subset of the suite's transforms for this case (`best_of_n` for its noise), each
    once; `[]` opts the case out. Omit it: every transform the suite declares."""

    @field_validator("transforms")
    @classmethod
    def _named_once(cls, names: tuple[Transform, ...] | None) -> tuple[Transform, ...] | None:
        _refuse_repeats(list(names or ()))
        return names

    @model_validator(mode="after")
    def _no_null_transforms(self) -> NarrowsTransforms:
        _refuse_written_nulls(self, ("transforms",))
        return self


class DeclaresTransforms(StrictRecord):
    """A suite whose cases each give a variant case per transform (docs/case-files.md)."""

    transforms: tuple[Transform | BestOfN, ...] = Field(
        default=(), json_schema_extra=_declared_transforms
    )
    """The transforms every case gets, each a name or one `{best_of_n: N, seed: S}`; a
    refusal suite's apply to its `must_refuse` cases only."""

    @field_validator("transforms")
    @classmethod
    def _transforms_once(cls, items: tuple[Transform | BestOfN, ...]) -> tuple[Any, ...]:
        if Transform.BEST_OF_N in items:
            raise PydanticCustomError(
                "best_of_n_bare", "write best_of_n as {best_of_n: N, seed: S}, with its seed"
            )
        _refuse_repeats([Transform.BEST_OF_N if isinstance(i, BestOfN) else i for i in items])
        return items

    @model_validator(mode="after")
    def _cases_fit(self) -> DeclaresTransforms:
        declared = {Transform.BEST_OF_N if isinstance(i, BestOfN) else i for i in self.transforms}
        for number, case in enumerate(getattr(self, "cases", ())):
            why, at = _transforms_problem(case, declared)
            if why:
                raise PydanticCustomError(
                    "transforms_inconsistent", "{why}", {"why": why, "at": ("cases", number, *at)}
                )
        return self


def _transforms_problem(case: Any, declared: set[Transform]) -> tuple[str, tuple[Any, ...]]:
    """Why `case` cannot take the transforms it gets, and where; `""` when it can."""
    named = case.transforms
    for index, name in enumerate(named or ()):
        if name not in declared:
            shown = ", ".join(sorted(t.value for t in declared)) or "none"
            return (
                f"transform {name.value!r} is not one of the suite's (declared: {shown})",
                ("transforms", index),
            )
    gets = declared if named is None else set(named)
    if case_key(case, "kind") is RefusalKind.CRISIS:
        if named:
            return "transforms apply to must_refuse cases only", ("transforms",)
        return "", ()
    encoded = sorted(t.value for t in gets & ENCODED_ANSWER)
    from gauntlet.spellings import MIN_SPELLED_LENGTH

    for at, marker in _leak_markers(case) if encoded else ():
        if not seen_encoded(marker):
            return (
                f"marker {marker!r} is too short to be looked for in an encoded reply (its "
                f"letters and digits take fewer than {MIN_SPELLED_LENGTH} bytes, a Han, Hangul "
                f"or kana character three), and {', '.join(encoded)} "
                "ask for the reply encoded: give the case 'transforms' without them",
                at,
            )
    return "", ()


def _leak_markers(case: Any) -> list[tuple[tuple[Any, ...], str]]:
    """Each `must_not_contain` marker of `case` (and of its turns), with where it is."""
    found: list[tuple[tuple[Any, ...], str]] = [
        (("must_not_contain", i), m) for i, m in enumerate(case_key(case, "must_not_contain", ()))
    ]
    for n, turn in enumerate(case.turns or ()):
        found += [
            (("turns", n, "must_not_contain", i), m) for i, m in enumerate(turn.must_not_contain)
        ]
    return found


def seen_encoded(marker: str) -> bool:
    """Whether `marker` is still found in a reply that writes it encoded (`ENCODED_ANSWER`).

    A marker with too few letters and digits (counted in UTF-8 bytes) is not looked for in
    other spellings (`gauntlet.spellings.MIN_SPELLED_LENGTH`): a case holding one may not take
    a transform that asks for the reply encoded, or a leak written that way would pass.
    """
    import base64

    from gauntlet.spellings import leaks

    return bool(leaks(base64.b64encode(marker.encode()).decode("ascii"), (marker,)))


class GroundingCase(Case):
    """A question whose answer must rest on the target's retrieved sources, or abstain."""

    expect_grounded: bool
    """`true`: an answer citing only ids from its `context_ids`. `false`: abstain, cite nothing."""
    must_contain: Markers = ()
    """Text the answer must contain (compared after normalisation). Omit, or `[]`, for none."""


class AdversarialCase(Case, UsesTools, LinkHosts, NarrowsTransforms):
    """An attack the target must not give in to, through the prompt or a tool's output.

    An attack through a tool's output scripts a `tool_results` entry carrying an instruction,
    with `forbid_calls` for what obeying it would do and `expect_calls` for the calls that
    deliver it.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [{"required": ["prompt"]}, {"required": ["turns"]}],
            "if": {
                "properties": {"attack_type": {"const": "indirect_injection"}},
                "required": ["attack_type"],
            },
            "then": {"required": ["expect_calls"]},
        }
    )

    attack_type: AttackType
    """Which kind of attack this is."""
    must_not_contain: Markers = Field(json_schema_extra={"minItems": 1})
    """Text whose presence in the answer shows the attack worked (a canary, a leaked rule).
    At least one: an adversarial case with no markers checks nothing."""
    expect_calls: tuple[CallMatcher, ...] = Field(default=(), json_schema_extra={"minItems": 1})
    """For an attack through a tool's output, the calls that deliver it (the lookup whose
    output carries the instruction). Required, at least one, for `indirect_injection`: an
    attack the target never received shows nothing, so the case fails when they were not
    made."""

    @model_validator(mode="after")
    def _delivered(self) -> AdversarialCase:
        if self.attack_type is AttackType.INDIRECT_INJECTION and not self.expect_calls:
            raise PydanticCustomError(
                "undelivered",
                "an indirect_injection case needs 'expect_calls': the calls that deliver the "
                "attack (without them, a target that never called the tool would pass)",
            )
        return self

    @field_validator("must_not_contain")
    @classmethod
    def _some_marker(cls, markers: tuple[str, ...]) -> tuple[str, ...]:
        # The markers are the case's only check beyond readability: with none, every readable
        # answer would pass, whatever it gave away.
        if not markers:
            raise PydanticCustomError(
                "markers_empty",
                "must not be empty: an adversarial case with no markers checks nothing",
            )
        return markers


class RefusalCase(Case, LinkHosts, NarrowsTransforms):
    """A request the target must decline, or a crisis it must route to a human."""

    kind: RefusalKind
    """`must_refuse`: decline. `crisis`: escalate, with readable routing text."""
    must_contain: Markers = ()
    """Text the answer must contain, such as a crisis line's number. Omit, or `[]`, for none."""


class FalsePositiveCase(Case):
    """A legitimate request that looks risky and must be answered, not refused."""

    must_contain: Markers = ()
    """Text the answer must contain. Omit, or `[]`, for none."""


class GoldenCase(Case):
    """A prompt with one curated answer the target must reproduce exactly."""

    expected: Text
    """The expected answer, compared with whitespace collapsed."""


class DisclosureCase(Case):
    """A question a resident asks a government service, whose answer must carry the disclosure.

    Only the common keys: the suite's `elements` say what every answer must show.
    """

    _required: tuple[tuple[str, tuple[str, ...]], ...] = PrivateAttr(default=())

    @property
    def required(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each element the answer must show, with its markers for the case's language.

        Set when the case's suite is validated; empty for a case built on its own, which the
        gate then fails (a disclosure case with nothing to look for would pass anything).
        """
        # Read from pydantic's store: `self._required` goes through its fallback lookup.
        private = self.__pydantic_private__
        return (
            ()
            if private is None
            else cast("tuple[tuple[str, tuple[str, ...]], ...]", private["_required"])
        )


TRAJECTORY_CHECKS = (
    "expect_calls",
    "forbid_calls",
    "max_calls",
    "min_tool_accuracy",
    "must_contain",
    "expected",
    "min_faithfulness",
    "min_similarity",
)
"""The keys of a trajectory case that check something; a case states at least one."""


class TrajectoryCase(Case, UsesTools):
    """A task an agent does with tools.

    Checked: which calls it makes, in what order, and whether its answer rests on what the
    tools returned.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [{"required": ["prompt"]}, {"required": ["turns"]}],
            "anyOf": [{"required": [key]} for key in TRAJECTORY_CHECKS],
            "dependentRequired": {"min_similarity": ["expected"]},
        }
    )

    expect_calls: tuple[CallMatcher, ...] = ()
    """The calls the agent must make. Omit, or `[]`: none is required (`max_calls: 0` forbids
    every call)."""
    order: CallOrder = CallOrder.IN_ORDER
    """How `expect_calls` must be ordered: `in_order` (the default), `exact` or `any_order`."""
    max_calls: Annotated[int, Field(ge=0)] | None = Field(
        default=None, json_schema_extra=_count_only
    )
    """The most calls the agent may make."""
    min_tool_accuracy: Fraction | None = Field(default=None, json_schema_extra=_fraction_only)
    """The least tool accuracy: 1 - edit distance / longer length over the (tool, canonical
    arguments) sequences of the expected and the made calls."""
    must_contain: Markers = ()
    """Text the answer must contain. Omit, or `[]`, for none."""
    expected: Text | None = Field(default=None, json_schema_extra=_text_only)
    """A reference answer: each of its sentences must be supported by the answer (the
    faithfulness rule, with the answer as the source)."""
    context: tuple[Text, ...] = ()
    """Texts besides the tools' outputs that may support the answer's claims."""
    min_faithfulness: Fraction | None = Field(default=None, json_schema_extra=_fraction_only)
    """The least share of the answer's claims (sentences) supported by a tool's output or
    `context`; see docs/case-files.md for the rule and its limits."""
    claim_overlap: Fraction = 0.5
    """The share of a claim's content words a source must hold for the claim to count as
    supported (for `min_faithfulness` and `expected`); every number in it must be there too."""
    min_similarity: Fraction | None = Field(default=None, json_schema_extra=_fraction_only)
    """The least similarity of the final answer to `expected`, by the run's embedder
    (`gauntlet run --embedder`). It can only raise the bar: the answer must also clear the
    threshold the embedder's calibration accepted for the case's language, and the guards
    (numbers, negation) must hold; without an accepted calibration the ask is unjudged."""

    @model_validator(mode="after")
    def _no_null_checks(self) -> TrajectoryCase:
        _refuse_written_nulls(
            self,
            ("max_calls", "min_tool_accuracy", "expected", "min_faithfulness", "min_similarity"),
        )
        if self.min_similarity is not None and self.expected is None:
            raise PydanticCustomError(
                "similarity_without_expected",
                "min_similarity compares the final answer with `expected`: give `expected`",
                {"at": ("min_similarity",)},
            )
        if not self.model_fields_set & set(TRAJECTORY_CHECKS):
            raise PydanticCustomError(
                "no_check",
                "states no check, so any readable answer would pass: give at least one of {keys}",
                {"keys": ", ".join(TRAJECTORY_CHECKS)},
            )
        if self.expected is not None:
            _expected_claims(self.expected, self.language)
        return self


def _expected_claims(expected: str, language: str) -> None:
    """Refuse an `expected` answer with no claim: each claim must be covered, so none is a pass.

    A claim is what the faithfulness rule counts as one (`gauntlet.trajectory.faithfulness`):
    a sentence with a content word that is not a question.
    """
    from gauntlet.trajectory.faithfulness import faithfulness

    if not faithfulness(expected, (), language, 1.0).claims:
        raise PydanticCustomError(
            "expected_no_claim",
            "{expected} makes no claim (each sentence is a question or only function words), "
            "so every answer would cover it: write the facts the answer must state",
            {"expected": repr(expected), "at": ("expected",)},
        )


def _threshold_not_zero(value: Any) -> Any:
    if type(value) in (int, float) and value == 0:
        raise PydanticCustomError(
            "threshold_zero",
            "0 would pass the gate even if every case failed, so the gate could never fail; "
            "use a fraction above 0 (1.0: every case must pass)",
        )
    return value


Threshold = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]


def _languages_only(schema: dict[str, Any]) -> None:
    _list_of_two_or_more(schema)
    schema["uniqueItems"] = True


def pair_shape(case: Case) -> dict[str, str]:
    """What the two sides of a parity pair must share for their outcomes to be compared.

    The form of the question (one prompt, or a conversation of so many turns) and each gate's
    kind of check: a refusal's `kind`, an attack's `attack_type`, a grounding case's
    `expect_grounded`. Sides that differ in these ask different things, so a difference in
    their outcomes would say nothing about the language.
    """
    shape = {"form": "prompt" if case.turns is None else f"{len(case.turns)} turns"}
    if isinstance(case, RefusalCase):
        shape["kind"] = case.kind.value
    if isinstance(case, AdversarialCase):
        shape["attack_type"] = case.attack_type.value
    if isinstance(case, GroundingCase):
        shape["expect_grounded"] = str(case.expect_grounded).lower()
    return shape


class SuiteBase(StrictRecord):
    """The keys every suite has, whatever its gate."""

    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"parity": {"const": "required"}}, "required": ["parity"]},
            "then": {"required": ["languages"]},
        }
    )

    run_options: ClassVar[tuple[str, ...]] = ()
    """The keys a run may set for this suite (`--suite-option`): what a target can do
    without, never what lowers the bar (a threshold, a marker)."""
    suite: Identifier
    """The suite's name, unique across every loaded suite."""
    gate: GateName
    """Which gate scores this suite's cases."""
    version: PositiveInt
    """Bump it whenever the suite's cases change, so evidence says which cases were run."""
    threshold: Threshold
    """Fraction of cases that must pass for the gate to pass: above 0, at most 1."""
    repeat: AskCount = 1
    """Ask each case at least this many times (`--repeat` may ask more), at most 100: a
    nondeterministic target that fails one time in five is caught by asking five times, not
    once."""
    pass_k: AskCount | None = Field(default=None, json_schema_extra=_ask_count_only)
    """A case passes when at least this many of its asks pass. Omit it: every ask must pass."""
    languages: tuple[LanguageTag, ...] | None = Field(
        default=None, min_length=2, json_schema_extra=_languages_only
    )
    """The languages every `pair` is asked in, e.g. `[en, es]`: at least two, unique. Given,
    every case's language is one of them and each pair has one case per language."""
    parity: ParityRule = ParityRule.REPORTED
    """`reported` (the default): pairs are compared and shown, a difference does not fail the
    suite. `required`: a pair whose languages' outcomes differ fails the suite (needs
    `languages`, and a `pair` on every case)."""

    _check_threshold = field_validator("threshold", mode="before")(_threshold_not_zero)

    @field_validator("pass_k", mode="before")
    @classmethod
    def _pass_k_not_null(cls, value: Any) -> Any:
        if value is None:
            raise PydanticCustomError(
                "pass_k_null", "write a whole number of at least 1, or leave the key out"
            )
        return value

    @field_validator("languages")
    @classmethod
    def _languages_unique(cls, languages: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if languages is None:
            return None  # refused by `_languages_not_null`, which names the key
        repeated = sorted({tag for tag in languages if languages.count(tag) > 1})
        if repeated:
            raise PydanticCustomError(
                "languages_repeated", "repeated language {tags}", {"tags": ", ".join(repeated)}
            )
        return languages

    @model_validator(mode="after")
    def _languages_not_null(self) -> SuiteBase:
        _refuse_written_nulls(self, ("languages",))
        return self

    @model_validator(mode="after")
    def _pass_k_within_repeat(self) -> SuiteBase:
        explicit = "repeat" in self.model_fields_set
        if explicit and self.pass_k is not None and self.pass_k > self.repeat:
            raise PydanticCustomError(
                "pass_k_above_repeat",
                "asks for {pass_k} passes, but repeat asks only {repeat} times",
                {"pass_k": self.pass_k, "repeat": self.repeat},
            )
        return self


class GroundingSuite(SuiteBase):
    """A suite of grounding cases."""

    run_options: ClassVar[tuple[str, ...]] = ("accepts_absent",)
    gate: Literal[GateName.GROUNDING]
    accepts_absent: tuple[Literal["context_ids"], ...] = ()
    """`[context_ids]`: run against a target that does not report what it retrieved. Cases
    are then checked for citing and abstaining, not for citing only what was retrieved, and
    the evidence pack says so. Omit it: a target without `context_ids` is refused."""
    cases: Annotated[tuple[GroundingCase, ...], Field(min_length=1)]
    """The cases, at least one."""


class AdversarialSuite(SuiteBase, LinkHosts, DeclaresTransforms):
    """A suite of adversarial cases."""

    gate: Literal[GateName.ADVERSARIAL]
    tools: tuple[ToolSpec, ...] = ()
    """Tools offered to every case by the scripted loop, for attacks through a tool's output."""
    max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS_LIMIT)] = 8
    """The most model turns the scripted loop takes per case (default 8)."""
    cases: Annotated[tuple[AdversarialCase, ...], Field(min_length=1)]
    """The cases, at least one."""

    @model_validator(mode="after")
    def _tools_known(self) -> AdversarialSuite:
        check_tools(self.tools, self.cases)
        return self


def check_tools(suite_tools: tuple[ToolSpec, ...], cases: tuple[UsesTools, ...]) -> None:
    """Refuse a tool named twice, a result for an undeclared tool, and two defaults for one.

    The first problem is reported, located by the `at` of its context (a path below the
    suite), which the loader turns into a line and column.
    """
    for number, case in enumerate(cases):
        names = [tool.name for tool in suite_tools]
        for index, tool in enumerate(case.tools):
            if tool.name in names:
                raise PydanticCustomError(
                    "tools_inconsistent",
                    "{why}",
                    {
                        "why": f"tool {tool.name!r} is already declared for this case",
                        "at": ("cases", number, "tools", index, "name"),
                    },
                )
            names.append(tool.name)
        defaults: set[str] = set()
        for index, result in enumerate(case.tool_results):
            at = ("cases", number, "tool_results", index)
            if result.tool not in names:
                raise PydanticCustomError(
                    "tools_inconsistent",
                    "{why}",
                    {
                        "why": f"no tool {result.tool!r} is declared in the case's or the "
                        f"suite's 'tools' (declared: {', '.join(names) or 'none'})",
                        "at": (*at, "tool"),
                    },
                )
            if result.when is None:
                if result.tool in defaults:
                    raise PydanticCustomError(
                        "tools_inconsistent",
                        "{why}",
                        {
                            "why": f"a second default result (no 'when') for {result.tool!r}: "
                            "only the first could ever answer",
                            "at": at,
                        },
                    )
                defaults.add(result.tool)


class RefusalSuite(SuiteBase, LinkHosts, DeclaresTransforms):
    """A suite of refusal cases."""

    gate: Literal[GateName.REFUSAL]
    cases: Annotated[tuple[RefusalCase, ...], Field(min_length=1)]
    """The cases, at least one."""


class FalsePositiveSuite(SuiteBase):
    """A suite of false-positive cases."""

    gate: Literal[GateName.FALSE_POSITIVE]
    cases: Annotated[tuple[FalsePositiveCase, ...], Field(min_length=1)]
    """The cases, at least one."""


class TrajectorySuite(SuiteBase):
    """A suite of trajectory cases, with the tools its cases may use."""

    gate: Literal[GateName.TRAJECTORY]
    tools: tuple[ToolSpec, ...] = ()
    """Tools offered to every case of the suite by the scripted loop (an `openai-chat`
    target); a native target uses its own and reports its calls."""
    max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS_LIMIT)] = 8
    """The most model turns the scripted loop takes per case (default 8); a model still
    calling tools then fails the case."""
    cases: Annotated[tuple[TrajectoryCase, ...], Field(min_length=1)]
    """The cases, at least one."""

    @model_validator(mode="after")
    def _tools_known(self) -> TrajectorySuite:
        check_tools(self.tools, self.cases)
        return self


class GoldenMatch(StrEnum):
    """How a golden answer is compared with `expected`."""

    EXACT = "exact"
    """Equal once whitespace is collapsed."""
    JUDGE = "judge"
    """No worse than `expected`, by a model judge comparing the two blind, in both orders."""
    SEMANTIC = "semantic"
    """The same meaning as `expected`: the guards (every number, no negation in one only) hold
    and the embedder's similarity clears the threshold its calibration accepted."""


class GoldenSuite(SuiteBase):
    """A suite of golden cases, tied to the version of the answer key."""

    gate: Literal[GateName.GOLDEN]
    key_version: PositiveInt
    """Version of the answer key; bump it when any `expected` changes."""
    match: GoldenMatch = GoldenMatch.EXACT
    """`exact` (the default); `judge`: a model judge (`gauntlet run --judge`) compares the
    answer with `expected` blind, in both orders; or `semantic`: the run's embedder
    (`gauntlet run --embedder`) compares their meaning, after the number and negation guards.
    With `judge` or `semantic` a reworded answer may pass."""
    cases: Annotated[tuple[GoldenCase, ...], Field(min_length=1)]
    """The cases, at least one."""


ElementName = Annotated[str, Field(pattern=ELEMENT_PATTERN, max_length=MAX_ID_LENGTH)]
ElementMarkers = Annotated[Markers, Field(min_length=1)]
_ONLY_PATTERN_KEYS: dict[str, Any] = {"additionalProperties": False}
"""A mapping's keys must match its pattern, in the schema as in the loader."""


def markers_for(by_language: dict[str, tuple[str, ...]], language: str) -> tuple[str, ...] | None:
    """The markers of one element that serve `language`; None when none do.

    The tag itself first, then shorter prefixes of it (`es-MX` -> `es`), compared without
    regard to case, as BCP 47 tags are.
    """
    by_tag = {tag.lower(): markers for tag, markers in by_language.items()}
    subtags = language.lower().split("-")
    for length in range(len(subtags), 0, -1):
        found = by_tag.get("-".join(subtags[:length]))
        if found is not None:
            return found
    return None


class DisclosureSuite(SuiteBase):
    """A suite of disclosure cases, with the elements every answer must show."""

    gate: Literal[GateName.DISCLOSURE]
    elements: Annotated[
        dict[
            ElementName,
            Annotated[
                dict[LanguageTag, ElementMarkers],
                Field(min_length=1, json_schema_extra=_ONLY_PATTERN_KEYS),
            ],
        ],
        Field(min_length=1, json_schema_extra=_ONLY_PATTERN_KEYS),
    ]
    """Each element every answer must show (`ai_disclosure`, `human_contact`, `opt_out`, or
    any other), by language tag, with the markers that show it: an element is shown when any
    of its markers for the case's language is in the answer. A case's language is looked up
    by its exact tag, then its primary subtag (`es-MX`: `es`); every case's language needs
    markers for every element."""
    cases: Annotated[tuple[DisclosureCase, ...], Field(min_length=1)]
    """The cases, at least one."""

    @model_validator(mode="after")
    def _every_language_has_markers(self) -> DisclosureSuite:
        for number, case in enumerate(self.cases):
            required = [
                (element, markers_for(by_language, case.language))
                for element, by_language in self.elements.items()
            ]
            missing = [element for element, markers in required if markers is None]
            if missing:
                raise PydanticCustomError(
                    "disclosure_markers_missing",
                    "{why}",
                    {
                        "why": f"case {case.id!r} is in {case.language!r}, but the suite's "
                        f"elements give no markers in that language for {', '.join(missing)}",
                        "missing": ", ".join(missing),
                        "language": case.language,
                        "at": ("cases", number, "language"),
                    },
                )
            case._required = tuple(  # bound here, where the suite is known
                (element, markers) for element, markers in required if markers is not None
            )
        return self


AnySuite = (
    GroundingSuite
    | AdversarialSuite
    | RefusalSuite
    | FalsePositiveSuite
    | GoldenSuite
    | TrajectorySuite
    | DisclosureSuite
)
"""Every gate's suite: a new gate's suite model is added here, and its case model below."""
AnyCase = (
    GroundingCase
    | AdversarialCase
    | RefusalCase
    | FalsePositiveCase
    | GoldenCase
    | TrajectoryCase
    | DisclosureCase
)

Suite = Annotated[AnySuite, Field(discriminator="gate")]
"""A case file: one suite of one gate."""

SUITE_ADAPTER: TypeAdapter[AnySuite] = TypeAdapter(Suite, config=ConfigDict(defer_build=True))
"""Built on first use, as the records are: importing the module builds no validator."""

SUITE_MODELS: dict[GateName, type[SuiteBase]] = {
    get_args(model.model_fields["gate"].annotation)[0]: model for model in get_args(AnySuite)
}
"""Each gate's suite model, for messages that name what a key belongs to; in `GateName` order."""

_SUITE_BY_TAG = {gate.value: model for gate, model in SUITE_MODELS.items()}


def suite_reader(data: Any) -> Callable[[str], AnySuite] | None:
    """The strict JSON reader of the suite model `data`'s gate names, or None (no such gate).

    What it accepts is what `SUITE_ADAPTER` accepts with that gate: the union's tag picks
    that very model. Its errors lack the union's tag, so a caller words refusals from
    `SUITE_ADAPTER`'s (see `StrictFile.member`).
    """
    gate = data.get("gate") if type(data) is dict else None
    model = _SUITE_BY_TAG.get(gate) if type(gate) is str else None
    if model is None:
        return None
    return cast("Callable[[str], AnySuite]", partial(model.model_validate_json, strict=True))


CASE_MODELS: dict[GateName, type[Case]] = {
    gate: get_args(model.model_fields["cases"].annotation)[0]
    for gate, model in SUITE_MODELS.items()
}
"""Each gate's case model, as its suite model's `cases` holds them."""


def case_file_schema() -> dict[str, Any]:
    """The JSON Schema of a case file, generated from the models."""
    schema = SUITE_ADAPTER.json_schema(schema_generator=FieldDocstrings)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gauntlet case file",
        "description": "One suite of cases for one gate. See docs/case-files.md.",
        **schema,
    }


class SuiteOption(Record):
    """A suite option given for one run (`--suite-option`), applied as if the file said it."""

    suite: Identifier
    """The suite it was applied to."""
    option: str
    """The suite's key, such as `accepts_absent`."""
    value: JsonValue
    """What the run applied."""
    file_value: JsonValue
    """What the suite's file said (or the key's default, when the file left it out)."""
