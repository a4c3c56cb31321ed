"""Python targets: `module.path:factory` (`--callable`), imported from the working directory."""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from gauntlet.errors import GauntletError, Parameter, TargetImportError, describe_raised
from gauntlet.targets.adapters import CallableTarget, NotATargetError

_SPEC = Parameter("spec")
"""The parameter every error here is about; the command line words it as `--callable`."""


def load_callable_target(
    spec: str, *, search: Path | None = None, concurrency: int = 8
) -> CallableTarget:
    """Import `module.path:factory`, call the factory with no arguments and adapt the result.

    Args:
        spec: `module.path:factory`, e.g. `myapp.assistant:make_target`.
        search: A directory put first on `sys.path` while importing (default: the working
            directory), so a project's own modules are found.
        concurrency: Threads for a plain `ask` (see `CallableTarget`).

    Anything the module, the factory or the object it gives raises (`SystemExit` and every
    other `BaseException` among them) is a `TargetImportError`: a target cannot end the run.
    Only the user's own Ctrl-C or SIGTERM, a signal that arrived while its code ran, still
    interrupts (as `KeyboardInterrupt`); a `KeyboardInterrupt` the code raised itself does not.

    Raises:
        TargetImportError: the spec is malformed, the import or the call failed, or the
            result is not a target; about the parameter `spec`.
    """
    label = (_SPEC, f" {spec!r}")
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetImportError(*label, ": expected module.path:factory")
    root = str((search or Path.cwd()).resolve())
    added = root not in sys.path
    if added:
        sys.path.insert(0, root)
    try:
        with target_code(*label, f": cannot import {module_name}: "):
            module = importlib.import_module(module_name)
    finally:
        if added:
            sys.path.remove(root)
    with target_code(*label, f": looking up {attribute} failed: "):
        factory = getattr(module, attribute, None)
        if factory is None:
            raise TargetImportError(*label, f": {module_name} has no {attribute!r}")
        if not callable(factory):
            raise TargetImportError(
                *label, f": {attribute} is not a factory (type {type(factory).__name__})"
            )
    with target_code(*label, f": calling {attribute}() failed: "):
        target = factory()
    with target_code(*label, ": checking what it gave failed: "):
        try:
            return CallableTarget(target, concurrency=concurrency)
        except NotATargetError as exc:
            raise TargetImportError(*label, exc.problem) from None


@contextlib.contextmanager
def target_code(*said: str | Parameter) -> Iterator[None]:
    """Run a Python target's own code: whatever it raises becomes a `TargetImportError`.

    The error's message is `said` followed by what was raised (`SystemExit: 0`). A
    `GauntletError` passes as it is (one of our own checks, or a target file's error); so
    does a `KeyboardInterrupt` that a signal delivered while the code ran (the user's Ctrl-C
    or a SIGTERM), and only that one.
    """
    with _signals_noted() as arrived:
        try:
            yield
        except GauntletError:
            raise
        except KeyboardInterrupt as exc:
            if arrived:
                raise
            raise TargetImportError(*said, describe_raised(exc)) from None
        except BaseException as exc:  # a target cannot end the run
            raise TargetImportError(*said, describe_raised(exc)) from None


@contextlib.contextmanager
def _signals_noted() -> Iterator[list[int]]:
    """Note each SIGINT or SIGTERM that arrives, then let it act as its handler says.

    Off the main thread no handler can be set; there, no signal is ever noted, so every
    `KeyboardInterrupt` is the code's own (a signal is delivered to the main thread only).
    """
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}

    def note(number: int, frame: FrameType | None) -> None:
        arrived.append(number)
        handler = before[signal.Signals(number)]
        if callable(handler):
            handler(number, frame)
        elif handler != signal.SIG_IGN:
            raise KeyboardInterrupt

    for number in before:
        signal.signal(number, note)
    try:
        yield arrived
    finally:
        for number, handler in before.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
