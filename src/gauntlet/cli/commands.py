"""The commands that read suites and files: validate, probe, inventory, schema, site, init."""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gauntlet.cli.console import stderr, stdout
from gauntlet.cli.options import (
    CasesOption,
    PersonasOption,
    WaiversOption,
    echo,
)
from gauntlet.cli.state import Invocation
from gauntlet.cli.validate import (
    ValidateRequest,
    execute_validate,
    load_cases,
)
from gauntlet.display import printable
from gauntlet.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from gauntlet.semantic.fingerprint import EmbedderFingerprint
    from gauntlet.targets.target_file import LoadedEmbedder


def validate(
    cases: CasesOption = None, waivers: WaiversOption = None, personas: PersonasOption = None
) -> None:
    """Load case files (or persona files) strictly and report every problem as path:line:column.

    Exits 0 when every file loads, printing the cases per gate and language; exits 2 when any
    file has a problem, after listing all of them. With --waivers, the waivers file is
    checked too, against the suites and today's date (UTC). With --personas, the persona
    files are checked and listed; with --personas alone, only they are.
    """
    execute_validate(ValidateRequest(cases, waivers, personas))


def probe(
    target_file: Annotated[
        Path,
        typer.Option(
            "--target",
            metavar="FILE",
            help="The target file to try.",
            show_default=False,
        ),
    ],
    prompt: Annotated[
        str,
        typer.Option("--prompt", metavar="TEXT", help="What to ask."),
    ] = "What are the library's opening hours?",
    language: Annotated[
        str,
        typer.Option("--language", metavar="TAG", help="The prompt's language (BCP 47)."),
    ] = "en",
    cases: CasesOption = None,
) -> None:
    """Send one request through a target file and show what every field became, and why.

    Prints the request (secrets masked), the status, the start of the raw answer, and each
    contract field with its value and provenance (declared by the target, derived by which
    rule, or absent); then, for the suites of --cases (default: the built-in ones), which
    could run against this target and which would be refused, and why. Exit 0 when every
    field those suites need is supplied; 2 otherwise. A file of kind openai-embeddings (an
    embedder) gets its pre-flight ask instead: the model, dimension and host it answered as.
    """
    from gauntlet.cases.model import LANGUAGE_PATTERN
    from gauntlet.run.probe import probe_target, report_lines
    from gauntlet.targets.target_file import LoadedEmbedder, load_target_or_embedder_file

    if not re.fullmatch(LANGUAGE_PATTERN, language):
        raise UsageError(
            f"--language {printable(language)!s}: not a BCP 47 language tag, as a case's "
            "`language` is written (en, es, es-MX)"
        )
    loaded = load_target_or_embedder_file(target_file)
    if isinstance(loaded, LoadedEmbedder):
        _probe_embedder(loaded)
        return
    suites = load_cases(cases)
    report = probe_target(loaded, suites, prompt, language, Invocation.redactor)
    out = stdout()
    for line in report_lines(report, suites, Invocation.redactor):
        out.print(line, markup=False)
    if report.error is not None or report.problems:
        raise typer.Exit(ExitCode.HARNESS_ERROR)


def _probe_embedder(loaded: LoadedEmbedder) -> None:
    """`gauntlet probe --target` an embedder's file: its pre-flight ask, and what it said it is.

    Raises:
        EmbedderError: the server cannot be reached, or its answer is not a vector (exit 2).
    """
    import asyncio

    from gauntlet.semantic.remote import PROBE_TEXT, RemoteEmbedder

    embedder = RemoteEmbedder(loaded, redactor=Invocation.redactor)

    async def ask() -> EmbedderFingerprint:
        try:
            return await embedder.open()
        finally:
            await embedder.aclose()

    fingerprint = asyncio.run(ask())
    out = stdout()
    for line in (
        f"{loaded.source}: an embedder (kind openai-embeddings), for --embedder",
        f"POST {embedder.url} with 1 text ({PROBE_TEXT!r}): one vector",
        f"model      {fingerprint.model}",
        f"dimension  {fingerprint.dimension}",
        f"host       {fingerprint.host}",
    ):
        out.print(Invocation.redactor.text(line), markup=False)


class InventoryFormat(StrEnum):
    """Formats of `gauntlet inventory`."""

    MD = "md"
    JSON = "json"


def inventory(
    cases: CasesOption = None,
    output_format: Annotated[
        InventoryFormat, typer.Option("--format", help="Markdown table or JSON.")
    ] = InventoryFormat.MD,
    update: Annotated[
        Path | None,
        typer.Option(
            "--update",
            metavar="FILE",
            help="Rewrite the Markdown table between the inventory markers in FILE.",
        ),
    ] = None,
) -> None:
    """Count suites and cases per gate and language, from the suites as loaded."""
    from gauntlet.inventory import (
        render_inventory_json,
        render_inventory_markdown,
        update_file,
    )

    suites = load_cases(cases)
    if update is not None:
        changed = update_file(update, render_inventory_markdown(suites))
        stderr().print(f"{update}: {'updated' if changed else 'already up to date'}", markup=False)
        return
    match output_format:
        case InventoryFormat.MD:
            echo(render_inventory_markdown(suites), nl=False)
        case InventoryFormat.JSON:
            echo(render_inventory_json(suites), nl=False)


class SchemaName(StrEnum):
    """The JSON Schemas `gauntlet schema` can print."""

    CASES = "cases"
    EVIDENCE = "evidence"
    TARGET = "target"
    WAIVERS = "waivers"
    FEATURE = "feature"
    SIMILARITY_LABELS = "similarity-labels"
    SIMILARITY_CALIBRATION = "similarity-calibration"
    PERSONAS = "personas"


def schema(
    name: Annotated[
        SchemaName,
        typer.Argument(
            help="'cases' for a case file, 'evidence' for an evidence pack, "
            "'target' for a target file, 'waivers' for a waivers file, "
            "'feature' for a feature file (`gauntlet init`), "
            "'similarity-labels' for a similarity labels file, 'similarity-calibration' for "
            "a similarity calibration record, 'personas' for a persona file (`gauntlet "
            "explore`)."
        ),
    ],
) -> None:
    """Print a JSON Schema generated from gauntlet's models (for editors and other tools).

    The committed copies are in schemas/; point your editor's YAML language server at
    schemas/cases.schema.json (or target.schema.json) to get completion and checking while you
    write case files (or a target file).
    """
    match name:
        case SchemaName.CASES:
            from gauntlet.cases.model import case_file_schema

            document = case_file_schema()
        case SchemaName.EVIDENCE:
            from gauntlet.evidence.pack import evidence_schema

            document = evidence_schema()
        case SchemaName.TARGET:
            from gauntlet.targets.spec import target_file_schema

            document = target_file_schema()
        case SchemaName.WAIVERS:
            from gauntlet.cases.waivers import waivers_schema

            document = waivers_schema()
        case SchemaName.FEATURE:
            from gauntlet.cases.feature_file import feature_schema

            document = feature_schema()
        case SchemaName.SIMILARITY_LABELS:
            from gauntlet.semantic.labels import similarity_labels_schema

            document = similarity_labels_schema()
        case SchemaName.SIMILARITY_CALIBRATION:
            from gauntlet.semantic.calibration import similarity_record_schema

            document = similarity_record_schema()
        case SchemaName.PERSONAS:
            from gauntlet.cases.persona import persona_file_schema

            document = persona_file_schema()
    echo(json.dumps(document, indent=2, ensure_ascii=False))


def site(
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="The directory to write the site to.")
    ] = Path("site"),
    generated: Annotated[
        str | None,
        typer.Option(
            "--generated",
            metavar="YYYY-MM-DD",
            help="A date to print in every page's footer. Without it the build reads no clock, "
            "so the same commit renders byte-identical pages.",
            show_default=False,
        ),
    ] = None,
    cases: CasesOption = None,
    history: Annotated[
        Path | None,
        typer.Option(
            "--history",
            metavar="FILE",
            help="A run history (from `gauntlet run --history` or `gauntlet history add`): "
            "adds a Run history dashboard and a page per stored run.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Build the documentation site: static HTML and one stylesheet, no JavaScript.

    Every page is rendered from what the other commands use: the loaded suites, real runs
    against the toy, the evidence pack's reporter, the California mapping and action.yml.
    With --history, a dashboard of the stored runs too.
    """
    from datetime import date

    from gauntlet.site import build_site

    day = None
    if generated is not None:
        try:
            if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", generated):
                raise ValueError(generated)
            day = date.fromisoformat(generated)
        except ValueError:
            raise UsageError(
                f"--generated {generated!r}: expected a date as YYYY-MM-DD, e.g. 2026-11-30"
            ) from None
    dashboard = None
    if history is not None:
        from gauntlet.site.dashboard import load_dashboard

        dashboard = load_dashboard(history)
    try:
        written = build_site(out, generated=day, cases=cases, dashboard=dashboard)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror or exc}") from exc
    stderr().print(f"wrote {len(written)} files to {out}", markup=False)


def init(
    feature: Annotated[
        Path,
        typer.Option(
            "--feature",
            metavar="FILE",
            help="The feature file to write the pack from (see `gauntlet schema feature`).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="The directory to write the suites to.")
    ] = Path("suites"),
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace the pack's files where they exist already."),
    ] = False,
) -> None:
    """Write a starter attack pack for a feature: suites in every declared language, as peers.

    Reads the feature file strictly (its name, languages, canary, what must never appear,
    refused topics, legitimate requests, tools, escalation route and link hosts) and writes
    adversarial.yaml, refusal.yaml, crisis.yaml and false_positive.yaml into --out, checked
    by the case files' loader first. Exits 2, writing nothing, when the feature file has a
    problem or a file exists (unless --force). The files are meant to be edited.
    """
    from gauntlet.cases.attack_pack import write_pack

    written = write_pack(feature, out, force=force)
    err = stderr()
    for path in written.files:
        err.print(f"wrote {path}", markup=False)
    err.print(f"check them with: gauntlet validate --cases {out}", markup=False)
