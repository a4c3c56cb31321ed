"""Render the documentation site: Jinja2 templates over `SiteContent`, plus one stylesheet."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from gauntlet.files import write_atomically
from gauntlet.site.content import SiteContent, gather_content
from gauntlet.site.markup import inline_code

_HERE = Path(__file__).resolve().parent
TEMPLATES = _HERE / "templates"
STATIC = _HERE / "static"
STYLESHEET = "site.css"


@dataclass(frozen=True)
class Page:
    """One page of the site."""

    file: str
    """The file name, also its address relative to the site's root."""
    title: str
    """The page's `<h1>` and the start of its `<title>`."""
    label: str
    """The page's name in the navigation."""

    @property
    def template(self) -> str:
        """The template that renders it: `index.html` is rendered from `index.html.j2`."""
        return f"{self.file}.j2"


PAGES: tuple[Page, ...] = (
    Page("index.html", "gauntlet: a merge-blocking gate for generative-AI features", "Home"),
    Page("quickstart.html", "Quickstart", "Quickstart"),
    Page("gates.html", "Gates and the self-test", "Gates"),
    Page("inventory.html", "Gate inventory", "Inventory"),
    Page("evidence.html", "The evidence pack", "Evidence pack"),
    Page("parity-waivers.html", "Language parity and waivers", "Parity and waivers"),
    Page("exit-codes.html", "Exit codes", "Exit codes"),
    Page("california.html", "California mapping", "California mapping"),
    Page("action.html", "The GitHub Action", "GitHub Action"),
)
"""Every page, in navigation order."""


def build_site(
    out: Path, *, generated: date | None = None, cases: list[Path] | None = None
) -> list[Path]:
    """Render every page and the stylesheet into `out`, and return the files written.

    Reads no clock: the pages show `generated` only when it is given, and the toy runs use a
    fixed one, so the same commit and the same suites render byte-identical files.

    Args:
        out: The directory to write to; created when missing.
        generated: The date to print in each page's footer, if any.
        cases: Case directories or files to document instead of the built-in suites.

    Raises:
        ConfigErrors: a case file or `action.yml` could not be loaded.
        OSError: `out` cannot be written.
    """
    content = gather_content(cases)
    pages = render_pages(content, generated=generated)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in pages.items():
        # Replaced, not rewritten, so a symlink planted at `index.html` is not written
        # through; created as `open` would (umask applied), so a web server can read it.
        write_atomically(out / name, text, mode=0o666)
        written.append(out / name)
    return written


def render_pages(content: SiteContent, *, generated: date | None = None) -> dict[str, str]:
    """Every file of the site by name, as text. Pure: the same content gives the same text."""
    environment = make_environment()
    rendered = {
        page.file: environment.get_template(page.template).render(
            page=page,
            pages=PAGES,
            content=content,
            stylesheet=STYLESHEET,
            generated=generated.isoformat() if generated else None,
        )
        for page in PAGES
    }
    rendered[STYLESHEET] = (STATIC / STYLESHEET).read_text(encoding="utf-8")
    return rendered


def make_environment() -> Environment:
    """The Jinja2 environment: autoescaping on, undefined names an error, the site's filters."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["inline_code"] = inline_code
    environment.filters["percent"] = _percent
    return environment


def _percent(value: float) -> str:
    return f"{value:.0%}" if value in (0, 1) else f"{value:.2%}"
