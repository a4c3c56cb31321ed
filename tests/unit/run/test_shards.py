"""Sharding: a stable split, and merged shards that equal the unsharded run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.errors import ResultsError
from gauntlet.evidence.digest import results_digest
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.merge import merge_shards
from gauntlet.run.results import Results, Shard, TargetInfo
from gauntlet.run.schedule import schedule
from gauntlet.run.tally import shard_of
from gauntlet.targets.toy import make_toy

from ... import evidence_fixtures as fx
from ...run_settings import settings_for

TIMING = {"started_at", "finished_at", "latency_ms", "attempts", "waited_s"}


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _run(suites: SuiteSet, shard: Shard | None = None) -> Results:
    toy = make_toy()
    return run_gauntlet(
        suites, toy, settings_for(suites, TargetInfo(kind="toy", name=toy.name), shard=shard)
    )


def _generated(tmp_path: Path, count: int) -> SuiteSet:
    topics = ["library hours", "bulky waste pickup", "parking permit", "pool hours"]
    cases = "".join(
        f"  - id: gen-{n:05d}\n    language: en\n"
        f"    prompt: What are the {topics[n % 4]} in Riverbend, question {n}?\n"
        "    expect_grounded: true\n"
        for n in range(count)
    )
    (tmp_path / "gen.yaml").write_text(
        f"suite: generated\ngate: grounding\nversion: 1\nthreshold: 0.5\ncases:\n{cases}"
    )
    return load_suites([tmp_path])


def _check_merge_equals_whole(suites: SuiteSet, ways: int) -> None:
    whole = _run(suites)
    parts = [_run(suites, Shard(index=k, count=ways)) for k in range(1, ways + 1)]
    assert sum(len(part.cases) for part in parts) == len(whole.cases)
    assert all(part.cases for part in parts), "every shard should get some cases"
    merged = merge_shards([(f"shard-{k}.json", part) for k, part in enumerate(parts, 1)])
    assert _without_timing(merged.model_dump(mode="json")) == _without_timing(
        whole.model_dump(mode="json")
    )
    assert results_digest(merged) == results_digest(whole)


def test_merged_shards_of_the_built_in_suites_equal_the_whole_run() -> None:
    _check_merge_equals_whole(fx.builtin_suites(), 4)


def test_merged_shards_of_a_5000_case_suite_equal_the_whole_run(tmp_path: Path) -> None:
    _check_merge_equals_whole(_generated(tmp_path, 5_000), 4)


def test_adding_a_case_moves_no_other_case_to_another_shard() -> None:
    ids = [f"case-{n}" for n in range(500)]
    before = {i: shard_of("s", i, 4) for i in ids}
    after = {i: shard_of("s", i, 4) for i in [*ids, "case-new"]}
    assert all(after[i] == before[i] for i in ids)
    assert set(before.values()) == {1, 2, 3, 4}


def test_every_shard_records_the_whole_plan(tmp_path: Path) -> None:
    suites = _generated(tmp_path, 40)
    whole = schedule(suites)
    part = schedule(suites, shard=Shard(index=2, count=3))
    assert part.plan == whole.plan
    assert 0 < len(part.items) < len(whole.items)


@pytest.fixture(scope="module")
def shards() -> list[tuple[str, Results]]:
    suites = fx.builtin_suites()
    return [(f"s{k}.json", _run(suites, Shard(index=k, count=3))) for k in (1, 2, 3)]


def test_a_missing_shard_is_named(shards: list[tuple[str, Results]]) -> None:
    with pytest.raises(ResultsError, match="shard 2/3 is missing"):
        merge_shards([shards[0], shards[2]])


def test_a_shard_given_twice_is_named(shards: list[tuple[str, Results]]) -> None:
    with pytest.raises(ResultsError, match="shard 1/3 is given twice: s1.json and again.json"):
        merge_shards([*shards, ("again.json", shards[0][1])])


def test_shards_of_another_run_are_refused(shards: list[tuple[str, Results]]) -> None:
    other = _run(fx.builtin_suites(), Shard(index=2, count=3))
    changed = other.model_copy(
        update={"plan": other.plan.model_copy(update={"digest": "sha256:other"})}
    )
    with pytest.raises(ResultsError, match="comes from other suites, cases or options"):
        merge_shards([shards[0], ("other.json", changed), shards[2]])


def test_a_whole_run_is_not_a_shard() -> None:
    with pytest.raises(ResultsError, match="not a shard"):
        merge_shards([("whole.json", fx.clean())])


def test_nothing_to_merge_is_refused() -> None:
    with pytest.raises(ResultsError, match="no shard results"):
        merge_shards([])
