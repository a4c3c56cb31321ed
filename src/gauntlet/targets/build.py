"""Build the one target a caller names: a target file, a URL, a Python factory, or the toy.

Each builder takes plain values (the command line has already parsed its flags and checked
which go together) and returns the target adapted to the engine's seam with what a run
records about it. Every secret the target holds is taught to the `Redactor` it is given,
which masks every line printed. Errors name the builder's own parameters (`url`,
`headers`, `spec`); the command line words them as its options.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.redact import Redactor

if TYPE_CHECKING:
    from gauntlet.targets.contract import AsyncTarget
    from gauntlet.targets.http import Header
    from gauntlet.targets.spec import TargetKind
    from gauntlet.targets.toy.defects import ToyDefect

__all__ = [
    "BuiltTarget",
    "build_callable_target",
    "build_file_target",
    "build_gauntlet_target",
    "build_toy_target",
]


class BuiltTarget(NamedTuple):
    """A target ready to ask, and what a run records about it."""

    target: AsyncTarget
    kind: TargetKind
    """The word the run records: `toy`, `callable` or `gauntlet` (`--http-url`) for a target
    named directly; a target file's own `kind` when `target_file` is set."""
    name: str
    """The target's name, any secret in it masked."""
    defects: tuple[str, ...] = ()
    """The toy's injected defects, in the order first given."""
    target_file: str | None = None
    """The target file, as the caller named it."""
    timeout: float | None = None
    """An HTTP target's deadline for one attempt; None for one that is not HTTP."""
    max_tokens: int | None = None
    """An openai-chat target file's `max_tokens`, when it sets one."""


def build_file_target(
    path: Path,
    *,
    timeout: float | None,
    retries: int | None,
    concurrency: int,
    redactor: Redactor,
    headers: Sequence[Header] = (),
) -> BuiltTarget:
    """The target the file at `path` describes; `timeout` and `retries` override its `http:`.

    `headers` are sent beside the file's own; one the file also writes is refused.

    Raises:
        ConfigErrors: the file cannot be read as a target file.
        UsageError: a URL, header or proxy that cannot be used.
    """
    from gauntlet.targets.configured import build_target
    from gauntlet.targets.spec import OpenAIChatSpec
    from gauntlet.targets.target_file import load_target_file

    loaded = load_target_file(path)
    http = loaded.spec.http
    changed = {
        key: value
        for key, value in (("timeout", timeout), ("retries", retries))
        if value is not None
    }
    if changed:
        spec = loaded.spec.model_copy(update={"http": http.model_copy(update=changed)})
        loaded = dataclasses.replace(loaded, spec=spec)
    target = build_target(loaded, concurrency=concurrency, redactor=redactor, extra_headers=headers)
    spec = loaded.spec
    return BuiltTarget(
        target,
        spec.kind,
        redactor.text(target.name),
        target_file=str(path),
        timeout=spec.http.timeout,
        max_tokens=spec.max_tokens if isinstance(spec, OpenAIChatSpec) else None,
    )


def build_gauntlet_target(
    url: str,
    headers: Sequence[Header],
    *,
    timeout: float | None,
    retries: int | None,
    concurrency: int,
    redactor: Redactor,
) -> BuiltTarget:
    """A deployed feature at `url` that speaks gauntlet's own contract.

    Raises:
        UsageError: the URL cannot be used, or it and `headers` both set `Authorization`
            (about the parameters `url` and `headers`).
    """
    from gauntlet.targets.http import GauntletTarget, HttpSettings

    settings = HttpSettings(
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        retries=DEFAULT_RETRIES if retries is None else retries,
    )
    http = GauntletTarget(
        url, headers=headers, settings=settings, concurrency=concurrency, redactor=redactor
    )
    return BuiltTarget(http, "gauntlet", redactor.text(http.name), timeout=settings.timeout)


def build_callable_target(spec: str, *, concurrency: int) -> BuiltTarget:
    """The Python target `spec` (`module.path:factory`) makes, imported from the working directory.

    Raises:
        TargetImportError: about the parameter `spec`.
    """
    from gauntlet.targets.python import load_callable_target

    # Adapted as it is loaded: its `name` and `ask` read once, checked, and never again.
    adapted = load_callable_target(spec, concurrency=concurrency)
    return BuiltTarget(adapted, "callable", adapted.name)


def build_toy_target(defects: Sequence[ToyDefect], *, concurrency: int) -> BuiltTarget:
    """The Riverbend toy with `defects` injected (each once, in the order first given)."""
    from gauntlet.targets.adapters import CallableTarget
    from gauntlet.targets.toy import make_toy

    chosen = list(dict.fromkeys(defects))
    adapted = CallableTarget(make_toy(chosen), concurrency=concurrency)
    return BuiltTarget(
        adapted,
        "toy",
        adapted.name,
        defects=tuple(defect.value for defect in chosen),
    )
