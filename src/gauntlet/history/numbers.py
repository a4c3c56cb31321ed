"""The range of every number a run history holds: decided here, kept on writing and on reading.

A history's numbers come from a results file (which a person or a target can steer) and go
into SQLite (whose integers are 64-bit) and into the statistics (whose means and deviations are
floats). Each range below is wide enough for any real run and narrow enough that nothing
computed from values inside it overflows, or comes out infinite or not a number:

| number | range | outside it, on writing |
|---|---|---|
| tokens, of one ask or one case | 0 to `MAX_TOKENS` | stored as not reported (None) |
| latency, of one ask or one case (ms) | 0 to `MAX_LATENCY_MS`, finite | refused |
| time to first token, of one streamed ask (ms) | 0 to `MAX_LATENCY_MS`, finite | refused |
| asks of a case, and passes | 1 to `MAX_REPEAT`; 0 to the asks | refused |
| a case's place in the plan, a suite's version, a shard | 0 (1) to `MAX_INTEGER` | refused |
| start and finish | `EARLIEST` to `LATEST` (UTC) | refused |

Tokens are the target's own report: gauntlet cannot check them, and a count no model could
have spent (2**63, or below zero) says nothing about cost. The run really happened, so it is
kept, and its tokens are what they honestly are: not reported (the results file still holds
the claim). Every other number is gauntlet's own measurement or bookkeeping; outside its range
it was written by something other than gauntlet, so the run is refused, worded, and nothing is
stored. On reading, any stored number outside its range is a damaged history (located, exit 2).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from gauntlet.defaults import MAX_REPEAT

MAX_TOKENS = 10**15
"""The most tokens one ask or one case may report: a thousand million million, far past any
model's spend, while a sum over every case and ask of a run stays below 2**63 and a mean and
deviation over them stay finite."""
MAX_LATENCY_MS = 7 * 24 * 60 * 60 * 1000.0
"""The longest latency stored, in milliseconds: a week, longer than any ask waits."""
MAX_INTEGER = 2**31 - 1
"""The largest case index, suite version or shard number stored."""
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
"""The earliest start or finish stored."""
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
"""The latest start or finish stored: times are written with a four-digit year."""

__all__ = [
    "EARLIEST",
    "LATEST",
    "MAX_INTEGER",
    "MAX_LATENCY_MS",
    "MAX_REPEAT",
    "MAX_TOKENS",
    "first_token_problem",
    "integer_problem",
    "latency_problem",
    "time_problem",
    "tokens_or_none",
    "tokens_problem",
]


def tokens_or_none(count: int | None) -> int | None:
    """A target's token count as the history keeps it: None (not reported) when out of range."""
    if count is None or isinstance(count, bool) or not 0 <= count <= MAX_TOKENS:
        return None
    return count


def tokens_problem(value: object) -> str | None:
    """Why a stored token count is out of range; None when it is a count in range."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"{value!r} is not a count"
    if value > MAX_TOKENS:
        return f"{value} is out of range: a count of tokens is between 0 and {MAX_TOKENS}"
    return None


def latency_problem(value: object) -> str | None:
    """Why a latency is out of range (not a finite number of ms in range); None when it is in."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{value!r} is not a number of milliseconds"
    if not (math.isfinite(value) and 0 <= value <= MAX_LATENCY_MS):
        return (
            f"{value!r} is out of range: a latency is between 0 and {MAX_LATENCY_MS:.0f} ms "
            "(a week)"
        )
    return None


def first_token_problem(value: object) -> str | None:
    """Why a time to first token is out of range (a latency's range); None when in it or None.

    It is gauntlet's own measurement of a streamed answer, as a latency is, so it is held to
    the same range (0 to a week, finite); None is an ask that did not stream (not reported).
    """
    if value is None:
        return None
    problem = latency_problem(value)
    return None if problem is None else problem.replace("a latency is", "a time to first token is")


def integer_problem(value: object, low: int, high: int = MAX_INTEGER) -> str | None:
    """Why an integer is out of range `low` to `high`; None when it is in range."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{value!r} is not a whole number"
    if not low <= value <= high:
        return f"{value} is out of range: it is between {low} and {high}"
    return None


def time_problem(moment: datetime) -> str | None:
    """Why a time cannot be stored (outside `EARLIEST` to `LATEST` in UTC); None when it can."""
    try:
        utc = moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc <= LATEST:
        return (
            f"{moment.isoformat()} is out of range: a time is between "
            f"{EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC)"
        )
    return None
