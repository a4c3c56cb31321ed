"""GitHub output: step outputs that cannot be forged, a bounded summary, inert annotations."""

from __future__ import annotations

from pathlib import Path

from gauntlet.evidence.pack import build_pack
from gauntlet.render.github import (
    TRUNCATED_NOTE,
    annotation_commands,
    github_outputs,
    job_summary,
)
from gauntlet.run.results import Outcome
from gauntlet.targets.toy import ToyDefect

from ... import evidence_fixtures as fx


def test_outputs_are_computed_numbers_and_fixed_words() -> None:
    pack = build_pack(fx.with_defect(ToyDefect.DROP_CITATIONS), baseline=fx.clean())
    lines = github_outputs(pack).splitlines()
    assert lines == [
        "passed=false",
        "verdict=fail",
        f"results-digest={pack.results_digest}",
        "gates-total=7",
        "gates-passed=6",
        "gates-failed=1",
        "gates-not-run=0",
        "cases-total=348",
        "cases-passed=312",
        "cases-failed=36",
        "cases-errored=0",
        "cases-not-run=0",
        "cases-unjudged=0",
        "cases-waived=0",
        "drift-computed=true",
        "drift-newly-failing=36",
        "drift-newly-passing=0",
    ]


def test_a_withheld_verdict_says_why() -> None:
    lines = github_outputs(build_pack(fx.unscoreable())).splitlines()
    assert "verdict=withheld-unscoreable" in lines
    assert "drift-computed=false" in lines


def test_the_summary_is_cut_at_a_line_with_a_visible_note() -> None:
    markdown = "".join(f"line {n}\n" for n in range(1000))
    assert job_summary(markdown) == markdown
    cut = job_summary(markdown, limit=500)
    assert cut.endswith(TRUNCATED_NOTE)
    assert len(cut.encode()) <= 500
    assert cut[: -len(TRUNCATED_NOTE)].endswith("\n")


def test_target_text_cannot_become_a_workflow_command() -> None:
    results = fx.clean()
    hostile = "x\n::add-mask::secret\r\n::stop-commands::token 100% done"
    case = results.cases[0].model_copy(update={"outcome": Outcome.FAILED, "reason": hostile})
    pack = build_pack(results.model_copy(update={"cases": (case, *results.cases[1:])}))
    [command] = annotation_commands(pack).splitlines()
    assert command == (
        f"::error file={case.source},line={case.line},"
        f"title=gauntlet {case.gate.value}%3A {case.case_id} [{case.language}] failed"
        "::x%0A::add-mask::secret%0D%0A::stop-commands::token 100%25 done"
    )


def test_every_failing_and_errored_case_is_annotated_and_no_other() -> None:
    pack = build_pack(fx.with_defect(ToyDefect.DROP_CITATIONS))
    # drop_citations leaves 6 grounding cases uncited in each of the 6 languages
    assert len(annotation_commands(pack).splitlines()) == 36
    assert annotation_commands(build_pack(fx.clean())) == ""


def test_annotation_paths_are_relative_to_the_workspace(tmp_path: Path) -> None:
    results = fx.clean()
    source = tmp_path / "sub" / "suites" / "grounding.yaml"
    case = results.cases[0].model_copy(
        update={"outcome": Outcome.FAILED, "reason": "r", "source": str(source)}
    )
    pack = build_pack(results.model_copy(update={"cases": (case, *results.cases[1:])}))
    command = annotation_commands(pack, relative_to=tmp_path)
    assert command.startswith("::error file=sub/suites/grounding.yaml,line=")
    elsewhere = annotation_commands(pack, relative_to=tmp_path / "other")
    assert elsewhere.startswith(f"::error file={source},")


def test_a_source_that_is_no_path_here_is_annotated_as_written(tmp_path: Path) -> None:
    # The trap: a NUL byte makes Path.resolve raise ValueError, and `report` crashed.
    results = fx.clean()
    case = results.cases[0].model_copy(
        update={"outcome": Outcome.FAILED, "reason": "r", "source": "suites/a\x00b.yaml"}
    )
    pack = build_pack(results.model_copy(update={"cases": (case, *results.cases[1:])}))
    command = annotation_commands(pack, relative_to=tmp_path)
    assert command.startswith(r"::error file=suites/a\x00b.yaml,line=")


def test_a_source_cannot_break_an_annotation_or_act_on_a_reader() -> None:
    # The trap: NEL and U+2028 end a line for some readers, and an escape recolours the log;
    # a source path is the one free text in an annotation's properties.
    results = fx.clean()
    case = results.cases[0].model_copy(
        update={"outcome": Outcome.FAILED, "reason": "r", "source": "a\x85::b\u2028\x1b[2Jc"}
    )
    pack = build_pack(results.model_copy(update={"cases": (case, *results.cases[1:])}))
    [command] = annotation_commands(pack).splitlines()
    assert command.startswith(r"::error file=a\x85%3A%3Ab\u2028\x1b[2Jc,line=")


def test_unjudged_cases_are_counted_annotated_and_withhold_the_verdict() -> None:
    pack = build_pack(fx.judged())
    lines = github_outputs(pack).splitlines()
    assert "cases-unjudged=1" in lines
    assert "verdict=withheld-unjudged_cases" in lines
    assert "passed=false" in lines
    commands = annotation_commands(pack).splitlines()
    assert len(commands) == 3  # two failures and the unjudged case; the pass is not annotated
    [unjudged] = [command for command in commands if "jdg-es-trash-day" in command]
    assert unjudged == (
        "::error file=tests/golden/judged/suite.yaml,line=36,"
        "title=gauntlet golden%3A jdg-es-trash-day [es] unjudged"
        "::judge: the two orders disagree: the judge preferred a position, not an answer"
    )
