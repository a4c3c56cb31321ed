"""Several CI jobs appending to one history at once: every run lands, the file stays whole."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from gauntlet.history.store import load_history, run_key
from gauntlet.run.results_file import write_results
from tests.unit.history.helpers import clean, later

WRITERS = 4
RUNS_EACH = 3


def test_separate_processes_appending_at_once_lose_no_run(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"  # none yet: the writers race to create it too
    batches: list[list[Path]] = []
    keys = set()
    for writer in range(WRITERS):
        batch = []
        for number in range(RUNS_EACH):
            results = later(clean(), writer * RUNS_EACH + number, run_id=f"job-{writer}")
            path = tmp_path / f"writer{writer}-run{number}.json"
            write_results(results, path)
            keys.add(run_key(results))
            batch.append(path)
        batches.append(batch)
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gauntlet",
                "history",
                "add",
                *map(str, batch),
                "--history",
                str(history),
                "--label",
                f"job={writer}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for writer, batch in enumerate(batches)
    ]
    outputs = [writer.communicate(timeout=120) for writer in writers]
    for process, (out, err) in zip(writers, outputs, strict=True):
        assert process.returncode == 0, f"exit {process.returncode}\n{out}\n{err}"
        assert out.count(": added as run ") == RUNS_EACH, out
    stored = load_history(history)
    assert {run.key for run in stored.runs} == keys
    assert len(stored.runs) == WRITERS * RUNS_EACH
    assert len(stored.cases) == WRITERS * RUNS_EACH * len(clean().cases)
    assert sorted(run.labels["job"] for run in stored.runs) == sorted(
        str(writer) for writer in range(WRITERS) for _ in range(RUNS_EACH)
    )
    with sqlite3.connect(history) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        asks = sum(case.repeats for case in clean().cases) * WRITERS * RUNS_EACH
        assert connection.execute("SELECT count(*) FROM trials").fetchone() == (asks,)
