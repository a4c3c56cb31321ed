"""Drift's "the same failure, reworded": a new failure matched by meaning to a baseline failure.

Real answers, graded by the real gates, embedded by the in-process toy embedder (healthy
unless a test says otherwise), with a similarity built here: calibration records are not in
these tests' way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

import pytest

from gauntlet.cases.model import GateName
from gauntlet.evidence.drift import Direction, MeaningMatches, compare
from gauntlet.evidence.pack import build_pack
from gauntlet.evidence.reworded import reworded_failures, reworded_with
from gauntlet.redact import Redactor
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import EmbedderInfo, Outcome, Results
from gauntlet.semantic.check import Similarity, same_failure_check
from gauntlet.semantic.embedder import EmbedderError, Embeddings, Vector, cosine
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.toy import EmbedderDefect

from ... import evidence_fixtures as fx
from ...embedders import opened_toy, toy_embeddings

THRESHOLD = 0.7
"""A threshold the healthy toy's rewordings below clear (0.78 and 0.86 with their reasons)
and different failures do not (0.5 to 0.6: the gate's reasons share words)."""
FORCED = {"en": 0.1, "es": 0.1}
"""Thresholds a forced record could give: any two failures are similar enough, so only the
rule under test keeps them apart."""

DEFLECT = "Sorry, I can only help with questions about city events. Please ask at City Hall."
DEFLECT_REWORDED = (
    "I'm only able to help with city event questions, sorry. Ask at City Hall, please."
)
SENIORS = "According to the city website, the fee is waived for residents over 65."
SENIORS_REWORDED = "The city website says residents older than 65 get the fee waived."
WINTER = "The pool closes for the winter season and reopens in the spring."

BASELINE = {"gnd-en-bulky-waste": DEFLECT, "gnd-en-parking-permit": SENIORS}
"""Two English grounding failures in the baseline."""


def _similarity(
    thresholds: Mapping[str, float] | None = None,
    *defects: EmbedderDefect,
    refused: str | None = None,
) -> Similarity:
    embeddings = toy_embeddings(*defects)
    return Similarity(
        fingerprint=embeddings.fingerprint,
        thresholds={"en": THRESHOLD} if thresholds is None else thresholds,
        refused=refused,
        embeddings=embeddings,
    )


def _matched(
    current: Results, baseline: Results, similarity: Similarity | None = None
) -> MeaningMatches:
    return asyncio.run(reworded_failures(current, baseline, similarity or _similarity()))


def _pairs(matches: MeaningMatches) -> set[tuple[str, str]]:
    return {(m.case_id, m.baseline_case_id) for m in matches.matched}


def _score(first: str, second: str, *defects: EmbedderDefect) -> float:
    a, b = asyncio.run(toy_embeddings(*defects).vectors([first, second]))
    return cosine(a, b)


def test_two_reworded_failures_are_matched_and_a_new_one_is_not() -> None:
    # Trap: a new failure that rewords an old one reported as new (or a new one hidden as old).
    baseline = fx.answered(BASELINE)
    current = fx.answered(
        {
            **BASELINE,
            "gnd-en-pool-hours": DEFLECT_REWORDED,
            "gnd-en-business-license": SENIORS_REWORDED,
            "gnd-en-water-outage": WINTER,
        }
    )
    matches = _matched(current, baseline)
    assert _pairs(matches) == {
        ("gnd-en-pool-hours", "gnd-en-bulky-waste"),
        ("gnd-en-business-license", "gnd-en-parking-permit"),
    }
    assert matches.not_matched == ()
    for match in matches.matched:
        assert match.gate is GateName.GROUNDING
        assert match.score is not None and THRESHOLD <= match.score <= 1.0
        assert match.threshold == THRESHOLD
    pack = build_pack(current, baseline=baseline, reworded=matches)
    drift = pack.baseline.drift
    assert drift is not None
    assert {m.case_id for m in drift.reworded} == {"gnd-en-pool-hours", "gnd-en-business-license"}
    report = render_markdown(pack)
    assert "### The same failure, reworded (2)" in report
    assert (
        "`gnd-en-pool-hours` is `gnd-en-bulky-waste` reworded "
        "(grounding, similarity 0.859, threshold 0.700)" in report
    )
    assert "`gnd-en-water-outage`" in report.split("### The same failure, reworded")[1]
    assert "were not matched by meaning" not in report


def test_a_reworded_failure_still_fails() -> None:
    # Trap: a matched failure dropped from the new failures, or counted as a pass.
    baseline = fx.answered(BASELINE)
    current = fx.answered({**BASELINE, "gnd-en-pool-hours": DEFLECT_REWORDED})
    matches = _matched(current, baseline)
    assert _pairs(matches) == {("gnd-en-pool-hours", "gnd-en-bulky-waste")}
    plain = build_pack(current, baseline=baseline)
    matched = build_pack(current, baseline=baseline, reworded=matches)
    assert matched.verdict == plain.verdict
    assert matched.gates == plain.gates
    assert matched.cases == plain.cases
    drift = matched.baseline.drift
    assert drift is not None
    assert [c.case_id for c in drift.newly_failing] == ["gnd-en-pool-hours"]
    assert drift.newly_failing[0].current is Outcome.FAILED
    assert drift.competence is Direction.REGRESSED


def test_a_negated_failure_is_not_matched_to_its_positive_form() -> None:
    # Trap: similarity trusted with negation, which every embedder measured scores as the
    # same meaning: here forced, with the toy blind to negation.
    said = "The pool is open on holidays, so you can swim then."
    negated = "The pool is not open on holidays, so you cannot swim then."
    blind = EmbedderDefect.NEGATION_BLIND
    assert _score(said, negated, blind) == pytest.approx(1.0)  # one text to the toy
    baseline = fx.answered({"gnd-en-bulky-waste": said})
    current = fx.answered({"gnd-en-bulky-waste": said, "gnd-en-pool-hours": negated})
    assert _matched(current, baseline, _similarity(FORCED, blind)).matched == ()
    # and the other way: a positive new failure is not the negated old one
    baseline = fx.answered({"gnd-en-bulky-waste": negated})
    current = fx.answered({"gnd-en-bulky-waste": negated, "gnd-en-pool-hours": said})
    assert _matched(current, baseline, _similarity(FORCED, blind)).matched == ()


@pytest.mark.parametrize(
    ("before", "now"),
    [
        (SENIORS, SENIORS.replace("65", "60")),  # the new answer lacks the old one's number
        ("The fee is waived for residents.", "The fee is waived for residents over 65."),
    ],
    ids=["number-swapped", "number-added"],
)
def test_a_failure_with_other_numbers_is_not_matched(before: str, now: str) -> None:
    # Trap: the number guard checked one way only, as for a gold answer; two failures are
    # the same only if each has every number of the other.
    baseline = fx.answered({"gnd-en-bulky-waste": before})
    current = fx.answered({"gnd-en-bulky-waste": before, "gnd-en-pool-hours": now})
    assert _matched(current, baseline, _similarity(FORCED)).matched == ()


def test_another_languages_failure_is_never_matched() -> None:
    # Trap: a Spanish failure matched to its English translation, which the multilingual
    # model scores as close as a rewording.
    spanish = (
        "Lo siento, solo puedo ayudar con preguntas sobre eventos de la ciudad. "
        "Pregunte en el Ayuntamiento."
    )
    baseline = fx.answered({"gnd-en-bulky-waste": DEFLECT})
    current = fx.answered({"gnd-en-bulky-waste": DEFLECT, "gnd-es-pool-hours": spanish})
    assert _score(DEFLECT, spanish) >= 0.8  # the multilingual model alone would match them
    assert _matched(current, baseline, _similarity(FORCED)).matched == ()


def test_another_gates_failure_is_never_matched() -> None:
    # Trap: a golden failure matched to a grounding one of the same words.
    baseline = fx.answered({"gnd-en-bulky-waste": DEFLECT})
    current = fx.answered({"gnd-en-bulky-waste": DEFLECT, "gold-en-311": DEFLECT})
    matches = _matched(current, baseline, _similarity(FORCED))
    assert [c.case_id for c in compare(current, baseline).newly_failing] == ["gold-en-311"]
    assert matches.matched == ()


def test_a_new_failure_matches_the_best_baseline_failure_only() -> None:
    # Trap: every baseline failure over the threshold listed, or the first one found kept.
    texts = {"gnd-en-bulky-waste": WINTER, "gnd-en-parking-permit": DEFLECT}
    baseline = fx.answered(texts)
    current = fx.answered({**texts, "gnd-en-pool-hours": DEFLECT_REWORDED})
    similarity = _similarity(FORCED)
    [match] = _matched(current, baseline, similarity).matched
    scores = {
        case_id: _failure_score(similarity, baseline, case_id, current, "gnd-en-pool-hours")
        for case_id in texts
    }
    assert all(score >= FORCED["en"] for score in scores.values())  # both clear it
    assert scores["gnd-en-parking-permit"] > scores["gnd-en-bulky-waste"]  # asked second
    assert (match.baseline_case_id, match.score) == (
        "gnd-en-parking-permit",
        scores["gnd-en-parking-permit"],
    )


def _failure_score(
    similarity: Similarity, baseline: Results, old: str, current: Results, new: str
) -> float:
    """The similarity of two failures as a reader computes it from the results: each its
    answer and its reason."""

    def failure(results: Results, case_id: str) -> tuple[str, str]:
        [case] = [c for c in results.cases if c.case_id == case_id]
        [trial] = case.trials
        assert trial.response is not None
        return trial.response.text, f"{trial.response.text}\n{trial.reason}"

    check = asyncio.run(
        same_failure_check(similarity, failure(baseline, old), failure(current, new), "en")
    )
    assert check.score is not None
    return check.score


def test_a_tie_goes_to_the_baseline_failure_asked_first() -> None:
    # Trap: a tie broken by set or dict order, or by the last one seen, so the match
    # depends on how the code walked the failures rather than on the runs.
    baseline = fx.answered({"gnd-en-bulky-waste": DEFLECT})
    current = fx.answered({"gnd-en-bulky-waste": DEFLECT, "gnd-en-pool-hours": DEFLECT_REWORDED})
    [failed] = [c for c in baseline.cases if c.case_id == "gnd-en-bulky-waste"]
    twin = failed.model_copy(update={"case_id": "gnd-en-bulky-waste-twin"})  # the same failure
    for first, second in ((failed, twin), (twin, failed)):
        others = tuple(c for c in baseline.cases if c is not failed)
        both = baseline.model_copy(update={"cases": (first, second, *others)})
        [match] = _matched(current, both).matched
        assert match.baseline_case_id == first.case_id


def test_results_made_with_another_embedder_are_not_matched() -> None:
    # Trap: two runs' findings compared though their embedders differ.
    baseline = fx.answered({"gnd-en-bulky-waste": DEFLECT})
    current = fx.answered({"gnd-en-bulky-waste": DEFLECT, "gnd-en-pool-hours": DEFLECT_REWORDED})
    _, ours = opened_toy()
    theirs = ours.model_copy(
        update={"kind": "openai-embeddings", "model": "other", "host": "127.0.0.1:9"}
    )
    current = current.model_copy(update={"embedder": EmbedderInfo(fingerprint=ours)})
    matches = _matched(
        current, baseline.model_copy(update={"embedder": EmbedderInfo(fingerprint=theirs)})
    )
    assert matches.matched == ()
    [why] = matches.not_matched
    assert "other embedders" in why and "other" in why
    same = _matched(
        current, baseline.model_copy(update={"embedder": EmbedderInfo(fingerprint=ours)})
    )
    assert _pairs(same) == {("gnd-en-pool-hours", "gnd-en-bulky-waste")}
    report = render_markdown(build_pack(current, baseline=baseline, reworded=matches))
    assert (
        "New failures were not matched by meaning: the runs were made with other embedders"
        in report
    )


def test_a_pack_without_an_embedder_says_new_failures_were_not_matched() -> None:
    # Trap: no embedder read as "none of the new failures is an old one reworded".
    baseline = fx.answered(BASELINE)
    current = fx.answered({**BASELINE, "gnd-en-pool-hours": DEFLECT_REWORDED})
    drift = build_pack(current, baseline=baseline).baseline.drift
    assert drift is not None and drift.reworded == ()
    assert drift.not_matched_by_meaning == ("no embedder was given",)
    report = render_markdown(build_pack(current, baseline=baseline))
    assert report.count("New failures were not matched by meaning: no embedder was given.") == 1
    # and with no new failure there is nothing to match, and nothing to say
    quiet = build_pack(baseline, baseline=baseline).baseline.drift
    assert quiet is not None and quiet.not_matched_by_meaning == ()


def test_a_language_without_an_accepted_threshold_is_said_once() -> None:
    # Trap: failures in an uncalibrated language silently left unmatched, or said per case.
    baseline = fx.answered(
        {"gnd-es-bulky-waste": "Solo hablo de eventos.", "gnd-en-bulky-waste": DEFLECT}
    )
    current = fx.answered(
        {
            "gnd-es-bulky-waste": "Solo hablo de eventos.",
            "gnd-es-pool-hours": "Solo hablo de eventos, lo siento.",
            "gnd-es-parking-permit": "Hablo solo de eventos.",
            "gnd-en-bulky-waste": DEFLECT,
            "gnd-en-pool-hours": DEFLECT_REWORDED,
        }
    )
    matches = _matched(current, baseline)
    assert _pairs(matches) == {("gnd-en-pool-hours", "gnd-en-bulky-waste")}
    [why] = matches.not_matched
    assert "no threshold in es" in why
    refused = _matched(current, baseline, _similarity(refused="no calibration record was given"))
    assert refused.matched == ()
    assert refused.not_matched == ("similarity may not gate: no calibration record was given",)


class _Failing:
    """An embedder that opened fine and then fails every ask."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def open(self) -> EmbedderFingerprint:
        return opened_toy()[1]

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        raise self.error

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize(
    "error", [EmbedderError("the server hung up"), RuntimeError("boom")], ids=["declared", "raised"]
)
def test_an_embedder_that_fails_leaves_new_failures_unmatched_and_says_why(
    error: Exception,
) -> None:
    # Trap: an embedder's failure read as "nothing matched", or raised out of the report.
    baseline = fx.answered(BASELINE)
    current = fx.answered({**BASELINE, "gnd-en-pool-hours": DEFLECT_REWORDED})
    fingerprint = opened_toy()[1]
    similarity = Similarity(
        fingerprint=fingerprint,
        thresholds={"en": THRESHOLD},
        embeddings=Embeddings(_Failing(error), fingerprint),
    )
    matches = _matched(current, baseline, similarity)
    assert matches.matched == ()
    [why] = matches.not_matched
    assert str(error)[:100] in why


def test_an_embedders_long_error_is_cut_not_raised() -> None:
    # Trap: an embedder's error too long for a check's reason raised out of the report as a
    # validation error, where it should leave the failures unmatched and say why.
    baseline = fx.answered(BASELINE)
    current = fx.answered({**BASELINE, "gnd-en-pool-hours": DEFLECT_REWORDED})
    fingerprint = opened_toy()[1]
    similarity = Similarity(
        fingerprint=fingerprint,
        thresholds={"en": THRESHOLD},
        embeddings=Embeddings(_Failing(EmbedderError("x" * 50_000)), fingerprint),
    )
    [why] = _matched(current, baseline, similarity).not_matched
    assert why.startswith("the embedder gave no usable vectors: xxx")
    assert len(why) <= 2000


def test_the_embedder_is_opened_only_when_there_are_new_failures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Trap: a report with nothing to match still loading a model or asking a server.
    opened: list[str] = []
    similarity = _similarity()  # the model loaded here, outside the event loop

    async def opening(spec: str, record: object, *, redactor: object) -> Similarity:
        opened.append(spec)
        return similarity

    monkeypatch.setattr("gauntlet.evidence.reworded.open_similarity", opening)
    baseline = fx.answered(BASELINE)
    quiet = asyncio.run(reworded_with("toy", None, baseline, baseline, redactor=Redactor()))
    assert quiet == MeaningMatches()
    assert opened == []
    current = fx.answered({**BASELINE, "gnd-en-pool-hours": DEFLECT_REWORDED})
    found = asyncio.run(reworded_with("toy", None, current, baseline, redactor=Redactor()))
    assert opened == ["toy"]
    assert _pairs(found) == {("gnd-en-pool-hours", "gnd-en-bulky-waste")}
