"""The typer app: the root options, and every command registered in the order `--help` lists.

Each command lives in its own module, turns its options into a parse result (the flag
rules: which go together, which need which), calls the `build_*` functions that live beside
what they build (`gauntlet.targets.build`, `gauntlet.evidence.build`,
`gauntlet.render.github`), and executes. Library errors name the library's parameters;
`gauntlet.cli.options.named_options` words them as the flags the user typed.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gauntlet.cli.calibrate_command import calibrate
from gauntlet.cli.commands import init, inventory, probe, schema, site, validate
from gauntlet.cli.example_app import example_app
from gauntlet.cli.history_app import history_app
from gauntlet.cli.options import echo
from gauntlet.cli.report_command import report
from gauntlet.cli.run_command import merge, run_command
from gauntlet.cli.state import Invocation
from gauntlet.cli.toy_app import toy_app
from gauntlet.version import __version__

# Each command imports what it needs when it runs: `--help` stays fast, and a run against
# the toy never loads the HTTP client.

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
    context_settings={"help_option_names": ["-h", "--help"]},  # as _CONTEXT below
)


def _version(value: bool) -> None:
    if value:
        echo(f"gauntlet {__version__}")
        raise typer.Exit


@app.callback()
def _main(
    show_traceback: Annotated[
        bool,
        typer.Option(
            "--traceback",
            help="On an internal error, show the Python traceback (taken anywhere on the line, "
            "after a command's own options too).",
            hidden=False,
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    # `run_args` takes `--traceback` out of the line wherever it is; this is for help and
    # for the app called without it.
    if show_traceback:
        Invocation.show_traceback = True


app.command()(validate)
app.command()(init)
app.command("run")(run_command)
app.command()(merge)
app.command()(probe)
app.command()(inventory)
app.add_typer(toy_app, name="toy")
app.command()(report)
app.command()(calibrate)
app.command()(schema)
app.command()(site)
app.add_typer(history_app, name="history")
app.add_typer(example_app, name="example")


def plain_flags_command() -> Any:
    """The app as typer's click runs it, every flag (`--help` among them) shown without `<bool>`.

    typer's help prints an option's type beside it unless the option has a metavar; a flag
    takes no value, so each gets an empty one.
    """
    command = typer.main.get_command(app)
    _plain_flags(command, typer.Context(command, **_CONTEXT))
    return command


_CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _plain_flags(command: Any, ctx: typer.Context) -> None:
    help_option = command.get_help_option(ctx)
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    for name, sub in getattr(command, "commands", {}).items():
        _plain_flags(sub, typer.Context(sub, info_name=name, parent=ctx, **_CONTEXT))
