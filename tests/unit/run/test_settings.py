"""`RunSettings`: one value for what a run is, built once, recorded, compared as a whole."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

import pytest

from gauntlet.errors import ResultsError, UsageError
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.journal import Journal
from gauntlet.run.merge import merge_shards
from gauntlet.run.results import Results, Shard, TargetInfo
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import Judge, RunSettings
from gauntlet.targets.toy import make_toy

from ... import evidence_fixtures as fx


def _shards() -> list[tuple[str, Results]]:
    suites = fx.builtin_suites()
    toy = make_toy()
    base = RunSettings(
        target=TargetInfo(kind="toy", name=toy.name), plan=plan_of(suites), run_id="ci-7"
    )
    return [
        (
            f"s{k}.json",
            run_gauntlet(suites, toy, dataclasses.replace(base, shard=Shard(index=k, count=2))),
        )
        for k in (1, 2)
    ]


@pytest.fixture(scope="module")
def shards() -> list[tuple[str, Results]]:
    return _shards()


def test_the_settings_a_run_records_read_back_equal_to_those_it_ran_with() -> None:
    # Trap: a setting the run is given but the results never record (or record under another
    # value), so a merge or a re-derivation of the file works from settings the run never had.
    suites = fx.builtin_suites()
    toy = make_toy()
    waiver = fx.waiver(case="gnd-en-bulky-waste")
    given = RunSettings(
        target=TargetInfo(kind="toy", name=toy.name),
        plan=plan_of(suites, repeat=2),
        shard=Shard(index=1, count=3),
        run_id="ci-41",
        waivers=(waiver,),
        strict_waivers=True,
        no_transforms=True,
        concurrency=3,
    )
    results = run_gauntlet(suites, toy, given, clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
    assert RunSettings.of(results) == given


_CHANGED: dict[str, Callable[[Results], dict[str, object]]] = {
    "target": lambda r: {"target": r.target.model_copy(update={"name": "another"})},
    "plan": lambda r: {"plan": r.plan.model_copy(update={"digest": "sha256:other"})},
    "run_id": lambda r: {"run_id": "ci-8"},
    "judge": lambda r: {"judge": fx.JUDGE},
    "similarity": lambda r: {"embedder": fx.EMBEDDER},
    "waivers": lambda r: {"waivers": fx.with_waivers(r, [fx.waiver(case="x")]).waivers},
    "strict_waivers": lambda r: {"strict_waivers": True},
    "no_transforms": lambda r: {"no_transforms": True},
}
"""How to make a shard differ from its run in each recorded setting."""


def test_every_recorded_setting_has_a_way_to_differ_here() -> None:
    # Trap: a setting added to RunSettings that merge never compares; this table must grow.
    recorded = {f.name for f in dataclasses.fields(RunSettings) if f.compare} - {"shard"}
    assert recorded == set(_CHANGED)


@pytest.mark.parametrize("name", sorted(_CHANGED))
def test_shards_differing_in_any_recorded_setting_are_never_merged(
    shards: list[tuple[str, Results]], name: str
) -> None:
    # Trap: merge checking some settings one by one and forgetting another, so shards of two
    # different runs merge into one verdict.
    (first_source, first), (_, second) = shards
    changed = second.model_copy(update=_CHANGED[name](second))
    assert RunSettings.of(changed).differences(RunSettings.of(first)) == (name,)
    with pytest.raises(ResultsError) as caught:
        merge_shards([(first_source, first), ("other.json", changed)])
    assert str(caught.value).startswith("other.json: "), caught.value
    assert first_source in str(caught.value)


def test_a_run_without_its_variants_is_another_plan_even_with_no_variant_left_out() -> None:
    # Trap: a --no-transforms run whose plan digest is the full run's would let its journal be
    # resumed, or its shards merged, as the full run's: a verdict on the attacks as written
    # only, passing for one on every transform of them.
    suites = fx.builtin_suites()  # as written: leaving the variants out changes no case here
    assert plan_of(suites, no_transforms=True).digest != plan_of(suites).digest
    assert plan_of(suites, no_transforms=True).cases == plan_of(suites).cases


def test_shards_compared_by_meaning_with_another_embedder_are_never_merged(
    shards: list[tuple[str, Results]],
) -> None:
    # Trap: a merge that names only the judge, so shards whose similarity came from another
    # embedder (or another record, another threshold) are merged into one verdict.
    (first_source, first), (_, second) = shards
    for other in (
        fx.EMBEDDER,
        fx.EMBEDDER.model_copy(update={"thresholds": {"en": 0.5, "es": 0.77}}),
        fx.EMBEDDER.model_copy(update={"refused": "no calibration record was given"}),
    ):
        firsts = first.model_copy(update={"embedder": fx.EMBEDDER})
        changed = second.model_copy(update={"embedder": other})
        if other == fx.EMBEDDER:
            firsts = first
        with pytest.raises(ResultsError, match="another embedder, or embedder calibration"):
            merge_shards([(first_source, firsts), ("other.json", changed)])


def test_a_similarity_read_back_from_results_cannot_run(
    shards: list[tuple[str, Results]],
) -> None:
    # Trap: a run given settings read back from a file, whose embedder has nothing to embed,
    # leaving every semantic case unjudged (or crashing) instead of saying why at the start.
    recorded = RunSettings.of(shards[0][1].model_copy(update={"embedder": fx.EMBEDDER}))
    assert recorded.similarity is not None and recorded.similarity.embeddings is None
    with pytest.raises(UsageError, match="cannot embed"):
        run_gauntlet(fx.builtin_suites(), make_toy(), recorded)


def test_a_judge_read_back_from_results_cannot_run(shards: list[tuple[str, Results]]) -> None:
    # Trap: a run given settings read back from a file, whose judge has nothing to ask, would
    # leave every judged case unjudged (or crash) instead of saying why at the start.
    recorded = RunSettings.of(shards[0][1].model_copy(update={"judge": fx.JUDGE}))
    assert isinstance(recorded.judge, Judge) and recorded.judge.target is None
    with pytest.raises(UsageError, match="cannot ask"):
        run_gauntlet(fx.builtin_suites(), make_toy(), recorded)


def test_a_journal_is_resumed_only_with_the_same_embedder(tmp_path: Path) -> None:
    # Trap: a journal header that forgets the embedder, so a run resumed with another
    # embedder or calibration mixes answers compared by two measures into one verdict.
    suites = fx.builtin_suites()
    toy = TargetInfo(kind="toy", name="toy")
    plan = plan_of(suites)
    recorded = RunSettings.of(fx.clean().model_copy(update={"embedder": fx.EMBEDDER}))
    assert recorded.similarity is not None
    with_embedder = RunSettings(plan=plan, target=toy, similarity=recorded.similarity)
    path = tmp_path / "results.json.journal"
    writer = Journal(path, resume=False)
    writer.start(with_embedder)
    writer.keep()
    writer.close(remove=False)
    same = Journal(path, resume=True)
    assert same.start(with_embedder) == {}
    same.close(remove=False)
    other = dataclasses.replace(
        recorded.similarity, thresholds=MappingProxyType({"en": 0.5, "es": 0.77})
    )
    for differing in (
        RunSettings(plan=plan, target=toy),
        RunSettings(plan=plan, target=toy, similarity=other),
    ):
        with pytest.raises(UsageError, match="other embedder or embedder calibration"):
            Journal(path, resume=True).start(differing)
