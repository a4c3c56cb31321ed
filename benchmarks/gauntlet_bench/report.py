"""The main RESULTS.md: the targets' verdicts, the tables, and the file written whole."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime

from gauntlet_bench import streaming
from gauntlet_bench.config import CASES_PER_FILE, ONE_RUN_ABOVE
from gauntlet_bench.markdown import (
    TargetCheck,
    command_line,
    fmt,
    machine_facts,
    markdown_table,
)
from gauntlet_bench.measure import CLI, ENGINE, RAW, Row, ideal_ratio, raw_ratio
from gauntlet_bench.plan import Plan
from gauntlet_bench.scale import Scale, scale_markdown
from gauntlet_bench.startup import Startup

# The project's targets.
LATENCY_TARGET_MS = 50.0
LATENCY_TARGET_CONCURRENCIES = (8, 32, 64, 128)
IDEAL_FACTOR = 1.25
RAW_FACTOR_AT_LATENCY = 0.85
ZERO_LATENCY_CONCURRENCY = 32
RAW_FACTOR_AT_ZERO = 0.35
MEMORY_LIMIT_MB = 300.0


RUN_COLUMNS = (
    "latency",
    "C",
    "mode",
    "runs",
    "time s",
    "req/s",
    "ideal s",
    "× ideal",
    "thru vs raw",
    "client CPU",
    "stub CPU",
)


def run_cells(row: Row, raw: Row | None) -> list[str]:
    """One table row's cells, the same on the console and in RESULTS.md."""
    sample = row.median
    return [
        f"{row.latency_ms:g} ms",
        str(row.concurrency),
        row.mode,
        str(len(row.samples)),
        f"{row.seconds:.3f}",
        f"{row.rps:,.0f}",
        fmt(row.ideal if row.ideal > 0 else None, ".3f"),
        fmt(ideal_ratio(row), ".3f", "×"),
        fmt(raw_ratio(row, raw), ".3f", "×"),
        f"{100 * sample.client_cpu / row.seconds:.0f} %",
        f"{100 * sample.server_cpu / row.seconds:.0f} %",
    ]


CONSOLE_WIDTHS = (8, 4, 16, 4, 9, 8, 8, 8, 11, 10, 8)


def console_line(cells: Sequence[str]) -> str:
    """Cells padded into fixed columns."""
    return "  ".join(
        f"{cell:<{width}}" if i == 2 else f"{cell:>{width}}"
        for i, (cell, width) in enumerate(zip(cells, CONSOLE_WIDTHS, strict=True))
    )


def find(rows: Sequence[Row], mode: str, latency: float, concurrency: int) -> Row | None:
    """The row of one mode and configuration, if it was measured."""
    for row in rows:
        if (row.mode, row.latency_ms, row.concurrency) == (mode, latency, concurrency):
            return row
    return None


def judge_targets(
    rows: Sequence[Row], memory: Row | None, stream: streaming.Streaming | None
) -> list[TargetCheck]:
    """Compute each target's verdict from the figures; each detail starts with its headline."""
    verdicts = []
    checks: list[tuple[str, Callable[[Row, Row], float | None], float, bool]] = [
        (
            f"{LATENCY_TARGET_MS:g} ms latency: the engine finishes within "
            f"{IDEAL_FACTOR}× the ideal time at C = "
            + ", ".join(map(str, LATENCY_TARGET_CONCURRENCIES)),
            lambda row, raw: ideal_ratio(row),
            IDEAL_FACTOR,
            False,
        ),
        (
            f"{LATENCY_TARGET_MS:g} ms latency: the engine's throughput is at least "
            f"{RAW_FACTOR_AT_LATENCY}× raw aiohttp's at C = "
            + ", ".join(map(str, LATENCY_TARGET_CONCURRENCIES)),
            raw_ratio,
            RAW_FACTOR_AT_LATENCY,
            True,
        ),
    ]
    for title, ratio, bound, at_least in checks:
        parts, missing, failed, values = [], False, False, []
        for concurrency in LATENCY_TARGET_CONCURRENCIES:
            row = find(rows, ENGINE, LATENCY_TARGET_MS, concurrency)
            raw = find(rows, RAW, LATENCY_TARGET_MS, concurrency)
            value = ratio(row, raw) if row is not None and raw is not None else None
            if value is None:
                parts.append(f"C={concurrency} not measured")
                missing = True
                continue
            ok = value >= bound if at_least else value <= bound
            parts.append(f"C={concurrency} {value:.3f}×{'' if ok else ' ✗'}")
            values.append(value)
            failed = failed or not ok
        met = False if failed else (None if missing else True)
        if values:
            worst = min(values) if at_least else max(values)
            parts[0] = f"at worst {worst:.3f}×: {parts[0]}"
        verdicts.append(TargetCheck(title, met, "; ".join(parts)))
    row = find(rows, ENGINE, 0.0, ZERO_LATENCY_CONCURRENCY)
    raw = find(rows, RAW, 0.0, ZERO_LATENCY_CONCURRENCY)
    title = (
        f"0 ms latency: the engine keeps at least {RAW_FACTOR_AT_ZERO}× raw aiohttp's "
        f"throughput at C = {ZERO_LATENCY_CONCURRENCY}"
    )
    if row is None or raw is None:
        verdicts.append(TargetCheck(title, None, "not measured"))
    else:
        value = raw.seconds / row.seconds
        verdicts.append(
            TargetCheck(
                title,
                value >= RAW_FACTOR_AT_ZERO,
                f"{value:.3f}×: engine {row.rps:,.0f} req/s, raw {raw.rps:,.0f} req/s",
            )
        )
    title = f"peak memory of `gauntlet run` for 20,000 cases under {MEMORY_LIMIT_MB:g} MB"
    if memory is None:
        verdicts.append(TargetCheck(title, None, "not measured"))
    else:
        peak = memory.median.extra
        detail = f"{peak:.1f} MB for {memory.requests:,} cases"
        if memory.requests < 20_000:
            verdicts.append(TargetCheck(title, None, detail + ", fewer than 20,000"))
        else:
            verdicts.append(TargetCheck(title, peak < MEMORY_LIMIT_MB, detail))
    if stream is None:
        verdicts.append(TargetCheck(streaming.title(), None, "not measured"))
    else:
        verdicts.append(TargetCheck(stream.title, stream.met, stream.detail))
    return verdicts


def cli_lines(rows: Sequence[Row]) -> list[str]:
    """Informational: how far `gauntlet run` end to end is from the ideal and from raw."""
    lines = []
    for concurrency in LATENCY_TARGET_CONCURRENCIES:
        row = find(rows, CLI, LATENCY_TARGET_MS, concurrency)
        raw = find(rows, RAW, LATENCY_TARGET_MS, concurrency)
        if row is None or raw is None:
            continue
        lines.append(
            f"- `gauntlet run` at {LATENCY_TARGET_MS:g} ms, C={concurrency}: "
            f"{row.seconds:.3f} s, {fmt(ideal_ratio(row), '.3f', '×')} ideal, "
            f"{fmt(raw_ratio(row, raw), '.3f', '×')} raw aiohttp's throughput"
        )
    return lines


def write_markdown(
    plan: Plan,
    started_at: datetime,
    elapsed: float,
    loads: tuple[float, float],
    rows: Sequence[Row],
    load_rows: Sequence[Row],
    memory: Row | None,
    startups: Sequence[Startup],
    verdicts: Sequence[TargetCheck],
    scale: Scale | None = None,
    stream: streaming.Streaming | None = None,
) -> None:
    """Write the figures to `plan.results`."""
    assert plan.results is not None  # noqa: S101 - the caller checked
    lines = [
        "# Benchmark results",
        "",
        "Generated by `benchmarks/bench.py`; do not edit by hand. What each figure means: "
        "[README.md](README.md).",
        "",
        f"- Date: {started_at:%Y-%m-%d %H:%M} UTC; the benchmarks took {elapsed:.0f} s",
        f"- Command: `{command_line()}`",
        *machine_facts(),
        f"- Load average (1 min) {loads[0]:.2f} at the start, {loads[1]:.2f} at the end: "
        + (
            "**taken while other work was running on the machine**, which shows up as noise "
            "in the figures"
            if loads[0] > 1
            else "other work on the machine shows up as noise in the figures"
        ),
        "- Stub server: `benchmarks/stub_server.py`, one process on 127.0.0.1 (aiohttp's "
        "low-level `web.Server`); the driver, and the `gauntlet run` child, run beside it",
        f"- {plan.cases:,} cases per run, in files of at most {CASES_PER_FILE}; each figure is "
        f"the median of {plan.repeats} runs (1 where the ideal time exceeds {ONE_RUN_ABOVE:g} s)",
        "- (b) engine: `run_gauntlet` with an `GauntletTarget`, pre-flight **off**, timed from the "
        "call to the last answer (loading and scoring excluded); (c) `gauntlet run --quiet`: "
        "the whole process, pre-flight probe on (the CLI's default), start-up, loading, "
        "scoring and writing results.json included",
        "",
        "## Targets",
        "",
        *(verdict.line() for verdict in verdicts),
        "",
        "Not a target, for context:",
        "",
        *cli_lines(rows),
        "",
        "## The stub server's capacity",
        "",
        "A load generator (raw sockets, one request at a time per keep-alive connection, "
        "nothing parsed but the status line and Content-Length) against the same stub process. "
        "Its rate exceeds every client's below, so the stub is not their bottleneck.",
        "",
    ]
    load_cells = [
        [
            f"{row.latency_ms:g} ms",
            str(row.concurrency),
            f"{row.requests:,}",
            f"{row.seconds:.3f}",
            f"{row.rps:,.0f}",
            fmt(row.ideal if row.ideal else None, ".3f"),
            fmt(ideal_ratio(row), ".3f", "×"),
            f"{100 * row.median.server_cpu / row.seconds:.0f} %",
            f"{1e6 * row.median.server_cpu / row.requests:.0f}",
        ]
        for row in load_rows
    ]
    lines += markdown_table(
        (
            "latency",
            "connections",
            "requests",
            "time s",
            "req/s",
            "ideal s",
            "× ideal",
            "stub CPU",
            "stub CPU µs/request",
        ),
        load_cells,
    )
    lines += [
        "",
        f"## {plan.cases:,} cases: raw aiohttp, the engine, `gauntlet run`",
        "",
        "ideal = ceil(N / C) × latency. × ideal = time ÷ ideal. thru vs raw = raw aiohttp's "
        "time ÷ this time (throughput as a fraction of raw aiohttp's). CPU = CPU seconds ÷ "
        "wall seconds of the client process (the driver for raw and engine, the `gauntlet run` "
        "child for the CLI) and of the stub server.",
        "",
    ]
    table = []
    for row in rows:
        raw = find(rows, RAW, row.latency_ms, row.concurrency)
        table.append(run_cells(row, raw))
    lines += markdown_table(RUN_COLUMNS, table)
    engine_rows = [row for row in rows if row.mode == ENGINE]
    if engine_rows:
        lines += [
            "",
            "The engine's scoring after the last answer (excluded above): "
            + ", ".join(
                f"{row.latency_ms:g} ms C={row.concurrency} {1000 * row.median.extra:.0f} ms"
                for row in engine_rows
            )
            + ".",
        ]
    lines += ["", "## Streaming (SSE)", ""]
    if stream is None:
        lines.append("Not measured.")
    else:
        lines += [*stream.description(), ""]
        lines += markdown_table(streaming.COLUMNS, stream.cells())
    lines += [
        "",
        "## CLI start-up",
        "",
        f"Median of {plan.startup_runs} runs, after one warm-up.",
        "",
    ]
    lines += markdown_table(
        ("command", "median ms", "min ms", "max ms", "peak RSS MB"),
        [
            [
                f"`{startup.label}`",
                f"{startup.median * 1000:.0f}",
                f"{min(run.seconds for run in startup.runs) * 1000:.0f}",
                f"{max(run.seconds for run in startup.runs) * 1000:.0f}",
                f"{max(run.peak_mb for run in startup.runs):.1f}",
            ]
            for startup in startups
        ],
    )
    lines += ["", "## Peak memory", ""]
    if memory is None:
        lines.append("Not measured.")
    else:
        sample = memory.median
        lines += markdown_table(
            ("cases", "files", "concurrency", "latency", "time s", "peak RSS MB", "limit MB"),
            [
                [
                    f"{memory.requests:,}",
                    str(math.ceil(memory.requests / CASES_PER_FILE)),
                    str(memory.concurrency),
                    f"{memory.latency_ms:g} ms",
                    f"{sample.seconds:.2f}",
                    f"{sample.extra:.1f}",
                    f"{MEMORY_LIMIT_MB:g}",
                ]
            ],
        )
        lines += [
            "",
            "Peak RSS of the `gauntlet run` process alone (`wait4`'s `ru_maxrss`), which loads "
            "every case, asks, scores and writes results.json.",
        ]
    if scale is not None:
        lines += ["", *scale_markdown(scale, plan)]
    plan.results.write_text("\n".join(lines) + "\n")
