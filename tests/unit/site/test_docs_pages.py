"""docs/*.md rendered by the site: every page, in the navigation, its links and ids, no raw HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gauntlet.errors import ConfigErrors
from gauntlet.site.docs import read_docs
from tests.unit.site.pagecheck import parse_page

ROOT = Path(__file__).resolve().parents[3]
DOCS = sorted((ROOT / "docs").glob("*.md"))
_FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_DOC_LINK = re.compile(r"\]\((?P<file>[\w-]+\.md)#(?P<anchor>[^)\s]+)\)")
_NAV = re.compile(r'<nav aria-label="Documentation"[^>]*>(?P<body>.*?)</nav>', re.DOTALL)
_NAV_LINK = re.compile(r'<a href="(?P<href>[^"]+)"[^>]*>(?P<label>[^<]+)</a>')


def _first_heading(path: Path) -> str:
    text = _FENCED.sub("", path.read_text(encoding="utf-8"))
    found = re.search(r"^#+ (.+)$", text, re.MULTILINE)
    assert found is not None, path
    return found[1].replace("`", "").strip()


def _documentation_nav(html: str) -> dict[str, str]:
    """The Documentation group of a page's navigation: label -> address."""
    found = _NAV.search(html)
    assert found is not None, "no Documentation navigation"
    return {m["label"]: m["href"] for m in _NAV_LINK.finditer(found["body"])}


@pytest.fixture(scope="module")
def addresses(built_site: Path) -> dict[str, str]:
    """Each docs page's rendered address, by its Markdown file's name, read from the index."""
    nav = _documentation_nav((built_site / "index.html").read_text(encoding="utf-8"))
    return {path.name: nav[_first_heading(path)] for path in DOCS if _first_heading(path) in nav}


def test_every_docs_page_is_rendered_and_listed_by_its_first_heading(
    built_site: Path, addresses: dict[str, str]
) -> None:
    # Trap: the site renders a fixed list of templates, so a page added to docs/ (or moved
    # there out of the README) is published nowhere, or rendered but linked from no page.
    assert sorted(addresses) == [path.name for path in DOCS]
    every_page = sorted(built_site.glob("*.html"))
    for path in DOCS:
        rendered = parse_page((built_site / addresses[path.name]).read_text(encoding="utf-8"))
        assert rendered.headings[0] == (1, _first_heading(path))
    for page in every_page:
        nav = _documentation_nav(page.read_text(encoding="utf-8"))
        assert sorted(nav.values()) == sorted(addresses.values()), page.name


def test_a_link_to_a_heading_of_another_docs_page_leads_to_that_page_and_id(
    built_site: Path, addresses: dict[str, str]
) -> None:
    # Trap: docs link `other.md#a-heading` the way GitHub names headings; rendered with other
    # ids, or left pointing at `.md`, every such link on the site leads nowhere.
    checked = 0
    for path in DOCS:
        source = _FENCED.sub("", path.read_text(encoding="utf-8"))
        page = parse_page((built_site / addresses[path.name]).read_text(encoding="utf-8"))
        for link in _DOC_LINK.finditer(source):
            href = f"{addresses[link['file']]}#{link['anchor']}"
            assert href in page.links, f"{path.name}: {link[0]}"
            target = parse_page((built_site / addresses[link["file"]]).read_text(encoding="utf-8"))
            assert link["anchor"] in target.ids, f"{path.name}: {href}"
            checked += 1
    assert checked > 0, "the docs link no heading of another page: the check checked nothing"


def _docs(tmp_path: Path, pages: dict[str, str]) -> Path:
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_headings_take_github_ids_and_links_take_the_rendered_address(tmp_path: Path) -> None:
    # Trap: an id made another way than GitHub's (punctuation kept, a repeat not numbered)
    # breaks the links the docs write for GitHub readers.
    docs = _docs(
        tmp_path,
        {
            "a.md": "# A page\n\n## Its part: one\n\n## `run` and `site`\n\n## Its part: one\n",
            "b.md": "# B page\n\n[part](a.md#its-part-one-1) [code](a.md#run-and-site)\n"
            "[home](../README.md#the-github-action) [here](#b-page) [web](https://x.org/)\n",
        },
    )
    a, b = read_docs(docs)
    assert a.title == "A page"
    assert [a.file, b.file] == ["docs-a.html", "docs-b.html"]
    ids = re.findall(r'<h2 id="([^"]+)"', str(a.body))
    assert ids == ["its-part-one", "run-and-site", "its-part-one-1"]
    hrefs = re.findall(r'href="([^"]+)"', str(b.body))
    assert hrefs == [
        "docs-a.html#its-part-one-1",
        "docs-a.html#run-and-site",
        "index.html",
        "#b-page",
        "https://x.org/",
    ]
    assert "<h1" not in str(a.body), "the title is the page's one h1, from the layout"


def test_raw_html_in_a_docs_page_is_shown_as_text(tmp_path: Path) -> None:
    # Trap: Markdown passes HTML through by default, so a docs page (or a hostile edit of one)
    # puts a script or an event handler on the site.
    docs = _docs(
        tmp_path,
        {
            "a.md": "# A\n\n<script>alert(1)</script>\n\n"
            "Text <img src=x onerror=alert(1)> more.\n\n"
            '[x](javascript:alert(1)) <b onclick="alert(1)">bold</b>\n\n'
            "```html\n<script>alert(2)</script>\n```\n\n| a | b |\n|---|---|\n| <i>1</i> | 2 |\n"
        },
    )
    [page] = read_docs(docs)
    html = str(page.body)
    assert "<script" not in html and "<img" not in html and "<b " not in html and "<i>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert 'href="javascript:' not in html
    assert re.search(r"<th scope=\"col\">a</th>", html), "a table is rendered, its headers scoped"


def test_a_comment_line_is_dropped_not_shown(tmp_path: Path) -> None:
    # Trap: escaped, the generated-section markers of docs/gates.md show as text on the page.
    docs = _docs(tmp_path, {"a.md": "# A\n\n<!-- gen:start -->\n| a |\n|---|\n| 1 |\n"})
    [page] = read_docs(docs)
    assert "gen:start" not in str(page.body)
    assert "<td>1</td>" in str(page.body)


@pytest.mark.parametrize(
    ("text", "wording", "line"),
    [
        ("# A\n\n[x](b.md#gone)\n", "b.md#gone: no heading makes #gone", 3),
        ("# A\n\ntext\n\n- [x](#gone)\n", "#gone: no heading makes #gone", 5),
        ("# A\n\n[x](c.md)\n", "c.md: not a page the site renders", 3),
        ("# A\n\n[x](../action.yml)\n", "../action.yml: not a page the site renders", 3),
        ("No heading at all.\n", "no heading to title the page", None),
        ("# A\n\n# Again\n", "a second top-level heading", 3),
    ],
)
def test_a_docs_link_or_title_the_site_cannot_render_is_a_located_error(
    tmp_path: Path, text: str, wording: str, line: int | None
) -> None:
    # Trap: a broken link is published as a dead link, or the page silently dropped.
    docs = _docs(tmp_path, {"a.md": text, "b.md": "# B\n"})
    with pytest.raises(ConfigErrors) as caught:
        read_docs(docs)
    [problem] = caught.value.errors
    assert problem.path.endswith("a.md")
    assert wording in problem.message
    assert problem.line == line


def test_two_tables_under_one_heading_get_distinct_captions(tmp_path: Path) -> None:
    # Trap: a table is named by its section's heading, so two tables in one section are two
    # landmarks of one name, which html-validate's unique-landmark rule (and a reader) refuses.
    table = "| a |\n|---|\n| 1 |\n"
    docs = _docs(tmp_path, {"a.md": f"# A\n\n## Keys\n\n{table}\ntext\n\n{table}"})
    [page] = read_docs(docs)
    captions = re.findall(r"<caption[^>]*>([^<]+)</caption>", str(page.body))
    assert captions == ["Keys", "Keys (2)"]
