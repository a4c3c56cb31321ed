"""Untrusted text is shown inert: one line, no control character, no CI workflow command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.display import guard_line, guard_lines, printable


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain words", "plain words"),
        ("a\nb\r\nc\td", "a\\nb\\r\\nc\\td"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("bell\x07 del\x7f c1\x9b", "bell\\x07 del\\x7f c1\\x9b"),
        ("line\u2028sep\u2029para", "line\\u2028sep\\u2029para"),
        ("bidi \u202eevil\u202c", "bidi \\u202eevil\\u202c"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("café ñ 日本 🙂", "café ñ 日本 🙂"),
    ],
)
def test_printable_escapes_what_acts_on_the_reader(text: str, shown: str) -> None:
    assert printable(text) == shown


@pytest.mark.parametrize(
    ("line", "guarded"),
    [
        ("::error::forged", "\\x3a:error::forged"),
        ("    ::add-mask::x", "    \\x3a:add-mask::x"),
        ("\t::stop-commands::t", "\t\\x3a:stop-commands::t"),
        ("reason: ::error:: inside a line is inert", "reason: ::error:: inside a line is inert"),
        ("colour \x1b[1m \x85", "colour \\u001b[1m \\u0085"),
    ],
)
def test_no_printed_line_can_start_a_workflow_command(line: str, guarded: str) -> None:
    assert guard_line(line) == guarded


@given(st.text())
def test_printable_text_is_one_inert_line(text: str) -> None:
    shown = printable(text)
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    assert all(not 0xD800 <= ord(char) <= 0xDFFF for char in shown)
    shown.encode("utf-8")  # writable: no lone surrogate survives


@given(st.recursive(st.none() | st.booleans() | st.text(), lambda inner: st.lists(inner)))
def test_a_guarded_json_document_means_what_it_meant(value: object) -> None:
    import json

    document = json.dumps(value, indent=2, ensure_ascii=False)
    assert json.loads(guard_lines(document)) == value


@given(st.text())
def test_guarded_output_never_holds_a_workflow_command(text: str) -> None:
    for line in guard_lines(text).split("\n"):
        assert not line.lstrip().startswith("::")
        assert "\x1b" not in line and "\r" not in line
