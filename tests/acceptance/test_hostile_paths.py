"""No write through a symlink, no read that never ends (issue 13, class 10).

Every file gauntlet writes replaces a symlink at its final path, or refuses it, and never
writes through it. Every file it reads that a user named (case files, results, baselines) must
be a regular file under a size cap: a FIFO, a socket or a device such as `/dev/zero` is refused
at once with a located error and exit 2, never a hang and never a read until memory runs out.

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
VICTIM = "a file gauntlet must not touch\n"


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
    done = run_cli("run", "--no-transforms", "--quiet", "--out", out)
    assert done.code == 0, done.show()
    return out


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM, encoding="utf-8")
    return victim


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
    monkeypatch.setattr("gauntlet.limits.MAX_RESULTS_BYTES", size - 1)
    for args in ([results], [results, "--baseline", results]):
        done = run_cli("report", *args, "--format", "json")
        assert done.code == 2, done.show()
        assert done.stderr == (
            f"error: {results}: file is {size:,} bytes, over the {size - 1:,}-byte limit for "
            "a results file\n"
        )


# ------------------------------------------------------------------ writing


def test_site_pages_replace_a_symlink_rather_than_write_through_it(
    tmp_path: Path, run_cli: RunCli
) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").symlink_to(victim)
    done = run_cli("site", "--out", out)
    assert done.code == 0, done.show()
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not (out / "index.html").is_symlink()
    assert (out / "index.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_out_replaces_a_symlink_rather_than_write_through_it(
    tmp_path: Path, run_cli: RunCli
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    victim = _victim(tmp_path)
    out = tmp_path / "evidence.md"
    out.symlink_to(victim)
    done = run_cli("report", results, "--out", out)
    assert done.code == 0, done.show()
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not out.is_symlink()
    assert out.read_text(encoding="utf-8").startswith("# gauntlet evidence pack\n")


@pytest.mark.parametrize("flag", ["--github-output", "--github-summary"])
def test_github_files_are_never_appended_through_a_symlink(
    tmp_path: Path, run_cli: RunCli, flag: str
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    victim = _victim(tmp_path)
    link = tmp_path / "github-file"
    link.symlink_to(victim)
    done = run_cli("report", results, flag, link)
    assert done.code == 2, done.show()
    assert done.stderr == f"error: {link}: refusing to write through a symlink\n"
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert link.is_symlink()


@pytest.mark.parametrize("flag", ["--github-output", "--github-summary"])
def test_github_files_that_are_not_regular_files_are_refused_at_once(
    tmp_path: Path, run_cli: RunCli, flag: str
) -> None:
    results = _results(run_cli, tmp_path / "results.json")
    fifo = tmp_path / "github-fifo"
    os.mkfifo(fifo)
    with deadline():
        done = run_cli("report", results, flag, fifo)
    assert done.code == 2, done.show()
    assert done.stderr == f"error: {fifo}: not a regular file (a FIFO)\n", done.show()


def test_inventory_update_never_follows_a_symlink_or_waits_on_a_fifo(
    tmp_path: Path, run_cli: RunCli
) -> None:
    from gauntlet.inventory import END, START

    victim = tmp_path / "victim.md"
    victim.write_text(f"{START}\nstale\n{END}\n", encoding="utf-8")
    link = tmp_path / "README.md"
    link.symlink_to(victim)
    fifo = tmp_path / "FIFO.md"
    os.mkfifo(fifo)
    with deadline():
        linked = run_cli("inventory", "--update", link)
        piped = run_cli("inventory", "--update", fifo)
    assert linked.code == 2, linked.show()
    assert linked.stderr == f"error: {link}: refusing to write through a symlink\n"
    assert victim.read_text(encoding="utf-8") == f"{START}\nstale\n{END}\n"
    assert piped.code == 2, piped.show()
    assert piped.stderr == f"error: {fifo}: not a regular file (a FIFO)\n"


def test_the_journal_is_never_written_through_a_symlink(tmp_path: Path, run_cli: RunCli) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "results.json"
    (tmp_path / "results.json.journal").symlink_to(victim)
    done = run_cli("run", "--no-transforms", "--quiet", "--out", out)
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert done.code == 2, done.show()
    assert f"{out}.journal: refusing to write through a symlink" in done.stderr


def test_a_journal_that_is_not_a_regular_file_is_refused_on_resume(
    tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "results.json"
    os.mkfifo(tmp_path / "results.json.journal")
    with deadline():
        done = run_cli("run", "--no-transforms", "--quiet", "--resume", "--out", out)
    assert done.code == 2, done.show()
    assert "results.json.journal: not a regular file (a FIFO)" in done.stderr


def test_repeat_has_an_upper_bound_on_the_command_line_too(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli("run", "--no-transforms", "--repeat", "101", "--out", tmp_path / "r.json")
    assert done.code == 2, done.show()
    assert "less than or equal to 100" in " ".join(done.stderr.split())
