"""One similarity check: is an answer the expected one reworded, by rule and then by meaning.

The guards run first (`gauntlet.semantic.guards`): a failed guard fails the check without
asking the embedder. Then the answer and the expected text are embedded (each distinct text
once a run, `Embeddings`) and their cosine is compared with the threshold the calibration
record accepted for the embedder and the case's language. Without an accepted threshold for
that language, or when the embedder fails, the check is unjudged: never passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from pydantic import Field

from gauntlet.errors import describe_raised
from gauntlet.languages import primary_language
from gauntlet.record import Record
from gauntlet.semantic.embedder import EmbedderError, Embeddings, cosine
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.guards import guard_problems

SimilarityOutcome = Literal["passed", "failed", "unjudged"]
"""What one similarity check came to."""


class SimilarityCheck(Record):
    """One similarity check of one answer against the text it should mean."""

    outcome: SimilarityOutcome
    reason: str = Field(default="", max_length=2000)
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
    """Whether `answer` says what `expected` says: guards first, then the calibrated threshold.

    `at_least` (a case's `min_similarity`) can only raise the bar: the threshold is the higher
    of it and the calibrated one, and without a calibrated one the check is unjudged still.
    """
    guards = guard_problems(expected, answer, language)
    why = similarity.why_not(language)
    if guards:
        return SimilarityCheck(outcome="failed", reason="; ".join(guards), guards=guards)
    if why is not None or similarity.embeddings is None:
        return SimilarityCheck(outcome="unjudged", reason=why or "")
    threshold = similarity.thresholds[primary_language(language)]
    if at_least is not None:
        threshold = max(threshold, at_least)
    try:
        first, second = await similarity.embeddings.vectors([expected, answer])
        score = cosine(first, second)
    except (EmbedderError, ValueError) as exc:
        return SimilarityCheck(
            outcome="unjudged", reason=f"the embedder gave no usable vectors: {exc}"
        )
    except Exception as exc:  # an embedder that fails is unjudged, not a crash
        return SimilarityCheck(
            outcome="unjudged", reason=f"the embedder raised {describe_raised(exc)}"
        )
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


__all__ = ["Similarity", "SimilarityCheck", "SimilarityOutcome", "similarity_check"]
