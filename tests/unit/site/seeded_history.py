"""A seeded run history and stand-in statistics, to build and check the dashboard with.

The real statistics live in `gauntlet.history.stats`; these stand-ins give the same shapes
with simple, known numbers (a z-score against the runs before, flagged at -1.5, or at +1.5
for latency and tokens), so the dashboard is tested as a renderer of whatever they return.

Run as `python -m tests.unit.site.seeded_history OUT` to write the whole site with the
dashboard into OUT, for `node site-tools/check-pages.mjs OUT`.
"""

from __future__ import annotations

import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gauntlet.evidence.trends import Family
from gauntlet.history import stats
from gauntlet.history.records import (
    CaseRecord,
    FlakyCase,
    History,
    Point,
    RegressedCase,
    RunRecord,
    Trend,
)
from gauntlet.site.dashboard import Dashboard, gather_dashboard

GATES = ("adversarial", "grounding", "refusal")
LANGUAGES = ("en", "es")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def make_run(
    number: int, *, verdict: str = "pass", labels: dict[str, str] | None = None
) -> RunRecord:
    """A run of the toy, a day after the one before."""
    started = START + timedelta(days=number - 1)
    return RunRecord(
        key=f"run{number:04d}",
        number=number,
        started_at=started,
        finished_at=started + timedelta(seconds=42),
        gauntlet_version="0.1.0",
        target_kind="toy",
        target_name="riverbend",
        target_fingerprint="f" * 64,
        plan_digest="p" * 64,
        suites=(("grounding-basics", 1), ("refusal-basics", 2)),
        results_digest=f"{number:064x}",
        verdict=verdict,
        labels=labels
        if labels is not None
        else {"branch": "main", "commit": f"c0ffee{number:02d}"},
    )


def seeded_history(count: int = 14) -> History:
    """Healthy runs, then Spanish grounding answers drifting under `--repeat`, then a defect.

    Runs 1-8 pass everything; from run 9 `gnd-es-2` passes 2 of 3 asks (flaky); the last run
    fails every Spanish grounding case, and its latency and tokens jump. From run 5 the
    grounding answers are streamed (a time to first token per ask); the other gates' never are.
    """
    runs: list[RunRecord] = []
    cases: list[CaseRecord] = []
    for number in range(1, count + 1):
        broken = number == count
        drifting = number >= 9
        run = make_run(number, verdict="fail" if broken else "pass")
        runs.append(run)
        for gate in GATES:
            for language in LANGUAGES:
                for index in (1, 2):
                    case_id = f"{gate[:3]}-{language}-{index}"
                    passes, repeats = 3, 3
                    if gate == "grounding" and language == "es":
                        if broken:
                            passes = 0
                        elif drifting and index == 2:
                            passes = 2 if number % 2 else 3
                    outcome = "passed" if passes == repeats else "failed"
                    cases.append(
                        CaseRecord(
                            run_key=run.key,
                            suite=f"{gate}-basics",
                            gate=gate,
                            case_id=case_id,
                            language=language,
                            outcome=outcome,
                            passes=passes,
                            repeats=repeats,
                            latency_ms=(900.0 if broken else 100.0 + 5 * (number % 3)) + index,
                            tokens=None if number == 2 else (400 if broken else 120 + number % 2),
                            first_token_ms=tuple(
                                30.0 + 4 * (number % 3) + 10 * ask + index for ask in range(repeats)
                            )
                            if gate == "grounding" and number >= 5
                            else (),
                        )
                    )
    return History(runs=tuple(runs), cases=tuple(cases))


class FakeStats:
    """Stand-ins for `gauntlet.history.stats`, with the same names and shapes."""

    def series(
        self,
        history: History,
        *,
        metric: str = "pass_rate",
        gate: str | None = None,
        language: str | None = None,
        suite: str | None = None,
        window: int = 30,
        threshold: float = -1.5,
    ) -> tuple[Point, ...]:
        values: list[float | None] = []
        points: list[Point] = []
        for run in history.runs:
            cases = [
                c
                for c in history.cases
                if c.run_key == run.key
                and (gate is None or c.gate == gate)
                and (language is None or c.language == language)
                and (suite is None or c.suite == suite)
            ]
            value = _metric(metric, cases)
            trend = _trend(metric, gate, language, suite, value, values[-window:], threshold)
            points.append(Point(run=run, value=value, trend=trend))
            values.append(value)
        return tuple(points)

    def flaky_cases(self, history: History) -> tuple[FlakyCase, ...]:
        # The rule itself, not a stand-in: the dashboard must list what the statistics call
        # flaky, and a copy of the rule here could drift from it.
        return stats.flaky_cases(history)

    def regressed_cases(self, history: History) -> tuple[RegressedCase, ...]:
        return stats.regressed_cases(history)

    def trends(self, history: History, run_key: str) -> tuple[Trend, ...]:
        upto = next(i for i, run in enumerate(history.runs) if run.key == run_key) + 1
        earlier = History(runs=history.runs[:upto], cases=history.cases)
        found = [
            self.series(earlier, metric=metric)[-1].trend
            for metric in ("latency_p50_ms", "latency_p95_ms", "tokens_per_case")
        ]
        found.extend(
            self.series(earlier, metric="pass_rate", gate=gate, language=language)[-1].trend
            for gate in sorted({c.gate for c in history.cases})
            for language in sorted({c.language for c in history.cases})
        )
        return tuple(found)


def _metric(metric: str, cases: list[CaseRecord]) -> float | None:
    if not cases:
        return None
    if metric == "pass_rate":
        return sum(c.passes for c in cases) / sum(c.repeats for c in cases)
    if metric == "tokens_per_case":
        tokens = [c.tokens for c in cases]
        return None if None in tokens else sum(t or 0 for t in tokens) / len(tokens)
    if metric.startswith("first_token_"):
        firsts = sorted(first for c in cases for first in c.first_token_ms)
        if not firsts:
            return None
        share = 0.5 if metric == "first_token_p50_ms" else 0.95
        return firsts[min(len(firsts) - 1, round(share * (len(firsts) - 1)))]
    latencies = sorted(c.latency_ms for c in cases if c.latency_ms is not None)
    if not latencies:
        return None
    if metric == "latency_p50_ms":
        return statistics.median(latencies)
    return latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]


def _trend(
    metric: str,
    gate: str | None,
    language: str | None,
    suite: str | None,
    value: float | None,
    before: list[float | None],
    threshold: float,
) -> Trend:
    history = tuple(v for v in before if v is not None)
    family = (
        Family.COST
        if metric != "pass_rate"
        else Family.SAFETY
        if gate in ("adversarial", "refusal")
        else Family.COMPETENCE
    )
    worse = -1.0 if metric == "pass_rate" else 1.0  # a drop in pass rate, a rise in cost
    mean = statistics.fmean(history) if history else None
    stdev = statistics.pstdev(history) if len(history) >= 2 else None
    z = None
    if value is None or len(history) < 3 or mean is None:
        flagged, rule = False, f"not enough history: {len(history)} comparable runs, 3 needed"
    elif not stdev:
        flagged = (value - mean) * worse > 0
        rule = f"flat history: {'below' if worse < 0 else 'above'} its mean {mean:g}"
    else:
        z = (value - mean) / stdev
        flagged = z * -worse <= threshold
        rule = f"z <= {threshold} over {len(history)} comparable runs"
    return Trend(
        metric=metric,
        family=family,
        gate=gate,
        language=language,
        suite=suite,
        current=value,
        history=history,
        mean=mean,
        stdev=stdev,
        z=z,
        flagged=flagged,
        rule=rule,
    )


def seeded_dashboard(count: int = 14) -> Dashboard:
    """The dashboard of `seeded_history(count)` through the stand-in statistics."""
    return gather_dashboard(seeded_history(count), FakeStats())


def main(argv: list[str]) -> int:
    """Write the whole site with the seeded dashboard into the directory given."""
    from gauntlet.site.build import build_site

    out = Path(argv[0] if argv else "build/site-dashboard")
    written = build_site(out, dashboard=seeded_dashboard())
    sys.stdout.write(f"wrote {len(written)} files to {out}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
