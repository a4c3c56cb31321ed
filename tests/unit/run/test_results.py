"""The results file: written atomically, read back strictly, refused when newer."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gauntlet.errors import ResultsError
from gauntlet.run.results import (
    RESULTS_SCHEMA_VERSION,
    Plan,
    Results,
    TargetInfo,
    Totals,
    Verdict,
    read_results,
    write_results,
)

WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _results() -> Results:
    return Results(
        schema_version=RESULTS_SCHEMA_VERSION,
        gauntlet_version="0.0.0",
        started_at=WHEN,
        finished_at=WHEN,
        target=TargetInfo(kind="toy", name="toy"),
        plan=Plan(cases=0, digest="sha256:0", repeat=1),
        shard=None,
        complete=True,
        interrupted_by=None,
        verdict=Verdict.PASS,
        verdict_reason="every gate met its threshold",
        capability_scored=True,
        unreadable_answers=0,
        totals=Totals(total=0, passed=0, failed=0, errored=0, not_run=0),
        gates=(),
        suites=(),
        cases=(),
    )


def test_schema_version_is_the_first_field(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_results(_results(), path)
    assert next(iter(json.loads(path.read_text()))) == "schema_version"


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_results(_results(), path)
    assert read_results(path) == _results()
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left behind


def test_a_failed_write_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "r.json"

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("gauntlet.files.os.replace", broken)
    with pytest.raises(ResultsError, match="No space left on device"):
        write_results(_results(), path)
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_place_is_a_results_error(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot write the results"):
        write_results(_results(), tmp_path / "missing-dir" / "r.json")


def test_a_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = _results().model_dump(mode="json")
    data["schema_version"] = RESULTS_SCHEMA_VERSION + 1
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="newer than this gauntlet reads"):
        read_results(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "1:2: not JSON"),
        ("[]", "no schema_version"),
        (
            '{"schema_version": 1}',
            "not a valid results file(.|\\n)*r.json: gauntlet_version: Field",
        ),
    ],
)
def test_what_is_not_a_results_file_is_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ResultsError, match=message):
        read_results(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot read"):
        read_results(tmp_path / "nope.json")


def test_an_inconsistent_file_is_refused_with_every_problem_located(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = _results().model_dump(mode="json")
    data["totals"]["passed"] = 3
    data["complete"] = False
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert str(caught.value) == (
        f"{path}: inconsistent results file:\n"
        f"  {path}: totals.passed: 3, but the cases say 0\n"
        f"  {path}: complete: False but 0 cases were not run"
    )


def _written(tmp_path: Path, change: object) -> Path:
    from gauntlet.cases.model import GateName
    from gauntlet.run.results import CaseResult, Outcome, SuiteResult, Trial

    trial = Trial(
        outcome=Outcome.PASSED,
        reason="",
        response=None,
        said_something=True,
        latency_ms=1.0,
        attempts=1,
        waited_s=0.0,
    )
    case = CaseResult(
        index=0,
        suite="s",
        gate=GateName.GOLDEN,
        case_id="c1",
        language="en",
        prompt="p",
        source="s.yaml",
        line=7,
        outcome=Outcome.PASSED,
        reason="",
        passes=1,
        repeats=1,
        pass_k=1,
        flaky=False,
        trials=(trial,),
    )
    suite = SuiteResult(
        suite="s",
        gate=GateName.GOLDEN,
        version=1,
        key_version=1,
        threshold=1.0,
        source="s.yaml",
        repeat=1,
        pass_k=1,
        capability=True,
        total=1,
        passed=1,
        failed=0,
        errored=0,
        not_run=0,
        pass_rate=1.0,
        met=True,
    )
    results = _results().model_copy(
        update={
            "cases": (case,),
            "suites": (suite,),
            "totals": Totals(total=1, passed=1, failed=0, errored=0, not_run=0),
        }
    )
    data = results.model_dump(mode="json")
    change(data)  # type: ignore[operator]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d["suites"][0].update(pass_rate=1.5), "suites[0].pass_rate: 1.5 is outside"),
        (lambda d: d["suites"][0].update(pass_rate=0.5), "suites[0].pass_rate: 0.5 is not 1/1"),
        (lambda d: d["suites"][0].update(total=2), "suites[0].total: 2, but the cases say 1"),
        (lambda d: d["cases"].append(dict(d["cases"][0])), "cases[1].case_id: 'c1' repeats"),
    ],
)
def test_each_inconsistency_is_located(tmp_path: Path, change: object, problem: str) -> None:
    read_results(_written(tmp_path, lambda d: None))  # the unchanged file is consistent
    with pytest.raises(ResultsError, match=re.escape(problem)):
        read_results(_written(tmp_path, change))
