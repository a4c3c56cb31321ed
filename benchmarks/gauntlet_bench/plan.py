"""The command line: what to measure."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gauntlet_bench.config import BENCHMARKS, ONE_RUN_ABOVE
from gauntlet_bench.goals import SIZES, Size, entry_point


@dataclass
class Plan:
    """What to measure."""

    cases: int
    concurrencies: tuple[int, ...]
    latencies: tuple[float, ...]
    repeats: int
    memory_cases: int
    memory_concurrency: int
    startup_runs: int
    load_requests: int
    results: Path | None
    profile: bool
    scale_only: bool
    scale_cases: int
    scale_repeat: int
    scale_shards: int
    scale_memory_cases: tuple[int, ...]
    scale_concurrency: int
    baseline_src: Path | None = None
    """A baseline checkout's src/ directory: the pipeline-cost section runs against it."""
    goals_only: bool = False
    goals_sizes: tuple[Size, ...] = SIZES
    """The end-to-end sizes (cases, concurrency) of the pipeline-cost section."""
    goals_repeats: int = 5
    goals_startup_runs: int = 21
    goals_load_runs: int = 5
    semantic_only: bool = False
    semantic_cases: int = 2_000
    """Golden cases of the `match: semantic` section; 0 skips it."""


def parse_plan(argv: Sequence[str] | None) -> Plan:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        description="Benchmark gauntlet's HTTP engine against a loopback stub server."
    )

    def numbers(kind: Callable[[str], float | int]) -> Callable[[str], tuple[float | int, ...]]:
        return lambda text: tuple(kind(part) for part in text.split(",") if part.strip())

    parser.add_argument("--cases", type=int, default=2000, help="cases per run (2000)")
    parser.add_argument(
        "--concurrency",
        type=numbers(int),
        default=None,
        help="comma-separated concurrencies (1,8,32,64,128)",
    )
    parser.add_argument(
        "--latency-ms", type=numbers(float), default=None, help="stub latencies in ms (0,50)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="runs per mode and configuration, the median reported (3; 1 with --quick); "
        f"a configuration whose ideal time exceeds {ONE_RUN_ABOVE:g} s runs once",
    )
    parser.add_argument("--memory-cases", type=int, default=20_000, help="(20000; 0: skip)")
    parser.add_argument("--memory-concurrency", type=int, default=32, help="(32)")
    parser.add_argument("--startup-runs", type=int, default=None, help="(9; 3 with --quick)")
    parser.add_argument(
        "--load-requests",
        type=int,
        default=20_000,
        help="requests per load-generator run at 0 ms (20000)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke check: C = 8,32,128, one run each, no scale section, no RESULTS.md "
        "unless --results",
    )
    parser.add_argument(
        "--scale-only",
        action="store_true",
        help="run only the performance-at-scale section and replace that section of "
        "RESULTS.md, keeping the others",
    )
    parser.add_argument(
        "--scale-cases",
        type=int,
        default=20_000,
        help="cases of the scale section's repeat and shard runs (20000; 0: skip them)",
    )
    parser.add_argument("--scale-repeat", type=int, default=3, help="(3)")
    parser.add_argument("--scale-shards", type=int, default=4, help="(4)")
    parser.add_argument(
        "--scale-memory-cases",
        type=numbers(int),
        default=(5_000, 20_000, 80_000),
        help="case counts whose peak memory is measured (5000,20000,80000; '': none)",
    )
    parser.add_argument("--scale-concurrency", type=int, default=32, help="(32)")
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        metavar="DIR",
        help="a baseline gauntlet checkout's src/ directory: also measure the pipeline's cost "
        "(issue 19) for it and for this working tree, in this run",
    )
    parser.add_argument(
        "--goals-only",
        action="store_true",
        help="run only the pipeline-cost section (needs --baseline-src) and replace that "
        "section of RESULTS.md, keeping the others",
    )
    parser.add_argument(
        "--goals-sizes",
        type=sizes_of,
        default=SIZES,
        help="end-to-end sizes, CASESxCONCURRENCY, comma-separated; the first is also where "
        "memory and loading are measured (5000x64,2000x32)",
    )
    parser.add_argument(
        "--goals-repeats",
        type=int,
        default=None,
        help="`gauntlet run` runs per tree, taking turns with raw aiohttp (5; 1 with --quick)",
    )
    parser.add_argument(
        "--goals-startup-runs",
        type=int,
        default=None,
        help="runs of each start-up command (21; 3 with --quick)",
    )
    parser.add_argument(
        "--goals-load-runs",
        type=int,
        default=None,
        help="fresh processes loading the cases, per tree (5; 1 with --quick)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="where to write the Markdown results (benchmarks/RESULTS.md; none with --quick)",
    )
    parser.add_argument(
        "--semantic-only",
        action="store_true",
        help="only the cost of `match: semantic` against `match: exact`, a minute or two; "
        "replaces its section of RESULTS.md",
    )
    parser.add_argument(
        "--semantic-cases",
        type=int,
        default=2000,
        help="golden cases of the `match: semantic` section (2000; 0: skip)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead of benchmarking, run the engine once per configuration under cProfile "
        "and print where its time goes",
    )
    options = parser.parse_args(argv)
    quick = options.quick
    concurrencies = options.concurrency or ((8, 32, 128) if quick else (1, 8, 32, 64, 128))
    latencies = options.latency_ms or (0.0, 50.0)
    results = options.results
    if results is None and not quick and not options.profile:
        results = BENCHMARKS / "RESULTS.md"
    if options.cases < 1 or min(concurrencies) < 1 or min(latencies) < 0:
        parser.error("cases and concurrencies must be positive, latencies not negative")
    if options.scale_only and (options.profile or quick):
        parser.error("--scale-only goes with neither --profile nor --quick")
    scale_memory = tuple(int(n) for n in options.scale_memory_cases)
    if options.scale_cases < 0 or (scale_memory and min(scale_memory) < 1):
        parser.error("scale case counts must be positive (--scale-cases 0 skips)")
    if options.scale_repeat < 1 or options.scale_shards < 2 or options.scale_concurrency < 1:
        parser.error("--scale-repeat and --scale-concurrency at least 1, --scale-shards 2")
    if options.scale_only and not (options.scale_cases or scale_memory):
        parser.error("--scale-only with nothing to measure")
    if options.semantic_only and (options.profile or options.scale_only or options.goals_only):
        parser.error("--semantic-only goes with none of --profile, --scale-only, --goals-only")
    if options.semantic_cases < 0 or (options.semantic_only and not options.semantic_cases):
        parser.error("--semantic-cases must be positive (0 skips, but not with --semantic-only)")
    if options.goals_only and (options.profile or options.scale_only):
        parser.error("--goals-only goes with neither --profile nor --scale-only")
    if options.goals_only and options.baseline_src is None:
        parser.error("--goals-only needs --baseline-src DIR, a baseline checkout's src/")
    if options.baseline_src is not None:
        problem = baseline_problem(options.baseline_src)
        if problem:
            parser.error(f"--baseline-src {options.baseline_src}: {problem}")
    goal_runs = (options.goals_repeats, options.goals_startup_runs, options.goals_load_runs)
    if any(runs is not None and runs < 1 for runs in goal_runs):
        parser.error("the --goals-*-runs must be positive")
    return Plan(
        cases=options.cases,
        concurrencies=tuple(int(c) for c in concurrencies),
        latencies=tuple(float(latency) for latency in latencies),
        repeats=max(1, options.repeats or (1 if quick else 3)),
        memory_cases=max(0, options.memory_cases),
        memory_concurrency=max(1, options.memory_concurrency),
        startup_runs=max(1, options.startup_runs or (3 if quick else 9)),
        load_requests=max(1, options.load_requests),
        results=results,
        profile=options.profile,
        scale_only=options.scale_only,
        scale_cases=0 if quick else options.scale_cases,
        scale_repeat=options.scale_repeat,
        scale_shards=options.scale_shards,
        scale_memory_cases=() if quick else scale_memory,
        scale_concurrency=options.scale_concurrency,
        baseline_src=options.baseline_src,
        goals_only=options.goals_only,
        goals_sizes=options.goals_sizes,
        goals_repeats=options.goals_repeats or (1 if quick else 5),
        goals_startup_runs=options.goals_startup_runs or (3 if quick else 21),
        goals_load_runs=options.goals_load_runs or (1 if quick else 5),
        semantic_only=options.semantic_only,
        semantic_cases=options.semantic_cases,
    )


def baseline_problem(src: Path) -> str | None:
    """Why `src` is not a gauntlet checkout's src/ directory, or None when it is one."""
    if not (src / "gauntlet" / "__init__.py").is_file():
        return "no gauntlet/__init__.py in it; give a checkout's src/ directory"
    try:
        entry_point(src.resolve().parent / "pyproject.toml")
    except ValueError as error:
        return str(error)
    return None


def sizes_of(text: str) -> tuple[Size, ...]:
    """`5000x64,2000x32` as sizes; a malformed or non-positive one is an argparse error."""
    sizes = []
    for part in text.split(","):
        cases, _, concurrency = part.strip().partition("x")
        if not (cases.isdigit() and concurrency.isdigit()) or min(int(cases), int(concurrency)) < 1:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r}: expected CASESxCONCURRENCY, both positive, e.g. 5000x64"
            )
        sizes.append(Size(int(cases), int(concurrency)))
    return tuple(sizes)
