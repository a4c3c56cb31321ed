"""The run-history store: what it keeps, that it keeps each run once, and what it refuses."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path

import pytest

from gauntlet.canonical import canonical_json
from gauntlet.errors import HistoryError, UsageError
from gauntlet.history import store
from gauntlet.history.store import (
    APPLICATION_ID,
    HISTORY_SCHEMA_VERSION,
    MIGRATIONS,
    append_run,
    check_history,
    load_history,
    parse_labels,
    records_of,
    run_key,
    target_fingerprint,
    timestamp,
)
from gauntlet.run.results import Outcome, Shard, TargetInfo, Verdict
from gauntlet.targets.contract import Usage
from gauntlet.targets.spec import TargetKind
from tests.unit.history.helpers import clean, drifting, interrupted, later


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql).fetchall()


# --- records_of -------------------------------------------------------------------------------


def test_a_run_becomes_one_run_record_and_a_case_record_per_case() -> None:
    results = clean()
    run, cases = records_of(results, {"commit": "3f2a9c1", "branch": "main"})
    assert run.number == 0
    assert run.verdict == "pass"
    assert run.labels == {"branch": "main", "commit": "3f2a9c1"}
    assert list(run.labels) == ["branch", "commit"]
    assert run.plan_digest == results.plan.digest
    assert run.suites == tuple((suite.suite, suite.version) for suite in results.suites)
    assert len(cases) == len(results.cases)
    assert {case.run_key for case in cases} == {run.key}
    first, stored = results.cases[0], cases[0]
    assert (stored.suite, stored.case_id, stored.outcome, stored.passes, stored.repeats) == (
        first.suite,
        first.case_id,
        "passed",
        first.passes,
        first.repeats,
    )
    assert stored.latency_ms == 0.0  # every fixture ask is answered in no time
    assert stored.tokens is None  # the toy reports none


def test_the_key_is_the_same_for_the_same_run_and_differs_by_start_run_id_and_shard() -> None:
    results = clean()
    assert run_key(results) == run_key(results.model_copy())
    assert run_key(later(results, 1)) != run_key(results)
    assert run_key(later(results, 0, run_id="ci-1")) != run_key(results)
    assert run_key(results.model_copy(update={"shard": Shard(index=1, count=2)})) != run_key(
        results
    )
    # Answers that differ are another run even at the same time.
    assert run_key(drifting()) != run_key(results)


def test_a_cases_latency_is_the_median_of_its_answered_asks_and_tokens_need_every_ask() -> None:
    results = clean()
    case = results.cases[0]
    answered = case.trials[0]
    asks = (
        answered.model_copy(update={"latency_ms": 10.0, "usage": Usage(total_tokens=5)}),
        answered.model_copy(
            update={"latency_ms": 30.0, "usage": Usage(prompt_tokens=2, completion_tokens=4)}
        ),
        answered.model_copy(
            update={"latency_ms": 900.0, "response": None, "outcome": Outcome.ERRORED}
        ),
    )
    one = case.model_copy(update={"trials": asks, "repeats": 3})
    _, (stored,) = records_of(results.model_copy(update={"cases": (one,)}), {})
    assert stored.latency_ms == 20.0  # the errored ask's 900 ms is no answer's latency
    assert stored.tokens is None  # the errored ask reported none
    both = case.model_copy(update={"trials": asks[:2], "repeats": 2})
    _, (stored,) = records_of(results.model_copy(update={"cases": (both,)}), {})
    assert stored.tokens == 11
    unanswered = case.model_copy(update={"trials": asks[2:], "repeats": 1})
    _, (stored,) = records_of(results.model_copy(update={"cases": (unanswered,)}), {})
    assert stored.latency_ms is None
    partial = answered.model_copy(update={"usage": Usage(prompt_tokens=2)})
    lone = case.model_copy(update={"trials": (partial,), "repeats": 1})
    _, (stored,) = records_of(results.model_copy(update={"cases": (lone,)}), {})
    assert stored.tokens is None


def test_each_streamed_answers_time_to_first_token_is_stored_per_ask_and_read_back(
    tmp_path: Path,
) -> None:
    # Trap: a history that keeps no time to first token (the dashboard cannot show what the
    # pack shows), or keeps one for an ask that got no answer, so the dashboard's median and
    # p95 differ from the pack's, which time only answered asks.
    results = clean()
    case = results.cases[0]
    answered = case.trials[0]
    asks = (
        answered.model_copy(update={"first_token_ms": 40.0}),
        answered.model_copy(update={"first_token_ms": None}),
        answered.model_copy(
            update={"first_token_ms": 7.0, "response": None, "outcome": Outcome.ERRORED}
        ),
        answered.model_copy(update={"first_token_ms": 12.5}),
    )
    streamed = case.model_copy(
        update={"trials": asks, "repeats": 4, "passes": 3, "outcome": Outcome.ERRORED}
    )
    results = results.model_copy(
        update={"cases": (streamed, *results.cases[1:]), "verdict": Verdict.WITHHELD}
    )
    _, cases = records_of(results, {})
    assert cases[0].first_token_ms == (40.0, 12.5)
    assert all(stored.first_token_ms == () for stored in cases[1:])
    path = tmp_path / "history.sqlite"
    append_run(path, results, {})
    assert load_history(path).cases == cases
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT first_token_ms FROM trials WHERE case_id = ? ORDER BY trial", (case.case_id,)
        ).fetchall()
    assert rows == [(40.0,), (None,), (None,), (12.5,)]


def test_times_are_written_in_utc_with_microseconds_so_text_order_is_time_order() -> None:
    assert timestamp(datetime(2026, 12, 1, 9, 0, tzinfo=UTC)) == "2026-12-01T09:00:00.000000Z"
    assert timestamp(datetime.fromisoformat("2026-12-01T09:00:00")) == "2026-12-01T09:00:00.000000Z"


# --- labels ------------------------------------------------------------------------------------


def test_labels_are_parsed_into_a_mapping() -> None:
    assert parse_labels(["branch=main", "commit=3f2a=9c1", "ci.job-2_x="]) == {
        "branch": "main",
        "commit": "3f2a=9c1",
        "ci.job-2_x": "",
    }


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("branch", "expected key=value"),
        ("Branch=main", "the key must be a lowercase letter"),
        ("1x=main", "the key must be a lowercase letter"),
        ("a b=main", "the key must be a lowercase letter"),
        ("k" * 65 + "=v", "at most 64"),
        ("branch=main\nexit 1", "line break or control character"),
        ("branch=\x1b[31m", "line break or control character"),
        ("branch=" + "x" * 201, "201 characters, over the 200"),
    ],
)
def test_a_bad_label_is_a_usage_error(spec: str, said: str) -> None:
    with pytest.raises(UsageError, match=r"^labels '") as raised:
        parse_labels([spec])
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)
    # The parameter is data: the command line words it as the flag the user typed.
    assert raised.value.parameters == ("labels",)
    assert raised.value.worded({"labels": "--label"}).startswith("--label '")


def test_a_label_given_twice_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="^labels branch: given twice"):
        parse_labels(["branch=main", "branch=dev"])


def test_a_value_of_200_characters_is_kept() -> None:
    assert parse_labels(["note=" + "x" * 200]) == {"note": "x" * 200}


# --- appending and reading ---------------------------------------------------------------------


def test_a_run_appended_is_read_back_as_it_was_recorded(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    appended = append_run(path, clean(), {"commit": "abc"})
    assert (appended.number, appended.added) == (1, True)
    history = load_history(path)
    run, cases = records_of(clean(), {"commit": "abc"})
    assert history.runs == (run.__class__(**{**run.__dict__, "number": 1}),)
    assert history.cases == cases
    asks = sum(case.repeats for case in clean().cases)
    assert _rows(path, "SELECT count(*) FROM trials") == [(asks,)]


def test_the_same_run_twice_is_one_run_and_keeps_its_first_labels(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {"commit": "abc"})
    again = append_run(path, clean(), {"commit": "other"})
    assert (again.number, again.added) == (1, False)
    history = load_history(path)
    assert len(history.runs) == 1
    assert history.runs[0].labels == {"commit": "abc"}
    assert len(history.cases) == len(clean().cases)


def test_runs_are_numbered_oldest_first_whatever_order_they_arrive_in(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    assert append_run(path, later(clean(), 20), {"n": "3"}).number == 1
    assert append_run(path, drifting(), {"n": "1"}).number == 1
    assert append_run(path, later(clean(), 10), {"n": "2"}).number == 2
    history = load_history(path)
    assert [run.labels["n"] for run in history.runs] == ["1", "2", "3"]
    assert [run.number for run in history.runs] == [1, 2, 3]
    assert history.runs[0].verdict == "fail"
    # Cases follow their runs' order, and each run's own case order.
    keys = [case.run_key for case in history.cases]
    assert keys == sorted(keys, key=[run.key for run in history.runs].index)
    first = [case.case_id for case in history.cases if case.run_key == history.runs[0].key]
    assert first == [case.case_id for case in drifting().cases]


def test_an_interrupted_run_is_kept_marked_by_its_withheld_verdict(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, interrupted(), {})
    (run,) = load_history(path).runs
    assert run.verdict == "withheld"
    assert _rows(path, "SELECT complete, interrupted_by FROM runs") == [(0, "SIGINT")]
    outcomes = {case.outcome for case in load_history(path).cases}
    assert "not_run" in outcomes


def test_the_file_is_a_wal_gauntlet_history_of_the_newest_schema(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    assert _rows(path, "PRAGMA journal_mode") == [("wal",)]
    assert _rows(path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert _rows(path, "PRAGMA user_version") == [(HISTORY_SCHEMA_VERSION,)]
    assert HISTORY_SCHEMA_VERSION == 5  # the schema this test pins
    assert _rows(path, "PRAGMA integrity_check") == [("ok",)]


def test_an_empty_file_becomes_a_history(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.touch()
    append_run(path, clean(), {})
    assert len(load_history(path).runs) == 1


def test_an_empty_history_reads_as_no_runs(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.touch()
    check_history(path)
    assert load_history(path).runs == ()


def test_check_history_accepts_a_free_name_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    check_history(path)
    assert not path.exists()


# --- migrations --------------------------------------------------------------------------------


def _version_1(path: Path) -> None:
    """A history as the first schema wrote it: labels a JSON object in `runs`."""
    results = clean()
    run, cases = records_of(results, {})
    with sqlite3.connect(path) as connection:
        for step in MIGRATIONS[0]:
            connection.execute(step)
        connection.execute("PRAGMA user_version = 1")
        connection.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, NULL, NULL, NULL, NULL, ?)",
            (
                run.key,
                timestamp(run.started_at),
                timestamp(run.finished_at),
                run.gauntlet_version,
                run.target_kind,
                run.target_name,
                run.target_fingerprint,
                run.plan_digest,
                run.results_digest,
                run.verdict,
                json.dumps({"commit": "abc", "branch": "main"}),
            ),
        )
        connection.executemany(
            "INSERT INTO suites VALUES (?, ?, ?, ?)",
            [(run.key, n, name, version) for n, (name, version) in enumerate(run.suites)],
        )
        connection.executemany(
            "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run.key,
                    n,
                    case.suite,
                    case.gate,
                    case.case_id,
                    case.language,
                    case.outcome,
                    case.passes,
                    case.repeats,
                    case.latency_ms,
                    case.tokens,
                )
                for n, case in enumerate(cases)
            ],
        )
        connection.executemany(
            "INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (run.key, case.suite, case.case_id, n, trial.outcome.value, trial.latency_ms, None)
                for case in results.cases
                for n, trial in enumerate(case.trials, start=1)
            ],
        )


def test_a_version_1_history_is_upgraded_with_its_rows_and_labels_kept(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    _version_1(path)
    assert "labels" in [row[1] for row in _rows(path, "PRAGMA table_info(runs)")]
    history = load_history(path)
    assert _rows(path, "PRAGMA user_version") == [(HISTORY_SCHEMA_VERSION,)]
    assert "labels" not in [row[1] for row in _rows(path, "PRAGMA table_info(runs)")]
    assert _rows(path, "SELECT key, value FROM labels ORDER BY key") == [
        ("branch", "main"),
        ("commit", "abc"),
    ]
    assert len(history.runs) == 1
    assert history.runs[0].labels == {"branch": "main", "commit": "abc"}
    assert len(history.cases) == len(clean().cases)
    # And it takes new runs as any history does.
    assert append_run(path, later(clean(), 5), {"n": "2"}).number == 2


def test_a_history_from_before_time_to_first_token_reads_it_as_not_reported(
    tmp_path: Path,
) -> None:
    # Trap: a migration that leaves older asks without the column (every read fails), or
    # fills it with 0 ms (a time no ask took), where the truth is that none was reported.
    path = tmp_path / "history.sqlite"
    _version_1(path)
    history = load_history(path)
    columns = [row[1] for row in _rows(path, "PRAGMA table_info(trials)")]
    assert "first_token_ms" in columns
    assert _rows(path, "SELECT DISTINCT first_token_ms FROM trials") == [(None,)]
    assert history.cases and all(case.first_token_ms == () for case in history.cases)


def test_a_migration_that_fails_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite"
    _version_1(path)
    broken = (*MIGRATIONS[:1], (*MIGRATIONS[1][:2], "THIS IS NOT SQL"))
    monkeypatch.setattr(store, "MIGRATIONS", broken)
    with pytest.raises(HistoryError, match="cannot be used"):
        load_history(path)
    assert _rows(path, "PRAGMA user_version") == [(1,)]
    assert "labels" in [row[1] for row in _rows(path, "PRAGMA table_info(runs)")]


# --- refusals ---------------------------------------------------------------------------------


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.write_text('{"schema_version": 6}\n')
    with pytest.raises(HistoryError, match="not a gauntlet history: not a SQLite database"):
        append_run(path, clean(), {})
    assert path.read_text() == '{"schema_version": 6}\n'
    assert not Path(f"{path}-wal").exists()


def test_a_header_of_zeros_is_left_to_sqlite_which_refuses_it_if_it_stays(
    tmp_path: Path,
) -> None:
    # A file another writer is creating can be read, for an instant, as zeros: the friendly
    # check lets it through, and SQLite, under its locks, refuses a file that stays zeros.
    path = tmp_path / "history.sqlite"
    path.write_bytes(bytes(4096))
    with pytest.raises(HistoryError, match="the history cannot be used: file is not a database"):
        append_run(path, clean(), {})


def test_another_programs_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(HistoryError, match="a SQLite database of something else"):
        append_run(path, clean(), {})
    assert _rows(path, "SELECT name FROM sqlite_schema") == [("users",)]


def test_a_marked_file_without_a_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.execute("CREATE TABLE runs (key TEXT)")
    with pytest.raises(HistoryError, match="it has no schema version"):
        load_history(path)


def test_a_history_from_a_newer_gauntlet_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {HISTORY_SCHEMA_VERSION + 1}")
    with pytest.raises(
        HistoryError,
        match=f"schema version {HISTORY_SCHEMA_VERSION + 1} is newer than this gauntlet",
    ):
        load_history(path)
    with pytest.raises(HistoryError, match="upgrade gauntlet"):
        append_run(path, later(clean(), 1), {})


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="is a directory, not a history file"):
        append_run(tmp_path, clean(), {})


def test_a_symlink_where_the_history_belongs_is_refused_even_to_a_history(tmp_path: Path) -> None:
    real = tmp_path / "real.sqlite"
    append_run(real, clean(), {})
    link = tmp_path / "history.sqlite"
    link.symlink_to(real)
    with pytest.raises(HistoryError, match="is a symlink"):
        load_history(link)
    with pytest.raises(HistoryError, match="is a symlink"):
        check_history(link)


def test_a_symlink_planted_as_the_write_ahead_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    Path(f"{path}-wal").unlink(missing_ok=True)
    Path(f"{path}-wal").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(HistoryError, match=r"history\.sqlite-wal: is a symlink"):
        append_run(path, later(clean(), 1), {})
    assert not (tmp_path / "elsewhere").exists()


def test_a_missing_history_is_refused_when_reading_and_made_when_appending(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.sqlite"
    with pytest.raises(HistoryError, match="no history there"):
        load_history(path)
    assert not path.exists()
    with pytest.raises(HistoryError, match="the directory .* does not exist"):
        append_run(tmp_path / "no" / "history.sqlite", clean(), {})


def test_an_unreadable_history_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    # Tests may run as root, who reads anything: the check is what is under test.
    monkeypatch.setattr(os, "access", lambda *_: False)
    with pytest.raises(HistoryError, match="permission denied"):
        load_history(path)


def test_a_path_that_cannot_be_looked_at_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="cannot open the history"):
        load_history(tmp_path / ("x" * 300))


def test_the_schema_refuses_a_row_that_breaks_a_rule(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    with sqlite3.connect(path) as connection, pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        connection.execute("UPDATE runs SET verdict = 'great'")
    with sqlite3.connect(path) as connection, pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        connection.execute("UPDATE cases SET passes = repeats + 1")
    with sqlite3.connect(path) as connection, pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        connection.execute("INSERT INTO labels VALUES ((SELECT key FROM runs), 'Bad Key', 'x')")


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE runs SET verdict = 'great'", "table runs, run 1: verdict: 'great' is not one of"),
        ("UPDATE runs SET started_at = 'yesterday'", "started_at or finished_at: not a time"),
        ("UPDATE runs SET target_name = x'07'", "target_name: bytes where text belongs"),
        (
            "UPDATE cases SET outcome = 'fine' WHERE position = 0",
            "table cases, run 1, case adv-en-override-word: outcome: 'fine' is not one of",
        ),
        ("UPDATE cases SET passes = 9 WHERE position = 0", "passes 9 of repeats 1"),
        ("UPDATE cases SET latency_ms = 'slow' WHERE position = 0", "latency_ms: 'slow'"),
        ("UPDATE cases SET tokens = -1 WHERE position = 0", "tokens: -1 is not a count"),
        ("UPDATE cases SET language = x'03' WHERE position = 0", "text belongs in each"),
        ("UPDATE suites SET version = 0", "SQLite's check: CHECK constraint failed in suites"),
        (
            "INSERT INTO labels SELECT key, 'commit', 'a' || char(27) || '[31mb' FROM runs",
            "table runs, run 1: label 'commit': the value holds a line break or control",
        ),
        (
            "INSERT INTO labels SELECT key, 'Bad Key', 'v' FROM runs",
            "table runs, run 1: label 'bad key': the key must be a lowercase letter",
        ),
        (
            "INSERT INTO labels VALUES ('sha256:' || hex(zeroblob(32)), 'k', 'v')",
            "table labels, row 1: refers to a missing row of runs",
        ),
    ],
)
def test_a_row_edited_past_the_schemas_rules_is_refused_located(
    tmp_path: Path, edit: str, said: str
) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute(edit)
    with pytest.raises(HistoryError, match="a damaged history") as raised:
        load_history(path)
    assert said.lower() in str(raised.value).lower()
    assert str(raised.value).startswith(f"{path}: a damaged history:")


def test_a_damaged_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {})
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode = DELETE")
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 2 : page * 2 + 64] = b"\xff" * 64  # a page of the runs table, scribbled over
    path.write_bytes(bytes(data))
    with pytest.raises(HistoryError, match=r"history\.sqlite: (a damaged history|the history)"):
        load_history(path)


def test_a_transaction_sqlite_already_rolled_back_is_not_rolled_back_twice(
    tmp_path: Path,
) -> None:
    with closing(sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)) as connection:
        with pytest.raises(ValueError, match="the body's own error"), store._immediate(connection):
            connection.execute("ROLLBACK")  # as SQLite does itself on some errors
            raise ValueError("the body's own error")
        assert not connection.in_transaction


@pytest.mark.parametrize(("stored", "read"), [("http", "gauntlet"), ("http-template", "http")])
def test_a_history_from_before_the_kind_rename_reads_todays_kind_names(
    tmp_path: Path, stored: str, read: str
) -> None:
    # Trap: rows stored before results format 9 keep "http" for the native contract while
    # new rows use it for a target file of kind http: one history, one word, two targets.
    path = tmp_path / "history.sqlite"
    _version_1(path)
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("UPDATE runs SET target_kind = ?", (stored,))
    [run] = load_history(path).runs
    assert run.target_kind == read


@pytest.mark.parametrize(("kind", "before"), [("gauntlet", "http"), ("http", "http-template")])
def test_a_targets_fingerprint_outlives_the_rename_of_its_kind(
    kind: TargetKind, before: str
) -> None:
    # Trap: the fingerprint hashed over the new word, so the runs of one target stored
    # before and after the rename stop sharing it (the history's "runs of one target").
    target = TargetInfo(kind=kind, name="http://rb.test/ask", target_file="t.yaml")
    results = clean().model_copy(update={"target": target})
    written = {"kind": before, "name": target.name, "defects": [], "target_file": "t.yaml"}
    assert target_fingerprint(results) == "sha256:" + sha256(canonical_json(written)).hexdigest()


class _SwitchRefusedOnce(sqlite3.Connection):
    """A connection whose first switch to WAL is answered "database is locked" at once."""

    refused = 0

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql.startswith("PRAGMA journal_mode") and _SwitchRefusedOnce.refused == 0:
            _SwitchRefusedOnce.refused += 1
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode = sqlite3.SQLITE_BUSY
            raise error
        return super().execute(sql, *args)  # type: ignore[arg-type]


def test_a_switch_to_wal_refused_as_busy_without_waiting_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: SQLite can answer a busy `PRAGMA journal_mode = WAL` at once, without its busy
    # handler, when other processes switch the same new file at the same moment (twelve
    # processes creating one history reproduced it). Taking that answer as final failed a CI
    # job's append with "database is locked" though the lock was free a moment later.
    monkeypatch.setattr(_SwitchRefusedOnce, "refused", 0)
    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3,
        "connect",
        lambda *args, **kwargs: connect(*args, **kwargs, factory=_SwitchRefusedOnce),
    )
    history = tmp_path / "history.sqlite"
    append_run(history, clean(), {})
    assert _SwitchRefusedOnce.refused == 1
    assert len(load_history(history).runs) == 1
    with closing(connect(history)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_switch_to_wal_that_fails_otherwise_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the retry is for a busy file only; any other failure (here a read-only file
    # system's answer) is reported at once, not spun on for the busy timeout.
    calls: list[str] = []

    class ReadOnly(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql.startswith("PRAGMA journal_mode"):
                calls.append(sql)
                error = sqlite3.OperationalError("attempt to write a readonly database")
                error.sqlite_errorcode = sqlite3.SQLITE_READONLY
                raise error
            return super().execute(sql, *args)  # type: ignore[arg-type]

    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *args, **kwargs: connect(*args, **kwargs, factory=ReadOnly)
    )
    with pytest.raises(HistoryError, match="readonly database"):
        append_run(tmp_path / "history.sqlite", clean(), {})
    assert len(calls) == 1
