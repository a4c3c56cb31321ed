"""New failures matched by meaning to the baseline's: "the same failure, reworded".

A new failure (a case failing now that passed in the baseline or was not in it) is matched
against every baseline failure of the same gate and language (primary subtag): the guards
must hold between the two answers, both ways (`same_failure_check`), and the similarity of
the two failures, each its answer and its reason, must clear the threshold the embedder's
calibration accepted for that language. A new failure matches at most one baseline failure:
the most similar; of equal scores (rounded to 6 places), the one the baseline asked first.

Matching only tells a reviewer what is new. A matched failure still fails, and stays in
drift's newly failing cases; nothing here reaches a verdict.

Nothing is matched, and drift says why (once per reason), when the two runs' results record
different embedders (results made with one are never compared with the other's), when a
language has no accepted threshold, or when the embedder fails. Embedding is async and drift
is pure, so this runs first and its `MeaningMatches` is handed to `build_pack`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from gauntlet.evidence.drift import (
    FAILED_OUTCOMES,
    MeaningMatches,
    RewordedFailure,
    new_failures,
)
from gauntlet.languages import primary_language
from gauntlet.redact import Redactor
from gauntlet.run.results import CaseResult, Outcome, Results
from gauntlet.semantic.check import Similarity, same_failure_check
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.setup import open_similarity


async def reworded_failures(
    current: Results, baseline: Results, similarity: Similarity
) -> MeaningMatches:
    """Each new failure of `current` that is a failure of `baseline` reworded.

    Args:
        current: This run's results.
        baseline: The baseline's results. When both record an embedder and the two differ,
            nothing is matched.
        similarity: The embedder to compare with, and its accepted thresholds per language.
    """
    fresh = new_failures(current, baseline)
    if not fresh:
        return MeaningMatches()
    other = _other_embedders(current, baseline)
    if other is not None:
        return MeaningMatches(not_matched=(other,))
    old = [case for case in baseline.cases if case.outcome in FAILED_OUTCOMES]
    pairs = [(case, _candidates(case, old)) for case in fresh]
    why: dict[str, None] = {}
    askable = []
    for case, candidates in pairs:
        if not candidates:
            continue
        refused = similarity.why_not(case.language)
        if refused is not None:
            why[refused] = None
        else:
            askable.append((case, candidates))
    await _embed_at_once(similarity, askable)
    matched: list[RewordedFailure] = []
    for case, candidates in askable:
        found = await _most_similar(similarity, case, candidates)
        if isinstance(found, str):  # the embedder failed: matching stops, not asked per pair
            why[found] = None
            break
        if found is not None:
            matched.append(found)
    return MeaningMatches(matched=tuple(matched), not_matched=tuple(why))


def _other_embedders(current: Results, baseline: Results) -> str | None:
    """Why the two runs' failures are not compared: each recorded another embedder; or None."""
    ours = None if current.embedder is None else current.embedder.fingerprint
    theirs = None if baseline.embedder is None else baseline.embedder.fingerprint
    if ours is None or theirs is None or ours == theirs:
        return None
    return (
        f"the runs were made with other embedders ({_named(ours)}; the baseline "
        f"{_named(theirs)}), and results made with one are never compared with the other's"
    )


async def _most_similar(
    similarity: Similarity, case: CaseResult, candidates: list[CaseResult]
) -> RewordedFailure | str | None:
    """The baseline failure `case` rewords most closely, None if none; the reason if unjudged.

    Of equal scores the candidate asked first is kept.
    """
    best: tuple[float, float, CaseResult] | None = None
    for candidate in candidates:
        check = await same_failure_check(
            similarity, _failure(candidate), _failure(case), case.language
        )
        if check.outcome == "unjudged":
            return check.reason
        if check.outcome != "passed" or check.score is None or check.threshold is None:
            continue
        if best is None or check.score > best[0]:  # a tie keeps the one asked first
            best = (check.score, check.threshold, candidate)
    if best is None:
        return None
    score, threshold, candidate = best
    return RewordedFailure(
        gate=case.gate,
        suite=case.suite,
        case_id=case.case_id,
        language=case.language,
        baseline_suite=candidate.suite,
        baseline_case_id=candidate.case_id,
        score=score,
        threshold=threshold,
    )


async def reworded_with(
    spec: str,
    record: Path | None,
    current: Results,
    baseline: Results,
    *,
    redactor: Redactor,
) -> MeaningMatches:
    """`reworded_failures` with the embedder `spec` names and its calibration `record`.

    The embedder is opened (its pre-flight ask) only when there are new failures to match,
    and closed after.

    Raises:
        UsageError, ConfigError, EmbedderError: as `open_similarity`.
    """
    if not new_failures(current, baseline):
        return MeaningMatches()
    similarity = await open_similarity(spec, record, redactor=redactor)
    try:
        return await reworded_failures(current, baseline, similarity)
    finally:
        if similarity.embeddings is not None:
            await similarity.embeddings.embedder.aclose()


def _candidates(case: CaseResult, old: list[CaseResult]) -> list[CaseResult]:
    """The baseline failures of `case`'s gate and language, in the order they were asked."""
    language = primary_language(case.language)
    return [
        other
        for other in old
        if other.gate is case.gate and primary_language(other.language) == language
    ]


def _failure(case: CaseResult) -> tuple[str, str]:
    """A failed case's answer, and its answer with its reason: the ask that failed first."""
    trial = next((t for t in case.trials if t.outcome is Outcome.FAILED), None)
    if trial is None:
        trial = next((t for t in case.trials if t.outcome is not Outcome.PASSED), None)
    answer = trial.response.text if trial is not None and trial.response is not None else ""
    reason = trial.reason if trial is not None and trial.reason else case.reason
    return answer, f"{answer}\n{reason}"


async def _embed_at_once(
    similarity: Similarity, pairs: list[tuple[CaseResult, list[CaseResult]]]
) -> None:
    """Ask the embedder for every text in one go, so the pair checks find them cached.

    Only to batch: when it fails, the pair checks ask again and say why.
    """
    if similarity.embeddings is None or not pairs:
        return
    texts = dict.fromkeys(
        _failure(case)[1] for new, candidates in pairs for case in (new, *candidates)
    )
    with contextlib.suppress(Exception):
        await similarity.embeddings.vectors(list(texts))


def _named(fingerprint: EmbedderFingerprint) -> str:
    return f"{fingerprint.kind} {fingerprint.model}"


__all__ = ["reworded_failures", "reworded_with"]
