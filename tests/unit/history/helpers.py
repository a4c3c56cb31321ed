"""Results to store: the evidence fixtures, made once, and copies started at other times."""

from __future__ import annotations

from datetime import timedelta
from functools import cache

from gauntlet.run.results import Results
from gauntlet.targets.toy import ToyDefect
from tests import evidence_fixtures


@cache
def clean() -> Results:
    """The healthy toy on every built-in suite."""
    return evidence_fixtures.clean()


@cache
def drifting() -> Results:
    """The toy with `answer_drift`: its golden cases fail."""
    return evidence_fixtures.with_defect(ToyDefect.ANSWER_DRIFT)


@cache
def interrupted() -> Results:
    """The healthy toy, interrupted after 30 cases: its verdict withheld."""
    return evidence_fixtures.incomplete()


def later(results: Results, minutes: int, *, run_id: str | None = None) -> Results:
    """`results` as if started `minutes` later (and given `run_id`)."""
    shift = timedelta(minutes=minutes)
    return results.model_copy(
        update={
            "started_at": results.started_at + shift,
            "finished_at": results.finished_at + shift,
            "run_id": run_id,
        }
    )
