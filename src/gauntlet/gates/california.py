"""The record of a California document item a gate's outcome informs, and the documents cited.

Each gate's `SPEC` names the rows it informs; `gauntlet.evidence.mapping` gathers them into the
mapping every evidence pack carries, and refuses a row that cites what was not verified.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, assert_never

from pydantic import Field

from gauntlet.record import Record

SIMM_5305_F = "SIMM 5305-F"
SCM_2305_3 = "SCM Vol. 2, 2305.3"
SAM_4986_12 = "SAM 4986.12"
SAM_4986_10 = "SAM 4986.10"

Text = Annotated[str, Field(min_length=1, pattern=r"\S")]


class Verification(StrEnum):
    """How a mapping row's locator was checked. Nothing unverified is ever a row."""

    READ = "read"
    """Checked against a stored copy of the official page; its source names the address."""
    SECONDHAND = "secondhand"
    """The SIMM 5305-F structure as a public implementation reported it; not re-read here."""

    @property
    def meaning(self) -> str:
        """What the status means, in a sentence a reviewer can read."""
        match self:
            case Verification.READ:
                return "checked against a stored copy of the official page (address given)."
            case Verification.SECONDHAND:
                return (
                    "the structure of SIMM 5305-F (August 2025 revision, 28 pages) as reported "
                    "by a public implementation that says it read the PDF page by page on "
                    "2026-08-07. This project could not re-read the PDF."
                )
            case _:  # pragma: no cover
                assert_never(self)


class MappingRow(Record):
    """One item of a California document that a gate's outcome informs."""

    document: Text
    """The document cited, e.g. `SIMM 5305-F`, `SCM Vol. 2, 2305.3`, `SAM 4986.12`."""
    item: Text
    """Where in the document, by the document's own structure (SIMM 5305-F has no control ids)."""
    informs: Text
    """One plain sentence: what the outcome informs there."""
    verification: Verification
    """How the locator was checked: `read` or `secondhand`."""


def simm(item: str, informs: str) -> MappingRow:
    """A row of SIMM 5305-F, whose structure is known secondhand."""
    return MappingRow(
        document=SIMM_5305_F, item=item, informs=informs, verification=Verification.SECONDHAND
    )


__all__ = [
    "SAM_4986_10",
    "SAM_4986_12",
    "SCM_2305_3",
    "SIMM_5305_F",
    "MappingRow",
    "Text",
    "Verification",
    "simm",
]
