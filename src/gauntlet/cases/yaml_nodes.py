"""Strict YAML reading: one document of plain mappings, lists and scalars, every node marked.

PyYAML's loaders build whatever a file asks for (tags construct objects, aliases expand into
bombs, a repeated key silently keeps its last value, `no` becomes `False`). This module reads
the parser's event stream instead and builds plain data itself, so it can refuse each of those
with a located message, resolve scalars by the YAML 1.2 core schema, and never recurse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml

from gauntlet.cases.file_words import CASE_FILE_WORDS, FileWords
from gauntlet.errors import ConfigErrors, ConfigSyntaxError

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Case files larger than this are refused before any parsing (8 MiB); the default limit."""

MAX_DEPTH = 32
"""Mappings and lists nested deeper than this are refused (a case file needs four levels)."""

NodePath = tuple[str | int, ...]
"""Where a node sits in the document: keys and list indexes from the root."""

# NOTE: libyaml's parser is a C extension shipped in PyYAML's wheels; the pure-Python parser
# gives the same events and marks, only slower.
_Parser: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PLAIN_KINDS = (
    ("null", r"~|null|Null|NULL|"),
    ("true", r"true|True|TRUE"),
    ("false", r"false|False|FALSE"),
    ("yaml11_bool", r"y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF"),
    ("nan_inf", r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"),
    ("leading_zero", r"[-+]?0[0-9]+"),
    ("int", r"[-+]?[0-9]+"),
    ("octal", r"0o[0-7]+"),
    ("hex", r"0x[0-9a-fA-F]+"),
    ("float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"),
)
"""How a plain scalar is read: by the first of these patterns that fits it whole (none: text)."""
_PLAIN = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in PLAIN_KINDS))
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_NOT_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What YAML's reader refuses: control characters other than tab and line breaks, and more."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A 1-based line and column in a source text."""

    line: int
    column: int


_FILE_START = Mark(1, 1)


class Document(NamedTuple):
    """A case file's data with the position of every key and value in it."""

    data: Any
    """JSON-shaped data: dicts with text keys, lists, text, int, float, bool and None."""
    value_marks: Mapping[NodePath, Mark]
    """Where each value starts, by path (the root is `()`)."""
    key_marks: Mapping[NodePath, Mark]
    """Where each mapping key starts, by the path of its value."""
    events: int
    """How many parser events were read: a measure of the work done, for boundedness tests."""
    plain_texts: dict[NodePath, str]
    """The text as written of each unquoted value that was read as a number, boolean or null."""

    def mark_for(self, path: NodePath) -> Mark:
        """The mark of `path`, or of its nearest ancestor that has one."""
        marks = self.value_marks
        while path and path not in marks:
            path = path[:-1]
        return marks.get(path, _FILE_START)


def decode_source(
    raw: bytes, source: str, words: FileWords = CASE_FILE_WORDS, limit: int = MAX_FILE_BYTES
) -> str:
    """Turn a file's bytes into text, refusing what YAML would misread.

    Args:
        raw: The file's bytes.
        source: The name to put in error locations.
        words: What the file is called in the messages (a case file, unless said).
        limit: The largest size accepted, in bytes.

    Raises:
        ConfigErrors: for a file over `limit`, a byte-order mark, bytes that are not UTF-8
            (with the byte offset) or a NUL character.
    """
    if len(raw) > limit:
        raise words.too_large_error(source, len(raw), limit)
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
        raise _one(source, _mark_at(text, nul), f"NUL character in {words.a}")
    return text


def read_document(text: str, source: str, words: FileWords = CASE_FILE_WORDS) -> Document:
    """Parse one YAML document strictly.

    Args:
        text: The file's text (see `decode_source`).
        source: The name to put in error locations.
        words: What the file is called in the messages (a case file, unless said).

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
    parser = _Parser(text)
    try:
        document = _read_plain(parser.get_event)
    except yaml.MarkedYAMLError:
        document = None
    finally:
        parser.dispose()
    if document is None:
        # Declined: read again by the builder, which words every refusal in the file.
        document = _read_strictly(text, source, words)
    return document


def _read_strictly(text: str, source: str, words: FileWords) -> Document:
    builder = _Builder(source, words)
    try:
        builder.consume(_events(text))
    except yaml.MarkedYAMLError as exc:
        builder.problems.append(_syntax_problem(exc, source))
    except _Stop:
        pass
    if builder.problems:
        raise ConfigErrors(builder.problems)
    if builder.documents == 0:
        raise _one(source, Mark(1, 1), "file is empty", f"{words.a} is one YAML mapping")
    return Document(
        builder.root, builder.value_marks, builder.key_marks, builder.events, builder.plain_texts
    )


class _Marks(Mapping[NodePath, Mark]):
    """Marks by path, kept as the parser made them; a `Mark` is made only when one is read.

    A valid file's marks are mostly never read (only where its cases and their ids start),
    so none is made before it is asked for.
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: dict[NodePath, Any]) -> None:
        # The parser's own marks (libyaml's or PyYAML's class): 0-based line and column.
        self._raw = raw

    def __getitem__(self, path: NodePath) -> Mark:
        raw = self._raw[path]
        return Mark(raw.line + 1, raw.column + 1)

    def __contains__(self, path: object) -> bool:
        return path in self._raw

    def __iter__(self) -> Iterator[NodePath]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _read_plain(next_event: Callable[[], yaml.Event]) -> Document | None:
    """A document `_Builder` would accept, read in one pass; None at anything it refuses.

    The happy path of `read_document`: it keeps the parser's marks as they are and checks
    each node with a few comparisons, and gives up (None) at the first anchor, alias, tag,
    directive, refused scalar, key that is not text or is repeated, nesting too deep or
    second document, or an empty file. Whatever it returns equals what `_Builder` builds.
    """
    # The event classes as locals: this loop runs once per node of every case file.
    scalar, alias = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, mapping_end = yaml.MappingStartEvent, yaml.MappingEndEvent
    sequence_start, sequence_end = yaml.SequenceStartEvent, yaml.SequenceEndEvent
    document_start, stream_end = yaml.DocumentStartEvent, yaml.StreamEndEvent
    maybe_not_text, refusal = MAYBE_NOT_TEXT, Refusal
    value_marks: dict[NodePath, Any] = {}  # the parser's marks, as `_Marks` keeps them
    key_marks: dict[NodePath, Any] = {}
    plain_texts: dict[NodePath, str] = {}
    open_above: list[tuple[Any, NodePath]] = []  # each open container's parent and its path
    here: Any = None  # the innermost open container: a dict or a list
    path: NodePath = ()
    key: Any = None  # in a mapping: the key (text) read, waiting for its value
    key_mark: Any = None
    root: Any = None
    documents = events = 0
    while True:
        event: Any = next_event()  # typed by the checks on its class below
        events += 1
        kind = type(event)
        if kind is scalar:
            if event.anchor is not None or event.tag is not None:
                return None
            value = written = event.value
            if (
                not event.style
                and event.implicit[0]
                and (not written or written[0] in maybe_not_text)
            ):
                value = resolve_plain(written)
                if type(value) is refusal:
                    return None
            child: NodePath
            if type(here) is dict:
                if key is None:
                    if type(value) is not str or value == "<<" or value in here:
                        return None
                    key, key_mark = value, event.start_mark
                    continue
                child = path + (key,)
                here[key] = value
                key_marks[child] = key_mark
                key = None
            elif here is None:
                child = ()
                root = value
            else:
                child = path + (len(here),)
                here.append(value)
            value_marks[child] = event.start_mark
            if type(value) is not str:
                plain_texts[child] = written
        elif kind is mapping_end or kind is sequence_end:
            here, path = open_above.pop()
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None or event.tag is not None:
                return None
            if len(open_above) >= MAX_DEPTH:
                return None
            opened: Any = {} if kind is mapping_start else []
            if type(here) is dict:
                if key is None:
                    return None  # a mapping or a list as a key
                child = path + (key,)
                here[key] = opened
                key_marks[child] = key_mark
                key = None
            elif here is None:
                child = ()
                root = opened
            else:
                child = path + (len(here),)
                here.append(opened)
            value_marks[child] = event.start_mark
            open_above.append((here, path))
            here, path = opened, child
        elif kind is document_start:
            documents += 1
            if documents > 1 or event.version or event.tags:
                return None
        elif kind is alias:
            return None
        elif kind is stream_end:
            break
    if documents == 0:
        return None
    return Document(root, _Marks(value_marks), _Marks(key_marks), events, plain_texts)


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

    def __init__(self, source: str, words: FileWords) -> None:
        self.source = source
        self.words = words
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

    @property
    def no_anchors(self) -> str:
        """The hint of an anchor or alias."""
        return f"anchors and aliases are refused in {self.words.plural}; write the value out"

    def consume(self, events: Iterator[yaml.Event]) -> None:
        for event in events:
            self.events += 1
            start = event.start_mark
            mark = Mark(start.line + 1, start.column + 1) if start else Mark(1, 1)
            if isinstance(event, yaml.DocumentStartEvent):
                self.start_document(event, mark)
            elif isinstance(event, yaml.AliasEvent):
                self.refuse(mark, f"alias '*{event.anchor}' is not allowed", self.no_anchors)
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
                mark,
                "a second YAML document in one file",
                f"{self.words.one_per_file}: split it in two",
            )
            raise _Stop
        if event.version or event.tags:
            self.refuse(mark, "YAML directives (%YAML, %TAG) are not allowed")

    def check_node(self, event: yaml.NodeEvent, mark: Mark) -> None:
        if event.anchor is not None:
            self.refuse(mark, f"anchor '&{event.anchor}' is not allowed", self.no_anchors)
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            self.refuse(
                mark,
                f"explicit tag '{shown}' is not allowed",
                f"tags can construct objects; {self.words.plural} hold plain text, numbers "
                "and lists",
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
                f"write the merged keys out; {self.words.plural} refuse aliases and merges",
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
        resolved = resolve_plain(value)
        if isinstance(resolved, Refusal):
            self.refuse(mark, resolved.message, resolved.hint)
            return _DISCARD
        return resolved


class Refusal(NamedTuple):
    """Why a plain scalar is refused: the message and hint of its error."""

    message: str
    hint: str | None = None


MAYBE_NOT_TEXT = frozenset("~nNtTfFyYoO+-.0123456789")
"""The first characters of every plain scalar that is read as anything but text."""


MAX_INT_CHARACTERS = 4000
"""The longest whole number read (Python refuses to convert one over 4,300 digits)."""


def resolve_plain(value: str) -> Any:
    """A plain (unquoted, untagged) scalar by the YAML 1.2 core schema, or why it is refused.

    Returns:
        None, a bool, an int, a finite float or the text itself; a `Refusal` for a YAML 1.1
        boolean, a NaN or infinity, a leading zero and a number too large to be finite.
    """
    if value and value[0] not in MAYBE_NOT_TEXT:
        return value  # most text: no pattern can fit it
    fits = _PLAIN.fullmatch(value)  # one pass for every pattern, not one pass for each
    kind = fits.lastgroup if fits else None
    if kind is None:
        return value
    if kind == "null":
        return None
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "yaml11_bool":
        return Refusal(
            f"'{value}' is a YAML 1.1 boolean; only true and false are booleans here",
            f'write true or false, or quote it ("{value}") if you mean the text',
        )
    if kind == "nan_inf":
        return Refusal(f"'{value}' (NaN or infinity) is not allowed", "write a number")
    if kind in ("int", "leading_zero") and len(value) > MAX_INT_CHARACTERS:
        return Refusal(
            f"a number {len(value)} characters long is too long to read",
            "write a number of at most 4000 digits, or quote it if you mean the text",
        )
    if kind == "leading_zero":
        return Refusal(
            f"'{value}' has a leading zero, which YAML 1.1 reads as octal",
            f'write {int(value)}, or quote it ("{value}") if you mean the text',
        )
    if kind == "int":
        return int(value)
    if kind in ("octal", "hex"):
        return int(value[2:], 8 if kind == "octal" else 16)
    number = float(value)
    if not math.isfinite(number):
        return Refusal(f"'{value}' is too large to be a finite number")
    return number


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
