"""The timed runs of the main table: (a) the raw aiohttp loop and (b) the engine alone."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiohttp

from gauntlet.cases.loader import SuiteSet
from gauntlet.cli.collector import young_only_while_running
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo, Verdict
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.targets.http import GauntletTarget
from gauntlet_bench.stub import Stub

RAW, ENGINE, CLI = "raw aiohttp", "engine", "gauntlet run"
MODES = (RAW, ENGINE, CLI)


@dataclass
class Sample:
    """One timed run."""

    seconds: float
    client_cpu: float
    """CPU seconds the client used (the driver for raw and engine, the child for the CLI)."""
    server_cpu: float
    """CPU seconds the stub server used meanwhile."""
    extra: float = 0.0
    """Engine: seconds spent scoring after the last answer. CLI: peak RSS in MB."""


@dataclass
class Row:
    """Every run of one mode at one latency and concurrency."""

    mode: str
    latency_ms: float
    concurrency: int
    requests: int
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> Sample:
        """The run with the median time (the lower middle one for an even count)."""
        ordered = sorted(self.samples, key=lambda sample: sample.seconds)
        return ordered[(len(ordered) - 1) // 2]

    @property
    def seconds(self) -> float:
        """The median time."""
        return self.median.seconds

    @property
    def rps(self) -> float:
        """Requests per second at the median time."""
        return self.requests / self.seconds

    @property
    def ideal(self) -> float:
        """ceil(N / C) x latency: every wave of C requests waits the latency and nothing else."""
        return math.ceil(self.requests / self.concurrency) * self.latency_ms / 1000.0


def ideal_ratio(row: Row) -> float | None:
    """Time over the ideal time; None when the ideal is 0 (no latency)."""
    return row.seconds / row.ideal if row.ideal > 0 else None


def raw_ratio(row: Row, raw: Row | None) -> float | None:
    """Throughput as a fraction of the raw aiohttp loop's (raw time over this time)."""
    return raw.seconds / row.seconds if raw is not None else None


async def _raw(url: str, prompts: Sequence[str], concurrency: int) -> float:
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(prompts)

        async def worker() -> None:
            for prompt in pending:
                async with session.post(url, json={"prompt": prompt, "language": "en"}) as reply:
                    answer = json.loads(await reply.read())
                    if reply.status != 200 or not answer["text"]:
                        raise RuntimeError(f"raw aiohttp: HTTP {reply.status}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def measure_raw(stub: Stub, prompts: Sequence[str], concurrency: int) -> Sample:
    """(a) The raw aiohttp loop: `concurrency` workers sharing one iterator of prompts."""
    cpu, server = time.process_time(), stub.cpu_seconds()
    seconds = asyncio.run(_raw(stub.url, prompts, concurrency))
    return Sample(seconds, time.process_time() - cpu, stub.cpu_seconds() - server)


def measure_engine(stub: Stub, suites: SuiteSet, concurrency: int) -> Sample:
    """(b) The engine alone: `run_gauntlet`, pre-flight off, timed to its last answer."""
    total = suites.case_total
    marks: dict[str, float] = {}

    def progress(done: int, of: int) -> None:
        if done == of:
            marks["answered"] = time.perf_counter()
            marks["cpu"] = time.process_time()

    target = GauntletTarget(stub.url, concurrency=concurrency)
    info = TargetInfo(kind="gauntlet", name=target.name)
    cpu, server = time.process_time(), stub.cpu_seconds()
    started = time.perf_counter()
    with young_only_while_running():  # as `gauntlet run` sets the collector
        results = run_gauntlet(
            suites,
            target,
            RunSettings(
                target=info, plan=plan_of(suites), concurrency=concurrency, preflight=False
            ),
            progress=progress,
        )
    ended = time.perf_counter()
    server_cpu = stub.cpu_seconds() - server
    if results.verdict is not Verdict.PASS or results.totals.passed != total:
        raise RuntimeError(f"engine: {results.verdict_reason} ({results.totals})")
    return Sample(
        marks["answered"] - started,
        marks["cpu"] - cpu,
        server_cpu,
        extra=ended - marks["answered"],
    )
