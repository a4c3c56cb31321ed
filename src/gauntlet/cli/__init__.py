"""The command line: the only package that reads argv, prints and chooses an exit code.

`main` -> `run(argv)` -> a parse result -> `build_*` functions beside what they build
(`gauntlet.targets.build`, `gauntlet.evidence.build`, `gauntlet.render.github`) -> execute.
Each command imports what it needs when it runs: `gauntlet --version` is answered here before
anything else is imported, a plainly written `gauntlet validate` without typer or rich
(`gauntlet.cli.entry`), and every other command by the typer app (`gauntlet.cli.app`).
"""

from __future__ import annotations

import sys
from os import environ

TYPE_CHECKING = False  # typing itself costs more than the whole of `gauntlet --version`
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run"]


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` and return the exit code instead of exiting."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if args == ["--version"] and sys.stdout is not None and "_GAUNTLET_COMPLETE" not in environ:
        from gauntlet.version import __version__

        # As the typer app's eager `--version` prints it: one line, exit 0.
        try:
            sys.stdout.write(f"gauntlet {__version__}\n")
            sys.stdout.flush()
        except OSError:
            pass  # a closed pipe, a full disk: the full command line says so, as it always has
        else:
            return 0
    from gauntlet.cli.entry import run_args

    return run_args(args)


def main() -> None:
    """Console-script entry point."""
    status = run()
    if "gauntlet.cli.entry" in sys.modules:  # a command ran: what it loaded is left as is
        from gauntlet.cli.collector import leave_to_the_system

        leave_to_the_system()  # the process ends here
    sys.exit(status)
