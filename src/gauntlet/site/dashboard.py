"""The run-history dashboard: what it shows, gathered from a `History` and its statistics.

`gather_dashboard` is the one place that calls the statistics (`gauntlet.history.stats`, by
name, through whatever object carries `series`, `flaky_cases`, `regressed_cases` and
`trends`); everything else here is a pure function of what it returns. Charts are laid out in
Python as numbers and drawn by a Jinja2 SVG template, so the same history always gives the
same bytes.

Nothing drawn may read as a measurement it is not. A run that reached no verdict (withheld,
unscoreable: any verdict but pass or fail) has no value in any chart: it is drawn as a gap with
its word, and its table cell is that word. A chart with nothing to draw says so in a sentence
and draws no axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from markupsafe import Markup, escape

from gauntlet.errors import UsageError
from gauntlet.evidence.trends import Family
from gauntlet.history.records import (
    CaseRecord,
    FlakyCase,
    History,
    Point,
    RegressedCase,
    RunRecord,
    Trend,
    no_verdict,
)
from gauntlet.languages import in_column_order
from gauntlet.run.results import Totals
from gauntlet.words import noun

PASS_RATE = "pass_rate"  # noqa: S105 - a metric's name
LATENCY_P50 = "latency_p50_ms"
LATENCY_P95 = "latency_p95_ms"
TOKENS = "tokens_per_case"
FIRST_TOKEN_P50 = "first_token_p50_ms"  # noqa: S105 - a metric's name
FIRST_TOKEN_P95 = "first_token_p95_ms"  # noqa: S105 - a metric's name


# Chart geometry, in the SVG's own units: the viewBox is WIDTH x HEIGHT and scales to its box.
WIDTH = 480
HEIGHT = 220
LEFT = 64
RIGHT = 64
TOP = 16
BOTTOM = 44
STYLES = 3
"""Lines cycle through this many styles (a colour and a dash pattern each, `series-1`...)."""


class HistoryStats(Protocol):
    """What the dashboard needs from `gauntlet.history.stats`."""

    def series(
        self,
        history: History,
        *,
        metric: str = ...,
        gate: str | None = ...,
        language: str | None = ...,
    ) -> tuple[Point, ...]:
        """One metric per run, each judged against the runs before it."""
        ...

    def flaky_cases(self, history: History) -> tuple[FlakyCase, ...]:
        """Cases whose outcomes alternate across the asks of a run or across comparable runs."""
        ...

    def regressed_cases(self, history: History) -> tuple[RegressedCase, ...]:
        """Cases that passed, then failed every ask of every comparable run since."""
        ...

    def trends(self, history: History, run_key: str) -> tuple[Trend, ...]:
        """Every metric of one run against its comparable history."""
        ...


@dataclass(frozen=True)
class Series:
    """One line of a chart: one language's (or the whole run's) points, oldest first."""

    name: str
    """What the legend and the table's column call it: a language code, or `all cases`."""
    points: tuple[Point, ...]


@dataclass(frozen=True)
class ChartSpec:
    """One chart before layout: what it plots, and how its values read."""

    slug: str
    """Unique on the page: the ids of its title, description and table derive from it."""
    title: str
    unit: str
    """`%` for pass rates (values 0 to 1), `ms` or `tokens`."""
    series: tuple[Series, ...]
    missing: str = "no run has a value for it"
    """Why a run has no value, as the chart's no-data sentence ends: `no run ...`."""


@dataclass(frozen=True)
class RunCounts:
    """One run's cases counted: passed over all, and per gate and language."""

    passed: int
    total: int
    cells: dict[tuple[str, str], tuple[int, int]]
    """(gate, language) -> (passed, total)."""


@dataclass(frozen=True)
class RunView:
    """What the per-run table and a run's own page show."""

    run: RunRecord
    counts: RunCounts
    failing: tuple[CaseRecord, ...]
    flagged: tuple[Trend, ...]
    checked: int
    """How many trends were computed for this run (flagged or not)."""

    @property
    def no_verdict(self) -> str | None:
        """The run's verdict when it reached none (withheld, unscoreable): it is not judged."""
        return no_verdict(self.run)

    @property
    def file(self) -> str:
        """The run's page."""
        return f"run-{self.run.number}.html"


@dataclass(frozen=True)
class Dashboard:
    """Everything the dashboard and the run pages show."""

    runs: tuple[RunView, ...]
    gates: tuple[str, ...]
    languages: tuple[str, ...]
    pass_rates: tuple[ChartSpec, ...]
    """One chart per gate, a line per language."""
    latency: ChartSpec
    """p50 and p95 latency per run, over all cases."""
    tokens: ChartSpec
    flaky: tuple[FlakyCase, ...]
    """As the statistics rank them: the least consistent first (pass share nearest one half),
    then most trials."""
    regressions: tuple[RegressedCase, ...] = ()
    """Steady regressions (passed, then failed every run since): never listed as flaky."""
    first_token: tuple[ChartSpec, ...] = ()
    """One chart per gate: the median and p95 time to first token of its streamed answers,
    per run (the evidence pack's figures); a run that streamed none has no value."""


def load_dashboard(path: Path) -> Dashboard:
    """Read the run history at `path` with the store and gather the dashboard from it.

    Imported here, not at the top: only a site built with `--history` needs SQLite.

    Raises:
        UsageError: `path` is not a file.
        GauntletError: the store could not read the history (its own located error).
    """
    from gauntlet.history import stats
    from gauntlet.history.store import load_history

    if not path.is_file():
        raise UsageError(
            f"--history {path}: no such file; write one with `gauntlet run --history FILE` "
            "or `gauntlet history add RESULTS`"
        )
    return gather_dashboard(load_history(path), stats)


def gather_dashboard(history: History, stats: HistoryStats | Any) -> Dashboard:
    """Ask the statistics for every series the dashboard draws, and count each run's cases."""
    gates = tuple(sorted({case.gate for case in history.cases}))
    languages = tuple(in_column_order(case.language for case in history.cases))
    pass_rates = tuple(_pass_rate_chart(history, stats, gate, languages) for gate in gates)
    latency = ChartSpec(
        slug="latency",
        title="Latency per case: p50 and p95",
        unit="ms",
        missing="no run has an answered case to time",
        series=(
            Series("p50", tuple(stats.series(history, metric=LATENCY_P50))),
            Series("p95", tuple(stats.series(history, metric=LATENCY_P95))),
        ),
    )
    tokens = ChartSpec(
        slug="tokens",
        title="Tokens per case",
        unit="tokens",
        series=(Series("all cases", tuple(stats.series(history, metric=TOKENS))),),
        missing="no run reported tokens for every one of its cases",
    )
    first_token = tuple(_first_token_chart(history, stats, gate) for gate in gates)
    runs = tuple(
        run_view(history, run, tuple(stats.trends(history, run.key))) for run in history.runs
    )
    return Dashboard(
        runs=runs,
        gates=gates,
        languages=languages,
        pass_rates=pass_rates,
        latency=latency,
        tokens=tokens,
        flaky=tuple(stats.flaky_cases(history)),
        regressions=tuple(stats.regressed_cases(history)),
        first_token=first_token,
    )


def _pass_rate_chart(
    history: History, stats: HistoryStats | Any, gate: str, languages: Sequence[str]
) -> ChartSpec:
    """One gate's pass rate per run, a line for each language it has cases in."""
    return ChartSpec(
        slug=f"pass-{gate}",
        title=f"{gate}: pass rate per language",
        unit="%",
        missing="no run has a pass rate here",
        series=tuple(
            Series(
                language,
                tuple(stats.series(history, metric=PASS_RATE, gate=gate, language=language)),
            )
            for language in languages
            if any(c.gate == gate and c.language == language for c in history.cases)
        ),
    )


def _first_token_chart(history: History, stats: HistoryStats | Any, gate: str) -> ChartSpec:
    """One gate's time to first token per run: its median and p95."""
    return ChartSpec(
        slug=f"first-token-{gate}",
        title=f"{gate}: time to first token, median and p95",
        unit="ms",
        missing=f"no run streamed an answer of the {gate} gate",
        series=(
            Series("median", tuple(stats.series(history, metric=FIRST_TOKEN_P50, gate=gate))),
            Series("p95", tuple(stats.series(history, metric=FIRST_TOKEN_P95, gate=gate))),
        ),
    )


def run_view(history: History, run: RunRecord, trends: Sequence[Trend]) -> RunView:
    """One run's counts, failing cases and flagged trends.

    A run that reached no verdict has no trend: its passed share is not a pass rate to judge.
    """
    cases = [case for case in history.cases if case.run_key == run.key]
    if no_verdict(run) is not None:
        trends = ()
    return RunView(
        run=run,
        counts=count_cases(cases),
        failing=tuple(
            sorted(
                (case for case in cases if case.outcome != "passed"),
                key=lambda c: (c.gate, c.suite, c.case_id, c.language),
            )
        ),
        flagged=tuple(
            sorted(
                (trend for trend in trends if trend.flagged),
                key=lambda t: list(Family).index(t.family),
            )
        ),
        checked=len(trends),
    )


def count_cases(cases: Sequence[CaseRecord]) -> RunCounts:
    """Passed over the cases that count, overall and per gate and language.

    A waived failure is left out of both, as its gate leaves it out of the pass rate; a cell
    whose every case was waived is still shown, as 0/0.
    """
    cells = {
        key: (totals.passed, totals.total - totals.waived)
        for key, totals in Totals.by(cases, _gate_and_language).items()
    }
    return RunCounts(
        passed=sum(passed for passed, _ in cells.values()),
        total=sum(total for _, total in cells.values()),
        cells=cells,
    )


def _gate_and_language(case: CaseRecord) -> tuple[str, str]:
    return case.gate, case.language


# ---------------------------------------------------------------- chart layout


@dataclass(frozen=True)
class Mark:
    """One plotted value."""

    x: str
    y: str
    run: int
    value: str
    """The value as the table prints it."""
    flagged: bool


@dataclass(frozen=True)
class Line:
    """One series laid out: its path (gaps where a run has no value) and its marks."""

    name: str
    style: int
    """1 to `STYLES`: the CSS class `series-N` gives its colour and dash pattern."""
    path: str
    marks: tuple[Mark, ...]
    label_y: str
    """Where its name is written at the right end."""


@dataclass(frozen=True)
class Tick:
    """A gridline and its label."""

    at: str
    label: str


@dataclass(frozen=True)
class Gap:
    """A run drawn without a value because it reached no verdict: an upright line and its word."""

    x: str
    run: int
    word: str
    """The run's verdict, such as `withheld` or `unscoreable`."""
    label_x: str
    """Where the word is written, upright, beside the line."""


@dataclass(frozen=True)
class Chart:
    """A chart ready to draw: every coordinate already a string with fixed decimals."""

    spec: ChartSpec
    width: int
    height: int
    left: int
    right: str
    label_x: str
    """Where the lines' names are written, right of the plot."""
    top: int
    bottom: str
    lines: tuple[Line, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    gaps: tuple[Gap, ...]
    """The runs that reached no verdict, in run order."""
    empty_note: str
    """`Nothing to draw: ...` when no run has a value to draw (nothing else is drawn then),
    else empty."""
    flag_y: str
    """Where the line naming the flagged runs is written, under the run numbers."""
    flag_note: str
    """The flagged runs in words, per line: the markers' text label."""
    description: str
    rows: tuple[tuple[int, tuple[str, ...]], ...]
    """The data table: run number, then each series' value as printed (flagged noted)."""


def _coordinate(value: float) -> str:
    return f"{value:.1f}"


def format_value(value: float | None, unit: str) -> str:
    """A value as the chart's table prints it."""
    if value is None:
        return "no value"
    if unit == "%":
        return f"{value:.0%}" if round(value * 1000) % 10 == 0 else f"{value:.1%}"
    if unit == "ms":
        return f"{value:,.0f} ms"
    return f"{value:,.0f}"


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value` (and > 0)."""
    if value <= 0:
        return 1.0
    power = 1.0
    while power * 10 < value:
        power *= 10
    while power > value:
        power /= 10
    for step in (1, 2, 2.5, 5, 10):
        if power * step >= value:
            return power * step
    return power * 10  # pragma: no cover - the loop above always returns


def _gaps(spec: ChartSpec, runs: Sequence[int]) -> dict[int, str]:
    """The runs among `runs` that reached no verdict, with their word, in run order."""
    shown = set(runs)
    found = {
        p.run.number: word
        for s in spec.series
        for p in s.points
        if p.run.number in shown and (word := no_verdict(p.run)) is not None
    }
    return {number: found[number] for number in runs if number in found}


def _drawn(point: Point, shown: set[int]) -> bool:
    return point.run.number in shown and point.value is not None and no_verdict(point.run) is None


@dataclass(frozen=True)
class _Scale:
    """Where a chart puts a run (x) and a value (y): the plot's box and its two ranges."""

    position: dict[int, int]
    """Each shown run's number -> its place among the shown runs."""
    span: int
    """The places between the first shown run and the last (at least 1)."""
    top_value: float
    """The value drawn at the top of the plot."""
    plot_w: float = WIDTH - LEFT - RIGHT
    plot_h: float = HEIGHT - TOP - BOTTOM

    def x(self, number: int) -> float:
        return LEFT + self.plot_w * self.position[number] / self.span

    def y(self, value: float) -> float:
        return TOP + self.plot_h * (1 - min(max(value / self.top_value, 0.0), 1.0))


def layout_chart(spec: ChartSpec, runs: Sequence[int]) -> Chart:
    """Place every point: x by the run's position among `runs`, y from 0 to a round maximum.

    A run without a verdict gets no point (the line lifts over it) and a gap with its word; a
    chart with no point to draw gets its no-data sentence and nothing else.
    """
    shown = set(runs)
    gaps = _gaps(spec, runs)
    values = [
        p.value for s in spec.series for p in s.points if p.value is not None and _drawn(p, shown)
    ]
    if not values:
        return _empty_chart(spec, runs, gaps)
    top_value = 1.0 if spec.unit == "%" else nice_ceiling(max(values, default=0.0))
    position = {number: index for index, number in enumerate(runs)}
    scale = _Scale(position, max(len(runs) - 1, 1), top_value)
    plot_w, plot_h = scale.plot_w, scale.plot_h
    lines = [
        _line(index, series, scale, gaps, spec.unit) for index, series in enumerate(spec.series)
    ]
    _spread_labels(lines, TOP + 4, TOP + plot_h)
    y_ticks = tuple(
        Tick(_coordinate(scale.y(top_value * share)), format_value(top_value * share, spec.unit))
        for share in (0, 0.5, 1)
    )
    x_ticks = tuple(
        Tick(_coordinate(scale.x(number)), str(number)) for number in _x_tick_runs(list(runs))
    )
    return Chart(
        spec=spec,
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=_coordinate(LEFT + plot_w),
        label_x=_coordinate(LEFT + plot_w + 6),
        top=TOP,
        bottom=_coordinate(TOP + plot_h),
        lines=tuple(lines),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        gaps=tuple(
            _gap(scale.x(number), number, word, LEFT + plot_w) for number, word in gaps.items()
        ),
        empty_note="",
        flag_y=_coordinate(TOP + plot_h + 34),
        flag_note=flag_note(lines),
        description=describe_chart(spec, runs),
        rows=_rows(spec, runs),
    )


def _line(index: int, series: Series, scale: _Scale, gaps: dict[int, str], unit: str) -> Line:
    """One series drawn: its path, lifted over every gap and run without a value, and marks."""
    position = scale.position
    marks: list[Mark] = []
    commands: list[str] = []
    pen_down = False
    for point in sorted(series.points, key=lambda p: position.get(p.run.number, -1)):
        if point.run.number not in position:
            continue
        if point.value is None or point.run.number in gaps:
            pen_down = False
            continue
        x, y = _coordinate(scale.x(point.run.number)), _coordinate(scale.y(point.value))
        commands.append(f"{'L' if pen_down else 'M'}{x} {y}")
        pen_down = True
        marks.append(
            Mark(x, y, point.run.number, format_value(point.value, unit), point.trend.flagged)
        )
    last_y = float(marks[-1].y) if marks else TOP + scale.plot_h
    return Line(
        series.name, index % STYLES + 1, " ".join(commands), tuple(marks), _coordinate(last_y)
    )


GAP_LABEL = 13
"""How far right of a gap's line its upright word is written (its baseline, so the letters
sit between the two); left of it (by 4) at the plot's right edge, where the lines' names are."""


def _gap(x: float, number: int, word: str, right: float) -> Gap:
    label = x + GAP_LABEL if x + GAP_LABEL < right else x - 4
    return Gap(_coordinate(x), number, word, _coordinate(label))


def _empty_chart(spec: ChartSpec, runs: Sequence[int], gaps: dict[int, str]) -> Chart:
    """A chart with nothing to draw: its sentence, and no axis, tick, line or table."""
    note = f"Nothing to draw: {spec.missing}."
    if gaps:
        named = [f"{number} ({word})" for number, word in gaps.items()]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        note += f" {'Runs' if len(named) > 1 else 'Run'} {listed} reached no verdict."
    return Chart(
        spec=spec,
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=_coordinate(WIDTH - RIGHT),
        label_x=_coordinate(WIDTH - RIGHT + 6),
        top=TOP,
        bottom=_coordinate(HEIGHT - BOTTOM),
        lines=(),
        y_ticks=(),
        x_ticks=(),
        gaps=(),
        empty_note=note,
        flag_y=_coordinate(HEIGHT - BOTTOM + 34),
        flag_note="no run flagged",
        description=note,
        rows=_rows(spec, runs),
    )


MAX_NAMED = 8
"""At most this many flagged runs are named per line under a chart; the table has them all."""


def flag_note(lines: Sequence[Line]) -> str:
    """`flagged: es in runs 9, 11; en in run 14`, or `no run flagged`."""
    parts: list[str] = []
    for line in lines:
        flagged = [str(mark.run) for mark in line.marks if mark.flagged]
        if not flagged:
            continue
        named = ", ".join(flagged[:MAX_NAMED])
        more = f" and {len(flagged) - MAX_NAMED} more" if len(flagged) > MAX_NAMED else ""
        parts.append(f"{line.name} in {noun(len(flagged), 'run')} {named}{more}")
    return "flagged: " + "; ".join(parts) if parts else "no run flagged"


def _spread_labels(lines: list[Line], lowest: float, highest: float) -> None:
    """Move the end labels apart (14 units at least) so two lines ending together stay legible."""
    order = sorted(range(len(lines)), key=lambda i: (float(lines[i].label_y), i))
    placed: list[float] = []
    for i in order:
        y = max(float(lines[i].label_y) + 4, lowest)
        if placed and y - placed[-1] < 14:
            y = placed[-1] + 14
        placed.append(y)
    overflow = max(placed[-1] - highest - 4, 0) if placed else 0
    for i, y in zip(order, placed, strict=True):
        line = lines[i]
        lines[i] = Line(line.name, line.style, line.path, line.marks, _coordinate(y - overflow))


def _x_tick_runs(runs: list[int]) -> list[int]:
    if len(runs) <= 6:
        return runs
    step = -(-len(runs) // 5)
    picked = runs[::step]
    if picked[-1] != runs[-1]:
        if runs.index(runs[-1]) - runs.index(picked[-1]) < step / 2:
            picked[-1] = runs[-1]
        else:
            picked.append(runs[-1])
    return picked


def _rows(spec: ChartSpec, runs: Sequence[int]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    by_run = [{p.run.number: p for p in s.points} for s in spec.series]
    rows: list[tuple[int, tuple[str, ...]]] = []
    for number in runs:
        cells: list[str] = []
        for points in by_run:
            point = points.get(number)
            if point is None:
                cells.append("not measured")
            elif (word := no_verdict(point.run)) is not None:
                cells.append(word)
            else:
                text = format_value(point.value, spec.unit)
                cells.append(f"{text}, flagged" if point.trend.flagged else text)
        rows.append((number, tuple(cells)))
    return tuple(rows)


def describe_chart(spec: ChartSpec, runs: Sequence[int]) -> str:
    """The chart's text alternative: each line's first and last value, and the flagged runs."""
    if not runs:
        return f"{spec.title}: no runs."
    parts: list[str] = []
    shown = set(runs)
    for series in spec.series:
        points = [p for p in series.points if p.run.number in shown and no_verdict(p.run) is None]
        measured = [p for p in points if p.value is not None]
        if not measured:
            parts.append(f"{series.name}: no values")
            continue
        first, last = measured[0], measured[-1]
        flagged = [str(p.run.number) for p in points if p.trend.flagged]
        parts.append(
            f"{series.name} from {format_value(first.value, spec.unit)} in run "
            f"{first.run.number} to {format_value(last.value, spec.unit)} in run "
            f"{last.run.number}, "
            + (f"flagged in run {', '.join(flagged)}" if flagged else "none flagged")
        )
    gaps = _gaps(spec, runs)
    if gaps:
        named = ", ".join(f"run {number} {word}" for number, word in gaps.items())
        parts.append(f"{named}: no value drawn")
    return f"{spec.title}, runs {runs[0]} to {runs[-1]}: " + "; ".join(parts) + "."


# ---------------------------------------------------------------- template filters

VERDICTS = frozenset({"pass", "fail", "withheld"})


def when(moment: datetime) -> str:
    """A stored time as the pages print it: to the second, `UTC` or its offset."""
    offset = moment.utcoffset()
    zone = "UTC" if offset is not None and not offset else moment.strftime("%z") or "local"
    return f"{moment:%Y-%m-%d %H:%M:%S} {zone}"


def verdict(value: str) -> Markup:
    """A run's verdict in capitals, styled as the evidence page styles it when it is known."""
    shown = escape(value.upper())
    if value in VERDICTS:
        return Markup(f'<strong class="status-{value}">{shown}</strong>')  # noqa: S704 - escaped
    return Markup(f"<strong>{shown}</strong>")  # noqa: S704 - escaped above


def labels(pairs: dict[str, str]) -> str:
    """`key=value` pairs sorted by key, or `none`."""
    return ", ".join(f"{key}={pairs[key]}" for key in sorted(pairs)) or "none"


def metric(trend: Trend, value: float | None) -> str:
    """One of a trend's numbers in the unit of its metric."""
    unit = {
        PASS_RATE: "%",
        LATENCY_P50: "ms",
        LATENCY_P95: "ms",
        FIRST_TOKEN_P50: "ms",
        FIRST_TOKEN_P95: "ms",
    }.get(trend.metric, "tokens")
    return format_value(value, unit)
