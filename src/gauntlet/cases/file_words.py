"""The words of gauntlet's messages about the files it loads, shared by every kind of file.

A kind of file is named by its `FileWords` (`case file`, `target file`, `waivers file`,
`labels file`): the strict reader (`gauntlet.cases.strict_file`) and the YAML reader under it
put that noun, and the kind's own hints, into every refusal they word, so no message is
rewritten afterwards and a user's own text (a key, a file name) is quoted exactly as written.

Below them is the wording of a schema error that reads the same in any file: a missing key,
a value of the wrong type, an unknown key with the nearest allowed one (`describe_common`,
`ListFileWords`), and the helpers every kind words its own rules with (`dotted`, `kind_of`,
`did_you_mean`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_core import ErrorDetails

from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError, ConfigSyntaxError

if TYPE_CHECKING:  # the YAML reader words its refusals with `FileWords`, so imports this
    from gauntlet.cases.yaml_nodes import Document, Mark, NodePath

    Describe = Callable[[ErrorDetails, NodePath, Any, Document], tuple[str, str | None]]
    """How a file kind words one pydantic error: its message and hint, from the error, where
    it is, the value found and the document."""


@dataclass(frozen=True)
class DirectoryWords:
    """How a kind of file read from a directory words what the directory search finds."""

    never_read: str
    """What a file with a near-miss suffix would be: `a suite that never runs`."""
    reads_nothing: str
    """What an empty directory would do: `run no cases and prove nothing`."""
    directory: str
    """What the named directory is: `case directory`."""
    elsewhere: str
    """How to name a place a symlink leads out to instead: `with its own --cases`."""


@dataclass(frozen=True)
class FileWords:
    """What a kind of file is called in every message about it, and its kind's own hints.

    Example, for the case files:
    `FileWords("case file", one_per_file="one suite per file", too_large="split the suite
    into several files")` words an empty file's hint as `a case file is one YAML mapping`.
    """

    noun: str
    """The kind, in the singular and without an article: `case file`."""
    one_per_file: str
    """What one file holds, for a file of two YAML documents: `one suite per file`."""
    too_large: str
    """The hint for a file over the kind's size limit."""
    directory: DirectoryWords | None = None
    """The words of a directory search, for a kind read from a directory; None for another."""

    @property
    def plural(self) -> str:
        """`case files`."""
        return f"{self.noun}s"

    @property
    def a(self) -> str:
        """The noun with its article: `a case file`."""
        return f"{_article(self.noun)} {self.noun}"

    def too_large_error(self, source: str, size: int, limit: int) -> ConfigErrors:
        """The refusal of a file of `size` bytes, over the kind's `limit`, located at its start."""
        return ConfigErrors(
            [
                ConfigSyntaxError(
                    source,
                    f"file is {size:,} bytes, over the {limit:,}-byte limit for {self.a}",
                    line=1,
                    column=1,
                    hint=self.too_large,
                )
            ]
        )


CASE_FILE_WORDS = FileWords(
    "case file",
    one_per_file="one suite per file",
    too_large="split the suite into several files",
    directory=DirectoryWords(
        never_read="a suite that never runs",
        reads_nothing="run no cases and prove nothing",
        directory="case directory",
        elsewhere="with its own --cases",
    ),
)
"""The case files' words; the YAML reader's when no other kind is named."""


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


# ------------------------------------------------------------------ schema error messages


def by_position(error: ConfigError) -> tuple[int, int]:
    """Sort key: an error's line, then its column (an error with neither comes first)."""
    return (error.line or 0, error.column or 0)


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

    def schema_errors(
        self, errors: Iterable[ErrorDetails], document: Document, source: str
    ) -> list[ConfigError]:
        """Every pydantic error of one file, each located and worded: a `StrictFile`'s rule."""
        return [self.schema_error(error, document, source) for error in errors]

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
