"""Render the documentation site: Jinja2 templates over `SiteContent`, plus one stylesheet."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from gauntlet.files import write_atomically
from gauntlet.run.tally import side_groups
from gauntlet.site import dashboard as board
from gauntlet.site.content import SiteContent, gather_content
from gauntlet.site.markup import inline_code
from gauntlet.words import number_word, plural

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

DOC_TEMPLATE = "doc.html.j2"
"""The layout of each Documentation page (`docs/*.md`), listed in the navigation's own group."""

DASHBOARD_PAGE = Page("dashboard.html", "Run history", "Run history")
"""Built, and added to the navigation, only when the site is built with a run history."""


def build_site(
    out: Path,
    *,
    generated: date | None = None,
    cases: list[Path] | None = None,
    dashboard: board.Dashboard | None = None,
) -> list[Path]:
    """Render every page and the stylesheet into `out`, and return the files written.

    Reads no clock: the pages show `generated` only when it is given, and the toy runs use a
    fixed one, so the same commit and the same suites render byte-identical files.

    Args:
        out: The directory to write to; created when missing.
        generated: The date to print in each page's footer, if any.
        cases: Case directories or files to document instead of the built-in suites.
        dashboard: A run history and its statistics: adds `dashboard.html` and a page per run.

    Raises:
        ConfigErrors: a case file or `action.yml` could not be loaded.
        OSError: `out` cannot be written.
    """
    content = gather_content(cases)
    pages = render_pages(content, generated=generated, dashboard=dashboard)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in pages.items():
        # Replaced, not rewritten, so a symlink planted at `index.html` is not written
        # through; created as `open` would (umask applied), so a web server can read it.
        write_atomically(out / name, text, mode=0o666)
        written.append(out / name)
    return written


def render_pages(
    content: SiteContent,
    *,
    generated: date | None = None,
    dashboard: board.Dashboard | None = None,
) -> dict[str, str]:
    """Every file of the site by name, as text. Pure: the same content gives the same text."""
    environment = make_environment()
    navigation = PAGES if dashboard is None else (*PAGES, DASHBOARD_PAGE)
    common = {
        "pages": navigation,
        "content": content,
        "stylesheet": STYLESHEET,
        "generated": generated.isoformat() if generated else None,
    }
    rendered = {
        page.file: environment.get_template(page.template).render(page=page, **common)
        for page in PAGES
    }
    doc_template = environment.get_template(DOC_TEMPLATE)
    for doc in content.docs:
        page = Page(doc.file, doc.title, doc.title)
        rendered[doc.file] = doc_template.render(page=page, doc=doc, **common)
    rendered[STYLESHEET] = (STATIC / STYLESHEET).read_text(encoding="utf-8")
    if dashboard is not None:
        rendered.update(
            render_dashboard(
                environment, dashboard, content=content, generated=generated, pages=navigation
            )
        )
    return rendered


def render_dashboard(
    environment: Environment,
    dashboard: board.Dashboard,
    *,
    content: SiteContent,
    generated: date | None,
    pages: tuple[Page, ...],
) -> dict[str, str]:
    """`dashboard.html` and one `run-<number>.html` per stored run."""
    common = {
        "pages": pages,
        "content": content,
        "stylesheet": STYLESHEET,
        "generated": generated.isoformat() if generated else None,
    }
    runs = [view.run.number for view in dashboard.runs]
    rendered = {
        DASHBOARD_PAGE.file: environment.get_template(DASHBOARD_PAGE.template).render(
            page=DASHBOARD_PAGE,
            dashboard=dashboard,
            pass_charts=[board.layout_chart(spec, runs) for spec in dashboard.pass_rates],
            latency_chart=board.layout_chart(dashboard.latency, runs),
            tokens_chart=board.layout_chart(dashboard.tokens, runs),
            first_token_charts=[board.layout_chart(spec, runs) for spec in dashboard.first_token],
            **common,
        )
    }
    template = environment.get_template("run.html.j2")
    for view in dashboard.runs:
        title = f"Run {view.run.number}"
        rendered[view.file] = template.render(
            page=Page(view.file, title, title),
            view=view,
            gates=dashboard.gates,
            languages=dashboard.languages,
            **common,
        )
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
    environment.filters["plural"] = plural
    environment.filters["number_word"] = number_word
    environment.filters["when"] = board.when
    environment.filters["verdict"] = board.verdict
    environment.filters["labels"] = board.labels
    environment.filters["metric"] = board.metric
    environment.filters["side_groups"] = side_groups
    return environment


def _percent(value: float) -> str:
    return f"{value:.0%}" if value in (0, 1) else f"{value:.2%}"
