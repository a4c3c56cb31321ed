"""`kill -INT` (or TERM) during a run: a valid, incomplete results file and exit 2."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..unit.cases.suite_text import grounding_suite

SLOW_TARGET = """
import pathlib
import time

from gauntlet.targets.contract import TargetResponse


class Slow:
    name = "slow"

    def ask(self, prompt, language):
        pathlib.Path("started").touch()
        time.sleep(1.0)  # long enough that the signal lands mid-run on a busy machine
        return TargetResponse(
            text="About it.", citations=["D1"], context_ids=["D1"], refused=False, escalated=False
        )


def make():
    return Slow()
"""

CASES = 40


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=lambda n: n.name)
def test_an_interrupted_run_leaves_an_incomplete_results_file(
    tmp_path: Path, number: signal.Signals
) -> None:
    (tmp_path / "slow_target_mod.py").write_text(SLOW_TARGET)
    (tmp_path / "cases").mkdir()
    ids = [f"c{i}" for i in range(CASES)]
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", *ids))
    out = tmp_path / "r.json"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet",
            "run",
            "--cases",
            "cases",
            "--callable",
            "slow_target_mod:make",
            "--concurrency",
            "2",
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    run.send_signal(number)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 2, stdout + stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["complete"] is False
    assert document["interrupted_by"] == number.name
    assert document["verdict"] == "withheld"
    outcomes = [case["outcome"] for case in document["cases"]]
    assert len(outcomes) == CASES  # every case listed, asked or not
    assert outcomes.count("not_run") == document["totals"]["not_run"] > 0
    assert f"verdict: WITHHELD (the run was interrupted by {number.name}" in stdout
