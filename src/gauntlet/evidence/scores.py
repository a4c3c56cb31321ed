"""How a gate's trajectory scores are spread over its asks: the figures a reviewer reads. Pure.

A gate that reads tool calls scores each ask it graded (`Trial.scores`): tool accuracy and,
when the case asks for them, faithfulness and similarity (`min_similarity`: the final answer's
similarity to `expected` by the run's embedder). A pass rate says how many cases met their
thresholds; these figures say how close the agent came, which a threshold hides: a gate can
pass every case at 0.8 or at 1.0, and fail one case at 0.79 or at 0.

Each score is summarised over the asks that have it by five figures, chosen for what a
reviewer must decide from them:

- `measured`: how many asks the figures rest on. A mean of three asks says little, and the
  reader must see that before the mean.
- `min`: the worst ask. A gate fails on its worst case, and a reviewer asks "how bad can it
  get"; the minimum answers that directly.
- `median`: the typical ask, unmoved by one outlier either way.
- `mean`: the figure drift compares with the baseline (see `gauntlet.evidence.drift`): it moves
  with every ask, so a slow slide shows in it before any case fails.
- `perfect`: the share of asks at exactly 1.0, the agent did the whole task as specified. Mean
  and median cannot tell "every ask a little off" from "most asks perfect, a few far off"; the
  share at 1.0 beside the minimum can.

No standard deviation or percentiles beyond the median: a suite holds tens of cases, not
thousands, and with so few asks the minimum and the share at 1.0 are what the spread means.
Every figure is per gate and per language (the languages are peers: a good English mean must
not hide a poor Korean one), rounded to 4 places as the pack's other rates are.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Literal

from gauntlet.cases.model import GateName
from gauntlet.languages import in_column_order
from gauntlet.record import Record
from gauntlet.run.results import CaseResult, Results

ScoreName = Literal["tool_accuracy", "faithfulness", "similarity"]
"""A score a gate that reads tool calls measures of an ask."""

SCORE_NAMES: tuple[ScoreName, ...] = ("tool_accuracy", "faithfulness", "similarity")


class Distribution(Record):
    """One score over the asks that have it (see the module's docstring for why these)."""

    measured: int
    """Asks with this score: the figures below rest on these alone."""
    min: float
    """The worst ask."""
    median: float
    """The typical ask."""
    mean: float
    """What drift compares with the baseline."""
    perfect: float
    """The share of asks at exactly 1.0."""


class ScoreDistributions(Record):
    """A gate's scores over its asks, in one language or in all."""

    language: str | None
    """None for every language together."""
    asks: int
    """The gate's asks in this language, scored or not (errored, unjudged and unreported calls
    have no score): `measured` of each score is out of these."""
    tool_accuracy: Distribution | None
    """None when no ask has it."""
    faithfulness: Distribution | None
    """None when no ask has it (a case states `min_faithfulness` to have it measured)."""
    similarity: Distribution | None = None
    """None when no ask has it (a case states `min_similarity` to have it measured)."""

    def figures(self, score: ScoreName) -> Distribution | None:
        """The figures of `score`."""
        figures: Distribution | None = getattr(self, score)
        return figures


def distribution(values: Sequence[float]) -> Distribution | None:
    """The figures of `values`, rounded; None for no values."""
    if not values:
        return None
    return Distribution(
        measured=len(values),
        min=round(min(values), 4),
        median=round(statistics.median(values), 4),
        mean=round(statistics.fmean(values), 4),
        perfect=round(sum(1 for value in values if value == 1.0) / len(values), 4),
    )


def score_values(cases: Iterable[CaseResult], score: ScoreName) -> list[float]:
    """Every ask's `score`, over `cases`, where the ask has it."""
    values: list[float] = []
    for case in cases:
        for trial in case.trials:
            value = getattr(trial.scores, score) if trial.scores is not None else None
            if value is not None:
                values.append(value)
    return values


def gate_distributions(results: Results, gate: GateName) -> tuple[ScoreDistributions, ...]:
    """The gate's scores over every language, then over each; empty when it measured none."""
    mine = [case for case in results.cases if case.gate is gate]
    languages = in_column_order({case.language for case in mine})
    rows = tuple(
        _row(language, [c for c in mine if language is None or c.language == language])
        for language in (None, *languages)
    )
    if rows and all(rows[0].figures(score) is None for score in SCORE_NAMES):
        return ()
    return rows


def _row(language: str | None, cases: list[CaseResult]) -> ScoreDistributions:
    return ScoreDistributions(
        language=language,
        asks=sum(len(case.trials) for case in cases),
        tool_accuracy=distribution(score_values(cases, "tool_accuracy")),
        faithfulness=distribution(score_values(cases, "faithfulness")),
        similarity=distribution(score_values(cases, "similarity")),
    )
