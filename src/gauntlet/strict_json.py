"""Reading a target's JSON strictly: one meaning per document, or a contract error saying why.

Python's `json.loads` is lenient where a target's answer must not be: it keeps the last of two
equal keys, reads `NaN` and `Infinity`, turns `1e400` into infinity, guesses UTF-16 or UTF-32
from the bytes, reads an encoded surrogate, and raises `RecursionError` or a bare `ValueError`
on a document nested too deeply or a number too long. Here every one of those is a
`TargetContractError` whose message begins with what was being read ("response", "stream
chunk 3"), so a case's reason says which document broke and how.
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn

from gauntlet.display import clipped
from gauntlet.errors import TargetContractError

BOM = "\ufeff"
"""A byte order mark: one at the very start is ignored, as RFC 8259 allows a reader to."""

QUOTED = 60
"""The most of a document's start, or of a number, a message quotes."""


def loads(data: bytes | str, what: str = "response") -> Any:
    """Read `data` as one JSON document, strictly.

    Bytes must be UTF-8 (one leading byte order mark is ignored; UTF-16, UTF-32 and encoded
    surrogates are refused, though `json.loads` would read them). No key may appear twice in
    an object, `NaN` and `Infinity` are not JSON, and a number must fit: an integer of more
    than 4,300 digits cannot be read, and a float beyond a double's range would become
    infinity, which nothing downstream can write back.

    Args:
        data: The document: a body as received, or text already decoded (an SSE event's data).
        what: What the document is, to begin each message with: "response", "stream chunk 3".

    Returns:
        The document as Python values: dict, list, str, int, float, bool or None.

    Raises:
        TargetContractError: `data` is not such a document; the message says why and, for a
            syntax error, where, quoting the document's start (secrets masked first).
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TargetContractError(
                f"{what} is not UTF-8 JSON: {exc.reason} at byte {exc.start}"
            ) from None
    else:
        text = data
    document = text[len(BOM) :] if text.startswith(BOM) else text
    try:
        if document.startswith(BOM):  # a second one; json.loads says so, its decoder does not
            raise json.JSONDecodeError("Unexpected UTF-8 BOM", document, 0)
        return _DECODER.decode(document)
    except _Refused as exc:
        raise TargetContractError(f"{what} {exc.why}") from None
    except json.JSONDecodeError as exc:
        raise TargetContractError(
            f"{what} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
            f"(body starts {clipped(text, QUOTED)!r})"
        ) from None
    except RecursionError:  # the json module recurses once per array or object it opens
        raise TargetContractError(f"{what} is nested too deeply") from None
    except ValueError:  # int() refuses more than 4,300 digits; the json module raises no other
        raise TargetContractError(
            f"{what} holds a number too long to read (more than 4,300 digits)"
        ) from None


def json_kind(value: object) -> str:
    """What JSON calls `value`'s type: object, array, string, boolean, number or null.

    A value no JSON document could give (a tuple, a set, an object) is named by its Python
    type, so a message about it still says what was found.
    """
    match value:
        case dict():
            return "object"
        case list():
            return "array"
        case str():
            return "string"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case None:
            return "null"
        case _:
            return f"Python {type(value).__name__}"


class _Refused(Exception):
    """What a decoding hook refuses; `loads` says which document it was in."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"has the key {clipped(key, QUOTED)!r} twice")
        seen[key] = value
    return seen


def _no_constant(name: str) -> NoReturn:
    raise _Refused(f"holds {name}, which JSON does not allow")


def _finite(number: str) -> float:
    value = float(number)
    if math.isinf(value):
        raise _Refused(
            f"holds a number too large to read ({clipped(number, QUOTED)}): "
            "beyond a 64-bit float's range"
        )
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_float=_finite
)
"""One decoder for every document: building one per call cost more than a small chunk's
parse, and a stream reads twenty of those an answer."""
