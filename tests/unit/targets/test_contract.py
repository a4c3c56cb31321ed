"""The target contract is checked, never inferred: every broken field is named."""

from __future__ import annotations

import re

import pytest
from pydantic import ConfigDict

from gauntlet.errors import TargetContractError
from gauntlet.targets.contract import FieldName, Origin, TargetResponse, check_response, declared
from gauntlet.targets.http import parse_contract_body

GOOD = {
    "text": "Open 9 to 5.",
    "citations": ["RB-001"],
    "context_ids": ["RB-001", "RB-002"],
    "refused": False,
    "escalated": False,
}


def test_a_response_passes_as_an_equal_response() -> None:
    response = TargetResponse.model_validate(GOOD)
    assert check_response(response) == response


def test_a_mapping_with_exactly_the_fields_is_accepted() -> None:
    assert check_response(dict(GOOD)).citations == ("RB-001",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"text": None}, "text: input should be a valid string, got None"),
        ({"refused": "false"}, "refused: input should be a valid boolean, got 'false'"),
        ({"refused": 0}, "refused: input should be a valid boolean, got 0"),
        ({"citations": "RB-001"}, "citations: input should be a valid tuple, got 'RB-001'"),
        ({"citations": [1]}, "citations.0: input should be a valid string, got 1"),
        ({"sources": []}, "sources: not a field of the contract"),
    ],
)
def test_a_wrong_field_is_named(change: dict[str, object], message: str) -> None:
    # The trap: coercing "false" to False, or 0 to False, would be a guess.
    with pytest.raises(TargetContractError) as caught:
        check_response({**GOOD, **change})
    assert str(caught.value) == f"target contract broken: {message}"


def test_a_missing_field_is_named() -> None:
    partial = {key: value for key, value in GOOD.items() if key != "escalated"}
    with pytest.raises(TargetContractError, match="escalated: missing"):
        check_response(partial)


def test_something_else_entirely_is_refused_by_type() -> None:
    with pytest.raises(TargetContractError) as caught:
        check_response("Open 9 to 5.")
    assert str(caught.value) == ("expected a TargetResponse (or a mapping of its fields), got str")


def test_json_is_parsed_strictly() -> None:
    body = b'{"text": "a", "citations": [], "context_ids": [], "refused": false, "escalated": true}'
    assert parse_contract_body(body).escalated is True


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>", "response is not JSON: Expecting value at line 1, column 1"),
        (b"[1, 2]", "response is a JSON array, not an object"),
        (b'{"text": "a"}', "citations: missing"),
        (
            b'{"text": "a", "citations": [], "context_ids": [], "refused": 1, "escalated": false}',
            "refused: input should be a valid boolean",
        ),
    ],
)
def test_bad_json_bodies_are_contract_errors(body: bytes, message: str) -> None:
    with pytest.raises(TargetContractError, match=message):
        parse_contract_body(body)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"text": "Open \ud800 9 to 5."}, "text"),
        ({"text": "\udfff"}, "text"),
        ({"citations": ["RB-001", "RB-\udc80"]}, "citations.1"),
        ({"context_ids": ["\ud83d"]}, "context_ids.0"),
    ],
    ids=ascii,
)
def test_text_that_utf8_cannot_encode_is_a_contract_error_naming_the_field(
    change: dict[str, object], field: str
) -> None:
    # The trap: a lone surrogate is a `str` to Python, but no results file can hold it.
    with pytest.raises(TargetContractError) as caught:
        check_response({**GOOD, **change})
    assert str(caught.value).startswith(f"target contract broken: {field}: holds U+")
    assert "lone surrogate" in str(caught.value)
    str(caught.value).encode()  # the message itself is written to the results file


def test_a_key_that_utf8_cannot_encode_is_a_contract_error() -> None:
    with pytest.raises(TargetContractError) as caught:
        check_response({**GOOD, "sources\ud800": []})
    assert str(caught.value) == (
        "target contract broken: response: the key 'sources\\ud800' holds a lone surrogate, "
        "which UTF-8 cannot encode"
    )


def test_a_lone_surrogate_cannot_make_a_response_at_all() -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        TargetResponse(text="\ud800", citations=(), context_ids=(), refused=False, escalated=False)


def test_a_json_escape_for_a_lone_surrogate_is_a_contract_error() -> None:
    body = b'{"text": "\\ud800", "citations": [], "context_ids": [], "refused": false, '
    with pytest.raises(TargetContractError, match=r"^target contract broken: text: holds U\+D800"):
        parse_contract_body(body + b'"escalated": false}')


class _Extended(TargetResponse):
    model_config = ConfigDict(extra="allow")


@pytest.mark.parametrize(
    ("unchecked", "message"),
    [
        (
            TargetResponse.model_construct(text=None),  # type: ignore[call-arg,arg-type]
            "text: input should be a valid string, got None; citations: missing; "
            "context_ids: missing; refused: missing; escalated: missing",
        ),
        (
            TargetResponse.model_validate(GOOD).model_copy(update={"refused": "no"}),
            "refused: input should be a valid boolean, got 'no'",
        ),
        (
            _Extended.model_validate({**GOOD, "sources": ["x"]}),
            "sources: not a field of the contract",
        ),
        (
            object.__new__(TargetResponse),
            "text: missing; citations: missing; context_ids: missing; refused: missing; "
            "escalated: missing",
        ),
    ],
    ids=["model_construct", "model_copy", "subclass", "never-initialised"],
)
def test_a_response_built_without_validation_is_validated_again(
    unchecked: TargetResponse, message: str
) -> None:
    # The trap: `isinstance` holds for a response no validator has seen, so a field may be
    # missing or of any type, and the gates would crash on it.
    with pytest.raises(TargetContractError) as caught:
        check_response(unchecked)
    assert str(caught.value) == f"target contract broken: {message}"


def test_a_checked_response_is_exactly_a_target_response() -> None:
    checked = check_response(_Extended.model_validate(GOOD))
    assert type(checked) is TargetResponse
    assert checked == TargetResponse.model_validate(GOOD)


def test_json_nested_too_deeply_is_a_contract_error() -> None:
    # The trap: the json module raises RecursionError, which is no contract error.
    for body in (b"[" * 100_000, b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"):
        with pytest.raises(TargetContractError, match=r"^response is nested too deeply"):
            parse_contract_body(body)


def test_a_number_too_long_to_read_is_a_contract_error() -> None:
    # The trap: int() refuses more than 4,300 digits with a ValueError, no JSONDecodeError.
    body = b'{"text": ' + b"9" * 5_000 + b"}"
    with pytest.raises(TargetContractError, match=r"^response holds a number too long to read"):
        parse_contract_body(body)


class _Unshowable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "got"),
    [
        (10**5_000, "<an integer of 16,610 bits>"),
        (_nested(100_000), "[[[[[[[...]]]]]]]"),
        ("\x1b[31m" + "a" * 100, r"'\x1b[31m" + "a" * 19 + "..." + "a" * 28 + "'"),
    ],
    ids=["too-long-to-print", "too-deep-to-print", "long-with-an-escape"],
)
def test_a_wrong_value_is_quoted_short_whatever_it_is(value: object, got: str) -> None:
    # The trap: repr() raises for an integer of more than 4,300 digits, and recurses.
    with pytest.raises(TargetContractError) as caught:
        check_response({**GOOD, "refused": value})
    assert str(caught.value) == (
        f"target contract broken: refused: input should be a valid boolean, got {got}"
    )


def test_a_value_whose_repr_raises_is_quoted_by_its_type() -> None:
    with pytest.raises(TargetContractError, match=r"text: .*, got <_Unshowable instance at 0x"):
        check_response({**GOOD, "text": _Unshowable()})


# ---------------------------------------------------------------- tool calls (optional)

CALL = {"id": "c1", "name": "lookup_hours", "arguments": {"facility": "central"}}


def test_tool_calls_left_out_are_not_reported_and_an_empty_list_is_no_call() -> None:
    left_out = check_response(dict(GOOD))
    assert left_out.tool_calls is None
    assert declared(left_out)[FieldName.TOOL_CALLS].origin is Origin.ABSENT
    none_made = check_response({**GOOD, "tool_calls": []})
    assert none_made.tool_calls == ()
    assert declared(none_made)[FieldName.TOOL_CALLS].origin is Origin.DECLARED


def test_a_reported_call_keeps_every_field_it_came_with() -> None:
    full = {
        **CALL,
        "output": {"opens": "9:00"},
        "error": None,
        "parent_ids": ["c0"],
        "latency_ms": 12.5,
        "step": 0,
    }
    (call,) = check_response({**GOOD, "tool_calls": [full]}).tool_calls or ()
    assert call.model_dump() == {**full, "parent_ids": ("c0",)}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({**CALL, "arguments": '{"facility": "central"}'}, "tool_calls.0.arguments: input should"),
        ({**CALL, "arguments": [1]}, "tool_calls.0.arguments: input should be a valid dictionary"),
        ({"name": "x", "arguments": {}}, "tool_calls.0.id: missing"),
        (
            {**CALL, "arguments": {"n": float("nan")}},
            "tool_calls.0.arguments: holds NaN or an infinity, which JSON cannot write",
        ),
        ({**CALL, "output": [float("-inf")]}, "tool_calls.0.output: holds NaN or an infinity"),
        ({**CALL, "arguments": {"s": {1, 2}}}, "tool_calls.0.arguments.s"),
        ({**CALL, "step": -1}, "tool_calls.0.step: input should be greater than or equal to 0"),
        ({**CALL, "latency_ms": float("inf")}, "tool_calls.0.latency_ms"),
        ({**CALL, "extra": 1}, "tool_calls.0.extra: not a field of the contract"),
    ],
)
def test_a_wrong_tool_call_is_named_by_its_place(call: dict[str, object], message: str) -> None:
    # A Python target can put anything in a mapping: only JSON, in the contract's shape, passes.
    with pytest.raises(TargetContractError, match=re.escape(message)):
        check_response({**GOOD, "tool_calls": [call]})


def test_two_calls_with_one_id_are_refused() -> None:
    with pytest.raises(TargetContractError, match="tool_calls: repeated call id 'c1'"):
        check_response({**GOOD, "tool_calls": [CALL, {**CALL, "name": "other"}]})
