"""Property tests: whatever a target answers, the contract gives a response or its own error."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.errors import TargetContractError
from gauntlet.targets.contract import TargetResponse, check_response
from gauntlet.targets.http import parse_contract_body

FIELDS = ["text", "citations", "context_ids", "refused", "escalated"]

# Every code point, lone surrogates included (hypothesis leaves them out by default), and the
# characters that have broken text handling before.
texts = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=()), max_size=12),
    st.sampled_from(["\ud800", "\udfff", "a\ud83d", "\x00", "\x1b[31m", "\u2028", "\ufeff", ""]),
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)


class _Unshowable:
    """What a callable may put in a field: an object that cannot even be shown."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__


def _too_long_to_print(sign: int) -> int:
    # Built when drawn: hypothesis cannot show a strategy holding such a number.
    return sign * 10**5_000


# A callable's values are Python's, not JSON's: an integer too long to print, any object.
python_scalars = st.one_of(
    json_scalars,
    st.builds(_too_long_to_print, st.sampled_from([1, -1])),
    st.builds(_Unshowable),
)


def _nested(scalars: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.one_of(st.sampled_from(FIELDS), texts), children, max_size=6),
        ),
        max_leaves=30,
    )


good_responses = st.fixed_dictionaries(
    {
        "text": texts,
        "citations": st.lists(texts, max_size=3),
        "context_ids": st.lists(texts, max_size=3),
        "refused": st.booleans(),
        "escalated": st.booleans(),
    }
)


def _contract_shaped(values: st.SearchStrategy[object]) -> st.SearchStrategy[dict[str, object]]:
    """A response of the right shape with up to three changes: a field set to anything,
    dropped, or a key added. A wholly random value almost never gets past the first check.
    """
    keys = st.one_of(st.sampled_from(FIELDS), texts)
    changes = st.lists(st.tuples(st.sampled_from(["set", "drop", "add"]), keys, values), max_size=3)

    def changed(good: dict[str, object], edits: list[tuple[str, str, object]]) -> dict[str, object]:
        shaped = dict(good)
        for edit, key, value in edits:
            if edit == "drop":
                shaped.pop(key, None)
            else:
                shaped[key] = value
        return shaped

    return st.builds(changed, good_responses, changes)


json_values = _nested(json_scalars)
python_mappings = _contract_shaped(_nested(python_scalars))

FRAGMENTS = [
    b"{", b"}", b"[", b"]", b":", b",", b" ", b'"text"', b'"citations"', b'"refused"',
    b'"a"', b'"\\ud800"', b'"\\udc00\\ud800"', b"true", b"null", b"0", b"-1e999", b"NaN",
    b"Infinity", b"9" * 5_000, b"[" * 5_000, b"\xff", b"\xed\xa0\x80", b"\xef\xbb\xbf",
]  # fmt: skip


def _serialised(value: object, ascii_only: bool) -> bytes:
    # Escaped (`\ud800`) or written raw, which no UTF-8 codec allows: both reach a target.
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    return text.encode("utf-8", errors="surrogatepass")


bodies = st.one_of(
    st.builds(_serialised, st.one_of(_contract_shaped(json_values), json_values), st.booleans()),
    st.lists(st.sampled_from(FRAGMENTS), max_size=12).map(b"".join),
    st.binary(max_size=64),
)


def _parsed_or_refused(body: bytes) -> None:
    try:
        response = parse_contract_body(body)
    except TargetContractError as exc:
        str(exc).encode()  # the reason is written to the results file
        return
    _check_response(response)


def _check_response(response: TargetResponse) -> None:
    assert type(response) is TargetResponse
    assert TargetResponse.model_validate_json(response.model_dump_json().encode()) == response


@given(bodies)
def test_any_body_is_a_response_or_a_contract_error(body: bytes) -> None:
    _parsed_or_refused(body)


@given(python_mappings)
def test_any_mapping_is_a_response_or_a_contract_error(value: dict[str, object]) -> None:
    try:
        response = check_response(value)
    except TargetContractError as exc:
        str(exc).encode()
        return
    _check_response(response)


@given(python_mappings)
def test_any_unvalidated_response_is_a_response_or_a_contract_error(
    value: dict[str, object],
) -> None:
    unchecked = TargetResponse.model_construct(**value)  # type: ignore[arg-type]
    try:
        response = check_response(unchecked)
    except TargetContractError as exc:
        str(exc).encode()
        return
    _check_response(response)
