"""Plain-text columns: the one aligner of every table printed to a terminal or a CI log.

A leaf below every stage, so the run summary, the calibration table, `validate` and the
history views pad their cells by one rule: each column as wide as its widest cell (measured
in code points, as the cells are given), cells two spaces apart, no trailing spaces.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

GAP = "  "
"""What separates two columns."""


def padded(rows: Sequence[Sequence[str]], *, right: Collection[int] = ()) -> list[list[str]]:
    """Each row's cells padded to their column's widest cell; the `right` columns aligned right.

    Every row has as many cells as the first.
    """
    if not rows:
        return []
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        [
            cell.rjust(width) if column in right else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        for row in rows
    ]


def aligned(rows: Sequence[Sequence[str]], *, right: Collection[int] = ()) -> list[str]:
    """Each row as one line: its padded cells `GAP` apart, trailing spaces stripped."""
    return [GAP.join(cells).rstrip() for cells in padded(rows, right=right)]
