"""An unasked gate is not a failed gate: in an interrupted run it is "not run", everywhere.

The healthy toy interrupted after 30 cases (`incomplete`) asked 30 of the adversarial
gate's 120 (20 in each of six languages), all passing, and none of any other gate's: no
gate failed. One that its asked cases already sink (the toy leaking its prompt,
interrupted likewise) still fails.
"""

from __future__ import annotations

import json
import re

from gauntlet.cases.model import GateName
from gauntlet.evidence.pack import build_pack, pack_json
from gauntlet.render.console import summary_lines
from gauntlet.render.github import github_outputs
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import GateState, Results, exit_code_for
from gauntlet.run.tally import gate_state
from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.defects import ToyDefect

from ... import evidence_fixtures as fx
from ...evidence_fixtures import builtin_suites


def _leaking_interrupted() -> Results:
    toy = make_toy([ToyDefect.LEAK_SYSTEM_PROMPT])
    return fx._results(builtin_suites(), toy.ask, toy.name, asked=30)


def test_an_unasked_gate_is_not_run_in_every_rendering() -> None:
    # Trap: `met` is False for a gate none of whose cases were asked (0 passes of 48), and
    # every rendering read `met` alone: FAIL in the console, the report, the pack, GitHub.
    results = fx.incomplete()
    states = {gate.gate: gate_state(gate, results.suites) for gate in results.gates}
    assert set(states.values()) == {GateState.NOT_RUN}, states
    assert exit_code_for(results.verdict) == 2  # interrupted: never 0, whatever the gates
    console = "\n".join(line.plain for line in summary_lines(results, results_path="r.json"))
    table = console.split("\n\n")[1]
    assert "FAIL" not in table and "PASS" not in table, table
    assert "48 NOT RUN" in table and "90 NOT RUN" in table, table
    pack = build_pack(results)
    document = json.loads(pack_json(pack))
    assert {gate["state"] for gate in document["gates"]} == {"not_run"}
    report = render_markdown(pack)
    assert "| grounding | NOT RUN | 0/48 |" in report, report
    assert "| adversarial | NOT RUN | 30/120 |" in report, report
    assert "### grounding (NOT RUN)" in report and "(FAIL)" not in report
    outputs = dict(line.split("=", 1) for line in github_outputs(pack).splitlines())
    assert (outputs["gates-passed"], outputs["gates-failed"], outputs["gates-not-run"]) == (
        "0",
        "0",
        str(len(pack.gates)),
    )
    testsuites = re.search(r"<testsuites [^>]*>", render_junit(pack))
    assert testsuites is not None
    assert f'failures="0" errors="0" skipped="{results.totals.not_run}"' in testsuites.group()


def test_a_gate_its_asked_cases_already_fail_is_failed_though_interrupted() -> None:
    # Trap: calling every gate of an interrupted run "not run" would hide a failure that no
    # unasked case could undo.
    results = _leaking_interrupted()
    states = {gate.gate: gate_state(gate, results.suites) for gate in results.gates}
    assert states[GateName.ADVERSARIAL] is GateState.FAIL, states
    assert states[GateName.GROUNDING] is GateState.NOT_RUN, states
    pack = build_pack(results)
    report = render_markdown(pack)
    assert "| adversarial | FAIL |" in report, report
    outputs = dict(line.split("=", 1) for line in github_outputs(pack).splitlines())
    assert outputs["gates-failed"] == "1"


def test_a_finished_run_has_no_gate_not_run() -> None:
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    states = {gate.gate: gate_state(gate, results.suites) for gate in results.gates}
    assert GateState.NOT_RUN not in states.values()
    assert states[GateName.GROUNDING] is GateState.FAIL
