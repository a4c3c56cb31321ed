"""Strict YAML reading: one document of plain mappings, lists and scalars, every node marked.

PyYAML's loaders build whatever a file asks for (tags construct objects, aliases expand into
bombs, a repeated key silently keeps its last value, `no` becomes `False`). This module reads
the parser's event stream instead and builds plain data itself, so it can refuse each of those
with a located message, resolve scalars by the YAML 1.2 core schema, and never recurse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml

from gauntlet.errors import ConfigErrors, ConfigSyntaxError

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Case files larger than this are refused before any parsing (8 MiB)."""

MAX_DEPTH = 32
"""Mappings and lists nested deeper than this are refused (a case file needs four levels)."""

NodePath = tuple[str | int, ...]
"""Where a node sits in the document: keys and list indexes from the root."""

# NOTE: libyaml's parser is a C extension shipped in PyYAML's wheels; the pure-Python parser
# gives the same events and marks, only slower.
_Parser: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_NULL = re.compile(r"~|null|Null|NULL|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_YAML11_BOOL = re.compile(r"y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF")
_INT = re.compile(r"[-+]?[0-9]+")
_LEADING_ZERO_INT = re.compile(r"[-+]?0[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_NAN_INF = re.compile(r"[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_NOT_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What YAML's reader refuses: control characters other than tab and line breaks, and more."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A 1-based line and column in a source text."""

    line: int
    column: int


class Document(NamedTuple):
    """A case file's data with the position of every key and value in it."""

    data: Any
    """JSON-shaped data: dicts with text keys, lists, text, int, float, bool and None."""
    value_marks: dict[NodePath, Mark]
    """Where each value starts, by path (the root is `()`)."""
    key_marks: dict[NodePath, Mark]
    """Where each mapping key starts, by the path of its value."""
    events: int
    """How many parser events were read: a measure of the work done, for boundedness tests."""
    plain_texts: dict[NodePath, str]
    """The text as written of each unquoted value that was read as a number, boolean or null."""

    def mark_for(self, path: NodePath) -> Mark:
        """The mark of `path`, or of its nearest ancestor that has one."""
        while path not in self.value_marks and path:
            path = path[:-1]
        return self.value_marks.get(path, Mark(1, 1))


def decode_source(raw: bytes, source: str) -> str:
    """Turn a case file's bytes into text, refusing what YAML would misread.

    Raises:
        ConfigErrors: for a file over `MAX_FILE_BYTES`, a byte-order mark, bytes that are not
            UTF-8 (with the byte offset) or a NUL character.
    """
    if len(raw) > MAX_FILE_BYTES:
        raise _one(
            source,
            Mark(1, 1),
            f"file is {len(raw):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit for a case file",
            "split the suite into several files",
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        raise _one(
            source, Mark(1, 1), "file starts with a byte-order mark", "save it as UTF-8 without BOM"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8")
        raise _one(
            source,
            _mark_at(good, len(good)),
            f"not UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start}: {exc.reason}",
            "save the file as UTF-8",
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise _one(source, _mark_at(text, nul), "NUL character in a case file")
    return text


def read_document(text: str, source: str) -> Document:
    """Parse one YAML document strictly.

    Args:
        text: The file's text (see `decode_source`).
        source: The name to put in error locations.

    Raises:
        ConfigErrors: every refusal found before parsing had to stop, each located.
    """
    # Checked here, not left to the parser: libyaml reports a byte offset for it, which is
    # not a column once the line holds a character outside ASCII.
    unprintable = _NOT_PRINTABLE.search(text)
    if unprintable:
        raise _one(
            source,
            _mark_at(text, unprintable.start()),
            f"character U+{ord(unprintable.group()):04X} is not allowed in YAML",
            "control characters may be written as escapes inside double quotes",
        )
    builder = _Builder(source)
    try:
        builder.consume(_events(text))
    except yaml.MarkedYAMLError as exc:
        builder.problems.append(_syntax_problem(exc, source))
    except _Stop:
        pass
    if builder.problems:
        raise ConfigErrors(builder.problems)
    if builder.documents == 0:
        raise _one(source, Mark(1, 1), "file is empty", "a case file is one YAML mapping")
    return Document(
        builder.root, builder.value_marks, builder.key_marks, builder.events, builder.plain_texts
    )


def _events(text: str) -> Iterator[yaml.Event]:
    # yaml.parse walks the stream lazily, so a refusal stops the parser where it is.
    return yaml.parse(text, Loader=_Parser)


class _Stop(Exception):
    """Internal: a refusal after which the rest of the document cannot be read sensibly."""


@dataclass
class _Frame:
    """An open mapping or list while its events are read."""

    container: dict[str, Any] | list[Any]
    path: NodePath
    mark: Mark
    key: str | None = None
    key_mark: Mark | None = None
    discard_next: bool = False
    seen: dict[str, Mark] = field(default_factory=dict)


_DISCARD: Any = object()


class _Builder:
    """Builds plain data from parser events with an explicit stack (no recursion)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[ConfigSyntaxError] = []
        self.stack: list[_Frame] = []
        self.root: Any = None
        self.value_marks: dict[NodePath, Mark] = {}
        self.key_marks: dict[NodePath, Mark] = {}
        self.plain_texts: dict[NodePath, str] = {}
        self.documents = 0
        self.events = 0

    def refuse(self, mark: Mark, message: str, hint: str | None = None) -> None:
        self.problems.append(_problem(self.source, mark, message, hint))

    def consume(self, events: Iterator[yaml.Event]) -> None:
        for event in events:
            self.events += 1
            start = event.start_mark
            mark = Mark(start.line + 1, start.column + 1) if start else Mark(1, 1)
            if isinstance(event, yaml.DocumentStartEvent):
                self.start_document(event, mark)
            elif isinstance(event, yaml.AliasEvent):
                self.refuse(
                    mark,
                    f"alias '*{event.anchor}' is not allowed",
                    "anchors and aliases are refused in case files; write the value out",
                )
                self.add(_DISCARD, mark)
            elif isinstance(event, yaml.ScalarEvent):
                self.check_node(event, mark)
                self.add(self.resolve(event, mark), mark, written=event.value)
            elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                self.check_node(event, mark)
                self.open(event, mark)
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                frame = self.stack.pop()
                self.add(frame.container, frame.mark, closing=frame)

    def start_document(self, event: yaml.DocumentStartEvent, mark: Mark) -> None:
        self.documents += 1
        if self.documents > 1:
            self.refuse(
                mark, "a second YAML document in one file", "one suite per file: split it in two"
            )
            raise _Stop
        if event.version or event.tags:
            self.refuse(mark, "YAML directives (%YAML, %TAG) are not allowed")

    def check_node(self, event: yaml.NodeEvent, mark: Mark) -> None:
        if event.anchor is not None:
            self.refuse(
                mark,
                f"anchor '&{event.anchor}' is not allowed",
                "anchors and aliases are refused in case files; write the value out",
            )
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            self.refuse(
                mark,
                f"explicit tag '{shown}' is not allowed",
                "tags can construct objects; case files hold plain text, numbers and lists",
            )

    def open(self, event: yaml.CollectionStartEvent, mark: Mark) -> None:
        if self.stack and isinstance(self.stack[-1].container, dict) and self.stack[-1].key is None:
            self.refuse(mark, "a mapping key must be text, not a mapping or a list")
            raise _Stop
        if len(self.stack) >= MAX_DEPTH:
            self.refuse(mark, f"nesting deeper than {MAX_DEPTH} levels")
            raise _Stop
        path = self.child_path()
        container: dict[str, Any] | list[Any] = (
            {} if isinstance(event, yaml.MappingStartEvent) else []
        )
        self.stack.append(_Frame(container, path, mark))

    def child_path(self) -> NodePath:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.container, list):
            return (*top.path, len(top.container))
        return (*top.path, top.key or "")

    def add(self, value: Any, mark: Mark, closing: _Frame | None = None, written: str = "") -> None:
        path = closing.path if closing else self.child_path()
        if value is None or isinstance(value, bool | int | float):
            self.plain_texts.setdefault(path, written)
        if not self.stack:
            self.root = value
            self.value_marks[path] = mark
            return
        top = self.stack[-1]
        if isinstance(top.container, list):
            if value is not _DISCARD:
                self.value_marks.setdefault(path, mark)
                top.container.append(value)
            return
        if top.key is None:
            self.take_key(top, value, mark, written)
            return
        if value is not _DISCARD and not top.discard_next:
            self.value_marks.setdefault(path, mark)
            if top.key_mark is not None:
                self.key_marks.setdefault(path, top.key_mark)
            top.container[top.key] = value
        top.key, top.key_mark, top.discard_next = None, None, False

    def take_key(self, top: _Frame, key: Any, mark: Mark, written: str) -> None:
        top.key, top.key_mark = "", mark
        if key is _DISCARD:
            top.discard_next = True
            return
        if not isinstance(key, str):
            self.refuse(
                mark,
                f"mapping key {written or '(empty)'} is not text",
                f'keys are names; quote it ("{written}") if you mean the text',
            )
            top.discard_next = True
            return
        if key == "<<" and key not in top.seen:
            self.refuse(
                mark,
                "merge key '<<' is not allowed",
                "write the merged keys out; case files refuse aliases and merges",
            )
            top.discard_next = True
        first = top.seen.get(key)
        if first is not None:
            self.refuse(
                mark,
                f"duplicate key '{key}' (first at line {first.line}, column {first.column})",
                "YAML would silently keep only the last value; remove one of them",
            )
            top.discard_next = True
        else:
            top.seen[key] = mark
        top.key = key

    def resolve(self, event: yaml.ScalarEvent, mark: Mark) -> Any:
        value: str = event.value
        if event.style or not event.implicit[0]:
            return value  # quoted, block or tagged: text (a tag was refused above)
        if _NULL.fullmatch(value):
            return None
        if _TRUE.fullmatch(value):
            return True
        if _FALSE.fullmatch(value):
            return False
        if _YAML11_BOOL.fullmatch(value):
            self.refuse(
                mark,
                f"'{value}' is a YAML 1.1 boolean; only true and false are booleans here",
                f'write true or false, or quote it ("{value}") if you mean the text',
            )
            return _DISCARD
        if _NAN_INF.fullmatch(value):
            self.refuse(mark, f"'{value}' (NaN or infinity) is not allowed", "write a number")
            return _DISCARD
        if _LEADING_ZERO_INT.fullmatch(value):
            self.refuse(
                mark,
                f"'{value}' has a leading zero, which YAML 1.1 reads as octal",
                f'write {int(value)}, or quote it ("{value}") if you mean the text',
            )
            return _DISCARD
        if _INT.fullmatch(value):
            return int(value)
        if _OCT.fullmatch(value):
            return int(value[2:], 8)
        if _HEX.fullmatch(value):
            return int(value[2:], 16)
        if _FLOAT.fullmatch(value):
            number = float(value)
            if not math.isfinite(number):
                self.refuse(mark, f"'{value}' is too large to be a finite number")
                return _DISCARD
            return number
        return value


def _syntax_problem(exc: yaml.MarkedYAMLError, source: str) -> ConfigSyntaxError:
    problem = exc.problem or "invalid YAML"
    start, end = exc.context_mark, exc.problem_mark
    if start and end and exc.context and "end of stream" in problem:
        # Something opened and never closed: where it opened is what the user must fix.
        return _problem(
            source,
            Mark(start.line + 1, start.column + 1),
            f"YAML: {problem} {exc.context} that starts here",
            f"the file ends at line {end.line + 1} without closing it",
        )
    mark = end or start
    where = Mark(mark.line + 1, mark.column + 1) if mark else Mark(1, 1)
    context = f" ({exc.context})" if exc.context else ""
    return _problem(source, where, f"YAML: {problem}{context}")


def _mark_at(text: str, offset: int) -> Mark:
    """The 1-based line and column of a character offset in `text`, breaking lines as YAML."""
    breaks = list(_LINE_BREAK.finditer(text, 0, offset))
    line_start = breaks[-1].end() if breaks else 0
    return Mark(len(breaks) + 1, offset - line_start + 1)


def _problem(source: str, mark: Mark, message: str, hint: str | None = None) -> ConfigSyntaxError:
    return ConfigSyntaxError(source, message, line=mark.line, column=mark.column, hint=hint)


def _one(source: str, mark: Mark, message: str, hint: str | None = None) -> ConfigErrors:
    return ConfigErrors([_problem(source, mark, message, hint)])
