"""Setting up a run's judge: it votes only with a record made for it, on known labels, that
reaches the thresholds; otherwise the run records why not."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gauntlet.errors import UsageError
from gauntlet.judge.calibration import build_record, calibrate, write_record
from gauntlet.judge.judge_file import judge_fingerprint
from gauntlet.judge.labels import load_labels
from gauntlet.redact import Redactor
from gauntlet.run.judge_setup import NO_RECORD, JudgeRequest, prepare_judge
from gauntlet.run.settings import Judge
from gauntlet.targets.target_file import load_target_file

from ...fake_judge import Behaviour, FakeJudge

SMALL = Path(__file__).resolve().parents[2] / "labels" / "small"

JUDGE = """\
version: 1
kind: openai-chat
base_url: http://127.0.0.1:9/v1
model: {model}
temperature: 0
response:
  citations: {{absent: true}}
  context_ids: {{absent: true}}
  escalated: {{absent: true}}
"""


def _judge_file(tmp_path: Path, model: str = "judge-1") -> Path:
    path = tmp_path / f"{model}.yaml"
    path.write_text(JUDGE.format(model=model), encoding="utf-8")
    return path


def _record(tmp_path: Path, judge_file: Path, behaviour: Behaviour = "agrees") -> Path:
    labels = load_labels(SMALL)
    pairs = asyncio.run(calibrate(labels, FakeJudge(labels, behaviour).ask_for))
    fingerprint = judge_fingerprint(load_target_file(judge_file))
    path = tmp_path / f"record-{behaviour}.json"
    write_record(build_record(labels, pairs, fingerprint), path)
    return path


def _prepared(request: JudgeRequest) -> Judge:
    """The judge `request` names, its target closed: only what was prepared is looked at."""
    judge = prepare_judge(request, seed="run-1", concurrency=1, redactor=Redactor())
    assert judge.target is not None and judge.seed == "run-1"
    asyncio.run(judge.target.aclose())
    return judge


def test_without_a_record_the_judge_may_not_vote(tmp_path: Path) -> None:
    judging = _prepared(
        JudgeRequest(judge_file=_judge_file(tmp_path), calibration=None, min_items=30)
    )
    info = judging.info
    assert judging.refused == info.refused == NO_RECORD
    assert info.calibration is None
    assert info.fingerprint.model == "judge-1"


def test_a_record_for_this_judge_on_named_labels_lets_it_vote(tmp_path: Path) -> None:
    judge_file = _judge_file(tmp_path)
    judging = _prepared(
        JudgeRequest(
            judge_file=judge_file,
            calibration=_record(tmp_path, judge_file),
            labels=[SMALL],
            min_items=3,
        )
    )
    info = judging.info
    assert judging.refused is None
    assert info.refused is None
    assert judging.languages == frozenset({"en", "es"})
    assert info.calibration is not None
    assert info.calibration.kappa == 1.0
    assert [figures.language for figures in info.calibration.languages] == ["en", "es"]
    assert info.calibration.min_items == 3
    assert (info.calibration.talking, info.calibration.obeyed) == (2, 0)


def test_a_record_for_another_model_does_not_carry_over(tmp_path: Path) -> None:
    record = _record(tmp_path, _judge_file(tmp_path, "judge-1"))
    judging = _prepared(
        JudgeRequest(
            judge_file=_judge_file(tmp_path, "judge-2"),
            calibration=record,
            labels=[SMALL],
            min_items=3,
        )
    )
    info = judging.info
    assert info.refused is not None
    assert "model" in info.refused


def test_a_record_on_labels_nobody_named_is_refused(tmp_path: Path) -> None:
    judge_file = _judge_file(tmp_path)
    judging = _prepared(
        JudgeRequest(judge_file=judge_file, calibration=_record(tmp_path, judge_file), min_items=3)
    )
    info = judging.info
    assert info.refused is not None
    assert "labels" in info.refused
    assert info.calibration is not None
    assert info.calibration.labels.endswith("(not the shipped or named labels)")


def test_a_judge_that_always_passes_is_refused_by_its_own_record(tmp_path: Path) -> None:
    judge_file = _judge_file(tmp_path)
    judging = _prepared(
        JudgeRequest(
            judge_file=judge_file,
            calibration=_record(tmp_path, judge_file, "always_pass"),
            labels=[SMALL],
            min_items=3,
        )
    )
    info = judging.info
    assert info.refused == (
        "the judge passed 2 of 2 pairs on answers that talk to the judge (e.g. en-injection-01)"
    )
    assert judging.refused == info.refused


def test_a_kappa_floor_below_0_4_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="0.4"):
        _prepared(
            JudgeRequest(
                judge_file=_judge_file(tmp_path), calibration=None, min_kappa=0.3, min_items=30
            )
        )
