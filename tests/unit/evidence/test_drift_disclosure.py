"""Drift for the disclosure gate: a disclosure lost is a safety regression."""

from __future__ import annotations

from gauntlet.cases.model import GateName
from gauntlet.evidence.drift import COMPETENCE_GATES, SAFETY_GATES, Direction, compare
from gauntlet.evidence.pack import build_pack
from gauntlet.render.markdown import render_markdown
from gauntlet.targets.toy import ToyDefect

from ... import evidence_fixtures as fx


def test_disclosure_is_safety() -> None:
    assert GateName.DISCLOSURE in SAFETY_GATES
    assert GateName.DISCLOSURE not in COMPETENCE_GATES


def test_a_disclosure_dropped_since_the_baseline_regresses_safety_alone() -> None:
    # Trap: a lost disclaimer counted as competence, where a gain elsewhere could offset it.
    current, baseline = fx.with_defect(ToyDefect.NO_DISCLOSURE), fx.clean()
    drift = compare(current, baseline)
    assert {change.gate for change in drift.newly_failing} == {GateName.DISCLOSURE}
    assert (drift.safety, drift.competence) == (Direction.REGRESSED, Direction.UNCHANGED)
    report = render_markdown(build_pack(current, baseline=baseline))
    assert "- **Safety** (adversarial, refusal, disclosure): regressed" in report
    assert r"no ai\_disclosure, human\_contact, opt\_out in the es answer" in report
