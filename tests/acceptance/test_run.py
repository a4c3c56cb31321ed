"""`gauntlet run` as CI meets it: the exit code, the summary and the results file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.http import serve

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

SUITES = Path(__file__).resolve().parents[2] / "suites"


def _cases(path: Path) -> list[dict[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert next(iter(document)) == "schema_version"
    timing = {"latency_ms", "attempts", "waited_s"}
    return [
        {
            **case,
            "trials": [
                {key: value for key, value in trial.items() if key not in timing}
                for trial in case["trials"]
            ],
        }
        for case in document["cases"]
    ]


def test_the_demo_run_passes_and_writes_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("run")
    assert result.code == 0, result.show()
    assert "verdict: PASS (every gate met its threshold)" in result.stdout
    document = json.loads((tmp_path / "results.json").read_text())
    assert document["verdict"] == "pass"
    assert document["target"]["kind"] == "toy"
    assert document["totals"]["total"] >= 66
    case = document["cases"][0]
    assert set(case) >= {"prompt", "language", "trials", "outcome", "reason", "source", "line"}
    assert set(case["trials"][0]) >= {"response", "outcome", "reason"}


def test_a_defect_fails_its_gate_and_names_the_cases(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli("run", "--toy-defect", "drop_citations", "--out", tmp_path / "r.json")
    assert result.code == 1, result.show()
    assert re.search(r"^grounding .* FAIL$", result.stdout, re.MULTILINE), result.show()
    assert "uncited answer" in result.stdout
    assert "verdict: FAIL (1 gate failed: grounding)" in result.stdout


def test_no_transforms_asks_only_the_cases_as_written_and_the_results_and_pack_say_so(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: a quick run that silently drops the variants would pass for the full run (its
    # results, plan digest and pack alike); and one that kept asking them would not be quick.
    quick, full = tmp_path / "quick.json", tmp_path / "full.json"
    ran = run_cli("run", "--gate", "refusal", "--no-transforms", "--out", quick, "--quiet")
    assert ran.code == 0, ran.show()
    ran = run_cli("run", "--gate", "refusal", "--out", full, "--quiet")
    assert ran.code == 0, ran.show()
    asked, every = (json.loads(path.read_text("utf-8")) for path in (quick, full))
    assert (asked["no_transforms"], every["no_transforms"]) == (True, False)
    assert asked["cases"] and not [c["case_id"] for c in asked["cases"] if "~" in c["case_id"]]
    written = [c["case_id"] for c in every["cases"] if c["transform"] is None]
    assert [c["case_id"] for c in asked["cases"]] == written
    assert len(every["cases"]) > len(written)  # without the option, the variants are asked
    assert asked["plan"]["digest"] != every["plan"]["digest"]
    made = run_cli("report", "--format", "json", "--out", tmp_path / "evidence.json", "--", quick)
    assert made.code == 0, made.show()
    evidence = json.loads((tmp_path / "evidence.json").read_text("utf-8"))
    assert evidence["run"]["no_transforms"] is True
    markdown = run_cli("report", quick).stdout
    assert "| transforms | off (`--no-transforms`)" in markdown


def test_an_unknown_defect_is_a_usage_error(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli("run", "--toy-defect", "drop_citation", "--out", tmp_path / "r.json")
    assert result.code == 2
    assert "drop_citations" in result.stderr


def test_cases_without_a_target_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite())
    result = run_cli("run", "--cases", tmp_path, "--out", tmp_path / "r.json")
    assert result.code == 2
    assert "--cases needs a target" in result.stderr
    assert "a verdict on the toy is not a verdict on your feature" in result.stderr


def test_two_targets_are_refused(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli(
        "run", "--toy", "--http-url", "http://127.0.0.1:9/", "--out", tmp_path / "r.json"
    )
    assert result.code == 2
    assert "choose one target, not --http-url and --toy/--toy-defect" in result.stderr


def test_a_stale_results_file_never_survives_a_failed_run(tmp_path: Path, run_cli: RunCli) -> None:
    out = tmp_path / "r.json"
    out.write_text('{"verdict": "pass"}')
    (tmp_path / "bad.yaml").write_text("suite: x\n")
    result = run_cli("run", "--toy", "--cases", tmp_path, "--out", out)
    assert result.code == 2
    assert not out.exists()


def test_an_unreachable_target_fails_fast_before_any_case(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "a", "b"))
    out = tmp_path / "r.json"
    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    result = run_cli(
        "run",
        "--cases",
        tmp_path,
        "--http-url",
        "http://127.0.0.1:9/",
        "--out",
        out,
        "--retries",
        "0",
    )
    assert result.code == 2, result.show()
    assert result.stderr.startswith(
        "error: pre-flight check failed: cannot connect to http://127.0.0.1:9/"
    ), result.show()
    assert not out.exists()


@pytest.fixture
def toy_server() -> Iterator[str]:
    server = serve("127.0.0.1", 0, make_toy())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_http_and_in_process_runs_give_the_same_results(
    tmp_path: Path, toy_server: str, run_cli: RunCli
) -> None:
    local = run_cli("run", "--toy", "--cases", SUITES, "--out", tmp_path / "local.json")
    remote = run_cli(
        "run", "--http-url", toy_server, "--cases", SUITES, "--out", tmp_path / "http.json"
    )
    assert (local.code, remote.code) == (0, 0), local.show() + remote.show()
    assert _cases(tmp_path / "local.json") == _cases(tmp_path / "http.json")


def test_toy_serve_speaks_the_contract(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet",
            "toy",
            "serve",
            "--port",
            "0",
            "--toy-defect",
            "drop_citations",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()
        match = re.search(r"on (http://127\.0\.0\.1:\d+/)", banner)
        assert match, banner
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "gauntlet",
                "run",
                "--http-url",
                match[1],
                "--cases",
                SUITES,
                "--out",
                tmp_path / "r.json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert "verdict: FAIL (1 gate failed: grounding)" in done.stdout
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stderr is not None:
            server.stderr.close()
