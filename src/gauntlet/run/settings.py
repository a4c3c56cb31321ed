"""`RunSettings`: what one run is, one frozen value built once by its caller (the CLI).

A run's identity (its target, plan, shard, run id, judge, similarity, waivers,
`--strict-waivers` and `--no-transforms`)
travels as this one value through the engine, the journal, scoring, the summary, the results
file's re-derivation and `merge`, so a new run option is one field here rather than a new
argument in each. The results file records the identity field by field, as it always has;
`RunSettings.of` reads it back, and two runs that may share a journal or be merged are two
equal settings (`differences` names what is not).

How a run goes without changing what it is (`concurrency`, `preflight`, `grace`, the
`redactor`) is kept here too, out of every comparison. Pure data: the judge's asking lives in
`gauntlet.run.judging`, the engine in `gauntlet.run.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from gauntlet.cases.waivers import WaiverInfo
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.redact import Redactor
from gauntlet.run.results import EmbedderInfo, JudgeInfo, Plan, Results, Shard, TargetInfo
from gauntlet.semantic.check import Similarity

if TYPE_CHECKING:
    from gauntlet.targets.contract import AsyncTarget

GRACE_SECONDS = 5.0
"""After an interruption, how long cases already sent may take to finish."""

JUDGE_CONCURRENCY = 8
"""At most this many judge checks at a time, unless a run says otherwise."""


@dataclass(frozen=True, kw_only=True)
class Judge:
    """The model judge of one run: what asks it, and what the results record of it.

    Equal when the results would record it the same (`info`); how it is reached is not
    compared.

    Args:
        info: What the results record: its file, fingerprint, calibration, and why it may
            not vote (`info.refused`), or None when it may.
        seed: What the blind coin and the boundaries are drawn from, with the case and the
            ask: the run id, or the plan's digest (`judge_seed`), so a resumed run or another
            shard shows the judge the same.
        target: The judge, reached like any target and closed by the run; None for a judge
            read back from a results file, which records it but cannot ask it.
        languages: The languages (primary subtags) the judge was calibrated in.
        concurrency: At most this many judge checks at a time.
    """

    info: JudgeInfo
    seed: str = field(compare=False)
    target: AsyncTarget | None = field(default=None, compare=False)
    languages: frozenset[str] = field(default=frozenset(), compare=False)
    concurrency: int = field(default=JUDGE_CONCURRENCY, compare=False)

    @property
    def refused(self) -> str | None:
        """Why the judge may not vote (every judged check is then unjudged); None when it may."""
        return self.info.refused


def judge_seed(run_id: str | None, plan: Plan) -> str:
    """The judge's seed for a run: its id, or else its plan's digest."""
    return run_id or plan.digest


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One run's identity and options, as given; equal for two runs that are one run.

    Compared in this order (the first that differs is the one a refusal names).

    Args:
        plan: What the whole run covers (`gauntlet.run.schedule.plan_of` of its suites).
        target: The target, as the results record it.
        shard: Which shard of a split run this is; None for a whole run.
        judge: The model judge, for a run whose cases have judged checks.
        similarity: The embedder and the thresholds its calibration accepted
            (`--embedder`, `--embedder-calibration`), for a run whose cases compare meanings
            (`match: semantic`, `min_similarity`). Compared as the results record it: its
            fingerprint, thresholds, refusal and record sha256.
        run_id: The id the CI system gave the run, so shards of two runs are never merged.
        waivers: The run's waivers, checked against its suites; applied against the day the
            run started, in UTC.
        strict_waivers: `--strict-waivers`: a waiver no longer needed fails the run.
        no_transforms: `--no-transforms`: the cases were asked as written, without the
            variants their suites' `transforms:` derive (a quick local run, not the gate).
        concurrency: At most this many asks at a time. Not compared.
        preflight: Probe the target (and a judge that may vote) before any case. Not compared.
        grace: After SIGINT or SIGTERM, how long asks in flight may take. Not compared.
        redactor: Every secret known, masked in what the run keeps. Not compared.
    """

    plan: Plan
    target: TargetInfo
    shard: Shard | None = None
    judge: Judge | None = None
    similarity: Similarity | None = None
    run_id: str | None = None
    waivers: tuple[WaiverInfo, ...] = ()
    strict_waivers: bool = False
    no_transforms: bool = False
    concurrency: int = field(default=DEFAULT_CONCURRENCY, compare=False)
    preflight: bool = field(default=True, compare=False)
    grace: float = field(default=GRACE_SECONDS, compare=False)
    redactor: Redactor = field(default_factory=Redactor, compare=False)

    def __post_init__(self) -> None:
        if self.judge is not None and self.judge.seed != judge_seed(self.run_id, self.plan):
            raise ValueError(
                "the judge's seed is the run id, or else the plan's digest (judge_seed): "
                "another would show a resumed run or another shard the judge differently"
            )

    @property
    def repeat(self) -> int:
        """`--repeat` as given (a suite may ask more)."""
        return self.plan.repeat

    @property
    def judge_info(self) -> JudgeInfo | None:
        """What the results record of the judge; None without one."""
        return None if self.judge is None else self.judge.info

    @property
    def embedder_info(self) -> EmbedderInfo | None:
        """What the results record of the embedder; None without one."""
        similarity = self.similarity
        if similarity is None:
            return None
        return EmbedderInfo(
            fingerprint=similarity.fingerprint,
            calibration_sha256=similarity.record_sha256,
            thresholds=dict(sorted(similarity.thresholds.items())),
            refused=similarity.refused,
        )

    @classmethod
    def of(cls, results: Results) -> RunSettings:
        """The settings `results` record (what they do not record at its default)."""
        judge = None
        if results.judge is not None:
            judge = Judge(info=results.judge, seed=judge_seed(results.run_id, results.plan))
        similarity = None
        if results.embedder is not None:
            embedder = results.embedder
            similarity = Similarity(
                fingerprint=embedder.fingerprint,
                thresholds=MappingProxyType(dict(embedder.thresholds)),
                refused=embedder.refused,
                record_sha256=embedder.calibration_sha256,
            )
        return cls(
            target=results.target,
            plan=results.plan,
            shard=results.shard,
            run_id=results.run_id,
            judge=judge,
            similarity=similarity,
            waivers=tuple(waiver.info for waiver in results.waivers),
            strict_waivers=results.strict_waivers,
            no_transforms=results.no_transforms,
        )

    def differences(self, other: RunSettings) -> tuple[str, ...]:
        """The names of the compared settings that differ from `other`'s, the shard aside."""
        return tuple(
            each.name
            for each in fields(self)
            if each.compare
            and each.name != "shard"
            and getattr(self, each.name) != getattr(other, each.name)
        )


class RunSpan(NamedTuple):
    """When a run (or the runs merged) started and finished, and what stopped it early."""

    started_at: datetime
    finished_at: datetime
    interrupted_by: str | None = None
    """The signal that stopped the run early, if one did."""

    @classmethod
    def of(cls, results: Results) -> RunSpan:
        """The span `results` record."""
        return cls(results.started_at, results.finished_at, results.interrupted_by)


__all__ = ["GRACE_SECONDS", "Judge", "RunSettings", "RunSpan", "judge_seed"]
