"""Run the real command line and show everything it printed when an assertion fails."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gauntlet.cli import run


@dataclass(frozen=True)
class CliResult:
    """What one command-line run did."""

    code: int
    stdout: str
    stderr: str

    def show(self) -> str:
        """Everything the run printed, for assertion messages."""
        return f"exit {self.code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


RunCli = Callable[..., CliResult]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    """Run `gauntlet ARGS` in this process (fast, measured by coverage)."""

    def invoke(*args: str | Path) -> CliResult:
        code = run([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return invoke


@pytest.fixture
def run_process() -> RunCli:
    """Run `python -m gauntlet ARGS` as its own process: the real entry point and exit code."""

    def invoke(*args: str | Path, cwd: Path | None = None) -> CliResult:
        done = subprocess.run(
            [sys.executable, "-m", "gauntlet", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=120,
            check=False,
        )
        return CliResult(done.returncode, done.stdout, done.stderr)

    return invoke
