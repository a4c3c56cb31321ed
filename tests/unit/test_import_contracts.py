"""The one-way package order holds, and its contracts catch an import that breaks it.

`make imports` (part of `make verify`) runs import-linter over the real tree. These tests run
it over a copy of the package with one wrong import added, so the contracts are seen failing
on exactly the defect they exist for, and passing on the tree as it is.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the package under `tree/src`, with the project's own contracts."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(tree / "pyproject.toml")],
        cwd=tree,
        env={"PYTHONPATH": str(tree / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the package and the project's contracts, to break on purpose."""
    shutil.copytree(
        ROOT / "src" / "gauntlet",
        tmp_path / "src" / "gauntlet",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    assert marker in text, f"{module} has no future import to add after"
    module.write_text(text.replace(marker, marker + "\n" + line + "\n", 1), encoding="utf-8")


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_a_target_importing_a_gate_breaks_the_order(tree: Path) -> None:
    _add_import(
        tree / "src/gauntlet/targets/toy/assistant.py",
        "from gauntlet.gates.readability import is_readable  # noqa: F401",
    )
    result = _lint(tree)
    assert result.returncode == 1
    assert "Contracts: 1 kept, 1 broken." in result.stdout
    assert "gauntlet.targets is not allowed to import gauntlet.gates" in result.stdout
    assert "gauntlet.targets.toy.assistant -> gauntlet.gates.readability" in result.stdout


def test_a_lazy_import_of_a_later_stage_breaks_the_order_too(tree: Path) -> None:
    module = tree / "src/gauntlet/run/tally.py"
    module.write_text(
        module.read_text(encoding="utf-8")
        + "\n\ndef _late() -> object:\n"
        + "    from gauntlet.evidence.pack import EvidencePack  # noqa: PLC0415\n\n"
        + "    return EvidencePack\n",
        encoding="utf-8",
    )
    result = _lint(tree)
    assert result.returncode == 1
    assert "gauntlet.run is not allowed to import gauntlet.evidence" in result.stdout
    assert "gauntlet.run.tally -> gauntlet.evidence.pack" in result.stdout


def test_a_leaf_importing_a_stage_breaks_the_leaves_contract(tree: Path) -> None:
    _add_import(
        tree / "src/gauntlet/canonical.py",
        "from gauntlet.cases.model import GateName  # noqa: F401",
    )
    result = _lint(tree)
    assert result.returncode == 1
    assert "The shared leaves import no stage of the pipeline BROKEN" in result.stdout
    assert "gauntlet.canonical -> gauntlet.cases.model" in result.stdout
