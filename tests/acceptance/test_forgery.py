"""Results, baselines, shards and journals that were edited by hand are refused, never trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gauntlet.cases.loader import load_suites
from gauntlet.run.journal import Journal
from gauntlet.run.results_file import read_results
from gauntlet.run.schedule import schedule

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite


def _failing_run(run_cli: RunCli, out: Path, *extra: str) -> None:
    result = run_cli("run", "--quiet", "--toy-defect", "drop_citations", "--out", out, *extra)
    assert result.code == 1, result.show()


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _pass_by_hand(data: dict[str, Any]) -> None:
    data["verdict"] = "pass"
    data["verdict_reason"] = "every gate met its threshold"


def test_report_refuses_a_verdict_changed_by_hand(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)
    _edit(results, _pass_by_hand)
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert "verdict: 'pass' in the file, but its own cases give 'fail'" in done.stderr
    assert done.stdout == ""  # no pack, so no PASS anywhere


def test_report_refuses_a_forged_baseline(tmp_path: Path, run_cli: RunCli) -> None:
    results, baseline = tmp_path / "results.json", tmp_path / "baseline.json"
    _failing_run(run_cli, results)
    _failing_run(run_cli, baseline)
    _edit(baseline, lambda d: d["totals"].update(failed=0, passed=d["totals"]["total"]))
    done = run_cli("report", results, "--baseline", baseline)
    assert done.code == 2, done.show()
    assert f"{baseline}: totals.failed: 0 in the file" in done.stderr


def test_merge_refuses_a_forged_shard(tmp_path: Path, run_cli: RunCli) -> None:
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for number, shard in enumerate(shards, start=1):
        result = run_cli(
            "run", "--quiet", "--toy-defect", "drop_citations", "--shard", f"{number}/2",
            "--run-id", "4711", "--out", shard,
        )  # fmt: skip
        assert result.code in (0, 1), result.show()
    for shard in shards:
        _edit(shard, _pass_by_hand)
    merged = tmp_path / "merged.json"
    done = run_cli("merge", *shards, "--out", merged)
    assert done.code == 2, done.show()
    assert "in the file, but its own cases give" in done.stderr
    assert not merged.exists()


def test_merge_refuses_shards_of_two_different_runs(tmp_path: Path, run_cli: RunCli) -> None:
    """Two runs of the same target and suites are told apart by their CI run ids."""
    first, second = tmp_path / "a-1.json", tmp_path / "b-2.json"
    for shard, number, run_id in ((first, 1, "4711"), (second, 2, "4712")):
        result = run_cli(
            "run", "--quiet", "--shard", f"{number}/2", "--run-id", run_id, "--out", shard
        )
        assert result.code == 0, result.show()
    done = run_cli("merge", first, second, "--out", tmp_path / "merged.json")
    assert done.code == 2, done.show()
    assert "belongs to run 4712, but" in done.stderr
    assert "to run 4711: shards of different runs are never merged" in done.stderr
    same = tmp_path / "b-2-same.json"
    result = run_cli("run", "--quiet", "--shard", "2/2", "--run-id", "4711", "--out", same)
    assert result.code == 0, result.show()
    merged = run_cli("merge", first, same, "--out", tmp_path / "merged.json")
    assert merged.code == 0, merged.show()
    assert json.loads((tmp_path / "merged.json").read_text())["run_id"] == "4711"


def test_a_run_id_that_could_act_on_a_reader_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli("run", "--run-id", "1\n::error::x", "--out", tmp_path / "r.json")
    assert done.code == 2, done.show()
    assert "--run-id: expected letters, digits" in done.stderr


def test_resume_refuses_a_journal_made_before_a_case_changed(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """A journal's judgement of a case is stale once the case's markers change."""
    cases = tmp_path / "cases"
    cases.mkdir()
    suite = cases / "s.yaml"
    suite.write_text(grounding_suite("s", "c1", "c2"), encoding="utf-8")
    out = tmp_path / "results.json"
    first = run_cli("run", "--toy", "--cases", cases, "--out", out, "--quiet")
    assert first.code in (0, 1), first.show()
    # Leave the journal as a killed run would: its header and the first case, no results.
    journal = tmp_path / "results.json.journal"
    finished = read_results(out)
    writer = Journal(journal, resume=False)
    writer.start(schedule(load_suites([cases])).plan, None, finished.target.name)
    writer.append(finished.cases[0])
    writer.close(remove=False)
    out.unlink()
    suite.write_text(
        grounding_suite("s", "c1", "c2").replace(
            "    expect_grounded: true\n",
            "    expect_grounded: true\n    must_contain: [zebra]\n",
            1,
        ),
        encoding="utf-8",
    )
    resumed = run_cli("run", "--toy", "--cases", cases, "--out", out, "--quiet", "--resume")
    assert resumed.code == 2, resumed.show()
    assert "was written for other suites, cases or options" in resumed.stderr
