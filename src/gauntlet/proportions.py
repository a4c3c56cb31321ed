"""Proportions: Wilson intervals around a rate, and percentiles of a list of timings.

A leaf: it imports nothing of gauntlet, so the tally, the judge's calibration, the history and
the evidence pack share one formula.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

Z_95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


def wilson_interval(passed: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of `passed` out of `total` (0 to 1 when `total` is 0).

    Unlike the plain `p ± z·√(p(1-p)/n)`, it stays inside [0, 1] and does not collapse to a
    point at 12/12: twelve passes out of twelve still leave a lower bound near 76%. Rounded to
    six places, as the results write it; `wilson_bounds` gives it unrounded.
    """
    low, high = wilson_bounds(passed, total, z)
    return round(low, 6), round(high, 6)


def wilson_bounds(passed: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """`wilson_interval`, unrounded."""
    if total == 0:
        return 0.0, 1.0
    p = passed / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Iterable[float], share: float) -> float | None:
    """The `share` percentile (0 to 1) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * share
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
