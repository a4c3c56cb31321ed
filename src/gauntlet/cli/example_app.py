"""`gauntlet example target NAME`: print a shipped example target file, ready to edit."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gauntlet.cli.options import echo

example_app = typer.Typer(
    help="Print the example files gauntlet ships, to start your own from. Exit codes: 0 "
    "printed; 2 an unknown name.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)


@example_app.command("target")
def example_target(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="llama-cpp, vllm, ollama, litellm, openai or azure.",
            show_default=False,
        ),
    ] = None,
    list_names: Annotated[
        bool,
        typer.Option("--list", help="List the names, each with the file it prints."),
    ] = False,
) -> None:
    """Print the example target file for a server, byte for byte as shipped.

    `gauntlet example target llama-cpp > target.yaml` writes the file the README quotes and
    `make real-llm` runs. Each file names, in its comments, the flags its server needs.
    """
    from gauntlet.errors import UsageError
    from gauntlet.targets.examples import EXAMPLE_TARGETS, example_target_path

    if list_names:
        if name is not None:
            raise UsageError("give a NAME or --list, not both")
        for known, file in EXAMPLE_TARGETS.items():
            echo(f"{known}\t{file}")
        return
    if name is None:
        known = ", ".join(EXAMPLE_TARGETS)
        raise UsageError(f"name an example target (or --list): {known}")
    data = example_target_path(name).read_bytes()
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
