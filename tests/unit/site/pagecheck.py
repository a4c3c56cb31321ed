"""A stdlib-only reader of the site's pages and stylesheet, for the checks `make verify` runs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

BLOCKS = frozenset(
    [
        "p",
        "li",
        "dt",
        "dd",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "caption",
        "tr",
        "table",
        "section",
        "header",
        "footer",
        "main",
        "nav",
        "ul",
        "ol",
        "dl",
        "div",
        "title",
    ]
)
"""Elements whose text is a sentence of its own: the wording check must not join them."""

CELLS = frozenset({"td", "th"})
SCOPES = frozenset({"col", "row", "colgroup", "rowgroup"})
LANDMARKS = ("header", "nav", "main", "footer")


@dataclass
class Table:
    """What the checks need to know about one table."""

    first_child: str | None = None
    caption: str = ""
    headers_without_scope: int = 0


@dataclass
class Page:
    """One parsed page."""

    lang: str | None = None
    title: str = ""
    headings: list[tuple[int, str]] = field(default_factory=list)
    landmarks: dict[str, int] = field(default_factory=dict)
    first_link: str | None = None
    links: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    main_id: str | None = None
    tables: list[Table] = field(default_factory=list)
    scripts: int = 0
    footer_text: str = ""
    text: str = ""


class PageParser(HTMLParser):
    """Collects a `Page` from HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._chunks: list[str] = []
        self._footer: list[str] = []
        self._in_title = False
        self._in_footer = 0
        self._heading: tuple[int, list[str]] | None = None
        self._in_caption = False
        self._tables: list[Table] = []
        self._svg = 0
        """Depth inside inline `<svg>`, whose `<title>` names a chart, not the page."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "html":
            self.page.lang = attributes.get("lang")
        if "id" in attributes and attributes["id"] is not None:
            self.page.ids.append(attributes["id"])
        if tag in LANDMARKS:
            self.page.landmarks[tag] = self.page.landmarks.get(tag, 0) + 1
        if tag == "main":
            self.page.main_id = attributes.get("id")
        if tag == "footer":
            self._in_footer += 1
        if tag == "svg":
            self._svg += 1
        if tag == "title" and not self._svg:
            self._in_title = True
        if tag == "script":
            self.page.scripts += 1
        if tag == "a" and attributes.get("href") is not None:
            href = attributes["href"] or ""
            self.page.links.append(href)
            if self.page.first_link is None:
                self.page.first_link = href
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = (int(tag[1]), [])
        if self._tables and self._tables[-1].first_child is None and tag != "table":
            self._tables[-1].first_child = tag
        if tag == "table":
            self._tables.append(Table())
        if tag == "caption":
            self._in_caption = True
        if tag == "th" and attributes.get("scope") not in SCOPES and self._tables:
            self._tables[-1].headers_without_scope += 1
        if tag in BLOCKS:
            self._text("\n\n")
        elif tag in CELLS:
            self._text(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._svg -= 1
        if tag == "title":
            self._in_title = False
        if tag == "footer":
            self._in_footer -= 1
        if tag == "caption":
            self._in_caption = False
        if tag == "table" and self._tables:
            self.page.tables.append(self._tables.pop())
        if self._heading and tag == f"h{self._heading[0]}":
            level, words = self._heading
            self.page.headings.append((level, " ".join("".join(words).split())))
            self._heading = None
        if tag in BLOCKS:
            self._text("\n\n")
        elif tag in CELLS:
            self._text(" | ")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.page.title += data
        if self._heading:
            self._heading[1].append(data)
        if self._in_caption and self._tables:
            self._tables[-1].caption += data
        self._text(data)

    def _text(self, text: str) -> None:
        self._chunks.append(text)
        if self._in_footer:
            self._footer.append(text)

    def close(self) -> None:
        super().close()
        self.page.text = "".join(self._chunks)
        self.page.footer_text = " ".join("".join(self._footer).split())


def parse_page(html: str) -> Page:
    """Parse one page."""
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser.page


# ---------------------------------------------------------------- the palette

_ROOT = re.compile(r":root\s*\{(?P<body>[^}]*)\}")
_DARK = re.compile(r"@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)\s*\{")
_PROPERTY = re.compile(r"(--[\w-]+)\s*:\s*([^;]+);")


def palettes(css: str) -> dict[str, dict[str, str]]:
    """The custom properties of the light `:root` and of the dark scheme's `:root`."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    dark_at = _DARK.search(css)
    assert dark_at is not None, "no @media (prefers-color-scheme: dark) block"
    light = _ROOT.search(css, 0, dark_at.start())
    dark = _ROOT.search(css, dark_at.end())
    assert light is not None and dark is not None, "each scheme needs a :root block"
    return {
        "light": dict(_PROPERTY.findall(light["body"])),
        "dark": dict(_PROPERTY.findall(dark["body"])),
    }


def relative_luminance(colour: str) -> float:
    """WCAG 2.x relative luminance of a `#rrggbb` or `#rgb` colour."""
    digits = colour.strip().lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    assert re.fullmatch(r"[0-9a-fA-F]{6}", digits), f"not a hex colour: {colour!r}"
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two colours, from 1 to 21."""
    a, b = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (a + 0.05) / (b + 0.05)
