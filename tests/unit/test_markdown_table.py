"""The one Markdown table helper: a head, rows, and the escaping every renderer uses."""

from __future__ import annotations

from gauntlet.evidence.mapping import (
    CALIFORNIA,
    MappingRow,
    Verification,
    render_mapping_markdown,
)
from gauntlet.markdown_table import escape, head, row, table


def test_a_head_is_its_names_and_the_line_that_makes_it_a_table() -> None:
    assert head("gate", "case") == ["| gate | case |", "|---|---|"]


def test_a_row_writes_its_cells_as_given() -> None:
    assert row("**all**", "`id`", "3") == "| **all** | `id` | 3 |"


def test_a_table_escapes_every_cell_but_not_its_head() -> None:
    assert table(("a_b", "c"), [("x|y", "<b>@you</b>"), ("*", "one\nline")]) == [
        "| a_b | c |",
        "|---|---|",
        "| x\\|y | &lt;b&gt;&#64;you&lt;/b&gt; |",
        "| \\* | one line |",
    ]


def test_escape_leaves_no_markup_html_mention_or_control() -> None:
    assert escape("a_b *c* [d](e) `f` ~g~ \\ <i> & @h\x1b[2J") == (
        "a\\_b \\*c\\* \\[d\\](e) \\`f\\` \\~g\\~ \\\\ &lt;i&gt; &amp; &#64;h\\\\x1b\\[2J"
    )


def test_the_mapping_page_escapes_its_cells_as_the_report_does() -> None:
    """Its own copy once escaped only `|`: markup in a cell acted on the page."""
    informs = "Shows <b>bold</b>, *emphasis* and a mention of @someone."
    mapping_row = MappingRow(
        document="SIMM 5305-F",
        item="Part 1, Questionnaire, item (h)",
        informs=informs,
        verification=Verification.SECONDHAND,
    )
    mapping = CALIFORNIA.model_copy(update={"harness_properties": (mapping_row,)})
    assert (
        f"| SIMM 5305-F | Part 1, Questionnaire, item (h) | {escape(informs)} | secondhand |"
        in render_mapping_markdown(mapping).splitlines()
    )
