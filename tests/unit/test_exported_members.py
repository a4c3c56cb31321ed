"""`gauntlet.__all__` lists exactly the public names the package exports."""

from __future__ import annotations

from types import ModuleType

import gauntlet


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(gauntlet).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert set(gauntlet.__all__) - {"__version__"} == public


def test_every_name_in_all_exists() -> None:
    for name in gauntlet.__all__:
        assert hasattr(gauntlet, name), name
