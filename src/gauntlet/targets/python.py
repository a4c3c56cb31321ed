"""Python targets: `module.path:factory` (`--callable`), imported from the working directory."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import cast

from gauntlet.display import unencodable
from gauntlet.errors import Parameter, TargetImportError
from gauntlet.targets.contract import Target

EXPECTED = "an object with `name: str` and `ask(prompt, language)` returning a TargetResponse"

_SPEC = Parameter("spec")
"""The parameter every error here is about; the command line words it as `--callable`."""


def load_callable_target(spec: str, *, search: Path | None = None) -> Target:
    """Import `module.path:factory`, call the factory with no arguments and check the result.

    Args:
        spec: `module.path:factory`, e.g. `myapp.assistant:make_target`.
        search: A directory put first on `sys.path` while importing (default: the working
            directory), so a project's own modules are found.

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
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is the user's to see
        raise TargetImportError(
            *label, f": cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        if added:
            sys.path.remove(root)
    factory = getattr(module, attribute, None)
    if factory is None:
        raise TargetImportError(*label, f": {module_name} has no {attribute!r}")
    if not callable(factory):
        raise TargetImportError(
            *label, f": {attribute} is not a factory (type {type(factory).__name__})"
        )
    try:
        target = factory()
    except Exception as exc:  # noqa: BLE001
        raise TargetImportError(
            *label, f": calling {attribute}() failed: {type(exc).__name__}: {exc}"
        ) from exc
    return check_target(target, label)


def check_target(target: object, label: str | tuple[str | Parameter, ...]) -> Target:
    """Return `target` if it keeps the `Target` protocol, else say what is missing.

    Args:
        target: What a factory gave.
        label: What gave it, starting every message: text, or parts naming a `Parameter`.

    Raises:
        TargetImportError: naming the missing or wrong attribute.
    """
    said = (label,) if isinstance(label, str) else label
    name = getattr(target, "name", None)
    ask = getattr(target, "ask", None)
    what = type(target).__name__
    if not isinstance(name, str) or not name.strip():
        raise TargetImportError(*said, f" gave a {what} without a `name` text; expected {EXPECTED}")
    garbled = unencodable(name)
    if garbled is not None:  # the name is written to the results file
        raise TargetImportError(*said, f" gave a {what} whose `name` {garbled}")
    if not callable(ask):
        raise TargetImportError(
            *said, f" gave a {what} without an `ask` method; expected {EXPECTED}"
        )
    try:
        inspect.signature(ask).bind("prompt", "language")
    except (TypeError, ValueError) as exc:
        raise TargetImportError(
            *said, f": {what}.ask cannot be called as ask(prompt, language): {exc}"
        ) from None
    return cast(Target, target)
