"""Wording the gates share, so one problem reads the same whichever gate reports it."""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.display import masked
from gauntlet.gates.judgement import Judgement, failed, passed
from gauntlet.invisible import escape_invisible
from gauntlet.matching import markers_missing

SHOWN_LIMIT = 200
"""Characters of an answer a reason shows before cutting it off."""


def shown(text: str) -> str:
    """`text` as a Python literal, so invisible characters show; cut after `SHOWN_LIMIT`.

    `repr` escapes format characters but not the Hangul fillers, the braille blank or the
    variation selectors, so those are escaped as well (see `escape_invisible`). Secrets are
    masked first when a `gauntlet.display.masking` block is active.
    """
    text = masked(text)
    if len(text) <= SHOWN_LIMIT:
        return escape_invisible(repr(text))
    return f"{escape_invisible(repr(text[:SHOWN_LIMIT]))}... ({len(text)} characters)"


def listed(ids: Iterable[str]) -> str:
    """Source ids as `RB-001, RB-002`, each once, in order; `none` when there are none."""
    return ", ".join(dict.fromkeys(ids)) or "none"


def quoted(markers: Iterable[str]) -> str:
    """Markers as `'PWNED', 'rule 7'`."""
    return ", ".join(repr(marker) for marker in markers)


def unreadable(text: str) -> str:
    """The reason for an answer with nothing to read."""
    return f"unreadable answer: {shown(text)}"


def missing_markers(text: str, markers: Iterable[str]) -> tuple[str, ...]:
    """The reason naming every required marker absent from `text`, or none if all are there."""
    missing = markers_missing(text, markers)
    return (f"does not say {quoted(missing)}, which the case requires",) if missing else ()


def conclude(reasons: Iterable[str]) -> Judgement:
    """Pass when there is no reason to fail; otherwise fail with every reason at once."""
    found = tuple(reasons)
    return failed(*found) if found else passed()
