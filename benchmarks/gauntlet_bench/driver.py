"""The driver: every section in turn, printed as it goes, then RESULTS.md."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet_bench import streaming
from gauntlet_bench.cases import prompts_of, write_case_files
from gauntlet_bench.children import gauntlet_command, measure_cli
from gauntlet_bench.config import ONE_RUN_ABOVE
from gauntlet_bench.goals import GOALS_HEADING, Goals, run_goals
from gauntlet_bench.goals_report import goals_markdown
from gauntlet_bench.loadgen import load_generator
from gauntlet_bench.markdown import read_section, splice_section
from gauntlet_bench.measure import (
    CLI,
    ENGINE,
    MODES,
    RAW,
    Row,
    ideal_ratio,
    measure_engine,
    measure_raw,
)
from gauntlet_bench.plan import Plan, parse_plan
from gauntlet_bench.profiling import profile_engine, profile_streaming
from gauntlet_bench.report import (
    RUN_COLUMNS,
    cli_lines,
    console_line,
    judge_targets,
    run_cells,
    write_markdown,
)
from gauntlet_bench.scale import SCALE_HEADING, Scale, run_scale, scale_markdown
from gauntlet_bench.semantic import SEMANTIC_HEADING, Semantic, run_semantic, semantic_markdown
from gauntlet_bench.startup import Startup, measure_startup
from gauntlet_bench.stub import Stub


@contextlib.contextmanager
def no_proxies() -> Iterator[None]:
    """Keep HTTP(S)_PROXY from routing loopback requests anywhere (GauntletTarget trusts env)."""
    saved = {key: os.environ.get(key) for key in ("NO_PROXY", "no_proxy")}
    for key in saved:
        os.environ[key] = "127.0.0.1,localhost"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv: Sequence[str] | None = None) -> int:
    """Measure everything the plan asks for, print it, and write RESULTS.md."""
    plan = parse_plan(argv)
    # A user's install caches bytecode; a shell that says not to would have every child
    # compile gauntlet afresh (about 2 s a process here) and measure the compiler instead.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if plan.scale_only:
        return main_scale_only(plan)
    if plan.goals_only:
        return main_goals_only(plan)
    if plan.semantic_only:
        return main_semantic_only(plan)
    started_at = datetime.now(UTC)
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    rows: list[Row] = []
    load_rows: list[Row] = []
    memory: Row | None = None
    stream: streaming.Streaming | None = None
    scale: Scale | None = None
    goals: Goals | None = None
    semantic: Semantic | None = None
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        work = Path(temp)
        cases_dir = write_case_files(work / "cases", plan.cases)
        suites = load_suites([cases_dir])
        prompts = prompts_of(suites)
        out = work / "results.json"
        if plan.profile:
            profile_engine(plan, suites)
            profile_streaming(suites, work)
            return 0
        print(f"gauntlet benchmarks: {plan.cases:,} cases per run, {os.cpu_count()} CPUs")
        for latency in plan.latencies:
            with Stub(latency) as stub:
                print(f"\nstub server at {stub.url}, {latency:g} ms latency")
                load_rows += run_load_generator(stub, plan)
                print("  " + console_line(RUN_COLUMNS))
                for concurrency in plan.concurrencies:
                    rows += run_configuration(
                        stub, plan, suites, prompts, cases_dir, out, concurrency
                    )
                if plan.memory_cases and latency == 0:
                    memory = run_memory(stub, plan, work)
        stream = run_streaming(plan, suites, prompts, work)
        startups = run_startups(plan)
        if plan.scale_cases or plan.scale_memory_cases:
            scale = run_scale(plan, work)
        if plan.baseline_src is not None:
            goals = measure_goals(plan, work)
        if plan.semantic_cases:
            semantic = measure_semantic(plan, work)
    elapsed = time.perf_counter() - began
    loads = (load_before, os.getloadavg()[0])
    verdicts = judge_targets(rows, memory, stream)
    print("\nTargets:")
    for verdict in verdicts:
        print("  " + verdict.line())
    for line in cli_lines(rows):
        print("  " + line)
    print(f"\nbenchmarks took {elapsed:.0f} s")
    if plan.results is not None:
        kept = read_section(plan.results, GOALS_HEADING)
        kept_semantic = read_section(plan.results, SEMANTIC_HEADING)
        write_markdown(
            plan,
            started_at,
            elapsed,
            loads,
            rows,
            load_rows,
            memory,
            startups,
            verdicts,
            scale,
            stream,
        )
        # A run without a baseline keeps the last pipeline-cost section (it has its own date).
        section = goals_markdown(goals) if goals is not None else kept
        if section:
            splice_section(plan.results, GOALS_HEADING, section)
        # Likewise the `match: semantic` section, when this run skipped it.
        section = semantic_markdown(semantic) if semantic is not None else kept_semantic
        if section:
            splice_section(plan.results, SEMANTIC_HEADING, section)
        print(f"wrote {plan.results}")
    return 0


def measure_goals(plan: Plan, work: Path) -> Goals:
    """The pipeline-cost section: this working tree against `plan.baseline_src`."""
    assert plan.baseline_src is not None  # noqa: S101 - the caller checked
    return run_goals(
        plan.baseline_src,
        work,
        sizes=plan.goals_sizes,
        repeats=plan.goals_repeats,
        startup_runs=plan.goals_startup_runs,
        load_runs=plan.goals_load_runs,
    )


def main_goals_only(plan: Plan) -> int:
    """`--goals-only`: the pipeline-cost section alone, spliced into RESULTS.md."""
    print(f"gauntlet benchmarks, the pipeline's cost only: {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        goals = measure_goals(plan, Path(temp))
    if plan.results is not None:
        splice_section(plan.results, GOALS_HEADING, goals_markdown(goals))
        print(f"wrote the pipeline-cost section of {plan.results}")
    return 0


def measure_semantic(plan: Plan, work: Path) -> Semantic:
    """The `match: semantic` section: its cost against `match: exact`, and the cache's figure."""
    print(f"\n`match: semantic` against `match: exact`: {plan.semantic_cases:,} golden cases")
    semantic = run_semantic(work, plan.semantic_cases, plan.repeats)
    for line in semantic.lines():
        print("  " + line, flush=True)
    return semantic


def main_semantic_only(plan: Plan) -> int:
    """`--semantic-only`: the `match: semantic` section alone, spliced into RESULTS.md."""
    print(f"gauntlet benchmarks, the cost of `match: semantic` only: {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp:
        semantic = measure_semantic(plan, Path(temp))
    if plan.results is not None:
        splice_section(plan.results, SEMANTIC_HEADING, semantic_markdown(semantic))
        print(f"wrote the `match: semantic` section of {plan.results}")
    return 0


def main_scale_only(plan: Plan) -> int:
    """`--scale-only`: the scale section alone, spliced into RESULTS.md."""
    print(f"gauntlet benchmarks, performance at scale only: {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-") as temp, no_proxies():
        scale = run_scale(plan, Path(temp))
    if plan.results is not None:
        splice_section(plan.results, SCALE_HEADING, scale_markdown(scale, plan))
        print(f"wrote the scale section of {plan.results}")
    return 0


def run_load_generator(stub: Stub, plan: Plan) -> list[Row]:
    """The stub's capacity: at 0 ms, as many requests as it can; with latency, vs ideal."""
    rows = []
    connections = sorted({c for c in plan.concurrencies if c >= 8} | {32, 128})
    if stub.latency_ms > 0:
        connections = [c for c in connections if c >= 32]
    total = plan.load_requests if stub.latency_ms == 0 else plan.cases
    for count in connections:
        gc.collect()
        row = load_generator(stub, count, total)
        rows.append(row)
        sample = row.median
        ideal = f", {ideal_ratio(row):.3f}× ideal" if row.ideal else ""
        per_request = 1e6 * sample.server_cpu / total
        print(
            f"  load generator, {count:>3} connections: {total:,} requests in "
            f"{row.seconds:.3f} s = {row.rps:,.0f} req/s{ideal}; stub CPU "
            f"{100 * sample.server_cpu / row.seconds:.0f} % = {per_request:.0f} µs/request"
        )
    return rows


def run_configuration(
    stub: Stub,
    plan: Plan,
    suites: SuiteSet,
    prompts: Sequence[str],
    cases_dir: Path,
    out: Path,
    concurrency: int,
) -> list[Row]:
    """Every mode at one latency and concurrency, interleaved run by run."""
    rows = {mode: Row(mode, stub.latency_ms, concurrency, plan.cases) for mode in MODES}
    repeats = 1 if rows[RAW].ideal > ONE_RUN_ABOVE else plan.repeats
    for _ in range(repeats):
        for mode in MODES:
            gc.collect()
            if mode == RAW:
                sample = measure_raw(stub, prompts, concurrency)
            elif mode == ENGINE:
                sample = measure_engine(stub, suites, concurrency)
            else:
                sample, _ = measure_cli(stub, cases_dir, plan.cases, concurrency, out)
            rows[mode].samples.append(sample)
    for mode in MODES:
        print("  " + console_line(run_cells(rows[mode], rows[RAW])), flush=True)
    return list(rows.values())


def run_memory(stub: Stub, plan: Plan, work: Path) -> Row:
    """Peak RSS of `gauntlet run` over `plan.memory_cases` cases, at 0 ms latency."""
    cases_dir = write_case_files(work / "memory-cases", plan.memory_cases)
    row = Row(CLI, stub.latency_ms, plan.memory_concurrency, plan.memory_cases)
    sample, _ = measure_cli(
        stub, cases_dir, plan.memory_cases, plan.memory_concurrency, work / "memory.json"
    )
    row.samples.append(sample)
    shutil.rmtree(cases_dir)
    print(
        f"\n  memory: `gauntlet run` over {plan.memory_cases:,} cases "
        f"(C={plan.memory_concurrency}, 0 ms): {sample.seconds:.2f} s, "
        f"peak RSS {sample.extra:.1f} MB\n"
    )
    return row


def run_streaming(
    plan: Plan, suites: SuiteSet, prompts: Sequence[str], work: Path
) -> streaming.Streaming:
    """The openai-chat target, streamed and not, on its own stub at the streaming latency."""
    runs = streaming.RUNS if plan.repeats > 1 else 1
    with Stub(streaming.LATENCY_MS) as stub:
        print(
            f"\nstreaming: the openai-chat target at {stub.url}v1, {streaming.LATENCY_MS:g} ms, "
            f"C={streaming.CONCURRENCY}, {runs} runs each"
        )
        stream = streaming.run_streaming(
            f"{stub.url}v1", stub.cpu_seconds, suites, prompts, work, repeats=runs
        )
    for cells in stream.cells():
        print(f"  {cells[0]:<28}" + "".join(f"{cell:>12}" for cell in cells[1:]))
    print(f"  {stream.ratio:.3f}× (goal at most {streaming.FACTOR}×)", flush=True)
    return stream


def run_startups(plan: Plan) -> list[Startup]:
    """`python -c pass`, `import gauntlet.cli`, `gauntlet --version`, `gauntlet run --help`."""
    gauntlet = gauntlet_command()
    commands = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("python -c 'import gauntlet.cli'", [sys.executable, "-c", "import gauntlet.cli"]),
        ("gauntlet --version", [*gauntlet, "--version"]),
        ("gauntlet run --help", [*gauntlet, "run", "--help"]),
    ]
    startups = []
    print(f"\nCLI start-up (median of {plan.startup_runs} runs):")
    for label, argv in commands:
        startup = measure_startup(label, argv, plan.startup_runs)
        startups.append(startup)
        peak = max(run.peak_mb for run in startup.runs)
        print(f"  {label:<34} {startup.median * 1000:7.0f} ms   peak RSS {peak:5.1f} MB")
    return startups
