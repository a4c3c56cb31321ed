"""`gauntlet validate --personas`: persona files checked from the command line, alone or with
the case files, every problem located with a hint and exit 2, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gauntlet.cases.persona import builtin_personas_dir

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "personas"


def _invalid_examples() -> list[Path]:
    return sorted(path for path in (CORPUS / "invalid").iterdir() if path.is_dir())


def test_validate_personas_alone_prints_the_personas_and_their_languages(
    run_cli: RunCli,
) -> None:
    result = run_cli("validate", "--personas", CORPUS / "valid")
    assert (result.code, result.stderr) == (0, ""), result.show()
    assert result.stdout.splitlines()[-1] == "OK: 3 personas (languages en, es, es-MX)"
    # Trap: with --personas and no --cases, the built-in suites were validated too.
    assert "suite" not in result.stdout, result.show()


def test_validate_personas_lists_each_persona_with_its_goal_and_turns(run_cli: RunCli) -> None:
    result = run_cli("validate", "--personas", builtin_personas_dir())
    assert result.code == 0, result.show()
    lines = result.stdout.splitlines()
    # Column order, not the order a persona file's blocks are written in (en, es, tl, vi, ko, zh).
    assert lines[-1] == "OK: 6 personas (languages en, es, zh, vi, tl, ko)"
    [angry] = [line for line in lines if line.startswith("angry-customer ")]
    assert angry.split() == [
        *("angry-customer", "refusal", "must_refuse"),
        *("en", "es", "zh", "vi", "tl", "ko"),
        *("5", "turns"),
    ]


@pytest.mark.parametrize("example", _invalid_examples(), ids=lambda path: path.name)
def test_validate_personas_locates_every_problem_and_exits_2(
    example: Path, tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a persona directory with problems reported as a traceback, cut short at the
    # first file, or printed as OK.
    here = tmp_path / example.name
    shutil.copytree(example, here, symlinks=True)
    monkeypatch.chdir(here)
    result = run_cli("validate", "--personas", "personas")
    assert result.code == 2, result.show()
    assert result.stdout == "", result.show()
    expected = (example / "expected.txt").read_text(encoding="utf-8")
    shown = result.stderr.replace(str(here.resolve()), "<example>")
    assert shown.startswith(expected), result.show()
    assert "nothing was run" in shown.splitlines()[-1], result.show()
    assert "Traceback" not in result.stderr


def test_validate_personas_as_its_own_process_exits_2_without_a_traceback(
    run_process: RunCli,
) -> None:
    example = CORPUS / "invalid" / "every-file-reported"
    result = run_process("validate", "--personas", "personas", cwd=example)
    assert result.code == 2, result.show()
    assert result.stderr.startswith("personas/c.yml:1:1: persona files must end in .yaml")
    assert "Traceback" not in result.stderr


def test_validate_reports_the_case_files_and_the_persona_files_problems_at_once(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: the case files' problems stop the run before the persona files are read, so a
    # second run is needed to see the rest.
    cases = tmp_path / "cases"
    cases.mkdir()
    bad_suite = grounding_suite("g", "g1").replace("threshold: 1.0", "threshold: 2")
    (cases / "s.yaml").write_text(bad_suite, encoding="utf-8")
    personas = tmp_path / "personas"
    shutil.copytree(CORPUS / "invalid" / "refusal-without-kind" / "personas", personas)
    result = run_cli("validate", "--cases", cases, "--personas", personas)
    assert result.code == 2, result.show()
    assert f"{cases / 's.yaml'}:4:12: threshold" in result.stderr, result.show()
    assert f"{personas / 'p.yaml'}:4:9: goal.gate: a refusal goal" in result.stderr


def test_validate_with_cases_and_personas_prints_both(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite("g", "g1"), encoding="utf-8")
    result = run_cli("validate", "--cases", tmp_path, "--personas", CORPUS / "valid")
    assert result.code == 0, result.show()
    oks = [line for line in result.stdout.splitlines() if line.startswith("OK: ")]
    assert oks == ["OK: 1 suite, 1 cases", "OK: 3 personas (languages en, es, es-MX)"]
