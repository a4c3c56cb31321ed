"""Merging the shards of a split run into the results of the whole run. Pure.

Every shard must come from one run: equal settings (plan, target, judge, embedder, run id,
waivers and `--strict-waivers`: `RunSettings`), compared as one value, and together the shards
must cover every case exactly once. The merge is scored by the same `summarize` as a run, so
its results and digest equal an unsharded run's, timing aside.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gauntlet.errors import ResultsError
from gauntlet.run.results import CaseResult, Results, SuiteInfo
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.run.tally import summarize


def merge_shards(shards: Sequence[tuple[str, Results]]) -> Results:
    """The whole run's results from its shards' (each with the file it came from).

    Raises:
        ResultsError: a file is not a shard, shards come from different runs, a shard is
            missing or given twice, or the cases do not add up to the plan.
    """
    if not shards:
        raise ResultsError("merge: no shard results were given")
    first_source, first = shards[0]
    settings = RunSettings.of(first)
    seen: dict[int, str] = {}
    for source, results in shards:
        if results.shard is None:
            raise ResultsError(f"{source}: not a shard (it was run without --shard)")
        differs = RunSettings.of(results).differences(settings)
        if differs:
            raise ResultsError(_other_run(differs[0], (source, results), (first_source, first)))
        assert first.shard is not None  # noqa: S101 - checked in the first turn of this loop
        if results.shard.count != first.shard.count:
            raise ResultsError(
                f"{source}: is shard {results.shard.index}/{results.shard.count}, but "
                f"{first_source} splits the run {first.shard.count} ways"
            )
        if results.shard.index in seen:
            raise ResultsError(
                f"shard {results.shard.index}/{results.shard.count} is given twice: "
                f"{seen[results.shard.index]} and {source}"
            )
        seen[results.shard.index] = source
    assert first.shard is not None  # noqa: S101
    missing = [k for k in range(1, first.shard.count + 1) if k not in seen]
    if missing:
        named = ", ".join(f"{k}/{first.shard.count}" for k in missing)
        raise ResultsError(f"merge: shard {named} is missing")
    cases: dict[int, CaseResult] = {}
    for source, results in shards:
        for case in results.cases:
            if case.index in cases:
                raise ResultsError(f"{source}: case {case.case_id} is also in another shard")
            cases[case.index] = case
    if len(cases) != first.plan.cases:
        raise ResultsError(
            f"merge: the shards hold {len(cases)} cases, but the run planned {first.plan.cases}"
        )
    span = RunSpan(
        started_at=min(results.started_at for _, results in shards),
        finished_at=max(results.finished_at for _, results in shards),
        interrupted_by=next(
            (results.interrupted_by for _, results in shards if results.interrupted_by), None
        ),
    )
    whole = dataclasses.replace(settings, shard=None)
    return summarize(list(cases.values()), _suites(shards), whole, span)


def _other_run(setting: str, shard: tuple[str, Results], first: tuple[str, Results]) -> str:
    """Why `shard` is not of `first`'s run: the first of its settings that differs, named."""
    (source, results), (first_source, run) = shard, first
    match setting:
        case "plan":
            return (
                f"{source}: comes from other suites, cases or options than {first_source} "
                f"(plan {results.plan.digest} against {run.plan.digest})"
            )
        case "target":
            return f"{source}: asked another target than {first_source}"
        case "judge":
            return f"{source}: was judged by another judge, or calibration, than {first_source}"
        case "similarity":
            return (
                f"{source}: compared meanings with another embedder, or embedder calibration, "
                f"than {first_source} (--embedder, --embedder-calibration)"
            )
        case "run_id":
            return (
                f"{source}: belongs to run {results.run_id or '(no --run-id)'}, but "
                f"{first_source} to run {run.run_id or '(no --run-id)'}: shards of "
                "different runs are never merged"
            )
        case "waivers" | "strict_waivers":
            return (
                f"{source}: was run with other waivers (or --strict-waivers) than "
                f"{first_source}: every shard of a run carries the same waivers"
            )
    return f"{source}: was run with another {setting} than {first_source}"


def _suites(shards: Sequence[tuple[str, Results]]) -> list[SuiteInfo]:
    infos: dict[str, SuiteInfo] = {}
    first_case: dict[str, int] = {}
    for source, results in shards:
        for suite in results.suites:
            info = suite.info
            if infos.setdefault(info.suite, info) != info:
                raise ResultsError(f"{source}: suite {info.suite} differs from another shard's")
        for case in results.cases:
            first_case[case.suite] = min(first_case.get(case.suite, case.index), case.index)
    return sorted(infos.values(), key=lambda info: first_case.get(info.suite, 0))
