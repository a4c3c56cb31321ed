"""Every file `run` writes, `report`, `merge`, `history add` and `--resume` can read.

One set of limits (`gauntlet.limits`) applies when a file is written and when it is read: how
deep a target's JSON may nest, how much of one answer is stored, how large the file may be.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest

from gauntlet import limits
from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.run.journal import Journal
from gauntlet.run.results_file import read_results
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings

from ..cli_helpers import RunCli

NESTED_TARGET = """
from gauntlet.targets.contract import TargetResponse, ToolCall

DEPTH = {depth}
TEXT = {text}

def nested(depth):
    value = {{}}
    for _ in range(depth - 1):
        value = {{"a": value}}
    return value

class Nested:
    name = "nested"
    def ask(self, prompt, language, history=None):
        calls = [ToolCall(id="c1", name="lookup", arguments=nested(DEPTH))] if DEPTH else []
        return TargetResponse(
            text=TEXT, citations=[], context_ids=[], refused=False, escalated=False,
            tool_calls=calls,
        )

def make():
    return Nested()
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, depth: int, text: str) -> Path:
    module = f"nested_target_{depth}_{len(text)}"
    (tmp_path / f"{module}.py").write_text(
        NESTED_TARGET.format(depth=depth, text=ascii(text)), encoding="utf-8"
    )
    monkeypatch.delitem(sys.modules, module, raising=False)
    (tmp_path / "cases").mkdir()
    shutil.copy(builtin_suites_dir() / "false_positive.yaml", tmp_path / "cases")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / f"{module}.py"


def _every_reader_reads(tmp_path: Path, run_cli: RunCli, callable_spec: str) -> None:
    """`report`, `merge` (of two shards), `history add` and `--resume` each read the files."""
    out = tmp_path / "results.json"
    done = run_cli("run", "--quiet", "--cases", "cases", "--callable", callable_spec, "--out", out)
    assert done.code in (0, 1), done.show()
    report = run_cli("report", out, "--format", "json", "--out", tmp_path / "evidence.json")
    assert report.code == 0, report.show()
    history = run_cli("history", "add", out, "--history", tmp_path / "h.sqlite")
    assert history.code == 0, history.show()
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for number, shard in enumerate(shards, start=1):
        part = run_cli(
            "run", "--quiet", "--cases", "cases", "--callable", callable_spec,
            "--shard", f"{number}/2", "--run-id", "7", "--out", shard,
        )  # fmt: skip
        assert part.code in (0, 1), part.show()
    merged = run_cli("merge", *shards, "--out", tmp_path / "merged.json")
    assert merged.code in (0, 1), merged.show()
    # A journal as a killed run leaves it: its header and every case but the last.
    finished = read_results(out)
    resumed_out = tmp_path / "resumed.json"
    writer = Journal(tmp_path / "resumed.json.journal", resume=False)
    writer.start(
        RunSettings(plan=plan_of(load_suites([tmp_path / "cases"])), target=finished.target)
    )
    for case in finished.cases[:-1]:
        writer.append(case)
    writer.close(remove=False)
    resumed = run_cli(
        "run", "--quiet", "--cases", "cases", "--callable", callable_spec,
        "--out", resumed_out, "--resume",
    )  # fmt: skip
    assert resumed.code in (0, 1), resumed.show()
    again = [(case.case_id, case.outcome) for case in read_results(resumed_out).cases]
    assert again == [(case.case_id, case.outcome) for case in finished.cases]


def test_tool_arguments_at_the_depth_limit_give_a_file_every_reader_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli
) -> None:
    # Trap: arguments nested about 200 deep were written, then refused by every reader
    # (pydantic's parser stops at 200 levels of the whole file), so the run's own file was
    # unreadable. The real limit, not a small one: the file's envelope counts too.
    module = _project(tmp_path, monkeypatch, limits.MAX_NESTING, "Here is how: dial 311.")
    _every_reader_reads(tmp_path, run_cli, f"{module.stem}:make")


@pytest.mark.parametrize("depth", [limits.MAX_NESTING + 1, 200, 950])
def test_tool_arguments_deeper_than_the_limit_are_the_cases_worded_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli, depth: int
) -> None:
    # Trap: 200 levels made an unreadable file; 950 ended as "the target raised
    # ValidationError", an internal-looking error; either way no reader was told the limit.
    module = _project(tmp_path, monkeypatch, depth, "Here is how: dial 311.")
    out = tmp_path / "results.json"
    done = run_cli("run", "--quiet", "--cases", "cases", "--callable", f"{module.stem}:make",
                   "--out", out)  # fmt: skip
    assert done.code == 2, done.show()
    results = read_results(out)
    reasons = {case.reason for case in results.cases}
    assert all(case.outcome == "errored" for case in results.cases)
    assert all(f"deeper than the {limits.MAX_NESTING} levels" in r for r in reasons), reasons
    assert not any("ValidationError" in r for r in reasons), reasons
    report = run_cli("report", out, "--format", "json")
    assert report.code == 0, report.show()


def test_an_answer_over_the_size_limit_is_stored_cut_with_its_length_and_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli
) -> None:
    # Trap: every answer was stored whole, so 540 answers of 1 MB made a 562 MB file that
    # `report` refused (over its 512 MiB cap). Small limits stand in for the real ones.
    monkeypatch.setattr(limits, "MAX_ANSWER_BYTES", 200)
    answer = "Here is how: dial 311. " + "é" * 400
    module = _project(tmp_path, monkeypatch, 0, answer)
    out = tmp_path / "results.json"
    _every_reader_reads(tmp_path, run_cli, f"{module.stem}:make")
    whole = answer.encode("utf-8")
    for case in read_results(out).cases:
        for trial in case.trials:
            assert trial.response is not None and trial.cut is not None
            assert len(trial.response.text.encode("utf-8")) <= 200
            assert whole.startswith(trial.response.text.encode("utf-8"))
            assert trial.cut.length == len(whole)
            assert trial.cut.sha256 == hashlib.sha256(whole).hexdigest()
    pack = run_cli("report", out)
    assert pack.code == 0, pack.show()
    assert "answers stored cut" in pack.stdout


def test_a_run_whose_file_would_pass_the_size_limit_says_so_and_keeps_its_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli
) -> None:
    # Trap: the writer had no limit and the reader one: a file over it was written whole and
    # then refused by `report`, with the journal gone.
    monkeypatch.setattr(limits, "MAX_RESULTS_BYTES", 20_000)
    module = _project(tmp_path, monkeypatch, 0, "Here is how: dial 311.")
    out = tmp_path / "results.json"
    done = run_cli("run", "--quiet", "--cases", "cases", "--callable", f"{module.stem}:make",
                   "--out", out)  # fmt: skip
    assert done.code == 2, done.show()
    assert "over the 20,000 bytes a results file may hold" in done.stderr
    assert not out.exists()
    assert (tmp_path / "results.json.journal").exists()


def test_a_results_file_nested_past_the_limit_is_refused_with_the_limit(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: the reader's only limit was the parser's own, worded as a damaged file.
    out = tmp_path / "results.json"
    out.write_text('{"schema_version": 6, "x": ' + "[" * 150 + "]" * 150 + "}", encoding="utf-8")
    done = run_cli("report", out)
    assert done.code == 2, done.show()
    assert f"nested deeper than the {limits.MAX_FILE_NESTING} levels" in done.stderr
