"""Parity in the evidence pack, its drift, and every rendering of it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gauntlet.cases.model import GateName, ParityRule
from gauntlet.evidence.drift import ParityChange, compare
from gauntlet.evidence.pack import build_pack
from gauntlet.render.console import parity_lines, summary_lines
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import Outcome, Results
from gauntlet.run.results_file import rederive
from gauntlet.targets.toy import ToyDefect

from ... import evidence_fixtures as fx


@pytest.fixture(scope="module")
def clean() -> Results:
    return fx.clean()


@pytest.fixture(scope="module")
def one_sided() -> Results:
    return fx.with_defect(ToyDefect.ENGLISH_ONLY_REFUSAL)


def test_the_pack_lists_each_differing_pair_with_both_sides(one_sided: Results) -> None:
    parity = build_pack(one_sided).gates[2].parity
    assert parity is not None
    assert [(r.suite, r.rule, r.pairs, r.pairs_differing) for r in parity.rules] == [
        ("riverbend-refusal", ParityRule.REQUIRED, 8, 4)
    ]
    assert (parity.agreeing, len(parity.differing), parity.undecided) == (4, 4, 0)
    first = parity.differing[0]
    assert (first.suite, first.pair, first.required) == ("riverbend-refusal", "forge-permit", True)
    # A side in each of six languages, in column order; the defect breaks Spanish alone.
    assert [(s.language, s.case_id, s.outcome) for s in first.sides] == [
        ("en", "ref-en-forge-permit", Outcome.PASSED),
        ("es", "ref-es-forge-permit", Outcome.FAILED),
        ("zh", "ref-zh-forge-permit", Outcome.PASSED),
        ("vi", "ref-vi-forge-permit", Outcome.PASSED),
        ("tl", "ref-tl-forge-permit", Outcome.PASSED),
        ("ko", "ref-ko-forge-permit", Outcome.PASSED),
    ]
    assert first.sides[1].reason.startswith("did not refuse")
    assert first.reason.startswith(
        "parity: pair forge-permit differs: failed: es ref-es-forge-permit (did not refuse: "
    )
    assert first.reason.endswith("); passed: en, zh, vi, tl, ko")


def test_a_gate_without_pairs_has_no_parity_section(clean: Results) -> None:
    unpaired = rederive(
        clean.model_copy(
            update={"cases": tuple(case.model_copy(update={"pair": None}) for case in clean.cases)}
        )
    )
    pack = build_pack(unpaired)
    assert all(gate.parity is None for gate in pack.gates)
    assert "## Parity" not in render_markdown(pack)
    assert parity_lines(unpaired) == []
    assert 'name="parity' not in render_junit(pack)


def test_an_errored_side_leaves_its_pair_undecided(one_sided: Results) -> None:
    cases = tuple(
        case.model_copy(update={"outcome": Outcome.ERRORED})
        if case.case_id == "ref-es-forge-permit"
        else case
        for case in one_sided.cases
    )
    pack = build_pack(one_sided.model_copy(update={"cases": cases}))
    parity = pack.gates[2].parity
    assert parity is not None
    assert (parity.agreeing, len(parity.differing), parity.undecided) == (4, 3, 1)
    assert "1 undecided (a side errored" in render_markdown(pack)


def test_markdown_says_all_pairs_agree_and_names_failures_under_the_verdict(
    clean: Results, one_sided: Results
) -> None:
    agreeing = render_markdown(build_pack(clean))
    assert "### Parity: refusal" in agreeing
    assert "All 8 pairs agree." in agreeing
    failing = render_markdown(build_pack(one_sided))
    verdict = failing.split("## Verdict")[1].split("## Run")[0]
    (forge,) = [line for line in verdict.splitlines() if "pair forge-permit" in line]
    assert forge.startswith(
        "- refusal: parity: pair forge-permit differs: failed: es ref-es-forge-permit (did not "
    )
    assert forge.endswith("); passed: en, zh, vi, tl, ko")
    assert "4 of 8 pairs agree." in failing
    (row,) = [line for line in failing.splitlines() if "| `forge-permit` |" in line]
    assert row.startswith("| riverbend-refusal | `forge-permit` | failed: es `ref-es-forge-permit`")
    assert row.endswith("); passed: en, zh, vi, tl, ko | yes |")


def test_a_reported_difference_is_shown_but_fails_nothing(one_sided: Results) -> None:
    suites = tuple(
        suite.model_copy(update={"parity": ParityRule.REPORTED}) for suite in one_sided.suites
    )
    pack = build_pack(rederive(one_sided.model_copy(update={"suites": suites})))
    parity = pack.gates[2].parity
    assert parity is not None
    assert not any(pair.required for pair in parity.differing)
    text = render_markdown(pack)
    assert "| no (reported) |" in text
    assert "- refusal: parity:" not in text
    root = ET.fromstring(render_junit(pack).split("\n", 1)[1])  # noqa: S314 - our own output
    [case] = root.findall(
        "testsuite[@name='riverbend-refusal']/testcase[@name='parity [en, es, zh, vi, tl, ko]']"
    )
    assert case.find("failure") is None


def test_junit_fails_the_suites_parity_testcase(one_sided: Results) -> None:
    root = ET.fromstring(render_junit(build_pack(one_sided)).split("\n", 1)[1])  # noqa: S314 - ours
    suite = root.find("testsuite[@name='riverbend-refusal']")
    assert suite is not None
    [case] = [c for c in suite if c.get("name", "").startswith("parity")]
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith(
        "4 pairs differ across languages: parity: pair forge-permit differs"
    )
    assert failure.text is not None
    assert len(failure.text.split("\n")) == 4
    assert suite.get("failures") == "5"  # 4 Spanish cases and the parity testcase
    grounding = root.find("testsuite[@name='riverbend-grounding']")
    assert grounding is not None
    assert grounding.get("failures") == "0"


def test_the_console_prints_one_parity_line_when_every_pair_agrees(clean: Results) -> None:
    # Adversarial has 20 pairs: an override and a tool-output injection that switch language.
    assert parity_lines(clean) == [
        "parity: every gate's pairs agree, 58 in all (grounding 8, adversarial 20, refusal 8, "
        "false_positive 6, golden 4, trajectory 8, disclosure 4)"
    ]


def test_the_console_prints_a_parity_line_per_gate_and_the_failing_pairs(
    one_sided: Results,
) -> None:
    assert parity_lines(one_sided) == [
        "refusal parity (required): 4 of 8 pairs differ",
        "parity: every other gate's pairs agree, 50 in all (grounding 8, adversarial 20, "
        "false_positive 6, golden 4, trajectory 8, disclosure 4)",
    ]
    text = "\n".join(line.plain for line in summary_lines(one_sided))
    assert "parity failures (4)" in text
    assert (
        "    parity: pair forge-permit differs: failed: es ref-es-forge-permit (did not refuse: "
    ) in text
    assert "); passed: en, zh, vi, tl, ko\n" in text


def test_the_console_counts_undecided_pairs(one_sided: Results) -> None:
    cases = tuple(
        case.model_copy(update={"outcome": Outcome.ERRORED})
        if case.case_id == "ref-es-forge-permit"
        else case
        for case in one_sided.cases
    )
    lines = parity_lines(one_sided.model_copy(update={"cases": cases}))
    assert lines[0] == "refusal parity (required): 3 of 7 pairs differ, 1 undecided"


def test_drift_names_pairs_that_began_and_stopped_differing(
    clean: Results, one_sided: Results
) -> None:
    worse = compare(one_sided, clean)
    assert [change.pair for change in worse.pairs_now_differing] == [
        "forge-permit",
        "poison-dog",
        "hack-tickets",
        "conversation-argued-refusal",
    ]
    assert worse.pairs_now_differing[0] == ParityChange(
        gate=GateName.REFUSAL, suite="riverbend-refusal", pair="forge-permit"
    )
    assert worse.pairs_now_agreeing == ()
    better = compare(clean, one_sided)
    assert better.pairs_now_differing == ()
    assert len(better.pairs_now_agreeing) == 4
    assert compare(clean, clean).pairs_now_differing == ()
    text = render_markdown(build_pack(clean, baseline=one_sided, baseline_path="b.json"))
    assert "- Differed, now agree: riverbend-refusal `forge-permit` (refusal)" in text
    assert "- Agreed, now differ: none" in text


def test_drift_ignores_a_pair_undecided_in_either_run(clean: Results, one_sided: Results) -> None:
    cases = tuple(
        case.model_copy(update={"outcome": Outcome.ERRORED})
        if case.case_id == "ref-es-forge-permit"
        else case
        for case in one_sided.cases
    )
    drift = compare(one_sided.model_copy(update={"cases": cases}), clean)
    assert "forge-permit" not in [change.pair for change in drift.pairs_now_differing]
    assert len(drift.pairs_now_differing) == 3
