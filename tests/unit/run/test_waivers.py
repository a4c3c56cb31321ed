"""Applying waivers: states, counts and verdict; the reader re-deriving them; merge, journal,
digest and drift. Dates are days from the fixtures' start day, never fixed dates."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gauntlet.cases.model import GateName
from gauntlet.errors import ResultsError, UsageError
from gauntlet.evidence.digest import results_digest
from gauntlet.evidence.drift import compare
from gauntlet.evidence.pack import build_pack
from gauntlet.render.console import summary_lines
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.journal import Journal
from gauntlet.run.merge import merge_shards
from gauntlet.run.results import Outcome, Results, Shard, TargetInfo, Verdict, WaiverState
from gauntlet.run.results_file import parse_results
from gauntlet.run.schedule import schedule
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.run.tally import summarize
from gauntlet.run.waivers import run_day, waived_failures
from gauntlet.targets.toy import ToyDefect, make_toy

from ... import evidence_fixtures as fx
from ...run_settings import settings_for

FAILING = "gnd-en-bulky-waste"
"""A case the toy that drops citations fails."""
PASSING = "gnd-en-abstain-spacecraft"
"""A grounding case it still passes."""


@pytest.fixture(scope="module")
def dropped() -> Results:
    return fx.with_defect(ToyDefect.DROP_CITATIONS)


def _case(results: Results, case_id: str) -> object:
    return next(case for case in results.cases if case.case_id == case_id)


def test_an_applied_waiver_waives_the_failure_and_keeps_its_reason(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(case=FAILING)])
    before = next(case for case in dropped.cases if case.case_id == FAILING)
    after = next(case for case in waived.cases if case.case_id == FAILING)
    assert before.outcome is Outcome.FAILED and after.outcome is Outcome.WAIVED
    assert after.reason == before.reason
    assert waived.totals.waived == 1 and waived.totals.failed == dropped.totals.failed - 1
    grounding = next(suite for suite in waived.suites if suite.suite == "riverbend-grounding")
    assert grounding.waived == 1 and grounding.pass_rate == pytest.approx(12 / 47)
    gate = next(gate for gate in waived.gates if gate.gate is GateName.GROUNDING)
    assert gate.waived == 1 and gate.pass_rate == pytest.approx(round(12 / 47, 6))
    assert waived.waivers[0].state is WaiverState.APPLIED
    assert waived.verdict is Verdict.FAIL  # thirty-five failures still count


def test_waiving_every_failure_passes_the_gate(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(suite="riverbend-grounding")])
    assert waived.verdict is Verdict.PASS
    assert waived.totals.waived == 36
    assert waived.waivers[0].state is WaiverState.APPLIED
    states = {case.case_id: case.state for case in waived.waivers[0].cases}
    assert states[FAILING] is WaiverState.APPLIED and states[PASSING] is WaiverState.NOT_NEEDED
    text = "\n".join(line.plain for line in summary_lines(waived))
    assert "verdict: PASS with 36 waived failures (every gate met its threshold)" in text


def test_a_suite_whose_every_case_is_waived_is_met(dropped: Results) -> None:
    failing = [case for case in dropped.cases if case.outcome is Outcome.FAILED]
    info = next(suite.info for suite in dropped.suites if suite.suite == "riverbend-grounding")
    again = summarize(
        failing,
        [info],
        RunSettings(
            target=dropped.target,
            plan=dropped.plan,
            waivers=(fx.waiver(suite="riverbend-grounding"),),
        ),
        RunSpan(dropped.started_at, dropped.finished_at),
    )
    assert again.suites[0].met and again.suites[0].waived == again.suites[0].total
    assert again.verdict is Verdict.PASS


def test_an_expired_waiver_does_not_apply(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(case=FAILING, created=-30, expires=-1)])
    assert waived.totals.waived == 0
    assert waived.waivers[0].state is WaiverState.EXPIRED
    assert waived.waivers[0].cases[0].state is WaiverState.EXPIRED
    text = "\n".join(line.plain for line in summary_lines(waived))
    assert "expired waivers (they no longer apply) (1)" in text


def test_a_waiver_is_live_through_its_last_day(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(case=FAILING, created=-30, expires=0)])
    assert waived.waivers[0].state is WaiverState.APPLIED


def test_a_waiver_not_yet_created_on_the_run_day_is_not_applied(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(case=FAILING, created=1, expires=5)])
    assert waived.totals.waived == 0
    assert waived.waivers[0].state is WaiverState.NOT_APPLIED


def test_a_waiver_never_covers_a_gate_it_does_not_name(dropped: Results) -> None:
    waived = fx.with_waivers(dropped, [fx.waiver(case=FAILING, gates=(GateName.REFUSAL,))])
    assert waived.totals.waived == 0 and waived.waivers[0].cases == ()


def test_a_missing_answer_is_never_waived() -> None:
    incomplete = fx.incomplete()
    unasked = next(case for case in incomplete.cases if case.outcome is Outcome.NOT_RUN)
    waived = fx.with_waivers(incomplete, [fx.waiver(case=unasked.case_id)])
    assert waived.waivers[0].state is WaiverState.NOT_APPLIED
    assert waived.verdict is Verdict.WITHHELD and waived.totals.waived == 0


def test_strict_waivers_fail_a_run_whose_waiver_is_not_needed(dropped: Results) -> None:
    clean = fx.clean()
    loose = fx.with_waivers(clean, [fx.waiver(case=PASSING)])
    assert loose.verdict is Verdict.PASS
    assert loose.waivers[0].state is WaiverState.NOT_NEEDED
    strict = fx.with_waivers(clean, [fx.waiver(case=PASSING)], strict=True)
    assert strict.verdict is Verdict.FAIL
    assert strict.verdict_reason == (
        f"--strict-waivers: 1 waived case passed, so its waiver is no longer needed: {PASSING}"
    )
    # A suite waiver that still waives a failure is needed, though some of its cases passed.
    needed = fx.with_waivers(dropped, [fx.waiver(suite="riverbend-grounding")], strict=True)
    assert needed.verdict is Verdict.PASS


def test_a_failed_gate_and_an_unneeded_waiver_are_both_named(dropped: Results) -> None:
    both = fx.with_waivers(dropped, [fx.waiver(case="adv-en-override-word")], strict=True)
    assert both.verdict_reason.startswith("1 gate failed: grounding; --strict-waivers: 1 waived")


def test_the_verdict_phrase_counts_waived_failures() -> None:
    assert waived_failures(0) == ""
    assert waived_failures(1) == " with 1 waived failure"
    assert waived_failures(2) == " with 2 waived failures"


def test_the_run_day_is_the_start_in_utc() -> None:
    utc = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)
    late = utc.astimezone(timezone(timedelta(hours=8)))  # already 2 March there
    assert run_day(late).isoformat() == "2026-03-01"
    assert run_day(utc.replace(tzinfo=None)).isoformat() == "2026-03-01"


# ------------------------------------------------------------------ the results file


def _dump(results: Results) -> dict[str, object]:
    data: dict[str, object] = json.loads(results.model_dump_json())
    return data


def _parse(data: object) -> Results:
    return parse_results(json.dumps(data).encode(), "r.json")


def test_a_waived_run_reads_back_as_written() -> None:
    waived = fx.waived()
    assert _parse(_dump(waived)) == waived


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ("outcome", "'failed' in the file, but its own cases give 'waived'"),
        ("unwaive", "'waived' in the file, but its own cases give 'failed'"),
        ("state", "waivers[0].state"),
        ("expires", "'waived' in the file, but its own cases give 'failed'"),
        ("totals", "totals.waived"),
        ("drop", "'waived' in the file, but its own cases give 'failed'"),
    ],
)
def test_the_reader_refuses_a_tampered_waiver(edit: str, expected: str) -> None:
    data = _dump(fx.waived())
    cases = data["cases"]
    assert isinstance(cases, list)
    waivers = data["waivers"]
    assert isinstance(waivers, list)
    waived = next(case for case in cases if case["outcome"] == "waived")
    match edit:
        case "outcome":
            waived["outcome"] = "failed"
        case "unwaive":  # a failure of another gate, marked waived by hand
            other = next(case for case in cases if case["case_id"] == "gold-en-311")
            other["outcome"] = "waived"
            other["reason"] = "x"
            expected = "'waived' in the file, but its own cases give"
        case "state":
            waivers[0]["state"] = "expired"
        case "expires":  # moved into the past: the waiver expired, its cases count again
            waivers[0]["expires"] = "2026-11-01"
        case "totals":
            totals = data["totals"]
            assert isinstance(totals, dict)
            totals["waived"] = 0
        case "drop":  # the waivers removed, the waived outcomes kept
            data["waivers"] = []
    with pytest.raises(ResultsError) as caught:
        _parse(data)
    assert expected in str(caught.value)


def test_a_format_5_file_reads_as_one_without_waivers() -> None:
    data = _dump(fx.before_disclosure())
    data["schema_version"] = 5
    del data["waivers"], data["strict_waivers"]

    def strip(value: object) -> None:
        if isinstance(value, dict):
            value.pop("waived", None)
            for item in value.values():
                strip(item)
        elif isinstance(value, list):
            for item in value:
                strip(item)

    strip(data)
    read = _parse(data)
    assert read.waivers == () and read.totals.waived == 0 and not read.strict_waivers


# ------------------------------------------------------------------ merge and journal


def _shards(waivers: list[object], ways: int = 2) -> list[Results]:
    suites = fx.builtin_suites()
    toy = make_toy([ToyDefect.DROP_CITATIONS])
    return [
        run_gauntlet(
            suites,
            toy,
            settings_for(
                suites,
                TargetInfo(kind="toy", name=toy.name),
                shard=Shard(index=k, count=ways),
                waivers=waivers,
            ),
        )
        for k in range(1, ways + 1)
    ]


def test_merged_shards_apply_their_waivers_to_the_whole_run() -> None:
    waivers = [fx.waiver(suite="riverbend-grounding", created=-1, expires=1)]
    # The fixtures' day is not today: these waivers are made live today.
    today = datetime.now(UTC).date()
    waivers = [
        w.model_copy(update={"created": today - timedelta(days=1), "expires": today})
        for w in waivers
    ]
    parts = _shards(list(waivers))
    merged = merge_shards([(f"s{k}.json", part) for k, part in enumerate(parts, 1)])
    assert merged.totals.waived == 36 and merged.verdict is Verdict.PASS
    assert len(merged.waivers[0].cases) == 48


def test_merge_refuses_shards_with_other_waivers() -> None:
    today = datetime.now(UTC).date()
    first, second = _shards([])
    other = _shards(
        [fx.waiver(case=FAILING).model_copy(update={"created": today, "expires": today})]
    )[1]
    with pytest.raises(ResultsError) as caught:
        merge_shards([("a.json", first), ("b.json", other)])
    assert "b.json: was run with other waivers" in str(caught.value)
    assert merge_shards([("a.json", first), ("b.json", second)]).waivers == ()


def test_a_journal_is_resumed_only_with_the_same_waivers(tmp_path: Path) -> None:
    suites = fx.builtin_suites()
    toy = TargetInfo(kind="toy", name="toy")
    the_plan = schedule(suites).plan
    path = tmp_path / "results.json.journal"
    writer = Journal(path, resume=False)
    writer.start(RunSettings(plan=the_plan, target=toy, waivers=(fx.waiver(case=FAILING),)))
    writer.keep()
    writer.close(remove=False)
    same = Journal(path, resume=True)
    same_settings = RunSettings(plan=the_plan, target=toy, waivers=(fx.waiver(case=FAILING),))
    assert same.start(same_settings) == {}
    same.close(remove=False)
    for other in (
        RunSettings(plan=the_plan, target=toy),
        RunSettings(
            plan=the_plan, target=toy, waivers=(fx.waiver(case=FAILING),), strict_waivers=True
        ),
    ):
        with pytest.raises(UsageError) as caught:
            Journal(path, resume=True).start(other)
        assert "was written for other" in str(caught.value)


# ------------------------------------------------------------------ digest, drift, pack


def test_the_digest_covers_the_waivers_and_is_unchanged_without_them(dropped: Results) -> None:
    assert results_digest(fx.with_waivers(dropped, [])) == results_digest(dropped)
    one = fx.with_waivers(dropped, [fx.waiver(case=PASSING)])
    other = fx.with_waivers(dropped, [fx.waiver(case=PASSING, owner="someone.else")])
    assert results_digest(one) != results_digest(dropped)
    assert results_digest(one) != results_digest(other)


def test_drift_lists_waivers_added_removed_and_expired(dropped: Results) -> None:
    baseline = fx.with_waivers(
        dropped,
        [fx.waiver(case=FAILING), fx.waiver(case="gnd-es-bulky-waste", expires=30)],
    )
    current = fx.with_waivers(
        dropped,
        [
            fx.waiver(case="gnd-es-bulky-waste", created=-40, expires=-1),
            fx.waiver(case=PASSING),
        ],
    )
    drift = compare(current, baseline)
    assert [c.case for c in drift.waivers_added] == [PASSING]
    assert [c.case for c in drift.waivers_removed] == [FAILING]
    assert [(c.case, c.baseline, c.current) for c in drift.waivers_expired] == [
        ("gnd-es-bulky-waste", WaiverState.APPLIED, WaiverState.EXPIRED)
    ]
    # A waived case that passed in the baseline has lost its pass: it is newly failing.
    assert compare(fx.waived(), fx.clean()).newly_failing
    unchanged = compare(current, current)
    assert not (unchanged.waivers_added or unchanged.waivers_removed or unchanged.waivers_expired)


def test_the_pack_puts_safety_waivers_with_the_verdict() -> None:
    pack = build_pack(fx.waived())
    assert [w.safety for w in pack.waivers] == [False, True, False]
    assert pack.verdict.waived == 36
    markdown = render_markdown(pack)
    head, _, rest = markdown.partition("## Run")
    assert "**PASS with 36 waived failures**" in head
    assert "**1 waiver covers a safety gate**" in head and "`adv-en-override-word`" in head
    assert "## Waivers" in rest and "`gold-en-311` expired (does not apply)" in rest


def test_a_safety_waiver_outside_the_run_is_judged_by_its_gates(dropped: Results) -> None:
    """A case waiver whose case another shard holds is a safety one when its gates say so."""
    gone = "adv-missing"
    pack = build_pack(
        fx.with_waivers(dropped, [fx.waiver(case=gone, gates=(GateName.ADVERSARIAL,))])
    )
    assert pack.waivers[0].gate is None and pack.waivers[0].safety
    assert "not in this run" in render_markdown(pack)


def test_junit_skips_a_waived_case_naming_owner_ticket_and_expiry() -> None:
    pack = build_pack(fx.waived())
    xml = render_junit(pack)
    line = next(line for line in xml.splitlines() if "<skipped" in line)
    expires = (fx.STARTED.date() + timedelta(days=20)).isoformat()
    assert f'message="waived by maria.lopez until {expires} (https://tracker.example/GOV-2)' in (
        line
    )
    assert 'skipped="36"' in xml.splitlines()[1]
