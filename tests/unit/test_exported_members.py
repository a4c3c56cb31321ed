"""`gauntlet.__all__` lists exactly the public names the package exports."""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import gauntlet


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name in dir(gauntlet)
        if not name.startswith("_") and not isinstance(getattr(gauntlet, name), ModuleType)
    }
    assert set(gauntlet.__all__) - {"__version__"} == public


def test_every_name_in_all_exists() -> None:
    for name in gauntlet.__all__:
        assert hasattr(gauntlet, name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(gauntlet, "no_such_thing")


def test_the_version_command_loads_no_model_client_or_toy() -> None:
    # `gauntlet --version` and `--help` must not pay for pydantic models, aiohttp or the toy.
    probe = (
        "import sys\n"
        "from gauntlet.cli import run\n"
        "run(['--version'])\n"
        "heavy = [m for m in ('aiohttp', 'gauntlet.cases.model', 'gauntlet.targets.toy.assistant',"
        " 'gauntlet.evidence.pack') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
