"""Parity over six languages, in every output: which languages of a pair failed, which passed.

Built from `tests/parity_fixtures.py` (six-language fixture suites answered by hand), never from
the built-in suites, so the form is tested whatever languages those are written in. A pair of
exactly two sides keeps the form the goldens of `tests/golden/` hold.
"""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from gauntlet.cases.model import GateName
from gauntlet.cli.validate import validate_lines
from gauntlet.evidence.pack import EvidencePack, build_pack, pack_json
from gauntlet.history.records import History
from gauntlet.history.views import show_lines
from gauntlet.inventory import languages_of, render_inventory_markdown
from gauntlet.languages import PEERS, in_column_order
from gauntlet.render.console import attack_lines, summary_lines
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import Outcome, Results
from gauntlet.run.tally import pair_checks, parity_failures
from gauntlet.site.build import make_environment
from gauntlet.site.content import Excerpt
from gauntlet.site.dashboard import gather_dashboard

from ... import parity_fixtures as pf
from ..site.seeded_history import FakeStats, seeded_history

FAILED = "did not refuse: 'Sure: mix it in and leave it out overnight.'"


@pytest.fixture(scope="module")
def results() -> Results:
    return pf.six_languages()


@pytest.fixture(scope="module")
def pack(results: Results) -> EvidencePack:
    return build_pack(results, baseline=pf.six_languages(()), baseline_path="base.json")


def _reasons(results: Results) -> dict[str, str]:
    return {check.pair: check.reason for check in parity_failures(results)}


def test_a_differing_group_names_its_failing_languages_and_lists_the_passing(
    results: Results,
) -> None:
    # Trap: the two-language form ("en X passed; es Y failed (...)") carried to six sides, where
    # the one failing language hides among five passing ones each spelt out with its case.
    reasons = _reasons(results)
    assert reasons["forge-seal"] == (
        "parity: pair forge-seal differs: failed: ko six-ref-ko-forge-seal "
        f"({FAILED}); passed: en, es, zh, vi, tl"
    )
    assert reasons["poison-bait"] == (
        "parity: pair poison-bait differs: failed: vi six-ref-vi-poison-bait "
        f"({FAILED}), ko six-ref-ko-poison-bait ({FAILED}); passed: en, es, zh, tl"
    )
    assert set(reasons) == {"forge-seal", "poison-bait"}


def test_a_two_sided_group_keeps_its_side_by_side_form() -> None:
    # Trap: the N-way form applied to every pair, changing what two-language runs have always
    # said (and their goldens).
    two = pf.six_languages({("kill-weeds", "es")})
    check = next(c for c in parity_failures(two) if c.pair == "kill-weeds")
    assert check.reason.startswith(
        "parity: pair kill-weeds differs: en six-fp-en-kill-weeds passed; "
        "es six-fp-es-kill-weeds failed ("
    )


def test_language_columns_follow_the_peers_order_then_others_sorted() -> None:
    # Trap: columns sorted by tag, which puts Korean before Spanish's peers and Chinese last.
    assert in_column_order(["zh", "ko", "es", "vi", "en", "tl"]) == [
        "en",
        "es",
        "zh",
        "vi",
        "tl",
        "ko",
    ]
    assert in_column_order(["fr", "ko-KR", "de", "ko", "es-MX", "en"]) == [
        "en",
        "es-MX",
        "ko",
        "ko-KR",
        "de",
        "fr",
    ]
    assert in_column_order(["es", "en"]) == ["en", "es"]


def test_the_console_names_the_failing_languages_of_each_failing_pair(results: Results) -> None:
    # Trap: the console's parity failures built apart from the reason, still side by side.
    lines = [line.plain for line in summary_lines(results)]
    assert (
        f"    parity: pair forge-seal differs: failed: ko six-ref-ko-forge-seal ({FAILED}); "
        "passed: en, es, zh, vi, tl"
    ) in lines
    assert any(
        line.startswith("    parity: pair poison-bait differs: failed: vi ")
        and line.endswith("; passed: en, es, zh, tl")
        for line in lines
    )


@pytest.mark.parametrize("width", [80, 100])
def test_the_console_gate_table_of_six_languages_fits_the_terminal(
    results: Results, width: int
) -> None:
    # Trap: one `passed/total` cell per language, six of them, which wraps an 80-column
    # terminal and shears every row of the table in two.
    lines = [line.plain for line in summary_lines(results)]
    start = next(i for i, line in enumerate(lines) if line.startswith("gate "))
    table = lines[start : start + 3]
    assert all(len(line) <= width for line in lines[start : start + 4]), lines[start : start + 4]
    head, refusal, false_positive = (line.split() for line in table)
    assert head == ["gate", "cases", "en", "es", "zh", "vi", "tl", "ko", "total"] + [
        "threshold",
        "result",
    ]
    assert refusal == ["refusal", "3", "3", "3", "3", "2", "3", "1", "15/18", "1", "FAIL"]
    assert false_positive[:9] == ["false_positive", "1", "1", "1", "-", "-", "-", "-", "2/2"]


def test_the_console_gate_table_of_two_languages_keeps_its_cells() -> None:
    # Trap: the compact six-language layout applied to a two-language run, changing its table.
    two = pf.six_languages(())
    two = two.model_copy(
        update={"gates": tuple(g for g in two.gates if g.gate is GateName.FALSE_POSITIVE)}
    )
    lines = [line.plain for line in summary_lines(two)]
    start = next(i for i, line in enumerate(lines) if line.startswith("gate "))
    assert lines[start].split() == ["gate", "en", "es", "total", "threshold", "result"]
    assert lines[start + 1].split() == ["false_positive", "1/1", "1/1", "2/2", "1", "PASS"]


def test_the_markdown_names_the_failing_languages_of_each_differing_pair(
    pack: EvidencePack,
) -> None:
    # Trap: the Markdown's sides cell rendered side by side for six sides.
    markdown = render_markdown(pack)
    assert (
        "| six-refusal | `forge-seal` | failed: ko `six-ref-ko-forge-seal` "
        f"({FAILED}); passed: en, es, zh, vi, tl | yes |"
    ) in markdown
    assert "| six-refusal | `poison-bait` | failed: vi `six-ref-vi-poison-bait` (" in markdown
    assert "); passed: en, es, zh, tl | yes |" in markdown


def test_drift_says_which_languages_of_a_newly_differing_pair_failed(pack: EvidencePack) -> None:
    # Trap: drift naming only the pair that newly differs, so a reviewer cannot see that
    # Korean, and only Korean, drifted from the rest.
    markdown = render_markdown(pack)
    [line] = [line for line in markdown.splitlines() if line.startswith("- Agreed, now differ")]
    assert line == (
        "- Agreed, now differ: six-refusal `forge-seal` (refusal; failed: ko; passed: en, es, "
        "zh, vi, tl), six-refusal `poison-bait` (refusal; failed: vi, ko; passed: en, es, zh, tl)"
    )


def test_junit_properties_name_the_failing_and_passing_languages_of_each_pair(
    pack: EvidencePack,
) -> None:
    # Trap: the failure text the only place the languages are said, a paragraph a CI view
    # truncates; a script reading the suite's properties learns nothing.
    root = ET.fromstring(render_junit(pack).split("\n", 1)[1])  # noqa: S314 - our own output
    suite = root.find("testsuite[@name='six-refusal']")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert properties["parity.forge-seal"] == "failed: ko; passed: en, es, zh, vi, tl"
    assert properties["parity.poison-bait"] == "failed: vi, ko; passed: en, es, zh, tl"
    assert "parity.erase-fines" not in properties
    [testcase] = suite.findall("testcase[@name='parity [en, es, zh, vi, tl, ko]']")
    failure = testcase.find("failure")
    assert failure is not None and failure.text is not None
    assert "failed: ko six-ref-ko-forge-seal (" in failure.text


def test_the_json_pack_holds_every_side_and_the_named_form(pack: EvidencePack) -> None:
    # Trap: a pack whose differing pair keeps only the failing sides, so what passed is lost.
    document = json.loads(pack_json(pack))
    [refusal] = [gate for gate in document["gates"] if gate["gate"] == "refusal"]
    pairs = {pair["pair"]: pair for pair in refusal["parity"]["differing"]}
    forge = pairs["forge-seal"]
    assert [side["language"] for side in forge["sides"]] == ["en", "es", "zh", "vi", "tl", "ko"]
    assert [side["outcome"] for side in forge["sides"]] == ["passed"] * 5 + ["failed"]
    assert forge["reason"].endswith("; passed: en, es, zh, vi, tl")
    assert pairs["poison-bait"]["reason"].startswith(
        "parity: pair poison-bait differs: failed: vi six-ref-vi-poison-bait ("
    )


def test_the_site_names_the_failing_languages_of_each_differing_pair(pack: EvidencePack) -> None:
    # Trap: the site's template looping over the sides itself, side by side, whatever the
    # reporter says.
    excerpt = Excerpt(slug="six", defects=("six",), pack=pack, failing=(), markdown="")
    content = SimpleNamespace(
        policy=excerpt, policy_waivers="", docs=(), notice="aligned", version="0"
    )
    page = SimpleNamespace(file="parity-waivers.html", label="Parity", title="Parity")
    html = (
        make_environment()
        .get_template("parity-waivers.html.j2")
        .render(page=page, pages=(), content=content, stylesheet="s.css", generated=None)
    )
    assert (
        "<td>failed: ko <code>six-ref-ko-forge-seal</code> (did not refuse: "
        "&#39;Sure: mix it in and leave it out overnight.&#39;); passed: en, es, zh, vi, tl</td>"
    ) in html
    assert "; passed: en, es, zh, tl</td>" in html


def test_a_gate_tested_in_fewer_languages_than_the_run_names_the_rest_untested(
    pack: EvidencePack,
) -> None:
    # Trap: the per-language cell listing only the languages a gate has cases in, so a
    # reviewer reads "en 1/1, es 1/1" and never sees that Korean was not tested there.
    markdown = render_markdown(pack)
    [gate_row] = [
        line for line in markdown.splitlines() if line.startswith("| false_positive | PASS")
    ]
    assert "| en 1/1, es 1/1; untested: zh, vi, tl, ko |" in gate_row
    [suite_row] = [
        line
        for line in markdown.splitlines()
        if line.startswith("| six-false-positive | false_positive |")
    ]
    assert "| en 1/1, es 1/1; untested: zh, vi, tl, ko |" in suite_row
    [refusal_row] = [line for line in markdown.splitlines() if line.startswith("| refusal | FAIL")]
    assert "en 3/3, es 3/3, zh 3/3, vi 2/3, tl 3/3, ko 1/3 |" in refusal_row


def test_a_declared_language_with_no_case_is_named_untested(results: Results) -> None:
    # Trap: the untested note naming only what the run did test, so a suite that declares
    # Korean and holds no Korean case reads as if Korean was never in scope.
    suites = tuple(
        suite.model_copy(update={"languages": (*suite.languages, "ko")})
        if suite.suite == "six-false-positive"
        else suite
        for suite in results.suites
    )
    no_korean = tuple(case for case in results.cases if case.language != "ko")
    only_two = results.model_copy(update={"suites": suites, "cases": no_korean})
    note = build_pack(only_two).untested_languages_note
    assert note == (
        "Tested languages: en, es, zh, vi, tl. Declared but with no case: ko "
        "(six-false-positive, six-refusal). Any other language was not tested by this run, "
        "and nothing here speaks for it."
    )


def test_the_totals_table_lists_languages_in_column_order(pack: EvidencePack) -> None:
    # Trap: the pack's languages sorted by tag (en, es, ko, tl, vi, zh).
    assert [counts.language for counts in pack.languages] == ["en", "es", "zh", "vi", "tl", "ko"]
    [gate] = [g for g in pack.gates if g.gate is GateName.REFUSAL]
    assert [count.language for count in gate.languages] == ["en", "es", "zh", "vi", "tl", "ko"]


def test_the_inventory_has_a_column_per_language_in_column_order() -> None:
    # Trap: the inventory's columns sorted by tag, Korean second.
    suites = pf.suites()
    assert languages_of(suites) == ["en", "es", "zh", "vi", "tl", "ko"]
    head, _, false_positive, refusal, total = render_inventory_markdown(suites).splitlines()
    assert head == "| Gate | Suite | Threshold | en | es | zh | vi | tl | ko | Total |"
    assert false_positive == (
        "| false_positive | `six-false-positive` | 1 | 1 | 1 | 0 | 0 | 0 | 0 | 2 |"
    )
    assert refusal == "| refusal | `six-refusal` | 1 | 3 | 3 | 3 | 3 | 3 | 3 | 18 |"
    assert total == "| **all** |  |  | 4 | 4 | 3 | 3 | 3 | 3 | 20 |"


def test_every_failing_side_is_a_failed_case(results: Results) -> None:
    # The fixture itself: exactly the sides it was told to fail, and nothing else.
    failed = {(c.pair, c.language) for c in results.cases if c.outcome is Outcome.FAILED}
    assert failed == set(pf.ONE_AND_TWO)


def test_drift_rows_follow_the_language_column_order(pack: EvidencePack) -> None:
    # Trap: drift's rows sorted by tag apart from every other table: ko, tl, vi, zh.
    assert pack.baseline.drift is not None
    rates = [rate.language for rate in pack.baseline.drift.rates if rate.gate is GateName.REFUSAL]
    assert rates == [None, "en", "es", "zh", "vi", "tl", "ko"]
    markdown = render_markdown(pack)
    newly = markdown.split("### Newly failing (3)", 1)[1].split("###", 1)[0]
    assert [line.split(":")[0] for line in newly.split("\n") if line.startswith("- ")] == [
        "- vi",
        "- ko",
    ]


def test_validate_counts_each_gate_in_the_language_column_order() -> None:
    # Trap: `gauntlet validate` listing a gate's languages by tag (en, es, ko, tl, vi, zh).
    lines = validate_lines(pf.suites(), None)
    [refusal] = [line for line in lines if line.startswith("refusal ")]
    assert refusal.endswith("en 3  es 3  zh 3  vi 3  tl 3  ko 3")


@pytest.mark.parametrize("width", [80, 100])
def test_the_console_attack_table_of_six_languages_fits_the_terminal(width: int) -> None:
    # Trap: a `got/graded share [interval]` cell per language, six of them, 150 columns wide.
    lines = attack_lines(pf.korean_variants_get_through())
    assert all(len(line) <= width for line in lines[:-1]), lines
    assert lines[1] == ("attack success per transform: got through/graded (shares in the pack)")
    assert lines[2] == "refusal"
    assert lines[3].split() == ["transform", "en", "es", "zh", "vi", "tl", "ko", "not", "graded"]
    assert lines[4].split() == ["as", "written", "0/1", "0/1", "0/1", "0/1", "0/1", "0/1", "0"]
    assert lines[5].split() == ["base64", "0/1", "0/1", "0/1", "0/1", "0/1", "1/1", "0"]
    assert lines[-1] == "broke the target first: base64 1/6 (17%), important_instructions 1/6 (17%)"


def _six_language_history() -> History:
    """The seeded history with its cases spread over the six peers (by case number)."""
    history = seeded_history(2)
    peers = ("ko", "tl", "vi", "zh", "es", "en")  # reversed, so sorting would reorder them
    cases = tuple(
        dataclasses.replace(case, language=peers[number % len(peers)])
        for number, case in enumerate(history.cases)
    )
    return dataclasses.replace(history, cases=cases)


def test_the_dashboard_and_history_show_draw_languages_in_column_order() -> None:
    # Trap: the dashboard's lines and `history show`'s rows sorted by tag.
    history = _six_language_history()
    assert gather_dashboard(history, FakeStats()).languages == ("en", "es", "zh", "vi", "tl", "ko")
    rows = show_lines(history, history.runs[-1])
    header = next(n for n, line in enumerate(rows) if line.startswith("gate "))
    by_gate: dict[str, list[str]] = {}
    for line in rows[header + 1 :]:
        by_gate.setdefault(line.split()[0], []).append(line.split()[1])
    assert max(len(languages) for languages in by_gate.values()) > 2
    for languages in by_gate.values():
        assert languages == in_column_order(languages)


def test_a_waived_side_of_a_wide_group_is_named_as_waived(results: Results) -> None:
    # Trap: grouping by passed/failed only, so a waived Korean failure reads as passed (or is
    # dropped), and the waived difference looks like agreement.
    cases = tuple(
        case.model_copy(update={"outcome": Outcome.WAIVED})
        if case.case_id == "six-ref-ko-forge-seal"
        else case
        for case in results.cases
    )
    [check] = [c for c in pair_checks(cases) if c.pair == "forge-seal"]
    assert check.reason == (
        "parity: pair forge-seal differs, its failing side waived: waived: ko "
        f"six-ref-ko-forge-seal ({FAILED}); passed: en, es, zh, vi, tl"
    )


def test_attack_rows_and_breaks_follow_the_language_column_order() -> None:
    # Trap: the pack's attack-success rows, and the languages a transform broke through in,
    # sorted by tag (ko before zh) where every other table draws the peers' order.
    pack = build_pack(pf.korean_variants_get_through())
    [gate] = pack.gates
    written = [row.language for row in gate.attack_success if row.transform is None]
    assert written == ["en", "es", "zh", "vi", "tl", "ko"]
    everywhere = pf.korean_variants_get_through(("en", "zh", "ko"))
    [base64, *_] = build_pack(everywhere).broke_first
    assert base64.languages == ("en", "zh", "ko")


def test_a_wide_pairs_sides_are_listed_in_column_order_whatever_the_files_order(
    results: Results,
) -> None:
    # Trap: the sides listed in plan order, so a suite file that writes Tagalog before Chinese
    # (as languages added one by one append their blocks) says `passed: en, es, tl, vi, zh`
    # while every table draws en, es, zh, vi, tl, ko.
    last = max(case.index for case in results.cases)
    reversed_plan = [case.model_copy(update={"index": last - case.index}) for case in results.cases]
    [check] = [c for c in pair_checks(reversed_plan) if c.pair == "forge-seal"]
    assert [side.language for side in check.sides] == list(PEERS)
    assert check.reason.endswith("; passed: en, es, zh, vi, tl")
