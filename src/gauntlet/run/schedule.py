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


def plan_of(suites: SuiteSet, *, repeat: int = 1, no_transforms: bool = False) -> Plan:
    """What a run of `suites`, each case asked `repeat` times or more, covers.

    With `no_transforms` (`gauntlet run --no-transforms`, `suites` already without their
    variants) the digest says so even where no suite declares transforms.

    Raises:
        UsageError: a suite's `pass_k` is more than the asks it gets.
    """
    described = []
    index = 0
    for loaded in suites.suites:
        info = _checked_info(loaded, repeat)
        # The whole case, not only its id: a journal or a shard made before its prompt,
        # markers or expected answer changed must not pass for this plan's.
        # A variant's transform and seed too (a case without one keeps the digest it had).
        cases = [
            case.model_dump(mode="json")
            | ({} if case.variant is None else {"variant": case.variant._asdict()})
            for case in loaded.cases
        ]
        described.append({**info.model_dump(mode="json", exclude={"source"}), "cases": cases})
        index += len(cases)
    options = suites.options
    planned: object = described
    if options or no_transforms:
        # Only then: a plan without either keeps the digest it had before they existed.
        planned = {
            "suites": described,
            "options": [option.model_dump(mode="json") for option in options],
        } | ({"no_transforms": True} if no_transforms else {})
    digest = "sha256:" + hashlib.sha256(canonical_json(planned)).hexdigest()
    return Plan(cases=index, digest=digest, repeat=repeat, options=options)


def schedule(
    suites: SuiteSet, *, repeat: int = 1, shard: Shard | None = None, plan: Plan | None = None
) -> Schedule:
    """Every case of every suite, in load order, each asked `repeat` times or more.

    With `plan` (`plan_of` the same suites, made once by the caller), its `repeat` is the
    run's and it is not made again.

    Raises:
        UsageError: a suite's `pass_k` is more than the asks it gets.
    """
    if plan is None:
        plan = plan_of(suites, repeat=repeat)
    items: list[Scheduled] = []
    infos: list[SuiteInfo] = []
    index = 0
    for loaded in suites.suites:
        info = _checked_info(loaded, plan.repeat)
        kept = False
        for position, case in enumerate(loaded.cases):
            if (
                shard is None
                or shard_of(info.suite, case.id, shard.count, case.pair) == shard.index
            ):
                items.append(Scheduled(loaded, position, index, info))
                kept = True
            index += 1
        if kept:
            infos.append(info)
    if index != plan.cases:
        raise UsageError(
            f"the run's plan covers {plan.cases} cases, but its suites hold {index}: "
            "make the settings' plan from the suites run (plan_of)"
        )
    return Schedule(items, infos, plan, shard)


def _checked_info(loaded: LoadedSuite, repeat: int) -> SuiteInfo:
    info = suite_info(loaded, repeat)
    if info.pass_k > info.repeat:
        raise UsageError(
            f"{shown_source(loaded.source)}: pass_k {info.pass_k} is more than the "
            f"{info.repeat} asks "
            f"suite {info.suite} gets; raise --repeat or lower pass_k"
        )
    return info
