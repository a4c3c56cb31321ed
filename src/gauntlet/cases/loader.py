"""Loading case files: a pure `parse_suite(text, source)` and `load_suites(paths)` for files.

Every problem becomes a `ConfigError` located as `path:line:column`, and `load_suites` reports
all of them at once: a user fixes a directory of typos in one pass.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from gauntlet.cases.model import (
    CASE_MODELS,
    MAX_STEPS_LIMIT,
    SUITE_ADAPTER,
    SUITE_MODELS,
    AnyCase,
    AnySuite,
    GateName,
    JudgeCriterion,
    JudgeRubric,
    ParityRule,
    SuiteOption,
    Turn,
    pair_shape,
)
from gauntlet.cases.yaml_nodes import (
    MAX_FILE_BYTES,
    Document,
    Mark,
    NodePath,
    decode_source,
    read_document,
)
from gauntlet.defaults import MAX_REPEAT
from gauntlet.display import unencodable
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError, ConfigSyntaxError
from gauntlet.files import FileTooLargeError, RefusedFileError, read_regular_file

CASE_FILE_SUFFIX = ".yaml"

Validated = TypeVar("Validated")


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
    text = decode_source(raw, source) if isinstance(raw, bytes) else raw
    document = read_document(text, source)
    suite = validate_document(
        SUITE_ADAPTER,
        document,
        lambda errors: [_schema_error(error, document, source) for error in relevant(errors)],
    )
    paired = pair_errors(suite, document, source)
    if paired:
        raise ConfigErrors(sorted(paired, key=by_position))
    count = len(suite.cases)
    return LoadedSuite(
        suite=suite,
        source=source,
        case_marks=tuple(document.mark_for(("cases", i)) for i in range(count)),
        id_marks=tuple(document.mark_for(("cases", i, "id")) for i in range(count)),
        name_mark=document.mark_for(("suite",)),
    )


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
    raw = read_config_file(
        path,
        limit=MAX_FILE_BYTES,
        what="a case file",
        too_large="split the suite into several files",
    )
    return parse_suite(raw, str(path))


def read_config_file(path: Path, *, limit: int, what: str, too_large: str | None) -> bytes:
    """Read a file the user named for gauntlet to load, refusing it with a `ConfigError`.

    Args:
        path: The file, as the user named it (the errors' location).
        limit: The largest size accepted, in bytes; a larger file is refused before it is read.
        what: What the file should be, for the message: `a case file`, `a target file`.
        too_large: The hint for a file over `limit`.

    Raises:
        ConfigErrors: the file is not a regular file, is too large, or cannot be read.
    """
    source = str(path)
    try:
        return read_regular_file(path, limit=limit, what=what)
    except FileTooLargeError as exc:
        raise ConfigErrors(
            [ConfigSyntaxError(source, exc.reason, line=1, column=1, hint=too_large)]
        ) from None
    except RefusedFileError as exc:
        raise ConfigErrors([ConfigError(source, exc.reason)]) from None
    except OSError as exc:
        raise ConfigErrors([ConfigError(source, f"cannot read: {exc.strerror}")]) from None


def validate_document(
    adapter: TypeAdapter[Validated],
    document: Document,
    describe: Callable[[list[ErrorDetails]], Iterable[ConfigError]],
) -> Validated:
    """Validate a strictly read document against `adapter`, strictly.

    The data goes through JSON, so pydantic's JSON rules apply (text for an enum, no
    coercion); YAML has already resolved every scalar by the core schema.

    Args:
        adapter: The models of the file.
        document: The file, as `read_document` read it.
        describe: Turns pydantic's errors into located `ConfigError`s.

    Raises:
        ConfigErrors: what `describe` made of the errors, in the order of the file.
    """
    try:
        return adapter.validate_json(json.dumps(document.data), strict=True)
    except ValidationError as exc:
        errors = describe(exc.errors(include_url=False))
        raise ConfigErrors(sorted(errors, key=by_position)) from None


def by_position(error: ConfigError) -> tuple[int, int]:
    """Sort key: an error's line, then its column (an error with neither comes first)."""
    return (error.line or 0, error.column or 0)


def load_suites(paths: Sequence[str | os.PathLike[str]]) -> SuiteSet:
    """Load every case file named or found under `paths`, and check rules across files.

    A directory is searched recursively for `*.yaml` files in a stable order; a file may be
    named directly. Suite names and case ids must be unique across everything loaded.

    Raises:
        ConfigErrors: every problem in every file and across files, each located.
    """
    errors: list[ConfigError] = []
    files: list[Path] = []
    seen: set[Path] = set()
    if not paths:
        errors.append(ConfigError(".", "no case files or directories were given"))
    for named in paths:
        for found in find_case_files(Path(named), errors):
            if unencodable(str(found)) is not None:
                # The name reaches the results file and every report as the case's source;
                # a name the file system gave as bytes that are not UTF-8 could not be written.
                errors.append(ConfigError(found, "the file's name is not valid UTF-8; rename it"))
                continue
            real = found.resolve()
            if real not in seen:  # the same file reached twice is one suite, not two
                seen.add(real)
                files.append(found)
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


def find_case_files(root: Path, errors: list[ConfigError]) -> list[Path]:
    """The `*.yaml` files at or under `root`, sorted; problems are appended to `errors`.

    A `.yml` file, a symlink that leads out of `root`, a dangling symlink and a directory
    with no case files are errors: each is a suite that would silently not run.
    """
    if not root.exists():
        errors.append(ConfigError(root, "no such file or directory"))
        return []
    if not root.is_dir():
        if _suffix_problem(root, errors) or root.suffix != CASE_FILE_SUFFIX:
            if root.suffix.lower() not in (".yml", ".yaml"):
                errors.append(ConfigError(root, "not a case file: case files end in .yaml"))
            return []
        return [root]
    top = root.resolve()
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames.sort()
        for name in list(dirnames):
            link = here / name
            if link.is_symlink():
                # Not followed: inside `root` its files are reached by their real path.
                _check_link(link, top, errors)
                dirnames.remove(name)
        for name in sorted(filenames):
            path = here / name
            if _suffix_problem(path, errors) or path.suffix != CASE_FILE_SUFFIX:
                continue
            if path.is_symlink() and not _check_link(path, top, errors):
                continue
            found.append(path)
    if not found and not any(error.path.startswith(str(root)) for error in errors):
        errors.append(
            ConfigError(
                root,
                "no case files (*.yaml) in this directory",
                hint="an empty directory would run no cases and prove nothing",
            )
        )
    return sorted(found, key=lambda p: p.relative_to(root).parts)


def _suffix_problem(path: Path, errors: list[ConfigError]) -> bool:
    """Report a near-miss YAML suffix (`.yml`, `.YAML`); True if there was one."""
    suffix = path.suffix
    if suffix.lower() in (".yml", ".yaml") and suffix != CASE_FILE_SUFFIX:
        errors.append(
            ConfigSyntaxError(
                path,
                f"case files must end in {CASE_FILE_SUFFIX}, not {suffix}",
                line=1,
                column=1,
                hint=f"rename it to {path.with_suffix(CASE_FILE_SUFFIX).name}; "
                "it would otherwise be a suite that never runs",
            )
        )
        return True
    return False


def _check_link(link: Path, top: Path, errors: list[ConfigError]) -> bool:
    """True if the symlink `link` resolves to an existing place inside `top`."""
    target = link.resolve()
    if not target.exists():
        errors.append(ConfigError(link, f"symlink points to nothing ({os.readlink(link)})"))
        return False
    if not target.is_relative_to(top):
        errors.append(
            ConfigError(
                link,
                f"symlink leads out of the case directory, to {target}",
                hint="name that place with its own --cases instead",
            )
        )
        return False
    return True


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


def repeated_ids(
    source: str,
    entries: Iterable[tuple[str, Mark]],
    seen: dict[str, tuple[str, Mark]],
    *,
    key: str,
    noun: str,
    rule: str,
) -> list[ConfigError]:
    """An error for each id of `entries` that `seen` holds, located at it; `seen` gets the rest.

    Args:
        source: The file the entries are in.
        entries: Each entry's id and where it is written, in the order of the list `key`.
        seen: Where each id was first defined, in the files checked so far; updated.
        key: The list the entries are in (`cases`), for the message's path.
        noun: What an entry is called (`case`).
        rule: Why an id may not repeat: the hint's end, after where it was first defined.
    """
    errors: list[ConfigError] = []
    for index, (entry_id, mark) in enumerate(entries):
        if entry_id in seen:
            where, first = seen[entry_id]
            errors.append(
                ConfigSchemaError(
                    source,
                    f"{key}[{index}].id: duplicate {noun} id {entry_id!r}",
                    line=mark.line,
                    column=mark.column,
                    hint=f"first defined at {where}:{first.line}:{first.column}; {rule}",
                )
            )
        else:
            seen[entry_id] = (source, mark)
    return errors


def read_reworded(raw: str | bytes, source: str, words: Sequence[tuple[str, str]]) -> Document:
    """Read a YAML document as a case file is read, its errors `reworded` with `words`.

    Args:
        raw: The file's bytes (checked for size, BOM, UTF-8 and NUL) or already-decoded text.
        source: The name to put in every error location.
        words: `(case file words, its words)` pairs, as `reworded` takes them.

    Raises:
        ConfigErrors: the bytes cannot be decoded or the text is not a document gauntlet
            reads, each error reworded.
    """
    try:
        text = decode_source(raw, source) if isinstance(raw, bytes) else raw
        return read_document(text, source)
    except ConfigErrors as exc:
        raise ConfigErrors(reworded(error, words) for error in exc.errors) from None


def reworded(error: ConfigError, words: Sequence[tuple[str, str]]) -> ConfigError:
    """`error` with each phrase of the case files in `words` replaced by its pair.

    The YAML reader and the file finder are the case files', and a few of their messages
    and hints say so ("one suite per file"); a loader of another kind of file rewords them
    with its own `(case file words, its words)` pairs, applied in order.
    """

    def swapped(text: str) -> str:
        for case_words, own_words in words:
            text = text.replace(case_words, own_words)
        return text

    return type(error)(
        error.path,
        swapped(error.message),
        line=error.line,
        column=error.column,
        hint=swapped(error.hint) if error.hint else None,
    )


# ------------------------------------------------------------------ schema error messages

_GATES = ", ".join(gate.value for gate in GateName)


def relevant(errors: list[ErrorDetails]) -> list[ErrorDetails]:
    """Drop a list's length error when items of that list failed too.

    pydantic counts only the items that validated, so one bad case in a one-case suite also
    reports "too short"; the item's own error is the one that says what to fix.
    """
    lists_with_bad_items = {
        loc[:i]
        for loc in (tuple(error["loc"]) for error in errors)
        for i, part in enumerate(loc)
        if isinstance(part, int)
    }
    return [
        error
        for error in errors
        if not (error["type"] == "too_short" and tuple(error["loc"]) in lists_with_bad_items)
    ]


def _schema_error(error: ErrorDetails, document: Document, source: str) -> ConfigSchemaError:
    """Turn one pydantic error into a located, plain-language `ConfigSchemaError`."""
    data = document.data
    loc: NodePath = tuple(error["loc"])
    gate = _gate_of(data)
    if gate is not None and loc and not error["type"].startswith("union_tag"):
        loc = loc[1:]  # the discriminated union puts the gate's tag first
    message, hint, mark = _describe(error, loc, gate, document)
    return ConfigSchemaError(source, message, line=mark.line, column=mark.column, hint=hint)


_FRACTIONS = frozenset({"min_tool_accuracy", "min_faithfulness", "claim_overlap"})


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
    if kind in ("tools_inconsistent", "disclosure_markers_missing", "expected_no_claim"):
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
        message, hint = _PATTERN_MESSAGES.get(field, ("must not be blank", None))
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
        return f"{where}: must be a whole number of at least 1, got {value!r}", None, mark
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


def describe_common(
    error: ErrorDetails, loc: NodePath, written: str | None
) -> tuple[str, str | None] | None:
    """The message and hint of an error that reads the same in any file gauntlet loads.

    A missing key, a value not among the allowed ones, a value of the wrong type, an empty
    value and an over-long one; None for any other error, which its loader describes.

    Args:
        error: The pydantic error.
        loc: Where it is, as keys and indexes from the document's root.
        written: The value as the file wrote it, when it was an unquoted scalar.
    """
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    where = dotted(loc)
    if kind == "missing":
        parent = dotted(loc[:-1])
        prefix = f"{parent}: " if parent else ""
        return f"{prefix}missing required key '{loc[-1]}'", None
    if kind in ("enum", "literal_error"):
        expected = ctx.get("expected", "")
        options = [part.strip(" '") for part in expected.replace(" or ", ", ").split(",")]
        return f"{where}: {value!r} is not one of {expected}", did_you_mean(str(value), options)
    if kind in EXPECTED_TYPE:
        hint = None
        if EXPECTED_TYPE[kind] == "text" and written:
            hint = f'quote it ("{written}") if you mean the text'
        return f"{where}: expected {EXPECTED_TYPE[kind]}, got {kind_of(value, written)}", hint
    if kind in ("too_short", "string_too_short"):
        return f"{where}: must not be empty", None
    if kind == "string_too_long":
        return (
            f"{where}: is {len(str(value))} characters long; "
            f"at most {ctx['max_length']} are allowed",
            None,
        )
    return None


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

EXPECTED_TYPE = {
    "string_type": "text",
    "bool_type": "true or false",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "tuple_type": "a list",
    "list_type": "a list",
    "model_type": "a mapping",
    "dict_type": "a mapping",
    "model_attributes_type": "a mapping",
}

IDENTIFIER_HINT = "use letters, digits, '.', '_' and '-', starting with a letter or digit"
"""The hint for an id or name that breaks the identifier pattern, in every file gauntlet reads."""

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


_NESTED: dict[str, tuple[type[BaseModel], str]] = {
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


Describe = Callable[[ErrorDetails, NodePath, Any, Document], tuple[str, str | None]]
"""How a file kind words one pydantic error: its message and hint, from the error, where it
is, the value found and the document."""


def located_schema_error(
    error: ErrorDetails, document: Document, source: str, describe: Describe
) -> ConfigSchemaError:
    """One pydantic error of a list file (labels, waivers) as a located `ConfigSchemaError`.

    An item's own rule (a `PydanticCustomError` whose context has `at`) is located at the key
    or value it names below the error's place; anything else is worded by `describe`, an
    unknown key located at the key itself.
    """
    loc: NodePath = tuple(error["loc"])
    ctx = error.get("ctx") or {}
    mark = document.mark_for(loc)
    if "at" in ctx:
        loc = (*loc, *ctx["at"])
        marks = document.key_marks if ctx.get("key") else document.value_marks
        mark = marks.get(loc) or document.mark_for(loc)
        message = f"{dotted(loc)}: {error['msg']}"
        return ConfigSchemaError(source, message, line=mark.line, column=mark.column)
    message, hint = describe(error, loc, error.get("input"), document)
    if error["type"] == "extra_forbidden":
        mark = document.key_marks.get(loc, mark)
    return ConfigSchemaError(source, message, line=mark.line, column=mark.column, hint=hint)


FileRule = Callable[[str, str, str, Any, str | None], tuple[str, str | None] | None]
"""A list file's own rule: (pydantic's error type, the field, where, the value, the value as
written) -> the message and hint, or None when the rule does not apply."""


@dataclass(frozen=True)
class ListFileWords:
    """How a list file (labels, waivers) words its errors: the shared ones, and its own rules."""

    whole: str
    """What the whole file must be: `a waivers file must be a mapping of max_days and waivers`."""
    keys: Mapping[int, tuple[str, list[str]]]
    """By depth of a location: what is there (`a waiver`) and the keys it allows."""
    patterns: Mapping[str, tuple[str, str | None]]
    """By field: the message (`{value!r} is not a valid case id`) and hint of a bad value."""
    first: FileRule | None = None
    """The file's own rules, tried before the shared wording."""
    last: FileRule | None = None
    """The file's own rules for what the shared wording leaves, tried after it."""

    def schema_error(
        self, error: ErrorDetails, document: Document, source: str
    ) -> ConfigSchemaError:
        """One pydantic error as a located, plain-language `ConfigSchemaError`."""
        return located_schema_error(error, document, source, self.describe)

    def describe(
        self, error: ErrorDetails, loc: NodePath, value: Any, document: Document
    ) -> tuple[str, str | None]:
        """The message and hint of one error: the file's rules, else the shared wording."""
        kind, where = error["type"], dotted(loc)
        field = next((part for part in reversed(loc) if isinstance(part, str)), "")
        written = document.plain_texts.get(loc)
        if self.first is not None and (own := self.first(kind, field, where, value, written)):
            return own
        shared = describe_list_file(self, error, loc, value, document)
        if shared is not None:
            return shared
        if self.last is not None and (own := self.last(kind, field, where, value, written)):
            return own
        return f"{where}: {error['msg']}", None  # pragma: no cover - every rule is described


def describe_list_file(
    words: ListFileWords, error: ErrorDetails, loc: NodePath, value: Any, document: Document
) -> tuple[str, str | None] | None:
    """The message and hint of an error every list file words alike.

    A file that is not a mapping, an unknown key (with the nearest allowed one), the shared
    value errors (`describe_common`), and a value breaking its field's pattern; pydantic's
    None for anything else, which the file words itself.
    """
    kind = error["type"]
    where = dotted(loc)
    if kind in ("dict_type", "model_type") and not loc:
        return f"{words.whole}, not {kind_of(value)}", None
    if kind == "extra_forbidden":
        what, allowed = words.keys.get(len(loc), ("here", []))
        close = did_you_mean(str(loc[-1]), allowed)
        return (
            f"{where}: unknown key for {what}",
            close or f"keys of {what} are: {', '.join(allowed)}",
        )
    common = describe_common(error, loc, document.plain_texts.get(loc))
    if common is not None:
        return common
    if kind == "string_pattern_mismatch":
        field = next((part for part in reversed(loc) if isinstance(part, str)), "")
        pattern, hint = words.patterns.get(field, ("must not be blank", None))
        return f"{where}: {pattern.format(value=value)}", hint
    return None


def did_you_mean(word: str, options: Sequence[str]) -> str | None:
    """`did you mean 'threshold'?` when one of `options` is close to `word`, else None."""
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.7)
    return f"did you mean '{close[0]}'?" if close else None


def _gate_of(data: Any) -> GateName | None:
    gate = data.get("gate") if isinstance(data, dict) else None
    return GateName(gate) if isinstance(gate, str) and gate in set(GateName) else None


def dotted(loc: NodePath) -> str:
    """`cases[3].attack_type`; a key that is not a plain name is quoted: `cases[0]['a b']`."""
    text = ""
    for part in loc:
        if isinstance(part, int) or not _NAME.fullmatch(part):
            text += f"[{part!r}]"
        else:
            text += f".{part}" if text else part
    return text


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def kind_of(value: Any, written: str | None = None) -> str:
    """What a YAML value is, for a message: `'x' (text)`, `yes (a boolean)`, `a list`.

    Args:
        value: The value as read.
        written: The value as the file wrote it, when it was an unquoted scalar.
    """
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{written if written else str(value).lower()} (a boolean)"
    if isinstance(value, int | float):
        return f"{written if written else repr(value)} (a number)"
    if isinstance(value, str):
        return f"{value!r} (text)"
    if isinstance(value, list):
        return "a list"
    return "a mapping"
