"""The example target files gauntlet ships, one per kind of server, by name."""

from __future__ import annotations

from pathlib import Path

from gauntlet.errors import UsageError

_PACKAGE = Path(__file__).resolve().parent.parent

EXAMPLE_TARGETS: dict[str, str] = {
    "llama-cpp": "llama-cpp.yaml",
    "vllm": "vllm.yaml",
    "ollama": "ollama.yaml",
    "litellm": "litellm.yaml",
    "openai": "openai.yaml",
    "azure": "azure.yaml",
}
"""Each name `gauntlet example target NAME` takes, and its file in the examples directory."""


def examples_targets_dir() -> Path:
    """The directory of the example target files.

    A wheel carries them as `gauntlet/_examples/targets` (see `pyproject.toml`); an editable
    install reads the checkout's `examples/targets/` directly.
    """
    bundled = _PACKAGE / "_examples" / "targets"
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent.parent / "examples" / "targets"


def example_target_path(name: str) -> Path:
    """The shipped example target file called `name`; an unknown name lists the known ones."""
    file = EXAMPLE_TARGETS.get(name)
    if file is None:
        known = ", ".join(EXAMPLE_TARGETS)
        raise UsageError(f"no example target named {name!r}; the examples are: {known}")
    return examples_targets_dir() / file
