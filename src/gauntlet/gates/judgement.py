"""The value every gate returns: passed or failed, with every reason at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from gauntlet.targets.contract import TargetResponse


class Judgement(NamedTuple):
    """A gate's verdict on one response, with the reasons it failed."""

    passed: bool
    reasons: tuple[str, ...] = ()
    """One plain sentence per problem found, every problem at once; empty when passed."""

    @property
    def reason(self) -> str:
        """The reasons as one sentence-list, for reports."""
        return "; ".join(self.reasons)


def passed() -> Judgement:
    """A passing judgement."""
    return Judgement(True)


def failed(*reasons: str) -> Judgement:
    """A failing judgement; at least one reason is required."""
    if not reasons:
        raise ValueError("a failing judgement needs a reason")
    return Judgement(False, reasons)


Gate = Callable[[Any, TargetResponse], Judgement]
"""A gate: `(case of its gate, response) -> Judgement`. Pure: no I/O, no clock."""
