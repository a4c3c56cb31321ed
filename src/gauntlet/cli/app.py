"""The typer app: the root options, and every command registered in the order `--help` lists.

Each command lives in its own module, turns its options into a parse result (the flag
rules: which go together, which need which), calls the `build_*` functions that live beside
what they build (`gauntlet.targets.build`, `gauntlet.evidence.build`,
`gauntlet.render.github`), and executes. Library errors name the library's parameters;
`gauntlet.cli.options.named_options` words them as the flags the user typed.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer

from gauntlet.cli.options import echo
from gauntlet.cli.state import Invocation
from gauntlet.version import __version__

# Each command imports what it needs when it runs: `--help` stays fast, and a run against
# the toy never loads the HTTP client.

COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("gauntlet.cli.commands", "validate"),
    "init": ("gauntlet.cli.commands", "init"),
    "run": ("gauntlet.cli.run_command", "run_command"),
    "merge": ("gauntlet.cli.run_command", "merge"),
    "explore": ("gauntlet.cli.explore_command", "explore_command"),
    "probe": ("gauntlet.cli.commands", "probe"),
    "inventory": ("gauntlet.cli.commands", "inventory"),
    "report": ("gauntlet.cli.report_command", "report"),
    "calibrate": ("gauntlet.cli.calibrate_command", "calibrate"),
    "schema": ("gauntlet.cli.commands", "schema"),
    "site": ("gauntlet.cli.commands", "site"),
    "toy": ("gauntlet.cli.toy_app", "toy_app"),
    "history": ("gauntlet.cli.history_app", "history_app"),
    "example": ("gauntlet.cli.example_app", "example_app"),
}
"""Every command, in the order `--help` lists them: its name, its module and the function (or,
for a group of commands, the typer app) there. A command's module is imported, and its
options built, only when the command line names it or `--help` lists it: a run pays for no
other command (calibrate's, the history's, the toy judge's), nor for their options."""


class _Loaded(MutableMapping[str, Any]):
    """The commands by name, each loaded from `COMMANDS` when it is first looked up.

    Names alone (what `--help` lists, what "did you mean" is chosen from) load nothing.
    """

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self._loaded[name] = _load(name)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("gauntlet's commands are fixed")

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(COMMANDS), **self._loaded})

    def __len__(self) -> int:
        return len({**dict.fromkeys(COMMANDS), **self._loaded})


class _Commands(typer.core.TyperGroup):
    """gauntlet's commands, each loaded the first time it is looked up."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.commands = _Loaded()

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names: listing loads nothing


def _load(name: str) -> Any:
    """The click command `name` runs, built by typer as `app.command()`/`app.add_typer` would."""
    module, attribute = COMMANDS[name]
    found = getattr(importlib.import_module(module), attribute)
    command: Any
    if isinstance(found, typer.Typer):
        command = typer.main.get_group(found)
    else:
        one = typer.Typer(rich_markup_mode="markdown", add_completion=False)
        one.command(name)(found)
        command = typer.main.get_command(one)
    command.name = name
    _plain_flags(command, typer.Context(command, info_name=name, **_CONTEXT))
    return command


app = typer.Typer(
    cls=_Commands,
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
    commands = getattr(command, "commands", {})
    if isinstance(commands, _Loaded):
        return  # each command is made plain as it is loaded
    for name, sub in commands.items():
        _plain_flags(sub, typer.Context(sub, info_name=name, parent=ctx, **_CONTEXT))
