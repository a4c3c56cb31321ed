"""Loading case files: a pure `parse_suite(text, source)` and `load_suites(paths)` for files.

Every problem becomes a `ConfigError` located as `path:line:column`, and `load_suites` reports
all of them at once: a user fixes a directory of typos in one pass. A case file is read as
every kind of file is (`CASE_FILE`, a `gauntlet.cases.strict_file.StrictFile`); what is here
is the case files' own: the wording of their schema errors, parity pairs, and the rules
across files.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from gauntlet.cases.file_words import (
    CASE_FILE_WORDS,
    IDENTIFIER_HINT,
    by_position,
    describe_common,
    did_you_mean,
    dotted,
    kind_of,
    repeated_ids,
)
from gauntlet.cases.model import (
    CASE_MODELS,
    DATE_PATTERN,
    MAX_STEPS_LIMIT,
    NOT_BLANK_PATTERN,
    SUITE_ADAPTER,
    SUITE_MODELS,
    AnyCase,
    AnySuite,
    FoundBy,
    GateName,
    JudgeCriterion,
    JudgeRubric,
    ParityRule,
    SuiteOption,
    Turn,
    pair_shape,
    suite_reader,
)
from gauntlet.cases.strict_file import YAML_SUFFIX, StrictFile
from gauntlet.cases.variants import expanded, written_id_errors
from gauntlet.cases.yaml_nodes import Document, Mark, NodePath, read_document
from gauntlet.defaults import MAX_REPEAT
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError

CASE_FILE_SUFFIX = YAML_SUFFIX


@dataclass(frozen=True)
class LoadedSuite:
    """A validated suite and where each of its parts came from."""

    suite: AnySuite
    """The suite as the models validated it."""
    source: str
    """The case file, as the user named it (a path relative to the named directory)."""
    case_marks: tuple[Mark, ...]
    """Where each case starts in `source`, in the order of `suite.cases`."""
    id_marks: tuple[Mark, ...]
    """Where each case's `id` value is, in the order of `suite.cases`."""
    name_mark: Mark
    """Where the `suite` name is."""

    @property
    def cases(self) -> tuple[AnyCase, ...]:
        """The suite's cases."""
        return self.suite.cases


class CaseCount(NamedTuple):
    """How many suites and cases one gate has, and its cases per language."""

    suites: int
    cases: int
    languages: dict[str, int]


@dataclass(frozen=True)
class SuiteSet:
    """Every suite of one load, in a stable order (by directory argument, then path)."""

    suites: tuple[LoadedSuite, ...]
    options: tuple[SuiteOption, ...] = ()
    """The suite options given for the run (`--suite-option`), already applied to `suites`."""

    @property
    def case_total(self) -> int:
        """The number of cases across every suite."""
        return sum(len(loaded.cases) for loaded in self.suites)

    def counts(self) -> dict[GateName, CaseCount]:
        """Suites, cases and cases per language for each gate that has any, in gate order."""
        counts: dict[GateName, CaseCount] = {}
        for gate in GateName:
            mine = [loaded for loaded in self.suites if loaded.suite.gate == gate]
            if not mine:
                continue
            languages = Counter(case.language for loaded in mine for case in loaded.cases)
            counts[gate] = CaseCount(
                len(mine), sum(languages.values()), dict(sorted(languages.items()))
            )
        return counts


def parse_suite(raw: str | bytes, source: str) -> LoadedSuite:
    """Parse and validate one case file's content. Pure: reads nothing but its arguments.

    Args:
        raw: The file's bytes (checked for size, BOM, UTF-8 and NUL) or already-decoded text.
        source: The name to put in every error location.

    Raises:
        ConfigErrors: every problem found, each located.
    """
    suite, document = CASE_FILE.parse(raw, source)
    paired = pair_errors(suite, document, source)
    if paired:
        raise ConfigErrors(sorted(paired, key=by_position))
    count = len(suite.cases)
    loaded = LoadedSuite(
        suite=suite,
        source=source,
        case_marks=tuple(document.mark_for(("cases", i)) for i in range(count)),
        id_marks=tuple(document.mark_for(("cases", i, "id")) for i in range(count)),
        name_mark=document.mark_for(("suite",)),
    )
    reserved = written_id_errors(loaded)
    if reserved:
        raise ConfigErrors(reserved)
    return expanded(loaded)


def pair_errors(suite: AnySuite, document: Document, source: str) -> list[ConfigError]:
    """Every way the suite's parity pairs break the rules, each located where it breaks.

    With `languages`, each case's language is one of them and each pair key has exactly one
    case per language; without, a key has one case per language and at least two. The sides
    of a pair share `pair_shape`. `parity: required` needs `languages` and a key on every
    case: an unpaired case would escape the check.
    """
    errors: list[ConfigError] = []

    def refuse(at: NodePath, message: str, hint: str) -> None:
        mark = document.mark_for(at)
        errors.append(
            ConfigSchemaError(source, message, line=mark.line, column=mark.column, hint=hint)
        )

    def place(index: int) -> str:
        mark = document.mark_for(("cases", index))
        return f"cases[{index}] at {source}:{mark.line}:{mark.column}"

    def present(sides: dict[str, int]) -> str:
        # Worded only for an error: locating every pair's cases is most of a valid file's cost.
        return ", ".join(f"{language} {place(index)}" for language, index in sides.items())

    declared = suite.languages
    required = suite.parity is ParityRule.REQUIRED
    if required and declared is None:
        refuse(
            ("parity",),
            "parity: 'required' needs the suite's 'languages'",
            "list the languages every pair is asked in, e.g. languages: [en, es]",
        )
    sides: dict[str, dict[str, int]] = {}
    for index, case in enumerate(suite.cases):
        if declared is not None and case.language not in declared:
            refuse(
                ("cases", index, "language"),
                f"cases[{index}].language: {case.language!r} is not one of the suite's "
                f"languages ({', '.join(declared)})",
                "add it to 'languages', or write the case in one of them",
            )
            continue
        if case.pair is None:
            if required:
                refuse(
                    ("cases", index, "id"),
                    f"cases[{index}]: case {case.id!r} has no 'pair', but the suite's parity "
                    "is required",
                    "give it the pair key of its other languages' cases: an unpaired case "
                    "would escape the parity check",
                )
            continue
        mine = sides.setdefault(case.pair, {})
        at = ("cases", index, "pair")
        first = mine.get(case.language)
        if first is not None:
            refuse(
                at,
                f"cases[{index}].pair: pair {case.pair!r} already has its {case.language} case",
                f"the first is {place(first)}; a pair has one case per language",
            )
            continue
        if mine:
            other_language, other = next(iter(mine.items()))
            theirs, ours = pair_shape(suite.cases[other]), pair_shape(case)
            if theirs != ours:
                unlike = "; ".join(
                    f"{key} {theirs.get(key, '-')} there, {ours.get(key, '-')} here"
                    for key in theirs
                    if theirs.get(key) != ours.get(key)
                )
                refuse(
                    at,
                    f"cases[{index}].pair: pair {case.pair!r} does not ask what its "
                    f"{other_language} side asks ({unlike})",
                    f"its {other_language} side is {place(other)}; the sides of a pair are "
                    "the same question, checked the same way",
                )
        mine[case.language] = index
    for key, mine in sides.items():
        index = next(iter(mine.values()))
        at = ("cases", index, "pair")
        if declared is not None:
            for language in declared:
                if language not in mine:
                    refuse(
                        at,
                        f"cases[{index}].pair: pair {key!r} has no {language} case",
                        f"present: {present(mine)}; add its {language} case with pair: {key}",
                    )
        elif len(mine) < 2:  # a pair is two languages at least
            refuse(
                at,
                f"cases[{index}].pair: pair {key!r} is on this case only: a pair needs its "
                "other language",
                f"present: {present(mine)}; add the same question in another language with "
                f"pair: {key}, or remove the key",
            )
    return errors


def load_suite(path: Path) -> LoadedSuite:
    """Read and parse one case file.

    Raises:
        ConfigErrors: the file is not a regular file, is over `MAX_FILE_BYTES` (refused
            before it is read), cannot be read, or `parse_suite` refuses it.
    """
    return parse_suite(CASE_FILE.read(path), str(path))


def load_suites(paths: Sequence[str | os.PathLike[str]]) -> SuiteSet:
    """Load every case file named or found under `paths`, and check rules across files.

    A directory is searched recursively for `*.yaml` files in a stable order; a file may be
    named directly. Suite names and case ids must be unique across everything loaded.

    Raises:
        ConfigErrors: every problem in every file and across files, each located.
    """
    errors: list[ConfigError] = []
    if not paths:
        errors.append(ConfigError(".", "no case files or directories were given"))
    files = CASE_FILE.find([Path(named) for named in paths], errors)
    loaded: list[LoadedSuite] = []
    for path in files:
        try:
            loaded.append(load_suite(path))
        except ConfigErrors as exc:
            errors.extend(exc.errors)
    errors.extend(_cross_file_errors(loaded))
    if errors:
        raise ConfigErrors(errors)
    return SuiteSet(tuple(loaded))


def _cross_file_errors(loaded: Iterable[LoadedSuite]) -> list[ConfigError]:
    errors: list[ConfigError] = []
    names: dict[str, tuple[str, Mark]] = {}
    ids: dict[str, tuple[str, Mark]] = {}
    for suite in loaded:
        name = suite.suite.suite
        if name in names:
            where, mark = names[name]
            errors.append(
                ConfigSchemaError(
                    suite.source,
                    f"suite: duplicate suite name '{name}'",
                    line=suite.name_mark.line,
                    column=suite.name_mark.column,
                    hint=f"first used at {where}:{mark.line}:{mark.column}; names must be unique",
                )
            )
        else:
            names[name] = (suite.source, suite.name_mark)
        errors += repeated_ids(
            suite.source,
            zip([case.id for case in suite.cases], suite.id_marks, strict=True),
            ids,
            key="cases",
            noun="case",
            rule="case ids must be unique across every loaded suite",
        )
    return errors


# ------------------------------------------------------------------ schema error messages

_GATES = ", ".join(gate.value for gate in GateName)


def _schema_error(error: ErrorDetails, document: Document, source: str) -> ConfigSchemaError:
    """Turn one pydantic error into a located, plain-language `ConfigSchemaError`."""
    data = document.data
    loc: NodePath = tuple(error["loc"])
    gate = _gate_of(data)
    if gate is not None and loc and not error["type"].startswith("union_tag"):
        loc = loc[1:]  # the discriminated union puts the gate's tag first
    message, hint, mark = _describe(error, loc, gate, document)
    return ConfigSchemaError(source, message, line=mark.line, column=mark.column, hint=hint)


CASE_FILE = StrictFile(
    CASE_FILE_WORDS,
    SUITE_ADAPTER,
    lambda errors, document, source: [_schema_error(error, document, source) for error in errors],
    member=suite_reader,
)
"""The case files: one suite each, up to `MAX_FILE_BYTES`, read from the `--cases` named."""


_FRACTIONS = frozenset({"min_tool_accuracy", "min_faithfulness", "min_similarity", "claim_overlap"})


def _describe(
    error: ErrorDetails, loc: NodePath, gate: GateName | None, document: Document
) -> tuple[str, str | None, Mark]:
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "pass_k_above_repeat":
        loc = ("pass_k",)  # a rule across two keys is reported at the one that breaks it
    if kind == "null":
        loc = (*loc, ctx["key"])  # reported by the model, located at the key's value
    if kind in (
        "tools_inconsistent",
        "disclosure_markers_missing",
        "expected_no_claim",
        "transforms_inconsistent",
        "found_by_turn",
    ):
        loc = (*loc, *ctx["at"])  # a rule across keys, located where it breaks
    if kind == "disclosure_markers_missing":
        language = ctx["language"]
        primary = language.split("-", 1)[0]
        shown = f"{language} (or {primary})" if primary != language else language
        return (
            f"{dotted(loc)}: {error['msg']}",
            f"give {ctx['missing']} markers in {shown} under elements: its answers could "
            "not be checked for them",
            document.mark_for(loc),
        )
    if loc[:1] == ("elements",) and loc[-1:] == ("[key]",):
        return (
            *_element_key(error, loc[:-1]),
            document.key_marks.get(loc[:-1], document.mark_for(loc[:-1])),
        )
    if kind == "too_short" and loc[-1:] == ("turns",):
        return (
            f"{dotted(loc)}: a conversation needs at least two turns",
            "for one message, write prompt instead",
            document.mark_for(loc),
        )
    if kind == "too_short" and loc == ("languages",):
        return (
            "languages: needs at least two languages",
            "a pair compares one language with another; leave the key out for none",
            document.mark_for(loc),
        )
    where = dotted(loc)
    mark = document.mark_for(loc)
    field = next((part for part in reversed(loc) if isinstance(part, str)), "")

    if kind == "dict_type" and not loc:
        return (
            f"a case file must be a mapping of suite, gate, version, threshold and cases, "
            f"not {kind_of(value)}",
            None,
            mark,
        )
    if kind == "union_tag_not_found":
        return f"missing required key 'gate' (one of {_GATES})", None, mark
    if kind == "union_tag_invalid":
        tag = document.data.get("gate")
        shown = repr(tag) if isinstance(tag, str) else kind_of(tag)
        return (
            f"gate: {shown} is not one of {_GATES}",
            did_you_mean(str(tag), [g.value for g in GateName]),
            document.mark_for(("gate",)),
        )
    if kind == "extra_forbidden":
        return (*_unknown_key(loc, gate), document.key_marks.get(loc, mark))
    if kind == "too_short" and field == "cases":
        return f"{where}: a suite needs at least one case", None, mark
    common = describe_common(error, loc, document.plain_texts.get(loc))
    if common is not None:
        message, hint = common
        if kind == "model_type":  # `turns: [hello]`: `- user: hello` with its key left out
            hint = hint or _one_key_form(
                ctx.get("class_name"), value, document.plain_texts.get(loc)
            )
        return message, hint, mark
    if kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern")
        message, hint = _PATTERN_MESSAGES.get(field) or _FORMS.get(
            pattern, (f"{{value!r}} does not have the form this key takes ({pattern})", None)
        )
        return f"{where}: {message.format(value=value)}", hint, mark
    if field == "threshold" and kind in ("greater_than", "less_than_equal", "finite_number"):
        return f"{where}: must be above 0 and at most 1, got {value!r}", None, mark
    if field in _FRACTIONS and kind in ("greater_than", "less_than_equal", "finite_number"):
        return (
            f"{where}: must be above 0 and at most 1, got {value!r}",
            "0 would make the check one that can never fail; leave the key out for no check",
            mark,
        )
    if field == "max_steps" and kind in ("greater_than_equal", "less_than_equal"):
        return (
            f"{where}: must be a whole number from 1 to {MAX_STEPS_LIMIT}, got {value!r}",
            None,
            mark,
        )
    if field in _ASK_COUNTS and kind in ("greater_than_equal", "less_than_equal"):
        hint = None
        if kind == "less_than_equal":
            hint = (
                f"{MAX_REPEAT} asks that all pass already put the failure rate below 4% "
                "(95% confidence); ask more cases rather than more times"
            )
        return f"{where}: must be a whole number from 1 to {MAX_REPEAT}, got {value!r}", hint, mark
    if kind == "greater_than_equal":
        least = ctx.get("ge", 1)
        return f"{where}: must be a whole number of at least {least}, got {value!r}", None, mark
    return f"{where}: {error['msg']}" if where else error["msg"], None, mark


def _models_under(annotation: Any) -> Iterator[type[BaseModel]]:
    """Every model a field's annotation can hold, and every model their fields can hold."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        for info in annotation.model_fields.values():
            yield from _models_under(info.annotation)
    for argument in get_args(annotation):
        yield from _models_under(argument)


_CASE_FILE_MODELS = {model.__name__: model for model in _models_under(AnySuite)}
"""Every model of a case file by class name, as a `model_type` error names the one it wanted."""


def _one_key_form(class_name: Any, value: Any, written: str | None) -> str | None:
    """`did you mean {key: value}?` for a scalar given where a one-key mapping would hold it.

    Only for a model with exactly one required key whose mapping of the scalar alone loads:
    `{user: hello}` for a turn; none for a judge rubric (its one key is a list) or a tool
    result (`{tool: lookup}` alone still lacks its output), where no mapping is obvious.
    """
    model = _CASE_FILE_MODELS.get(class_name) if isinstance(class_name, str) else None
    if model is None or not isinstance(value, str | int | float | bool):
        return None
    required = [name for name, info in model.model_fields.items() if info.is_required()]
    if len(required) != 1:
        return None
    try:
        model.model_validate_json(json.dumps({required[0]: value}), strict=True)
    except ValidationError:
        return None
    return f"did you mean `{{{required[0]}: {written or _flow_scalar(value)}}}`?"


def _flow_scalar(value: str | float | bool) -> str:
    """The value as a YAML flow mapping holds it: bare when it reads back the same, else JSON."""
    bare = str(value)
    try:
        if read_document(f"{{key: {bare}}}", "").data == {"key": value}:
            return bare
    except ConfigErrors:
        pass
    return json.dumps(value, ensure_ascii=False)


def _element_key(error: ErrorDetails, loc: NodePath) -> tuple[str, str | None]:
    """A disclosure suite's element name (`elements.x`) or language tag (`elements.x.en`)."""
    value = error.get("input")
    if error["type"] == "string_pattern_mismatch" and len(loc) == 2:
        return (
            f"{dotted(loc)}: {value!r} is not a valid element name",
            "use lowercase words joined by '_', for example ai_disclosure or opt_out",
        )
    if error["type"] == "string_pattern_mismatch":
        message, hint = _PATTERN_MESSAGES["language"]
        return f"{dotted(loc)}: {message.format(value=value)}", hint
    common = describe_common(error, loc, None)  # a name over 128 characters
    if common is None:  # pragma: no cover - a key is only ever checked for pattern and length
        return f"{dotted(loc)}: {error['msg']}", None
    return common


_ASK_COUNTS = ("repeat", "pass_k")
"""Suite keys that count asks per case, from 1 to `MAX_REPEAT`."""

_PATTERN_MESSAGES: dict[str, tuple[str, str | None]] = {
    "id": (
        "{value!r} is not a valid id",
        IDENTIFIER_HINT,
    ),
    "suite": (
        "{value!r} is not a valid suite name",
        IDENTIFIER_HINT,
    ),
    "language": (
        "{value!r} is not a BCP 47 language tag",
        "for example en, es, es-MX, zh-Hant",
    ),
    "languages": (
        "{value!r} is not a BCP 47 language tag",
        "for example en, es, es-MX, zh-Hant",
    ),
    "tags": ("{value!r} is not a lowercase slug", "for example hours or lost-card"),
}


_FORMS: dict[object, tuple[str, str | None]] = {
    NOT_BLANK_PATTERN: ("must not be blank", None),
    DATE_PATTERN: (
        "{value!r} is not a day written YYYY-MM-DD",
        'for example "2026-12-05", quoted so YAML reads it as text',
    ),
}
"""How a value refused by a pattern shared by many keys is worded, by the pattern."""

_NESTED: dict[str, tuple[type[BaseModel], str]] = {
    "found_by": (FoundBy, "provenance"),
    "turns": (Turn, "turn"),
    "judge": (JudgeRubric, "judge"),
    "criteria": (JudgeCriterion, "judge criterion"),
}
"""The models of a case's nested mappings, by the key they sit under, and what to call them."""


def _unknown_key(loc: NodePath, gate: GateName | None) -> tuple[str, str | None]:
    key = str(loc[-1])
    where = dotted(loc)
    owner = next((_NESTED[part] for part in reversed(loc[:-1]) if part in _NESTED), None)
    if len(loc) > 3 and loc[0] == "cases" and owner is not None:
        model, name = owner
        allowed = list(model.model_fields)
        hint = did_you_mean(key, allowed) or f"{name} keys are: {', '.join(allowed)}"
        return f"{where}: unknown key for {_article(name)} {name}", hint
    is_case = len(loc) == 3 and loc[0] == "cases"
    models: dict[GateName, Any] = CASE_MODELS if is_case else SUITE_MODELS
    level = "case" if is_case else "suite"
    if gate is None:  # pragma: no cover - an unresolved gate reports no per-field errors
        return f"{where}: unknown key", None
    allowed = list(models[gate].model_fields)
    label = f"{where}: unknown key for {_article(gate.value)} {gate.value} {level}"
    owners = [other.value for other, model in models.items() if key in model.model_fields]
    if owners:
        return label, f"'{key}' is a key of {' and '.join(owners)} {level}s"
    return label, did_you_mean(key, allowed) or f"{level} keys are: {', '.join(allowed)}"


def _gate_of(data: Any) -> GateName | None:
    gate = data.get("gate") if isinstance(data, dict) else None
    return GateName(gate) if isinstance(gate, str) and gate in set(GateName) else None


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
