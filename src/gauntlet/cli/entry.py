"""Everything `gauntlet` does but `--version`: checks the arguments, dispatches, maps errors.

`run_args` answers a plainly written `gauntlet validate` itself, without typer or rich (which
cost more than the rest of the start-up together); everything else, help included, goes to
the typer app in `gauntlet.cli.app`, which words every usage error. Every `GauntletError` is
reported here and becomes exit 2; anything else is an internal error, never a traceback
unless `--traceback` asks for one.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from gauntlet.cli.state import Invocation
from gauntlet.display import printable, unencodable
from gauntlet.errors import ExitCode, GauntletError, UsageError, describe_raised
from gauntlet.redact import Redactor

__all__ = ["run_args"]

_INTERRUPTED = 130
"""The status typer gives Ctrl-C outside a run."""


def run_args(args: list[str]) -> int:
    """Run the command line with `args` and return the exit code."""
    Invocation.show_traceback = False
    Invocation.redactor = Redactor(on_unmasked=_note_unmasked)
    previous = _terminate_like_interrupt()
    try:
        _check_arguments(args)
        args = _take_traceback(args)
        status = _dispatch(args)
        if status == _INTERRUPTED:
            # typer turns Ctrl-C outside a run into 130; the contract has 2 for "could not
            # finish" (an interrupted run records itself and exits 2 on its own).
            _stderr_line("interrupted")
            return ExitCode.HARNESS_ERROR
        return status
    except GauntletError as error:
        from gauntlet.cli.console import report_error, stderr

        report_error(error, stderr())
        return ExitCode.HARNESS_ERROR
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM before a command's own handling began (while it was importing).
        _stderr_line("interrupted")
        return ExitCode.HARNESS_ERROR
    except OSError as failed:
        _traceback_if_asked()
        if _machine_refused(failed):
            # The machine refused the harness a file (a full disk, a size limit, a permission):
            # what happened, not "a bug in gauntlet".
            _stderr_line(f"error: {_os_error(failed)}")
        else:
            _stderr_line(_internal_error(failed))
        return ExitCode.HARNESS_ERROR
    except Exception as bug:  # the last line of defence: never a bare traceback
        _traceback_if_asked()
        _stderr_line(_internal_error(bug))
        return ExitCode.HARNESS_ERROR
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


TRACEBACK = "--traceback"


def _take_traceback(args: list[str]) -> list[str]:
    """`args` without `--traceback`, which is noted wherever it stands before a `--`.

    The internal-error hint says "re-run with --traceback": added at the end of the command
    it must work, though typer knows it as an option of `gauntlet` only.
    """
    end = args.index("--") if "--" in args else len(args)
    if TRACEBACK not in args[:end]:
        return args
    Invocation.show_traceback = True
    return [arg for arg in args[:end] if arg != TRACEBACK] + args[end:]


def _traceback_if_asked() -> None:
    if Invocation.show_traceback:
        import traceback

        _stderr_line(traceback.format_exc())


_MACHINE_LIMITS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EMFILE, errno.ENFILE, errno.ENOMEM,
     errno.EIO, errno.EROFS}
)  # fmt: skip
"""What the machine runs short of, wherever it was met: a disk, a quota, descriptors."""


def _machine_refused(error: OSError) -> bool:
    """Whether `error` is the machine refusing the harness, not a bug of gauntlet's own.

    A limit (a full disk, no descriptors left) is the machine's wherever it is met; anything
    else only when the error names the path it was refused (a permission, a missing
    directory). An `OSError` naming no path (a socket reset, a bad descriptor) escaped a
    command that should have worded it: a bug, said as one.
    """
    named = error.filename is not None or error.filename2 is not None
    return named or error.errno in _MACHINE_LIMITS


def _internal_error(bug: BaseException) -> str:
    return (
        f"internal error: {describe_raised(bug)}\n"
        "  this is a bug in gauntlet; re-run with --traceback and report it"
    )


def _os_error(error: OSError) -> str:
    """`path: why` of an `OSError`, as the operating system said it."""
    if not error.strerror:
        return describe_raised(error)
    where = next(
        (str(name) for name in (error.filename, error.filename2) if name is not None), None
    )
    return f"{where}: {error.strerror}" if where else error.strerror


def _dispatch(args: list[str]) -> int:
    """The exit status of the command `args` name: by the fast path when there is one."""
    from gauntlet.cli.validate import execute_validate, parse_validate

    request = parse_validate(args)
    if request is None:
        return _typer(args)
    try:
        execute_validate(request)
    except KeyboardInterrupt:
        return _INTERRUPTED
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # As click does when the reader of stdout goes away: quietly, exit 1.
        _quiet_stdout()
        return 1
    return ExitCode.PASS


def _quiet_stdout() -> None:
    """Send what stdout still holds to nowhere, so flushing it at exit raises nothing."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _typer(args: list[str]) -> int:
    from gauntlet.cli.app import plain_flags_command

    command = plain_flags_command()
    try:
        # standalone mode: typer prints usage errors itself and exits 2, as click always has.
        command.main(args=args, prog_name="gauntlet")
    except SystemExit as done:
        return _exit_status(done.code)
    return ExitCode.PASS  # pragma: no cover - standalone mode always exits


def _stderr_line(text: str) -> None:
    from gauntlet.cli.console import stderr

    stderr().print(text, markup=False)


def _note_unmasked(what: str) -> None:
    """Print the note for a secret too short to mask (rich is imported only if one is)."""
    from gauntlet.cli.console import note_unmasked

    note_unmasked(what)


def _check_arguments(args: Sequence[str]) -> None:
    """Refuse an argument that is not UTF-8 text before it reaches a path, a URL or a file.

    Python hands such bytes over as lone surrogates, which no results file can hold.
    """
    for number, arg in enumerate(args, start=1):
        if unencodable(arg) is not None:
            raise UsageError(f"argument {number} ('{printable(arg)}') is not valid UTF-8")


def _terminate_like_interrupt() -> Any:
    """Make SIGTERM end the command as Ctrl-C does (exit 2, "interrupted"), whatever it is doing.

    By default SIGTERM kills the process at once, with no word and exit 143: a cancelled CI job
    loading a large suite would leave nothing behind that says why. While a run asks its
    target, the engine catches both signals itself and records the run as interrupted. Returns
    the handler to put back, or `None` off the main thread (where no handler can be set).
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt


def _exit_status(code: object) -> int:
    if code is None:
        return ExitCode.PASS
    if isinstance(code, int):
        return code
    _stderr_line(str(code))  # pragma: no cover - typer exits with ints
    return ExitCode.HARNESS_ERROR  # pragma: no cover
