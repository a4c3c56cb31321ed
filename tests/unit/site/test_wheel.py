"""An installed wheel carries the site's templates and stylesheet, and finds `action.yml`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gauntlet.site.content import BUNDLED_ACTION
from gauntlet.site.docs import BUNDLED_DOCS
from tests.unit.site.sitefiles import DOC_FILES

ROOT = Path(__file__).resolve().parents[3]


def _build(unpacked: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet", "site", "--out", "out"],
        env={"PYTHONPATH": str(unpacked)},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def wheel_build(
    unpacked_wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The site built once by the installed wheel: its directory, and how the build ended."""
    cwd = tmp_path_factory.mktemp("wheel-site")
    return cwd, _build(unpacked_wheel, cwd)


def test_an_installed_wheel_builds_the_site(
    unpacked_wheel: Path, wheel_build: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    package = unpacked_wheel / "gauntlet"
    assert (package / "site" / "static" / "site.css").is_file()
    assert (package / "site" / "templates" / "base.html.j2").is_file()
    assert (package / BUNDLED_ACTION).read_bytes() == (ROOT / "action.yml").read_bytes()
    cwd, done = wheel_build
    assert done.returncode == 0, done.stderr
    assert (cwd / "out" / "action.html").is_file()


def test_a_wheel_without_action_yml_says_what_is_missing(
    unpacked_wheel: Path, tmp_path: Path
) -> None:
    stripped = tmp_path / "wheel"
    shutil.copytree(unpacked_wheel, stripped)
    (stripped / "gauntlet" / BUNDLED_ACTION).unlink()
    done = _build(stripped, tmp_path)
    assert done.returncode == 2
    assert "cannot read the Action's definition" in done.stderr
    assert f"gauntlet/{BUNDLED_ACTION}" in done.stderr


def test_an_installed_wheel_renders_the_docs_pages(
    unpacked_wheel: Path, wheel_build: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    # Trap: the docs pages are read from the checkout's docs/, which no wheel carries, so a
    # site built from an installed gauntlet stops with an error, or would lose its manual.
    bundled = unpacked_wheel / "gauntlet" / BUNDLED_DOCS
    assert sorted(p.name for p in bundled.glob("*.md")) == sorted(
        p.name for p in (ROOT / "docs").glob("*.md")
    )
    cwd, done = wheel_build
    assert done.returncode == 0, done.stderr
    for page in DOC_FILES:
        assert (cwd / "out" / page).is_file(), page


def test_a_wheel_without_docs_says_what_is_missing(unpacked_wheel: Path, tmp_path: Path) -> None:
    stripped = tmp_path / "wheel"
    shutil.copytree(unpacked_wheel, stripped)
    shutil.rmtree(stripped / "gauntlet" / BUNDLED_DOCS)
    done = _build(stripped, tmp_path)
    assert done.returncode == 2
    assert "cannot read the documentation pages: no such directory" in done.stderr
    assert f"gauntlet/{BUNDLED_DOCS}" in done.stderr
