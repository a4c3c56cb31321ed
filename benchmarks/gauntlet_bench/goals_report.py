"""The pipeline-cost section of RESULTS.md: what `goals.run_goals` measured, as Markdown."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence

from gauntlet_bench.children import ChildRun
from gauntlet_bench.config import CASES_PER_FILE
from gauntlet_bench.goals import (
    BASELINE,
    GOALS_HEADING,
    LATENCY_MS,
    WORKING,
    Goals,
    SizeRuns,
    after_first_ask,
    first_ask,
    goal_verdicts,
    peak_mb,
)
from gauntlet_bench.markdown import command_line, markdown_table

RUN_HEADER = (
    "client",
    "runs",
    "time s",
    "req/s",
    "× ideal",
    "first ask ms",
    "after it s",
    "thru vs raw process",
    "in-loop vs raw process",
    "thru vs raw in driver",
    "client CPU",
    "peak RSS MB (lowest–highest)",
    "MB per 1,000 cases",
)


def goals_markdown(goals: Goals) -> list[str]:
    """The pipeline-cost section of RESULTS.md, with its own date, command and load average."""
    lines = [*_preamble(goals), ""]
    lines += markdown_table(
        ("goal", "baseline", "working tree", "working ÷ baseline", "verdict (working tree)"),
        [goal.cells() for goal in goal_verdicts(goals)],
    )
    lines += ["", *_runs_intro(goals)]
    for runs in goals.sizes:
        lines += ["", f"{runs.size.label} (ideal {runs.size.ideal:.2f} s):", ""]
        lines += markdown_table(RUN_HEADER, _run_rows(runs))
    lines += ["", *_startup_section(goals), "", *_load_section(goals)]
    return lines


def _preamble(goals: Goals) -> list[str]:
    busy = (
        f" — **taken while other work was running on the machine** (load above 1 on "
        f"{os.cpu_count()} CPUs)"
        if goals.load_before > 1
        else ""
    )
    lines = [
        GOALS_HEADING,
        "",
        f"- Date: {goals.started_at:%Y-%m-%d %H:%M} UTC; this section took {goals.elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        f"- Load average (1 min) {goals.load_before:.2f} at the start, "
        f"{goals.load_after:.2f} at the end{busy}",
    ]
    lines += [
        f"- {tree.label}: `{tree.src}`"
        + (f" at `{tree.revision}`" if tree.revision else "")
        + f"; its CLI `{tree.entry}` (its pyproject.toml's `[project.scripts]`), started "
        f"as a console script by this Python with the tree first on `PYTHONPATH`; "
        f"`gauntlet` imported from `{tree.imported_from}`"
        for tree in (goals.trees[BASELINE], goals.trees[WORKING])
    ]
    lines.append(
        "- The raw loop (in the driver, then as a process) and the two trees take turns, run "
        "by run, against the same stub and the same generated cases (files of at most "
        f"{CASES_PER_FILE}), so the noise of a shared machine falls on all alike: the ratios "
        "are the figures to read"
    )
    return lines


def _runs_intro(goals: Goals) -> list[str]:
    repeats = len(goals.first.raw_process)
    return [
        f"End to end at {LATENCY_MS:g} ms latency, {repeats} run{'' if repeats == 1 else 's'} "
        "of each client, the medians. `gauntlet run --quiet` is the whole process (pre-flight "
        "probe on, its first ask); raw aiohttp is the same loop timed inside the driver's event "
        "loop (issue 19's figure) and run as a whole process (interpreter start-up, aiohttp's "
        "import and reading the prompts from JSON included). first ask = from the spawn to the "
        "stub's first request; after it = the rest of the process (in-loop). thru vs raw "
        "process = the raw process's time ÷ this time; in-loop vs raw process = the same of "
        "the times after the first ask; thru vs raw in driver = the in-driver loop's time ÷ "
        "this time. Peak RSS is `wait4`'s `ru_maxrss` of the process alone; per 1,000 cases, "
        "its fixed cost included."
    ]


def _run_row(runs: SizeRuns, label: str, children: Sequence[ChildRun]) -> list[str]:
    seconds = statistics.median(child.seconds for child in children)
    peaks = [child.peak_mb for child in children]
    median_peak = peak_mb(children)
    return [
        label,
        str(len(children)),
        f"{seconds:.3f}",
        f"{runs.size.cases / seconds:,.0f}",
        f"{seconds / runs.size.ideal:.3f}×",
        f"{1000 * first_ask(children):.0f}",
        f"{after_first_ask(children):.3f}",
        f"{runs.raw_seconds / seconds:.3f}×",
        f"{after_first_ask(runs.raw_process) / after_first_ask(children):.3f}×",
        f"{runs.loop_seconds / seconds:.3f}×",
        f"{100 * statistics.median(c.cpu / c.seconds for c in children):.0f} %",
        f"{median_peak:.1f} ({min(peaks):.1f}–{max(peaks):.1f})",
        f"{1000 * median_peak / runs.size.cases:.2f}",
    ]


def _run_rows(runs: SizeRuns) -> list[list[str]]:
    loop = runs.loop_seconds
    rows = [
        [
            "raw aiohttp in the driver's loop",
            str(len(runs.raw_loop)),
            f"{loop:.3f}",
            f"{runs.size.cases / loop:,.0f}",
            f"{loop / runs.size.ideal:.3f}×",
            "—",
            "—",
            f"{runs.raw_seconds / loop:.3f}×",
            "—",
            "1.000×",
            f"{100 * statistics.median(s.client_cpu / s.seconds for s in runs.raw_loop):.0f} %",
            "—",
            "—",
        ]
    ]
    labels = {BASELINE: "baseline: `gauntlet run`", WORKING: "working tree: `gauntlet run`"}
    rows += [
        _run_row(runs, labels.get(label, label), children) for label, children in runs.clients()
    ]
    return rows


def _startup_section(goals: Goals) -> list[str]:
    bare = goals.bare_seconds
    rows = [["`python -c pass`", "—", *_millis(goals.bare), "1.00×"]]
    for key in (BASELINE, WORKING):
        run = goals.figures[key]
        for label, values in (
            ("`gauntlet --version`", run.version),
            ("`gauntlet validate --cases FILE` (1 case)", run.validate),
        ):
            rows.append([label, key, *_millis(values), f"{statistics.median(values) / bare:.2f}×"])
    return [
        f"Start-up: {len(goals.bare)} runs of each command, taking turns, after one warm-up "
        "each; the same interpreter for all:",
        "",
        *markdown_table(
            ("command", "tree", "median ms", "min ms", "max ms", "× python -c pass"), rows
        ),
    ]


def _load_section(goals: Goals) -> list[str]:
    rows = [
        [
            key,
            str(len(goals.figures[key].loads)),
            f"`{goals.figures[key].loader}`",
            f"{goals.figures[key].load('import'):.3f}",
            f"{goals.figures[key].load('first'):.3f}",
            f"{goals.figures[key].load('second'):.3f}",
        ]
        for key in (BASELINE, WORKING)
    ]
    return [
        f"Loading {goals.first.size.cases:,} cases: `load_suites` over the case files in a "
        "fresh process per run (the first load is what a command pays, and the goal's figure; "
        "a second load in the same process is shown for context), the import of the loader "
        "timed apart:",
        "",
        *markdown_table(
            ("tree", "runs", "`load_suites` from", "import s", "first load s", "second load s"),
            rows,
        ),
    ]


def _millis(values: Sequence[float]) -> list[str]:
    return [
        f"{1000 * statistics.median(values):.0f}",
        f"{1000 * min(values):.0f}",
        f"{1000 * max(values):.0f}",
    ]
