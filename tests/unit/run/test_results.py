"""The results file: written atomically, read back strictly, refused when newer."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gauntlet.errors import ResultsError
from gauntlet.run.results import (
    RESULTS_SCHEMA_VERSION,
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
        verdict=Verdict.PASS,
        verdict_reason="every gate met its threshold",
        capability_scored=True,
        unreadable_answers=0,
        totals=Totals(total=0, passed=0, failed=0, errored=0),
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

    monkeypatch.setattr("gauntlet.run.results.os.replace", broken)
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
        ("{", "not JSON"),
        ("[]", "no schema_version"),
        ('{"schema_version": 1}', "not a valid results file: gauntlet_version: Field required"),
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
