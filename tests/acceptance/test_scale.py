"""Repeat, shard and resume from the command line, as a CI matrix and a killed job meet them."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

ROOT = Path(__file__).resolve().parents[2]

LEAKY = """
from gauntlet.targets.toy import make_toy

class LeaksEveryThirdCall:
    name = "leaks-every-third-call"

    def __init__(self):
        self.toy = make_toy()
        self.calls = {}

    def ask(self, prompt, language, history=None):
        self.calls[prompt] = self.calls.get(prompt, 0) + 1
        response = self.toy.ask(prompt, language, history)
        if self.calls[prompt] % 3 == 0:
            return response.model_copy(update={"text": response.text + " CANARY-7f3a"})
        return response

def make():
    return LeaksEveryThirdCall()
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "leaky_target_mod.py").write_text(LEAKY)
    (tmp_path / "cases").mkdir()
    shutil.copy(ROOT / "suites" / "adversarial.yaml", tmp_path / "cases")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_one_in_three_leak_is_caught_by_five_asks_not_one(project: Path, run_cli: RunCli) -> None:
    # As written: a variant's earlier turns are its case's, so counting asks per prompt would
    # reach the third ask of a conversation's first turn within one --repeat 1 run.
    base = ["run", "--no-transforms", "--cases", "cases", "--callable", "leaky_target_mod:make"]
    base.append("--quiet")
    once = run_cli(*base, "--repeat", "1", "--out", "once.json")
    assert once.code == 0, once.show()
    five = run_cli(*base, "--repeat", "5", "--out", "five.json")
    assert five.code == 1, five.show()
    report = run_cli("report", "five.json")
    assert "## Flaky cases" in report.stdout
    assert "| 4/5 | 5 | failed |" in report.stdout
    pack = json.loads(run_cli("report", "five.json", "--format", "json").stdout)
    [gate] = pack["gates"]
    assert 0 < gate["wilson_low"] <= gate["pass_rate"] <= gate["wilson_high"] <= 1


def test_shards_run_and_merge_like_one_job(tmp_path: Path, run_cli: RunCli) -> None:
    whole = tmp_path / "whole.json"
    assert run_cli("run", "--no-transforms", "--quiet", "--out", whole).code == 0
    parts = []
    for k in (1, 2, 3):
        part = tmp_path / f"shard-{k}.json"
        done = run_cli("run", "--no-transforms", "--quiet", "--shard", f"{k}/3", "--out", part)
        assert done.code == 0, done.show()
        parts.append(part)
    merged = tmp_path / "merged.json"
    done = run_cli("merge", *parts, "--out", merged)
    assert done.code == 0, done.show()
    digests = [
        json.loads(run_cli("report", path, "--format", "json").stdout)["results_digest"]
        for path in (whole, merged)
    ]
    assert digests[0] == digests[1]
    missing = run_cli("merge", parts[0], parts[2], "--out", tmp_path / "m2.json")
    assert missing.code == 2
    assert "shard 2/3 is missing" in missing.stderr


@pytest.mark.parametrize("text", ["0/3", "4/3", "1-3", "x/y", "2"])
def test_a_bad_shard_is_a_usage_error(tmp_path: Path, run_cli: RunCli, text: str) -> None:
    done = run_cli("run", "--no-transforms", "--shard", text, "--out", tmp_path / "r.json")
    assert done.code == 2
    assert "expected K/N" in done.stderr


SLOW = """
import time
from gauntlet.targets.toy import make_toy

class Slow:
    name = "slow-toy"

    def __init__(self):
        self.toy = make_toy()

    def ask(self, prompt, language, history=None):
        time.sleep(0.05)
        return self.toy.ask(prompt, language, history)

def make():
    return Slow()
"""


def test_a_killed_run_resumes_to_the_digest_of_an_uninterrupted_one(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_target_mod.py").write_text(SLOW)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    suites = str(ROOT / "suites")
    command = ["run", "--no-transforms", "--cases", suites, "--callable", "slow_target_mod:make"]
    command.append("--quiet")
    out = tmp_path / "r.json"
    journal = tmp_path / "r.json.journal"
    job = subprocess.Popen(
        [sys.executable, "-m", "gauntlet", *command, "--concurrency", "1", "--out", str(out)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) > 10:
            break
        time.sleep(0.02)
    job.send_signal(signal.SIGKILL)
    job.wait(timeout=30)
    assert not out.exists()
    kept = len(journal.read_text().splitlines()) - 1
    assert 0 < kept < 84

    resumed = run_cli(*command, "--resume", "--out", out)
    assert resumed.code == 0, resumed.show()
    assert not journal.exists()  # folded into the results file
    whole = tmp_path / "whole.json"
    assert run_cli(*command, "--out", whole).code == 0
    digests = [
        json.loads(run_cli("report", path, "--format", "json").stdout)["results_digest"]
        for path in (out, whole)
    ]
    assert digests[0] == digests[1]


def test_resume_refuses_a_journal_from_another_run(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "a"))
    journal = tmp_path / "r.json.journal"
    journal.write_text(
        json.dumps(
            {
                "kind": "gauntlet-journal",
                "plan": {"cases": 1, "digest": "sha256:another", "repeat": 1},
                "shard": None,
                "target": "riverbend-toy",
            }
        )
        + "\n"
    )
    done = run_cli("run", "--toy", "--cases", tmp_path, "--resume", "--out", "r.json")
    assert done.code == 2
    assert "was written for other suites, cases or options" in done.stderr


def test_resume_without_a_journal_is_a_usage_error(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli("run", "--no-transforms", "--resume", "--out", tmp_path / "r.json")
    assert done.code == 2
    assert "no journal" in done.stderr
