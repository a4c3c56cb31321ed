"""The escaping helpers, and that nothing a target or a file says becomes markup."""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path

from gauntlet.site.build import render_pages
from gauntlet.site.content import gather_content
from gauntlet.site.markup import (
    attribute_docstrings,
    describe_shape,
    first_sentence,
    inline_code,
    visible_shape,
)

HOSTILE = '<script>alert("x")</script> & `<b>bold</b>` @team'


def test_inline_code_escapes_everything_and_marks_only_code_spans() -> None:
    assert str(inline_code(HOSTILE)) == (
        "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; "
        "<code>&lt;b&gt;bold&lt;/b&gt;</code> @team"
    )
    assert str(inline_code("no code")) == "no code"
    assert str(inline_code("an `unclosed span")) == "an `unclosed span"


class _Documented(Enum):
    FIRST = 1
    """The first,
    wrapped over lines."""
    SECOND = 2
    THIRD: int = 3  # type: ignore[misc]
    """The third."""


def test_attribute_docstrings_reads_the_docstring_under_each_name() -> None:
    assert attribute_docstrings(_Documented) == {
        "FIRST": "The first, wrapped over lines.",
        "THIRD": "The third.",
    }


def test_first_sentence() -> None:
    assert first_sentence("One line\ncontinued.\n\nMore.") == "One line continued."
    assert first_sentence(None) == ""


def test_invisible_characters_are_shown_as_escapes() -> None:
    assert visible_shape("") == '""'
    assert visible_shape("   ") == '"   "'
    assert visible_shape("\u200b\u00a0…🙂") == '"\\u200b\\u00a0…🙂"'
    assert visible_shape("\U000e0001") == '"\\U000e0001"'
    assert visible_shape("\u3164\u2800\u034f\ufe0f") == '"\\u3164\\u2800\\u034f\\ufe0f"'
    assert describe_shape("   ") == "space ×3"
    assert describe_shape("[1]") == ""
    assert describe_shape("\u200b\u200c") == "zero width space, zero width non-joiner"


def test_target_text_is_escaped_on_the_evidence_page() -> None:
    content = gather_content()
    healthy, defect = content.excerpts
    hostile_case = defect.failing[0].model_copy(update={"reason": HOSTILE, "case_id": "x"})
    defect = dataclasses.replace(
        defect, failing=(hostile_case,), markdown=f"## Verdict\n\n{HOSTILE}\n"
    )
    page = render_pages(dataclasses.replace(content, excerpts=(healthy, defect)))["evidence.html"]
    assert "<script" not in page and "<b>" not in page
    assert "&lt;script&gt;" in page


def test_templates_are_files_of_the_package() -> None:
    from gauntlet.site.build import TEMPLATES

    names = sorted(p.name for p in Path(TEMPLATES).glob("*.html.j2"))
    assert "base.html.j2" in names and "macros.html.j2" in names
