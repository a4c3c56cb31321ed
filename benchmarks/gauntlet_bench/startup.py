"""CLI start-up: a command run many times through the launcher, the median kept."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from gauntlet_bench.children import ChildRun, run_child


@dataclass
class Startup:
    """Start-up timings of one command."""

    label: str
    runs: list[ChildRun]

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(run.seconds for run in self.runs)


def measure_startup(label: str, argv: Sequence[str], runs: int) -> Startup:
    """Run `argv` once to warm the caches, then `runs` times."""
    run_child(argv, timeout=60)
    measured = []
    for _ in range(runs):
        child = run_child(argv, timeout=60)
        if child.status != 0:
            raise RuntimeError(f"{label} exited {child.status}:\n{child.output[-2000:]}")
        measured.append(child)
    return Startup(label, measured)
