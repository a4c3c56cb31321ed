"""One similarity check: is an answer the expected one reworded, by rule and then by meaning.

The guards (`gauntlet.semantic.guards`) decide first: a failed guard fails the check
whatever the similarity. The answer and the expected text are embedded (each distinct text
once a run, `Embeddings`) and their cosine is compared with the threshold the calibration
record accepted for the embedder and the case's language; beside a failed guard the score is
kept, unless no threshold is accepted, when the embedder is not asked at all. Without an
accepted threshold for that language, or when the embedder fails, a check no guard failed is
unjudged: never passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from gauntlet.display import clipped, printable
from gauntlet.errors import describe_raised
from gauntlet.languages import primary_language
from gauntlet.record import Record
from gauntlet.semantic.embedder import EmbedderError, Embeddings, cosine
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.guards import guard_problems, guards_digest, language_guard_unavailable

if TYPE_CHECKING:
    # Only `similarity_of` reads a record: a run that compares no meaning (and the engine,
    # which imports this module) never loads calibration, its labels or the judge's.
    from gauntlet.semantic.calibration import SimilarityRecord

MAX_REASON = 2000
"""The most characters a check's reason keeps: an embedder's error is cut to it."""

SimilarityOutcome = Literal["passed", "failed", "unjudged"]
"""What one similarity check came to."""


class SimilarityCheck(Record):
    """One similarity check of one answer against the text it should mean."""

    outcome: SimilarityOutcome
    reason: str = Field(default="", max_length=MAX_REASON)
    """Why it failed or is unjudged; empty when it passed."""
    score: float | None = Field(default=None, ge=-1.0, le=1.0)
    """The cosine of the two texts' embeddings; None when the embedder was not asked."""
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0)
    """The calibrated threshold it was compared with; None when there was none."""
    guards: tuple[str, ...] = ()
    """Each guard that failed (a number missing, a negation in one only)."""


@dataclass(frozen=True, kw_only=True)
class Similarity:
    """A run's similarity: the embedder, and the thresholds its calibration record accepted.

    Equal when the results would record it the same; how it is reached is not compared.

    Args:
        fingerprint: What the embedder is.
        thresholds: The accepted threshold for each language (primary subtag).
        refused: Why the record lets the embedder gate nothing (any language), or None.
        record_sha256: The hex sha256 of the calibration record's bytes; None without one.
        embeddings: Asks the embedder, each distinct text once; None for a similarity read
            back from a results file, which records it but cannot ask.
    """

    fingerprint: EmbedderFingerprint
    thresholds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    refused: str | None = None
    record_sha256: str | None = None
    embeddings: Embeddings | None = field(default=None, compare=False)

    def why_not(self, language: str) -> str | None:
        """Why similarity may not pass an answer in `language`; None when it may."""
        if self.refused is not None:
            return f"similarity may not gate: {self.refused}"
        lang = primary_language(language)
        if lang not in self.thresholds:
            known = ", ".join(sorted(self.thresholds)) or "none"
            return f"the embedder's calibration accepted no threshold in {lang} (accepted: {known})"
        if self.embeddings is None:
            return "a similarity read back from a results file cannot embed"
        return None


async def similarity_check(
    similarity: Similarity,
    expected: str,
    answer: str,
    language: str,
    *,
    at_least: float | None = None,
) -> SimilarityCheck:
    """Whether `answer` says what `expected` says: the guards, then the calibrated threshold.

    A failed guard fails the check whatever the similarity; with an embedder that may gate
    the language, the score is measured and kept beside the failed guards all the same.

    `at_least` (a case's `min_similarity`) can only raise the bar: the threshold is the higher
    of it and the calibrated one, and without a calibrated one the check is unjudged still.
    """
    guards = guard_problems(expected, answer, language)
    why = similarity.why_not(language)
    if why is not None or similarity.embeddings is None:
        if guards:
            return SimilarityCheck(outcome="failed", reason="; ".join(guards), guards=guards)
        return SimilarityCheck(outcome="unjudged", reason=why or "")
    threshold = similarity.thresholds[primary_language(language)]
    if at_least is not None:
        threshold = max(threshold, at_least)
    compared = await _compared(
        similarity.embeddings, threshold, expected, answer, at_least=at_least
    )
    if not guards:
        return compared
    # Failed by rule whatever the score; the score is kept beside it (when the embedder
    # gave one), so a reader sees what similarity alone would have passed.
    return SimilarityCheck(
        outcome="failed",
        reason="; ".join(guards),
        guards=guards,
        score=compared.score,
        threshold=compared.threshold,
    )


async def same_failure_check(
    similarity: Similarity,
    before: tuple[str, str],
    now: tuple[str, str],
    language: str,
) -> SimilarityCheck:
    """Whether failure `now` is failure `before` reworded: each is `(answer, answer and reason)`.

    The variant of `similarity_check` for two failures rather than an answer and its key: the
    guards run on the two answers both ways (a number either has and the other lacks, or a
    negation in one only, keeps them apart), and the threshold is compared with the
    similarity of the answers with their reasons.
    """
    (before_answer, before_text), (now_answer, now_text) = before, now
    guards = tuple(
        dict.fromkeys(
            guard_problems(before_answer, now_answer, language)
            + guard_problems(now_answer, before_answer, language)
        )
    )
    if guards:
        return SimilarityCheck(outcome="failed", reason="; ".join(guards), guards=guards)
    why = similarity.why_not(language)
    if why is not None or similarity.embeddings is None:
        return SimilarityCheck(outcome="unjudged", reason=why or "")
    threshold = similarity.thresholds[primary_language(language)]
    return await _compared(similarity.embeddings, threshold, before_text, now_text)


async def _compared(
    embeddings: Embeddings,
    threshold: float,
    expected: str,
    answer: str,
    *,
    at_least: float | None = None,
) -> SimilarityCheck:
    """The cosine of the two texts against the language's threshold, the guards held."""
    try:
        first, second = await embeddings.vectors([expected, answer])
        score = cosine(first, second)
    except (EmbedderError, ValueError) as exc:
        why = f"the embedder gave no usable vectors: {exc}"
        return SimilarityCheck(outcome="unjudged", reason=clipped(why, MAX_REASON))
    except Exception as exc:  # an embedder that fails is unjudged, not a crash
        why = f"the embedder raised {describe_raised(exc)}"
        return SimilarityCheck(outcome="unjudged", reason=clipped(why, MAX_REASON))
    score = round(score, 6)
    if score >= threshold:
        return SimilarityCheck(outcome="passed", score=score, threshold=threshold)
    return SimilarityCheck(
        outcome="failed",
        score=score,
        threshold=threshold,
        reason=f"similarity {score:.4g} is below the threshold {threshold:.4g}"
        + (" (the case's min_similarity)" if threshold == at_least else " (calibrated)"),
    )


def similarity_of(
    record: SimilarityRecord,
    fingerprint: EmbedderFingerprint,
    embeddings: Embeddings | None,
    *,
    record_sha256: str,
) -> Similarity:
    """The similarity `record` lets the embedder of `fingerprint` have.

    Refused (every check unjudged) when the language guard is unavailable here (py3langid is
    not installed: an answer in another language would be left to similarity), when the
    record disagrees with itself (its figures are
    derived again from its pairs), is for another embedder (the differing fields are named),
    was made under other guards, was held to weaker minimums than gauntlet's, or accepted
    no language; otherwise the thresholds of the languages it accepted, and no other.
    """
    refused = _record_refused(record, fingerprint)
    return Similarity(
        fingerprint=fingerprint,
        thresholds=MappingProxyType({} if refused else record.accepted()),
        refused=refused,
        record_sha256=record_sha256,
        embeddings=embeddings,
    )


def _record_refused(record: SimilarityRecord, fingerprint: EmbedderFingerprint) -> str | None:
    from gauntlet.semantic.calibration import similarity_record_problems

    unavailable = language_guard_unavailable()
    if unavailable is not None:  # an answer in another language would pass on similarity
        return f"{unavailable}; similarity gates nothing without it"
    problems = similarity_record_problems(record)
    if problems:
        return f"the calibration record disagrees with itself ({problems[0]})"
    if record.embedder != fingerprint:
        differing = "; ".join(
            f"{name} {_short(getattr(record.embedder, name))} in the record, "
            f"{_short(getattr(fingerprint, name))} here"
            for name in EmbedderFingerprint.model_fields
            if getattr(record.embedder, name) != getattr(fingerprint, name)
        )
        return f"the calibration record is for another embedder: {differing}"
    if record.guards != guards_digest():
        return (
            "the calibration record was made under other guards (another gauntlet's number, "
            "negation, template or language rules); calibrate again"
        )
    weaker = _weaker_minimums(record)
    if weaker:
        return f"the calibration record was held to weaker minimums than gauntlet's: {weaker}"
    if not record.accepted():
        reasons = "; ".join(f"{f.language}: {f.refused}" for f in record.languages)
        return f"the calibration record accepted no language ({reasons})"
    return None


def _weaker_minimums(record: SimilarityRecord) -> str:
    """Each minimum of `record` less strict than gauntlet's, named; empty when none is."""
    from gauntlet.semantic.calibration import default_minimums

    shipped, used = default_minimums(), record.minimums
    weaker = [
        n
        for n in ("min_precision", "min_recall", "min_items", "min_class")
        if getattr(used, n) < getattr(shipped, n)
    ]
    weaker += [n for n in ("blind_score", "blind_share") if getattr(used, n) > getattr(shipped, n)]
    return ", ".join(
        f"{name} {getattr(used, name):g} (gauntlet's is {getattr(shipped, name):g})"
        for name in weaker
    )


def _short(value: object) -> str:
    text = repr(value)
    return printable(text if len(text) <= 24 else text[:22] + "…'")


__all__ = [
    "Similarity",
    "SimilarityCheck",
    "SimilarityOutcome",
    "same_failure_check",
    "similarity_check",
    "similarity_of",
]
