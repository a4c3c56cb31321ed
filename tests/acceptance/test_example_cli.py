"""`gauntlet example target NAME`: the shipped example target files, printed as shipped."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gauntlet.targets.examples import EXAMPLE_TARGETS, examples_targets_dir
from gauntlet.targets.spec import ENV_REFERENCE, OpenAIChatSpec
from gauntlet.targets.target_file import load_embedder_file, load_target_file

from ..cli_helpers import RunCli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "targets"
SHIPPED = sorted(EXAMPLES.glob("*.yaml"))


def _environ(path: Path) -> dict[str, str]:
    """A stand-in value for every variable the file reads, so it loads without secrets."""
    text = path.read_text(encoding="utf-8")
    names = {found[1] for found in ENV_REFERENCE.finditer(text)}
    names |= set(re.findall(r"(?m)^\s*\w+_env: (\w+)", text))
    return dict.fromkeys(names, "stand-in-value")


def test_every_name_is_a_shipped_file_and_every_server_file_has_a_name() -> None:
    # Trap: a name whose file was renamed prints nothing; a new server file without a name is
    # shipped but never reachable from the command line.
    assert examples_targets_dir() == EXAMPLES  # an editable install reads the checkout
    assert {EXAMPLES / file for file in EXAMPLE_TARGETS.values()} <= set(SHIPPED)
    assert list(EXAMPLE_TARGETS) == ["llama-cpp", "vllm", "ollama", "litellm", "openai", "azure"]


def test_the_wheel_ships_every_example_target_file() -> None:
    # Trap: the files exist in the checkout, so every test passes there, while a wheel user
    # gets "no such file" from `gauntlet example target`.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["examples/targets"] == "gauntlet/_examples/targets"
    assert examples_targets_dir().relative_to(ROOT) == Path("examples/targets")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_every_shipped_example_target_file_loads(path: Path) -> None:
    # Trap: an example edited by hand (a misspelt key, a timeout past its bound) is only
    # found by the newcomer who copies it.
    if "\nkind: openai-embeddings\n" in path.read_text(encoding="utf-8"):  # an embedder's
        load_embedder_file(path, environ=_environ(path))
        return
    loaded = load_target_file(path, environ=_environ(path))
    if isinstance(loaded.spec, OpenAIChatSpec) and path.name in EXAMPLE_TARGETS.values():
        # What a server that answers one request at a time needs: a short answer, and a
        # deadline that covers the wait in its queue and beats the 30 s default.
        assert loaded.spec.max_tokens is not None, path.name
        assert loaded.spec.http.timeout > 30, path.name


@pytest.mark.parametrize("name", list(EXAMPLE_TARGETS))
def test_every_named_example_prints_its_shipped_file_byte_for_byte(name: str) -> None:
    # Trap: printing through a text layer (a newline added, a locale's encoding, an escape
    # dropped) gives the user a file that is not the one the README quotes and CI runs.
    done = subprocess.run(
        [sys.executable, "-m", "gauntlet", "example", "target", name],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == (EXAMPLES / EXAMPLE_TARGETS[name]).read_bytes()


def test_list_names_every_example_with_its_file(run_cli: RunCli) -> None:
    result = run_cli("example", "target", "--list")
    assert result.code == 0, result.show()
    assert result.stdout == "".join(f"{name}\t{file}\n" for name, file in EXAMPLE_TARGETS.items())


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["llama"], "error: no example target named 'llama'; the examples are: "),
        (["../../pyproject"], "error: no example target named '../../pyproject'; the examples "),
        ([], "error: name an example target (or --list): "),
        (["vllm", "--list"], "error: give a NAME or --list, not both"),
    ],
    ids=["unknown", "a-path", "none", "both"],
)
def test_an_unknown_example_name_is_refused_listing_every_name(
    args: list[str], said: str, run_cli: RunCli
) -> None:
    # Trap: an unknown name printing nothing and exiting 0 writes an empty target.yaml.
    result = run_cli("example", "target", *args)
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr.startswith(said), result.show()
    if args and args[-1] != "--list":
        assert result.stderr.endswith(": " + ", ".join(EXAMPLE_TARGETS) + "\n"), result.show()
