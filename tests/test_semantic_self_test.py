"""Meaning, measured, seen failing: golden `match: semantic` and trajectory `min_similarity`.

The toy's `answer_drift` rewords its curated answers (a closing pleasantry); `states_opposite`
turns them round in nearly the same words; `wrong_number` gives another figure. By meaning, a
rewording passes and the other two fail by the guards, whatever the embedder scores them.
The embedder is the in-process toy (healthy unless a test says), opened once a session, with
a `Similarity` built here with a threshold: calibration records are another item's.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.errors import UsageError
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Outcome, Results, TargetInfo, Verdict
from gauntlet.semantic.check import Similarity
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder
from gauntlet.targets.contract import TargetResponse
from gauntlet.targets.toy import ToyDefect, make_toy

from .cli_helpers import RunCli
from .run_settings import settings_for

ROOT = Path(__file__).resolve().parents[1]
SEMANTIC_GOLDEN = ROOT / "examples" / "semantic" / "golden.yaml"
THRESHOLD = 0.8
"""A threshold a calibration of the builtin might accept (docs/similarity.md): a stand-in."""


@pytest.fixture(scope="module")
def semantic_golden() -> SuiteSet:
    return load_suites([SEMANTIC_GOLDEN])


def _similarity(
    opened: tuple[Any, EmbedderFingerprint],
    *,
    threshold: float = THRESHOLD,
    languages: tuple[str, ...] = ("en", "es"),
    refused: str | None = None,
) -> Similarity:
    embedder, fingerprint = opened
    return Similarity(
        fingerprint=fingerprint,
        thresholds=MappingProxyType(dict.fromkeys(languages, threshold)),
        refused=refused,
        record_sha256=None if refused else "ab" * 32,
        embeddings=Embeddings(embedder, fingerprint),
    )


def _run(suites: SuiteSet, similarity: Similarity | None, *defects: ToyDefect) -> Results:
    toy = make_toy(defects)
    target = TargetInfo(kind="toy", name=toy.name, defects=tuple(defects))
    return run_gauntlet(suites, toy, settings_for(suites, target, similarity=similarity))


def _checks(results: Results) -> list[Any]:
    return [trial.similarity for case in results.cases for trial in case.trials]


@pytest.mark.parametrize("defect", [None, ToyDefect.ANSWER_DRIFT], ids=str)
def test_a_reworded_golden_answer_passes_by_meaning(
    semantic_golden: SuiteSet, opened_toy_embedder: Any, defect: ToyDefect | None
) -> None:
    # Trap: `match: semantic` still comparing word for word (answer_drift fails), or passing
    # an answer without asking the embedder (no score recorded against the threshold).
    results = _run(semantic_golden, _similarity(opened_toy_embedder), *filter(None, [defect]))
    failing = [f"{c.case_id}: {c.reason}" for c in results.cases if c.outcome is not Outcome.PASSED]
    assert failing == []
    assert results.verdict is Verdict.PASS
    for check in _checks(results):
        assert check is not None and check.outcome == "passed"
        assert check.score is not None and check.score >= check.threshold == THRESHOLD
        assert check.guards == ()
    assert results.embedder is not None and results.embedder.thresholds == {
        "en": THRESHOLD,
        "es": THRESHOLD,
    }


@pytest.mark.parametrize(
    ("defect", "guard"),
    [
        (ToyDefect.STATES_OPPOSITE, "negation"),
        (ToyDefect.WRONG_NUMBER, "does not have the number"),
    ],
    ids=str,
)
def test_an_answer_that_says_otherwise_in_the_same_words_fails_by_a_guard(
    semantic_golden: SuiteSet, opened_toy_embedder: Any, defect: ToyDefect, guard: str
) -> None:
    # Trap: similarity alone deciding, which scores a negated or renumbered answer near its
    # key (0.88 to 0.98 for the models measured): the guards must fail it first.
    results = _run(semantic_golden, _similarity(opened_toy_embedder), defect)
    assert results.verdict is Verdict.FAIL
    assert {case.outcome for case in results.cases} == {Outcome.FAILED}
    assert {case.language for case in results.cases} == {"en", "es"}
    would_pass = 0
    for case in results.cases:
        (trial,) = case.trials
        check = trial.similarity
        assert check is not None and check.outcome == "failed"
        assert any(guard in problem for problem in check.guards), check
        # Failed by the guard whatever the score; the score is kept beside it for the reader.
        assert check.score is not None and check.threshold is not None
        would_pass += check.score >= check.threshold
        assert case.reason.startswith("similarity: ")
    assert would_pass  # similarity alone would have passed some of these wrong answers


def test_the_guards_catch_the_negation_defect_even_when_a_record_is_forced(
    semantic_golden: SuiteSet,
) -> None:
    # Trap: trusting a threshold forced to 0.0 over an embedder blind to negation: every
    # answer would pass, the opposite of the key included.
    blind = ToyEmbedder([EmbedderDefect.NEGATION_BLIND])
    fingerprint = asyncio.run(blind.open())
    forced = _similarity((blind, fingerprint), threshold=0.0)
    results = _run(semantic_golden, forced, ToyDefect.STATES_OPPOSITE)
    assert results.verdict is Verdict.FAIL
    assert {case.outcome for case in results.cases} == {Outcome.FAILED}
    assert all("negation" in case.reason for case in results.cases)


def test_a_semantic_case_whose_similarity_is_refused_is_unjudged_never_passed(
    semantic_golden: SuiteSet, opened_toy_embedder: Any
) -> None:
    # Trap: an embedder without an accepted calibration record passing the answers it scores
    # high: similarity must earn its vote, as the judge does.
    refused = _similarity(opened_toy_embedder, refused="no calibration record was given")
    results = _run(semantic_golden, refused)
    assert {case.outcome for case in results.cases} == {Outcome.UNJUDGED}
    assert results.verdict is Verdict.WITHHELD
    assert all("no calibration record" in case.reason for case in results.cases)
    assert results.embedder is not None and results.embedder.refused is not None


def test_a_language_without_an_accepted_threshold_is_unjudged(
    semantic_golden: SuiteSet, opened_toy_embedder: Any
) -> None:
    # Trap: a threshold accepted in English used for Spanish, where it was never measured.
    english = _similarity(opened_toy_embedder, languages=("en",))
    results = _run(semantic_golden, english)
    outcomes = {(case.language, case.outcome) for case in results.cases}
    assert outcomes == {("en", Outcome.PASSED), ("es", Outcome.UNJUDGED)}
    assert results.verdict is Verdict.WITHHELD


def test_similarity_is_never_asked_about_an_answer_the_gate_failed(
    semantic_golden: SuiteSet, opened_toy_embedder: Any
) -> None:
    # Trap: a refusal compared by meaning (a refusal may reword the key's words), or an
    # embedder asked about answers it could only agree to fail.
    similarity = _similarity(opened_toy_embedder)
    results = _run(semantic_golden, similarity, ToyDefect.REFUSE_EVERYTHING)
    assert {case.outcome for case in results.cases} == {Outcome.FAILED}
    assert all("refused" in case.reason for case in results.cases)
    assert _checks(results) == [None] * len(results.cases)
    assert similarity.embeddings is not None and similarity.embeddings.wanted == 0


class _RefusesWithTheKey:
    """Answers every prompt with its case's expected text, marked refused: the gate fails it,
    and nothing but the gate stops the embedder being asked (the guards all hold)."""

    name = "refuses-with-the-key"

    def __init__(self, suites: SuiteSet) -> None:
        self.keys = {
            case.final_prompt: getattr(case, "expected", "")
            for loaded in suites.suites
            for case in loaded.cases
        }

    def ask(self, prompt: str, language: str) -> TargetResponse:
        return TargetResponse(
            text=self.keys[prompt], citations=(), context_ids=(), refused=True, escalated=False
        )


def test_the_embedder_is_never_asked_about_an_answer_the_gate_failed(
    semantic_golden: SuiteSet, opened_toy_embedder: Any
) -> None:
    # Trap: a similarity check made before (or whatever) the gate's own verdict: a refusal
    # that repeats the key word for word would score 1.0 and, were it kept, read as a match.
    similarity = _similarity(opened_toy_embedder)
    target = _RefusesWithTheKey(semantic_golden)
    info = TargetInfo(kind="callable", name=target.name)
    results = run_gauntlet(
        semantic_golden, target, settings_for(semantic_golden, info, similarity=similarity)
    )
    assert {case.outcome for case in results.cases} == {Outcome.FAILED}
    assert all("refused" in case.reason for case in results.cases)
    assert _checks(results) == [None] * len(results.cases)
    assert similarity.embeddings is not None and similarity.embeddings.wanted == 0


def test_a_case_comparing_meanings_without_an_embedder_is_refused_before_asking(
    semantic_golden: SuiteSet,
) -> None:
    # Trap: a semantic case run without an embedder silently compared exactly, or left
    # unjudged after every case was asked: it is a usage error naming the file and the flag.
    with pytest.raises(UsageError) as caught:
        _run(semantic_golden, None)
    message = str(caught.value)
    assert "golden.yaml" in message and "match: semantic" in message
    assert "--embedder" in message and "--embedder-calibration" in message


_TRAJECTORY = """\
suite: semantic-trajectory
gate: trajectory
version: 1
threshold: 1.0
tools:
  - name: lookup_hours
    description: "Look up a Riverbend facility's opening hours on one day of the week."
    parameters: {{type: object, properties: {{facility: {{type: string}}, day: {{type: string}},
      language: {{type: string}}}}, required: [facility, day, language]}}
cases:
  - id: traj-hours-by-meaning
    language: en
    prompt: What are the Central Library's hours on Saturday?
    expect_calls: [{{name: lookup_hours}}]
    expected: On Saturday the Central Library opens at 10 a.m. and closes at 5 p.m.
    min_similarity: {floor}
    tool_results:
      - tool: lookup_hours
        when: {{facility: central-library, day: saturday, language: en}}
        output: {{facility: the Central Library, day: Saturday, open: true, opens: "10 a.m.",
          closes: "5 p.m."}}
"""


def _trajectory(tmp_path: Path, floor: float) -> SuiteSet:
    path = tmp_path / f"trajectory-{floor}.yaml"
    path.write_text(_TRAJECTORY.format(floor=floor), encoding="utf-8")
    return load_suites([path])


def test_min_similarity_is_measured_and_kept_in_the_trajectory_scores(
    tmp_path: Path, opened_toy_embedder: Any
) -> None:
    # Trap: the third metric computed but not kept beside tool accuracy and faithfulness, or
    # kept under another value than the check that decided the ask.
    results = _run(_trajectory(tmp_path, 0.5), _similarity(opened_toy_embedder))
    (case,) = results.cases
    (trial,) = case.trials
    assert case.outcome is Outcome.PASSED, case.reason
    assert trial.similarity is not None and trial.similarity.outcome == "passed"
    assert trial.scores is not None and trial.scores.tool_accuracy == 1.0
    assert trial.scores.similarity == trial.similarity.score
    assert trial.similarity.threshold == THRESHOLD  # the case's 0.5 cannot lower the bar


def test_min_similarity_can_only_raise_the_bar(tmp_path: Path, opened_toy_embedder: Any) -> None:
    # Trap: a case's min_similarity replacing the calibrated threshold rather than raising
    # it: 0.9999 must fail an answer that clears the calibrated 0.8.
    results = _run(_trajectory(tmp_path, 0.9999), _similarity(opened_toy_embedder))
    (case,) = results.cases
    (trial,) = case.trials
    assert case.outcome is Outcome.FAILED
    assert trial.similarity is not None and trial.similarity.threshold == 0.9999
    assert "min_similarity" in case.reason


def test_a_trajectory_case_by_meaning_without_an_accepted_record_is_unjudged(
    tmp_path: Path, opened_toy_embedder: Any
) -> None:
    # Trap: min_similarity passing on the case's own floor when no record was accepted.
    refused = _similarity(opened_toy_embedder, refused="no calibration record was given")
    results = _run(_trajectory(tmp_path, 0.5), refused)
    assert [case.outcome for case in results.cases] == [Outcome.UNJUDGED]


def test_a_semantic_run_is_recorded_and_read_back_whole(
    tmp_path: Path, semantic_golden: SuiteSet, opened_toy_embedder: Any
) -> None:
    # Trap: results that drop the embedder or the checks on the way to the file, so the pack,
    # a merge or a resumed run see another run than the one made.
    from gauntlet.run.results_file import read_results, write_results
    from gauntlet.run.settings import RunSettings

    similarity = _similarity(opened_toy_embedder)
    results = _run(semantic_golden, similarity, ToyDefect.ANSWER_DRIFT)
    write_results(results, tmp_path / "r.json")
    again = read_results(tmp_path / "r.json")
    assert again == results
    assert RunSettings.of(again).similarity == similarity
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["embedder"]["fingerprint"]["kind"] == "toy"


def test_an_embedder_calibration_without_an_embedder_is_a_usage_error(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: a record given alone silently ignored, so a run the user believes compared
    # meanings by a calibrated embedder compared nothing.
    record = tmp_path / "similarity.json"
    record.write_text("{}", encoding="utf-8")
    result = run_cli(
        "run", "--embedder-calibration", record, "--out", tmp_path / "r.json", "--quiet"
    )
    assert result.code == 2, result.show()
    assert "--embedder-calibration is for an embedder: give --embedder" in result.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_semantic_suite_without_an_embedder_is_refused_in_words(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: `match: semantic` run without --embedder falling back to an exact comparison (or
    # crashing): exit 2, naming the case, the file and the flags.
    result = run_cli(
        "run", "--toy", "--cases", SEMANTIC_GOLDEN, "--out", tmp_path / "r.json", "--quiet"
    )
    assert result.code == 2, result.show()
    assert "match: semantic" in result.stderr and "--embedder" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_embedder_without_a_record_says_so_up_front_and_passes_nothing(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: an uncalibrated embedder voting, or the run's refusal to let it vote said only in
    # the results: the run says before it asks that every similarity check is unjudged.
    out = tmp_path / "r.json"
    result = run_cli(
        "run", "--toy", "--cases", SEMANTIC_GOLDEN, "--embedder", "toy", "--out", out, "--quiet"
    )
    assert result.code == 2, result.show()
    assert "every similarity check will be unjudged" in result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["verdict"] == "withheld"
    assert {case["outcome"] for case in data["cases"]} == {"unjudged"}
    assert data["embedder"]["refused"].startswith("no calibration record")


class _Broken:
    """An embedder that opens, then breaks: it raises, or answers with what is not vectors."""

    def __init__(self, how: str, fingerprint: EmbedderFingerprint) -> None:
        self.how = how
        self.fingerprint = fingerprint

    async def open(self) -> EmbedderFingerprint:
        return self.fingerprint

    async def embed(self, texts: Any) -> Any:
        if self.how == "raises":
            raise RuntimeError("the model ran out of memory")
        if self.how == "nan":
            return [(float("nan"),) * self.fingerprint.dimension for _ in texts]
        return [(1.0,) * self.fingerprint.dimension]  # one vector for two texts

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("how", ["raises", "nan", "too_few"])
def test_an_embedder_that_breaks_mid_run_leaves_its_cases_unjudged_never_passed(
    semantic_golden: SuiteSet, opened_toy_embedder: Any, how: str
) -> None:
    # Trap: an embedder that fails (raises, or answers NaN or too few vectors) read as a
    # similar answer, or as a crash that loses the run: a model in the loop that breaks
    # gives unjudged, never passed, and the run still ends with every case recorded.
    _, fingerprint = opened_toy_embedder
    broken = _Broken(how, fingerprint)
    similarity = Similarity(
        fingerprint=fingerprint,
        thresholds=MappingProxyType({"en": THRESHOLD, "es": THRESHOLD}),
        record_sha256="ab" * 32,
        embeddings=Embeddings(broken, fingerprint),
    )
    results = _run(semantic_golden, similarity, ToyDefect.ANSWER_DRIFT)
    assert len(results.cases) == 8
    assert {case.outcome for case in results.cases} == {Outcome.UNJUDGED}
    assert results.verdict is Verdict.WITHHELD
    assert all("embedder" in case.reason for case in results.cases), results.cases[0].reason
