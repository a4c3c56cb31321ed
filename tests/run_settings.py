"""Settings for a test's run: `RunSettings` with the plan made from the suites run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gauntlet.cases.loader import SuiteSet
from gauntlet.run.results import JudgeInfo, TargetInfo
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import Judge, RunSettings, judge_seed
from gauntlet.targets.contract import AsyncTarget

from .evidence_fixtures import JUDGE


@dataclass(frozen=True)
class AskingJudge:
    """A judge for a test's run, seeded by `settings_for` as the command line seeds one."""

    target: AsyncTarget
    refused: str | None = None
    languages: frozenset[str] = frozenset()
    info: JudgeInfo = JUDGE


def settings_for(
    suites: SuiteSet,
    target: TargetInfo,
    *,
    repeat: int = 1,
    judge: AskingJudge | None = None,
    **options: Any,
) -> RunSettings:
    """The settings of a run of `suites` against `target`, each of `options` as given."""
    plan = plan_of(suites, repeat=repeat)
    if "waivers" in options:
        options["waivers"] = tuple(options["waivers"])
    if judge is not None:
        options["judge"] = Judge(
            info=judge.info.model_copy(update={"refused": judge.refused}),
            seed=judge_seed(options.get("run_id"), plan),
            target=judge.target,
            languages=judge.languages,
        )
    return RunSettings(target=target, plan=plan, **options)
