"""`--callable module:factory`: imported from the working directory, checked, never guessed."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gauntlet.errors import TargetImportError
from gauntlet.targets.python import load_callable_target

MODULE = """
from gauntlet.targets.contract import TargetResponse

class Good:
    name = "good"
    def ask(self, prompt, language):
        return TargetResponse(
            text=prompt, citations=(), context_ids=(), refused=False, escalated=False
        )

class Nameless:
    def ask(self, prompt, language):
        return None

class Mute:
    name = "mute"

class Garbled(Good):
    name = "good \\udcff"

class OneArgument:
    name = "one"
    def ask(self, prompt):
        return None

def make_good():
    return Good()

def make_nameless():
    return Nameless()

def make_mute():
    return Mute()

def make_garbled():
    return Garbled()

def make_one():
    return OneArgument()

def explode():
    raise RuntimeError("no config")

NOT_CALLABLE = 3
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    name = f"userproject_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    yield tmp_path / name
    sys.modules.pop(name, None)


def test_a_factory_from_the_working_directory_gives_a_target(project: Path) -> None:
    target = load_callable_target(f"{project.name}:make_good")
    assert target.name == "good"
    assert str(project.parent) not in sys.path  # the search path is put back


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        ("make_nameless", "gave a Nameless without a `name` text"),
        ("make_mute", "gave a Mute without an `ask` method"),
        (
            "make_garbled",
            "gave a Garbled whose `name` holds U+DCFF at character 6, a lone surrogate, which "
            "UTF-8 cannot encode",
        ),
        ("make_one", "OneArgument.ask cannot be called as ask(prompt, language)"),
        ("explode", "calling explode() failed: RuntimeError: no config"),
        ("NOT_CALLABLE", "NOT_CALLABLE is not a factory (type int)"),
        ("missing", "has no 'missing'"),
    ],
)
def test_what_is_not_a_target_is_named(project: Path, attribute: str, message: str) -> None:
    with pytest.raises(TargetImportError, match=re.escape(message)):
        load_callable_target(f"{project.name}:{attribute}")


@pytest.mark.parametrize("spec", ["nocolon", ":factory", "module:", ""])
def test_a_malformed_spec_is_refused(spec: str) -> None:
    with pytest.raises(TargetImportError, match="expected module.path:factory"):
        load_callable_target(spec)


def test_an_import_failure_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TargetImportError, match="cannot import no_such_module_here"):
        load_callable_target("no_such_module_here:make")
