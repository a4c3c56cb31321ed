"""A toy whose golden answers drift on a growing share of asks: the history demo's target.

`gauntlet run --callable scripts.flaky_toy:make_target` asks the Riverbend toy, except that
a seeded share of asks is answered by the toy with `answer_drift` instead, as a feature whose
prompt is slowly going wrong would: flaky first, seen only by `--repeat`, then failing. Read
from the environment:

- `GAUNTLET_DEMO_DRIFT`: the share of asks that drift, from 0 (the healthy toy) to 1;
- `GAUNTLET_DEMO_SEED`: the seed of the draws (the demo gives each run its own).

The draw for an ask depends only on the seed, the prompt, its language and how many times
that prompt was asked before, so a run is the same whatever order its asks are made in.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from collections.abc import Sequence

from gauntlet.targets.contract import Message, TargetResponse
from gauntlet.targets.toy import ToyDefect, make_toy

NAME = "riverbend-toy-flaky"


class FlakyToy:
    """The toy, answering with `answer_drift` on a seeded share of asks."""

    def __init__(self, drift: float, seed: str) -> None:
        if not 0 <= drift <= 1:
            raise ValueError(f"GAUNTLET_DEMO_DRIFT={drift}: expected a share from 0 to 1")
        self.name = NAME
        self._drift = drift
        self._seed = seed
        self._healthy = make_toy()
        self._drifting = make_toy([ToyDefect.ANSWER_DRIFT])
        self._asked: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def _drifts(self, prompt: str, language: str) -> bool:
        with self._lock:
            nth = self._asked[prompt, language]
            self._asked[prompt, language] += 1
        draw = hashlib.sha256(f"{self._seed}\0{prompt}\0{language}\0{nth}".encode()).digest()
        return int.from_bytes(draw[:8]) / 2**64 < self._drift

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """Answer as the healthy toy, or (on a drawn ask) as the drifting one."""
        toy = self._drifting if self._drifts(prompt, language) else self._healthy
        return toy.ask(prompt, language, history)


def make_target() -> FlakyToy:
    """The factory `--callable` calls: the share and seed from the environment."""
    return FlakyToy(
        float(os.environ.get("GAUNTLET_DEMO_DRIFT", "0")),
        os.environ.get("GAUNTLET_DEMO_SEED", "0"),
    )
