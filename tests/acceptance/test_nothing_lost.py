"""Nothing is lost and nothing stale is left: what a failed or stopped command leaves behind."""

from __future__ import annotations

import json
from pathlib import Path

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite


def test_out_naming_a_case_file_is_refused_before_anything_is_removed(
    tmp_path: Path, run_cli: RunCli
) -> None:
    case_file = tmp_path / "s.yaml"
    case_file.write_text(grounding_suite("s", "c1"))
    for extra in ([], ["--toy"]):  # with a usage error still to come, and without
        done = run_cli("run", "--cases", case_file, "--out", case_file, *extra)
        assert done.code == 2, done.show()
        assert case_file.read_text() == grounding_suite("s", "c1")
    assert "--out" in done.stderr and "case file" in done.stderr


def test_out_in_a_missing_directory_is_a_usage_error(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli("run", "--no-transforms", "--out", tmp_path / "missing" / "r.json")
    assert done.code == 2, done.show()
    assert "the directory" in done.stderr and "does not exist" in done.stderr
    assert "internal error" not in done.stderr


def test_a_failed_run_leaves_no_stale_results_where_ci_looks(
    tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "r.json"
    for bad in (["--header", "X: y"], ["--shard", "9/2"], ["--http-url", "ftp://x"]):
        out.write_text('{"verdict": "pass"}')
        done = run_cli("run", "--no-transforms", "--toy", "--out", out, *bad)
        assert done.code == 2, done.show()
        assert not out.exists(), bad


def test_a_failed_merge_leaves_no_stale_results_where_ci_looks(
    tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "merged.json"
    out.write_text('{"verdict": "pass"}')
    broken = tmp_path / "shard.json"
    broken.write_text("{")
    done = run_cli("merge", broken, "--out", out)
    assert done.code == 2, done.show()
    assert not out.exists()


def test_merge_refuses_to_write_over_one_of_its_shards(tmp_path: Path, run_cli: RunCli) -> None:
    shard = tmp_path / "shard-1.json"
    done = run_cli("run", "--no-transforms", "--quiet", "--shard", "1/1", "--out", shard)
    assert done.code == 0, done.show()
    before = shard.read_bytes()
    done = run_cli("merge", shard, "--out", shard)
    assert done.code == 2, done.show()
    assert shard.read_bytes() == before


def test_report_refuses_to_write_over_its_results(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    assert run_cli("run", "--no-transforms", "--quiet", "--out", results).code == 0
    before = results.read_bytes()
    done = run_cli("report", results, "--out", results)
    assert done.code == 2, done.show()
    assert results.read_bytes() == before


def test_a_failed_pre_flight_leaves_no_journal(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c1"))
    out = tmp_path / "r.json"
    done = run_cli(
        "run", "--cases", tmp_path / "s.yaml", "--http-url", "http://127.0.0.1:9/",
        "--retries", "0", "--out", out,
    )  # fmt: skip
    assert done.code == 2, done.show()
    assert "pre-flight check failed" in done.stderr
    assert not out.exists()
    assert not (tmp_path / "r.json.journal").exists()


def test_more_shards_than_cases_is_a_usage_error(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c1"))
    done = run_cli("run", "--toy", "--cases", tmp_path, "--shard", "1/5", "--out", "r.json")
    assert done.code == 2, done.show()
    assert "--shard 1/5: 5 shards for 1 case" in done.stderr
    assert "internal error" not in done.stderr


def test_a_shard_that_happens_to_hold_no_case_is_reported_not_crashed_on(
    tmp_path: Path, run_cli: RunCli
) -> None:
    from gauntlet.run.tally import shard_of

    ids = ["c1", "c2", "c3"]
    empty = next(k for k in (1, 2, 3) if all(shard_of("s", i, 3) != k for i in ids))
    (tmp_path / "s.yaml").write_text(grounding_suite("s", *ids))
    out = tmp_path / "r.json"
    done = run_cli("run", "--toy", "--cases", tmp_path, "--shard", f"{empty}/3", "--out", out)
    assert done.code == 0, done.show()
    assert "internal error" not in done.stderr
    assert f"shard {empty}/3 holds none of the 3 planned cases" in done.stdout
    assert json.loads(out.read_text())["cases"] == []
