"""Every kind of file gauntlet loads is read by one strict reader, worded with its own noun.

Case, target, waivers and labels files share the YAML reader, the file finder and the
shared wording; each kind only says what it is called and what its rules are. The tests
here hold the rules across kinds: a message names the file's own kind, quotes what the
user wrote exactly as written, and refuses an oversized file by the same rule whether it
was named on the command line or handed to the parse function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from gauntlet.cases import strict_file
from gauntlet.cases.file_words import FileWords, ListFileWords
from gauntlet.cases.loader import load_suites, parse_suite
from gauntlet.cases.model import Identifier, Text
from gauntlet.cases.strict_file import StrictFile
from gauntlet.cases.waivers import MAX_WAIVERS_BYTES, load_waivers, parse_waivers
from gauntlet.errors import ConfigError, ConfigErrors
from gauntlet.judge.labels import load_labels, parse_labels
from gauntlet.record import StrictRecord
from gauntlet.targets.target_file import (
    MAX_TARGET_FILE_BYTES,
    TARGET_FILE,
    load_target_file,
    parse_target_file,
)

TODAY = date(2026, 1, 1)

Parse = Callable[[bytes, str], object]


def _parse_target(raw: bytes, source: str) -> object:
    return parse_target_file(raw, source, environ={}, base_dir=Path("/nonexistent"))


PARSERS: dict[str, Parse] = {
    "case file": parse_suite,
    "target file": _parse_target,
    "waivers file": lambda raw, source: parse_waivers(raw, source, today=TODAY),
    "labels file": parse_labels,
}
"""Each kind of file by its noun, and the pure function that parses its bytes."""


def _refusals(parse: Parse, raw: bytes) -> list[ConfigError]:
    with pytest.raises(ConfigErrors) as caught:
        parse(raw, "f.yaml")
    return list(caught.value.errors)


# ---------------------------------------------------------------- a user's text, as written

USERS_OWN_KEYS = ("case file", "case files", "one suite per file", "a case file")


@pytest.mark.parametrize("noun", list(PARSERS))
@pytest.mark.parametrize("key", USERS_OWN_KEYS)
def test_a_repeated_key_is_quoted_as_written_in_every_kind_of_file(noun: str, key: str) -> None:
    # Trap: the case files' wording rewritten for another kind by replacing phrases in the
    # finished message, which rewrites the user's own key too: `case file` repeated in a
    # labels file was reported as `duplicate key 'labels file'`, a key the file does not hold.
    [error] = _refusals(PARSERS[noun], f"{key}: 1\n{key}: 2\n".encode())
    assert error.message == f"duplicate key '{key}' (first at line 1, column 1)"
    assert (error.line, error.column) == (2, 1)


def test_a_file_name_is_quoted_as_written_when_a_labels_directory_is_searched(
    tmp_path: Path,
) -> None:
    # Trap: the same rewording applied to the file finder's messages: a labels file named
    # `case file.YAML` was told to rename itself to `labels file.yaml`, and a symlink into
    # `case files` was reported as pointing into `labels files`, places that do not exist.
    (tmp_path / "case file.YAML").write_text("labels: x\n", encoding="utf-8")
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "case files")
    (tmp_path / "out.yaml").symlink_to(tmp_path.parent / "x case file.yaml")
    (tmp_path.parent / "x case file.yaml").write_text("labels: x\n", encoding="utf-8")
    with pytest.raises(ConfigErrors) as caught:
        load_labels(tmp_path)
    said = {Path(error.path).name: (error.message, error.hint) for error in caught.value.errors}
    assert said == {
        "case file.YAML": (
            "labels files must end in .yaml, not .YAML",
            "rename it to case file.yaml; it would otherwise be labels that are never read",
        ),
        "dangling.yaml": (f"symlink points to nothing ({tmp_path / 'case files'})", None),
        "out.yaml": (
            f"symlink leads out of the labels directory, to {tmp_path.parent}/x case file.yaml",
            "name that place with --judge-labels instead",
        ),
    }


# ---------------------------------------------------------------- each kind is named as itself

READER_REFUSALS = {
    "empty": b"",
    "byte-order mark": b"\xef\xbb\xbfa: 1\n",
    "NUL": b"a: 1\n\x00",
    "alias": b"a: &x 1\nb: *x\n",
    "tag": b"a: !!str 1\n",
    "merge key": b"a: {c: 1}\n<<: {d: 2}\n",
    "second document": b"a: 1\n---\nb: 2\n",
    "YAML 1.1 boolean": b"a: yes\n",
    "unclosed list": b"a: [1, 2\n",
}
"""Bytes every kind's reader refuses before its model is asked, by what is wrong with them."""


@pytest.mark.parametrize("noun", [noun for noun in PARSERS if noun != "case file"])
@pytest.mark.parametrize("refusal", list(READER_REFUSALS))
def test_the_reader_words_a_refusal_with_the_files_own_kind(noun: str, refusal: str) -> None:
    # Trap: a phrase of the case files' wording left out of a kind's replacement list, so a
    # target, waivers or labels file is told about case files and suites it does not have.
    for error in _refusals(PARSERS[noun], READER_REFUSALS[refusal]):
        said = f"{error.message} {error.hint or ''}"
        assert "case" not in said
        assert "suite" not in said


@pytest.mark.parametrize(
    ("noun", "limit", "load"),
    [
        ("case file", 8 * 1024 * 1024, lambda path: load_suites([path])),
        ("target file", MAX_TARGET_FILE_BYTES, lambda path: load_target_file(path, environ={})),
        ("waivers file", MAX_WAIVERS_BYTES, lambda path: load_waivers(path, today=TODAY)),
        ("labels file", 8 * 1024 * 1024, load_labels),
    ],
)
def test_a_file_over_its_kinds_limit_is_refused_alike_by_parse_and_by_load(
    tmp_path: Path, noun: str, limit: int, load: Callable[[Path], object]
) -> None:
    # Trap: the parse function checking the case files' 8 MiB whatever the kind, so a
    # waivers file of 2 MiB that `load_waivers` refuses was read when handed over as bytes,
    # and one over 8 MiB was told to "split the suite into several files".
    raw = b"a: 1\n" + b"#" * limit
    path = tmp_path / "big.yaml"
    path.write_bytes(raw)
    with pytest.raises(ConfigErrors) as caught:
        load(path)
    said = [(e.message, e.hint, e.line, e.column) for e in caught.value.errors]
    assert said[0][0] == f"file is {len(raw):,} bytes, over the {limit:,}-byte limit for a {noun}"
    assert [(e.message, e.hint, e.line, e.column) for e in _refusals(PARSERS[noun], raw)] == said


# ---------------------------------------------------------------- a new kind in a few lines


class PersonaFile(StrictRecord):
    """The model the module's example names: a kind of file gauntlet does not have yet."""

    persona: Identifier
    traits: tuple[Text, ...]


def _documented_kind() -> StrictFile[PersonaFile]:
    """The persona file kind, built by running the example in `strict_file`'s docstring."""
    [example] = re.findall(r"```python\n(.*?)```", strict_file.__doc__ or "", re.DOTALL)
    names: dict[str, Any] = {
        "PersonaFile": PersonaFile,
        "StrictFile": StrictFile,
        "FileWords": FileWords,
        "ListFileWords": ListFileWords,
        "TypeAdapter": TypeAdapter,
        "Path": Path,
    }
    exec(example, names)  # noqa: S102 - the module's own documentation, run as written
    kind: StrictFile[PersonaFile] = names["PERSONA_FILE"]
    return kind


def test_the_documented_new_kind_of_file_is_read_with_its_own_words(tmp_path: Path) -> None:
    # Trap: an example of extending the reader that no longer runs, or a reader that still
    # words some refusal with the case files' noun, so a new kind must reword it again.
    persona = _documented_kind()
    path = tmp_path / "p.yaml"
    path.write_text("persona: newcomer\ntraits: [curious]\n", encoding="utf-8")
    assert persona.load(path).model == PersonaFile(persona="newcomer", traits=("curious",))
    said = {
        name: [(e.line, e.message, e.hint) for e in _refusals(persona.parse, raw)]
        for name, raw in {
            "empty": b"",
            "alias": b"persona: &a x\ntraits: [*a]\n",
            "unknown key": b"persona: x\ntraits: []\ntone: warm\n",
            "large": b"#" * (64 * 1024 + 1),
        }.items()
    }
    assert said == {
        "empty": [(1, "file is empty", "a persona file is one YAML mapping")],
        "alias": [
            (1, "anchor '&a' is not allowed", _NO_ANCHORS),
            (2, "alias '*a' is not allowed", _NO_ANCHORS),
        ],
        "unknown key": [
            (
                3,
                "tone: unknown key for a persona file",
                "keys of a persona file are: persona, traits",
            )
        ],
        "large": [
            (
                1,
                "file is 65,537 bytes, over the 65,536-byte limit for a persona file",
                "a persona file describes one persona",
            )
        ],
    }


_NO_ANCHORS = "anchors and aliases are refused in persona files; write the value out"


def test_a_kind_not_read_from_a_directory_is_not_searched_for() -> None:
    # Trap: a kind without directory words searched with the case files' words by default.
    with pytest.raises(ValueError, match="target files are not read from a directory"):
        TARGET_FILE.find([Path(".")], [])
