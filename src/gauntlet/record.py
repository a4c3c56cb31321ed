"""The base of gauntlet's records, and the one-line text they hold.

A record is a frozen pydantic model that refuses unknown keys and keeps each field's
docstring as its schema description; a strict record also refuses to convert a value to the
type a field wants. A leaf: every layer's records derive from one of the two.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from gauntlet.display import printable


class Record(BaseModel):
    """A frozen record that refuses unknown keys."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, defer_build=True
    )


class StrictRecord(Record):
    """A record that also refuses to convert: `"1"` is no int here, nor `1` a string.

    For what people write by hand (case files, waivers, labels), where a converted value
    would hide a typo; records gauntlet writes and reads back derive from `Record`.
    """

    model_config = ConfigDict(strict=True)


def _one_line(text: str) -> str:
    if printable(text) != text:
        raise ValueError(
            "holds a line break or control character; gauntlet writes reasons on one line"
        )
    return text


Reason = Annotated[str, AfterValidator(_one_line)]
"""A reason as gauntlet writes it: one line, every control character escaped."""
