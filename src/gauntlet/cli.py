"""The command line: the only module that reads argv, prints and chooses an exit code."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from gauntlet import __version__
from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.cases.model import case_file_schema
from gauntlet.errors import ConfigErrors, ExitCode, GauntletError

app = typer.Typer(
    name="gauntlet",
    help=(
        "A merge-blocking evaluation gate for generative-AI features.\n\n"
        "Exit codes: 0 every gate passed; 1 a gate failed; 2 the harness could not run "
        "(bad flags, bad case files); 4 unscoreable (unreadable answers)."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _Options:
    """Options of the top-level callback that `run` needs after the command ends."""

    show_traceback = False


def _stdout() -> Console:
    # soft_wrap: never break a `path:line:column` line to fit a terminal or a CI log.
    return Console(highlight=False, soft_wrap=True)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gauntlet {__version__}")
        raise typer.Exit


@app.callback()
def _main(
    show_traceback: Annotated[
        bool,
        typer.Option(
            "--traceback", help="On an internal error, show the Python traceback.", hidden=False
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    _Options.show_traceback = show_traceback


CasesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--cases",
        metavar="PATH",
        help="A directory of *.yaml case files (searched recursively) or one case file. "
        "Repeatable. Default: the built-in suites.",
        show_default=False,
    ),
]


def _load(cases: list[Path] | None) -> SuiteSet:
    if cases:
        return load_suites(cases)
    builtin = builtin_suites_dir()
    if builtin.is_relative_to(Path.cwd()):
        builtin = builtin.relative_to(Path.cwd())  # shorter locations in a checkout
    return load_suites([builtin])


@app.command()
def validate(cases: CasesOption = None) -> None:
    """Load case files strictly and report every problem, each as path:line:column.

    Exits 0 when every file loads, printing the cases per gate and language; exits 2 when any
    file has a problem, after listing all of them.
    """
    suites = _load(cases)
    out = _stdout()
    counts = suites.counts()
    width = max(len(gate.value) for gate in counts)
    for gate, count in counts.items():
        languages = "  ".join(f"{lang} {n}" for lang, n in count.languages.items())
        suites_word = "suite" if count.suites == 1 else "suites"
        out.print(
            f"{gate.value:<{width}}  {count.suites} {suites_word}  {count.cases:>4} cases  "
            f"{languages}",
            markup=False,
        )
    total_suites = len(suites.suites)
    out.print(
        f"OK: {total_suites} {'suite' if total_suites == 1 else 'suites'}, "
        f"{suites.case_total} cases",
        markup=False,
    )


class SchemaName(StrEnum):
    """The JSON Schemas `gauntlet schema` can print."""

    CASES = "cases"


@app.command()
def schema(
    name: Annotated[SchemaName, typer.Argument(help="Which schema: 'cases' for a case file.")],
) -> None:
    """Print a JSON Schema generated from gauntlet's models (for editors and other tools).

    The committed copy is schemas/cases.schema.json; point your editor's YAML language server
    at it to get completion and checking while you write case files.
    """
    match name:
        case SchemaName.CASES:
            typer.echo(json.dumps(case_file_schema(), indent=2, ensure_ascii=False))


def _report(error: GauntletError, err: Console) -> None:
    if isinstance(error, ConfigErrors):
        for problem in error.errors:
            line = Text.assemble((problem.location, "bold"), ": ", problem.message)
            err.print(line)
            if problem.hint:
                err.print(Text(f"  hint: {problem.hint}", style="dim"))
        files = {problem.path for problem in error.errors}
        err.print(
            f"{len(error.errors)} {'problem' if len(error.errors) == 1 else 'problems'} "
            f"in {len(files)} {'file' if len(files) == 1 else 'files'}; nothing was run.",
            markup=False,
        )
    else:  # pragma: no cover - every GauntletError raised so far is a ConfigErrors
        err.print(f"error: {error}", markup=False)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` and return the exit code instead of exiting."""
    _Options.show_traceback = False
    err = _stderr()
    try:
        # standalone mode: typer prints usage errors itself and exits 2, as click always has.
        app(args=list(argv) if argv is not None else None, prog_name="gauntlet")
    except SystemExit as done:
        return _exit_status(done.code)
    except GauntletError as error:
        _report(error, err)
        return ExitCode.HARNESS_ERROR
    except Exception as bug:  # noqa: BLE001 - the last line of defence: never a bare traceback
        if _Options.show_traceback:
            err.print(traceback.format_exc(), markup=False)
        err.print(
            f"internal error: {type(bug).__name__}: {bug}\n"
            "  this is a bug in gauntlet; re-run with --traceback and report it",
            markup=False,
        )
        return ExitCode.HARNESS_ERROR
    return ExitCode.PASS


def _exit_status(code: object) -> int:
    if code is None:
        return ExitCode.PASS
    if isinstance(code, int):
        return code
    _stderr().print(str(code), markup=False)  # pragma: no cover - typer exits with ints
    return ExitCode.HARNESS_ERROR  # pragma: no cover


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())
