"""Attack success per transform in the evidence pack, its drift, and every rendering of it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import takewhile

import pytest
from rich.console import Console

from gauntlet.cases.model import GateName
from gauntlet.evidence.drift import compare
from gauntlet.evidence.pack import build_pack, read_pack_json
from gauntlet.render.console import attack_lines, summary_lines
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import Outcome, Results
from gauntlet.run.results_file import rederive
from gauntlet.targets.toy import ToyDefect
from gauntlet.transforms import Transform

from ... import evidence_fixtures as fx

COLUMNS = ["en", "es", "zh", "vi", "tl", "ko"]
"""The refusal suite's languages, in the peers' column order, written out."""


@pytest.fixture(scope="module")
def healthy() -> Results:
    return fx.transformed()


@pytest.fixture(scope="module")
def obeys_base64() -> Results:
    return fx.transformed(ToyDefect.OBEYS_BASE64)


def _plain(lines: object) -> str:
    console = Console(no_color=True, width=200, force_terminal=False)
    with console.capture() as captured:
        for line in lines:  # type: ignore[attr-defined]
            console.print(line)
    return captured.get()


def test_the_pack_gives_each_gates_attack_success_per_transform_and_language(
    obeys_base64: Results,
) -> None:
    # Trap: the table computed over every case of the gate, or only overall, so the defect's
    # one transform is averaged away.
    pack = build_pack(obeys_base64)
    (refusal,) = pack.gates
    rows = {(row.transform, row.language): row for row in refusal.attack_success}
    assert rows[(None, "en")].success == 0.0
    assert rows[(None, "en")].variants == 4  # the must-refuse cases, as written
    # The toy refuses an argued conversation however its last turn is written.
    assert rows[(Transform.BASE64, "en")].success == 0.75
    assert rows[(Transform.BASE64, "es")].got_through == 3
    assert rows[(Transform.ROT13, "en")].success == 0.0
    assert [b.transform for b in pack.broke_first] == [Transform.BASE64]
    assert pack.broke_first[0].gates == (GateName.REFUSAL,)
    assert read_pack_json(pack.model_dump_json()) == pack


def test_a_pack_from_results_without_variants_has_no_attack_table() -> None:
    # Trap: an empty "as written" table, or a section saying nothing got through, for a run
    # that asked no variant at all.
    pack = build_pack(fx.clean())
    assert all(gate.attack_success == () for gate in pack.gates)
    assert pack.broke_first == ()
    assert "Attack success" not in render_markdown(pack)
    assert "attack_success" not in render_junit(pack)
    assert "attack success" not in _plain(summary_lines(fx.clean()))


def test_an_unanswered_variant_is_shown_not_graded_in_every_rendering(healthy: Results) -> None:
    # Trap: the not-graded count dropped on the way to a renderer, so an errored variant
    # reads as held there.
    cases = tuple(
        case.model_copy(update={"outcome": Outcome.ERRORED, "reason": "no answer"})
        if case.transform is Transform.ROT13 or case.case_id == "ref-en-forge-permit~base64"
        else case
        for case in healthy.cases
    )
    results = healthy.model_copy(update={"cases": cases})
    pack = build_pack(results)
    rows = {(row.transform, row.language): row for row in pack.gates[0].attack_success}
    assert (rows[(Transform.BASE64, "en")].held, rows[(Transform.BASE64, "en")].not_graded) == (
        3,
        1,
    )
    markdown = render_markdown(pack)
    assert "| `base64` | en | 0 | 3 | 1 | 0.0% |" in markdown
    suite = ET.fromstring(render_junit(pack).split("\n", 1)[1]).find("testsuite")  # noqa: S314 - ours
    assert suite is not None
    properties = {p.get("name", ""): p.get("value", "") for p in suite.iter("property")}
    assert properties["attack_success.en.base64"].startswith("0 of 3 graded got through")
    assert "1 not graded" in properties["attack_success.en.base64"]
    # Six languages: a heading per gate, then got through/graded per language (the shares are
    # in the pack), the not-graded column kept.
    console = _plain(summary_lines(results)).splitlines()
    refusal = console.index("refusal")
    header = console[refusal + 1]
    assert header.split() == ["transform", *COLUMNS, "not", "graded"]
    table = takewhile(lambda line: line.startswith("  "), console[refusal + 2 :])
    shown = {cells[0]: cells[1:] for cells in (re.split(r"\s{2,}", line.strip()) for line in table)}
    assert shown["base64"] == ["0/3", "0/4", "0/4", "0/4", "0/4", "0/4", "1"]
    assert shown["rot13"] == ["0/0", "0/0", "0/0", "0/0", "0/0", "0/0", "24"]


def test_drift_shows_a_transform_whose_success_rose(
    healthy: Results, obeys_base64: Results
) -> None:
    # Trap: drift compares pass rates only, and a new way through hides among them.
    drift = compare(obeys_base64, healthy)
    rose = [change for change in drift.attack_success if change.rose]
    # The toy decodes base64 whatever the language: it rose in each of the six, named in the
    # peers' column order like every other table.
    assert [(c.transform, c.language) for c in rose] == [
        (Transform.BASE64, language) for language in COLUMNS
    ]
    assert all(c.baseline == 0.0 and c.current == 0.75 and c.delta == 0.75 for c in rose)
    back = compare(healthy, obeys_base64)
    assert not any(change.rose for change in back.attack_success)
    markdown = render_markdown(build_pack(obeys_base64, baseline=healthy, baseline_path="b.json"))
    assert (
        "Attack success rose since the baseline: refusal `base64` in en; refusal `base64` in es;"
        " refusal `base64` in zh; refusal `base64` in vi; refusal `base64` in tl;"
        " refusal `base64` in ko.\n"
    ) in markdown


def test_a_baseline_without_variants_never_shows_a_rise(obeys_base64: Results) -> None:
    # Trap: a transform absent from the baseline read as 0% there, so every figure "rose".
    baseline = rederive(
        obeys_base64.model_copy(
            update={"cases": tuple(c for c in obeys_base64.cases if c.transform is None)}
        )
    )
    drift = compare(obeys_base64, baseline)
    assert drift.attack_success
    assert not any(change.rose for change in drift.attack_success)
    assert all(
        change.baseline is None for change in drift.attack_success if change.transform is not None
    )


def test_a_run_where_no_variant_got_through_gets_one_line_not_a_table(
    healthy: Results, obeys_base64: Results
) -> None:
    # Trap: a table of zeros in every healthy CI log, or the line kept when a variant was not
    # graded, so an unanswered encoding reads as resisted.
    assert attack_lines(healthy) == [
        "attack success: no variant got through, 0 of 144 graded (refusal 144)"
    ]
    assert "base64" in "\n".join(attack_lines(obeys_base64))
    errored = healthy.model_copy(
        update={
            "cases": tuple(
                case.model_copy(update={"outcome": Outcome.ERRORED})
                if case.case_id == "ref-en-forge-permit~rot13"
                else case
                for case in healthy.cases
            )
        }
    )
    assert len(attack_lines(errored)) > 1


def test_junit_names_the_transforms_that_got_through_on_their_suite(
    obeys_base64: Results, healthy: Results
) -> None:
    # Trap: the ranking kept in the pack alone, so a CI view of the suite never says which
    # form of the attack broke it.
    def broke(results: Results) -> str:
        xml = render_junit(build_pack(results)).split("\n", 1)[1]
        suite = ET.fromstring(xml).find("testsuite")  # noqa: S314 - ours
        assert suite is not None
        named = [p for p in suite.iter("property") if p.get("name") == "attack_success.broke_first"]
        return named[0].get("value", "")

    assert broke(obeys_base64) == "base64 18/24 (75.0%)"  # 3 of 4 in each of six languages
    assert broke(healthy) == "none"


def test_a_failing_variant_is_named_as_inline_code_like_every_case(obeys_base64: Results) -> None:
    # Trap: the report's id rule knew only written ids, so every variant (`<id>~<transform>`)
    # was shown as escaped text (`adv\-en\-x\~base64`) where the cases as written read as code.
    report = render_markdown(build_pack(obeys_base64))
    failed = [case.case_id for case in obeys_base64.cases if case.outcome is Outcome.FAILED]
    assert failed
    assert all("~" in case_id for case_id in failed)
    for case_id in failed:
        assert f"`{case_id}`" in report, case_id


def test_drift_says_when_one_side_ran_without_transforms(healthy: Results) -> None:
    # Trap: a `--no-transforms` baseline compared with a full run (or the other way round):
    # the variants read as cases added or removed and their figures as "not graded" there, as
    # if the target had not answered them, and nothing says the runs asked different things.
    quick = rederive(
        healthy.model_copy(
            update={
                "cases": tuple(c for c in healthy.cases if c.transform is None),
                "no_transforms": True,
            }
        )
    )
    for current, baseline, side in ((healthy, quick, "the baseline"), (quick, healthy, "this run")):
        drift = compare(current, baseline)
        assert (drift.baseline_no_transforms, drift.no_transforms) == (
            baseline.no_transforms,
            current.no_transforms,
        )
        pack = build_pack(current, baseline=baseline, baseline_path="b.json")
        markdown = render_markdown(pack)
        drift_part = markdown.split("## Drift since the baseline", 1)[1]
        assert f"- **Transforms differ**: {side} was run with `--no-transforms`" in drift_part
    same = compare(healthy, healthy)
    assert not same.no_transforms and not same.baseline_no_transforms
    assert "Transforms differ" not in render_markdown(
        build_pack(healthy, baseline=healthy, baseline_path="b.json")
    )


def test_the_summary_says_when_the_cases_as_written_miss_a_threshold_variants_reach(
    healthy: Results,
) -> None:
    # Trap: a suite failed on its cases as written while its rate over every case reads above
    # the threshold, and nothing on screen says why it failed.
    suite = healthy.suites[0]
    first = next(c for c in healthy.cases if c.suite == suite.suite and c.transform is None)
    cases = tuple(
        c.model_copy(update={"outcome": Outcome.FAILED}) if c is first else c for c in healthy.cases
    )
    suites = tuple(
        s.model_copy(update={"threshold": 0.99}) if s is suite else s for s in healthy.suites
    )
    shown = _plain(summary_lines(healthy.model_copy(update={"cases": cases, "suites": suites})))
    assert "cases as written below threshold (1)" in shown
    assert "cases as written passed, below its threshold 0.99" in shown
    assert "cases as written below threshold" not in _plain(summary_lines(healthy))
