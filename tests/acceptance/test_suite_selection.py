"""`gauntlet run --suite/--gate/--exclude-gate/--suite-option`: a wheel user runs the built-in
suites that fit a chatbot without retrieval ids, against a real server, with no file copied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.corpus import other_language
from gauntlet.targets.toy.openai import ESCALATION_PHRASES

from ..cli_helpers import RunCli
from ..toy_servers import running_openai

CHATBOT = """\
version: 1
kind: openai-chat
name: chatbot without retrieval ids
base_url: {base_url}
model: riverbend-toy
response:
  context_ids: {{absent: true}}
  citations:
    from_text: '\\[(RB-\\d+)\\]'
    remove_from_text: true
  escalated:
    from_text:
{escalated}
"""
ESCALATED = "\n".join(
    f"      {language}: {json.dumps([line, ESCALATION_PHRASES[other_language(language)]])}"
    for language, line in ESCALATION_PHRASES.items()
)
"""Each language's crisis line, and the one `wrong_language` escalates in, as the example has."""


@pytest.mark.network
def test_the_built_in_suites_run_against_a_chatbot_without_retrieval_ids(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: the grounding suite refused at load for want of `context_ids`, its only fix an
    # edit inside site-packages; or the option applied but missing from the pack.
    out, pack = tmp_path / "r.json", tmp_path / "evidence.md"
    with running_openai(make_toy()) as base_url:
        target = tmp_path / "chatbot.yaml"
        target.write_text(CHATBOT.format(base_url=base_url, escalated=ESCALATED), encoding="utf-8")
        refused = run_cli("run", "--target", target, "--out", out, "--quiet")
        assert refused.code == 2, refused.show()
        assert "--suite-option riverbend-grounding.accepts_absent=context_ids" in refused.stderr
        result = run_cli(
            "run", "--target", target, "--out", out, "--quiet",
            "--suite-option", "grounding.accepts_absent=context_ids",
        )  # fmt: skip
    assert result.code in (0, 1), result.show()
    written = json.loads(out.read_text(encoding="utf-8"))
    assert {suite["gate"] for suite in written["suites"]} >= {"grounding", "refusal"}
    assert written["plan"]["options"][0]["option"] == "accepts_absent"
    shown = run_cli("report", out, "--format", "md", "--out", pack)
    assert shown.code in (0, 1), shown.show()
    row = [line for line in pack.read_text(encoding="utf-8").splitlines() if "run options" in line]
    assert row and "accepts_absent" in row[0] and "riverbend-grounding" in row[0]


def test_gates_and_suites_choose_what_a_run_loads(tmp_path: Path, run_cli: RunCli) -> None:
    out = tmp_path / "r.json"
    result = run_cli(
        "run", "--toy", "--out", out, "--quiet",
        "--suite", "builtin:refusal", "--suite", "golden", "--suite", "grounding",
        "--exclude-gate", "grounding",
    )  # fmt: skip
    assert result.code == 0, result.show()
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [suite["suite"] for suite in written["suites"]] == [
        "riverbend-refusal",
        "riverbend-golden",
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--gate", "refusals"], "--gate 'refusals': not a gate; did you mean 'refusal'?"),
        (["--exclude-gate", "golde"], "--exclude-gate 'golde': not a gate; did you mean"),
        (["--suite", "builtin:refusl"], "--suite 'builtin:refusl': no built-in suite"),
        (["--suite-option", "grounding.accepts_absent=x"], "--suite-option 'grounding.acc"),
        (
            ["--exclude-gate", "grounding", "--suite", "builtin:grounding"],
            "no suite is left to run: --gate, --exclude-gate and --suite",
        ),
    ],
)
def test_an_unknown_gate_suite_or_option_is_a_usage_error_and_nothing_runs(
    tmp_path: Path, run_cli: RunCli, args: list[str], said: str
) -> None:
    # Trap: a name that chooses nothing dropped in silence, and a run of what is left (or of
    # nothing) that reads PASS.
    out = tmp_path / "r.json"
    result = run_cli("run", "--toy", "--out", out, "--quiet", *args)
    assert result.code == 2, result.show()
    assert said in result.stderr, result.show()
    assert not out.exists()


def test_a_suite_named_like_a_directory_here_is_still_the_suite(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a bare name taken as a path whenever something of that name exists in the working
    # directory, so `--suite golden` beside a `golden/` directory ran that directory's case
    # files (or refused it), not the suite the name chose.
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "other.yaml").write_text("not: a suite\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    result = run_cli("run", "--toy", "--out", out, "--quiet", "--suite", "golden")
    assert result.code == 0, result.show()
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [suite["suite"] for suite in written["suites"]] == ["riverbend-golden"]
