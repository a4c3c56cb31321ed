"""Performance at scale: --repeat, shards merged, peak memory by case count (`--scale-only`)."""

from __future__ import annotations

import gc
import json
import math
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gauntlet_bench.cases import write_case_files
from gauntlet_bench.children import ChildRun, gauntlet_command, run_child, run_cli
from gauntlet_bench.config import CASES_PER_FILE, RUN_TIMEOUT
from gauntlet_bench.markdown import TargetCheck, command_line, fmt, markdown_table
from gauntlet_bench.plan import Plan
from gauntlet_bench.stub import Stub

SCALE_HEADING = "## Performance at scale"
LINEAR_BAND = (0.75, 4 / 3)
"""Memory grows "roughly linearly" when the MB per 1,000 cases over the larger sizes is within
this factor of the MB per 1,000 cases over the smaller ones."""


@dataclass
class ScaleRun:
    """One `gauntlet run` (or `gauntlet merge`) of the scale section."""

    label: str
    cases: int
    asks: int
    """Answers recorded in the results file (every case's trials); the probe not counted."""
    child: ChildRun
    server_cpu: float = 0.0
    digest: str = ""
    """`results_digest` of `gauntlet report FILE --format json`, where it was read."""

    @property
    def asks_per_second(self) -> float:
        """Asks over the whole process's wall time (start-up, loading and writing included)."""
        return self.asks / self.child.seconds


@dataclass
class Scale:
    """Everything the scale section measured."""

    cases: int
    concurrency: int
    repeat: int
    shard_count: int
    started_at: datetime
    load_before: float
    repeated: ScaleRun | None = None
    unsharded: ScaleRun | None = None
    shards: list[ScaleRun] = field(default_factory=list)
    merge: ScaleRun | None = None
    memory: list[ScaleRun] = field(default_factory=list)
    elapsed: float = 0.0
    load_after: float = 0.0


def results_digest(path: Path) -> str:
    """`results_digest` from `gauntlet report PATH --format json`."""
    completed = subprocess.run(  # noqa: S603 - fixed argv, no shell
        [*gauntlet_command(), "report", str(path), "--format", "json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"gauntlet report exited {completed.returncode}:\n{completed.stderr}")
    digest = json.loads(completed.stdout).get("results_digest")
    if not isinstance(digest, str) or not digest:
        raise RuntimeError(f"gauntlet report {path}: no results_digest")
    return digest


def scale_run(
    stub: Stub,
    label: str,
    cases_dir: Path,
    concurrency: int,
    out: Path,
    *extra: str,
    expect_cases: int | None,
    expect_asks_per_case: int = 1,
) -> ScaleRun:
    """One `gauntlet run` whose cases must all pass; `expect_cases` None for a shard."""
    gc.collect()
    child, server_cpu, document = run_cli(stub, cases_dir, concurrency, out, *extra)
    totals = document["totals"]
    asks = sum(len(case["trials"]) for case in document["cases"])
    del document
    cases = int(totals["total"])
    if totals["passed"] != cases or (expect_cases is not None and cases != expect_cases):
        raise RuntimeError(f"{label}: {totals}, expected {expect_cases} cases all passed")
    if asks != cases * expect_asks_per_case:
        raise RuntimeError(f"{label}: {asks} asks for {cases} cases x {expect_asks_per_case}")
    run = ScaleRun(label, cases, asks, child, server_cpu)
    print(
        f"  {label:<34} {cases:>7,} cases {asks:>7,} asks  {child.seconds:8.2f} s  "
        f"{run.asks_per_second:6,.0f} asks/s  peak RSS {child.peak_mb:7.1f} MB",
        flush=True,
    )
    return run


def run_scale(plan: Plan, work: Path) -> Scale:
    """Repeat, shard-and-merge, and peak memory by case count, at 0 ms latency."""
    scale = Scale(
        cases=plan.scale_cases,
        concurrency=plan.scale_concurrency,
        repeat=plan.scale_repeat,
        shard_count=plan.scale_shards,
        started_at=datetime.now(UTC),
        load_before=os.getloadavg()[0],
    )
    began = time.perf_counter()
    root = work / "scale"
    root.mkdir()
    concurrency = plan.scale_concurrency
    memory_sizes = sorted(set(plan.scale_memory_cases))
    with Stub(0.0) as stub:
        print(
            f"\nperformance at scale: stub server at {stub.url}, 0 ms latency, "
            f"C={concurrency}; load average {scale.load_before:.2f}"
        )
        if plan.scale_cases:
            cases_dir = write_case_files(root / "cases", plan.scale_cases)
            # The unsharded run: the sharding baseline, and a point of the memory curve.
            unsharded_out = root / "unsharded.json"
            unsharded = scale_run(
                stub,
                "unsharded, repeat 1",
                cases_dir,
                concurrency,
                unsharded_out,
                expect_cases=plan.scale_cases,
            )
            unsharded.digest = results_digest(unsharded_out)
            scale.unsharded = unsharded
            shard_files = []
            for index in range(1, plan.scale_shards + 1):
                out = root / f"shard-{index}.json"
                shard_files.append(out)
                scale.shards.append(
                    scale_run(
                        stub,
                        f"shard {index}/{plan.scale_shards}",
                        cases_dir,
                        concurrency,
                        out,
                        "--shard",
                        f"{index}/{plan.scale_shards}",
                        expect_cases=None,
                    )
                )
            covered = sum(run.cases for run in scale.shards)
            if covered != plan.scale_cases:
                raise RuntimeError(f"the shards hold {covered} cases, not {plan.scale_cases}")
            merged_out = root / "merged.json"
            gc.collect()
            child = run_child(
                [*gauntlet_command(), "merge", *map(str, shard_files), "--out", str(merged_out)]
            )
            if child.status != 0:
                raise RuntimeError(f"gauntlet merge exited {child.status}:\n{child.output}")
            scale.merge = ScaleRun("merge", covered, 0, child, digest=results_digest(merged_out))
            print(
                f"  {'gauntlet merge':<34} {covered:>7,} cases {'':>12}  {child.seconds:8.2f} s"
                f"  {'':>13}  peak RSS {child.peak_mb:7.1f} MB"
            )
            for path in (*shard_files, merged_out, unsharded_out):
                path.unlink()
            scale.repeated = scale_run(
                stub,
                f"repeat {plan.scale_repeat}",
                cases_dir,
                concurrency,
                root / "repeated.json",
                "--repeat",
                str(plan.scale_repeat),
                expect_cases=plan.scale_cases,
                expect_asks_per_case=plan.scale_repeat,
            )
            (root / "repeated.json").unlink()
            shutil.rmtree(cases_dir)
        for size in memory_sizes:
            if scale.unsharded is not None and size == scale.unsharded.cases:
                scale.memory.append(scale.unsharded)
                continue
            cases_dir = write_case_files(root / f"memory-{size}", size)
            out = root / f"memory-{size}.json"
            scale.memory.append(
                scale_run(stub, "memory, repeat 1", cases_dir, concurrency, out, expect_cases=size)
            )
            out.unlink()
            shutil.rmtree(cases_dir)
    scale.memory.sort(key=lambda run: run.cases)
    scale.elapsed = time.perf_counter() - began
    scale.load_after = os.getloadavg()[0]
    for line in scale_verdicts(scale):
        print("  " + line)
    print(f"  the scale section took {scale.elapsed:.0f} s")
    return scale


def shard_verdict(scale: Scale) -> TargetCheck | None:
    """Whether the merged shards' results digest equals the unsharded run's."""
    if scale.unsharded is None or scale.merge is None:
        return None
    same = scale.merge.digest == scale.unsharded.digest
    detail = (
        f"both {scale.merge.digest}"
        if same
        else f"merged {scale.merge.digest}, unsharded {scale.unsharded.digest}"
    )
    return TargetCheck(
        f"{scale.shard_count} shards merged give the unsharded run's results digest", same, detail
    )


@dataclass
class Growth:
    """Peak memory against the case count."""

    slope: float
    """MB per 1,000 cases, least squares over every size."""
    intercept: float
    """MB at 0 cases by the same line: start-up, imports, the fixed cost."""
    first: float
    """MB per 1,000 cases between the two smallest sizes."""
    last: float
    """MB per 1,000 cases between the two largest sizes."""
    linear: bool | None
    """None with fewer than three sizes: linearity cannot be judged."""
    shape: str


def memory_growth(runs: Sequence[ScaleRun]) -> Growth | None:
    """Fit peak RSS to the case count; judge whether it grows roughly linearly."""
    if len(runs) < 2:
        return None
    xs = [run.cases / 1000 for run in runs]
    ys = [run.child.peak_mb for run in runs]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    first = (ys[1] - ys[0]) / (xs[1] - xs[0])
    last = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    linear: bool | None = None
    shape = "two sizes only, linearity not judged"
    if len(runs) >= 3:
        ratio = last / first if first > 0 else math.inf
        low, high = LINEAR_BAND
        linear = low <= ratio <= high
        pace = "" if linear else "; faster than linear" if ratio > high else "; slower"
        shape = (
            f"the MB per 1,000 cases between the two largest sizes is {ratio:.2f}× that "
            f"between the two smallest; roughly linear is {low:.2f}× to {high:.2f}×{pace}"
        )
    return Growth(slope, mean_y - slope * mean_x, first, last, linear, shape)


def marginal_mb(before: ScaleRun | None, run: ScaleRun) -> float | None:
    """MB of peak RSS per 1,000 cases from the `before` size to `run`'s."""
    if before is None:
        return None
    return 1000 * (run.child.peak_mb - before.child.peak_mb) / (run.cases - before.cases)


def scale_verdicts(scale: Scale) -> list[str]:
    """The computed lines of the scale section (console and RESULTS.md)."""
    lines = []
    if scale.repeated is not None and scale.unsharded is not None:
        lines.append(
            f"- {scale.cases:,} cases × --repeat {scale.repeat}: {scale.repeated.asks:,} asks in "
            f"{scale.repeated.child.seconds:.2f} s = {scale.repeated.asks_per_second:,.0f} "
            f"asks/s (repeat 1: {scale.unsharded.asks_per_second:,.0f} asks/s), peak RSS "
            f"{scale.repeated.child.peak_mb:.1f} MB (repeat 1: "
            f"{scale.unsharded.child.peak_mb:.1f} MB)"
        )
    verdict = shard_verdict(scale)
    if verdict is not None and scale.unsharded is not None and scale.merge is not None:
        times = [run.child.seconds for run in scale.shards]
        lines.append(verdict.line())
        lines.append(
            f"- {scale.shard_count} shards one after another: sum {sum(times):.2f} s, longest "
            f"{max(times):.2f} s, merge {scale.merge.child.seconds:.2f} s; unsharded "
            f"{scale.unsharded.child.seconds:.2f} s. On {scale.shard_count} runners at once the "
            f"wait would be about the longest shard plus the merge, "
            f"{max(times) + scale.merge.child.seconds:.2f} s "
            f"({(max(times) + scale.merge.child.seconds) / scale.unsharded.child.seconds:.2f}× "
            "the unsharded run)"
        )
    growth = memory_growth(scale.memory)
    if growth is not None:
        word = {True: "yes", False: "NO", None: "not judged"}[growth.linear]
        sizes = ", ".join(f"{run.cases:,}: {run.child.peak_mb:.1f} MB" for run in scale.memory)
        lines.append(
            f"- peak memory of `gauntlet run` grows roughly linearly with the case count: "
            f"**{word}** ({growth.shape})"
        )
        lines.append(
            f"- peak memory grows by {growth.slope:.2f} MB per 1,000 cases (least squares; "
            f"{growth.first:.2f} between the two smallest sizes, {growth.last:.2f} between the "
            f"two largest) over about {growth.intercept:.0f} MB fixed ({sizes}); not flat, as "
            "results.json holds every case's answers"
        )
    return lines


def scale_markdown(scale: Scale, plan: Plan) -> list[str]:
    """The scale section of RESULTS.md, with its own date, command and load average."""
    busy = (
        f" — **taken while other work was running on the machine** (load above 1 on "
        f"{os.cpu_count()} CPUs)"
        if scale.load_before > 1
        else ""
    )
    lines = [
        SCALE_HEADING,
        "",
        f"- Date: {scale.started_at:%Y-%m-%d %H:%M} UTC; this section took {scale.elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        f"- Load average (1 min) {scale.load_before:.2f} at the start, "
        f"{scale.load_after:.2f} at the end{busy}",
        f"- `gauntlet run --quiet` against the stub at 0 ms latency, --concurrency "
        f"{scale.concurrency}, cases in files of at most {CASES_PER_FILE}; one run each. "
        "Times are the whole process (start-up, loading, the pre-flight probe, asking, "
        "scoring, writing results.json); asks = the answers recorded in results.json (the "
        "probe not counted); peak RSS is the process's own (`wait4`)",
        "",
        *scale_verdicts(scale),
        "",
    ]
    runs = [
        *([scale.repeated] if scale.repeated else []),
        *([scale.unsharded] if scale.unsharded else []),
        *scale.shards,
        *([scale.merge] if scale.merge else []),
        *(run for run in scale.memory if run is not scale.unsharded),
    ]
    lines += markdown_table(
        ("run", "cases", "asks", "time s", "asks/s", "client CPU", "peak RSS MB"),
        [
            [
                f"`gauntlet merge` ({scale.shard_count} shards)"
                if run is scale.merge
                else run.label,
                f"{run.cases:,}",
                f"{run.asks:,}" if run.asks else "—",
                f"{run.child.seconds:.2f}",
                f"{run.asks_per_second:,.0f}" if run.asks else "—",
                f"{100 * run.child.cpu / run.child.seconds:.0f} %",
                f"{run.child.peak_mb:.1f}",
            ]
            for run in runs
        ],
    )
    growth = memory_growth(scale.memory)
    if growth is not None:
        lines += [
            "",
            "Peak memory by case count (repeat 1):",
            "",
            *markdown_table(
                (
                    "cases",
                    "peak RSS MB",
                    "MB per 1,000 cases since the previous size",
                    "peak ÷ cases, MB per 1,000 (fixed cost included)",
                    "time s",
                ),
                [
                    [
                        f"{run.cases:,}",
                        f"{run.child.peak_mb:.1f}",
                        fmt(marginal_mb(before, run), ".2f"),
                        f"{1000 * run.child.peak_mb / run.cases:.2f}",
                        f"{run.child.seconds:.2f}",
                    ]
                    for before, run in zip([None, *scale.memory[:-1]], scale.memory, strict=True)
                ],
            ),
            "",
            "Issue 8 asks that peak memory stay flat as the case count grows. The results "
            "format cannot do that: results.json keeps every case with every answer (its "
            "digest covers them all), so the memory of a run grows with its case count. "
            "What is reported instead is the cost per 1,000 cases and whether it stays "
            "constant (linear growth) rather than rising with the size.",
        ]
    return lines
