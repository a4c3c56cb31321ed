"""The site's Documentation pages: each `docs/*.md`, rendered as CommonMark with its tables.

Raw HTML is off: a tag written in a page is shown as text, never passed to the browser (the
docs are ours, but the site must not be a channel for script), and a line that is only an HTML
comment (a generated section's marker) is dropped, as GitHub shows it. Headings take the ids
GitHub gives them, so the links the docs write between themselves (`other.md#a-heading`) lead to
the same place on the site: each `*.md` link becomes that page's `.html`, a link to the README
becomes the site's index, and a link the site cannot follow (a file it does not render, a
heading no page has) stops the build with the line it is on.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

from gauntlet.errors import ConfigError, ConfigErrors

_PACKAGE = Path(__file__).resolve().parent.parent

BUNDLED_DOCS = "_docs"
"""Where a wheel carries the repository's `docs/`, inside the `gauntlet` package."""

PAGE_PREFIX = "docs-"
"""`docs/gates.md` is rendered as `docs-gates.html`, beside the site's own `gates.html`."""

INDEX = "index.html"
"""Where a link to the README leads: the site's home page."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_COMMENT_LINE = re.compile(r" {0,3}<!--(?:(?!-->).)*-->\s*")
_NOT_IN_SLUG = re.compile(r"[^\w\- ]")


@dataclass(frozen=True)
class DocPage:
    """One rendered docs page."""

    file: str
    """The page's address relative to the site's root: `docs-<name>.html`."""
    title: str
    """Its first heading, as text: the page's `<h1>` and its name in the navigation."""
    anchor: str
    """The `<h1>`'s id, as GitHub names the heading."""
    body: Markup
    """Everything after the first heading, as HTML."""


@dataclass
class _Parsed:
    """A docs page parsed, before its links are rewritten."""

    path: Path
    title: str
    tokens: list[Token]
    ids: set[str] = field(default_factory=set)
    anchor: str = ""
    """The title's id."""


def find_docs_dir(package: Path = _PACKAGE) -> Path:
    """The docs pages: carried in the wheel, or `docs/` at the root of a source checkout."""
    bundled = package / BUNDLED_DOCS
    if bundled.is_dir():
        return bundled
    return package.parent.parent / "docs"


def page_file(markdown: Path) -> str:
    """The site address of a docs page: `gates.md` -> `docs-gates.html`."""
    return f"{PAGE_PREFIX}{markdown.stem}.html"


def read_docs(directory: Path) -> tuple[DocPage, ...]:
    """Every `*.md` of `directory`, rendered, in order of file name.

    Raises:
        ConfigErrors: the directory or a page cannot be read, a page has no heading or two
            top-level ones, or a link leads to no page or heading the site renders.
    """
    return _rendered(tuple((path, _read(path)) for path in _markdown_files(directory)))


@lru_cache(maxsize=4)
def _rendered(texts: tuple[tuple[Path, str], ...]) -> tuple[DocPage, ...]:
    """The pages of these (path, text) pairs, rendered: the same texts render once a process."""
    parsed = {path.name: _parse(path, text) for path, text in texts}
    renderer = _markdown()
    pages = []
    for page in parsed.values():
        for token in page.tokens:
            if token.type == "inline":
                _rewrite_links(token, page, parsed)
        body = renderer.renderer.render(page.tokens, renderer.options, {})
        pages.append(DocPage(page_file(page.path), page.title, page.anchor, Markup(body)))  # noqa: S704
    return tuple(pages)


def _markdown_files(directory: Path) -> list[Path]:
    try:
        paths = sorted(path for path in directory.glob("*.md") if path.is_file())
    except OSError as exc:  # pragma: no cover - glob of an unreadable directory
        paths, reason = [], exc.strerror or str(exc)
    else:
        reason = "it holds no *.md page" if directory.is_dir() else "no such directory"
    if not paths:
        raise ConfigErrors(
            [
                ConfigError(
                    directory,
                    f"cannot read the documentation pages: {reason}",
                    hint="build the site from a source checkout, or from a wheel that carries "
                    f"docs/ as gauntlet/{BUNDLED_DOCS}",
                )
            ]
        )
    return paths


def _markdown() -> MarkdownIt:
    """CommonMark with tables, raw HTML off, and the site's table and code-block wrappers."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    markdown.add_render_rule("table_open", _table_open)
    markdown.add_render_rule("table_close", _table_close)
    markdown.add_render_rule("fence", _code_block)
    markdown.add_render_rule("code_block", _code_block)
    return markdown


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else exc.strerror or str(exc)
        raise ConfigErrors([ConfigError(path, f"cannot read the page: {reason}")]) from None


def _parse(path: Path, written: str) -> _Parsed:
    """The page's tokens, its title taken out, ids on its headings, captions on its tables."""
    markdown = _markdown()
    text = _drop_comment_lines(written, markdown)
    tokens = markdown.parse(text)
    if not tokens or tokens[0].type != "heading_open":
        raise ConfigErrors([ConfigError(path, "no heading to title the page: start it with `#`")])
    title = _plain_text(tokens[1])
    page = _Parsed(path, title, tokens[3:])
    page.anchor = _unique(_slug(title), page.ids)
    section = title
    tables = examples = 0
    captions: dict[str, int] = {}  # tables each heading has named so far: a second is numbered
    for index, token in enumerate(page.tokens):
        if token.type == "heading_open":
            if token.tag == "h1":
                line = token.map[0] + 1 if token.map else None
                message = "a second top-level heading: the page's `#` heading is its title"
                raise ConfigErrors([ConfigError(path, message, line=line)])
            section = _plain_text(page.tokens[index + 1])
            token.attrSet("id", _unique(_slug(section), page.ids))
        elif token.type == "table_open":
            tables += 1
            captions[section] = captions.get(section, 0) + 1
            caption = section if captions[section] == 1 else f"{section} ({captions[section]})"
            token.meta = {"caption": caption, "id": _unique(f"table-{tables}", page.ids)}
        elif token.type in ("fence", "code_block"):
            examples += 1
            token.meta = {"label": f"{_code_kind(token)} {examples}"}
        elif token.type == "th_open":
            token.attrs.pop("style", None)
            token.attrSet("scope", "col")
        elif token.type == "td_open":
            token.attrs.pop("style", None)
    return page


def _drop_comment_lines(text: str, markdown: MarkdownIt) -> str:
    """`text` with each line that is only an HTML comment made blank, outside code blocks."""
    lines = text.split("\n")
    code: set[int] = set()
    for token in markdown.parse(text):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
    return "\n".join(
        "" if index not in code and _COMMENT_LINE.fullmatch(line) else line
        for index, line in enumerate(lines)
    )


def _plain_text(inline: Token) -> str:
    """What a heading's inline content reads as: its text and code, no markup."""
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    ).strip()


def _slug(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation but `-` `_` dropped, spaces `-`."""
    return _NOT_IN_SLUG.sub("", heading.lower()).replace(" ", "-")


def _unique(wanted: str, taken: set[str]) -> str:
    """`wanted`, or GitHub's `wanted-1`, `wanted-2`... when a heading before took it."""
    candidate, number = wanted, 0
    while candidate in taken or candidate == "main":
        number += 1
        candidate = f"{wanted}-{number}"
    taken.add(candidate)
    return candidate


def _code_kind(token: Token) -> str:
    """What a code block is called: `yaml example`, or `Example` with no info string."""
    kind = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
    return f"{kind} example" if kind else "Example"


def _rewrite_links(inline: Token, page: _Parsed, pages: dict[str, _Parsed]) -> None:
    line = inline.map[0] + 1 if inline.map else None
    for child in inline.children or []:
        if child.type == "image":
            message = "an image: the site carries no images from docs/"
            raise ConfigErrors([ConfigError(page.path, message, line=line)])
        if child.type != "link_open":
            continue
        target = str(child.attrGet("href") or "")
        try:
            child.attrSet("href", _site_address(target, page, pages))
        except ValueError as problem:
            raise ConfigErrors([ConfigError(page.path, str(problem), line=line)]) from None


def _site_address(target: str, page: _Parsed, pages: dict[str, _Parsed]) -> str:
    """Where a link of a docs page leads on the site.

    Raises:
        ValueError: it leads to a file the site does not render, or a heading no page has.
    """
    if _SCHEME.match(target) or target.startswith("//"):
        return target
    path, _, anchor = target.partition("#")
    where = posixpath.normpath(posixpath.join("docs", path)) if path else ""
    if where == "README.md":
        return INDEX
    linked = page if not path else pages.get(where.removeprefix("docs/"))
    if linked is None or (path and posixpath.dirname(where) != "docs"):
        raise ValueError(f"links to {target}: not a page the site renders")
    if anchor and anchor not in linked.ids:
        raise ValueError(f"links to {target}: no heading makes #{anchor}")
    address = page_file(linked.path) if path else ""
    return f"{address}#{anchor}" if anchor else address


def _table_open(
    _renderer: Any, tokens: Sequence[Token], index: int, _options: Any, _env: Any
) -> str:
    meta = tokens[index].meta
    caption_id = escape(meta["id"])
    return (
        f'<section class="table-wrap" aria-labelledby="{caption_id}" tabindex="0">\n'
        f'<table>\n<caption id="{caption_id}">{escape(meta["caption"])}</caption>\n'
    )


def _table_close(*_args: Any) -> str:
    return "</table>\n</section>\n"


def _code_block(
    _renderer: Any, tokens: Sequence[Token], index: int, _options: Any, _env: Any
) -> str:
    token = tokens[index]
    return (
        f'<section class="code-wrap" aria-label="{escape(token.meta["label"])}" tabindex="0">\n'
        f"<pre><code>{escape(token.content)}</code></pre>\n</section>\n"
    )
