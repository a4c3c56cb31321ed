"""A results file's similarity is taken as stored, and refused when it contradicts itself.

The embedder cannot be asked again when a file is read, so a stored similarity check is not
redone; what can be checked is checked: a passed check has held guards and a score at its
threshold, a failed one a failed guard or a score below it, the ask's outcome follows from
it, an ask its case compares by meaning carries one, and an older format carries none. The
guards are rules, so a passed check's are run again on the stored answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.errors import ResultsError
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Results, TargetInfo
from gauntlet.run.results_file import read_results, write_results
from gauntlet.semantic.check import Similarity
from gauntlet.semantic.embedder import Embeddings
from gauntlet.targets.toy import ToyDefect, make_toy

from ...run_settings import settings_for

ROOT = Path(__file__).resolve().parents[3]


def _semantic_run(opened: tuple[Any, Any], *defects: ToyDefect) -> Results:
    embedder, fingerprint = opened
    suites = load_suites([ROOT / "examples" / "semantic" / "golden.yaml"])
    similarity = Similarity(
        fingerprint=fingerprint,
        thresholds=MappingProxyType({"en": 0.8, "es": 0.8}),
        record_sha256="ab" * 32,
        embeddings=Embeddings(embedder, fingerprint),
    )
    toy = make_toy(defects)
    target = TargetInfo(kind="toy", name=toy.name, defects=tuple(defects))
    return run_gauntlet(suites, toy, settings_for(suites, target, similarity=similarity))


@pytest.fixture(scope="module")
def drifted(opened_toy_embedder: Any) -> Results:
    return _semantic_run(opened_toy_embedder, ToyDefect.ANSWER_DRIFT)


def _edited(tmp_path: Path, results: Results, edit: Callable[[dict[str, Any]], None]) -> str:
    path = tmp_path / "r.json"
    write_results(results, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    return str(caught.value)


def _first_check(data: dict[str, Any]) -> dict[str, Any]:
    check: dict[str, Any] = data["cases"][0]["trials"][0]["similarity"]
    return check


def test_a_passed_similarity_check_with_a_failed_guard_is_refused(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: a stored check taken as stored without its own consistency: an edited file whose
    # check says passed while recording the negation guard it failed would read as a pass.
    def edit(data: dict[str, Any]) -> None:
        _first_check(data)["guards"] = ["the answer has a negation the other does not"]

    assert "passed, but a guard failed" in _edited(tmp_path, drifted, edit)


def test_a_passed_similarity_check_below_its_threshold_is_refused(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: a score lowered below its threshold (or a threshold raised over it) left passed.
    def edit(data: dict[str, Any]) -> None:
        _first_check(data)["score"] = 0.42

    assert "its score is not at its threshold" in _edited(tmp_path, drifted, edit)


def test_a_failed_similarity_check_with_no_cause_is_refused(
    tmp_path: Path, opened_toy_embedder: Any
) -> None:
    # Trap: a check stored failed with no failed guard and a score at its threshold: it
    # disagrees with itself, and read as it stands the file could say anything.
    failed = _semantic_run(opened_toy_embedder, ToyDefect.WRONG_NUMBER)

    def edit(data: dict[str, Any]) -> None:
        _first_check(data).update(guards=[], score=0.9, threshold=0.8)

    assert "failed, but no guard failed" in _edited(tmp_path, failed, edit)


def test_an_ask_its_case_compares_by_meaning_without_a_similarity_check_is_refused(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: deleting the check of a semantic ask, leaving the gate's own pass (which skips the
    # exact comparison) to stand for the whole ask.
    def edit(data: dict[str, Any]) -> None:
        trial = data["cases"][0]["trials"][0]
        trial["similarity"] = None
        trial["scores"] = None

    assert "records no similarity check" in _edited(tmp_path, drifted, edit)


def test_an_older_format_holding_similarity_is_refused(tmp_path: Path, drifted: Results) -> None:
    # Trap: a file relabelled as format 10 read with the similarity no gauntlet of that format
    # wrote, or read as a plain golden run.
    def edit(data: dict[str, Any]) -> None:
        data["schema_version"] = 10

    message = _edited(tmp_path, drifted, edit)
    assert "embedder: similarity, which results format 10 does not hold" in message


def test_a_semantic_run_reads_back_and_an_older_file_reads_as_without_similarity(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: a format bump that breaks reading what was written, or leaves older files unread.
    path = tmp_path / "r.json"
    write_results(drifted, path)
    assert read_results(path) == drifted
    older = ROOT / "tests" / "corpus" / "results" / "v1-golden-answer-drift.json"
    assert read_results(older).embedder is None


def test_a_passed_similarity_check_the_run_embedder_could_not_give_is_refused(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: checks left passed in a file whose embedder is edited to one that may not gate,
    # or whose accepted threshold is raised above the one the checks were held to.
    def refused(data: dict[str, Any]) -> None:
        data["embedder"]["refused"] = "no calibration record was given"

    def raised(data: dict[str, Any]) -> None:
        data["embedder"]["thresholds"] = {"en": 0.99, "es": 0.8}

    def dropped(data: dict[str, Any]) -> None:
        data["embedder"] = None

    assert "passed, but the run's embedder may not gate" in _edited(tmp_path, drifted, refused)
    assert "passed at a threshold below the 0.99" in _edited(tmp_path, drifted, raised)
    assert "a run that records no embedder" in _edited(tmp_path, drifted, dropped)


def test_a_passed_check_whose_stored_answer_fails_a_guard_read_again_is_refused(
    tmp_path: Path, drifted: Results
) -> None:
    # Trap: a check consistent with itself taken on trust: an edited file that turns the
    # stored answer round (a figure changed) and keeps its "passed" check would read as a
    # pass. The guards are rules, not a model, so a reader runs them again.
    def edit(data: dict[str, Any]) -> None:
        response = data["cases"][0]["trials"][0]["response"]
        assert "311" in response["text"]
        response["text"] = response["text"].replace("311", "411")

    refused = _edited(tmp_path, drifted, edit)
    assert "passed, but its answer fails a guard read again" in refused
    assert "the number 311" in refused
