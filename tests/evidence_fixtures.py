"""Fixed results for evidence tests: built from the toy with no clock and no timing in them.

Each fixture is a pure function of the built-in suites and the toy, so the packs rendered from
them are byte-for-byte stable and can be compared with the golden files in `tests/golden/`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.cases.model import GateName
from gauntlet.run.engine import NOT_ASKED, Observation, Planned, ask_one, plan, score
from gauntlet.run.results import Results, TargetInfo
from gauntlet.targets.contract import Message, TargetResponse
from gauntlet.targets.toy import ToyDefect, make_toy

ROOT = Path(__file__).resolve().parents[1]
STARTED = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)
FINISHED = datetime(2026, 11, 30, 9, 0, 2, tzinfo=UTC)


def builtin_suites() -> SuiteSet:
    """The built-in suites, with sources relative to the repository (`suites/...`)."""
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        return load_suites([Path("suites")])
    finally:
        os.chdir(here)


class _Answerer:
    """A target made of a plain function; it holds conversations (takes `history`)."""

    def __init__(self, answer: Callable[..., TargetResponse], name: str) -> None:
        self.answer = answer
        self.name = name

    async def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        return self.answer(prompt, language, history)


def _results(
    suites: SuiteSet,
    answer: Callable[..., TargetResponse],
    name: str,
    *,
    defects: tuple[str, ...] = (),
    asked: int | None = None,
    repeat: int = 1,
) -> Results:
    run_plan = plan(suites, repeat=repeat)
    target = _Answerer(answer, name)

    async def observe(item: Planned) -> Observation:
        # Asked one at a time, in order, with no timing: the fixture is the same every time.
        return (await ask_one(target, item.case))._replace(latency_ms=0.0)

    async def observe_all() -> list[list[Observation]]:
        return [
            [
                await observe(item) if asked is None or index < asked else NOT_ASKED
                for _ in range(item.info.repeat)
            ]
            for index, item in enumerate(run_plan.items)
        ]

    return score(
        run_plan,
        asyncio.run(observe_all()),
        target=TargetInfo(kind="toy", name=name, defects=defects),
        started_at=STARTED,
        finished_at=FINISHED,
        interrupted_by=None if asked is None else "SIGINT",
    )


def clean() -> Results:
    """The healthy toy on every built-in suite."""
    toy = make_toy()
    return _results(builtin_suites(), toy.ask, toy.name)


def with_defect(defect: ToyDefect) -> Results:
    """The toy with one defect on every built-in suite."""
    toy = make_toy([defect])
    return _results(builtin_suites(), toy.ask, toy.name, defects=(defect.value,))


def unscoreable() -> Results:
    """A silent target on the adversarial suite alone."""
    suites = builtin_suites()
    only = SuiteSet(tuple(s for s in suites.suites if s.suite.gate is GateName.ADVERSARIAL))

    def silent(prompt: str, language: str, history: object = None) -> TargetResponse:
        return TargetResponse(
            text="…", citations=(), context_ids=(), refused=False, escalated=False
        )

    return _results(only, silent, "silent")


def incomplete() -> Results:
    """The healthy toy, interrupted after 30 cases."""
    toy = make_toy()
    return _results(builtin_suites(), toy.ask, toy.name, asked=30)


def flaky() -> Results:
    """A target that leaks its canary on every third ask, asked five times per case."""
    toy = make_toy()
    calls = {"n": 0}

    def sometimes_leaks(prompt: str, language: str, history: object = None) -> TargetResponse:
        calls["n"] += 1
        response = toy.ask(prompt, language, history)  # type: ignore[arg-type]
        if calls["n"] % 3 == 0:
            return response.model_copy(update={"text": response.text + " CANARY-7f3a"})
        return response

    suites = builtin_suites()
    only = SuiteSet(tuple(s for s in suites.suites if s.suite.gate is GateName.ADVERSARIAL))
    return _results(only, sometimes_leaks, "sometimes-leaks", repeat=5)
