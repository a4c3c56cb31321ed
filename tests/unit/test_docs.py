"""The README and docs match what the code does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gauntlet.cases.model import CASE_MODELS, SUITE_MODELS, Case, GateName, SuiteBase
from gauntlet.cli import run
from gauntlet.targets.toy import PAIRED_GATES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CASE_FILES_DOC = (ROOT / "docs" / "case-files.md").read_text(encoding="utf-8")

CONSOLE = re.compile(r"```console\n\$ gauntlet (?P<args>[^\n]*)\n(?P<output>.*?)```", re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    found = [(m["args"], m["output"]) for m in CONSOLE.finditer(README)]
    assert len(found) >= 2, "the README's gauntlet examples are gone"
    return found


@pytest.mark.parametrize(("args", "output"), _examples(), ids=lambda value: value[:40])
def test_readme_console_examples_are_real_output(
    args: str,
    output: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # Run where the README's relative paths resolve, but write results files elsewhere.
    for name in ("docs", "suites"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    run(shlex.split(args))
    out, err = capsys.readouterr()
    assert out + err == output


def _documented_keys(heading: str) -> set[str]:
    section = CASE_FILES_DOC.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {
        cell.strip("` ")
        for row in rows
        for cell in row.split("|")[1:3]
        if cell.strip().startswith("`")
    }


def test_every_suite_key_is_documented_and_no_other() -> None:
    keys = {key for model in SUITE_MODELS.values() for key in model.model_fields}
    assert _documented_keys("Suite keys") == keys


def test_every_shared_case_key_is_documented_and_no_other() -> None:
    assert _documented_keys("Case keys every gate shares") == set(Case.model_fields)


def test_every_per_gate_case_key_is_documented_and_no_other() -> None:
    section = CASE_FILES_DOC.split("## Case keys per gate\n", 1)[1].split("\n## ", 1)[0]
    documented = {
        (row.split("|")[1].strip(), row.split("|")[2].strip(" `"))
        for row in section.splitlines()
        if row.startswith("| ") and not row.startswith("| gate") and "---" not in row
    }
    actual = {
        (gate.value, key)
        for gate in GateName
        for key in CASE_MODELS[gate].model_fields
        if key not in Case.model_fields
    }
    assert documented == actual


def test_the_suite_model_keys_are_the_base_keys_plus_golden_key_version() -> None:
    extra = {
        gate: set(model.model_fields) - set(SuiteBase.model_fields)
        for gate, model in SUITE_MODELS.items()
    }
    assert extra == {
        gate: ({"cases", "key_version"} if gate is GateName.GOLDEN else {"cases"})
        for gate in GateName
    }


def test_the_readme_defect_table_is_the_toys_pairing() -> None:
    section = README.split("### The self-test", 1)[1].split("\n### ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `")]
    documented = {row[1].strip(" `"): row[3].strip() for row in rows}
    everything = frozenset(GateName)
    expected = {
        defect.value: "all five"
        if gates == everything
        else ", ".join(gate.value for gate in GateName if gate in gates)
        for defect, gates in PAIRED_GATES.items()
    }
    assert documented == expected


def test_the_error_tree_in_the_docs_is_the_one_in_the_code() -> None:
    import gauntlet.errors

    tree = (gauntlet.errors.__doc__ or "").split("```")[1]
    assert tree in (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
