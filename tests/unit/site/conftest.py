"""One built site shared by the checks of this folder: building it runs the toy twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.site.build import build_site


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    return out
