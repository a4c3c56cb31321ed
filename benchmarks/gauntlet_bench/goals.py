"""The pipeline's own cost (issue 19 item 6, issue 30 item 9): the working tree against a baseline.

Both trees run in the same run, with the same interpreter, against the same stub and the same
generated case files, taking turns. A tree is a checkout's `src/` directory, put first on
`PYTHONPATH` so it shadows the editable install; each tree's CLI is started as its console
script would start it, from the entry point its own `pyproject.toml` declares
(`[project.scripts] gauntlet`), and each child is checked once to import `gauntlet` from that
tree. Measured for each tree:

- `gauntlet run` end to end (the whole process, as the main table's (c)) against the raw
  aiohttp loop run as a whole process too (interpreter start-up and aiohttp's import
  included), at 50 ms latency and each size (5,000 cases at C = 64, 2,000 at C = 32):
  throughput as a fraction of raw's, process against process; the same from each process's
  first ask to its end (in-loop); and against the raw loop timed inside the driver (issue 19's
  figure); with the time from the spawn to the stub's first request (start-up to the first ask);
- start-up: `gauntlet --version` and `gauntlet validate --cases ONE_SMALL_FILE` against bare
  `python -c pass`, medians of many runs;
- loading 5,000 cases: `load_suites` over the generated files (the collector paused as a
  command pauses it), in a fresh child process,
  imports timed apart;
- peak memory (`ru_maxrss`) of the `gauntlet run` child, per 1,000 cases, at the first size.

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
from gauntlet_bench.children import ChildRun, run_child, run_cli, since_launch
from gauntlet_bench.config import BENCHMARKS
from gauntlet_bench.measure import Sample, measure_raw
from gauntlet_bench.stub import Stub

GOALS_HEADING = "## Pipeline cost against a baseline (issue 19)"
LATENCY_MS = 50.0
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

RAW_PROCESS = """\
import asyncio, json, sys
import aiohttp
url, concurrency, prompts_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(prompts_file, encoding="utf-8") as file:
    prompts = json.load(file)

async def main():
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(prompts)

        async def worker():
            for prompt in pending:
                async with session.post(url, json={"prompt": prompt, "language": "en"}) as reply:
                    answer = json.loads(await reply.read())
                    if reply.status != 200 or not answer["text"]:
                        sys.exit(f"raw aiohttp: HTTP {reply.status}")

        await asyncio.gather(*(worker() for _ in range(concurrency)))

asyncio.run(main())
"""
"""The raw aiohttp loop (`measure._raw`) as a whole process: start-up and import included."""


@dataclass(frozen=True)
class Size:
    """One size of the end-to-end comparison."""

    cases: int
    concurrency: int

    @property
    def label(self) -> str:
        """`5,000 cases, C = 64`."""
        return f"{self.cases:,} cases, C = {self.concurrency}"

    @property
    def ideal(self) -> float:
        """ceil(N / C) x latency."""
        return math.ceil(self.cases / self.concurrency) * LATENCY_MS / 1000.0


SIZES = (Size(5_000, 64), Size(2_000, 32))
"""The sizes issue 30 measures; the first is also where memory and loading are measured."""


def _median(values: Sequence[float | None]) -> float:
    """The median of the values that are there, NaN when none is."""
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else float("nan")


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
class SizeRuns:
    """Every end-to-end run at one size: the raw loop in the driver and as a process, each tree."""

    size: Size
    raw_loop: list[Sample] = field(default_factory=list)
    """The raw aiohttp loop timed inside the driver (its event loop only)."""
    raw_process: list[ChildRun] = field(default_factory=list)
    """The raw aiohttp loop as a whole process."""
    runs: dict[str, list[ChildRun]] = field(default_factory=dict)
    """Each tree's `gauntlet run` processes."""

    def clients(self) -> list[tuple[str, list[ChildRun]]]:
        """The processes: raw aiohttp, then each tree's `gauntlet run`."""
        return [("raw aiohttp process", self.raw_process), *self.runs.items()]

    @property
    def loop_seconds(self) -> float:
        """The median time of the raw loop inside the driver."""
        return statistics.median(sample.seconds for sample in self.raw_loop)

    def seconds(self, key: str) -> float:
        """The median time of a tree's `gauntlet run`."""
        return statistics.median(run.seconds for run in self.runs[key])

    @property
    def raw_seconds(self) -> float:
        """The median time of the raw loop as a process."""
        return statistics.median(run.seconds for run in self.raw_process)


def first_ask(runs: Sequence[ChildRun]) -> float:
    """The median seconds from the spawn to the first ask."""
    return _median([run.first_ask for run in runs])


def after_first_ask(runs: Sequence[ChildRun]) -> float:
    """The median seconds from the first ask to the process's end (the in-loop time)."""
    return _median([None if run.first_ask is None else run.seconds - run.first_ask for run in runs])


def peak_mb(runs: Sequence[ChildRun]) -> float:
    """The median peak RSS, MB."""
    return statistics.median(run.peak_mb for run in runs)


def peak_spread(runs: Sequence[ChildRun]) -> float:
    """The highest peak RSS less the lowest, MB."""
    peaks = [run.peak_mb for run in runs]
    return max(peaks) - min(peaks)


@dataclass
class GoalRun:
    """The start-up and loading figures of one tree."""

    version: list[float] = field(default_factory=list)
    """`gauntlet --version`, seconds."""
    validate: list[float] = field(default_factory=list)
    """`gauntlet validate --cases ONE_SMALL_FILE`, seconds."""
    loads: list[dict[str, float]] = field(default_factory=list)
    """The load child's reports: `import`, `first`, `second` seconds."""
    loader: str = ""
    """The module `load_suites` was found in."""

    def load(self, key: str) -> float:
        """The median of one figure of the load child (`import`, `first`, `second`)."""
        return statistics.median(report[key] for report in self.loads)


@dataclass
class Goals:
    """Everything the pipeline-cost section measured."""

    trees: dict[str, Tree]
    started_at: datetime
    load_before: float
    sizes: list[SizeRuns] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)
    """`python -c pass`, seconds."""
    figures: dict[str, GoalRun] = field(default_factory=dict)
    elapsed: float = 0.0
    load_after: float = 0.0

    @property
    def bare_seconds(self) -> float:
        """The median time of `python -c pass`."""
        return statistics.median(self.bare)

    @property
    def first(self) -> SizeRuns:
        """The first size: where memory and loading are measured."""
        return self.sizes[0]


@dataclass(frozen=True)
class Goal:
    """One goal's figure for each tree, and its verdict on the working tree (None: context)."""

    title: str
    baseline: float
    working: float
    met: bool | None
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
            {True: "met", False: "**NOT MET**", None: "context"}[self.met],
        ]

    @property
    def verdict(self) -> str:
        """`met`, `NOT MET` or `context` (a figure shown, not a goal)."""
        return {True: "met", False: "NOT MET", None: "context"}[self.met]


@dataclass(frozen=True)
class Figures:
    """What the goals are judged on: per size, then per tree (`BASELINE`, `WORKING`)."""

    process_ratio: Mapping[Size, Mapping[str, float]]
    """Raw aiohttp's process time ÷ `gauntlet run`'s."""
    loop_ratio: Mapping[Size, Mapping[str, float]]
    """The same from each process's first ask to its end."""
    first_ask: Mapping[Size, Mapping[str, float]]
    """Seconds from the spawn of `gauntlet run` to its first ask."""
    version_ratio: Mapping[str, float]
    validate_ratio: Mapping[str, float]
    load_seconds: Mapping[str, float]
    mb_per_thousand: Mapping[str, float]
    mb_spread: float = 0.0
    """The spread of the baseline's own runs' peak memory per 1,000 cases."""
    load_cases: int = SIZES[0].cases


def _ratio(value: float) -> str:
    return f"{value:.3f}×"


def _times(value: float) -> str:
    return f"{value:.2f}×"


def _pair(figures: Mapping[str, float]) -> tuple[float, float]:
    return figures[BASELINE], figures[WORKING]


def _size_goals(figures: Figures) -> list[Goal]:
    goals: list[Goal] = []
    for size, ratios in figures.process_ratio.items():
        where = f"`gauntlet run` at {LATENCY_MS:g} ms, {size.label}"
        goals += [
            Goal(
                f"{where}: at least {RUN_FACTOR}× the throughput of raw aiohttp run as a "
                "process (process vs process)",
                *_pair(ratios),
                ratios[WORKING] >= RUN_FACTOR,
                _ratio,
            ),
            Goal(
                f"{where}, from the first ask to the end (in-loop), ÷ raw aiohttp's",
                *_pair(figures.loop_ratio[size]),
                None,
                _ratio,
            ),
            Goal(
                f"{where}: start-up, from the spawn to the first ask",
                *_pair(figures.first_ask[size]),
                None,
                lambda value: f"{1000 * value:.0f} ms",
            ),
        ]
    return goals


def judge(figures: Figures) -> list[Goal]:
    """Each goal's verdict on the working tree's figure (the baseline's shown beside it).

    Memory may exceed the baseline's by `figures.mb_spread`, the noise of `ru_maxrss` from
    run to run, so that two identical trees are not told apart by chance.
    """
    spread = figures.mb_spread
    return [
        *_size_goals(figures),
        Goal(
            f"`gauntlet --version` within {STARTUP_FACTOR:g}× `python -c pass`",
            *_pair(figures.version_ratio),
            figures.version_ratio[WORKING] <= STARTUP_FACTOR,
            _times,
        ),
        Goal(
            f"`gauntlet validate` of one small file within {STARTUP_FACTOR:g}× `python -c pass`",
            *_pair(figures.validate_ratio),
            figures.validate_ratio[WORKING] <= STARTUP_FACTOR,
            _times,
        ),
        Goal(
            f"loading {figures.load_cases:,} cases (`load_suites`, imports apart) under "
            f"{LOAD_LIMIT_S:g} s",
            *_pair(figures.load_seconds),
            figures.load_seconds[WORKING] < LOAD_LIMIT_S,
            lambda value: f"{value:.3f} s",
        ),
        Goal(
            "peak memory of `gauntlet run` per 1,000 cases no higher than the baseline's "
            f"beyond the spread of the baseline's own runs ({spread:.2f} MB)",
            *_pair(figures.mb_per_thousand),
            figures.mb_per_thousand[WORKING] <= figures.mb_per_thousand[BASELINE] + spread,
            lambda value: f"{value:.2f} MB",
        ),
    ]


def goal_figures(goals: Goals) -> Figures:
    """The figures of what `goals` measured."""
    bare = goals.bare_seconds
    first = goals.first
    keys = (BASELINE, WORKING)
    return Figures(
        process_ratio={
            runs.size: {key: runs.raw_seconds / runs.seconds(key) for key in keys}
            for runs in goals.sizes
        },
        loop_ratio={
            runs.size: {
                key: after_first_ask(runs.raw_process) / after_first_ask(runs.runs[key])
                for key in keys
            }
            for runs in goals.sizes
        },
        first_ask={
            runs.size: {key: first_ask(runs.runs[key]) for key in keys} for runs in goals.sizes
        },
        version_ratio={key: statistics.median(goals.figures[key].version) / bare for key in keys},
        validate_ratio={key: statistics.median(goals.figures[key].validate) / bare for key in keys},
        load_seconds={key: goals.figures[key].load("first") for key in keys},
        mb_per_thousand={key: 1000 * peak_mb(first.runs[key]) / first.size.cases for key in keys},
        mb_spread=1000 * peak_spread(first.runs[BASELINE]) / first.size.cases,
        load_cases=first.size.cases,
    )


def goal_verdicts(goals: Goals) -> list[Goal]:
    """The goals judged on what `goals` measured."""
    return judge(goal_figures(goals))


# ------------------------------------------------------------------ measuring


def measure_raw_process(stub: Stub, size: Size, prompts_file: Path) -> ChildRun:
    """The raw aiohttp loop as a whole process, through the launcher."""
    script = prompts_file.with_name("raw_aiohttp.py")
    if not script.exists():
        script.write_text(RAW_PROCESS, encoding="utf-8")
    stub.first_ask()  # forget earlier asks
    child = run_child(
        [sys.executable, str(script), stub.url, str(size.concurrency), str(prompts_file)]
    )
    if child.status != 0:
        raise RuntimeError(
            f"the raw aiohttp process exited {child.status}:\n{child.output[-2000:]}"
        )
    child.first_ask = since_launch(child, stub.first_ask())
    return child


def measure_tree_run(goals: Goals, key: str, stub: Stub, runs: SizeRuns, cases_dir: Path) -> None:
    """One `gauntlet run` of a tree over the size's cases; checks every case passed."""
    out = cases_dir.parent / "goal-results.json"
    tree = goals.trees[key]
    child, _, document = run_cli(
        stub, cases_dir, runs.size.concurrency, out, command=tree.command, env=tree.env()
    )
    totals = document["totals"]
    if totals["passed"] != runs.size.cases or totals["total"] != runs.size.cases:
        raise RuntimeError(f"{key}: gauntlet run: {totals}")
    out.unlink()
    runs.runs.setdefault(key, []).append(child)


def measure_size(goals: Goals, stub: Stub, size: Size, root: Path, repeats: int) -> SizeRuns:
    """The raw loop (in the driver, as a process) and each tree's `gauntlet run`, in turns."""
    work = root / f"size-{size.cases}"
    cases_dir = write_case_files(work / "cases", size.cases)
    prompts = prompts_of(load_suites([cases_dir]))
    prompts_file = work / "prompts.json"
    prompts_file.write_text(json.dumps(prompts), encoding="utf-8")
    runs = SizeRuns(size)
    order = [BASELINE, WORKING]
    for _ in range(repeats):
        gc.collect()
        runs.raw_loop.append(measure_raw(stub, prompts, size.concurrency))
        runs.raw_process.append(measure_raw_process(stub, size, prompts_file))
        for key in order:
            gc.collect()
            measure_tree_run(goals, key, stub, runs, cases_dir)
        order.reverse()  # neither tree always runs right after the raw loop
    print(f"  {size.label}: raw aiohttp in the driver's loop {runs.loop_seconds:.3f} s")
    for label, children in runs.clients():
        seconds = statistics.median(child.seconds for child in children)
        print(
            f"  {size.label}: {label:<22} {seconds:8.3f} s, first ask at "
            f"{1000 * first_ask(children):5.0f} ms, {runs.raw_seconds / seconds:.3f}× the raw "
            f"process's throughput, {runs.loop_seconds / seconds:.3f}× the in-driver loop's",
            flush=True,
        )
    return runs


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
            if figures["cases"] != goals.first.size.cases or not under(figures["file"], tree.src):
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
    sizes: Sequence[Size] = SIZES,
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
        trees=trees,
        started_at=datetime.now(UTC),
        load_before=os.getloadavg()[0],
        figures={key: GoalRun() for key in trees},
    )
    began = time.perf_counter()
    print(
        "\npipeline cost against a baseline: "
        + "; ".join(size.label for size in sizes)
        + f", load average {goals.load_before:.2f}"
    )
    for tree in trees.values():
        print(f"  {tree.label}: {tree.src} ({tree.revision or 'not in git'}), {tree.entry}")
    with Stub(LATENCY_MS) as stub:
        print(f"  stub server at {stub.url}, {LATENCY_MS:g} ms latency")
        goals.sizes = [measure_size(goals, stub, size, root, repeats) for size in sizes]
    small_file = write_case_files(root / "small", 1) / "bench-001.yaml"
    measure_startups(goals, small_file, startup_runs)
    measure_loads(goals, root / f"size-{sizes[0].cases}" / "cases", load_runs, root)
    goals.elapsed = time.perf_counter() - began
    goals.load_after = os.getloadavg()[0]
    for goal in goal_verdicts(goals):
        print(
            f"  {goal.verdict:<8} {goal.title}: baseline {goal.show(goal.baseline)}, "
            f"working tree {goal.show(goal.working)}"
        )
    print(f"  the pipeline-cost section took {goals.elapsed:.0f} s")
    return goals
