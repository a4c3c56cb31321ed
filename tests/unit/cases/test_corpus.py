"""The case-file corpus: hostile directories fail exactly as expected, valid files all load.

Each `tests/corpus/invalid/<name>/` holds a `cases/` directory to load and an `expected.txt`
with one line per error the loader must report, `RELPATH:LINE:COLUMN: SUBSTRING`: RELPATH is
relative to `cases/`, and SUBSTRING must appear in the message of the error at that location.
The errors must match the lines one for one, so nothing unexpected slips through.

`tests/corpus/valid/*.yaml` must load, each alone and all together (their case ids and suite
names are unique across the whole directory).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import GateName
from gauntlet.errors import ConfigError, ConfigErrors

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
INVALID = CORPUS / "invalid"
VALID = CORPUS / "valid"
MIN_INVALID_EXAMPLES = 50

_EXPECTED_LINE = re.compile(r"(?P<path>[^:]+):(?P<line>[0-9]+):(?P<column>[0-9]+): (?P<text>.+)")

Location = tuple[str, int | None, int | None]


class Expected(NamedTuple):
    """One line of an `expected.txt`."""

    location: Location
    text: str


def _invalid_dirs() -> list[Path]:
    return sorted(path for path in INVALID.iterdir() if path.is_dir())


def _valid_files() -> list[Path]:
    return sorted(VALID.glob("*.yaml"))


def _read_expected(path: Path) -> list[Expected]:
    expected: list[Expected] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        match = _EXPECTED_LINE.fullmatch(line)
        if match is None:
            raise AssertionError(f"{path}:{number}: not RELPATH:LINE:COLUMN: SUBSTRING: {line!r}")
        location = (match["path"], int(match["line"]), int(match["column"]))
        expected.append(Expected(location, match["text"]))
    if not expected:
        raise AssertionError(f"{path}: no expected errors")
    return expected


def _location(error: ConfigError, cases: Path) -> Location:
    relpath = Path(os.path.relpath(error.path, cases)).as_posix()
    return (relpath, error.line, error.column)


def _render(errors: Sequence[ConfigError], cases: Path) -> str:
    lines = []
    for error in errors:
        relpath, line, column = _location(error, cases)
        lines.append(f"  {relpath}:{line}:{column}: {error.message}")
        if error.hint:
            lines.append(f"    hint: {error.hint}")
    return "\n".join(lines)


@pytest.mark.parametrize("example", _invalid_dirs(), ids=lambda path: path.name)
def test_invalid_example_is_refused_exactly_as_expected(example: Path) -> None:
    cases = example / "cases"
    expected = _read_expected(example / "expected.txt")
    try:
        load_suites([cases])
    except ConfigErrors as exc:
        errors = exc.errors
    else:
        pytest.fail(f"{example.name}: the loader accepted this hostile case directory")
    shown = _render(errors, cases)

    actual_locations = Counter(_location(error, cases) for error in errors)
    expected_locations = Counter(item.location for item in expected)
    assert actual_locations == expected_locations, (
        f"{example.name}: errors at unexpected locations\n"
        f"missing:    {sorted((expected_locations - actual_locations).elements(), key=str)}\n"
        f"unexpected: {sorted((actual_locations - expected_locations).elements(), key=str)}\n"
        f"actual errors:\n{shown}"
    )

    by_location: dict[Location, list[ConfigError]] = {}
    for error in errors:
        by_location.setdefault(_location(error, cases), []).append(error)
    for item in expected:
        error = by_location[item.location].pop(0)
        assert item.text in error.message, (
            f"{example.name}: {item.text!r} is not in the message at "
            f"{':'.join(map(str, item.location))}\nactual errors:\n{shown}"
        )


def test_the_corpus_has_enough_invalid_examples() -> None:
    assert len(_invalid_dirs()) >= MIN_INVALID_EXAMPLES


@pytest.mark.parametrize("path", _valid_files(), ids=lambda path: path.stem)
def test_valid_file_loads_alone(path: Path) -> None:
    loaded = load_suites([path])
    assert len(loaded.suites) == 1
    assert loaded.case_total >= 1


def test_valid_files_load_together_and_cover_every_gate() -> None:
    files = _valid_files()
    assert len(files) >= 8
    try:
        loaded = load_suites(files)
    except ConfigErrors as exc:
        pytest.fail("valid files were refused:\n" + _render(exc.errors, VALID))
    assert len(loaded.suites) == len(files)
    assert {suite.suite.gate for suite in loaded.suites} == set(GateName)
