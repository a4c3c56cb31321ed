"""The two hash-locked pin files: `action.lock` is the part of `requirements.lock` that runs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)(?P<marker>[^\\]*)\\?$")
HASH = re.compile(r"^\s+--hash=(?P<hash>sha256:[0-9a-f]{64})\s*\\?$")
DEV_ONLY = ("pytest", "ruff", "mypy", "zizmor", "hypothesis", "trustme", "junitparser", "editables")


def _pins(path: Path) -> dict[str, tuple[str, str, frozenset[str]]]:
    """Each pinned package: its version, its environment marker and its hashes."""
    pins: dict[str, tuple[str, str, frozenset[str]]] = {}
    name = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if match := PIN.match(line):
            name = match["name"].lower()
            pins[name] = (match["version"], match["marker"].strip(), frozenset())
        elif (match := HASH.match(line)) and name:
            version, marker, hashes = pins[name]
            pins[name] = (version, marker, hashes | {match["hash"]})
        else:
            pytest.fail(f"{path.name}:{number}: not a pin, a hash or a comment: {line!r}")
    return pins


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return match[0].lower()


def test_every_pin_has_a_hash_and_no_file_names_a_host() -> None:
    for path in (ROOT / "requirements.lock", ROOT / "action.lock"):
        pins = _pins(path)
        assert pins, f"{path.name} pins nothing"
        assert all(hashes for _, _, hashes in pins.values()), path.name
        assert "://" not in path.read_text(encoding="utf-8"), f"{path.name} names a host"


def test_the_action_lock_is_part_of_the_full_lock_pin_for_pin() -> None:
    full, action = _pins(ROOT / "requirements.lock"), _pins(ROOT / "action.lock")
    different = {name: pin for name, pin in action.items() if full.get(name) != pin}
    assert not different, (
        f"run `make lock`: action.lock differs from requirements.lock in {different}"
    )


def test_the_action_lock_holds_what_runs_and_no_test_or_lint_tool() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {_name(requirement) for requirement in project["project"]["dependencies"]}
    needed |= {_name(requirement) for requirement in project["dependency-groups"]["build"]}
    action = _pins(ROOT / "action.lock")
    assert needed <= set(action), f"run `make lock`: action.lock lacks {needed - set(action)}"
    assert not set(DEV_ONLY) & set(action)
    full = _pins(ROOT / "requirements.lock")
    assert set(DEV_ONLY) <= set(full)  # the list above names real tools, so the check bites
