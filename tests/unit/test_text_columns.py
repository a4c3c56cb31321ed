"""The one plain-text column aligner every terminal table uses."""

from __future__ import annotations

from gauntlet.text_columns import aligned, padded


def test_a_column_is_as_wide_as_its_widest_cell_header_included() -> None:
    # Trap: widths taken from the rows alone, so a header longer than its cells pushes the
    # columns after it out of line.
    assert aligned([["language", "items"], ["en", "12"], ["es-MX", "3"]]) == [
        "language  items",
        "en        12",
        "es-MX     3",
    ]


def test_right_columns_align_right_and_no_line_ends_in_spaces() -> None:
    # Trap: a short last cell padded out, leaving trailing spaces a CI log keeps and a
    # golden comparison then trips on.
    assert aligned([["gate", "n", "note"], ["refusal", "12", ""]], right={1}) == [
        "gate      n  note",
        "refusal  12",
    ]


def test_padded_cells_keep_their_columns_for_a_caller_that_styles_one() -> None:
    assert padded([["a", "bb"], ["ccc", "d"]], right=(1,)) == [["a  ", "bb"], ["ccc", " d"]]
    assert padded([]) == []
