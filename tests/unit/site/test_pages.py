"""The Python-only floor for every page: structure, landmarks, tables, links and wording."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gauntlet.evidence.mapping import CALIFORNIA
from gauntlet.site.build import STYLESHEET
from tests.test_wording import find_endorsement_claims
from tests.unit.site.pagecheck import LANDMARKS, Page, parse_page
from tests.unit.site.sitefiles import DOC_FILES, PAGE_FILES

FILES = list(PAGE_FILES)
"""The site's own pages and its Documentation pages, `docs/*.md` rendered."""


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, Page]:
    return {name: parse_page((built_site / name).read_text(encoding="utf-8")) for name in FILES}


def test_the_build_writes_every_page_and_the_stylesheet(built_site: Path) -> None:
    assert sorted(p.name for p in built_site.iterdir()) == sorted([*FILES, STYLESHEET])


@pytest.mark.parametrize("name", FILES)
def test_language_title_and_one_h1(pages: dict[str, Page], name: str) -> None:
    page = pages[name]
    assert page.lang == "en"
    assert page.title.strip().endswith("| gauntlet")
    assert [level for level, _ in page.headings].count(1) == 1
    assert page.headings[0][0] == 1, "the first heading is the h1"


@pytest.mark.parametrize("name", FILES)
def test_no_heading_level_is_skipped(pages: dict[str, Page], name: str) -> None:
    levels = [level for level, _ in pages[name].headings]
    skipped = [
        (before, after)
        for before, after in zip(levels, levels[1:], strict=False)
        if after > before + 1
    ]
    assert skipped == []
    assert all(text for _, text in pages[name].headings), "a heading is empty"


@pytest.mark.parametrize("name", FILES)
def test_landmarks_and_a_skip_link(pages: dict[str, Page], name: str) -> None:
    page = pages[name]
    for landmark in LANDMARKS:
        assert page.landmarks.get(landmark, 0) >= 1, f"no <{landmark}>"
    assert page.landmarks["main"] == 1
    assert page.main_id is not None
    assert page.first_link == f"#{page.main_id}", "the first link skips to <main>"


@pytest.mark.parametrize("name", FILES)
def test_tables_are_named_and_their_headers_scoped(pages: dict[str, Page], name: str) -> None:
    for table in pages[name].tables:
        assert table.first_child == "caption", "a table's first child is its caption"
        assert table.caption.strip(), "a caption is empty"
        assert table.headers_without_scope == 0


def test_ids_are_unique_on_every_page(pages: dict[str, Page]) -> None:
    for name, page in pages.items():
        repeated = sorted({i for i in page.ids if page.ids.count(i) > 1})
        assert repeated == [], name


def test_every_internal_link_resolves(pages: dict[str, Page]) -> None:
    broken = []
    for name, page in pages.items():
        for href in page.links:
            if name in DOC_FILES and href.startswith("https://"):
                continue  # a docs page may cite the web, as on GitHub; never over plain http
            assert "://" not in href and not href.startswith("//"), f"{name}: external {href}"
            file, _, fragment = href.partition("#")
            target = file or name
            if target not in pages or (fragment and fragment not in pages[target].ids):
                broken.append(f"{name}: {href}")
    assert broken == []


def test_every_page_is_linked_from_the_navigation(pages: dict[str, Page]) -> None:
    for page in pages.values():
        assert set(FILES) <= set(page.links)


@pytest.mark.parametrize("name", FILES)
def test_the_alignment_notice_is_in_every_footer(pages: dict[str, Page], name: str) -> None:
    assert " ".join(CALIFORNIA.alignment_notice.split()) in pages[name].footer_text


@pytest.mark.parametrize("name", FILES)
def test_no_page_claims_endorsement(pages: dict[str, Page], built_site: Path, name: str) -> None:
    assert find_endorsement_claims(pages[name].text) == []
    assert find_endorsement_claims((built_site / name).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("name", FILES)
def test_no_page_needs_javascript(pages: dict[str, Page], built_site: Path, name: str) -> None:
    html = (built_site / name).read_text(encoding="utf-8")
    assert pages[name].scripts == 0
    assert re.findall(r"<[^>]*\son[a-z]+\s*=", html) == []  # no event-handler attributes
    # A `javascript:` URL in any attribute (entities decoded as a browser would); the words
    # may stand in a page's text, as docs/case-files.md names the schemes a link may not use.
    assert [value for value in _attribute_values(html) if _is_script_url(value)] == []


def _attribute_values(html: str) -> list[str]:
    from html.parser import HTMLParser

    values: list[str] = []

    class Attributes(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            values.extend(value for _name, value in attrs if value is not None)

    Attributes(convert_charrefs=True).feed(html)
    return values


def _is_script_url(value: str) -> bool:
    # Browsers drop ASCII whitespace and control characters before reading the scheme.
    squeezed = "".join(char for char in value if ord(char) > 0x20).lower()
    return squeezed.startswith("javascript:")


def test_a_script_url_in_an_attribute_is_found_however_it_is_written() -> None:
    page = (
        '<a href=" Java&#x09;Script:alert(1)">x</a><img src="&#106;avascript:x"><p>javascript:</p>'
    )
    assert [value for value in _attribute_values(page) if _is_script_url(value)] == [
        " Java\tScript:alert(1)",
        "javascript:x",
    ]


def test_the_stylesheet_fetches_nothing(built_site: Path) -> None:
    css = (built_site / STYLESHEET).read_text(encoding="utf-8")
    assert "@import" not in css
    assert "url(" not in css
