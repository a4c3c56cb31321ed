"""No answer a Python target gives crashes a run: each ends as a case error or a result."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

HOSTILE = """
from gauntlet.targets.contract import TargetResponse

GOOD = {
    "text": "Open 9 to 5.",
    "citations": ["RB-1"],
    "context_ids": ["RB-1"],
    "refused": False,
    "escalated": False,
}


class Hostile:
    # Answers well, except to a prompt saying "boom": then as the factory's `how` says.
    def __init__(self, how):
        self.name = f"hostile-{how}"
        self.how = how

    def ask(self, prompt, language):
        if "boom" not in prompt:
            return TargetResponse(**GOOD)
        match self.how:
            case "surrogate-mapping":
                return {**GOOD, "text": "Open \\ud800 9 to 5."}
            case "surrogate-response":
                return TargetResponse(**{**GOOD, "text": "Open \\ud800 9 to 5."})
            case "unvalidated":
                return TargetResponse.model_construct(text=None)
            case "copied":
                return TargetResponse(**GOOD).model_copy(update={"citations": "RB-1"})


def make(how):
    return lambda: Hostile(how)


surrogate_mapping = make("surrogate-mapping")
surrogate_response = make("surrogate-response")
unvalidated = make("unvalidated")
copied = make("copied")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with the hostile target module and one suite of four grounding cases."""
    (tmp_path / "hostile_answers_mod.py").write_text(HOSTILE, encoding="utf-8")
    monkeypatch.delitem(sys.modules, "hostile_answers_mod", raising=False)
    (tmp_path / "cases").mkdir()
    suite = grounding_suite("hostile", "ask-1", "boom-1", "ask-2", "boom-2", ask_ids=True)
    (tmp_path / "cases" / "hostile.yaml").write_text(suite, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run(run_cli: RunCli, factory: str) -> tuple[int, str, dict[str, Any]]:
    """Run the factory's target; the exit code, what it printed, and the results file."""
    result = run_cli(
        "run", "--cases", "cases", "--callable", f"hostile_answers_mod:{factory}", "--out", "r.json"
    )
    assert "internal error" not in result.stderr, result.show()
    assert Path("r.json").exists(), result.show()
    return result.code, result.show(), json.loads(Path("r.json").read_bytes())


def _errored(document: dict[str, Any]) -> dict[str, str]:
    return {c["case_id"]: c["reason"] for c in document["cases"] if c["outcome"] == "errored"}


@pytest.mark.parametrize(
    ("factory", "said"),
    [
        # A mapping is checked by the harness, which names the field...
        ("surrogate_mapping", "target contract broken: text: holds U+D800 at character 6"),
        # ...and a `TargetResponse` refuses to be built in the target's own code: the same.
        ("surrogate_response", "target contract broken: text: holds U+D800 at character 6"),
    ],
)
def test_an_answer_utf8_cannot_encode_errors_its_case_and_the_run_goes_on(
    project: Path, run_cli: RunCli, factory: str, said: str
) -> None:
    # The trap: a lone surrogate is a Python `str`, so it passed every check and then made
    # the results file unwritable: no results at all, and "internal error".
    code, shown, document = _run(run_cli, factory)
    assert code == 2, shown
    assert document["verdict"] == "withheld"
    errored = _errored(document)
    assert set(errored) == {"boom-1", "boom-2"}, shown
    for reason in errored.values():
        assert reason.startswith(said), reason
        assert "text" in reason
        assert "holds U+D800 at character 6, a lone surrogate, which UTF-8 cannot encode" in reason


@pytest.mark.parametrize(
    ("factory", "said"),
    [
        (
            "unvalidated",
            "target contract broken: text: input should be a valid string, got None; "
            "citations: missing; context_ids: missing; refused: missing; escalated: missing",
        ),
        (
            "copied",
            "target contract broken: citations: input should be a valid tuple, got 'RB-1'",
        ),
    ],
)
def test_a_response_built_without_validation_errors_its_case_and_the_run_goes_on(
    project: Path, run_cli: RunCli, factory: str, said: str
) -> None:
    # The trap: `model_construct` and `model_copy(update=...)` skip validation, and a
    # TargetResponse was taken as it came, so a gate met `text=None` and crashed the run.
    code, shown, document = _run(run_cli, factory)
    assert code == 2, shown
    assert _errored(document) == {"boom-1": said, "boom-2": said}, shown


def test_an_argument_that_is_not_utf8_is_a_usage_error(tmp_path: Path, run_cli: RunCli) -> None:
    # The trap: Python hands undecodable argv bytes over as lone surrogates, and a URL or a
    # path holding one made the results file unwritable ("internal error").
    url = os.fsdecode(b"http://127.0.0.1:9/\xff")
    done = run_cli("run", "--http-url", url, "--out", tmp_path / "r.json")
    assert done.code == 2, done.show()
    assert "argument 3 ('http://127.0.0.1:9/\\udcff') is not valid UTF-8" in done.stderr
    assert "internal error" not in done.stderr


def test_a_case_file_whose_name_is_not_utf8_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    name = os.fsdecode(b"s\xff.yaml")
    (cases / name).write_text(grounding_suite("s", "c1"))
    done = run_cli("validate", "--cases", cases)
    assert done.code == 2, done.show()
    assert "the file's name is not valid UTF-8; rename it" in done.stderr
    assert "internal error" not in done.stderr
