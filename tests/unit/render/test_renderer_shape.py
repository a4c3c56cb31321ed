"""How renderers are written: small sections, one Markdown row writer, one column aligner.

Rules over the source, not one output: a table row spelt out by hand, a second aligner or a
renderer grown into one long function is the kind of defect no golden file notices until a
cell is escaped in one place and not another, or two tables align by different rules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "gauntlet"
MARKDOWN_TABLE = SRC / "markdown_table.py"
TEXT_COLUMNS = SRC / "text_columns.py"


def _modules(root: Path = SRC) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _literal_pieces(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every literal piece of text in `tree` (f-string parts too), docstrings left out."""
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.lineno, node.value


def _writes_markdown(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "gauntlet.markdown_table"
        for node in ast.walk(tree)
    ) or any(
        isinstance(node, ast.ImportFrom)
        and node.module == "gauntlet"
        and any(alias.name == "markdown_table" for alias in node.names)
        for node in ast.walk(tree)
    )


def test_every_markdown_table_row_is_written_by_markdown_table_row() -> None:
    # Trap: a row spelt out as `f"| {a} | {b} |"` beside the helper, where a cell can miss its
    # escape or a column its separator and no test of `row` notices.
    by_hand = []
    for path, tree in _modules():
        if path == MARKDOWN_TABLE:
            continue
        markdown = _writes_markdown(tree)
        for line, text in _literal_pieces(tree):
            if text.startswith("| ") or text.endswith(" |") or (markdown and " | " in text):
                by_hand.append(f"{path.relative_to(SRC)}:{line}: {text!r}")
    assert by_hand == []


def _aligns_by_hand(node: ast.AST) -> bool:
    """A call of `ljust`, `rjust` or `center`, or a format spec whose width is computed.

    A computed precision (`{text:.{n}}`, cutting text short) aligns nothing and is left alone.
    """
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in {"ljust", "rjust", "center"}
    if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
        before = ""  # the spec up to its first computed part: a width, unless after a `.`
        for part in node.format_spec.values:
            if isinstance(part, ast.FormattedValue):
                return not before.endswith(".")
            if isinstance(part, ast.Constant):
                before += str(part.value)
    return False


def test_plain_text_columns_are_padded_by_one_aligner() -> None:
    # Trap: each table of the terminal (run summary, calibration, history, validate) padding
    # its own cells, so one measures a cell differently or forgets to strip trailing spaces.
    by_hand = [
        f"{path.relative_to(SRC)}:{getattr(node, 'lineno', '?')}"
        for path, tree in _modules()
        if path != TEXT_COLUMNS
        for node in ast.walk(tree)
        if _aligns_by_hand(node)
    ]
    assert by_hand == []


def _function_lengths(root: Path) -> Iterator[tuple[str, int]]:
    for path, tree in _modules(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                name = f"{path.relative_to(SRC)}:{node.lineno} {node.name}"
                yield name, node.end_lineno - node.lineno + 1


def test_no_renderer_function_runs_past_sixty_lines() -> None:
    # Trap: a report written as one function of seventy rows, where a section cannot be read,
    # tested or reordered on its own and a new row lands wherever there is room.
    long = [
        f"{name} ({lines} lines)" for name, lines in _function_lengths(SRC / "render") if lines > 60
    ]
    assert long == []


def test_the_judge_layer_draws_nothing_for_a_terminal() -> None:
    # Trap: the calibration's table drawn inside the judge, so the judge's rules and what a
    # person reads change together and a second aligner hides below the renderers.
    drawing = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _modules(SRC / "judge")
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and any(
            name == "rich" or name.startswith("rich.")
            for name in (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
            )
        )
    ]
    assert drawing == []
