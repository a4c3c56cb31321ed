"""The base of gauntlet's records, and the one-line text they hold.

A record is a frozen pydantic model that refuses unknown keys and keeps each field's
docstring as its schema description. A leaf: every layer's records derive from it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from gauntlet.display import printable


class Record(BaseModel):
    """A frozen record that refuses unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _one_line(text: str) -> str:
    if printable(text) != text:
        raise ValueError(
            "holds a line break or control character; gauntlet writes reasons on one line"
        )
    return text


Reason = Annotated[str, AfterValidator(_one_line)]
"""A reason as gauntlet writes it: one line, every control character escaped."""
