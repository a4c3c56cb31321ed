"""When the harness itself fails: worded as what it is, exit 2, nothing a resume needs lost.

A full disk or a file-size limit is not "a bug in gauntlet", and the "re-run with
--traceback" hint is a command that works, wherever on the line `--traceback` is put.
"""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ..cli_helpers import RunCli

JOURNAL_LIMIT = 6_000
"""Bytes a file may grow to under the test's RLIMIT_FSIZE: a few journal lines."""


def _cases(where: Path, count: int = 12) -> Path:
    """A suite of `count` cases the healthy toy passes."""
    (where / "cases").mkdir()
    cases = "".join(
        f"  - id: c{number}\n    language: en\n    prompt: When is the pool open for lap swim?\n"
        "    expect_grounded: true\n"
        for number in range(count)
    )
    suite = f"suite: g\ngate: grounding\nversion: 1\nthreshold: 1.0\ncases:\n{cases}"
    (where / "cases" / "g.yaml").write_text(suite, encoding="utf-8")
    return where / "cases"


def test_a_journal_over_the_file_size_limit_is_worded_and_kept_for_resume(
    tmp_path: Path,
) -> None:
    # Trap: SIGXFSZ killed the process outright (no word, no exit code CI reads); with the
    # signal ignored, the EFBIG the write then meets was an "internal error" and a traceback.
    _cases(tmp_path)
    args = ["run", "--cases", "cases", "--toy", "--out", "r.json"]
    limited = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_FSIZE, ({JOURNAL_LIMIT}, {JOURNAL_LIMIT}))
        from gauntlet.cli import run
        sys.exit(run({args!r}))
    """)
    done = subprocess.run(
        [sys.executable, "-c", limited],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    shown = f"exit {done.returncode}\n{done.stdout}{done.stderr}"
    assert done.returncode == 2, shown
    assert "internal error" not in done.stderr, shown
    assert "Traceback" not in done.stderr, shown
    journal = tmp_path / "r.json.journal"
    assert f"{journal.name}: cannot write the journal: File too large" in done.stderr, shown
    assert "--resume" in done.stderr, shown
    assert journal.exists() and 0 < journal.stat().st_size <= JOURNAL_LIMIT, shown
    assert not (tmp_path / "r.json").exists(), shown
    resumed = subprocess.run(
        [sys.executable, "-m", "gauntlet", *args, "--resume"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    document: dict[str, Any] = json.loads((tmp_path / "r.json").read_bytes())
    assert document["complete"] is True and document["totals"]["passed"] == 12


class _Filling:
    """A journal file on a disk that fills after `room` bytes."""

    def __init__(self, inner: Any, room: int) -> None:
        self.inner, self.room = inner, room

    def write(self, text: str) -> int:
        if len(text) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(text)
        return int(self.inner.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_journal_on_a_full_disk_is_worded_and_kept_for_resume(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: ENOSPC from the journal reached the last line of defence: "a bug in gauntlet".
    from gauntlet.files import open_for_writing

    monkeypatch.setattr(
        "gauntlet.run.journal.open_for_writing",
        lambda *a, **k: _Filling(open_for_writing(*a, **k), 4_000),
    )
    cases = _cases(tmp_path)
    out = tmp_path / "r.json"
    done = run_cli("run", "--cases", cases, "--toy", "--out", out)
    assert done.code == 2, done.show()
    assert "internal error" not in done.stderr, done.show()
    assert "cannot write the journal: No space left on device" in done.stderr, done.show()
    assert (tmp_path / "r.json.journal").exists(), done.show()
    monkeypatch.undo()
    resumed = run_cli("run", "--cases", cases, "--toy", "--out", out, "--resume")
    assert resumed.code == 0, resumed.show()


def test_an_os_error_of_the_harness_is_not_called_a_bug(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: every exception that was not a GauntletError was "a bug in gauntlet; report it".
    import gauntlet.render.console as console

    def full(*args: object, **kwargs: object) -> list[str]:
        raise OSError(errno.ENOSPC, "No space left on device", "somewhere.txt")

    monkeypatch.setattr(console, "summary_lines", full)
    done = run_cli("run", "--cases", _cases(tmp_path), "--toy", "--out", tmp_path / "r.json")
    assert done.code == 2, done.show()
    assert "error: somewhere.txt: No space left on device" in done.stderr, done.show()
    assert "bug" not in done.stderr, done.show()


@pytest.mark.parametrize("where", ["after", "before"])
def test_the_traceback_hint_is_a_command_that_works(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # Trap: the hint said "re-run with --traceback", and `gauntlet run ... --traceback` was
    # refused as an unknown option of `run`.
    import gauntlet.render.console as console

    def broken(*args: object, **kwargs: object) -> list[str]:
        raise RuntimeError("summary broke")

    monkeypatch.setattr(console, "summary_lines", broken)
    args = ["run", "--cases", str(_cases(tmp_path)), "--toy", "--out", str(tmp_path / "r.json")]
    done = run_cli(*args)
    assert done.code == 2, done.show()
    assert "re-run with --traceback" in done.stderr, done.show()
    assert "Traceback (most recent call last)" not in done.stderr, done.show()
    again = run_cli(*(args + ["--traceback"] if where == "after" else ["--traceback", *args]))
    assert again.code == 2, again.show()
    assert "Traceback (most recent call last)" in again.stderr, again.show()
    assert "RuntimeError: summary broke" in again.stderr, again.show()


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--cases", "cases", "--traceback"],
        ["validate", "--traceback", "--cases", "cases"],
        ["--traceback", "validate", "--cases", "cases"],
        ["report", "r.json", "--traceback"],
        ["run", "--cases", "cases", "--toy", "--out", "r.json", "--traceback"],
    ],
)
def test_traceback_is_taken_wherever_it_is_put(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    # Trap: `--traceback` was an option of the top-level command only.
    monkeypatch.chdir(tmp_path)
    _cases(tmp_path)
    assert run_cli("run", "--cases", "cases", "--toy", "--out", "r.json").code == 0
    done = run_cli(*args)
    assert done.code == 0, done.show()
