"""The command line words a library error about a parameter as the flag the user typed.

The library's own messages name its parameters (`url`, `header`, `spec`, `labels`); each
line here is what `gauntlet` printed before those errors carried the name as data, byte for
byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..cli_helpers import RunCli


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (
            ["--header", "Authorization Bearer tok-5f1c9e27b3d84a60"],
            "--header 'Authorization': expected 'Name: value', with a colon after the name "
            "(the value is not shown)",
        ),
        (
            ["--header", "X-Token: ${GAUNTLET_TEST_NEVER_SET}", "--http-url", "http://h.test/"],
            "--header X-Token: environment variable GAUNTLET_TEST_NEVER_SET is not set",
        ),
        (
            ["--http-url", "http://[::1/ask"],
            "--http-url: cannot be used as a URL: Invalid IPv6 URL",
        ),
        (
            ["--http-url", "ftp://h.test/"],
            "--http-url: expected an http:// or https:// URL, got 'ftp://h.test/'",
        ),
        (
            ["--http-url", "http://h.test:99999/"],
            "--http-url: the port is not a number from 0 to 65535",
        ),
        (
            ["--http-url", "http://u:pw@h.test/", "--header", "Authorization: Bearer x"],
            "--http-url has credentials and --header sets Authorization: choose one",
        ),
        (["--callable", "nocolon"], "--callable 'nocolon': expected module.path:factory"),
        (
            ["--callable", "tests.action_targets:no_such_factory"],
            "--callable 'tests.action_targets:no_such_factory': tests.action_targets has no "
            "'no_such_factory'",
        ),
        (
            ["--history", "h.sqlite", "--label", "branch"],
            "--label 'branch': expected key=value, e.g. commit=3f2a9c1",
        ),
    ],
)
def test_run_names_the_flag_a_bad_value_came_from(
    tmp_path: Path, run_cli: RunCli, flags: list[str], said: str
) -> None:
    result = run_cli("run", *flags, "--out", tmp_path / "r.json")
    assert (result.code, result.stdout, result.stderr) == (2, "", f"error: {said}\n"), result.show()


def test_a_factory_that_gives_no_target_is_named_by_its_flag(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cli_wording_factory.py").write_text("def make():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "cli_wording_factory", raising=False)
    result = run_cli("run", "--callable", "cli_wording_factory:make", "--out", "r.json")
    assert result.stderr == (
        "error: --callable 'cli_wording_factory:make' gave a int without a `name` text; "
        "expected an object with `name: str` and `ask(prompt, language)` returning a "
        "TargetResponse\n"
    ), result.show()


def test_history_add_names_the_label_flag(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli(
        "history", "add", tmp_path / "r.json", "--history", tmp_path / "h.sqlite",
        "--label", "a=1", "--label", "a=2",
    )  # fmt: skip
    assert (result.code, result.stderr) == (
        2,
        "error: --label a: given twice; a run has one value per label\n",
    ), result.show()
