"""Every number a history holds has a range, kept at writing and at reading, and no statistic
over numbers in range overflows: never an internal error, never inf or nan in what is shown."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gauntlet.cli import run
from gauntlet.errors import HistoryError
from gauntlet.history import stats
from gauntlet.history.numbers import MAX_LATENCY_MS, MAX_TOKENS
from gauntlet.history.records import History
from gauntlet.history.store import append_run, load_history, records_of
from gauntlet.run.results import Results
from gauntlet.run.results_file import write_results
from gauntlet.targets.contract import Usage
from tests.cli_helpers import RunCli
from tests.unit.history.helpers import clean, later


def _with_first_ask(results: Results, **update: Any) -> Results:
    case = results.cases[0]
    trial = case.trials[0].model_copy(update=update)
    first = case.model_copy(update={"trials": (trial, *case.trials[1:])})
    return results.model_copy(update={"cases": (first, *results.cases[1:])})


@pytest.mark.parametrize(
    "usage",
    [
        Usage(total_tokens=2**63),
        Usage(total_tokens=2**64 + 5),
        Usage(total_tokens=MAX_TOKENS + 1),
        Usage.model_construct(total_tokens=-1),  # past the model, as a forged file could
        Usage(prompt_tokens=2**62, completion_tokens=2**62),
    ],
)
def test_a_token_count_no_history_can_hold_is_stored_as_not_reported(
    tmp_path: Path, usage: Usage
) -> None:
    # Trap: a target's claim of 2**63 tokens handed to SQLite, which overflows: internal error.
    path = tmp_path / "history.sqlite"
    append_run(path, _with_first_ask(clean(), usage=usage), {})
    first = load_history(path).cases[0]
    assert first.tokens is None
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT tokens FROM trials WHERE trial = 1").fetchone() == (None,)


@pytest.mark.parametrize("latency", [1e308, math.inf, math.nan, -1.0, MAX_LATENCY_MS * 2])
def test_a_latency_gauntlet_never_measures_is_refused_when_writing(latency: float) -> None:
    # Trap: 1e308 ms stored, then a standard deviation over it overflows in `report --history`.
    results = _with_first_ask(clean(), latency_ms=latency)
    with pytest.raises(HistoryError, match="latency_ms") as raised:
        records_of(results, {})
    message = str(raised.value)
    assert results.cases[0].case_id in message
    assert "ask 1" in message
    assert "between 0 and" in message


@pytest.mark.parametrize("first", [1e308, math.inf, math.nan, -1.0, MAX_LATENCY_MS * 2])
def test_a_time_to_first_token_out_of_its_range_is_refused_when_writing_as_a_latency_is(
    first: float,
) -> None:
    # Trap: a time to first token stored unchecked, so the dashboard's p95 over it is inf.
    results = _with_first_ask(clean(), first_token_ms=first)
    with pytest.raises(HistoryError, match="first_token_ms") as raised:
        records_of(results, {})
    message = str(raised.value)
    assert results.cases[0].case_id in message
    assert "ask 1" in message
    assert "between 0 and" in message


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"index": 2**63}, "index"),
        ({"index": -1}, "index"),
    ],
)
def test_an_integer_no_history_can_hold_is_refused_when_writing(
    edit: dict[str, int], said: str
) -> None:
    # Trap: an int past SQLite's 64 bits reaching `execute`, which raises OverflowError.
    case = clean().cases[0].model_copy(update=edit)
    results = clean().model_copy(update={"cases": (case, *clean().cases[1:])})
    with pytest.raises(HistoryError, match=said) as raised:
        append_run(Path(tempfile.mkdtemp()) / "history.sqlite", results, {})
    assert "between" in str(raised.value)


def test_a_suite_version_no_history_can_hold_is_refused_when_writing(tmp_path: Path) -> None:
    # Trap: as above, for the suites table.
    suite = clean().suites[0].model_copy(update={"version": 2**63})
    results = clean().model_copy(update={"suites": (suite, *clean().suites[1:])})
    with pytest.raises(HistoryError, match="version") as raised:
        append_run(tmp_path / "history.sqlite", results, {})
    assert "between" in str(raised.value)


@pytest.mark.parametrize(
    "started",
    [
        datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5))),  # past 9999 in UTC
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(1969, 12, 31, tzinfo=UTC),
    ],
)
def test_a_time_no_history_can_hold_is_refused_when_writing(
    tmp_path: Path, started: datetime
) -> None:
    # Trap: a time converted to UTC overflowing (internal error), or written unpadded and
    # refused by SQLite's check as if the file were broken.
    results = clean().model_copy(update={"started_at": started, "finished_at": started})
    with pytest.raises(HistoryError, match="started_at") as raised:
        append_run(tmp_path / "history.sqlite", results, {})
    assert "between 1970-01-01" in str(raised.value)
    assert "cannot be used" not in str(raised.value)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE cases SET latency_ms = 1e308 WHERE position = 0", "table cases, run 1, case "),
        ("UPDATE cases SET latency_ms = 9e999 WHERE position = 0", "table cases, run 1, case "),
        ("UPDATE trials SET latency_ms = 1e308 WHERE trial = 1", "table trials, run 1, case "),
        ("UPDATE trials SET latency_ms = -5 WHERE trial = 1", "table trials, run 1, case "),
        ("UPDATE trials SET first_token_ms = 1e308 WHERE trial = 1", "table trials, run 1, case "),
        ("UPDATE trials SET first_token_ms = -5 WHERE trial = 1", "table trials, run 1, case "),
        (
            "UPDATE cases SET tokens = 4611686018427387904 WHERE position = 0",
            "table cases, run 1, case ",
        ),
        (
            "UPDATE trials SET tokens = 4611686018427387904 WHERE trial = 1",
            "table trials, run 1, case ",
        ),
    ],
)
def test_a_stored_number_out_of_range_is_refused_located(
    tmp_path: Path, edit: str, said: str
) -> None:
    # Trap: reading back a number no writer stores, so the statistics meet it unchecked.
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute(edit)
    with pytest.raises(HistoryError, match="a damaged history") as raised:
        load_history(path)
    assert said in str(raised.value)
    assert "out of range" in str(raised.value)


def test_statistics_over_numbers_at_the_limits_stay_finite() -> None:
    # Trap: limits chosen so wide that a mean, a deviation or a z overflows inside them.
    runs, cases = [], []
    for hours in range(12):
        run_, records = records_of(later(clean(), -60 * hours), {})
        extreme = MAX_LATENCY_MS if hours % 2 else 0.0
        runs.append(run_)
        cases += [
            r.__class__(**{**r.__dict__, "latency_ms": extreme, "tokens": MAX_TOKENS * (hours % 2)})
            for r in records
        ]
    history = History(
        runs=tuple(sorted(runs, key=lambda r: (r.started_at, r.key))), cases=tuple(cases)
    )
    for metric in stats.METRICS:
        for point in stats.series(history, metric=metric):
            trend = point.trend
            for value in (point.value, trend.mean, trend.stdev, trend.z, *trend.history):
                assert value is None or math.isfinite(value), (metric, value)


# --- any number, through the real command line ---------------------------------------------

NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63) - 1, MAX_TOKENS, MAX_TOKENS + 1]),
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.sampled_from([1e308, -1e308, 5e-324, -0.0, math.inf, -math.inf, math.nan, MAX_LATENCY_MS]),
)
FIELDS = st.sampled_from(
    [
        ("latency_ms",),
        ("first_token_ms",),
        ("waited_s",),
        ("usage", "total_tokens"),
        ("usage", "prompt_tokens"),
        ("usage", "completion_tokens"),
    ]
)


@cache
def _seed() -> Path:
    """Three healthy runs, an hour apart: enough history for a z."""
    where = Path(tempfile.mkdtemp(prefix="gauntlet-numbers-")) / "seed.sqlite"
    for hours in (3, 2, 1):
        append_run(where, later(clean(), -60 * hours), {})
    return where


def _finite_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} in the JSON output")

    return json.loads(text, parse_constant=refuse)


def _said_cleanly(code: int, out: str, err: str) -> None:
    assert code in (0, 2), (code, out, err)
    assert "internal error" not in err, err
    assert "Traceback" not in err, err
    if code == 2:  # the harness's exit code
        assert "error:" in err, err


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(st.tuples(st.integers(0, 3), FIELDS, NUMBERS), min_size=1, max_size=4))
def test_history_add_and_report_history_take_any_number_or_refuse_it_worded(
    capsys: pytest.CaptureFixture[str], edits: list[tuple[int, tuple[str, ...], object]]
) -> None:
    # Trap: a number from a results file reaching SQLite or the statistics unchecked.
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        history = where / "history.sqlite"
        shutil.copyfile(_seed(), history)
        data = json.loads(later(clean(), 5).model_dump_json())
        for case, field, value in edits:
            trial = data["cases"][case]["trials"][0]
            if field[0] == "usage":
                trial["usage"] = {**(trial.get("usage") or {}), field[1]: value}
            else:
                trial[field[0]] = value
        edited = where / "edited.json"
        edited.write_text(json.dumps(data))  # NaN and Infinity as JSON's extension writes them
        healthy = where / "healthy.json"
        write_results(later(clean(), 10), healthy)
        capsys.readouterr()
        for args in (
            ["history", "add", str(edited), "--history", str(history)],
            ["report", str(edited), "--format", "json", "--history", str(history)],
            ["report", str(healthy), "--format", "json", "--history", str(history)],
            ["history", "trend", "--history", str(history)],
        ):
            code = run(args)
            out, err = capsys.readouterr()
            event(f"{' '.join(args[:2]) if args[0] == 'history' else 'report'}: exit {code}")
            _said_cleanly(code, out, err)
            if code == 0 and args[0] == "report":
                _finite_json(out)


def test_report_and_site_refuse_a_history_holding_a_latency_out_of_range(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: the dashboard or the Trends section computing over 1e308 ms stored by an older
    # gauntlet (or an editor), and failing inside.
    path = tmp_path / "history.sqlite"
    for hours in (3, 2, 1):
        append_run(path, later(clean(), -60 * hours), {})
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute("UPDATE trials SET latency_ms = 1e308")
        connection.execute("UPDATE cases SET latency_ms = 1e308")
    results = tmp_path / "results.json"
    write_results(clean(), results)
    for args in (
        ["report", results, "--format", "json", "--history", path],
        ["site", "--out", tmp_path / "site", "--history", path],
    ):
        done = run_cli(*args)
        assert done.code == 2, done.show()
        assert "table trials, run 1, case " in done.stderr
        assert "latency_ms: 1e+308 is out of range" in done.stderr


@pytest.mark.parametrize("z", ["-inf", "-Infinity", "-1e999"])
def test_a_z_threshold_that_is_not_a_finite_number_is_refused(
    run_cli: RunCli, tmp_path: Path, z: str
) -> None:
    # Trap: `--z -inf` is below 0, so it passed the check and reached the pack as -Infinity:
    # JSON no reader accepts, and a rule reading `z <= -inf`.
    path = tmp_path / "history.sqlite"
    append_run(path, later(clean(), -60), {})
    results = tmp_path / "results.json"
    write_results(clean(), results)
    done = run_cli("report", results, "--format", "json", "--history", path, "--z", z)
    assert done.code == 2, done.show()
    assert "--z" in done.stderr
    assert "a finite number below 0" in done.stderr
    assert "Infinity" not in done.stdout
