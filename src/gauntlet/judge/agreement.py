"""Agreement statistics: how far a judge's verdicts agree with people's, beyond chance.

Pure functions of paired labels, for the calibration a model judge must pass before its vote
counts. Observed agreement alone flatters a judge that always says the commoner label; Cohen's
kappa subtracts the agreement chance alone would give, and is undefined, never 1, when chance
explains every agreement.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from gauntlet.proportions import Z_95, wilson_bounds

Label = Literal["pass", "fail"]
"""A verdict on one criterion, by the judge or by a person."""

JudgeLabel = Literal["pass", "fail", "unjudged"]
"""What a judge said of one criterion: a verdict, or none that could be read (`unjudged`)."""

UNJUDGED: Literal["unjudged"] = "unjudged"

Preference = Literal["A", "B", "tie"]
"""A pairwise verdict: the text shown first (A) is better, the one shown second (B), or neither."""

LABELS: tuple[Label, ...] = ("pass", "fail")
PREFERENCES: tuple[Preference, ...] = ("A", "B", "tie")

ONE_LABEL_ONLY = "every label is the same, so chance explains all agreement"
"""Why kappa is undefined when both raters gave one and the same label to every item."""


@dataclass(frozen=True)
class Agreement:
    """How far two raters agree on pass/fail labels, and how much of that chance explains."""

    n: int
    """The number of labelled items."""
    observed: float
    """p_o: the share of items both raters labelled alike."""
    chance: float
    """p_e: the agreement expected if each rater labelled at random with its own pass rate."""
    kappa: float | None
    """Cohen's kappa, (p_o - p_e) / (1 - p_e); None when p_e is 1 (see `reason`)."""
    standard_error: float | None
    """The large-sample standard error of kappa, sqrt(p_o(1-p_o) / (n(1-p_e)²))."""
    low: float | None
    """Lower end of the 95% interval of kappa, at least -1 (see `agreement`)."""
    high: float | None
    """Upper end of the 95% interval of kappa, at most 1."""
    reason: str | None
    """Why kappa is undefined, or None when it is defined."""


def agreement(pairs: Sequence[tuple[JudgeLabel, Label]], z: float = Z_95) -> Agreement:
    """Observed and chance agreement and Cohen's kappa of `(judge, human)` label pairs.

    The judge rates in three categories, people in two: an `unjudged` pair stays in `n`, never
    agrees, and, since people never say `unjudged`, adds nothing to chance agreement
    (`p_e = p_judge(pass)·p_human(pass) + p_judge(fail)·p_human(fail)`). A judge that fails to
    answer is never flattered by leaving its silences out.

    The interval maps the Wilson interval of the observed agreement onto kappa, chance held
    fixed: `(p - p_e) / (1 - p_e)` at each end, clipped to [-1, 1]. Unlike `kappa ± z·SE`
    (whose large-sample SE is also given), it does not collapse to a point at perfect
    agreement: 90 agreements out of 90 still leave room below 1.

    Args:
        pairs: one `(judge_label, human_label)` per item.
        z: the normal quantile of the interval (95% two-sided by default).

    Returns:
        The figures, with kappa, its standard error and interval None when undefined.

    Raises:
        ValueError: when there are no pairs, or a label is none of the above.
    """
    if not pairs:
        raise ValueError("agreement needs at least one labelled pair; got none")
    for judge, human in pairs:
        if judge not in (*LABELS, UNJUDGED) or human not in LABELS:
            raise ValueError(
                "a judge says pass, fail or unjudged and a person pass or fail; got "
                f"({judge!r}, {human!r})"
            )
    n = len(pairs)
    agreed = sum(judge == human for judge, human in pairs)
    observed = Fraction(agreed, n)
    judges, humans = Counter(j for j, _ in pairs), Counter(h for _, h in pairs)
    chance = Fraction(judges["pass"] * humans["pass"] + judges["fail"] * humans["fail"], n * n)
    if chance == 1:
        return Agreement(n, float(observed), 1.0, None, None, None, None, ONE_LABEL_ONLY)
    kappa = (observed - chance) / (1 - chance)
    standard_error = math.sqrt(observed * (1 - observed) / (n * (1 - chance) ** 2))
    low, high = (
        min(1.0, max(-1.0, (bound - float(chance)) / (1 - float(chance))))
        for bound in wilson_bounds(agreed, n, z)
    )
    return Agreement(
        n=n,
        observed=float(observed),
        chance=float(chance),
        kappa=float(kappa),
        standard_error=standard_error,
        low=min(low, float(kappa)),  # the interval holds kappa, rounding error aside
        high=max(high, float(kappa)),
        reason=None,
    )


_UNSWAPPED: dict[Preference, Preference] = {"A": "B", "B": "A", "tie": "tie"}
"""A verdict given with the texts swapped, said of the texts in their first order."""


def position_consistency(verdicts: Sequence[tuple[Preference, Preference]]) -> float:
    """The share of pairwise items whose verdicts in both orders state the same preference.

    Each item was judged twice: first with its texts in order (A, B), then swapped (B, A), so
    "A" in the second verdict means the text that was B in the first. An item is consistent
    when, the swap undone, both verdicts prefer the same text or both call it a tie; a judge
    that always prefers whichever text it reads first is consistent on no item.

    Args:
        verdicts: one `(verdict_in_order_ab, verdict_in_order_ba)` per item, each "A", "B" or
            "tie" as the judge said it of the order it was shown.

    Returns:
        The consistent share, from 0 to 1.

    Raises:
        ValueError: when there are no items, or a verdict is not "A", "B" or "tie".
    """
    if not verdicts:
        raise ValueError("position consistency needs at least one item judged in both orders")
    for first, second in verdicts:
        if first not in PREFERENCES or second not in PREFERENCES:
            raise ValueError(f"a verdict is 'A', 'B' or 'tie'; got ({first!r}, {second!r})")
    consistent = sum(first == _UNSWAPPED[second] for first, second in verdicts)
    return consistent / len(verdicts)
