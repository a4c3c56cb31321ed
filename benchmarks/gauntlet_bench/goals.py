"""The pipeline's own cost (issue 19, item 6): the working tree against a baseline source tree.

Both trees run in the same run, with the same interpreter, against the same stub and the same
generated case files, taking turns. A tree is a checkout's `src/` directory, put first on
`PYTHONPATH` so it shadows the editable install; each tree's CLI is started as its console
script would start it, from the entry point its own `pyproject.toml` declares
(`[project.scripts] gauntlet`), and each child is checked once to import `gauntlet` from that
tree. Measured for each tree:

- `gauntlet run` end to end (the whole process, as the main table's (c)) against the raw
  aiohttp loop, at 50 ms latency, C = 64, 5,000 cases: throughput as a fraction of raw's;
- start-up: `gauntlet --version` and `gauntlet validate --cases ONE_SMALL_FILE` against bare
  `python -c pass`, medians of many runs;
- loading 5,000 cases: `load_suites` over the generated files (the collector paused as a
  command pauses it), in a fresh child process,
  imports timed apart;
- peak memory (`ru_maxrss`) of the `gauntlet run` child, per 1,000 cases.

Every verdict is computed from the figures of this run; a goal not met says NOT MET.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gauntlet.cases.loader import load_suites
from gauntlet_bench.cases import prompts_of, write_case_files
from gauntlet_bench.children import ChildRun, run_child, run_cli
from gauntlet_bench.config import BENCHMARKS, CASES_PER_FILE
from gauntlet_bench.markdown import command_line, markdown_table
from gauntlet_bench.measure import Sample, measure_raw
from gauntlet_bench.stub import Stub

GOALS_HEADING = "## Pipeline cost against a baseline (issue 19)"
LATENCY_MS = 50.0
CONCURRENCY = 64
CASES = 5_000
RUN_FACTOR = 0.85
"""`gauntlet run` end to end keeps at least this fraction of raw aiohttp's throughput."""
STARTUP_FACTOR = 3.0
"""`gauntlet --version` and `gauntlet validate` take at most this many times `python -c pass`."""
LOAD_LIMIT_S = 0.3
"""Loading the cases takes less than this many seconds."""
WORKING, BASELINE = "working tree", "baseline"
LOADERS = ("gauntlet.cases.loader", "gauntlet.cases", "gauntlet")
"""Where the load child looks for `load_suites`, first found wins: the loader may move."""

_ENTRY = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<attr>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")

CONSOLE_SCRIPT = """\
import sys
from {module} import {name}
sys.exit({attr}())
"""
"""What a console script does (pip's and uv's): import the entry point, exit with its value."""

IMPORT_CHECK = """\
import importlib, json, sys
import gauntlet
entry = importlib.import_module(sys.argv[1])
print(json.dumps([gauntlet.__file__, entry.__file__]))
"""
"""Prints where `gauntlet` and the entry point's module were imported from."""

LOAD_SCRIPT = """\
import contextlib, importlib, json, sys, time
report, modules, paths = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
started = time.perf_counter()
for module in modules:
    load_suites = getattr(importlib.import_module(module), "load_suites", None)
    if load_suites is not None:
        break
else:
    sys.exit("no load_suites in " + ", ".join(modules))
try:  # what a command sets around loading, where the tree has it (else the loader did)
    from gauntlet.cli.collector import paused_while_loading
except ImportError:
    paused_while_loading = contextlib.nullcontext
imported = time.perf_counter() - started
started = time.perf_counter()
with paused_while_loading():
    suites = load_suites(paths)
first = time.perf_counter() - started
started = time.perf_counter()
with paused_while_loading():
    load_suites(paths)
second = time.perf_counter() - started
cases = sum(len(loaded.cases) for loaded in suites.suites)
with open(report, "w") as file:
    json.dump({"module": module, "import": imported, "first": first, "second": second,
               "cases": cases, "file": sys.modules["gauntlet"].__file__}, file)
"""
"""Times importing the loader, a first `load_suites` (what a command pays) and a second."""


def entry_point(pyproject: Path) -> str:
    """The `gauntlet` console script's entry point (`module:attr`) that `pyproject` declares."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{pyproject}: cannot read it: {error}") from None
    entry = project.get("project", {}).get("scripts", {}).get("gauntlet")
    if not isinstance(entry, str) or not _ENTRY.match(entry.strip()):
        raise ValueError(
            f"{pyproject}: [project.scripts] gauntlet is {entry!r}, not an entry point "
            "written module:attr"
        )
    return entry.strip()


def console_script(entry: str) -> str:
    """The text of a console script that runs `entry` (`module:attr`), as pip writes one."""
    match = _ENTRY.match(entry)
    if match is None:
        raise ValueError(f"not an entry point written module:attr: {entry!r}")
    attr = match["attr"]
    return CONSOLE_SCRIPT.format(module=match["module"], name=attr.split(".")[0], attr=attr)


def under(path: str | Path, directory: Path) -> bool:
    """Whether `path` lies inside `directory` (both resolved)."""
    return Path(path).resolve().is_relative_to(directory.resolve())


@dataclass(frozen=True)
class Tree:
    """One gauntlet source tree, and how to start its CLI."""

    label: str
    src: Path
    """The tree's `src/` directory, first on the children's `PYTHONPATH`."""
    entry: str
    """Its `[project.scripts] gauntlet` entry point."""
    script: Path
    """The console script written for it: `python SCRIPT ARGS` is `gauntlet ARGS`."""
    revision: str
    """`git describe --always --dirty` of the tree, or "" outside git."""
    imported_from: str
    """Where a child imported `gauntlet` from (checked to be inside `src`)."""

    @property
    def command(self) -> list[str]:
        """`gauntlet` for this tree, run by this interpreter."""
        return [sys.executable, str(self.script)]

    def env(self) -> dict[str, str]:
        """This process's environment with `src` first on `PYTHONPATH`."""
        return tree_env(os.environ, self.src)


def tree_env(environ: Mapping[str, str], src: Path) -> dict[str, str]:
    """`environ` with `src` prepended to `PYTHONPATH`."""
    env = dict(environ)
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(src), environ.get("PYTHONPATH", "")) if part
    )
    return env


def git_revision(directory: Path) -> str:
    """`git describe --always --dirty` in `directory`, or "" when it is not in a git checkout."""
    try:
        completed = subprocess.run(  # noqa: S603 - a fixed argv, no shell
            ["git", "-C", str(directory), "describe", "--always", "--dirty"],  # noqa: S607
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout.strip() if completed.returncode == 0 else ""


def prepare_tree(label: str, src: Path, work: Path) -> Tree:
    """Read `src`'s entry point, write its console script, check a child imports from `src`."""
    src = src.resolve()
    entry = entry_point(src.parent / "pyproject.toml")
    script = work / f"entry-{label.replace(' ', '-')}" / "gauntlet"
    script.parent.mkdir(parents=True)
    script.write_text(console_script(entry), encoding="utf-8")
    module = entry.split(":", 1)[0]
    completed = subprocess.run(  # noqa: S603 - our own interpreter and script, no shell
        [sys.executable, "-c", IMPORT_CHECK, module],
        env=tree_env(os.environ, src),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{label}: importing {module} failed:\n{completed.stderr[-2000:]}")
    package, entry_file = json.loads(completed.stdout)
    for name, path in (("gauntlet", package), (module, entry_file)):
        if not under(path, src):
            raise RuntimeError(f"{label}: {name} was imported from {path}, not from {src}")
    return Tree(label, src, entry, script, git_revision(src), package)


@dataclass
class GoalRun:
    """The figures of one tree."""

    runs: list[ChildRun] = field(default_factory=list)
    """`gauntlet run` end to end."""
    version: list[float] = field(default_factory=list)
    """`gauntlet --version`, seconds."""
    validate: list[float] = field(default_factory=list)
    """`gauntlet validate --cases ONE_SMALL_FILE`, seconds."""
    loads: list[dict[str, float]] = field(default_factory=list)
    """The load child's reports: `import`, `first`, `second` seconds."""
    loader: str = ""
    """The module `load_suites` was found in."""

    @property
    def run_seconds(self) -> float:
        """The median time of `gauntlet run`."""
        return statistics.median(run.seconds for run in self.runs)

    @property
    def peak_mb(self) -> float:
        """The median peak RSS of `gauntlet run`."""
        return statistics.median(run.peak_mb for run in self.runs)

    @property
    def peak_spread(self) -> float:
        """The highest peak RSS of `gauntlet run` less the lowest, MB."""
        peaks = [run.peak_mb for run in self.runs]
        return max(peaks) - min(peaks)

    def load(self, key: str) -> float:
        """The median of one figure of the load child (`import`, `first`, `second`)."""
        return statistics.median(report[key] for report in self.loads)


@dataclass
class Goals:
    """Everything the pipeline-cost section measured."""

    cases: int
    trees: dict[str, Tree]
    started_at: datetime
    load_before: float
    raw: list[Sample] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)
    """`python -c pass`, seconds."""
    figures: dict[str, GoalRun] = field(default_factory=dict)
    elapsed: float = 0.0
    load_after: float = 0.0

    @property
    def raw_seconds(self) -> float:
        """The median time of the raw aiohttp loop."""
        return statistics.median(sample.seconds for sample in self.raw)

    @property
    def bare_seconds(self) -> float:
        """The median time of `python -c pass`."""
        return statistics.median(self.bare)

    @property
    def ideal(self) -> float:
        """ceil(N / C) x latency."""
        return math.ceil(self.cases / CONCURRENCY) * LATENCY_MS / 1000.0


@dataclass(frozen=True)
class Goal:
    """One goal's figure for each tree, and its verdict on the working tree."""

    title: str
    baseline: float
    working: float
    met: bool
    show: Callable[[float], str]
    """How a figure is written."""

    def cells(self) -> list[str]:
        """goal, baseline, working tree, working ÷ baseline, verdict."""
        change = self.working / self.baseline if self.baseline else float("nan")
        return [
            self.title,
            self.show(self.baseline),
            self.show(self.working),
            f"{change:.2f}×",
            "met" if self.met else "**NOT MET**",
        ]

    @property
    def verdict(self) -> str:
        """`met` or `NOT MET`."""
        return "met" if self.met else "NOT MET"


def judge(
    *,
    run_ratio: Mapping[str, float],
    version_ratio: Mapping[str, float],
    validate_ratio: Mapping[str, float],
    load_seconds: Mapping[str, float],
    mb_per_thousand: Mapping[str, float],
    mb_spread: float = 0.0,
    cases: int = CASES,
) -> list[Goal]:
    """Each goal's verdict on the working tree's figure (the baseline's shown beside it).

    `mb_spread` is the spread (highest less lowest) of the baseline's own runs' peak memory per
    1,000 cases: the working tree's may exceed the baseline's by that much, the noise of
    `ru_maxrss` from run to run, so that two identical trees are not told apart by chance.
    """

    def ratio(value: float) -> str:
        return f"{value:.3f}×"

    def startup(value: float) -> str:
        return f"{value:.2f}×"

    def pair(key: Mapping[str, float]) -> tuple[float, float]:
        return key[BASELINE], key[WORKING]

    rows = [
        (
            f"`gauntlet run` end to end at {LATENCY_MS:g} ms, C = {CONCURRENCY}, {cases:,} "
            f"cases: at least {RUN_FACTOR}× raw aiohttp's throughput",
            pair(run_ratio),
            run_ratio[WORKING] >= RUN_FACTOR,
            ratio,
        ),
        (
            f"`gauntlet --version` within {STARTUP_FACTOR:g}× `python -c pass`",
            pair(version_ratio),
            version_ratio[WORKING] <= STARTUP_FACTOR,
            startup,
        ),
        (
            f"`gauntlet validate` of one small file within {STARTUP_FACTOR:g}× `python -c pass`",
            pair(validate_ratio),
            validate_ratio[WORKING] <= STARTUP_FACTOR,
            startup,
        ),
        (
            f"loading {cases:,} cases (`load_suites`, imports apart) under {LOAD_LIMIT_S:g} s",
            pair(load_seconds),
            load_seconds[WORKING] < LOAD_LIMIT_S,
            lambda value: f"{value:.3f} s",
        ),
        (
            "peak memory of `gauntlet run` per 1,000 cases no higher than the baseline's "
            f"beyond the spread of the baseline's own runs ({mb_spread:.2f} MB)",
            pair(mb_per_thousand),
            mb_per_thousand[WORKING] <= mb_per_thousand[BASELINE] + mb_spread,
            lambda value: f"{value:.2f} MB",
        ),
    ]
    return [
        Goal(title, baseline, working, met, show) for title, (baseline, working), met, show in rows
    ]


def goal_verdicts(goals: Goals) -> list[Goal]:
    """The goals judged on what `goals` measured."""
    bare = goals.bare_seconds
    figures = goals.figures
    return judge(
        run_ratio={key: goals.raw_seconds / run.run_seconds for key, run in figures.items()},
        version_ratio={key: statistics.median(run.version) / bare for key, run in figures.items()},
        validate_ratio={
            key: statistics.median(run.validate) / bare for key, run in figures.items()
        },
        load_seconds={key: run.load("first") for key, run in figures.items()},
        mb_per_thousand={key: 1000 * run.peak_mb / goals.cases for key, run in figures.items()},
        mb_spread=1000 * figures[BASELINE].peak_spread / goals.cases,
        cases=goals.cases,
    )


# ------------------------------------------------------------------ measuring


def measure_runs(
    goals: Goals, stub: Stub, cases_dir: Path, prompts: Sequence[str], repeats: int, work: Path
) -> None:
    """Raw aiohttp and each tree's `gauntlet run`, taking turns, `repeats` times."""
    out = work / "goal-results.json"
    order = [BASELINE, WORKING]
    for _ in range(repeats):
        gc.collect()
        goals.raw.append(measure_raw(stub, prompts, CONCURRENCY))
        for key in order:
            tree = goals.trees[key]
            gc.collect()
            child, _, document = run_cli(
                stub, cases_dir, CONCURRENCY, out, command=tree.command, env=tree.env()
            )
            totals = document["totals"]
            if totals["passed"] != goals.cases or totals["total"] != goals.cases:
                raise RuntimeError(f"{key}: gauntlet run: {totals}")
            out.unlink()
            goals.figures[key].runs.append(child)
        order.reverse()  # neither tree always runs right after the raw loop
    for label, seconds in [
        ("raw aiohttp", goals.raw_seconds),
        *((key, goals.figures[key].run_seconds) for key in (BASELINE, WORKING)),
    ]:
        print(
            f"  {label:<34} {seconds:8.3f} s  {goals.cases / seconds:7,.0f} req/s  "
            f"{goals.raw_seconds / seconds:.3f}× raw aiohttp's throughput",
            flush=True,
        )


def timed(argv: Sequence[str], env: Mapping[str, str] | None, label: str) -> float:
    """One run of a start-up command through the launcher; its seconds."""
    child = run_child(argv, timeout=60, env=env)
    if child.status != 0:
        raise RuntimeError(f"{label} exited {child.status}:\n{child.output[-2000:]}")
    return child.seconds


def measure_startups(goals: Goals, small_file: Path, runs: int) -> None:
    """`python -c pass`, and each tree's `--version` and `validate`, taking turns."""
    bare = [sys.executable, "-c", "pass"]
    commands: list[tuple[str, list[str], dict[str, str] | None, list[float]]] = [
        ("python -c pass", bare, None, goals.bare)
    ]
    for key in (BASELINE, WORKING):
        tree = goals.trees[key]
        commands += [
            (
                f"{key}: gauntlet --version",
                [*tree.command, "--version"],
                tree.env(),
                goals.figures[key].version,
            ),
            (
                f"{key}: gauntlet validate",
                [*tree.command, "validate", "--cases", str(small_file)],
                tree.env(),
                goals.figures[key].validate,
            ),
        ]
    for label, argv, env, _ in commands:
        timed(argv, env, label)  # warm the caches
    for _ in range(runs):
        for label, argv, env, into in commands:
            into.append(timed(argv, env, label))
    for label, _, _, into in commands:
        median = statistics.median(into)
        print(
            f"  {label:<34} {median * 1000:7.0f} ms  {median / goals.bare_seconds:6.2f}× "
            "python -c pass"
        )


def measure_loads(goals: Goals, cases_dir: Path, runs: int, work: Path) -> None:
    """`load_suites` over the cases in a fresh child per run, taking turns."""
    script = work / "load_cases.py"
    script.write_text(LOAD_SCRIPT, encoding="utf-8")
    report = work / "load-report.json"
    for _ in range(runs):
        for key in (BASELINE, WORKING):
            tree = goals.trees[key]
            child = run_child(
                [sys.executable, str(script), str(report), ",".join(LOADERS), str(cases_dir)],
                env=tree.env(),
            )
            if child.status != 0:
                raise RuntimeError(f"{key}: loading the cases failed:\n{child.output[-2000:]}")
            figures = json.loads(report.read_text())
            report.unlink()
            if figures["cases"] != goals.cases or not under(figures["file"], tree.src):
                raise RuntimeError(f"{key}: the load child reported {figures}")
            goals.figures[key].loads.append(figures)
            goals.figures[key].loader = figures["module"]
    for key in (BASELINE, WORKING):
        run = goals.figures[key]
        print(
            f"  {key + ': load_suites':<34} {run.load('first'):8.3f} s (imports "
            f"{run.load('import'):.3f} s apart; a second load {run.load('second'):.3f} s)"
        )


def run_goals(
    baseline_src: Path,
    work: Path,
    *,
    cases: int = CASES,
    repeats: int,
    startup_runs: int,
    load_runs: int,
) -> Goals:
    """Measure every goal for the working tree and the baseline, in this one run."""
    root = work / "goals"
    root.mkdir()
    trees = {
        BASELINE: prepare_tree(BASELINE, baseline_src, root),
        WORKING: prepare_tree(WORKING, BENCHMARKS.parent / "src", root),
    }
    goals = Goals(
        cases=cases,
        trees=trees,
        started_at=datetime.now(UTC),
        load_before=os.getloadavg()[0],
        figures={key: GoalRun() for key in trees},
    )
    began = time.perf_counter()
    print(
        f"\npipeline cost against a baseline: {cases:,} cases, load average {goals.load_before:.2f}"
    )
    for tree in trees.values():
        print(f"  {tree.label}: {tree.src} ({tree.revision or 'not in git'}), {tree.entry}")
    cases_dir = write_case_files(root / "cases", cases)
    small_file = write_case_files(root / "small", 1) / "bench-001.yaml"
    prompts = prompts_of(load_suites([cases_dir]))
    with Stub(LATENCY_MS) as stub:
        print(f"  stub server at {stub.url}, {LATENCY_MS:g} ms latency, C={CONCURRENCY}")
        measure_runs(goals, stub, cases_dir, prompts, repeats, root)
    measure_startups(goals, small_file, startup_runs)
    measure_loads(goals, cases_dir, load_runs, root)
    goals.elapsed = time.perf_counter() - began
    goals.load_after = os.getloadavg()[0]
    for goal in goal_verdicts(goals):
        print(
            f"  {goal.verdict:<8} {goal.title}: baseline {goal.show(goal.baseline)}, "
            f"working tree {goal.show(goal.working)}"
        )
    print(f"  the pipeline-cost section took {goals.elapsed:.0f} s")
    return goals


# ------------------------------------------------------------------ RESULTS.md


def goals_markdown(goals: Goals) -> list[str]:
    """The pipeline-cost section of RESULTS.md, with its own date, command and load average."""
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
    lines += [
        "- The two trees and the raw loop take turns, run by run, against the same stub and "
        f"the same {goals.cases:,} generated cases (files of at most {CASES_PER_FILE}), so "
        "the noise of a shared machine falls on all alike: the ratios are the figures to read",
        "",
        *markdown_table(
            ("goal", "baseline", "working tree", "working ÷ baseline", "verdict (working tree)"),
            [goal.cells() for goal in goal_verdicts(goals)],
        ),
        "",
        f"`gauntlet run --quiet` end to end (the whole process, pre-flight probe on) against "
        f"the raw aiohttp loop, {LATENCY_MS:g} ms latency, C = {CONCURRENCY}; "
        f"{len(goals.raw)} run{'' if len(goals.raw) == 1 else 's'} each, the medians (peak "
        "RSS: `wait4`'s `ru_maxrss` of the `gauntlet run` process alone; per 1,000 cases: the "
        "peak ÷ the cases, its fixed cost included):",
        "",
    ]
    run_rows = [
        [
            "raw aiohttp",
            str(len(goals.raw)),
            f"{goals.raw_seconds:.3f}",
            f"{goals.cases / goals.raw_seconds:,.0f}",
            f"{goals.raw_seconds / goals.ideal:.3f}×",
            "1.000×",
            f"{100 * statistics.median(s.client_cpu / s.seconds for s in goals.raw):.0f} %",
            "—",
            "—",
        ]
    ]
    for key in (BASELINE, WORKING):
        run = goals.figures[key]
        run_rows.append(
            [
                f"{key}: `gauntlet run`",
                str(len(run.runs)),
                f"{run.run_seconds:.3f}",
                f"{goals.cases / run.run_seconds:,.0f}",
                f"{run.run_seconds / goals.ideal:.3f}×",
                f"{goals.raw_seconds / run.run_seconds:.3f}×",
                f"{100 * statistics.median(c.cpu / c.seconds for c in run.runs):.0f} %",
                f"{run.peak_mb:.1f} ({min(c.peak_mb for c in run.runs):.1f}–"
                f"{max(c.peak_mb for c in run.runs):.1f})",
                f"{1000 * run.peak_mb / goals.cases:.2f}",
            ]
        )
    lines += markdown_table(
        (
            "client",
            "runs",
            "time s",
            "req/s",
            "× ideal",
            "thru vs raw",
            "client CPU",
            "peak RSS MB (lowest–highest)",
            "MB per 1,000 cases",
        ),
        run_rows,
    )
    bare = goals.bare_seconds
    startup_rows = [
        ["`python -c pass`", "—", *_millis(goals.bare), "1.00×"],
    ]
    for key in (BASELINE, WORKING):
        run = goals.figures[key]
        for label, values in (
            ("`gauntlet --version`", run.version),
            ("`gauntlet validate --cases FILE` (1 case)", run.validate),
        ):
            startup_rows.append(
                [label, key, *_millis(values), f"{statistics.median(values) / bare:.2f}×"]
            )
    lines += [
        "",
        f"Start-up: {len(goals.bare)} runs of each command, taking turns, after one warm-up "
        "each; the same interpreter for all:",
        "",
        *markdown_table(
            ("command", "tree", "median ms", "min ms", "max ms", "× python -c pass"),
            startup_rows,
        ),
        "",
        f"Loading {goals.cases:,} cases: `load_suites` over the case files in a fresh process "
        "per run (the first load is what a command pays, and the goal's figure; a second "
        "load in the same process is shown for context), the import of the loader timed "
        "apart:",
        "",
    ]
    lines += markdown_table(
        ("tree", "runs", "`load_suites` from", "import s", "first load s", "second load s"),
        [
            [
                key,
                str(len(goals.figures[key].loads)),
                f"`{goals.figures[key].loader}`",
                f"{goals.figures[key].load('import'):.3f}",
                f"{goals.figures[key].load('first'):.3f}",
                f"{goals.figures[key].load('second'):.3f}",
            ]
            for key in (BASELINE, WORKING)
        ],
    )
    return lines


def _millis(values: Sequence[float]) -> list[str]:
    return [
        f"{1000 * statistics.median(values):.0f}",
        f"{1000 * min(values):.0f}",
        f"{1000 * max(values):.0f}",
    ]
