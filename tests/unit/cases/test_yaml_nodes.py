"""The strict YAML reader: scalar resolution, refusals and marks."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gauntlet.cases import yaml_nodes
from gauntlet.cases.yaml_nodes import MAX_DEPTH, Mark, decode_source, read_document
from gauntlet.errors import ConfigErrors


def _value(text: str) -> Any:
    return read_document(f"v: {text}\n", "t.yaml").data["v"]


def _problems(text: str) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        read_document(text, "t.yaml")
    return [error.render() for error in caught.value.errors]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("false", False),
        ("True", True),
        ("FALSE", False),
        ("~", None),
        ("null", None),
        ("", None),
        ("12", 12),
        ("-3", -3),
        ("0", 0),
        ("0o17", 15),
        ("0x1F", 31),
        ("1.5", 1.5),
        (".5", 0.5),
        ("1e3", 1000.0),
        ('"no"', "no"),  # quoted: always text
        ("'yes'", "yes"),
        ('"1.0"', "1.0"),
        ("2024-01-01", "2024-01-01"),  # YAML 1.1 timestamps stay text
        ("1_000", "1_000"),  # YAML 1.1 digit separators stay text
        ("1:30", "1:30"),  # YAML 1.1 sexagesimal stays text
        ("nan", "nan"),  # only the dotted forms are special
        ("en", "en"),
    ],
)
def test_scalars_resolve_by_the_yaml_1_2_core_schema(text: str, expected: object) -> None:
    value = _value(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF"])
def test_yaml_1_1_booleans_are_refused_never_read_as_booleans(word: str) -> None:
    # The trap: `language: no` must not become False, nor silently stay "no" in one tool
    # and False in another.
    [problem] = _problems(f"v: {word}\n")
    assert problem.startswith("t.yaml:1:4: ")
    assert "YAML 1.1 boolean" in problem


@pytest.mark.parametrize("text", [".nan", ".NaN", ".inf", "-.inf", "+.Inf", "1e999"])
def test_nan_and_infinities_are_refused(text: str) -> None:
    [problem] = _problems(f"v: {text}\n")
    assert problem.startswith("t.yaml:1:4: ")


def test_leading_zero_integers_are_refused_as_ambiguous() -> None:
    [problem] = _problems("v: 017\n")
    assert "leading zero" in problem


@pytest.mark.parametrize("number", ["1" * 5000, "-" + "9" * 4500, "0" + "1" * 5000])
def test_a_number_too_long_to_read_is_refused_where_it_stands(number: str) -> None:
    # Python refuses to turn more than 4,300 digits into an int: that was a traceback.
    [problem] = _problems(f"v: {number}\n")
    assert problem.startswith(f"t.yaml:1:4: a number {len(number)} characters long is too long")


def test_a_long_number_within_the_limit_is_read() -> None:
    assert read_document("v: " + "1" * 4000 + "\n", "t.yaml").data == {"v": int("1" * 4000)}


def test_marks_are_one_based_for_keys_and_values() -> None:
    document = read_document("a: 1\nb:\n  - x\n  - {c: d}\n", "t.yaml")
    assert document.value_marks[("a",)] == Mark(1, 4)
    assert document.key_marks[("a",)] == Mark(1, 1)
    assert document.value_marks[("b", 0)] == Mark(3, 5)
    assert document.value_marks[("b", 1, "c")] == Mark(4, 9)
    assert document.mark_for(("b", 1, "missing", 3)) == Mark(4, 5)
    assert document.mark_for(("nowhere",)) == Mark(1, 1)


def test_every_refusal_in_a_file_is_reported_not_just_the_first() -> None:
    problems = _problems("a: &x 1\nb: *x\nc: !!str d\na: 2\ne: yes\n")
    assert [p.split(": ", 1)[0] for p in problems] == [
        "t.yaml:1:4",
        "t.yaml:2:4",
        "t.yaml:3:4",
        "t.yaml:4:1",
        "t.yaml:5:4",
    ]


def test_a_duplicate_key_names_the_first_occurrence() -> None:
    [problem] = _problems("key: 1\nother: 2\nkey: 3\n")
    assert problem.startswith("t.yaml:3:1: duplicate key 'key' (first at line 1, column 1)")


def test_a_mapping_nested_under_a_duplicate_key_is_discarded_whole() -> None:
    [problem] = _problems("k: {a: 1}\nk: {a: 2, b: [1, 2]}\n")
    assert "duplicate key 'k'" in problem


def test_nesting_is_bounded_without_recursion() -> None:
    # 100,000 open brackets: a recursive reader would hit RecursionError long before.
    # libyaml refuses past its own limit of 1,000 while scanning ahead; either way the
    # refusal is located and nothing recurses.
    text = "v: " + "[" * 100_000
    [problem] = _problems(text)
    assert problem.startswith("t.yaml:1:")
    assert "nesting" in problem


def test_block_nesting_past_the_limit_is_refused_at_the_first_level_too_deep() -> None:
    text = "".join(f"{'  ' * level}k{level}:\n" for level in range(MAX_DEPTH + 5))
    [problem] = _problems(text)
    assert problem == f"t.yaml:{MAX_DEPTH + 1}:{2 * MAX_DEPTH + 1}: nesting deeper than 32 levels"


def test_nesting_up_to_the_limit_is_read() -> None:
    depth = MAX_DEPTH - 1  # the top-level mapping is one level
    data = read_document("v: " + "[" * depth + "]" * depth + "\n", "t.yaml").data
    for _ in range(depth - 1):
        data = data["v"] if isinstance(data, dict) else data[0]
    assert data is not None


def test_reading_stops_at_a_second_document() -> None:
    [problem] = _problems("a: 1\n---\nb: 2\n---\nc: 3\n")
    assert problem.startswith("t.yaml:2:1: a second YAML document")


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\n\n"])
def test_an_empty_file_is_refused(text: str) -> None:
    [problem] = _problems(text)
    assert "file is empty" in problem


def test_a_scalar_document_is_read_for_the_schema_to_refuse() -> None:
    assert read_document("just text\n", "t.yaml").data == "just text"


def test_non_text_keys_are_refused() -> None:
    problems = _problems("1: a\nnull: b\ntrue: c\n")
    assert len(problems) == 3
    assert [p.split("\n")[0] for p in problems] == [
        "t.yaml:1:1: mapping key 1 is not text",
        "t.yaml:2:1: mapping key null is not text",
        "t.yaml:3:1: mapping key true is not text",
    ]


def test_an_alias_as_a_key_is_refused() -> None:
    problems = _problems("a: &k x\n*k : y\n")
    assert any("alias '*k'" in p for p in problems)


def test_syntax_errors_are_located() -> None:
    [problem] = _problems("a: 'unclosed\n")
    assert problem == (
        "t.yaml:1:4: YAML: found unexpected end of stream while scanning a quoted scalar "
        "that starts here\n  hint: the file ends at line 2 without closing it"
    )


def test_other_syntax_errors_point_at_the_problem() -> None:
    [problem] = _problems("a: b: c\n")
    assert problem == "t.yaml:1:5: YAML: mapping values are not allowed in this context"


def test_an_empty_key_is_refused_in_its_own_words() -> None:
    [problem] = _problems("a: 1\n? \n: x\n")
    assert problem.startswith("t.yaml:2:2: mapping key (empty) is not text")


def test_the_pure_python_parser_gives_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: 1\nb: [x, 'y', {c: .5}]\n"
    fast = read_document(text, "t.yaml")
    monkeypatch.setattr(yaml_nodes, "_Parser", yaml.SafeLoader)
    slow = read_document(text, "t.yaml")
    assert fast == slow


def test_control_characters_are_located() -> None:
    [problem] = _problems("a: 1\nb: x\x07y\n")
    assert problem.startswith("t.yaml:2:5: character U+0007 is not allowed")


@pytest.mark.parametrize(
    ("raw", "location", "words"),
    [
        (b"\xef\xbb\xbfa: 1\n", "t.yaml:1:1", "byte-order mark"),
        (b"a: 1\nb: \xc3\xa9\xff\n", "t.yaml:2:5", "byte offset 10"),
        (b"a: 1\nb: x\x00\n", "t.yaml:2:5", "NUL"),
    ],
)
def test_bytes_are_checked_before_parsing(raw: bytes, location: str, words: str) -> None:
    with pytest.raises(ConfigErrors) as caught:
        decode_source(raw, "t.yaml")
    [error] = caught.value.errors
    assert error.location == location
    assert words in error.message


def test_size_is_checked_before_decoding() -> None:
    with pytest.raises(ConfigErrors) as caught:
        decode_source(b"a" * (yaml_nodes.MAX_FILE_BYTES + 1), "t.yaml")
    assert "over the 8,388,608-byte limit" in caught.value.errors[0].message
