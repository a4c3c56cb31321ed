"""Run histories built from results, for the Trends section's tests and golden files.

`records_of` is the store's, with every case's latency set when asked: the toy answers in
microseconds, so a history's latencies are written, not measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

from gauntlet.evidence.trends import TrendsEvidence
from gauntlet.history import store
from gauntlet.history.records import CaseRecord, History, RunRecord
from gauntlet.history.trends import report_trends
from gauntlet.run.results import Results
from gauntlet.targets.toy import ToyDefect

from . import evidence_fixtures as fx


def records_of(
    results: Results, labels: Mapping[str, str], *, latency: float | None = None
) -> tuple[RunRecord, tuple[CaseRecord, ...]]:
    """`results` as the store keeps them; every case's latency `latency` if given."""
    run, cases = store.records_of(results, labels)
    if latency is None:
        return run, cases
    return run, tuple(dataclasses.replace(case, latency_ms=latency) for case in cases)


def earlier(results: Results, hours: int) -> Results:
    """The same results, started `hours` earlier: another run that behaved the same."""
    shift = timedelta(hours=hours)
    return results.model_copy(
        update={
            "started_at": results.started_at - shift,
            "finished_at": results.finished_at - shift,
        }
    )


HISTORY_LATENCIES = (100.0, 104.0, 98.0, 102.0, 101.0, 99.0, 103.0, 100.0, 97.0, 101.0)
"""The healthy toy's runs in the seeded history: ten, each case answered in this many ms."""


def healthy_history(labels: Mapping[str, str] | None = None) -> History:
    """Ten runs of the healthy toy, an hour apart, ending an hour before the fixtures' start."""
    clean = fx.clean()
    runs: list[RunRecord] = []
    cases: list[CaseRecord] = []
    for hours, latency in zip(range(10, 0, -1), HISTORY_LATENCIES, strict=True):
        run, records = records_of(earlier(clean, hours), labels or {}, latency=latency)
        runs.append(run)
        cases += records
    return History(runs=tuple(runs), cases=tuple(cases))


def regressed() -> Results:
    """The toy dropping its citations: the run the seeded history judges."""
    return fx.with_defect(ToyDefect.DROP_CITATIONS)


def slow_records_of(
    results: Results, labels: Mapping[str, str]
) -> tuple[RunRecord, tuple[CaseRecord, ...]]:
    """`records_of` with every case answered in 130 ms: a latency rise over the history."""
    return records_of(results, labels, latency=130.0)


def regressed_trends() -> TrendsEvidence:
    """The Trends section of `regressed()` against `healthy_history()`, answered in 130 ms."""
    return report_trends(
        regressed(),
        Path("history.sqlite"),
        load_history=lambda path: healthy_history(),
        records_of=slow_records_of,
    )
