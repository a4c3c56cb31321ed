"""`strict_json`: one meaning per JSON document, or a contract error that says which and why."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.display import masking
from gauntlet.errors import TargetContractError
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.http import parse_contract_body


def _refusal(data: bytes | str, what: str = "response") -> str:
    with pytest.raises(TargetContractError) as caught:
        loads(data, what)
    return str(caught.value)


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a": [1, 2.5, "x", true, false, null]}', {"a": [1, 2.5, "x", True, False, None]}),
        ('{"a": {"b": {}}}', {"a": {"b": {}}}),
        (b"[]", []),
        (b' "\xc3\xa9" ', "é"),
        ("-0", 0),
        (b"1e308", 1e308),
        (b"1e-400", 0.0),  # too small to tell from zero is still a number
        (b"9" * 4_300, int("9" * 4_300)),
        (b'"\\ud800"', "\ud800"),  # a JSON escape: the contract check refuses it later
    ],
    ids=ascii,
)
def test_a_json_document_is_read(data: bytes | str, value: object) -> None:
    assert loads(data) == value


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf[1]", "\ufeff[1]"], ids=ascii)
def test_one_leading_byte_order_mark_is_ignored(data: bytes | str) -> None:
    assert loads(data) == [1]


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf\xef\xbb\xbf[1]", "\ufeff\ufeff[1]"], ids=ascii)
def test_a_second_byte_order_mark_is_not_json(data: bytes | str) -> None:
    assert _refusal(data).startswith("response is not JSON: Unexpected UTF-8 BOM")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # The trap: json.loads guesses UTF-16 and UTF-32 from the bytes, and reads them.
        ('"a"'.encode("utf-16"), "response is not UTF-8 JSON: invalid start byte at byte 0"),
        ('"a"'.encode("utf-16-be"), "response is not JSON: Expecting value at line 1, column 1 "),
        # The trap: json.loads decodes bytes with surrogatepass, so it reads an encoded one.
        (b'"\xed\xa0\x80"', "response is not UTF-8 JSON: invalid continuation byte at byte 1"),
        (b'{"a": "\xff"}', "response is not UTF-8 JSON: invalid start byte at byte 7"),
        (b'"\xe2\x82', "response is not UTF-8 JSON: unexpected end of data at byte 1"),
    ],
    ids=["utf-16", "utf-16-be", "encoded-surrogate", "invalid-byte", "cut-character"],
)
def test_only_utf8_is_read(data: bytes, message: str) -> None:
    assert _refusal(data).startswith(message)


def test_what_is_not_json_says_where_and_quotes_the_start() -> None:
    assert _refusal(b'{"a": 1,}') == (
        "response is not JSON: Expecting property name enclosed in double quotes at line 1, "
        """column 9 (body starts '{"a": 1,}')"""
    )
    assert _refusal("[1]\n[2]", "stream chunk 3") == (
        "stream chunk 3 is not JSON: Extra data at line 2, column 1 (body starts '[1]\\n[2]')"
    )


def test_the_quoted_start_is_cut_and_escaped() -> None:
    message = _refusal("\x1b[31m" + "a" * 100)
    assert message == (
        "response is not JSON: Expecting value at line 1, column 1 "
        "(body starts '\\x1b[31m" + "a" * 54 + "…')"
    )


def test_the_quoted_start_is_masked_before_it_is_cut() -> None:
    body = "<html>" + "x" * 50 + "sk-secret-token-1234567890"
    with masking(lambda text: text.replace("sk-secret-token-1234567890", "***")):
        message = _refusal(body)
    assert "sk-secret" not in message
    assert message.endswith(f"(body starts '<html>{'x' * 50}***')")


def test_an_empty_document_is_not_json() -> None:
    assert _refusal(b"", "stream chunk 0") == (
        "stream chunk 0 is not JSON: Expecting value at line 1, column 1 (body starts '')"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": 1, "a": 1}', "response has the key 'a' twice"),
        (b'[{"x": {"b": 1, "b": 2}}]', "response has the key 'b' twice"),
        (b'{"\\u0061": 1, "a": 2}', "response has the key 'a' twice"),  # the same key, escaped
        (
            b'{"' + b"k" * 100 + b'": 1, "' + b"k" * 100 + b'": 2}',
            "response has the key '" + "k" * 59 + "…' twice",
        ),
    ],
    ids=["top", "nested", "escaped", "long"],
)
def test_a_duplicate_key_is_refused(data: bytes, message: str) -> None:
    assert _refusal(data) == message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(constant: str) -> None:
    assert _refusal(f'{{"a": [{constant}]}}', "stream chunk 2") == (
        f"stream chunk 2 holds {constant}, which JSON does not allow"
    )


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1.5E+999"])
def test_a_float_beyond_range_is_refused(number: str) -> None:
    # The trap: json.loads reads 1e400 as infinity, which no results file can hold.
    assert _refusal(f'{{"usage": {number}}}') == (
        f"response holds a number too large to read ({number}): beyond a 64-bit float's range"
    )


def test_a_long_float_beyond_range_is_quoted_short() -> None:
    assert _refusal("9" * 400 + ".0") == (
        f"response holds a number too large to read ({'9' * 59}…): beyond a 64-bit float's range"
    )


def test_a_number_too_long_to_read_is_refused() -> None:
    # The trap: int() refuses more than 4,300 digits with a ValueError, no JSONDecodeError.
    assert _refusal(b"9" * 4_301) == (
        "response holds a number too long to read (more than 4,300 digits)"
    )


@pytest.mark.parametrize("data", [b"[" * 100_000, b'{"a": ' * 100_000])
def test_nesting_too_deep_is_refused(data: bytes) -> None:
    # The trap: the json module raises RecursionError, which is no contract error.
    assert _refusal(data, "stream chunk 7") == "stream chunk 7 is nested too deeply"


@pytest.mark.parametrize(
    "body",
    [
        b"<html>",
        b'{"text": "a",}',
        b'{"text": "a", "text": "b"}',
        b'{"text": NaN}',
        b'{"text": -Infinity}',
        b"[" * 100_000,
        b'{"text": ' + b"9" * 5_000 + b"}",
        b"\xef\xbb\xbf{oops",
        b"",
    ],
    ids=ascii,
)
def test_the_wording_is_parse_contract_bodys(body: bytes) -> None:
    # http.py is to switch to this module: its users must read the same messages.
    with pytest.raises(TargetContractError) as caught:
        parse_contract_body(body)
    assert _refusal(body) == str(caught.value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(json_values)
def test_what_json_writes_is_read_back(value: object) -> None:
    assert loads(json.dumps(value)) == value
    assert loads(json.dumps(value, ensure_ascii=False).encode()) == value


@given(st.binary(max_size=64))
def test_any_bytes_give_a_value_or_a_contract_error(data: bytes) -> None:
    try:
        loads(data)
    except TargetContractError as error:
        assert str(error).startswith("response ")


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({}, "object"),
        ([], "array"),
        ("", "string"),
        (True, "boolean"),
        (False, "boolean"),
        (0, "number"),
        (1.5, "number"),
        (None, "null"),
        ((), "Python tuple"),
    ],
    ids=repr,
)
def test_json_kind_names_json_types(value: object, kind: str) -> None:
    assert json_kind(value) == kind
