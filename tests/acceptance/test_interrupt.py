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
    # Its one gate, short of its threshold by unasked cases alone, was not run: not failed.
    assert " NOT RUN" in stdout and "FAIL" not in stdout, stdout


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gauntlet", "run", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_an_interrupted_run_keeps_its_journal_so_resume_finishes_it(tmp_path: Path) -> None:
    """Nothing is lost: the results say incomplete, the journal stays, --resume completes it."""
    (tmp_path / "slow_target_mod.py").write_text(SLOW_TARGET)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", *[f"c{i}" for i in range(8)]))
    out = tmp_path / "r.json"
    flags = ["--cases", "cases", "--callable", "slow_target_mod:make", "--concurrency", "2"]
    run = _start(tmp_path, *flags, "--out", str(out))
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(1.5)  # let a case or two finish, so the journal holds something
    run.send_signal(signal.SIGTERM)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 2, stdout + stderr
    journal = tmp_path / "r.json.journal"
    assert journal.exists(), "the journal of an interrupted run must be kept for --resume"
    assert json.loads(out.read_text())["complete"] is False
    resumed = subprocess.run(
        [sys.executable, "-m", "gauntlet", "run", *flags, "--out", str(out), "--resume"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    document = json.loads(out.read_text())
    assert document["complete"] is True
    assert document["totals"]["passed"] == 8
    assert not journal.exists()


@pytest.mark.network
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=lambda n: n.name)
def test_a_signal_stops_the_pre_flight_check_at_once(
    tmp_path: Path, number: signal.Signals
) -> None:
    """A probe that would wait out every attempt (a minute and more) stops on the signal."""
    from ..hostile_server import hostile_server

    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", "c1"))
    with hostile_server(slow_seconds=60) as server:
        run = _start(
            tmp_path, "--cases", "cases", "--http-url", server.url("/slow"), "--timeout", "30",
            "--out", "r.json",
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while server.hits("/slow") == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        sent = time.monotonic()
        run.send_signal(number)
        stdout, stderr = run.communicate(timeout=60)
        took = time.monotonic() - sent
    assert run.returncode == 2, stdout + stderr
    assert took < 10, f"exited {took:.1f} s after {number.name}"
    assert f"interrupted by {number.name} during the pre-flight check" in stderr
    assert not (tmp_path / "r.json").exists()
    assert not (tmp_path / "r.json.journal").exists()


@pytest.mark.network
def test_a_signal_during_retry_waits_records_the_cases_as_not_run(tmp_path: Path) -> None:
    """Cases told to retry in a minute are not asked again: they are recorded as not run.

    End to end, within a bound the old grace period also met; that the wait ends at once,
    not after the grace, is shown by
    `tests/unit/run/test_engine.py::test_a_case_whose_retry_wait_a_stop_ends_is_not_run_at_once`.
    """
    from ..hostile_server import hostile_server

    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", "c1", "c2"))
    with hostile_server() as server:
        run = _start(
            tmp_path, "--cases", "cases", "--http-url", server.url("/429-cases"), "--out", "r.json"
        )
        deadline = time.monotonic() + 30
        while server.hits("/429-cases") < 3 and time.monotonic() < deadline:
            time.sleep(0.02)  # the probe and both cases' first attempts
        sent = time.monotonic()
        run.send_signal(signal.SIGTERM)
        stdout, stderr = run.communicate(timeout=90)
        took = time.monotonic() - sent
    assert run.returncode == 2, stdout + stderr
    assert took < 10, f"exited {took:.1f} s after SIGTERM"
    document = json.loads((tmp_path / "r.json").read_text())
    assert [case["outcome"] for case in document["cases"]] == ["not_run", "not_run"]


SLOW_TO_START = """
import pathlib
import time


def make():
    pathlib.Path("starting").touch()
    time.sleep(30)  # a target that takes its time to start, as a model loading does
"""


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=lambda n: n.name)
def test_a_signal_before_the_run_starts_exits_2_at_once(
    tmp_path: Path, number: signal.Signals
) -> None:
    """SIGTERM's default would kill the process without a word (exit 143)."""
    (tmp_path / "slow_start_mod.py").write_text(SLOW_TO_START)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", "c1"))
    run = _start(tmp_path, "--cases", "cases", "--callable", "slow_start_mod:make")
    deadline = time.monotonic() + 60
    while not (tmp_path / "starting").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    sent = time.monotonic()
    run.send_signal(number)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 2, stdout + stderr
    assert time.monotonic() - sent < 10
    assert "interrupted" in stderr


PATTERN_TARGET = """\
version: 1
kind: http
url: {url}
body: {{prompt: "{{{{ prompt }}}}"}}
response:
  text: text
  citations: {{from_text: '(a|aa)+$'}}
  context_ids: {{absent: true}}
  refused: refused
  escalated: escalated
"""
"""A target file whose citation pattern backtracks for ever over an answer of a's and a `!`."""

PATTERN_LIMIT = 1.0
"""The seconds the patterns of one answer may run (`gauntlet.patterns.TIME_LIMIT`)."""
MARGIN = 9.0
"""What ending the run takes besides (writing the results, exiting) on a busy machine: the
bound the other tests here allow, where the unbounded pattern would run for centuries."""


@pytest.mark.network
def test_a_signal_during_a_users_runaway_pattern_ends_the_run_within_the_patterns_limit(
    tmp_path: Path,
) -> None:
    # Trap: a pattern runs in the event loop, where no signal is handled until it returns;
    # unbounded, SIGTERM waits for the backtracking to end (minutes), and CI kills the job
    # with nothing written.
    from ..hostile_server import hostile_server

    hostile = "a" * 60 + "!"
    suite = "suite: s\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n" + "".join(
        f"  - id: c{n}\n    language: en\n    prompt: '{hostile}'\n"
        "    attack_type: prompt_leak\n    must_not_contain: [PWNED]\n"
        for n in range(20)
    )
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(suite)
    with hostile_server() as server:
        (tmp_path / "t.yaml").write_text(PATTERN_TARGET.format(url=server.url("/ok")))
        run = _start(
            tmp_path, "--cases", "cases", "--target", "t.yaml",
            "--concurrency", "1", "--timeout", "2", "--out", "r.json",
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while server.hits("/ok") < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # the pre-flight check, then the first case
        time.sleep(0.3)  # the answer is back: its citations are being read
        sent = time.monotonic()
        run.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = run.communicate(timeout=PATTERN_LIMIT + MARGIN)
        except subprocess.TimeoutExpired:
            run.kill()
            run.communicate()
            pytest.fail(f"still running {PATTERN_LIMIT + MARGIN:g} s after SIGTERM")
        took = time.monotonic() - sent
    assert run.returncode == 2, stdout + stderr
    assert took < PATTERN_LIMIT + MARGIN, f"exited {took:.1f} s after SIGTERM"
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["complete"] is False
    assert document["interrupted_by"] == "SIGTERM"
    outcomes = [case["outcome"] for case in document["cases"]]
    assert len(outcomes) == 20
    assert outcomes[0] == "errored"
    assert "citations.from_text" in document["cases"][0]["reason"]
    assert set(outcomes[1:]) <= {"errored", "not_run"}
