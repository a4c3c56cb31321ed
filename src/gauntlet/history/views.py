"""What `gauntlet history list`, `show` and `trend` print, as pure functions of a `History`.

Plain lines with no colour and no width taken from a terminal, so a CI log shows what a
terminal does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gauntlet.display import printable
from gauntlet.errors import UsageError
from gauntlet.history.records import CaseRecord, History, RunRecord, Trend, no_verdict
from gauntlet.history.stats import series
from gauntlet.history.store import timestamp
from gauntlet.languages import in_column_order
from gauntlet.run.results import Totals
from gauntlet.text_columns import aligned
from gauntlet.words import plural


@dataclass(frozen=True)
class Counts:
    """Cases of one run (or one slice of it) by outcome, and their asks."""

    cases: int
    passed: int
    failed: int
    errored: int
    waived: int
    asks: int
    asks_passed: int

    @property
    def other(self) -> int:
        """Cases neither passed, failed, errored nor waived: not run or unjudged."""
        return self.cases - self.passed - self.failed - self.errored - self.waived

    @property
    def pass_rate(self) -> float | None:
        """Passed cases over the cases that count (waived ones left out, as a gate does)."""
        counted = self.cases - self.waived
        return self.passed / counted if counted else None


def counts(cases: Iterable[CaseRecord]) -> Counts:
    """Tally `cases`. Pure."""
    chosen = list(cases)
    totals = Totals.of(case.outcome for case in chosen)
    return Counts(
        cases=totals.total,
        passed=totals.passed,
        failed=totals.failed,
        errored=totals.errored,
        waived=totals.waived,
        asks=sum(case.repeats for case in chosen),
        asks_passed=sum(case.passes for case in chosen),
    )


def _cases_by_run(history: History) -> dict[str, list[CaseRecord]]:
    grouped: dict[str, list[CaseRecord]] = {run.key: [] for run in history.runs}
    for case in history.cases:
        grouped[case.run_key].append(case)
    return grouped


def _when(run: RunRecord) -> str:
    return timestamp(run.started_at)[:19].replace("T", " ") + "Z"


def _labels(run: RunRecord) -> str:
    return " ".join(f"{key}={value}" for key, value in run.labels.items()) or "-"


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def list_lines(history: History) -> list[str]:
    """One line per stored run, oldest first.

    Its number, start, verdict, target, cases passed and labels.
    """
    if not history.runs:
        return ["the history holds no runs yet"]
    grouped = _cases_by_run(history)
    rows = [["run", "started", "verdict", "target", "passed", "labels"]]
    for run in history.runs:
        tally = counts(grouped[run.key])
        rows.append(
            [
                str(run.number),
                _when(run),
                run.verdict.upper(),
                printable(f"{run.target_kind} {run.target_name}"),
                f"{tally.passed}/{tally.cases}",
                printable(_labels(run)),
            ]
        )
    return aligned(rows, right=(0, 4))


def pick_run(history: History, wanted: str) -> RunRecord:
    """The run `wanted` names: its number as `history list` shows it, or `latest`.

    Raises:
        UsageError: not a number or `latest`, or no run has that number.
    """
    if not history.runs:
        raise UsageError("the history holds no runs yet")
    if wanted == "latest":
        return history.runs[-1]
    if not wanted.isdecimal() or not 1 <= int(wanted) <= len(history.runs):
        raise UsageError(
            f"RUN {printable(wanted)!r}: expected a run number from 1 to {len(history.runs)} "
            "(as `gauntlet history list` shows them) or `latest`"
        )
    return history.runs[int(wanted) - 1]


def show_lines(history: History, run: RunRecord) -> list[str]:
    """A run's facts, then its cases counted per gate and language."""
    facts = [
        ["run", f"{run.number} of {len(history.runs)}"],
        ["key", run.key],
        ["started", timestamp(run.started_at)],
        ["finished", timestamp(run.finished_at)],
        ["gauntlet", run.gauntlet_version],
        ["target", f"{run.target_kind} {run.target_name}"],
        ["target fingerprint", run.target_fingerprint],
        ["plan digest", run.plan_digest],
        ["results digest", run.results_digest],
        ["verdict", run.verdict.upper()],
        ["labels", _labels(run)],
        ["suites", ", ".join(f"{name} v{version}" for name, version in run.suites)],
    ]
    lines = aligned([[name, printable(value)] for name, value in facts])
    cases = _cases_by_run(history)[run.key]
    slices: dict[tuple[str, str], list[CaseRecord]] = {}
    for case in cases:
        slices.setdefault((case.gate, case.language), []).append(case)
    rows = [["gate", "language", "cases", "passed", "failed", "errored", "other", "asks passed"]]
    column = {language: n for n, language in enumerate(in_column_order(c.language for c in cases))}
    for (gate, language), chosen in sorted(
        slices.items(), key=lambda item: (item[0][0], column[item[0][1]])
    ):
        tally = counts(chosen)
        rows.append(
            [
                gate,
                language,
                str(tally.cases),
                str(tally.passed),
                str(tally.failed),
                str(tally.errored),
                str(tally.waived + tally.other),
                f"{tally.asks_passed}/{tally.asks}",
            ]
        )
    return [*lines, "", *aligned(rows, right=range(2, 8))]


def trend_lines(
    history: History,
    *,
    gate: str | None = None,
    language: str | None = None,
    suite: str | None = None,
) -> list[str]:
    """The pass rate per comparable run, oldest first: runs of the newest run's plan.

    A run's pass rate is its passed cases over its cases in the slice (waived ones left
    out); `asks passed` counts each ask of a repeated case, so flakiness shows there first. A
    run that reached no verdict (withheld, unscoreable) has its verdict's word in place of a
    pass rate and is not judged.
    Each run is judged against the comparable runs before it by the statistics' z rule
    (`gauntlet.history.stats.series`): its z, and `FLAGGED` with the rule when it is a drop.

    Raises:
        UsageError: the history is empty, or no comparable run has a case in the slice.
    """
    if not history.runs:
        raise UsageError("the history holds no runs yet")
    newest = history.runs[-1]
    comparable = [run for run in history.runs if run.plan_digest == newest.plan_digest]
    grouped = _cases_by_run(history)

    def chosen(run: RunRecord) -> list[CaseRecord]:
        return [
            case
            for case in grouped[run.key]
            if (gate is None or case.gate == gate)
            and (language is None or case.language == language)
            and (suite is None or case.suite == suite)
        ]

    slice_name = _slice_name(gate, language, suite)
    if not any(chosen(run) for run in comparable):
        raise UsageError(
            f"no comparable run has a case of {printable(slice_name)}; "
            "`gauntlet history show latest` lists the gates and languages it holds"
        )
    left_out = len(history.runs) - len(comparable)
    head = (
        f"pass rate of {printable(slice_name)} over {plural(len(comparable), 'comparable run')} "
        f"(plan {newest.plan_digest[:19]}...)"
    )
    if left_out:
        head += f"; {plural(left_out, 'run')} of other plans left out"
    judged = {
        point.run.key: point.trend
        for point in series(history, metric="pass_rate", gate=gate, language=language, suite=suite)
    }
    rows = [list(_TREND_COLUMNS)]
    rows += [_trend_row(run, counts(chosen(run)), judged.get(run.key)) for run in comparable]
    return [head, *aligned(rows, right=(0, 3, 4, 5, 6, 7))]


_TREND_COLUMNS = (
    "run",
    "started",
    "verdict",
    "cases",
    "passed",
    "pass rate",
    "asks passed",
    "z",
    "trend",
    "labels",
)
"""The head of `trend_lines`' table, one column per cell of `_trend_row`."""


def _slice_name(gate: str | None, language: str | None, suite: str | None) -> str:
    """The slice as `trend_lines` names it: `gate grounding, language es`, or `every case`."""
    wanted = [
        f"{name} {value}"
        for name, value in (("gate", gate), ("language", language), ("suite", suite))
        if value is not None
    ]
    return ", ".join(wanted) or "every case"


def _trend_row(run: RunRecord, tally: Counts, trend: Trend | None) -> list[str]:
    """One run's row of `trend_lines`: its counts in the slice, and its z and judgement."""
    word = no_verdict(run)
    return [
        str(run.number),
        _when(run),
        run.verdict.upper(),
        str(tally.cases),
        str(tally.passed),
        _rate(tally.pass_rate) if word is None else word,
        f"{tally.asks_passed}/{tally.asks}",
        "" if trend is None or trend.z is None or word else f"{trend.z:+.2f}",
        _judgement(trend) if word is None else "no verdict: not judged",
        printable(_labels(run)),
    ]


def _judgement(trend: Trend | None) -> str:
    """`FLAGGED: <rule>` for a flagged drop, `ok` otherwise, the rule when history is short."""
    if trend is None:
        return ""
    if trend.flagged:
        return f"FLAGGED: {trend.rule}"
    return "ok" if trend.z is not None or trend.rule.startswith("flat") else trend.rule
