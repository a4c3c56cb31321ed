"""No read that never ends (issue 13, class 10).

Every file gauntlet reads that a user named (case files, results, baselines) must be a regular
file under a size cap: a FIFO, a socket or a device such as `/dev/zero` is refused at once with
a located error and exit 2, never a hang and never a read until memory runs out.

A regression here would hang the test run rather than fail it, so commands that could block run
under a deadline, and those that could read forever run in a child with bounded memory.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest

from ..cli_helpers import CliResult, RunCli
from ..unit.cases.suite_text import grounding_suite

SECONDS = 20
"""Long enough for any of these commands on a busy machine; a hang is forever."""
CHILD_MEMORY = 2 * 1024**3
"""Address space for a child that might read without end: enough to run, too little to swap."""


class Hung(BaseException):
    """The command was still running at its deadline: an open or a read that never ends.

    Not an `Exception`, so the command line's last-resort handler cannot turn it into exit 2.
    """


@contextmanager
def deadline(seconds: int = SECONDS) -> Iterator[None]:
    """Raise `Hung` in the code under test if it runs longer than `seconds`."""

    def expire(number: int, frame: FrameType | None) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_bounded(*args: str | Path) -> CliResult:
    """`python -m gauntlet ARGS` in a child with bounded memory and time."""

    def limit() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))

    done = subprocess.run(
        [sys.executable, "-m", "gauntlet", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=SECONDS * 3,
        check=False,
        preexec_fn=limit,  # only sets a limit: safe, as the tests start no threads
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def _results(run_cli: RunCli, out: Path) -> Path:
    done = run_cli("run", "--quiet", "--out", out)
    assert done.code == 0, done.show()
    return out


# ------------------------------------------------------------------ reading


def test_a_case_file_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, run_cli: RunCli
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "good.yaml").write_text(grounding_suite(), encoding="utf-8")
    fifo = cases / "x.yaml"
    os.mkfifo(fifo)
    with deadline():
        found = run_cli("validate", "--cases", cases)
        named = run_cli("validate", "--cases", fifo)
    for done in (found, named):
        assert done.code == 2, done.show()
        assert f"{fifo}: not a regular file (a FIFO)\n" in done.stderr, done.show()
        assert "Traceback" not in done.stderr


def test_a_case_file_linked_to_an_endless_device_is_refused_unread(tmp_path: Path) -> None:
    link = tmp_path / "zero.yaml"
    link.symlink_to("/dev/zero")
    done = run_bounded("validate", "--cases", link)
    assert done.code == 2, done.show()
    assert f"{link}: not a regular file (a character device)\n" in done.stderr, done.show()


@pytest.mark.parametrize("role", ["RESULTS", "--baseline"])
def test_a_results_file_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, run_cli: RunCli, role: str
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    args = [fifo] if role == "RESULTS" else [results, "--baseline", fifo]
    with deadline():
        done = run_cli("report", *args)
    assert done.code == 2, done.show()
    assert done.stderr == f"error: {fifo}: not a regular file (a FIFO)\n", done.show()


def test_a_baseline_linked_to_an_endless_device_is_refused_unread(
    tmp_path: Path, run_cli: RunCli
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    link = tmp_path / "baseline.json"
    link.symlink_to("/dev/zero")
    done = run_bounded("report", results, "--baseline", link)
    assert done.code == 2, done.show()
    assert done.stderr == f"error: {link}: not a regular file (a character device)\n"


def test_a_results_file_over_the_cap_is_refused_before_it_is_read(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    size = results.stat().st_size
    # raising=False: before the cap existed this set a name nothing read, and the test failed.
    monkeypatch.setattr("gauntlet.run.results_file.MAX_RESULTS_BYTES", size - 1, raising=False)
    for args in ([results], [results, "--baseline", results]):
        done = run_cli("report", *args, "--format", "json")
        assert done.code == 2, done.show()
        assert done.stderr == (
            f"error: {results}: file is {size:,} bytes, over the {size - 1:,}-byte limit for "
            "a results file\n"
        )
