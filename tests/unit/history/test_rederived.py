"""A history's rows are re-derived when read: a run's verdict from its cases, a case from its asks.

A results file that disagrees with itself is refused (`gauntlet.run.results_file`); a history is
held to the same rule at the one place it is read (`load_history`), so `history list`, `show`,
`trend`, the dashboard and `report --history` all refuse a row edited into a claim its own rows
do not make.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.errors import HistoryError
from gauntlet.history.store import append_run, load_history
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo
from gauntlet.run.results_file import write_results
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.targets.toy import ToyDefect, make_toy
from tests import evidence_fixtures
from tests.cli_helpers import RunCli
from tests.unit.history.helpers import clean, drifting, interrupted, later

# Edits below touch the first case of the clean run (`position = 0`: adversarial, one side of
# a parity pair, threshold 1.0, asked once).


def _edited(tmp_path: Path, results_of: str, *edits: str) -> Path:
    path = tmp_path / "history.sqlite"
    results = {"clean": clean, "drifting": drifting, "interrupted": interrupted}[results_of]()
    append_run(path, results, {})
    with sqlite3.connect(path) as connection:
        for edit in edits:
            connection.execute(edit)
    return path


def _refused(path: Path) -> str:
    with pytest.raises(HistoryError, match="a damaged history") as raised:
        load_history(path)
    return str(raised.value)


@pytest.mark.parametrize(
    ("results_of", "edits", "said"),
    [
        # The drifting toy failed its golden suite: a row saying pass is refused.
        ("drifting", ["UPDATE runs SET verdict = 'pass'"], "verdict 'pass', but its cases give"),
        # A case and its ask both edited to failed, consistently: the run's pass is then a lie.
        (
            "clean",
            [
                "UPDATE trials SET outcome = 'failed' WHERE case_id = "
                "(SELECT case_id FROM cases WHERE position = 0)",
                "UPDATE cases SET outcome = 'failed', passes = 0 WHERE position = 0",
            ],
            "verdict 'pass', but its cases give",
        ),
        # An interrupted run is withheld whatever its row says.
        ("interrupted", ["UPDATE runs SET verdict = 'pass'"], "verdict 'pass', but its cases give"),
        # And a complete run whose every case was answered is not withheld.
        ("clean", ["UPDATE runs SET verdict = 'withheld'"], "verdict 'withheld', but its cases"),
    ],
)
def test_a_run_row_whose_verdict_its_cases_do_not_give_is_refused(
    tmp_path: Path, results_of: str, edits: list[str], said: str
) -> None:
    # Trap: trusting the run row's verdict, so `history list` shows PASS over failed cases.
    message = _refused(_edited(tmp_path, results_of, *edits))
    assert "table runs, run 1: " + said in message


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE cases SET passes = 0 WHERE position = 0", "passes 0, but its asks give 1"),
        (
            "UPDATE cases SET outcome = 'failed', passes = 0 WHERE position = 0",
            "outcome 'failed', but its asks give 'passed'",
        ),
        (
            "UPDATE cases SET outcome = 'passed', passes = 0, repeats = 3 WHERE position = 0",
            "repeats 3, but it has 1 ask",
        ),
        (
            "UPDATE cases SET outcome = 'waived' WHERE position = 0",
            "outcome 'waived', but its asks",
        ),
        ("UPDATE cases SET tokens = 7 WHERE position = 0", "tokens 7, but its asks give none"),
        (
            "UPDATE cases SET latency_ms = 5000.0 WHERE position = 0",
            "latency_ms 5000.0 is not the median of its asks",
        ),
        (
            "DELETE FROM trials WHERE trial = 1 AND case_id = "
            "(SELECT case_id FROM cases WHERE position = 0)",
            "repeats 1, but it has 0 asks",
        ),
    ],
)
def test_a_case_row_its_asks_do_not_give_is_refused(tmp_path: Path, edit: str, said: str) -> None:
    # Trap: a case row saying `passed` with zero passes (or any count its asks do not make)
    # read as it stands.
    message = _refused(_edited(tmp_path, "clean", edit))
    assert "table cases, run 1, case " in message
    assert said in message


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("case_id", "../../etc/passwd", "case_id: '../../etc/passwd' is not an identifier"),
        ("case_id", "", "case_id: '' is not an identifier"),
        ("suite", "two words", "suite: 'two words' is not an identifier"),
        ("gate", "vibes", "gate: 'vibes' is not a gate"),
        ("language", "english!", "language: 'english!' is not a language tag"),
    ],
)
def test_a_case_named_as_the_loader_would_refuse_is_refused(
    tmp_path: Path, column: str, value: str, said: str
) -> None:
    # Trap: a history accepting case ids and gates no case file could have given.
    path = _edited(tmp_path, "clean")
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA foreign_keys = OFF")
        connection.execute(f"UPDATE cases SET {column} = ? WHERE position = 0", (value,))  # noqa: S608
    message = _refused(path)
    assert "table cases, run 1, case " in message
    assert said in message


def test_a_case_id_the_loader_derives_for_a_variant_is_kept(tmp_path: Path) -> None:
    # Trap: the history checked case ids against what a case file may write, so every run of
    # a suite with transforms (`<case id>~<transform>`) made the whole history unreadable.
    suites = load_suites([builtin_suites_dir() / "refusal.yaml"])
    toy = make_toy()
    settings = RunSettings(target=TargetInfo(kind="toy", name=toy.name), plan=plan_of(suites))
    results = run_gauntlet(suites, toy, settings)
    assert any(case.variant_of for case in results.cases)
    append_run(tmp_path / "history.sqlite", results, {})
    stored = load_history(tmp_path / "history.sqlite")
    assert [case.case_id for case in stored.cases] == [case.case_id for case in results.cases]


def test_a_run_without_its_thresholds_is_still_held_to_what_no_threshold_allows(
    tmp_path: Path,
) -> None:
    # Trap: a history written before thresholds were stored passing any verdict unchecked.
    path = _edited(
        tmp_path,
        "drifting",
        "UPDATE runs SET verdict = 'pass'",
        "UPDATE suites SET threshold = NULL, pass_k = NULL, parity = NULL",
    )
    message = _refused(path)
    assert "table runs, run 1: verdict 'pass', but its cases give" in message
    assert "riverbend-golden" in message


def test_every_run_gauntlet_writes_is_read_back_as_stored(tmp_path: Path) -> None:
    # Trap: a re-derivation so strict (or so unlike the run's own tally) that it refuses the
    # runs gauntlet itself wrote: every toy defect, a flaky, waived, unscoreable, interrupted
    # and judged run, each read back with the verdict it was stored with.
    path = tmp_path / "history.sqlite"
    every = [
        clean(),
        interrupted(),
        evidence_fixtures.flaky(),
        evidence_fixtures.waived(),
        evidence_fixtures.unscoreable(),
        evidence_fixtures.trajectory(),
        *(evidence_fixtures.with_defect(defect) for defect in ToyDefect),
    ]
    for minutes, results in enumerate(every):
        append_run(path, later(results, minutes), {})
    verdicts = [run.verdict for run in load_history(path).runs]
    assert verdicts == [results.verdict.value for results in every]
    assert {"pass", "fail", "withheld", "unscoreable"} <= set(verdicts)


@pytest.mark.parametrize(
    "command",
    [
        ["history", "list"],
        ["history", "show", "1"],
        ["history", "trend"],
        ["report", "RESULTS", "--format", "json"],
        ["site", "--out", "SITE"],
    ],
)
def test_every_command_that_reads_a_history_refuses_a_row_that_disagrees(
    run_cli: RunCli, tmp_path: Path, command: list[str]
) -> None:
    # Trap: a check in one command's path and not another's, so the dashboard says PASS.
    path = _edited(tmp_path, "drifting", "UPDATE runs SET verdict = 'pass'")
    results = tmp_path / "results.json"
    write_results(later(clean(), 60), results)
    args = [
        str(results) if arg == "RESULTS" else str(tmp_path / "site") if arg == "SITE" else arg
        for arg in command
    ]
    done = run_cli(*args, "--history", path)
    assert done.code == 2, done.show()
    assert "table runs, run 1: verdict 'pass', but its cases give" in done.stderr
    assert "PASS" not in done.stdout
    assert "Traceback" not in done.stderr


def test_an_ask_stored_as_waived_is_refused_as_no_ask_ever_is(tmp_path: Path) -> None:
    # Trap: the history's ask check taking any outcome, where the run's tally errors an ask
    # recorded `waived` (a case's outcome, given after its asks): an edit of the ask rows
    # alone could then stand behind a case row edited from failed to waived.
    path = _edited(
        tmp_path, "drifting", "UPDATE trials SET outcome = 'waived' WHERE outcome = 'failed'"
    )
    said = _refused(path)
    assert "table trials, run 1, case " in said
    assert "'waived' is a case's outcome, never an ask's" in said
