"""The one-pass reader of valid files: it reads what the strict builder reads, or declines.

`read_document` reads a file first in one tight pass that keeps the parser's marks and
checks each node with a few comparisons; at anything the strict builder would refuse it
declines, and the builder reads the file again to word every refusal. These tests hold it to
that: whatever the text, the pass either declines or gives exactly the builder's document.
"""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from gauntlet.cases import yaml_nodes
from gauntlet.cases.file_words import CASE_FILE_WORDS, FileWords
from gauntlet.cases.loader import load_suites
from gauntlet.cases.yaml_nodes import MAYBE_NOT_TEXT, PLAIN_KINDS, Document, Mark, Refusal
from gauntlet.errors import ConfigErrors

REPO = Path(__file__).resolve().parents[3]
YAML_FILES = sorted(
    path.relative_to(REPO)
    for folder in ("suites", "tests/corpus", "tests/golden", "examples")
    for path in (REPO / folder).rglob("*.yaml")
)


def _in_one_pass(text: str) -> Document | None:
    parser = yaml_nodes._Parser(text)
    try:
        return yaml_nodes._read_plain(parser.get_event)
    except yaml.MarkedYAMLError:
        return None


def _strictly(text: str) -> Document | None:
    try:
        return yaml_nodes._read_strictly(text, "t.yaml", CASE_FILE_WORDS)
    except ConfigErrors:
        return None


def _exactly(document: Document) -> tuple[Any, ...]:
    # json.dumps tells true from 1 and 1.0 from 1, and keeps the keys' order.
    return (
        json.dumps(document.data),
        dict(document.value_marks),
        dict(document.key_marks),
        document.plain_texts,
        document.events,
    )


def _agree(text: str) -> None:
    if yaml_nodes._NOT_PRINTABLE.search(text):
        return  # refused before either reads it
    strict, fast = _strictly(text), _in_one_pass(text)
    if strict is None:
        assert fast is None, "the one pass read a file the strict builder refuses"
    else:
        assert fast is not None, "the one pass declined a file the strict builder reads"
        assert _exactly(fast) == _exactly(strict)


@pytest.mark.parametrize("path", YAML_FILES, ids=str)
def test_every_yaml_file_of_the_repository_is_read_alike(path: Path) -> None:
    raw = (REPO / path).read_bytes()
    try:
        text = yaml_nodes.decode_source(raw, str(path))
    except ConfigErrors:
        return  # refused before any YAML is read (a BOM, not UTF-8, a NUL)
    _agree(text)


def test_the_repository_has_valid_and_invalid_files_to_compare() -> None:
    # The comparison above proves nothing if every file is refused, or none is.
    texts = [(REPO / path).read_text(encoding="utf-8", errors="replace") for path in YAML_FILES]
    read = [
        _strictly(text) is not None for text in texts if not yaml_nodes._NOT_PRINTABLE.search(text)
    ]
    assert read.count(True) > 100
    assert read.count(False) > 10


SNIPPETS = [
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: ! x\n",
    "%YAML 1.2\n---\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "a: 1\na: 2\n",
    "<<: {a: 1}\n",
    '"<<": 1\n',
    "[a]: 1\n",
    "{a: 1}: 2\n",
    "1: x\n",
    "~: x\n",
    "? \n: x\n",
    "a: yes\n",
    "a: .nan\n",
    "a: 017\n",
    "a: 1e999\n",
    "a: [1, 'b', {c: .5, d: ~, e: 0x1F, f: 0o7, g: TRUE}]\n",
    "- - - - x\n",
    "a: [\n",
    "",
    "# only a comment\n",
    "---\n",
    "just text\n",
    "''\n",
    "a: |\n  block\nb: >-\n  folded\n",
    "a:\n  - {x: 1}\n  - [y, 2]\n",
    "[" * (yaml_nodes.MAX_DEPTH + 1) + "]" * (yaml_nodes.MAX_DEPTH + 1),
    "[" * yaml_nodes.MAX_DEPTH + "]" * yaml_nodes.MAX_DEPTH,
]


@pytest.mark.parametrize("text", SNIPPETS)
def test_each_kind_of_refusal_is_declined_and_the_rest_read_alike(text: str) -> None:
    _agree(text)


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["yes", "no", "<<", ".nan", "017", "0x1F", "0o7", "~", "", "1e999"]),
)
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=6), scalars), children, max_size=5),
    ),
    max_leaves=30,
)


@given(documents, st.sampled_from([None, True, False]))
def test_any_yaml_structure_is_read_alike(data: Any, flow: bool | None) -> None:
    _agree(yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True))


@given(st.lists(st.sampled_from([*SNIPPETS, "b: 2\n", "- x\n", "  c: d\n", "&a ", "*a\n"])))
def test_any_mix_of_tricky_snippets_is_read_alike(parts: list[str]) -> None:
    _agree("".join(parts))


@given(st.text(max_size=200))
def test_any_text_is_read_alike(text: str) -> None:
    _agree(text)


def test_a_file_the_one_pass_declines_is_read_by_the_strict_builder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "a: 1\nb: [x, 'y', {c: .5, d: ~}]\n"
    fast = yaml_nodes.read_document(text, "t.yaml")
    monkeypatch.setattr(yaml_nodes, "_read_plain", lambda next_event: None)
    strict = yaml_nodes.read_document(text, "t.yaml")
    assert _exactly(strict) == _exactly(fast)
    assert isinstance(strict.value_marks, dict)  # the builder's, not the one pass's


class _CountedMark(Mark):
    made = 0

    def __init__(self, line: int, column: int) -> None:
        type(self).made += 1
        super().__init__(line, column)


def _at(mark: Mark) -> tuple[int, int]:
    return mark.line, mark.column


def test_a_valid_file_is_read_once_and_makes_a_mark_only_when_one_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(source: str, words: FileWords) -> None:
        raise AssertionError("a valid file must not be read a second time")

    monkeypatch.setattr(yaml_nodes, "_Builder", never)
    monkeypatch.setattr(yaml_nodes, "Mark", _CountedMark)
    text = "a: 1\nb:\n  - x\n  - {c: d}\n"
    document = yaml_nodes.read_document(text, "t.yaml")
    assert _CountedMark.made == 0
    assert _at(document.value_marks[("b", 1, "c")]) == (4, 9)
    assert _at(document.key_marks[("b",)]) == (2, 1)
    assert _at(document.mark_for(("b", 0, "missing"))) == (3, 5)
    assert _CountedMark.made == 3
    assert ("b", 1) in document.value_marks
    assert ("b", 2) not in document.value_marks
    assert len(document.value_marks) == 6  # the root, a, b, b[0], b[1] and b[1].c
    assert list(document.key_marks) == [("a",), ("b",), ("b", 1, "c")]


@pytest.mark.parametrize(("kind", "pattern"), PLAIN_KINDS)
@given(data=st.data())
def test_no_plain_scalar_that_a_pattern_fits_is_taken_for_text_by_its_first_character(
    kind: str, pattern: str, data: st.DataObject
) -> None:
    written = data.draw(st.from_regex(re.compile(pattern), fullmatch=True))
    assert not written or written[0] in MAYBE_NOT_TEXT, (kind, written)


def _first_fit(written: str) -> str | None:
    # The rule, spelled one pattern at a time: the first pattern that fits the whole text.
    return next((kind for kind, pattern in PLAIN_KINDS if re.fullmatch(pattern, written)), None)


@given(
    st.one_of(
        st.text(alphabet="+-.0123456789eEoxabcfinNIAlLuUsStTrRyYO~", max_size=8),
        *(st.from_regex(re.compile(pattern), fullmatch=True) for _, pattern in PLAIN_KINDS),
    )
)
@example("")
@example("0")
@example("00")
@example("0o17")
@example("1e999")
def test_a_plain_scalar_is_read_by_the_first_pattern_that_fits_it(written: str) -> None:
    value = yaml_nodes.resolve_plain(written)
    kind = _first_fit(written)
    if kind is None:
        assert value == written
    elif kind in ("yaml11_bool", "nan_inf", "leading_zero"):
        assert isinstance(value, Refusal)
    elif kind == "float":
        assert isinstance(value, Refusal) or type(value) is float
    else:
        expected = {"null": type(None), "true": bool, "false": bool}.get(kind, int)
        assert type(value) is expected


def test_a_caller_that_paused_the_collector_finds_it_paused_after_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "suite: s\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1.0\ncases:\n"
        "  - {id: a, language: en, prompt: p, expected: x}\n",
        encoding="utf-8",
    )
    gc.disable()
    try:
        assert load_suites([tmp_path]).case_total == 1
        assert not gc.isenabled()
    finally:
        gc.enable()
