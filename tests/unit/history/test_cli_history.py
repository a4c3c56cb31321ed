"""`gauntlet run --history`, `gauntlet history add|list|show|trend`, through the real CLI."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from gauntlet.history.store import append_run, load_history
from gauntlet.run.results_file import write_results
from tests.cli_helpers import RunCli
from tests.unit.history.helpers import clean, drifting, later

GOLDEN = "tests/golden"


def _results_file(tmp_path: Path, name: str, minutes: int = 0, *, drift: bool = False) -> Path:
    path = tmp_path / name
    write_results(later(drifting() if drift else clean(), minutes), path)
    return path


def _history(tmp_path: Path) -> Path:
    path = tmp_path / "history.sqlite"
    append_run(path, clean(), {"commit": "aaa"})
    append_run(path, later(clean(), 10), {"commit": "bbb"})
    append_run(path, later(drifting(), 20), {"commit": "ccc", "branch": "main"})
    return path


def test_run_appends_the_run_with_its_labels_also_when_it_fails(
    run_cli: RunCli, tmp_path: Path
) -> None:
    history = tmp_path / "history.sqlite"
    out = tmp_path / "results.json"
    first = run_cli(
        "run",
        "--no-transforms",
        "--quiet",
        "--out",
        out,
        "--history",
        history,
        "--label",
        "commit=abc",
    )
    assert first.code == 0, first.show()
    assert f"history: added as run 1 in {history}" in first.stderr
    failed = run_cli(
        "run",
        "--no-transforms",
        "--quiet",
        "--toy-defect",
        "drop_citations",
        "--out",
        out,
        "--history",
        history,
        "--label",
        "commit=def",
        "--label",
        "branch=main",
    )
    assert failed.code == 1, failed.show()
    assert "history: added as run 2" in failed.stderr
    runs = load_history(history).runs
    assert [run.verdict for run in runs] == ["pass", "fail"]
    assert runs[1].labels == {"branch": "main", "commit": "def"}
    assert runs[1].target_name.endswith("+drop_citations")
    assert runs[0].target_fingerprint != runs[1].target_fingerprint
    assert runs[0].plan_digest == runs[1].plan_digest


def test_run_refuses_a_bad_label_or_history_before_asking_anything(
    run_cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "results.json"
    lone = run_cli("run", "--no-transforms", "--out", out, "--label", "commit=abc")
    assert lone.code == 2
    assert "--label is for a run kept in a history: give --history FILE" in lone.stderr
    bad = run_cli(
        "run",
        "--no-transforms",
        "--out",
        out,
        "--history",
        tmp_path / "h.sqlite",
        "--label",
        "Commit=x",
    )
    assert bad.code == 2
    assert "--label 'Commit=x': the key must be" in bad.stderr
    directory = run_cli("run", "--no-transforms", "--out", out, "--history", tmp_path)
    assert directory.code == 2
    assert f"error: {tmp_path}: is a directory, not a history file" in directory.stderr
    assert "Traceback" not in directory.stderr
    assert not out.exists()  # nothing was asked
    assert not (tmp_path / "h.sqlite").exists()


def test_history_add_imports_each_run_once(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    one = _results_file(tmp_path, "one.json")
    two = _results_file(tmp_path, "two.json", 10, drift=True)
    added = run_cli("history", "add", two, one, "--history", history, "--label", "ci=yes")
    assert added.code == 0, added.show()
    assert added.stdout.splitlines() == [f"{two}: added as run 1", f"{one}: added as run 1"]
    again = run_cli("history", "add", one, two, "--history", history)
    assert again.code == 0, again.show()
    assert again.stdout.splitlines() == [
        f"{one}: already stored as run 1",
        f"{two}: already stored as run 2",
    ]
    runs = load_history(history).runs
    assert [run.labels for run in runs] == [{"ci": "yes"}, {"ci": "yes"}]


def test_history_add_stores_nothing_when_one_file_is_bad(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    good = _results_file(tmp_path, "good.json")
    bad = tmp_path / "bad.json"
    bad.write_text(good.read_text().replace('"verdict": "pass"', '"verdict": "fail"', 1))
    done = run_cli("history", "add", good, bad, "--history", history)
    assert done.code == 2
    assert f"{bad}: results that disagree with themselves" in done.stderr
    assert "verdict" in done.stderr
    assert not history.exists()


def test_history_add_refuses_a_file_that_is_not_a_history(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    history.write_text("not a database\n")
    done = run_cli("history", "add", _results_file(tmp_path, "one.json"), "--history", history)
    assert done.code == 2
    assert "not a gauntlet history: not a SQLite database" in done.stderr
    assert "Traceback" not in done.stderr


def test_history_list_prints_one_line_per_run_oldest_first(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("history", "list", "--history", _history(tmp_path))
    assert done.code == 0, done.show()
    lines = done.stdout.splitlines()
    assert re.split(r"\s{2,}", lines[0].strip()) == [
        "run",
        "started",
        "verdict",
        "target",
        "passed",
        "labels",
    ]
    total = len(clean().cases)
    drift_passed = drifting().totals.passed
    assert re.split(r"\s{2,}", lines[1].strip()) == [
        "1",
        "2026-11-30 09:00:00Z",
        "PASS",
        "toy riverbend-toy",
        f"{total}/{total}",
        "commit=aaa",
    ]
    assert re.split(r"\s{2,}", lines[3].strip()) == [
        "3",
        "2026-11-30 09:20:00Z",
        "FAIL",
        "toy riverbend-toy+answer_drift",
        f"{drift_passed}/{total}",
        "branch=main commit=ccc",
    ]
    assert "\x1b" not in done.stdout


def test_history_list_of_an_empty_history(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    history.touch()
    done = run_cli("history", "list", "--history", history)
    assert done.code == 0
    assert done.stdout == "the history holds no runs yet\n"


def test_history_show_prints_the_runs_facts_and_gate_by_language_counts(
    run_cli: RunCli, tmp_path: Path
) -> None:
    history = _history(tmp_path)
    done = run_cli("history", "show", "3", "--history", history)
    assert done.code == 0, done.show()
    assert done.stdout == run_cli("history", "show", "latest", "--history", history).stdout
    text = done.stdout
    run = load_history(history).runs[2]
    assert f"run                 3 of 3\nkey                 {run.key}\n" in text
    assert "verdict             FAIL\n" in text
    assert "labels              branch=main commit=ccc\n" in text
    golden = {
        language: (
            sum(1 for c in drifting().cases if c.gate == "golden" and c.language == language),
            sum(
                1
                for c in drifting().cases
                if c.gate == "golden" and c.language == language and c.outcome == "passed"
            ),
        )
        for language in ("en", "es")
    }
    for language, (cases, passed) in golden.items():
        row = next(line for line in text.splitlines() if line.split()[:2] == ["golden", language])
        cells = row.split()
        assert cells[2:4] == [str(cases), str(passed)]
        assert cells[-1] == f"{passed}/{cases}"
    assert golden["en"][1] < golden["en"][0]  # answer_drift fails golden cases


@pytest.mark.parametrize("wanted", ["0", "4", "x", "03x"])
def test_history_show_refuses_a_run_it_does_not_hold(
    run_cli: RunCli, tmp_path: Path, wanted: str
) -> None:
    done = run_cli("history", "show", wanted, "--history", _history(tmp_path))
    assert done.code == 2
    assert "expected a run number from 1 to 3" in done.stderr


def test_history_show_of_an_empty_history(run_cli: RunCli, tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    history.touch()
    done = run_cli("history", "show", "latest", "--history", history)
    assert done.code == 2
    assert "the history holds no runs yet" in done.stderr


def test_history_trend_prints_each_comparable_runs_pass_rate(
    run_cli: RunCli, tmp_path: Path
) -> None:
    done = run_cli(
        "history", "trend", "--gate", "golden", "--language", "en", "--history", _history(tmp_path)
    )
    assert done.code == 0, done.show()
    head, header, *rows = done.stdout.splitlines()
    assert head.startswith("pass rate of gate golden, language en over 3 comparable runs (plan")
    assert re.split(r"\s{2,}", header.strip())[:6] == [
        "run",
        "started",
        "verdict",
        "cases",
        "passed",
        "pass rate",
    ]
    rates = [re.split(r"\s{2,}", row.strip())[5] for row in rows]
    cases = [c for c in drifting().cases if c.gate == "golden" and c.language == "en"]
    drifted = sum(c.outcome == "passed" for c in cases) / len(cases)
    assert rates == ["100.0%", "100.0%", f"{drifted:.1%}"]


def test_history_trend_flags_a_drop_against_enough_history(run_cli: RunCli, tmp_path: Path) -> None:
    # Two healthy runs are too few to judge the drifting third; a third healthy run before
    # it makes three, and the flat history (every run 100%) flags any drop below it.
    short = run_cli("history", "trend", "--gate", "golden", "--history", _history(tmp_path))
    assert short.code == 0, short.show()
    assert "not enough history: 2 comparable runs, 3 needed" in short.stdout.splitlines()[-1]
    assert "FLAGGED" not in short.stdout
    path = tmp_path / "history.sqlite"
    append_run(path, later(clean(), 15), {"commit": "bbc"})
    done = run_cli("history", "trend", "--gate", "golden", "--history", path)
    assert done.code == 0, done.show()
    *healthy, last = done.stdout.splitlines()[2:]
    assert "FLAGGED: flat history" in last
    assert all("FLAGGED" not in row for row in healthy)


def test_history_trend_refuses_a_slice_no_run_has(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("history", "trend", "--gate", "nope", "--history", _history(tmp_path))
    assert done.code == 2
    assert "no comparable run has a case of gate nope" in done.stderr


def test_history_commands_refuse_a_missing_or_newer_history(
    run_cli: RunCli, tmp_path: Path
) -> None:
    missing = tmp_path / "none.sqlite"
    for command in (["list"], ["show", "1"], ["trend"]):
        done = run_cli("history", *command, "--history", missing)
        assert done.code == 2, command
        assert "no history there" in done.stderr
    history = _history(tmp_path)
    with sqlite3.connect(history) as connection:
        connection.execute("PRAGMA user_version = 99")
    done = run_cli("history", "list", "--history", history)
    assert done.code == 2
    assert "history schema version 99 is newer than this gauntlet reads" in done.stderr


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["history"], "The run history"),
        (["history", "add", "--help"], "Import results files"),
        (["history", "list", "--help"], "List the stored runs"),
        (["history", "show", "--help"], "Show one run"),
        (["history", "trend", "--help"], "Comparable runs asked the same plan"),
        (["run", "--help"], "--history"),
    ],
)
def test_every_history_command_explains_itself(
    run_cli: RunCli, command: list[str], said: str
) -> None:
    done = run_cli(*command)
    assert said in done.stdout, done.show()
