"""The inventory is counted from the loaded suites, and the copy in docs/gates.md cannot drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.errors import UsageError
from gauntlet.inventory import (
    END,
    START,
    render_inventory_json,
    render_inventory_markdown,
    replace_block,
    update_file,
)

from .cases.suite_text import grounding_suite

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_block_is_what_the_harness_loads() -> None:
    block = render_inventory_markdown(load_suites([builtin_suites_dir()]))
    gates = (ROOT / "docs" / "gates.md").read_text(encoding="utf-8")
    assert f"{START}\n{block}{END}" in gates, "run `make inventory`"


def test_markdown_counts_per_language(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(grounding_suite("a", "a1", "a2"))
    (tmp_path / "b.yaml").write_text(
        "suite: b\ngate: refusal\nversion: 1\nthreshold: 0.5\ncases:\n"
        "  - {id: b1, language: es, prompt: x, kind: crisis}\n"
    )
    assert render_inventory_markdown(load_suites([tmp_path])) == (
        "| Gate | Suite | Threshold | en | es | Total |\n"
        "|---|---|---|---|---|---|\n"
        "| grounding | `a` | 1 | 2 | 0 | 2 |\n"
        "| refusal | `b` | 0.5 | 0 | 1 | 1 |\n"
        "| **all** |  |  | 2 | 1 | 3 |\n"
    )
    document = json.loads(render_inventory_json(load_suites([tmp_path])))
    assert document["totals"] == {"languages": {"en": 2, "es": 1}, "total": 3}
    assert document["suites"][1]["languages"] == {"es": 1}


def test_replace_block_keeps_the_rest() -> None:
    text = f"before\n{START}\nold\n{END}\nafter\n"
    assert replace_block(text, "new\n", source="R") == f"before\n{START}\nnew\n{END}\nafter\n"


@pytest.mark.parametrize(
    "text",
    ["no markers", f"{START}\n{START}\n{END}", f"{END}\nx\n{START}\n"],
)
def test_bad_markers_are_refused(text: str) -> None:
    with pytest.raises(UsageError):
        replace_block(text, "x\n", source="R")


def test_update_file_reports_whether_it_changed(tmp_path: Path) -> None:
    path = tmp_path / "R.md"
    path.write_text(f"{START}\nold\n{END}\n")
    assert update_file(path, "new\n") is True
    assert update_file(path, "new\n") is False
    with pytest.raises(UsageError, match="cannot read"):
        update_file(tmp_path / "missing.md", "x\n")


def test_update_file_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "R.md"
    path.write_bytes(f"{START}\n\xff\n{END}\n".encode("latin-1"))
    with pytest.raises(UsageError, match=r"R\.md: not UTF-8 \(byte 34\)"):
        update_file(path, "new\n")


def test_update_file_says_when_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "R.md"
    path.write_text(f"{START}\nold\n{END}\n")

    def refuse(path: Path, text: str, *, mode: int | None = None) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("gauntlet.inventory.write_atomically", refuse)
    with pytest.raises(UsageError, match=r"R\.md: cannot write: Permission denied"):
        update_file(path, "new\n")
