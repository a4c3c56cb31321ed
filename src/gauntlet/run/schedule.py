"""The schedule: which cases this run asks, in which suites, and the plan they belong to. Pure.

`schedule` reads the loaded suites and gives every case to ask (all of them, or one shard's)
with its suite's recorded facts, and the run's `Plan`: how many cases the whole run covers,
how often each is asked, the suite options given for the run, and a digest of every case as
loaded and of those options, so a journal, a shard or a history run made for other cases or
options is refused or kept apart.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from gauntlet.canonical import canonical_json
from gauntlet.cases.builtin import shown_source
from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import AnyCase
from gauntlet.errors import UsageError
from gauntlet.run.results import Plan, Shard, SuiteInfo
from gauntlet.run.scoring import suite_info
from gauntlet.run.tally import shard_of


class Scheduled(NamedTuple):
    """One case to ask, with its suite and its place in the whole plan."""

    loaded: LoadedSuite
    position: int
    """The case's place in its suite."""
    plan_index: int
    """The case's place in the whole plan, before sharding."""
    info: SuiteInfo

    @property
    def case(self) -> AnyCase:
        """The case itself."""
        return self.loaded.cases[self.position]


class Schedule(NamedTuple):
    """The cases this run asks, the suites they belong to, and what the whole run covers."""

    items: list[Scheduled]
    suites: list[SuiteInfo]
    plan: Plan
    shard: Shard | None


def schedule(suites: SuiteSet, *, repeat: int = 1, shard: Shard | None = None) -> Schedule:
    """Every case of every suite, in load order, each asked `repeat` times or more.

    Raises:
        UsageError: a suite's `pass_k` is more than the asks it gets.
    """
    items: list[Scheduled] = []
    infos: list[SuiteInfo] = []
    described = []
    index = 0
    for loaded in suites.suites:
        info = suite_info(loaded, repeat)
        if info.pass_k > info.repeat:
            raise UsageError(
                f"{shown_source(loaded.source)}: pass_k {info.pass_k} is more than the "
                f"{info.repeat} asks "
                f"suite {info.suite} gets; raise --repeat or lower pass_k"
            )
        described.append({**info.model_dump(mode="json", exclude={"source"}), "cases": []})
        kept = False
        for position, case in enumerate(loaded.cases):
            # The whole case, not only its id: a journal or a shard made before its prompt,
            # markers or expected answer changed must not pass for this plan's.
            described[-1]["cases"].append(case.model_dump(mode="json"))
            if (
                shard is None
                or shard_of(info.suite, case.id, shard.count, case.pair) == shard.index
            ):
                items.append(Scheduled(loaded, position, index, info))
                kept = True
            index += 1
        if kept:
            infos.append(info)
    options = suites.options
    planned: object = described
    if options:
        # Only then: a plan without options keeps the digest it had before they existed.
        planned = {
            "suites": described,
            "options": [option.model_dump(mode="json") for option in options],
        }
    digest = "sha256:" + hashlib.sha256(canonical_json(planned)).hexdigest()
    plan = Plan(cases=index, digest=digest, repeat=repeat, options=options)
    return Schedule(items, infos, plan, shard)
