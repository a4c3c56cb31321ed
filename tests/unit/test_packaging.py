"""The wheel carries the built-in suites, and an installed gauntlet finds them there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_carries_every_built_in_suite(unpacked_wheel: Path) -> None:
    bundled = unpacked_wheel / "gauntlet" / "_builtin_suites"
    source = sorted(p.name for p in (ROOT / "suites").glob("*.yaml"))
    assert source
    assert sorted(p.name for p in bundled.glob("*.yaml")) == source
    for name in source:
        assert (bundled / name).read_bytes() == (ROOT / "suites" / name).read_bytes()
    assert (unpacked_wheel / "gauntlet" / "py.typed").exists()


def test_an_installed_gauntlet_reads_its_bundled_suites(unpacked_wheel: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gauntlet.cases.builtin import builtin_suites_dir as d; print(d())",
        ],
        env={"PYTHONPATH": str(unpacked_wheel)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(unpacked_wheel / "gauntlet" / "_builtin_suites")


def test_the_sdist_holds_everything_the_tests_read() -> None:
    """Its tests run from an unpacked sdist only if what they read beside them is there too."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = set(config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    included.add("pyproject.toml")  # every sdist has it
    read = {
        match
        for path in (ROOT / "tests").rglob("*.py")
        for match in re.findall(r'ROOT / "([\w.-]+)"', path.read_text(encoding="utf-8"))
    }
    assert read, "no test reads a file beside the tests any more: this check checks nothing"
    assert read - included == set()
