"""Waivers through the real command line: each state with its verdict line and exit code.

Dates are written relative to today (UTC), so the tests never go stale.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ..cli_helpers import RunCli

SUITE = """\
suite: wv-grounding
gate: grounding
version: 1
threshold: 1.0
cases:
  - id: wv-en-pool
    language: en
    prompt: When is the pool open for lap swim?
    expect_grounded: true
    must_contain: ["lap swim"]
  - id: wv-en-abstain
    language: en
    prompt: How do I get a permit to land a spacecraft on the town square?
    expect_grounded: false
"""


def day(offset: int) -> str:
    """Today (UTC) moved by `offset` days, as YYYY-MM-DD."""
    return (datetime.now(UTC).date() + timedelta(days=offset)).isoformat()


def waivers_text(case: str = "wv-en-pool", created: int = -5, expires: int = 10) -> str:
    return (
        "waivers:\n"
        f"  - case: {case}\n"
        "    reason: Citations are being rebuilt\n"
        "    owner: maria.lopez\n"
        "    ticket: https://tracker.example/GOV-123\n"
        f"    created: {day(created)}\n"
        f"    expires: {day(expires)}\n"
    )


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "g.yaml").write_text(SUITE, encoding="utf-8")
    return tmp_path


def _run(run_cli: RunCli, where: Path, *extra: str, defect: bool = True) -> tuple[int, str]:
    target = ["--toy-defect", "drop_citations"] if defect else ["--toy"]
    done = run_cli(
        "run",
        "--cases",
        where / "cases",
        *target,
        "--out",
        where / "results.json",
        "--waivers",
        where / "waivers.yaml",
        *extra,
    )
    return done.code, done.stdout + done.stderr


def test_an_applied_waiver_passes_the_run_and_says_so(setup: Path, run_cli: RunCli) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(), encoding="utf-8")
    code, out = _run(run_cli, setup)
    assert code == 0, out
    assert "verdict: PASS with 1 waived failure (every gate met its threshold)" in out
    assert "waived cases (1)" in out and "waived by maria.lopez until" in out
    assert "1/2 (1 waived)" in out
    results = json.loads((setup / "results.json").read_text(encoding="utf-8"))
    assert results["totals"]["waived"] == 1
    assert results["waivers"][0]["state"] == "applied"
    # The report reads the file back (re-deriving the waiver) and shows it with the verdict.
    report = run_cli("report", setup / "results.json")
    assert report.code == 0, report.show()
    assert "**PASS with 1 waived failure**" in report.stdout
    assert "## Waivers" in report.stdout


def test_without_the_waiver_the_same_run_fails(setup: Path, run_cli: RunCli) -> None:
    (setup / "waivers.yaml").write_text("waivers: []\n", encoding="utf-8")
    code, out = _run(run_cli, setup)
    assert code == 1, out
    assert "verdict: FAIL (1 gate failed: grounding)" in out


def test_a_waiver_no_longer_needed_passes_and_fails_under_strict(
    setup: Path, run_cli: RunCli
) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(), encoding="utf-8")
    code, out = _run(run_cli, setup, defect=False)
    assert code == 0, out
    assert "verdict: PASS (every gate met its threshold)" in out
    assert "waivers no longer needed (their cases passed) (1)" in out
    code, out = _run(run_cli, setup, "--strict-waivers", defect=False)
    assert code == 1, out
    assert "verdict: FAIL (--strict-waivers: 1 waived case passed" in out
    assert "wv-en-pool" in out.rsplit("verdict:", 1)[1]


def test_an_expired_waiver_does_not_apply_and_is_listed(setup: Path, run_cli: RunCli) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(created=-30, expires=-1), encoding="utf-8")
    code, out = _run(run_cli, setup)
    assert code == 1, out
    assert "verdict: FAIL (1 gate failed: grounding)" in out
    assert "expired waivers (they no longer apply) (1)" in out
    assert "failing cases (1)" in out


def test_a_waiver_live_through_its_last_day(setup: Path, run_cli: RunCli) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(created=-30, expires=0), encoding="utf-8")
    code, out = _run(run_cli, setup)
    assert code == 0, out
    assert "with 1 waived failure" in out


def test_a_waiver_naming_an_unknown_case_is_a_located_load_error(
    setup: Path, run_cli: RunCli
) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(case="wv-en-pol"), encoding="utf-8")
    code, out = _run(run_cli, setup)
    assert code == 2, out
    assert f"{setup / 'waivers.yaml'}:2:11: no case 'wv-en-pol' in the loaded suites" in out
    assert "did you mean 'wv-en-pool'?" in out
    assert not (setup / "results.json").exists()


def test_validate_checks_a_waivers_file_against_the_suites(setup: Path, run_cli: RunCli) -> None:
    (setup / "waivers.yaml").write_text(waivers_text(), encoding="utf-8")
    done = run_cli("validate", "--cases", setup / "cases", "--waivers", setup / "waivers.yaml")
    assert done.code == 0, done.show()
    assert "OK: 1 suite, 2 cases, 1 waiver" in done.stdout
    (setup / "waivers.yaml").write_text(waivers_text(case="nope"), encoding="utf-8")
    done = run_cli("validate", "--cases", setup / "cases", "--waivers", setup / "waivers.yaml")
    assert done.code == 2, done.show()
    assert "waivers.yaml:2:11: no case 'nope' in the loaded suites" in done.stderr


def test_strict_waivers_without_waivers_is_a_usage_error(setup: Path, run_cli: RunCli) -> None:
    done = run_cli("run", "--cases", setup / "cases", "--toy", "--strict-waivers")
    assert done.code == 2, done.show()
    assert "--strict-waivers is for a run with waivers" in done.stderr


def test_schema_waivers_prints_the_waivers_file_schema(run_cli: RunCli) -> None:
    done = run_cli("schema", "waivers")
    assert done.code == 0, done.show()
    schema = json.loads(done.stdout)
    assert schema["title"] == "gauntlet waivers file"
    assert set(schema["properties"]) == {"max_days", "waivers"}


@pytest.mark.parametrize("style", ["|", ">", "|-", ">+"])
def test_a_waiver_reason_written_as_a_block_scalar_is_read(
    setup: Path, run_cli: RunCli, style: str
) -> None:
    # Trap: a multi-line `reason` (YAML's `|` or `>`) gave "internal error" in validate and run.
    text = waivers_text().replace(
        "    reason: Citations are being rebuilt\n",
        f"    reason: {style}\n      Citations are being rebuilt\n      after the index move.\n",
    )
    (setup / "waivers.yaml").write_text(text, encoding="utf-8")
    done = run_cli("validate", "--cases", setup / "cases", "--waivers", setup / "waivers.yaml")
    assert done.code == 0, done.show()
    assert "internal error" not in done.stderr
    code, out = _run(run_cli, setup)
    assert code == 0, out
    assert "internal error" not in out
    reason = json.loads((setup / "results.json").read_text(encoding="utf-8"))["waivers"][0]
    assert reason["reason"].startswith("Citations are being rebuilt"), reason
    assert "after the index move." in reason["reason"], reason
    report = run_cli("report", setup / "results.json")
    assert report.code == 0, report.show()


@pytest.mark.parametrize("field", ["reason", "owner"])
def test_a_waiver_text_with_a_control_character_is_refused_located(
    setup: Path, run_cli: RunCli, field: str
) -> None:
    # Trap: the file accepted it and the results refused it later: "internal error".
    line = {
        "reason": "    reason: Citations are being rebuilt\n",
        "owner": "    owner: maria.lopez\n",
    }
    text = waivers_text().replace(line[field], f'    {field}: "rebuilt \\e[31m now"\n')
    (setup / "waivers.yaml").write_text(text, encoding="utf-8")
    for args in (["validate"], ["run", "--toy-defect", "drop_citations"]):
        done = run_cli(*args, "--cases", setup / "cases", "--waivers", setup / "waivers.yaml")
        assert done.code == 2, done.show()
        assert "internal error" not in done.stderr, done.show()
        row = 3 if field == "reason" else 4
        assert f"waivers.yaml:{row}:" in done.stderr, done.show()
        assert "holds U+001B, a control or bidi character" in done.stderr, done.show()
