"""Property tests: `gauntlet report` on any file renders a consistent report or says why not.

The files are real results files from the toy with random changes (hostile characters in a
field wherever it occurs, a field set to any JSON value or to another of the file's own
words, a key dropped or added, a list entry dropped or doubled), and arbitrary JSON and
bytes. The documented outcomes are exit 0 with a whole report, in every format and as the
Action asks for it, of a file that reads back; or exit 2 with a located error. Never
"internal error".
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import xml.etree.ElementTree as ET  # parsing our own output, to check it
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.cli import run
from gauntlet.display import printable
from gauntlet.errors import ResultsError
from gauntlet.evidence.digest import results_digest
from gauntlet.run import results_file
from gauntlet.run.results import Results
from gauntlet.targets.toy import ToyDefect

from ..evidence_fixtures import clean, flaky, incomplete, unscoreable, with_defect

PARSE_RESULTS = results_file.parse_results
"""The parser itself, kept before `_each_file_parsed_once` stands in for it."""


@functools.cache
def _documents() -> tuple[dict[str, Any], ...]:
    """Results files the toy writes: passing, failing, flaky, interrupted, conversations."""
    made = (
        clean(),
        with_defect(ToyDefect.LEAK_SYSTEM_PROMPT),
        with_defect(ToyDefect.YIELDS_TO_PUSHBACK),
        flaky(),
        incomplete(),
        unscoreable(),
    )
    return tuple(results.model_dump(mode="json") for results in made)


@functools.cache
def _words() -> tuple[str, ...]:
    """Every string in the files: an outcome, a gate, a suite, a case id, another answer."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            found.update(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for document in _documents():
        walk(document)
    return tuple(sorted(found))


# What a hand-edited or hostile file may hold in a string: every code point (lone surrogates
# included), and often the characters that have broken text handling before: NUL, escapes,
# DEL and C1 controls, line and bidi separators, and what Markdown, XML and workflow
# commands give meaning to.
HOSTILE = "\x00\x01\t\n\r\x1b\x7f\x85\x9f\u2028\u202e\ud800\ufeff%:,|<>&]`*_#"
texts = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=()), max_size=12),
    st.sampled_from(["", "\n::error::x", "]]>", "<a>", "a" * 2_000]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(texts, children, max_size=3)
    ),
    max_leaves=12,
)


def _places(node: Any, name: str = "") -> list[tuple[Any, Any, str]]:
    """Every (container, key or index, field name) in `node`, outermost first.

    A list entry goes by its list's name: every `citations` entry is a `citations`.
    """
    found: list[tuple[Any, Any, str]] = []
    keys = list(node) if isinstance(node, dict) else range(len(node))
    for key in keys:
        field = key if isinstance(key, str) else name
        found.append((node, key, field))
        if isinstance(node[key], dict | list):
            found += _places(node[key], field)
    return found


def _mutate(data: st.DataObject, document: Any) -> None:
    places = _places(document)
    if data.draw(st.booleans(), label="hostile text"):
        # Text is where a file's free words are (a source path, a target's name, an answer):
        # hostile characters put in or after a field, in every place it occurs, are what
        # can reach a renderer. Fields are drawn by name, so a rare one is as likely as
        # one every case has.
        texts_at = [place for place in places if isinstance(place[0][place[1]], str)]
        field = data.draw(st.sampled_from(sorted({name for *_, name in texts_at})), "field")
        hostile = data.draw(st.text(st.sampled_from(HOSTILE), min_size=1, max_size=4), "text")
        append = data.draw(st.booleans(), label="appended")
        for parent, key, name in texts_at:
            if name == field:
                parent[key] = parent[key] + hostile if append else hostile
        return
    if not places:
        return
    # Any place, each as likely as the next: most are deep inside the cases, where a change
    # can get past the schema and reach the renderers, which a walk from the top would miss.
    parent, key, _ = places[data.draw(st.integers(0, len(places) - 1), label="place")]
    old = parent[key]
    # Mostly a value of the same kind, which is what can get past the schema.
    changes = ["like"] * 4 + ["word"] * 2 + ["any", "drop", "add", "double"]
    change = data.draw(st.sampled_from(changes), label="change")
    match change:
        case "like":  # the same type, another value: what gets past the schema
            parent[key] = data.draw(_like(old), label="value")
        case "word":
            parent[key] = data.draw(st.sampled_from(_words()), label="value")
        case "any":
            parent[key] = data.draw(json_values, label="value")
        case "drop":
            del parent[key]
        case "add" if isinstance(parent, dict):
            parent[data.draw(st.one_of(st.sampled_from(_words()), texts))] = data.draw(json_values)
        case _:  # doubled: a list entry twice, or a key's value given to another key
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(old))
            else:
                parent[data.draw(st.sampled_from(list(parent)))] = copy.deepcopy(old)


def _like(value: object) -> st.SearchStrategy[Any]:
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.one_of(st.integers(value - 2, value + 2), st.integers())
    if isinstance(value, float):
        return st.one_of(st.floats(0, 1), st.floats(allow_nan=True, allow_infinity=True))
    if isinstance(value, str):
        return st.one_of(texts, st.sampled_from(_words()))
    return json_values


def _encoded(document: object, ascii_only: bool) -> bytes:
    # Escaped (`\ud800`) or raw, which no UTF-8 codec allows: a file may hold either.
    text = json.dumps(document, ensure_ascii=ascii_only, allow_nan=True)
    return text.encode("utf-8", errors="surrogatepass")


def _changed_file(data: st.DataObject) -> bytes:
    """One of the toy's results files with one to three changes, drawn one by one.

    Drawn inside the test, not given whole, so a failure shows the few changes made rather
    than a file of 80 kB.
    """
    documents = _documents()
    document = copy.deepcopy(documents[data.draw(st.integers(0, len(documents) - 1), "file")])
    # Mostly one change: each more is another chance to break the schema before rendering.
    for _ in range(data.draw(st.sampled_from([1, 1, 1, 2, 3]), label="changes")):
        _mutate(data, document)
    return _encoded(document, data.draw(st.booleans(), label="ascii only"))


other_files = st.one_of(
    st.builds(_encoded, json_values, st.booleans()),
    st.builds(
        _encoded,
        st.dictionaries(st.sampled_from(_words()), json_values, max_size=4).map(
            lambda extra: {"schema_version": 2, **extra}
        ),
        st.booleans(),
    ),
    st.binary(max_size=64),
)


class Report(NamedTuple):
    """What one `gauntlet report` did."""

    code: int
    stdout: str
    stderr: str


def _report(*args: str | Path) -> Report:
    """`gauntlet report ARGS` in this process, its output captured as a UTF-8 pipe takes it.

    A pipe refuses what UTF-8 cannot encode, where a `StringIO` would take anything. Every
    documented outcome is exit 0 or a located error with exit 2; never "internal error".
    """
    out = io.TextIOWrapper(io.BytesIO(), "utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), "utf-8", write_through=True)
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        # As on a GitHub runner, where annotation paths are made relative to the workspace.
        mock.patch.dict(os.environ, {"GITHUB_WORKSPACE": str(Path.cwd())}),
    ):
        code = run(["report", *map(str, args)])
    done = Report(code, *(stream.buffer.getvalue().decode() for stream in (out, err)))
    assert done.code in (0, 2), done
    assert "internal error" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module", autouse=True)
def _each_file_parsed_once() -> Iterator[None]:
    """`parse_results` (pure: its docstring) runs once for the same bytes, not at every report.

    One example reports the same file up to four times, and its baseline as often; parsing
    (with every verdict graded again) was most of each report's time, so the properties ran
    for minutes. Every report still reads its files and renders from what was parsed; only a
    file that parsed is remembered (one that did not ends the example at its first report),
    and `_check` reads the file back through the real, unremembered parser.
    """
    remembered: dict[tuple[bytes, str], Results] = {}

    def parse_once(raw: bytes, source: str) -> Results:
        key = (raw, source)
        if key not in remembered:
            if len(remembered) >= 8:  # the files of the example being reported, no more
                remembered.clear()
            remembered[key] = PARSE_RESULTS(raw, source)
        return remembered[key]

    with mock.patch.object(results_file, "parse_results", parse_once):
        yield


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One directory for every example: each writes its file over the last one's."""
    directory = tmp_path_factory.mktemp("report")
    (directory / "baseline.json").write_text(json.dumps(_documents()[0]), encoding="utf-8")
    yield directory


def _check(workspace: Path, raw: bytes, baseline: str | None) -> None:
    """Report the file; if it is read, in every format and as the Action asks too."""
    path = workspace / "results.json"
    path.write_bytes(raw)
    extra = ["--baseline", str(workspace / baseline)] if baseline else []
    done = _report(path, *extra)
    if done.code == 2:
        first = done.stderr.splitlines()[0]
        assert first.startswith(f"error: {workspace}"), done  # the file, or the baseline
        return
    assert done.code == 0, done
    # The file reads back as it is, and every report of it is a whole one of its format.
    try:  # the real parser, not the one `_each_file_parsed_once` puts in for the reports
        results = PARSE_RESULTS(path.read_bytes(), str(path))
    except ResultsError as exc:  # pragma: no cover - shown when the property fails
        pytest.fail(f"reported, but does not read back: {exc}")
    assert done.stdout.startswith("# gauntlet evidence pack\n"), done
    pack = _report(path, *extra, "--format", "json")
    assert json.loads(pack.stdout)["results_digest"] == results_digest(results), pack
    junit = _report(path, *extra, "--format", "junit")
    ET.fromstring(junit.stdout.encode())  # noqa: S314 - our own output
    outputs, summary = workspace / "github-output", workspace / "github-summary.md"
    outputs.write_text("")
    summary.write_text("")
    github = _report(
        path, *extra, "--github-output", outputs, "--github-summary", summary,
        "--github-annotations",
    )  # fmt: skip
    assert all(line.startswith("::error file=") for line in github.stdout.splitlines()), github
    names = [line.partition("=")[0] for line in outputs.read_text().splitlines()]
    assert names[:2] == ["passed", "verdict"], names
    # What is printed passes the output guard; what is written holds nothing it would change.
    written = summary.read_text(encoding="utf-8")
    assert written == done.stdout
    for text in (written, pack.stdout, junit.stdout, github.stdout):
        assert [line for line in text.split("\n") if printable(line) != line] == []


baselines = st.sampled_from([None, "baseline.json", "results.json", "missing.json"])


# Each example reports up to four times, at 10 to 50 ms each: 150 examples keep each of the
# two tests near 8 s on a 2-core runner and still find the crashes they were written for.
REPORTING = settings(max_examples=150)


@REPORTING
@given(data=st.data(), baseline=baselines)
def test_any_changed_results_file_is_reported_or_refused_with_a_located_error(
    workspace: Path, data: st.DataObject, baseline: str | None
) -> None:
    _check(workspace, _changed_file(data), baseline)


@REPORTING
@given(data=st.data())
def test_any_changed_baseline_is_compared_or_refused_with_a_located_error(
    workspace: Path, data: st.DataObject
) -> None:
    # The changed file is the baseline here, and the results are the toy's own.
    (workspace / "other.json").write_bytes(_changed_file(data))
    _check(workspace, json.dumps(_documents()[1]).encode(), "other.json")


@given(raw=other_files)
def test_any_json_or_bytes_is_refused_with_a_located_error(workspace: Path, raw: bytes) -> None:
    _check(workspace, raw, None)
