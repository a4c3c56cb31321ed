"""The value every gate returns: passed or failed, with every reason at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NamedTuple

from pydantic import Field

from gauntlet.record import Record
from gauntlet.targets.contract import TargetResponse

Score = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class TrajectoryScores(Record):
    """What a gate that reads the trajectory measured of one answer, for the evidence pack."""

    tool_accuracy: Score | None = None
    """1 - edit distance / longer length over the expected and made calls; None when the
    case states no expected calls to compare with (an adversarial case's `forbid_calls`)."""
    faithfulness: Score | None = None
    """The share of the answer's claims a tool's output or the context supports; None when the
    case does not ask for it."""
    departed_at: Annotated[int, Field(ge=0)] | None = None
    """The step (from 0) where the trajectory first went wrong; None when no call check failed."""
    similarity: Annotated[float, Field(ge=-1.0, le=1.0, allow_inf_nan=False)] | None = None
    """The final answer's similarity to `expected` by the run's embedder (`min_similarity`);
    None when the case does not ask for it or the embedder was not asked. Measured after the
    gate passed (`gauntlet.run.after_gate`), never by the gate itself."""


class Judgement(NamedTuple):
    """A gate's verdict on one response, with the reasons it failed."""

    passed: bool
    reasons: tuple[str, ...] = ()
    """One plain sentence per problem found, every problem at once; empty when passed."""
    scores: TrajectoryScores | None = None
    """What a gate that reads tool calls measured; None for the others."""

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
