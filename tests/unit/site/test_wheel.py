"""An installed wheel carries the site's templates and stylesheet, and finds `action.yml`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from gauntlet.site.content import BUNDLED_ACTION

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


def test_an_installed_wheel_builds_the_site(unpacked_wheel: Path, tmp_path: Path) -> None:
    package = unpacked_wheel / "gauntlet"
    assert (package / "site" / "static" / "site.css").is_file()
    assert (package / "site" / "templates" / "base.html.j2").is_file()
    assert (package / BUNDLED_ACTION).read_bytes() == (ROOT / "action.yml").read_bytes()
    done = _build(unpacked_wheel, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "action.html").is_file()


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
