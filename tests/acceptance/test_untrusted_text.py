"""What a target, a case file or a results file says cannot speak to the CI runner or a reader.

GitHub's runner obeys any output line whose first non-blank characters are `::`, and a
terminal obeys escape sequences; a reviewer trusts the lines a report shows. So no text from
outside may start a line of its own, and no control character reaches a terminal or a report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..cli_helpers import CliResult, RunCli
from ..hostile_server import hostile_server
from ..unit.cases.suite_text import grounding_suite

FORGED = "RB-1\n::error::forged\x1b[2J"

TARGET = """
from gauntlet.targets.contract import TargetResponse


class Forger:
    name = "forger\\n::warning::name"

    def ask(self, prompt, language):
        return TargetResponse(
            text="Opening hours \\x1b[31mare\\n::add-mask::9 to 5.",
            citations=["RB-1\\n::error::forged\\x1b[2J"],
            context_ids=["RB-1"],
            refused=False,
            escalated=False,
        )


def make():
    return Forger()
"""


def _inert(*results: CliResult) -> None:
    __tracebackhide__ = True
    for result in results:
        text = result.stdout + result.stderr
        assert "\x1b" not in text, result.show()
        commands = [line for line in text.splitlines() if line.lstrip().startswith("::")]
        assert commands == [], result.show()


@pytest.fixture
def forger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "forger_target.py").write_text(TARGET)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "s.yaml").write_text(grounding_suite("s", "c1", "c2"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_targets_words_never_start_a_line_of_output(forger: Path, run_cli: RunCli) -> None:
    flags = ["--cases", "cases", "--callable", "forger_target:make"]
    run = run_cli("run", *flags, "--out", "r.json")
    assert run.code == 1, run.show()
    assert "cites RB-1\\n::error::forged\\x1b[2J, which it did not retrieve" in run.stdout
    shard = run_cli("run", *flags, "--shard", "1/1", "--out", "shard.json")
    merged = run_cli("merge", "shard.json", "--out", "merged.json")
    assert merged.code == 1, merged.show()
    report = run_cli("report", "r.json")
    junit = run_cli("report", "r.json", "--format", "junit")
    annotations = run_cli("report", "r.json", "--github-annotations")
    assert annotations.stdout.count("::error ") == 2  # the two annotations asked for, escaped
    _inert(run, shard, merged, report, junit)
    assert "forger\\n::warning::name" in run.stdout


def test_a_terminal_escape_in_a_reason_phrase_is_shown_escaped(
    tmp_path: Path, run_cli: RunCli
) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c1"))
    with hostile_server() as server:
        run = run_cli(
            "run", "--cases", tmp_path / "s.yaml", "--http-url", server.url("/esc-reason"),
            "--out", tmp_path / "r.json",
        )  # fmt: skip
    assert run.code == 2, run.show()
    assert "HTTP 500 Internal \\x1b[2J\\x1b[31mError" in run.stderr
    _inert(run)


def test_a_results_file_whose_text_could_act_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    assert (
        run_cli(
            "run", "--no-transforms", "--quiet", "--toy-defect", "drop_citations", "--out", results
        ).code
        == 1
    )
    data = json.loads(results.read_text())
    failing = next(case for case in data["cases"] if case["outcome"] == "failed")
    failing["reason"] = failing["trials"][0]["reason"] = "uncited\n::error::forged"
    results.write_text(json.dumps(data))
    done = run_cli("report", results)
    assert done.code == 2, done.show()
    assert "holds a line break or control character" in done.stderr
    _inert(done)
