"""Wording the gates share, so one problem reads the same whichever gate reports it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from gauntlet.gates.judgement import Judgement, failed, passed
from gauntlet.gates.matching import markers_missing
from gauntlet.invisible import escape_invisible

SHOWN_LIMIT = 200
"""Characters of an answer a reason shows before cutting it off."""


_MASK: ContextVar[Callable[[str], str] | None] = ContextVar("gauntlet_shown_mask", default=None)


@contextmanager
def masking(mask: Callable[[str], str]) -> Iterator[None]:
    """Within the block, `shown` masks secrets in an answer before cutting it short.

    Gates judge the answer as it came (a leaked secret must still fail a case); their reasons
    quote it, and a secret cut in half by `SHOWN_LIMIT` could not be masked afterwards.
    """
    token = _MASK.set(mask)
    try:
        yield
    finally:
        _MASK.reset(token)


def shown(text: str) -> str:
    """`text` as a Python literal, so invisible characters show; cut after `SHOWN_LIMIT`.

    `repr` escapes format characters but not the Hangul fillers, the braille blank or the
    variation selectors, so those are escaped as well (see `escape_invisible`). Secrets are
    masked first when a `masking` block is active.
    """
    mask = _MASK.get()
    if mask is not None:
        text = mask(text)
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
