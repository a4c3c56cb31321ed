"""The wheel carries the built-in suites, and an installed gauntlet finds them there."""

from __future__ import annotations

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
