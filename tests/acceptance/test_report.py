"""`gauntlet run` then `gauntlet report`, as a reviewer and a CI system use them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from junitparser import JUnitXml

from ..cli_helpers import RunCli

SIX = {"en", "es", "zh", "vi", "tl", "ko"}
"""The languages every built-in suite has a side in."""


def _run(run_cli: RunCli, out: Path, *args: str) -> None:
    result = run_cli("run", "--no-transforms", "--quiet", "--out", out, *args)
    assert result.code in (0, 1), result.show()


def test_a_clean_and_a_failing_run_report_in_every_format(tmp_path: Path, run_cli: RunCli) -> None:
    clean, failing = tmp_path / "clean.json", tmp_path / "failing.json"
    _run(run_cli, clean)
    _run(run_cli, failing, "--toy-defect", "drop_citations")
    for results in (clean, failing):
        for fmt, name in (("md", "e.md"), ("json", "e.json"), ("junit", "e.xml")):
            out = tmp_path / f"{results.stem}-{name}"
            done = run_cli("report", results, "--format", fmt, "--out", out)
            assert done.code == 0, done.show()
            assert out.read_text(encoding="utf-8")
    report = (tmp_path / "failing-e.md").read_text(encoding="utf-8")
    assert "**FAIL**" in report
    assert report.count("uncited answer") == 36  # six grounding cases in each of six languages
    pack = json.loads((tmp_path / "failing-e.json").read_text(encoding="utf-8"))
    failing_cases = [case for case in pack["cases"] if case["outcome"] == "failed"]
    assert {case["language"] for case in failing_cases} == SIX
    junit = JUnitXml.fromfile(str(tmp_path / "failing-e.xml"))
    # Every case, and a `parity` testcase per paired suite (drop_citations fails every
    # language alike, so no pair differs).
    suites = sum(len(gate["parity"]["rules"]) for gate in pack["gates"] if gate["parity"])
    assert suites == 8
    assert (junit.tests, junit.failures) == (
        pack["totals"]["total"] + suites,
        pack["totals"]["failed"],
    )


def test_a_report_goes_to_stdout_without_out(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    _run(run_cli, results)
    done = run_cli("report", results)
    assert done.code == 0
    assert done.stdout.startswith("# gauntlet evidence pack\n")


def test_identical_runs_share_a_digest(tmp_path: Path, run_cli: RunCli) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    _run(run_cli, first)
    _run(run_cli, second)
    digests = []
    for results in (first, second):
        done = run_cli("report", results, "--format", "json")
        digests.append(json.loads(done.stdout)["results_digest"])
    assert digests[0] == digests[1]


def test_drift_names_the_newly_failing_cases(tmp_path: Path, run_cli: RunCli) -> None:
    clean, failing = tmp_path / "clean.json", tmp_path / "failing.json"
    _run(run_cli, clean)
    _run(run_cli, failing, "--toy-defect", "leak_system_prompt")
    done = run_cli("report", failing, "--baseline", clean, "--format", "json")
    drift = json.loads(done.stdout)["baseline"]["drift"]
    assert (drift["safety"], drift["competence"]) == ("regressed", "unchanged")
    assert {case["language"] for case in drift["newly_failing"]} == SIX
    markdown = run_cli("report", failing, "--baseline", clean).stdout
    assert "- **Safety** (adversarial, refusal, disclosure): regressed" in markdown


def test_a_missing_baseline_is_reported_not_fatal(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    _run(run_cli, results)
    done = run_cli("report", results, "--baseline", tmp_path / "gone.json")
    assert done.code == 0, done.show()
    assert "does not exist, so no drift was computed" in done.stdout
    assert "note: baseline" in done.stderr


def test_a_damaged_results_file_is_a_located_error(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    _run(run_cli, results)
    text = results.read_text(encoding="utf-8")
    results.write_text(text[: len(text) // 2], encoding="utf-8")  # truncated
    done = run_cli("report", results)
    assert done.code == 2
    assert done.stderr.startswith(f"error: {results}:")
    assert "not JSON" in done.stderr


def test_a_newer_results_file_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    _run(run_cli, results)
    data = json.loads(results.read_text(encoding="utf-8"))
    data["schema_version"] = 99
    results.write_text(json.dumps(data), encoding="utf-8")
    done = run_cli("report", results)
    assert done.code == 2
    assert "newer than this gauntlet reads" in done.stderr


def test_github_outputs_summary_and_annotations(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "r.json"
    _run(run_cli, results, "--toy-defect", "drop_citations")
    output, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    output.write_text("earlier=1\n")
    done = run_cli(
        "report",
        results,
        "--github-output",
        output,
        "--github-summary",
        summary,
        "--github-annotations",
    )
    assert done.code == 0, done.show()
    assert output.read_text().startswith("earlier=1\npassed=false\nverdict=fail\n")
    assert summary.read_text().startswith("# gauntlet evidence pack\n")
    assert len([line for line in done.stdout.splitlines() if line.startswith("::error ")]) == 36


def test_a_json_report_on_stdout_is_the_one_written_with_out(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # The trap: JSON writes DEL and the C1 controls as they are, and the guard on every
    # printed line wrote them as `\x7f`, which is no JSON escape: stdout was not JSON.
    results = tmp_path / "r.json"
    _run(run_cli, results)
    data = json.loads(results.read_text(encoding="utf-8"))
    data["gauntlet_version"] = "0.1.0\x7f"
    data["target"]["name"] = "toy \x85\u2028\u202e\u00e9"
    results.write_text(json.dumps(data), encoding="utf-8")
    printed = run_cli("report", results, "--format", "json")
    assert printed.code == 0, printed.show()
    written = run_cli("report", results, "--format", "json", "--out", tmp_path / "e.json")
    assert written.code == 0, written.show()
    assert printed.stdout == (tmp_path / "e.json").read_text(encoding="utf-8")
    pack = json.loads(printed.stdout)
    assert pack["run"]["run_gauntlet_version"] == "0.1.0\x7f"
    assert pack["run"]["target"]["name"] == "toy \x85\u2028\u202e\u00e9"


def _sarif_schema() -> dict[str, object]:
    path = Path(__file__).resolve().parents[1] / "sarif" / "sarif-schema-2.1.0.json"
    schema: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _leaking_run(run_cli: RunCli, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of a copy of the adversarial suite in `repo/evals`, against the leaking toy."""
    root = Path(__file__).resolve().parents[2]
    (repo / "evals").mkdir(parents=True)
    suite = repo / "evals" / "adversarial.yaml"
    suite.write_bytes((root / "suites" / "adversarial.yaml").read_bytes())
    monkeypatch.chdir(repo)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    results = repo / "out" / "results.json"
    results.parent.mkdir()
    done = run_cli(
        "run", "--quiet", "--cases", "evals", "--toy-defect", "leak_system_prompt", "--out", results
    )
    assert done.code == 1, done.show()
    return results


def test_a_sarif_report_locates_each_failing_case_in_the_repository(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: `report --format sarif` writing a file code scanning refuses, or naming the case
    # file by the runner's absolute path.
    repo = tmp_path / "repo"
    results = _leaking_run(run_cli, repo, monkeypatch)
    out = repo / "out" / "gauntlet.sarif"
    done = run_cli("report", results, "--format", "sarif", "--out", out)
    assert done.code == 0, done.show()
    document = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(_sarif_schema()).validate(document)
    findings = document["runs"][0]["results"]
    assert findings
    for finding in findings:
        location = finding["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "evals/adversarial.yaml"
        assert finding["ruleId"].startswith("gauntlet/adversarial/")
    assert document["runs"][0]["properties"]["verdict"] == "fail"
    # In a workflow the root is $GITHUB_WORKSPACE, whichever directory the report is made in.
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    done = run_cli("report", results, "--format", "sarif")
    assert done.code == 0, done.show()
    uris = {
        finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for finding in json.loads(done.stdout)["runs"][0]["results"]
    }
    assert uris == {"repo/evals/adversarial.yaml"}


def test_a_sarif_report_of_cases_outside_the_root_is_refused_and_writes_nothing(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a case file outside the repository written as an absolute path, dropped, or a
    # half-written SARIF file left behind that an upload step would send.
    repo = tmp_path / "repo"
    results = _leaking_run(run_cli, repo, monkeypatch)
    out = tmp_path / "gauntlet.sarif"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_cli("report", results, "--format", "sarif", "--source-root", elsewhere, "--out", out)
    assert done.code == 2, done.show()
    assert "--source-root" in done.stderr
    assert "is not under the repository root" in done.stderr
    assert not out.exists()
    wrong = run_cli("report", results, "--format", "md", "--source-root", repo)
    assert wrong.code == 2
    assert "--source-root needs --format sarif" in wrong.stderr
    missing = run_cli("report", results, "--format", "sarif", "--source-root", tmp_path / "no")
    assert missing.code == 2
    assert "no such directory" in missing.stderr
