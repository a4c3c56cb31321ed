"""Similarity in the evidence pack and its renderings: the embedder, and each case's score.

A reviewer must see which embedder compared meanings (beside the judge's fingerprint), on
which calibration record and thresholds, and for each case compared by meaning its score,
threshold and failed guards: in the pack, report.md and JUnit alike.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.evidence.pack import EvidencePack, build_pack
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Results, TargetInfo
from gauntlet.semantic.check import Similarity
from gauntlet.semantic.embedder import Embeddings
from gauntlet.targets.toy import ToyDefect, make_toy

from ...run_settings import settings_for

ROOT = Path(__file__).resolve().parents[3]
RECORD_SHA = "ab" * 32


def _run(opened: tuple[Any, Any], suites: SuiteSet, *defects: ToyDefect) -> Results:
    embedder, fingerprint = opened
    similarity = Similarity(
        fingerprint=fingerprint,
        thresholds=MappingProxyType({"en": 0.8, "es": 0.75}),
        record_sha256=RECORD_SHA,
        embeddings=Embeddings(embedder, fingerprint),
    )
    toy = make_toy(defects)
    target = TargetInfo(kind="toy", name=toy.name, defects=tuple(defects))
    return run_gauntlet(suites, toy, settings_for(suites, target, similarity=similarity))


@pytest.fixture(scope="module")
def renumbered(opened_toy_embedder: Any) -> EvidencePack:
    suites = load_suites([ROOT / "examples" / "semantic" / "golden.yaml"])
    return build_pack(_run(opened_toy_embedder, suites, ToyDefect.WRONG_NUMBER))


def test_the_pack_records_the_embedder_beside_the_judge(renumbered: EvidencePack) -> None:
    # Trap: a pack whose verdict rests on similarity without saying which embedder, which
    # record and which thresholds: nobody could tell it from a run with another embedder.
    embedder = renumbered.embedder
    assert embedder is not None
    assert embedder.fingerprint.kind == "toy" and embedder.fingerprint.weights_sha256
    assert embedder.calibration_sha256 == RECORD_SHA
    assert embedder.thresholds == {"en": 0.8, "es": 0.75}
    assert embedder.allowed_to_gate and embedder.refused is None
    assert (embedder.checks.total, embedder.checks.failed, embedder.checks.guarded) == (8, 8, 8)


def test_each_case_compared_by_meaning_shows_its_check(renumbered: EvidencePack) -> None:
    # Trap: the case's failure reason alone, without the check's guards, score and threshold
    # a reviewer needs to tell a guard's failure from a low score.
    for case in renumbered.cases:
        assert case.similarity_ask == 1
        assert case.similarity is not None and case.similarity.outcome == "failed"
        assert any("number" in guard for guard in case.similarity.guards)


def test_report_md_has_a_similarity_section_with_each_case(renumbered: EvidencePack) -> None:
    # Trap: the pack holding the figures but the report a reviewer reads leaving them out.
    report = render_markdown(renumbered)
    section = report.split("## Similarity", 1)[1].split("\n## ", 1)[0]
    assert RECORD_SHA in section
    assert "en 0.800, es 0.750" in section
    assert "8: 0 passed, 8 failed (8 by a guard), 0 unjudged" in section
    # Failed by the number guard, each with the score similarity alone gave, beside it.
    assert (
        len(re.findall(r"\| failed \| 0\.\d{3} \| 0\.(?:800|750) \| the answer does not", section))
        == 8
    )


def test_junit_carries_the_embedder_and_each_case_score(
    opened_toy_embedder: Any, renumbered: EvidencePack
) -> None:
    # Trap: a CI view that shows the failures but not which embedder or scores decided them.
    root = ET.fromstring(render_junit(renumbered))  # noqa: S314 - our own output
    properties = {
        prop.get("name"): prop.get("value") for prop in root.iter("property") if prop.get("name")
    }
    embedder = properties["similarity.embedder"] or ""
    assert embedder.startswith("toy toy over") and "weights sha256" in embedder
    assert properties["similarity.calibration_sha256"] == RECORD_SHA
    value = properties["similarity.semantic-gold-en-311 [en]"] or ""
    assert re.match(r"failed: 0\.\d{3} at threshold 0\.800; guards failed: .*number 311", value)
    drifted = load_suites([ROOT / "examples" / "semantic" / "golden.yaml"])
    passing = build_pack(_run(opened_toy_embedder, drifted, ToyDefect.ANSWER_DRIFT))
    root = ET.fromstring(render_junit(passing))  # noqa: S314 - our own output
    values = [
        prop.get("value") or ""
        for prop in root.iter("property")
        if (prop.get("name") or "").startswith("similarity.semantic-gold-es")
    ]
    assert len(values) == 4
    assert all(v.startswith("passed: 0.") and v.endswith("at threshold 0.750") for v in values)


def test_trajectory_similarity_is_reported_per_gate_and_language(
    tmp_path: Path, opened_toy_embedder: Any
) -> None:
    # Trap: the third trajectory metric measured but missing where tool accuracy and
    # faithfulness are reported (the gate's distributions and report.md's scores table).
    from ...test_semantic_self_test import _TRAJECTORY

    path = tmp_path / "trajectory.yaml"
    path.write_text(_TRAJECTORY.format(floor=0.5), encoding="utf-8")
    pack = build_pack(_run(opened_toy_embedder, load_suites([path])))
    (gate,) = [gate for gate in pack.gates if gate.trajectory_scores]
    overall, english = gate.trajectory_scores
    assert english.language == "en"
    for scores in (overall, english):
        assert scores.similarity is not None and scores.similarity.measured == 1
        assert 0.8 <= scores.similarity.mean < 1.0
    report = render_markdown(pack)
    assert "| trajectory | en | similarity | 1 of 1 asks |" in report
