"""`--profile`: the engine and the streamed target under cProfile, instead of benchmarking."""

from __future__ import annotations

import cProfile
import io
import pstats
from pathlib import Path

from gauntlet.cases.loader import SuiteSet
from gauntlet_bench import streaming
from gauntlet_bench.measure import measure_engine
from gauntlet_bench.plan import Plan
from gauntlet_bench.stub import Stub


def print_profile(profiler: cProfile.Profile, heading: str) -> None:
    """The functions that took the most time, by their own time and cumulatively."""
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)
    print(f"\n==== {heading} ====")
    print(text.getvalue())


def profile_engine(plan: Plan, suites: SuiteSet) -> None:
    """Run the engine once per configuration under cProfile; print the top functions."""
    for latency in plan.latencies:
        with Stub(latency) as stub:
            for concurrency in plan.concurrencies:
                measure_engine(stub, suites, concurrency)  # warm
                profiler = cProfile.Profile()
                profiler.enable()
                sample = measure_engine(stub, suites, concurrency)
                profiler.disable()
                print_profile(
                    profiler,
                    f"engine, {latency:g} ms, C={concurrency}: {sample.seconds:.3f} s "
                    "to the last answer under cProfile",
                )


def profile_streaming(suites: SuiteSet, work: Path) -> None:
    """Run the streamed openai-chat target once under cProfile; print the top functions."""
    concurrency = streaming.CONCURRENCY
    with Stub(streaming.LATENCY_MS) as stub:
        target_file = streaming.write_target_file(work, f"{stub.url}v1", stream=True)
        streaming.measure(target_file, suites, concurrency, stub.cpu_seconds)  # warm
        profiler = cProfile.Profile()
        profiler.enable()
        timing = streaming.measure(target_file, suites, concurrency, stub.cpu_seconds)
        profiler.disable()
    print_profile(
        profiler,
        f"{streaming.STREAMED}, {streaming.LATENCY_MS:g} ms, C={concurrency}: "
        f"{timing.seconds:.3f} s to the last answer under cProfile",
    )
