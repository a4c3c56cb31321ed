"""A Python target cannot end the run: whatever it raises is its case's error, or the pre-flight's.

`SystemExit(0)` from a target's `ask` once ended gauntlet with exit 0 and no results file,
which a CI step reads as a pass; a `BaseException` of its own or `GeneratorExit` gave a raw
traceback. Only the user's own Ctrl-C (a signal that arrived) interrupts a run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

TARGETS = """
import asyncio
import os

from gauntlet.targets.contract import TargetResponse

GOOD = {
    "text": "Open 9 to 5.",
    "citations": ["RB-1"],
    "context_ids": ["RB-1"],
    "refused": False,
    "escalated": False,
}


class OwnBase(BaseException):
    pass


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no text for you")


class UnprintableBase(BaseException):
    def __str__(self):
        raise SystemExit(0)


def raised(how):
    return {
        "exit-0": lambda: SystemExit(0),
        "exit-1": lambda: SystemExit(1),
        "exit-none": lambda: SystemExit(),
        "exit-text": lambda: SystemExit("bye"),
        "keyboard": lambda: KeyboardInterrupt(),
        "generator-exit": lambda: GeneratorExit(),
        "cancelled": lambda: asyncio.CancelledError(),
        "own-base": lambda: OwnBase("mine"),
        "unprintable": lambda: Unprintable(),
        "unprintable-base": lambda: UnprintableBase(),
    }[how]()


class Plain:
    name = "plain"

    def ask(self, prompt, language):
        if "boom" in prompt:
            raise raised(os.environ["RAISE"])
        return TargetResponse(**GOOD)


class Async:
    name = "async"

    async def ask(self, prompt, language):
        if "boom" in prompt:
            raise raised(os.environ["RAISE"])
        return TargetResponse(**GOOD)


class Probed(Async):
    async def probe(self):
        raise raised(os.environ["RAISE"])


class Closing(Async):
    async def aclose(self):
        raise raised(os.environ["RAISE"])


def plain():
    return Plain()


def async_ask():
    return Async()


def probed():
    return Probed()


def closing():
    return Closing()


def factory():
    raise raised(os.environ["RAISE"])


def interrupted_factory():
    # The user's Ctrl-C arriving while the factory works: a signal, really delivered.
    os.kill(os.getpid(), __import__("signal").SIGINT)
    import time
    time.sleep(5)
    return Plain()
"""

IMPORTED = """
import os

raise __import__("raising_targets_mod").raised(os.environ["RAISE"])
"""

RAISED = {
    "exit-0": "SystemExit: 0",
    "exit-1": "SystemExit: 1",
    "exit-none": "SystemExit",
    "exit-text": "SystemExit: bye",
    "keyboard": "KeyboardInterrupt",
    "generator-exit": "GeneratorExit",
    "cancelled": "CancelledError",
    "own-base": "OwnBase: mine",
    "unprintable": "Unprintable (its text could not be read: ValueError)",
    "unprintable-base": "UnprintableBase (its text could not be read: SystemExit)",
}
"""What each raised thing is called in the case's reason, after "the target raised "."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with the raising targets and one suite: a case that passes, one that raises."""
    (tmp_path / "raising_targets_mod.py").write_text(TARGETS, encoding="utf-8")
    (tmp_path / "raising_import_mod.py").write_text(IMPORTED, encoding="utf-8")
    for module in ("raising_targets_mod", "raising_import_mod"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    (tmp_path / "cases").mkdir()
    suite = grounding_suite("raising", "ask-1", "boom-1", ask_ids=True)
    (tmp_path / "cases" / "raising.yaml").write_text(suite, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run(run_cli: RunCli, spec: str) -> tuple[int, str, str]:
    result = run_cli("run", "--cases", "cases", "--callable", spec, "--out", "r.json", "-q")
    assert "internal error" not in result.stderr, result.show()
    assert "Traceback" not in result.stderr, result.show()
    return result.code, result.stderr, result.show()


@pytest.mark.parametrize("how", list(RAISED))
@pytest.mark.parametrize("factory", ["plain", "async_ask"])
def test_anything_a_target_raises_while_asked_is_that_cases_error(
    project: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, factory: str, how: str
) -> None:
    # Trap: `SystemExit` and `KeyboardInterrupt` cross asyncio's task boundary and end the
    # process (SystemExit(0): exit 0, no results file, a CI pass); other BaseExceptions gave a
    # traceback; a target's own CancelledError was taken for our cancellation (case not run).
    monkeypatch.setenv("RAISE", how)
    code, _, shown = _run(run_cli, f"raising_targets_mod:{factory}")
    assert code == 2, shown
    document: dict[str, Any] = json.loads(Path("r.json").read_bytes())
    assert document["complete"] is True, shown
    assert document["verdict"] == "withheld", shown
    outcomes = {case["case_id"]: (case["outcome"], case["reason"]) for case in document["cases"]}
    assert outcomes == {
        "ask-1": ("passed", ""),
        "boom-1": ("errored", f"the target raised {RAISED[how]}"),
    }, shown


@pytest.mark.parametrize("how", list(RAISED))
def test_anything_a_factory_or_an_import_raises_is_a_target_import_error(
    project: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Trap: the factory and the module's import were guarded against `Exception` only.
    monkeypatch.setenv("RAISE", how)
    code, stderr, shown = _run(run_cli, "raising_targets_mod:factory")
    assert code == 2, shown
    assert f"--callable 'raising_targets_mod:factory': calling factory() failed: {RAISED[how]}" in (
        stderr
    ), shown
    assert not Path("r.json").exists()
    monkeypatch.delitem(sys.modules, "raising_targets_mod", raising=False)
    code, stderr, shown = _run(run_cli, "raising_import_mod:plain")
    assert code == 2, shown
    assert f"cannot import raising_import_mod: {RAISED[how]}" in stderr, shown


@pytest.mark.parametrize("how", list(RAISED))
def test_anything_a_pre_flight_probe_raises_is_a_pre_flight_error(
    project: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Trap: the probe ran in its own asyncio task, which lets SystemExit and KeyboardInterrupt
    # out of the loop, and only a `TargetError` from it was worded.
    monkeypatch.setenv("RAISE", how)
    code, stderr, shown = _run(run_cli, "raising_targets_mod:probed")
    assert code == 2, shown
    assert f"pre-flight check failed: the target raised {RAISED[how]}" in stderr, shown
    assert not Path("r.json").exists()


@pytest.mark.parametrize("how", ["exit-0", "keyboard", "own-base", "unprintable"])
def test_anything_a_target_raises_while_closed_is_a_harness_error(
    project: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Trap: `aclose` is the target's code too, run after the last case.
    monkeypatch.setenv("RAISE", how)
    code, stderr, shown = _run(run_cli, "raising_targets_mod:closing")
    assert code == 2, shown
    assert f"closing the target failed: the target raised {RAISED[how]}" in stderr, shown
    assert Path("r.json.journal").exists(), "every case is journalled: --resume finishes it"


def test_a_target_exiting_0_in_its_own_process_exits_2_with_its_results(
    project: Path, run_process: RunCli
) -> None:
    # Trap: the real entry point, where SystemExit(0) reached the interpreter and exited 0.
    os.environ["RAISE"] = "exit-0"
    try:
        result = run_process(
            "run", "--cases", "cases", "--callable", "raising_targets_mod:plain",
            "--out", "r.json", cwd=project,
        )  # fmt: skip
    finally:
        del os.environ["RAISE"]
    assert result.code == 2, result.show()
    errored = [
        c for c in json.loads(Path("r.json").read_bytes())["cases"] if c["outcome"] == "errored"
    ]
    assert [c["reason"] for c in errored] == ["the target raised SystemExit: 0"], result.show()


def test_the_users_own_ctrl_c_during_the_factory_still_interrupts(
    project: Path, run_cli: RunCli
) -> None:
    # Trap: treating every KeyboardInterrupt as the target's would make Ctrl-C unable to stop
    # a factory that hangs; one that a signal delivered is the user's.
    previous = signal.getsignal(signal.SIGINT)
    try:
        code, stderr, shown = _run(run_cli, "raising_targets_mod:interrupted_factory")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 2, shown
    assert "interrupted" in stderr, shown
    assert "calling" not in stderr, shown
