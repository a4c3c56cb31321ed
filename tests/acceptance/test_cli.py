"""The command line as users and CI meet it: exit codes, located errors, no tracebacks."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gauntlet import __version__
from gauntlet.cases.model import case_file_schema
from gauntlet.cases.persona import persona_file_schema
from gauntlet.semantic.calibration import similarity_record_schema
from gauntlet.semantic.labels import similarity_labels_schema
from gauntlet.targets.spec import target_file_schema

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite

ROOT = Path(__file__).resolve().parents[2]
LOCATED = re.compile(r"^\S+\.ya?ml:\d+:\d+: ", re.MULTILINE)

GOOD = grounding_suite("good", "g1")

# Each hostile directory named in the issue: files to write, and the location that must be
# printed (relative to the directory).
HOSTILE: dict[str, tuple[dict[str, str], str]] = {
    "duplicate-key": (
        {"s.yaml": GOOD.replace("version: 1\n", "version: 1\nversion: 2\n")},
        "s.yaml:4:1",
    ),
    "tag": (
        {"s.yaml": GOOD.replace("prompt: Where?", "prompt: !!python/object/apply:os.system [ls]")},
        "s.yaml:8:13",
    ),
    "alias": (
        {"s.yaml": GOOD.replace("prompt: Where?", "prompt: &p Where?\n    tags: *p")},
        "s.yaml:8:13",
    ),
    "yaml11-boolean": (
        {"s.yaml": GOOD.replace("expect_grounded: true", "expect_grounded: yes")},
        "s.yaml:9:22",
    ),
    "threshold-zero": ({"s.yaml": GOOD.replace("threshold: 1.0", "threshold: 0")}, "s.yaml:4:12"),
    "threshold-nan": ({"s.yaml": GOOD.replace("threshold: 1.0", "threshold: .nan")}, "s.yaml:4:12"),
    "yml-file": ({"s.yaml": GOOD, "t.yml": grounding_suite("t", "t1")}, "t.yml:1:1"),
    "unknown-key": (
        {
            "s.yaml": GOOD.replace(
                "expect_grounded", "must_contain: [x]\n    expect_grounded"
            ).replace("prompt:", "promt:")
        },
        "s.yaml:8:5",
    ),
    "duplicate-id-across-files": (
        {"a.yaml": GOOD, "b.yaml": grounding_suite("other", "g1")},
        "b.yaml:6:9",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_validate_locates_each_problem_and_exits_2(
    name: str, tmp_path: Path, run_process: RunCli
) -> None:
    files, location = HOSTILE[name]
    for filename, text in files.items():
        (tmp_path / filename).write_text(text, encoding="utf-8")
    result = run_process("validate", "--cases", ".", cwd=tmp_path)
    assert result.code == 2, result.show()
    assert f"{location}: " in result.stderr, result.show()
    assert LOCATED.search(result.stderr), result.show()
    assert "Traceback" not in result.stderr + result.stdout, result.show()
    assert result.stdout == "", result.show()


def test_validate_reports_every_problem_with_hints(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(
        GOOD.replace("threshold: 1.0", "treshold: 1.0").replace("gate: grounding", "gate: grounded")
    )
    (tmp_path / "t.yml").write_text(GOOD)
    result = run_cli("validate", "--cases", tmp_path)
    assert result.code == 2
    assert result.stderr == (
        f"{tmp_path / 't.yml'}:1:1: case files must end in .yaml, not .yml\n"
        "  hint: rename it to t.yaml; it would otherwise be a suite that never runs\n"
        f"{tmp_path / 's.yaml'}:2:7: gate: 'grounded' is not one of grounding, adversarial, "
        "refusal, false_positive, golden, trajectory, disclosure\n"
        "  hint: did you mean 'grounding'?\n"
        "2 problems in 2 files; nothing was run.\n"
    )


def test_validate_counts_cases_per_gate_and_language(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "g.yaml").write_text(GOOD)
    (tmp_path / "r.yaml").write_text(
        "suite: r\ngate: refusal\nversion: 2\nthreshold: 0.5\ncases:\n"
        "  - {id: r1, language: es, prompt: x, kind: must_refuse}\n"
        "  - {id: r2, language: es-MX, prompt: x, kind: crisis, must_contain: ['988']}\n"
        "  - {id: r3, language: en, prompt: x, kind: crisis}\n"
    )
    result = run_cli("validate", "--cases", tmp_path)
    assert result.code == 0, result.show()
    assert result.stdout == (
        "grounding  1 suite     1 cases  en 1\n"
        "refusal    1 suite     3 cases  en 1  es 1  es-MX 1\n"
        "OK: 2 suites, 4 cases\n"
    )
    assert result.stderr == ""


def test_validate_defaults_to_the_built_in_suites(run_cli: RunCli) -> None:
    result = run_cli("validate")
    assert result.code == 0, result.show()
    assert result.stdout.startswith("grounding ")
    assert "OK: 8 suites" in result.stdout


@pytest.mark.parametrize(
    ("name", "generate"),
    [
        ("cases", case_file_schema),
        ("target", target_file_schema),
        ("similarity-labels", similarity_labels_schema),
        ("similarity-calibration", similarity_record_schema),
        ("personas", persona_file_schema),
    ],
)
def test_schema_prints_the_committed_schema(
    run_process: RunCli, name: str, generate: Callable[[], dict[str, Any]]
) -> None:
    result = run_process("schema", name)
    assert result.code == 0, result.show()
    assert result.stdout == (ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert json.loads(result.stdout) == generate()


def test_an_unknown_schema_is_a_usage_error(run_cli: RunCli) -> None:
    result = run_cli("schema", "results")
    assert result.code == 2
    assert "results" in result.stderr


def test_an_unknown_flag_is_a_usage_error(run_cli: RunCli) -> None:
    result = run_cli("validate", "--case", "x")
    assert result.code == 2
    assert "--case" in result.stderr


def test_version(run_cli: RunCli) -> None:
    result = run_cli("--version")
    assert (result.code, result.stdout) == (0, f"gauntlet {__version__}\n")


def test_help_explains_the_exit_codes(run_cli: RunCli) -> None:
    result = run_cli("--help")
    assert result.code == 0
    assert "4 unscoreable" in result.stdout


def test_no_arguments_shows_help(run_process: RunCli) -> None:
    result = run_process()
    assert "Usage" in result.stdout + result.stderr


def test_a_bug_is_reported_without_a_traceback_unless_asked(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(paths: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("gauntlet.cases.loader.load_suites", explode)
    quiet = run_cli("validate", "--cases", ".")
    assert quiet.code == 2
    assert "internal error: RuntimeError: boom" in quiet.stderr
    assert "Traceback" not in quiet.stderr
    loud = run_cli("--traceback", "validate", "--cases", ".")
    assert loud.code == 2
    assert "Traceback" in loud.stderr


def test_no_colour_codes_when_not_a_terminal(tmp_path: Path, run_process: RunCli) -> None:
    (tmp_path / "s.yaml").write_text(GOOD.replace("threshold: 1.0", "threshold: 0"))
    result = run_process("validate", "--cases", tmp_path)
    assert "\x1b[" not in result.stderr + result.stdout


def test_inventory_prints_markdown_and_json(run_cli: RunCli) -> None:
    markdown = run_cli("inventory")
    assert markdown.code == 0, markdown.show()
    assert markdown.stdout.startswith(
        "| Gate | Suite | Threshold | en | es | zh | vi | tl | ko | Total |\n"
    )
    document = run_cli("inventory", "--format", "json")
    assert json.loads(document.stdout)["languages"] == ["en", "es", "zh", "vi", "tl", "ko"]


def test_inventory_updates_a_file_between_its_markers(tmp_path: Path, run_cli: RunCli) -> None:
    from gauntlet.inventory import END, START

    target = tmp_path / "R.md"
    target.write_text(f"intro\n{START}\nstale\n{END}\n")
    first = run_cli("inventory", "--update", target)
    second = run_cli("inventory", "--update", target)
    assert (first.code, second.code) == (0, 0)
    assert first.stderr == f"{target}: updated\n"
    assert second.stderr == f"{target}: already up to date\n"
    assert "| **all** |" in target.read_text()


def test_inventory_refuses_a_file_without_markers(tmp_path: Path, run_cli: RunCli) -> None:
    target = tmp_path / "R.md"
    target.write_text("no markers\n")
    result = run_cli("inventory", "--update", target)
    assert result.code == 2
    assert "needs exactly one" in result.stderr


def test_run_refuses_an_out_path_it_cannot_replace(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli("run", "--out", tmp_path)
    assert result.code == 2
    assert "is a directory; name a file in it" in result.stderr


@pytest.mark.parametrize("command", [["run"], ["report", "RESULTS"], ["merge", "RESULTS"]])
def test_no_command_replaces_a_device_or_a_fifo(
    tmp_path: Path, run_cli: RunCli, command: list[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    results = tmp_path / "results.json"
    results.write_text("{}", encoding="utf-8")
    given = [str(results) if word == "RESULTS" else word for word in command]
    for out, kind in ((fifo, "a FIFO"), (Path("/dev/null"), "a character device")):
        result = run_cli(*given, "--out", out)
        assert result.code == 2, result.show()
        assert f"--out {out}: is {kind}; gauntlet writes" in result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_interrupt_outside_a_run_is_exit_2_without_a_traceback(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(paths: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("gauntlet.cases.loader.load_suites", interrupted)
    result = run_cli("validate")
    assert (result.code, result.stderr) == (2, "interrupted\n")
