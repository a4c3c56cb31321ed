"""The GitHub Action (action.yml): its shell steps run for real, with bash, in order.

Each scenario lays out a workspace in a temporary directory and runs every `run:` step of
action.yml the way the runner would (`bash --noprofile --norc -eo pipefail`), with the step's
`env:` mapping evaluated, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` files, and the outputs of
earlier steps available to later ones. The `uses:` step (setup-python) and the install step are
skipped: the `gauntlet` of this checkout's environment is first on PATH instead. A step that
fails ends the run, as on GitHub.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.yaml_nodes import read_document
from gauntlet.evidence.pack import VerdictStatus, WithheldBecause

from ..hostile_server import HostileServer, hostile_server
from ..unit.cases.suite_text import grounding_suite

ROOT = Path(__file__).resolve().parents[2]
ACTION_TEXT = (ROOT / "action.yml").read_text(encoding="utf-8")
ACTION: dict[str, Any] = read_document(ACTION_TEXT, "action.yml").data
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
INPUTS: dict[str, dict[str, Any]] = ACTION["inputs"]
OUTPUTS: dict[str, dict[str, Any]] = ACTION["outputs"]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")

BIN = Path(sys.executable).parent
"""This environment's scripts directory, where `gauntlet` is."""

EXPRESSION = re.compile(r"\$\{\{\s*(?P<body>.*?)\s*\}\}")
INPUT_REFERENCE = re.compile(r"inputs\.(?P<name>[A-Za-z0-9_-]+)")
STEP_OUTPUT_REFERENCE = re.compile(
    r"steps\.(?P<step>[A-Za-z0-9_-]+)\.outputs\.(?P<name>[A-Za-z0-9_-]+)"
)
TOKEN = "tok-action-7d2e41c9a0b5"  # noqa: S105 - a test token, sent only to 127.0.0.1
GITHUB_TOKEN = "ghs-action-test-0c1d2e3f"  # noqa: S105 - seen only by the fake `gh` below
TOTAL_CASES = load_suites([ROOT / "suites"]).case_total


# ---------------------------------------------------------------- running the Action


@dataclass
class StepRun:
    """One `run:` step as it ran."""

    id: str
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class ActionRun:
    """The Action as it ran: the steps that ran, and its outputs as the caller sees them."""

    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def code(self) -> int:
        """The exit code of the step that failed the Action, or 0."""
        return self.steps[-1].code

    def step(self, step_id: str) -> StepRun:
        [found] = [step for step in self.steps if step.id == step_id]
        return found

    @property
    def stdout(self) -> str:
        return "".join(step.stdout for step in self.steps)

    @property
    def everything(self) -> str:
        """Every byte the steps printed or wrote to GitHub's files."""
        return "".join(
            step.stdout + step.stderr + step.summary + json.dumps(step.outputs)
            for step in self.steps
        )

    @property
    def summary(self) -> str:
        return "".join(step.summary for step in self.steps)

    def show(self) -> str:
        """Everything the steps printed, for assertion messages."""
        return "\n".join(
            f"--- step {step.id}: exit {step.code}\n{step.stdout}--- stderr\n{step.stderr}"
            f"--- outputs {step.outputs}"
            for step in self.steps
        )


def evaluate(text: str, inputs: Mapping[str, str], steps: Mapping[str, Mapping[str, str]]) -> str:
    """Replace the `${{ }}` expressions action.yml uses; any other expression is a test error."""

    def value(expression: re.Match[str]) -> str:
        body = expression["body"]
        if found := INPUT_REFERENCE.fullmatch(body):
            return inputs[found["name"]]
        if found := STEP_OUTPUT_REFERENCE.fullmatch(body):
            return steps.get(found["step"], {}).get(found["name"], "")
        if body == "github.action_path":
            return str(ROOT)
        if body == "github.token":
            return GITHUB_TOKEN
        raise AssertionError(f"the test's evaluator does not know ${{{{ {body} }}}}")

    return EXPRESSION.sub(value, text)


def parse_github_output(text: str) -> dict[str, str]:
    """Read a `$GITHUB_OUTPUT` file as the runner does: `name=value` and heredoc entries."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        heredoc = "<<" in line and ("=" not in line or line.index("<<") < line.index("="))
        if heredoc:
            name, delimiter = line.split("<<", 1)
            assert delimiter in lines[index:], f"heredoc {name} is never closed"
            end = lines.index(delimiter, index)
            value = "\n".join(lines[index:end])
            index = end + 1
        else:
            name, value = line.split("=", 1)
        assert name not in values, f"output {name} written twice"
        values[name] = value
    return values


def _environment(runner: Path, extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(runner),
        "LANG": "C.UTF-8",
        "RUNNER_TEMP": str(runner),
        "GITHUB_ACTION_PATH": str(ROOT),
        **extra,
    }


def run_action(
    workspace: Path,
    inputs: Mapping[str, str],
    *,
    env: Mapping[str, str] | None = None,
    interrupt: signal.Signals | None = None,
    until: str | None = None,
) -> ActionRun:
    """Run action.yml's shell steps in `workspace`, as GitHub would with these inputs.

    With `interrupt`, the `run` step is sent that signal once the target was first asked (the
    target touches `asked` in the workspace), as a cancelled job's step is. With `until`, the
    steps stop after the step of that id, for a test that reads only what it and the steps
    before it did.
    """
    unknown = set(inputs) - set(INPUTS)
    assert not unknown, f"action.yml has no input {unknown}"
    values = {name: str(spec.get("default", "")) for name, spec in INPUTS.items()}
    values.update(inputs)
    runner = Path(tempfile.mkdtemp(prefix=f"{workspace.name}-runner-", dir=workspace.parent))
    done = ActionRun()
    outputs: dict[str, dict[str, str]] = {}
    for index, step in enumerate(STEPS):
        if "uses" in step or step.get("id") == "install":
            continue
        # A shell step runs unless the job was cancelled, which it never is here.
        assert step.get("if", "${{ !cancelled() }}") == "${{ !cancelled() }}", step["id"]
        script = runner / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        output_file = runner / f"output-{index}"
        summary_file = runner / f"summary-{index}"
        output_file.touch()
        summary_file.touch()
        environ = _environment(
            runner,
            {
                **(env or {}),
                "GITHUB_OUTPUT": str(output_file),
                "GITHUB_STEP_SUMMARY": str(summary_file),
            },
        )
        environ.update(
            {name: evaluate(str(text), values, outputs) for name, text in step["env"].items()}
        )
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        if interrupt is not None and step["id"] == "run":
            code, stdout, stderr = _interrupted(command, workspace, environ, interrupt)
        else:
            finished = subprocess.run(
                command,
                cwd=workspace,
                env=environ,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            code, stdout, stderr = finished.returncode, finished.stdout, finished.stderr
        outputs[step["id"]] = parse_github_output(output_file.read_text(encoding="utf-8"))
        done.steps.append(
            StepRun(
                step["id"],
                code,
                stdout,
                stderr,
                outputs[step["id"]],
                summary_file.read_text(encoding="utf-8"),
            )
        )
        if code != 0 or step["id"] == until:
            break
    assert until is None or done.steps[-1].id == until, f"no step {until} ran"
    done.outputs = {
        name: evaluate(str(spec["value"]), values, outputs) for name, spec in OUTPUTS.items()
    }
    return done


def _interrupted(
    command: list[str], workspace: Path, environ: dict[str, str], number: signal.Signals
) -> tuple[int, str, str]:
    with subprocess.Popen(
        command,
        cwd=workspace,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        deadline = time.monotonic() + 60
        while not (workspace / "asked").exists():
            assert process.poll() is None, "the step ended before the target was asked"
            assert time.monotonic() < deadline, "the target was never asked"
            time.sleep(0.02)
        process.send_signal(number)  # to bash alone: its trap must pass it on
        stdout, stderr = process.communicate(timeout=60)
        return process.returncode, stdout, stderr


def workspace_with(tmp_path: Path, *files: str) -> Path:
    """A workspace holding the Action self-test targets and the named built-in suite files."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    shutil.copy(ROOT / "tests" / "action_targets.py", workspace / "action_targets.py")
    for name in files:
        if name == "suites":
            shutil.copytree(ROOT / "suites", workspace / "suites")
        else:
            shutil.copy(ROOT / "suites" / name, workspace / name)
    return workspace


ERROR_ANNOTATION = re.compile(
    r"^::error file=(?P<file>[^,]*),line=(?P<line>\d+),title=(?P<title>[^:]*)::"
)


def error_annotations(run: ActionRun) -> list[re.Match[str]]:
    return [
        found
        for line in run.step("report").stdout.splitlines()
        if (found := ERROR_ANNOTATION.match(line))
    ]


def workflow_commands(run: ActionRun) -> list[str]:
    """Every line the steps printed that the runner would read as a workflow command."""
    return [line for line in run.stdout.splitlines() if line.startswith("::")]


def _unescape(value: str) -> str:
    for escaped, plain in (("%2C", ","), ("%3A", ":"), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%")):
        value = value.replace(escaped, plain)
    return value


def assert_only_known_commands(run: ActionRun) -> None:
    """The steps print no workflow command but the Action's own and gauntlet's annotations."""
    token = None
    for line in workflow_commands(run):
        if token is None and (started := re.fullmatch(r"::stop-commands::([0-9a-f]{32})", line)):
            token = started[1]
        elif token is not None and line == f"::{token}::":
            token = None
        else:
            assert token is None, f"a command inside the stop-commands block: {line}"
            assert ERROR_ANNOTATION.match(line) or line.startswith(
                (
                    "::error title=gauntlet action::",
                    "::warning title=gauntlet action::",
                    "::notice title=gauntlet action::",
                    "::warning title=gauntlet::",
                )
            ), line
    assert token is None, "stop-commands was never ended"


# ---------------------------------------------------------------- scenarios, run once each


@pytest.fixture(scope="module")
def passing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ActionRun]:
    workspace = workspace_with(tmp_path_factory.mktemp("passing"), "suites")
    inputs = {"cases": "suites", "target-callable": "action_targets:passing"}
    return workspace, run_action(workspace, inputs)


@pytest.fixture(scope="module")
def failing(
    tmp_path_factory: pytest.TempPathFactory, passing: tuple[Path, ActionRun]
) -> tuple[Path, ActionRun]:
    """The defective toy, with the passing run's results as the baseline."""
    workspace = workspace_with(tmp_path_factory.mktemp("failing"), "suites")
    shutil.copy(passing[1].outputs["results-path"], workspace / "baseline.json")
    inputs = {
        "cases": "suites",
        "target-callable": "action_targets:failing",
        "baseline": "baseline.json",
    }
    return workspace, run_action(workspace, inputs)


@pytest.fixture(scope="module")
def mute(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ActionRun]:
    workspace = workspace_with(tmp_path_factory.mktemp("mute"), "adversarial.yaml")
    inputs = {"cases": "adversarial.yaml", "target-callable": "action_targets:mute"}
    return workspace, run_action(workspace, inputs)


def _pack(path: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return document


def test_a_passing_run_passes_with_every_output_from_gauntlet(
    passing: tuple[Path, ActionRun],
) -> None:
    workspace, run = passing
    assert run.code == 0, run.show()
    assert [step.id for step in run.steps] == [
        "history",
        "run",
        "baseline",
        "report",
        "evidence",
        "verdict",
    ]
    out = run.outputs
    assert out["exit-code"] == "0"
    assert (out["passed"], out["verdict"]) == ("true", "pass")
    assert (out["gates-total"], out["gates-passed"], out["gates-failed"]) == ("7", "7", "0")
    assert out["cases-total"] == out["cases-passed"] == str(TOTAL_CASES)
    assert (out["cases-failed"], out["cases-errored"], out["cases-not-run"]) == ("0", "0", "0")
    assert (out["drift-computed"], out["drift-newly-failing"]) == ("false", "0")
    for name, relative in (
        ("results-path", "gauntlet/results.json"),
        ("report-path", "gauntlet/evidence.md"),
        ("json-path", "gauntlet/evidence.json"),
        ("junit-path", "gauntlet/junit.xml"),
        ("sarif-path", "gauntlet/gauntlet.sarif"),
    ):
        assert out[name] == str(workspace / relative)
        assert Path(out[name]).stat().st_size > 0
    pack = _pack(out["json-path"])
    assert out["results-digest"] == pack["results_digest"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", out["results-digest"])
    assert pack["totals"]["total"] == TOTAL_CASES
    assert error_annotations(run) == []
    assert_only_known_commands(run)


def test_every_output_is_set_by_a_passing_run(passing: tuple[Path, ActionRun]) -> None:
    _, run = passing
    # baseline-run-id is set only with baseline-from-branch, which this run does not use.
    assert {name for name, value in run.outputs.items() if value == ""} == {"baseline-run-id"}


def test_the_job_summary_is_the_markdown_pack(passing: tuple[Path, ActionRun]) -> None:
    _, run = passing
    report = Path(run.outputs["report-path"]).read_text(encoding="utf-8")
    assert run.summary == report
    assert report.startswith("# gauntlet evidence pack")
    assert run.outputs["results-digest"] in report


def test_a_failing_run_fails_the_step_and_annotates_each_failing_case(
    failing: tuple[Path, ActionRun],
) -> None:
    workspace, run = failing
    assert run.code == 1, run.show()
    assert run.steps[-1].id == "verdict"
    out = run.outputs
    assert (out["exit-code"], out["passed"], out["verdict"]) == ("1", "false", "fail")
    assert (out["gates-failed"], out["gates-passed"]) == ("1", "6")
    pack = _pack(out["json-path"])
    failed = [case for case in pack["cases"] if case["outcome"] == "failed"]
    assert out["cases-failed"] == str(len(failed)) != "0"
    found = error_annotations(run)
    assert len(found) == len(failed)
    for annotation in found:
        title = _unescape(annotation["title"])
        case_id = title.split(": ", 1)[1].split(" ", 1)[0]
        assert title.startswith("gauntlet grounding: ")
        assert annotation["file"] == "suites/grounding.yaml"
        line = (
            (workspace / "suites" / "grounding.yaml")
            .read_text()
            .splitlines()[int(annotation["line"]) - 1]
        )
        assert f"id: {case_id}" in line
    assert_only_known_commands(run)


def test_a_failing_run_writes_sarif_locating_each_failing_case_in_the_workspace(
    failing: tuple[Path, ActionRun],
) -> None:
    # Trap: a `sarif-path` output with no file behind it, a file code scanning refuses, or
    # findings named by the runner's absolute paths rather than from the repository root.
    _, run = failing
    path = Path(run.outputs["sarif-path"])
    document = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "tests" / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    jsonschema.Draft4Validator(schema).validate(document)
    findings = document["runs"][0]["results"]
    assert len(findings) == int(run.outputs["cases-failed"]) != 0
    annotated = {(a["file"], a["line"]) for a in error_annotations(run)}
    located = {
        (
            f["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            str(f["locations"][0]["physicalLocation"]["region"]["startLine"]),
        )
        for f in findings
    }
    assert located == annotated
    assert document["runs"][0]["properties"]["verdict"] == run.outputs["verdict"]


def test_a_baseline_gives_drift_computed_by_gauntlet(failing: tuple[Path, ActionRun]) -> None:
    _, run = failing
    drift = _pack(run.outputs["json-path"])["baseline"]["drift"]
    assert run.outputs["drift-computed"] == "true"
    assert run.outputs["drift-newly-failing"] == str(len(drift["newly_failing"])) != "0"
    assert run.outputs["drift-newly-passing"] == "0"


def test_fail_on_gate_failure_false_lets_a_gate_failure_pass(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:failing",
        "fail-on-gate-failure": "false",
        "json-path": "",
        "junit-path": "",
        "sarif-path": "",
        "job-summary": "false",
        "annotations": "false",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("1", "fail")
    assert run.outputs["passed"] == "false"
    assert "::warning title=gauntlet::a gate missed its threshold" in run.step("verdict").stdout
    assert (run.outputs["json-path"], run.outputs["junit-path"]) == ("", "")
    assert run.outputs["sarif-path"] == ""
    assert not (workspace / "gauntlet" / "evidence.json").exists()
    assert run.summary == ""
    assert error_annotations(run) == []


def test_findings_sarif_cannot_place_leave_the_verdict_and_warn(tmp_path: Path) -> None:
    # Trap: SARIF's refusal of a finding outside the repository (a built-in suite, a case
    # file elsewhere) failing the Report step with exit 2, so a run whose gates passed (its
    # failure waived) or failed (exit 1) ended as a harness error, and no pack was staged.
    workspace = workspace_with(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(ROOT / "suites" / "grounding.yaml", outside / "grounding.yaml")
    inputs = {
        "cases": str(outside / "grounding.yaml"),
        "target-callable": "action_targets:failing",
        "job-summary": "false",
        "annotations": "false",
    }
    run = run_action(workspace, inputs, env={"GITHUB_WORKSPACE": str(workspace)})
    assert run.step("report").code == 0, run.show()
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("1", "fail")
    assert run.outputs["sarif-path"] == ""
    assert not (workspace / "gauntlet" / "gauntlet.sarif").exists()
    assert "::warning title=gauntlet::no SARIF file" in run.step("report").stdout
    assert (workspace / "gauntlet" / "evidence.json").exists()


def test_the_workflow_run_id_reaches_the_results(tmp_path: Path) -> None:
    """Shards carry the run's id, so `gauntlet merge` can refuse shards of two runs."""
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {"cases": "grounding.yaml", "target-callable": "action_targets:passing"}
    run = run_action(workspace, inputs, env={"GITHUB_RUN_ID": "987654321"})
    assert run.code == 0, run.show()
    results = json.loads((workspace / "gauntlet" / "results.json").read_text())
    assert results["run_id"] == "987654321"
    other = tmp_path / "other"
    other.mkdir()
    hostile = run_action(
        workspace_with(other, "grounding.yaml"), inputs, env={"GITHUB_RUN_ID": "1;x"}
    )
    assert hostile.code == 0, hostile.show()  # not a run id: left out, never passed on
    results = json.loads((other / "workspace" / "gauntlet" / "results.json").read_text())
    assert results["run_id"] is None


def test_a_mute_target_on_absence_checks_only_is_unscoreable(
    mute: tuple[Path, ActionRun],
) -> None:
    _, run = mute
    assert run.code == 4, run.show()
    out = run.outputs
    assert (out["exit-code"], out["passed"]) == ("4", "false")
    assert out["verdict"] == "withheld-unscoreable"
    assert "WITHHELD" in run.summary
    assert Path(out["report-path"]).exists()


SLOW_TARGET = """
import pathlib, time
from gauntlet.targets.toy import make_toy

class Slow:
    name = "slow"
    toy = make_toy()

    def ask(self, prompt, language):
        pathlib.Path("asked").touch()
        time.sleep(0.2)
        return self.toy.ask(prompt, language)

def slow():
    return Slow()
"""
"""The toy, slowly, saying when it was first asked: a run to interrupt."""


def test_an_interrupted_run_still_writes_its_results_and_withholds(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "slow_target.py").write_text(SLOW_TARGET, encoding="utf-8")
    inputs = {"cases": "grounding.yaml", "target-callable": "slow_target:slow", "concurrency": "1"}
    run = run_action(workspace, inputs, interrupt=signal.SIGTERM)
    assert run.code == 2, run.show()
    assert run.step("run").code == 0
    out = run.outputs
    assert (out["exit-code"], out["verdict"]) == ("2", "withheld-incomplete")
    assert int(out["cases-not-run"]) > 0
    results = json.loads(Path(out["results-path"]).read_text(encoding="utf-8"))
    assert (results["complete"], results["interrupted_by"]) == (False, "SIGTERM")


def test_an_interrupt_is_passed_on_as_a_terminate(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "refusal.yaml")
    (workspace / "slow_target.py").write_text(SLOW_TARGET, encoding="utf-8")
    inputs = {"cases": "refusal.yaml", "target-callable": "slow_target:slow", "concurrency": "1"}
    run = run_action(workspace, inputs, interrupt=signal.SIGINT)
    assert run.code == 2, run.show()
    assert run.outputs["verdict"] == "withheld-incomplete"
    results = json.loads(Path(run.outputs["results-path"]).read_text(encoding="utf-8"))
    assert results["interrupted_by"] == "SIGTERM"


# ---------------------------------------------------------------- hostile and invalid inputs


def test_hostile_case_paths_are_taken_literally(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "suites")
    inputs = {
        "cases": "suites/$(touch pwned); touch pwned2 #\n`touch pwned3` && echo ${HOME}",
        "target-callable": "action_targets:passing",
    }
    run = run_action(workspace, inputs)
    assert run.code == 2, run.show()
    assert list(tmp_path.rglob("pwned*")) == []
    stderr = run.step("run").stderr
    assert "suites/$(touch pwned); touch pwned2 #: no such file or directory" in stderr
    assert "`touch pwned3` && echo ${HOME}: no such file or directory" in stderr
    assert "Traceback" not in stderr
    out = run.outputs
    assert (out["exit-code"], out["passed"], out["verdict"]) == ("2", "false", "withheld")
    assert (out["results-path"], out["report-path"], out["results-digest"]) == ("", "", "")
    assert "The run could not start (exit code 2)" in run.summary
    assert_only_known_commands(run)


def test_a_hostile_callable_is_taken_literally(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {"cases": "grounding.yaml", "target-callable": "action_targets:passing$(touch pwned)"}
    run = run_action(workspace, inputs)
    assert run.code == 2, run.show()
    assert list(tmp_path.rglob("pwned*")) == []
    assert "has no 'passing$(touch pwned)'" in run.step("run").stderr
    assert run.outputs["verdict"] == "withheld"


def test_a_path_cannot_forge_an_output(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    forged = "out $(touch pwned)/r;`x`\nverdict=pass\npassed=true\nEOF\nresults.json"
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:failing",
        "results-path": forged,
        "report-path": "report\nverdict=pass.md",
    }
    run = run_action(workspace, inputs)
    assert run.code == 1, run.show()
    assert (run.outputs["verdict"], run.outputs["passed"]) == ("fail", "false")
    assert run.outputs["results-path"] == str(workspace / forged)
    assert Path(run.outputs["results-path"]).is_file()
    assert run.outputs["report-path"] == str(workspace / "report\nverdict=pass.md")
    assert list(tmp_path.rglob("pwned")) == []


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"cases": " \n "}, "cases: name at least one case file or directory"),
        ({"target-callable": ""}, "set target-file, target-url or target-callable"),
        (
            {"target-url": "http://127.0.0.1:9/"},
            "target-file, target-url and target-callable: set one, not several",
        ),
        (
            {"target-file": "target.yaml"},
            "target-file, target-url and target-callable: set one, not several",
        ),
        ({"headers": "Authorization: Bearer abc123"}, "headers line 1: expected Header-Name="),
        ({"headers": "X-Ok=GOOD\nX-Key=${{ secrets.KEY }}"}, "headers line 2: expected"),
        ({"annotations": "yes"}, "annotations: expected true or false"),
        ({"fail-on-gate-failure": "False"}, "fail-on-gate-failure: expected true or false"),
        ({"report-path": ""}, "report-path: must not be empty"),
        ({"calibration-file": "record.json"}, "calibration-file: is for a model judge"),
        ({"strict-waivers": "true"}, "strict-waivers: is for a run with waivers"),
        ({"strict-waivers": "yes"}, "strict-waivers: expected true or false"),
        ({"working-directory": "nowhere"}, "working-directory: not a directory"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_invalid_inputs_are_a_clean_exit_2(
    tmp_path: Path, inputs: dict[str, str], message: str
) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    given = {"cases": "grounding.yaml", "target-callable": "action_targets:passing", **inputs}
    run = run_action(workspace, given)
    assert run.code == 2, run.show()
    assert f"::error title=gauntlet action::{message}" in run.step("run").stdout
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("2", "withheld")
    assert "abc123" not in run.everything
    assert not (workspace / "gauntlet" / "results.json").exists()


def test_a_stale_results_file_never_passes_for_this_run(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "gauntlet").mkdir()
    (workspace / "gauntlet" / "results.json").write_text("{}", encoding="utf-8")
    inputs = {"cases": "grounding.yaml", "target-callable": "action_targets:passing"}
    run = run_action(workspace, {**inputs, "concurrency": "many"})
    assert run.code == 2, run.show()
    assert not (workspace / "gauntlet" / "results.json").exists()
    assert (run.outputs["results-path"], run.outputs["verdict"]) == ("", "withheld")


def test_working_directory_and_a_missing_baseline(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path)
    project = workspace / "my project"
    project.mkdir()
    shutil.copy(ROOT / "suites" / "golden.yaml", project / "golden.yaml")
    shutil.move(workspace / "action_targets.py", project / "action_targets.py")
    inputs = {
        "cases": "golden.yaml",
        "target-callable": "action_targets:passing",
        "working-directory": "my project",
        "baseline": "previous/results.json",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()
    assert run.outputs["results-path"] == str(project / "gauntlet" / "results.json")
    assert run.outputs["drift-computed"] == "false"
    assert "baseline previous/results.json does not exist" in run.step("report").stderr


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.mark.network
def test_headers_are_read_from_the_environment_and_redacted(
    server: HostileServer, tmp_path: Path
) -> None:
    workspace = workspace_with(tmp_path)
    suite = grounding_suite("echo", "ask-1", "ask-2", ask_ids=True)
    (workspace / "echo.yaml").write_text(suite, encoding="utf-8")
    inputs = {
        "cases": "echo.yaml",
        "target-url": server.url("/echo-auth"),
        "target-callable": "",
        "headers": "\n  Authorization=GAUNTLET_ACTION_AUTH  \n",
    }
    run = run_action(workspace, inputs, env={"GAUNTLET_ACTION_AUTH": f"Bearer {TOKEN}"})
    assert run.code == 0, run.show()
    assert [seen.headers["authorization"] for seen in server.seen] == [f"Bearer {TOKEN}"] * 3
    assert TOKEN not in run.everything
    assert TOKEN not in Path(run.outputs["results-path"]).read_text(encoding="utf-8")
    assert TOKEN not in Path(run.outputs["report-path"]).read_text(encoding="utf-8")


def test_a_header_naming_an_unset_variable_is_gauntlets_clean_exit_2(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-url": "http://127.0.0.1:9/",
        "target-callable": "",
        "headers": "X-Api-Key=GAUNTLET_ACTION_UNSET",
    }
    run = run_action(workspace, inputs)
    assert run.code == 2, run.show()
    assert "environment variable GAUNTLET_ACTION_UNSET is not set" in run.step("run").stderr
    assert run.outputs["verdict"] == "withheld"


# ---------------------------------------------------------------- the file itself


def test_no_expression_appears_inside_a_run_script() -> None:
    scripts = [step["run"] for step in STEPS if "run" in step]
    assert len(scripts) == 7
    assert all("${{" not in script for script in scripts)


def test_expressions_appear_only_in_env_with_and_output_values() -> None:
    for step in STEPS:
        for key, value in step.items():
            if key not in ("env", "with", "if"):
                assert "${{" not in str(value), f"{step['id']}.{key}"
    for spec in INPUTS.values():
        assert "${{" not in str(spec)


def test_the_install_step_is_identifiable_and_installs_from_the_action_directory() -> None:
    [install] = [step for step in STEPS if step.get("id") == "install"]
    assert '"$GITHUB_ACTION_PATH"' in install["run"]
    assert "--require-hashes" in install["run"]
    assert '"$GITHUB_ACTION_PATH/action.lock"' in install["run"]
    assert all(step.get("shell") == "bash" for step in STEPS if "run" in step)


PINNED = re.compile(
    r"^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w.-]+(?:/[\w.-]+)*@[0-9a-f]{40} # v\d+\.\d+\.\d+$"
)
USES = re.compile(r"^\s*(?:-\s+)?uses:\s+(?P<ref>\S+)")
JOB = re.compile(r"^  [\w-]+:$")


def _uses(line: str) -> str | None:
    match = USES.match(line)
    return match["ref"] if match else None


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda path: path.name)
def test_every_third_party_action_is_pinned_by_commit_with_its_version(path: Path) -> None:
    lines = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.match(r"\s*(?:-\s+)?uses:", line)
    ]
    assert lines
    for line in lines:
        if _uses(line) == "./":
            continue  # this repository's own action, checked out at the commit that is running
        assert PINNED.match(line), line


def test_the_action_runs_on_itself_as_dot_slash_after_a_checkout() -> None:
    # `./` names the workspace, so it is this commit's action only once the job has checked
    # it out; `$/`, GitHub's newer form, is not confirmed for a repository's root action.
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    checked_out = False
    local = []
    for line in workflow.splitlines():
        if JOB.match(line):
            checked_out = False  # a new job starts on a fresh runner
        ref = _uses(line)
        if ref is None:
            continue
        if ref.startswith("actions/checkout@"):
            checked_out = True
        elif not PINNED.match(line):
            assert ref == "./", line
            assert checked_out, f"no actions/checkout before {line.strip()}"
            local.append(line)
    assert len(local) == 5


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda path: path.name)
def test_nothing_writes_the_job_environment(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    code = [line for line in lines if not line.lstrip().startswith("#")]
    assert [line for line in code if "GITHUB_ENV" in line or "GITHUB_PATH" in line] == []


def test_the_workflows_exist() -> None:
    assert "ci.yml" in [path.name for path in WORKFLOWS]
    assert (ROOT / ".github" / "dependabot.yml").is_file()


def test_every_verdict_word_is_documented() -> None:
    words = {status.value for status in VerdictStatus if status is not VerdictStatus.WITHHELD}
    words |= {f"withheld-{reason.value}" for reason in WithheldBecause}
    words.add("withheld")
    described = set(re.findall(r"`([a-z_-]+)`", OUTPUTS["verdict"]["description"]))
    assert described == words


# ------------------------------------------------------- docs/ci.md's tables, the README's example


def inputs_table() -> str:
    """The inputs table of docs/ci.md, generated from action.yml."""
    rows = ["| input | default | description |", "|---|---|---|"]
    for name, spec in INPUTS.items():
        default = str(spec.get("default", ""))
        if spec.get("required"):
            shown = "required"
        elif default:
            shown = f"`{default}`"
        else:
            shown = "(empty)"
        rows.append(f"| `{name}` | {shown} | {spec['description']} |")
    return "\n".join(rows) + "\n"


def outputs_table() -> str:
    """The outputs table of docs/ci.md, generated from action.yml."""
    rows = ["| output | description |", "|---|---|"]
    rows += [f"| `{name}` | {spec['description']} |" for name, spec in OUTPUTS.items()]
    return "\n".join(rows) + "\n"


def _docs_table(header: str) -> str:
    start = CI_DOC.index(f"\n{header}\n") + 1
    end = CI_DOC.find("\n\n", start)
    return CI_DOC[start : end + 1]


def test_the_docs_inputs_table_is_action_yml() -> None:
    assert _docs_table("| input | default | description |") == inputs_table()


def test_the_docs_outputs_table_is_action_yml() -> None:
    assert _docs_table("| output | description |") == outputs_table()


def _readme_section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _action_section() -> str:
    return _readme_section("The GitHub Action")


def test_the_readme_example_pins_a_tag_the_release_workflow_makes() -> None:
    # Trap: an example pinned to a placeholder SHA, or to a tag no release makes, is an
    # example nobody can copy.
    from gauntlet.version import __version__

    section = _action_section()
    assert "PLACEHOLDER" not in section
    [pin] = re.findall(r"^ +uses: [\w-]+/gauntlet@(\S+)", section, re.MULTILINE)
    assert pin == f"v{__version__}"
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert 'tags: ["v*.*.*"]' in release
    assert "branch protection" in section


def test_the_code_scanning_example_uploads_the_sarif_output_pinned_by_commit() -> None:
    # Trap: an upload step pinned to a movable tag, skipped exactly when a gate failed, naming
    # an output the Action lacks, or in a job without the permission to upload.
    section = CI_DOC.split("\n## Code scanning\n", 1)[1].split("\n## ", 1)[0]
    [text] = re.findall(r"```yaml workflow\n(.*?)```", section, re.DOTALL)
    workflow = read_document(text.replace("\non:\n", '\n"on":\n'), "gauntlet.yml").data
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    gauntlet, upload = job["steps"][1:]
    assert set(gauntlet["with"]) <= set(INPUTS)
    [line] = [line for line in text.splitlines() if "upload-sarif@" in line]
    assert PINNED.match(line), line
    assert upload["with"]["sarif_file"] == "${{ steps.gauntlet.outputs.sarif-path }}"
    assert "sarif-path" in OUTPUTS
    assert upload["if"].startswith("${{ !cancelled()")


def test_the_readme_example_uses_a_target_file_end_to_end(tmp_path: Path) -> None:
    # Trap: a README workflow naming inputs the Action lacks, or a target file that does
    # not load, fails on the user's first push.
    from gauntlet.targets.target_file import load_target_file

    # The workflow is the Action's example; the target file it names, the one before it.
    [workflow_text] = re.findall(r"```yaml[^\n]*\n(.*?)```", _action_section(), re.DOTALL)
    feature = _readme_section("Point it at your feature")
    [target_text] = re.findall(r"```yaml[^\n]*\n(.*?)```", feature, re.DOTALL)
    assert "target-file: evals/target.yaml" in workflow_text
    assert "`evals/target.yaml`" in feature
    # GitHub reads `on` as a key; gauntlet's strict reader refuses it as YAML 1.1's boolean.
    assert "\non:\n" in workflow_text
    workflow = read_document(workflow_text.replace("\non:\n", '\n"on":\n'), "gauntlet.yml").data
    assert set(workflow["on"]) == {"pull_request", "push"}
    assert workflow["on"]["push"]["branches"] == ["main"]
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "actions": "read"}
    checkout, gauntlet = job["steps"]
    assert checkout["with"]["persist-credentials"] is False
    given = gauntlet["with"]
    assert set(given) <= set(INPUTS)
    for name in ("target-file", "headers", "history", "baseline-from-branch"):
        assert given[name], name
    assert given["baseline-from-branch"] == "main"
    header, variable = given["headers"].strip().split("=")
    assert gauntlet["env"][variable].startswith("Bearer ${{ secrets.")
    assert INPUTS["upload-evidence"]["default"] == "true"  # the evidence goes up unasked
    target = tmp_path / "target.yaml"
    target.write_text(target_text, encoding="utf-8")
    loaded = load_target_file(target, environ={})
    assert loaded is not None


def test_shard_and_repeat_reach_gauntlet(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "shard": "1/2",
        "repeat": "2",
        "job-summary": "false",
        "annotations": "false",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()
    results = json.loads((workspace / "gauntlet" / "results.json").read_text(encoding="utf-8"))
    assert results["shard"] == {"index": 1, "count": 2}
    assert 0 < len(results["cases"]) < results["plan"]["cases"]
    assert all(case["repeats"] == 2 for case in results["cases"])


def test_judge_file_reaches_gauntlet(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "judge.yaml").write_text(
        "version: 1\nkind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: judge\n"
        "temperature: 0\nresponse:\n  citations: {absent: true}\n  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "judge-file": "judge.yaml",
        "job-summary": "false",
        "annotations": "false",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()  # no case here has judged checks: the judge is not asked
    results = json.loads((workspace / "gauntlet" / "results.json").read_text(encoding="utf-8"))
    assert results["judge"]["target_file"] == "judge.yaml"
    assert results["judge"]["fingerprint"]["model"] == "judge"
    assert results["judge"]["refused"].startswith("no calibration record was given")


def test_waivers_reach_gauntlet_and_cases_waived_is_an_output(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    today = datetime.now(UTC).date()
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "waivers.yaml").write_text(
        "waivers:\n  - suite: riverbend-grounding\n    reason: citations are being rebuilt\n"
        "    owner: maria.lopez\n    ticket: https://tracker.example/GOV-1\n"
        f"    created: {today - timedelta(days=3)}\n    expires: {today + timedelta(days=3)}\n",
        encoding="utf-8",
    )
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:failing",
        "waivers": "waivers.yaml",
        "job-summary": "false",
        "annotations": "false",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()
    out = run.outputs
    assert (out["exit-code"], out["verdict"], out["cases-failed"]) == ("0", "pass", "0")
    pack = _pack(out["json-path"])
    assert out["cases-waived"] == str(pack["totals"]["waived"]) != "0"


@pytest.mark.network
def test_headers_beside_a_target_file_are_sent_and_redacted(
    server: HostileServer, tmp_path: Path
) -> None:
    # Trap: `headers` with `target-file` became `--header` beside `--target`, which gauntlet
    # refused at run time: the Action documented an input that could never work.
    workspace = workspace_with(tmp_path)
    suite = grounding_suite("echo", "ask-1", "ask-2", ask_ids=True)
    (workspace / "echo.yaml").write_text(suite, encoding="utf-8")
    (workspace / "target.yaml").write_text(
        f"version: 1\nkind: gauntlet\nurl: {server.url('/echo-auth')}\n", encoding="utf-8"
    )
    inputs = {
        "cases": "echo.yaml",
        "target-file": "target.yaml",
        "target-callable": "",
        "headers": "Authorization=GAUNTLET_ACTION_AUTH",
    }
    run = run_action(workspace, inputs, env={"GAUNTLET_ACTION_AUTH": f"Bearer {TOKEN}"})
    assert run.code == 0, run.show()
    assert [seen.headers["authorization"] for seen in server.seen] == [f"Bearer {TOKEN}"] * 3
    assert TOKEN not in run.everything
    assert TOKEN not in Path(run.outputs["results-path"]).read_text(encoding="utf-8")


def test_a_header_the_target_file_also_writes_is_a_clean_exit_2(tmp_path: Path) -> None:
    # Trap: two values for one header, one silently winning, sends what nobody chose.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "target.yaml").write_text(
        "version: 1\nkind: gauntlet\nurl: http://127.0.0.1:9/\nheaders:\n  X-Key: a\n",
        encoding="utf-8",
    )
    inputs = {
        "cases": "grounding.yaml",
        "target-file": "target.yaml",
        "target-callable": "",
        "headers": "x-key=GAUNTLET_ACTION_KEY",
    }
    run = run_action(workspace, inputs, env={"GAUNTLET_ACTION_KEY": "b-value-long"})
    assert run.code == 2, run.show()
    assert "x-key" in run.step("run").stderr and "target file" in run.step("run").stderr
    assert "Traceback" not in run.step("run").stderr
    assert run.outputs["verdict"] == "withheld"


# ---------------------------------------------------------------- history, evidence, baseline

MAIN = {
    "GITHUB_REF_NAME": "main",
    "GITHUB_SHA": "3f2a9c1" + "0" * 33,
    "GITHUB_RUN_ID": "1001",
    "GITHUB_RUN_ATTEMPT": "1",
}
"""What the runner sets for a push to main."""


def _history_runs(history: Path) -> list[str]:
    listed = subprocess.run(
        [str(BIN / "gauntlet"), "history", "list", f"--history={history}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return [line for line in listed.stdout.splitlines() if "branch=main" in line]


def test_the_history_gets_every_run_and_the_pack_reads_its_trends(tmp_path: Path) -> None:
    # Trap: a `history` input that only restored and saved a file, never passed to
    # `gauntlet run`, keeps an empty history forever; one passed to `run` alone stores runs
    # that no evidence pack ever reads.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "history": "ci/history.sqlite",
        "job-summary": "false",
    }
    environment = {**MAIN, "GITHUB_WORKSPACE": str(workspace)}
    first = run_action(workspace, inputs, env=environment)
    assert first.code == 0, first.show()
    second = run_action(workspace, inputs, env={**environment, "GITHUB_RUN_ID": "1002"})
    assert second.code == 0, second.show()
    history = workspace / "ci" / "history.sqlite"
    runs = _history_runs(history)
    assert len(runs) == 2, runs
    assert all(f"commit={MAIN['GITHUB_SHA']}" in line for line in runs)
    assert second.step("run").outputs["history-path"] == str(history)
    assert not Path(f"{history}-wal").exists()  # the cache saves one whole file
    assert _pack(second.outputs["json-path"])["trends"] is not None
    assert "## Trends" in Path(second.outputs["report-path"]).read_text(encoding="utf-8")
    planned = first.step("history").outputs
    assert planned["path"] == "ci/history.sqlite"  # as the cache sees it, from the workspace


def _planned(tmp_path: Path, name: str, environment: Mapping[str, str]) -> dict[str, str]:
    """The history step's outputs (the cache's path and keys) for a runner's variables."""
    (tmp_path / name).mkdir()
    workspace = workspace_with(tmp_path / name, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "history": "history.sqlite",
        "job-summary": "false",
    }
    environ = {**environment, "GITHUB_WORKSPACE": str(workspace)}
    # The history step comes first and reads nothing a later step writes.
    run = run_action(workspace, inputs, env=environ, until="history")
    assert run.code == 0, run.show()
    return run.step("history").outputs


KEY = re.compile(r"[a-z0-9-]{1,200}")
"""A cache key the cache accepts: no comma, no newline, short."""


def test_a_pull_request_reads_its_base_branchs_history_and_never_writes_it(
    tmp_path: Path,
) -> None:
    # Trap: keyed by the running ref alone, a pull request would restore nothing and, with a
    # key main also restores, could make its own runs main's history.
    on_main = _planned(tmp_path, "main", MAIN)
    again = _planned(tmp_path, "again", {**MAIN, "GITHUB_RUN_ID": "1002"})
    pull = {**MAIN, "GITHUB_REF_NAME": "7/merge", "GITHUB_BASE_REF": "main"}
    pull |= {"GITHUB_HEAD_REF": "feature"}
    on_pull = _planned(tmp_path, "pull", pull)
    feature = _planned(tmp_path, "feature", {**MAIN, "GITHUB_REF_NAME": "main-2"})
    assert on_main["save-key"].startswith(on_main["restore-key"])
    assert again["restore-key"] == on_main["restore-key"]
    assert again["save-key"] != on_main["save-key"]  # caches are immutable: a key per run
    assert on_pull["restore-key"] == on_main["restore-key"]
    assert on_pull["save-key"] == ""
    assert not feature["save-key"].startswith(on_main["restore-key"])
    for planned in (on_main, again, on_pull, feature):
        assert all(KEY.fullmatch(planned[name]) for name in ("restore-key",)), planned


def test_a_branch_name_cannot_break_or_reach_into_a_cache_key(tmp_path: Path) -> None:
    # Trap: a branch name copied into a key: a comma makes the cache refuse it, and a name
    # holding another's key text matches that branch's prefix.
    hostile = {**MAIN, "GITHUB_REF_NAME": "x,y\nsave-key=gauntlet-history-v1"}
    planned = _planned(tmp_path, "hostile", hostile)
    assert KEY.fullmatch(planned["restore-key"]) and KEY.fullmatch(planned["save-key"])
    assert set(planned) == {"path", "restore-key", "save-key"}


def test_a_history_path_the_cache_would_read_as_a_pattern_is_not_cached(tmp_path: Path) -> None:
    # Trap: actions/cache reads `path` as glob patterns: `h*.sqlite` would save other files.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "history": "h*.sqlite",
        "job-summary": "false",
    }
    run = run_action(workspace, inputs, env=MAIN)
    assert run.code == 0, run.show()
    assert run.step("history").outputs == {}
    assert "history: a path holding a newline or a pattern character" in run.stdout
    assert (workspace / "h*.sqlite").is_file()  # the run still kept it, in this job


def test_a_history_gauntlet_refuses_is_a_clean_exit_2(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    (workspace / "history.sqlite").write_text("not a database\n", encoding="utf-8")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "history": "history.sqlite",
    }
    run = run_action(workspace, inputs, env=MAIN)
    assert run.code == 2, run.show()
    assert "history.sqlite" in run.step("run").stderr
    assert "Traceback" not in run.everything
    assert run.outputs["passed"] == "false"


def _staged(run: ActionRun) -> Path:
    return Path(run.step("evidence").outputs["directory"])


def test_a_failing_gate_still_stages_its_evidence_under_fixed_names(tmp_path: Path) -> None:
    # Trap: evidence uploaded only when the step passes is missing exactly when a reviewer
    # needs it; files uploaded from wherever the paths pointed have no place a later run can
    # find the results in.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:failing",
        "results-path": "out/run 1/r.json",
        "report-path": "pack/e.md",
        "junit-path": "",
    }
    run = run_action(workspace, inputs)
    assert run.code == 1, run.show()
    staged = _staged(run)
    assert sorted(path.name for path in staged.iterdir()) == [
        "evidence.json",
        "evidence.md",
        "gauntlet.sarif",
        "results.json",
    ]
    assert (staged / "results.json").read_bytes() == (workspace / "out/run 1/r.json").read_bytes()
    assert (staged / "evidence.md").read_bytes() == (workspace / "pack/e.md").read_bytes()


def test_upload_evidence_false_stages_nothing(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    inputs = {
        "cases": "grounding.yaml",
        "target-callable": "action_targets:passing",
        "upload-evidence": "false",
    }
    run = run_action(workspace, inputs)
    assert run.code == 0, run.show()
    assert run.step("evidence").outputs == {}


def _uses_step(name: str) -> dict[str, Any]:
    [step] = [step for step in STEPS if step.get("name") == name]
    return step


def test_the_evidence_and_the_history_are_saved_whatever_the_verdict() -> None:
    # Trap: `if:` left at its default (success()) skips the upload and the save on exactly
    # the runs that failed a gate, since the Verdict step is what fails.
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    upload = _uses_step("Upload the evidence")
    assert upload["uses"].split("@")[1] in release  # the pin the release workflow reviewed
    assert upload["if"].startswith("${{ !cancelled() && ")
    assert upload["with"]["name"] == "${{ inputs.artifact-name }}"
    assert upload["with"]["path"] == "${{ steps.evidence.outputs.directory }}"
    save = _uses_step("Save the run history")
    restore = _uses_step("Restore the run history")
    assert save["if"].startswith("${{ !cancelled() && ")
    assert save["uses"].split("@")[1] == restore["uses"].split("@")[1]
    assert save["with"]["path"] == restore["with"]["path"]
    order = [step.get("id") or step["name"] for step in STEPS]
    assert order.index("Save the run history") < order.index("verdict")
    assert order.index("Upload the evidence") < order.index("verdict")
    assert order.index("Restore the run history") < order.index("run")


FAKE_GH = """#!/bin/bash
# A stand-in for the GitHub CLI: says what it was asked, answers as the test told it.
{ printf 'token=%s\\n' "$GH_TOKEN"; printf '%s\\n' "$@"; echo --; } >> "$FAKE_GH_LOG"
case $1-$2 in
  run-list)
    if [ "$FAKE_GH_LIST" = fail ]; then
      echo "HTTP 403: Resource not accessible by integration" >&2
      echo "::warning title=forged::gh said this" >&2
      exit 1
    fi
    printf '%s' "$FAKE_GH_LIST"
    ;;
  run-download)
    while [ "$#" -gt 0 ]; do if [ "$1" = --dir ]; then dir=$2; fi; shift; done
    if [ -z "$FAKE_GH_ARTIFACT" ]; then
      echo "no valid artifacts found to download" >&2
      exit 1
    fi
    cp "$FAKE_GH_ARTIFACT" "$dir/results.json"
    ;;
  *) exit 3 ;;
esac
"""


def _with_fake_gh(tmp_path: Path, listed: str, artifact: str = "") -> dict[str, str]:
    """The runner's variables for a pull request, with `gh` answering `listed` and `artifact`."""
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "gh").write_text(FAKE_GH, encoding="utf-8")
    (fake / "gh").chmod(0o755)
    return {
        "PATH": f"{fake}{os.pathsep}{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "FAKE_GH_LOG": str(tmp_path / "gh.log"),
        "FAKE_GH_LIST": listed,
        "FAKE_GH_ARTIFACT": artifact,
        "GITHUB_REPOSITORY": "riverbend/assistant",
        "GITHUB_WORKFLOW_REF": (
            "riverbend/assistant/.github/workflows/gauntlet.yml@refs/pull/7/merge"
        ),
        "GITHUB_BASE_REF": "main",
        "GITHUB_REF_NAME": "7/merge",
    }


def _baseline_inputs(target: str) -> dict[str, str]:
    return {
        "cases": "grounding.yaml",
        "target-callable": f"action_targets:{target}",
        "baseline-from-branch": "main",
        "job-summary": "false",
        "annotations": "false",
    }


def test_a_pull_request_takes_its_baseline_from_mains_last_run(
    tmp_path: Path, passing: tuple[Path, ActionRun]
) -> None:
    # Trap: a pull request with no baseline computes no drift, and one pointed at the wrong
    # run (any event, any branch, a failed run) compares with what main never was.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    environment = _with_fake_gh(tmp_path, "4242\n", passing[1].outputs["results-path"])
    run = run_action(workspace, _baseline_inputs("failing"), env=environment)
    assert run.code == 1, run.show()
    assert run.outputs["baseline-run-id"] == "4242"
    assert run.outputs["drift-computed"] == "true"
    assert int(run.outputs["drift-newly-failing"]) > 0
    asked = (tmp_path / "gh.log").read_text(encoding="utf-8").split("--\n")
    listing = asked[0].splitlines()
    assert listing[0] == f"token={GITHUB_TOKEN}"
    assert listing[1:3] == ["run", "list"]
    for flag, value in (
        ("--workflow", "gauntlet.yml"),
        ("--branch", "main"),
        ("--event", "push"),
        ("--status", "success"),
        ("--repo", "riverbend/assistant"),
        ("--limit", "1"),
    ):
        assert listing[listing.index(flag) + 1] == value, (flag, listing)
    download = asked[1].splitlines()
    assert download[1:4] == ["run", "download", "4242"]
    assert download[download.index("--name") + 1] == "gauntlet-evidence"


def test_no_run_on_the_branch_yet_is_a_notice_and_no_baseline(tmp_path: Path) -> None:
    # Trap: the first pull request of a repository, before main ever ran, failed for want
    # of a baseline it cannot have.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    run = run_action(workspace, _baseline_inputs("passing"), env=_with_fake_gh(tmp_path, ""))
    assert run.code == 0, run.show()
    assert (run.outputs["verdict"], run.outputs["drift-computed"]) == ("pass", "false")
    assert run.outputs["baseline-run-id"] == ""
    assert (
        "::notice title=gauntlet action::baseline-from-branch: no successful push run of "
        "gauntlet.yml on main yet (a first run), so this run has no baseline"
    ) in run.step("baseline").stdout


def test_a_run_without_the_artifact_is_a_notice_and_no_baseline(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    run = run_action(workspace, _baseline_inputs("passing"), env=_with_fake_gh(tmp_path, "77"))
    assert run.code == 0, run.show()
    assert run.outputs["drift-computed"] == "false"
    assert "run 77 of gauntlet.yml on main has no artifact gauntlet-evidence" in run.stdout
    assert_only_known_commands(run)


def test_a_lookup_that_fails_is_a_warning_and_gh_is_not_obeyed(tmp_path: Path) -> None:
    # Trap: what gh prints on an error, read as workflow commands, could forge annotations.
    workspace = workspace_with(tmp_path, "grounding.yaml")
    environment = _with_fake_gh(tmp_path, "fail")
    run = run_action(workspace, _baseline_inputs("failing"), env=environment)
    assert run.code == 1, run.show()  # drift informs; the gate's verdict is its own
    assert run.outputs["verdict"] == "fail"
    assert "does the job have permissions: actions: read?" in run.stdout
    assert "HTTP 403" in run.stdout
    shown = run.step("baseline").stdout.splitlines()
    forged = shown.index("::warning title=forged::gh said this")
    started = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", shown[forged - 2])
    assert started, shown
    assert shown[forged + 1] == f"::{started[1]}::"


def test_a_run_list_that_is_not_one_run_id_is_never_used(tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    environment = _with_fake_gh(tmp_path, "12 13\n../../x\n", "/etc/hostname")
    run = run_action(workspace, _baseline_inputs("passing"), env=environment)
    assert run.code == 0, run.show()
    assert "the run list did not give one run id" in run.stdout
    assert run.outputs["drift-computed"] == "false"
    assert "download" not in (tmp_path / "gh.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"upload-evidence": "yes"}, "upload-evidence: expected true or false"),
        (
            {"baseline-from-branch": "main", "baseline": "b.json"},
            "baseline and baseline-from-branch: set one, not both",
        ),
        ({"baseline-from-branch": "--help"}, "baseline-from-branch: expected a branch name"),
        ({"baseline-from-branch": "a..b"}, "baseline-from-branch: expected a branch name"),
        ({"baseline-from-branch": "main\n::x"}, "baseline-from-branch: expected a branch name"),
        ({"artifact-name": "a/b"}, "artifact-name: expected up to 100 letters"),
        ({"artifact-name": ""}, "artifact-name: expected up to 100 letters"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_invalid_evidence_and_baseline_inputs_are_a_clean_exit_2(
    tmp_path: Path, inputs: dict[str, str], message: str
) -> None:
    workspace = workspace_with(tmp_path, "grounding.yaml")
    given = {"cases": "grounding.yaml", "target-callable": "action_targets:passing", **inputs}
    run = run_action(workspace, given)
    assert run.code == 2, run.show()
    assert f"::error title=gauntlet action::{message}" in run.step("run").stdout
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("2", "withheld")
    assert run.step("evidence").outputs == {}
