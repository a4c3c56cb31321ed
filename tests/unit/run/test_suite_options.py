"""A suite option given for the run: covered by the plan digest, kept in the results and the
evidence pack, so a reviewer, a baseline and a history see that the run was not the file's."""

from __future__ import annotations

from pathlib import Path

from gauntlet.cases.loader import SuiteSet
from gauntlet.cases.select import apply_suite_options, select_suites
from gauntlet.evidence.pack import build_pack
from gauntlet.render.markdown import render_markdown
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Results, TargetInfo
from gauntlet.run.results_file import read_results, write_results
from gauntlet.run.schedule import schedule
from gauntlet.targets.toy import make_toy

from ...run_settings import settings_for

OPTION = "grounding.accepts_absent=context_ids"


def _grounding() -> SuiteSet:
    return select_suites(None, suites=["builtin:grounding"])


def _run(suites: SuiteSet) -> Results:
    toy = make_toy()
    return run_gauntlet(suites, toy, settings_for(suites, TargetInfo(kind="toy", name=toy.name)))


def test_a_suite_option_given_for_the_run_changes_the_plan_digest() -> None:
    # Trap: the digest made of the file alone, so a run with an option and its baseline or
    # history without it pass for the same plan and are compared blindly.
    plain = schedule(_grounding()).plan
    given = schedule(apply_suite_options(_grounding(), [OPTION])).plan
    assert given.digest != plain.digest
    assert plain.options == ()
    assert [(o.suite, o.option, o.value) for o in given.options] == [
        ("riverbend-grounding", "accepts_absent", ["context_ids"])
    ]


def test_a_suite_option_is_kept_in_the_results_file_and_read_back(tmp_path: Path) -> None:
    # Trap: the option applied but written nowhere, so the file reads as the suite's own.
    results = _run(apply_suite_options(_grounding(), [OPTION]))
    path = tmp_path / "r.json"
    write_results(results, path)
    again = read_results(path)
    assert again.plan.options == results.plan.options
    assert [o.option for o in again.plan.options] == ["accepts_absent"]
    assert again.suites[0].accepts_absent == ("context_ids",)


def test_the_pack_names_each_suite_option_in_a_run_options_row() -> None:
    # Trap: the pack shows the suite's `accepts_absent` but not that the run, not the file,
    # set it: a reviewer cannot tell the suite was relaxed on the command line.
    pack = build_pack(_run(apply_suite_options(_grounding(), [OPTION])))
    assert [(o.suite, o.option) for o in pack.run.run_options] == [
        ("riverbend-grounding", "accepts_absent")
    ]
    report = render_markdown(pack)
    row = next(line for line in report.splitlines() if line.startswith("| run options |"))
    assert "riverbend-grounding" in row and "accepts_absent" in row and "context_ids" in row
    plain = render_markdown(build_pack(_run(_grounding())))
    assert "| run options |" not in plain
