"""One strict reader for every kind of file gauntlet loads, worded with the kind's own noun.

A kind of file is a `StrictFile`: what it is called and its own hints (`FileWords`), its
model, the largest file read, and how its schema errors are worded. Reading is the same for
every kind: the file is refused before it is opened if it is not a regular file or is too
large; its bytes must be UTF-8 without a byte-order mark or NUL; the YAML is read strictly
(no anchors, aliases, tags, merge keys, duplicate keys or YAML 1.1 booleans); the data is
validated strictly by the model; and every problem is a `ConfigError` located as
`path:line:column`, worded with the kind's noun where it is raised, never rewritten after.

A new kind of file takes a few lines. A persona file, say, of a model `PersonaFile` with
the keys `persona` and `traits`:

```python
PERSONA_FILE = StrictFile(
    FileWords(
        "persona file",
        one_per_file="one persona per file",
        too_large="a persona file describes one persona",
    ),
    TypeAdapter(PersonaFile),
    ListFileWords(
        whole="a persona file must be a mapping of persona and traits",
        keys={1: ("a persona file", list(PersonaFile.model_fields))},
        patterns={},
    ).schema_errors,
    limit=64 * 1024,
)


def load_persona(path: Path) -> PersonaFile:
    return PERSONA_FILE.load(path).model
```

An empty persona file is then refused as `file is empty` with the hint `a persona file is
one YAML mapping`, an unknown key as `tone: unknown key for a persona file` with the keys it
allows; rules beyond the model (across keys, across files) are checked on the `Parsed`
result, located through its `document`. A kind read from a directory (the case and labels
files) also gives `DirectoryWords`, and finds its files with `find`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from gauntlet.cases.file_words import DirectoryWords, FileWords, by_position, relevant
from gauntlet.cases.yaml_nodes import MAX_FILE_BYTES, Document, decode_source, read_document
from gauntlet.display import unencodable
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSyntaxError
from gauntlet.files import FileTooLargeError, RefusedFileError, read_regular_file

YAML_SUFFIX = ".yaml"
"""The one suffix of a file found in a directory; `.yml` and `.YAML` are refused by name."""

Model = TypeVar("Model")

SchemaErrors = Callable[[list[ErrorDetails], Document, str], Iterable[ConfigError]]
"""How a kind words pydantic's errors of one file (already `relevant`), each located in the
document, for the file named as the `str`."""


class Parsed(NamedTuple, Generic[Model]):
    """One file as its model validated it, and the document it was read from (its marks)."""

    model: Model
    document: Document


@dataclass(frozen=True)
class StrictFile(Generic[Model]):
    """A kind of file gauntlet loads strictly: its words, its model and its limit."""

    words: FileWords
    """What the file is called in every message, and its kind's own hints."""
    adapter: TypeAdapter[Model]
    """The model a file of this kind must validate as, strictly."""
    schema_errors: SchemaErrors
    """How pydantic's errors of one file are worded and located."""
    limit: int = MAX_FILE_BYTES
    """The largest file read, in bytes: a larger one is refused before it is read."""
    member: Callable[[Any], Callable[[str], Model] | None] | None = None
    """For a model that is a tagged union (a case file's suite, by its gate): the one member
    the data's tag selects, as a strict reader of JSON text, or None. It is tried first, since
    building one member's validator costs a fraction of the union's; it accepts exactly what
    the union accepts for that tag, and whatever it refuses is validated again by `adapter`,
    so every refusal is worded from the union's own errors."""

    def load(self, path: Path) -> Parsed[Model]:
        """Read and parse one file; every error is located in `path` as the user named it.

        Raises:
            ConfigErrors: `read` or `parse` refused it.
        """
        return self.parse(self.read(path), str(path))

    def read(self, path: Path) -> bytes:
        """The bytes of a file the user named, if it is a regular file of at most `limit`.

        Raises:
            ConfigErrors: the file is not a regular file, is too large, or cannot be read.
        """
        source = str(path)
        try:
            return read_regular_file(path, limit=self.limit, what=self.words.a)
        except FileTooLargeError as exc:
            raise ConfigErrors(
                [ConfigSyntaxError(source, exc.reason, line=1, column=1, hint=self.words.too_large)]
            ) from None
        except RefusedFileError as exc:
            raise ConfigErrors([ConfigError(source, exc.reason)]) from None
        except OSError as exc:
            raise ConfigErrors([ConfigError(source, f"cannot read: {exc.strerror}")]) from None

    def parse(self, raw: str | bytes, source: str) -> Parsed[Model]:
        """Read and validate one file's content. Pure: reads nothing but its arguments.

        Args:
            raw: The file's bytes (checked for size, BOM, UTF-8 and NUL) or decoded text.
            source: The name to put in every error location.

        Raises:
            ConfigErrors: every problem found, each located.
        """
        document = self.document(raw, source)
        return Parsed(self.validate(document, source), document)

    def document(self, raw: str | bytes, source: str) -> Document:
        """The content read as one strict YAML document, before its model is asked.

        Raises:
            ConfigErrors: the bytes cannot be decoded, or the text is not a document gauntlet
                reads; every refusal found before reading had to stop, each located.
        """
        words = self.words
        text = decode_source(raw, source, words, self.limit) if isinstance(raw, bytes) else raw
        return read_document(text, source, words)

    def validate(self, document: Document, source: str) -> Model:
        """The document validated by the model, strictly.

        The data goes through JSON, so pydantic's JSON rules apply (text for an enum, no
        coercion); YAML has already resolved every scalar by the core schema.

        Raises:
            ConfigErrors: what `schema_errors` made of pydantic's errors, in the file's order.
        """
        text = json.dumps(document.data)
        member = None if self.member is None else self.member(document.data)
        if member is not None:
            try:
                return member(text)
            except ValidationError:
                pass  # worded below, from the union's errors
        try:
            return self.adapter.validate_json(text, strict=True)
        except ValidationError as exc:
            found = relevant(exc.errors(include_url=False))
            errors = self.schema_errors(found, document, source)
            raise ConfigErrors(sorted(errors, key=by_position)) from None

    def find(self, paths: Iterable[Path], errors: list[ConfigError]) -> list[Path]:
        """Every file of this kind named, or found under a directory named, in `paths`.

        A directory is searched recursively for `*.yaml` files in a stable order; a file may
        be named directly. A file reached twice (by two names, or through a symlink inside
        the directory) is listed once. Problems are appended to `errors`.

        Raises:
            ValueError: the kind is not read from a directory (its words say none).
        """
        directory = self.words.directory
        if directory is None:
            raise ValueError(f"{self.words.plural} are not read from a directory")
        files: list[Path] = []
        seen: set[Path] = set()
        for named in paths:
            for found in _Search(self.words, directory, errors).files(named):
                if unencodable(str(found)) is not None:
                    # The name reaches the results file and every report as the source; a
                    # name the file system gave as bytes that are not UTF-8 could not be written.
                    errors.append(
                        ConfigError(found, "the file's name is not valid UTF-8; rename it")
                    )
                    continue
                real = found.resolve()
                if real not in seen:  # the same file reached twice is read once
                    seen.add(real)
                    files.append(found)
        return files


@dataclass(frozen=True)
class _Search:
    """One directory search, worded for one kind of file."""

    words: FileWords
    directory: DirectoryWords
    errors: list[ConfigError]

    def files(self, root: Path) -> list[Path]:
        """The `*.yaml` files at or under `root`, sorted; problems go to `errors`.

        A `.yml` file, a symlink that leads out of `root`, a dangling symlink and a directory
        with no such files are errors: each is a file that would silently not be read.
        """
        errors = self.errors
        if not root.exists():
            errors.append(ConfigError(root, "no such file or directory"))
            return []
        if not root.is_dir():
            if self.suffix_problem(root) or root.suffix != YAML_SUFFIX:
                if root.suffix.lower() not in (".yml", ".yaml"):
                    words = self.words
                    message = f"not {words.a}: {words.plural} end in {YAML_SUFFIX}"
                    errors.append(ConfigError(root, message))
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
                    self.check_link(link, top)
                    dirnames.remove(name)
            for name in sorted(filenames):
                path = here / name
                if self.suffix_problem(path) or path.suffix != YAML_SUFFIX:
                    continue
                if path.is_symlink() and not self.check_link(path, top):
                    continue
                found.append(path)
        if not found and not any(error.path.startswith(str(root)) for error in errors):
            errors.append(
                ConfigError(
                    root,
                    f"no {self.words.plural} (*{YAML_SUFFIX}) in this directory",
                    hint=f"an empty directory would {self.directory.reads_nothing}",
                )
            )
        return sorted(found, key=lambda p: p.relative_to(root).parts)

    def suffix_problem(self, path: Path) -> bool:
        """Report a near-miss YAML suffix (`.yml`, `.YAML`); True if there was one."""
        suffix = path.suffix
        if suffix.lower() in (".yml", ".yaml") and suffix != YAML_SUFFIX:
            self.errors.append(
                ConfigSyntaxError(
                    path,
                    f"{self.words.plural} must end in {YAML_SUFFIX}, not {suffix}",
                    line=1,
                    column=1,
                    hint=f"rename it to {path.with_suffix(YAML_SUFFIX).name}; "
                    f"it would otherwise be {self.directory.never_read}",
                )
            )
            return True
        return False

    def check_link(self, link: Path, top: Path) -> bool:
        """True if the symlink `link` resolves to an existing place inside `top`."""
        target = link.resolve()
        if not target.exists():
            self.errors.append(
                ConfigError(link, f"symlink points to nothing ({os.readlink(link)})")
            )
            return False
        if not target.is_relative_to(top):
            self.errors.append(
                ConfigError(
                    link,
                    f"symlink leads out of the {self.directory.directory}, to {target}",
                    hint=f"name that place {self.directory.elsewhere} instead",
                )
            )
            return False
        return True
