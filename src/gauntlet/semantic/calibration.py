"""Similarity calibration: the threshold an embedder earns on labelled pairs, per language.

`calibrate_similarity` embeds every labelled pair, scores it (the cosine of the two texts'
embeddings) and runs the guards on it; the record keeps every pair's score and guard
problems, so a reader derives every figure again (`derive_languages`) and refuses a record
whose stated figures disagree with its pairs, as the judge's calibration record is read.

The decision that gates an answer is "the guards hold and the score reaches the threshold".
Per language, the threshold is chosen on that language's labels to pass as many `same`
pairs as it can (recall) while at least `min_precision` of what it passes is `same`
(precision), and placed midway between the lowest `same` score it passes and the next score
below it, so a score a hair under the lowest accepted one is not passed by rounding.

A language is accepted only when it has `min_items` pairs, `min_class` of each class, its
embedder is not blind (`blind_score`, `blind_share`), a threshold reaches `min_precision`,
and its recall reaches `min_recall`. Blind is refused whatever the threshold: when more than
`blind_share` of a language's different-meaning pairs of one kind score at least
`blind_score`, the embedder cannot see that difference at all (identity level), so any such
difference the guards' word lists miss would pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, ValidationError

from gauntlet.errors import GauntletError, TargetContractError
from gauntlet.files import read_or_raise, write_atomically
from gauntlet.languages import primary_language
from gauntlet.proportions import wilson_interval
from gauntlet.record import Record
from gauntlet.self_checked import checked_version, differences, located, validation_problems
from gauntlet.semantic.embedder import Embeddings, cosine
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.guards import (
    guard_problems,
    guarded_languages,
    guards_digest,
    language_guard_unavailable,
)
from gauntlet.semantic.labels import (
    MIN_CLASS,
    MIN_ITEMS,
    SAME_KIND,
    PairKind,
    SimilarityLabelSet,
    similarity_labels_digest,
)
from gauntlet.strict_json import loads
from gauntlet.text_columns import aligned
from gauntlet.version import __version__
from gauntlet.words import plural

SIMILARITY_RECORD_VERSION = 1
DEFAULT_MIN_PRECISION = 0.95
"""At most one passed answer in twenty may be a changed meaning, on the labels."""
LOWEST_MIN_PRECISION = 0.9
"""No lower bar is accepted: below it one passed answer in ten would be a changed meaning."""
DEFAULT_MIN_RECALL = 0.5
"""At least half of the genuine rewordings must pass. Recall is not safety (a missed
rewording fails, it never passes), but a threshold that fails most correct answers would
make every `match: semantic` case a coin flip reviewers learn to ignore, and a threshold
squeezed to the top of the scale by a few hard negatives (one swapped entity scoring 0.93)
says the embedder does not separate the language's meanings, whatever its precision."""
BLIND_SCORE = 0.99
"""A score at or above this is identity: the embedder sees the two texts as one."""
BLIND_SHARE = 0.25
"""More than this share of one kind's different-meaning pairs at `BLIND_SCORE` is blindness."""
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""The largest similarity calibration record read (16 MiB), checked before reading."""
BATCH = 64
"""Texts embedded per step, so progress is said as the pairs are scored."""

Progress = Callable[[int, int], None]
"""Called with (pairs done, pairs in all) as the pairs are scored."""


class SimilarityRecordError(GauntletError):
    """A similarity calibration record that cannot be written, or read back as one."""


class ScoredPair(Record):
    """One labelled pair as calibration scored it."""

    id: str
    language: str
    """The pair's language tag, as written in the labels."""
    kind: PairKind
    same: bool
    """Whether people read the answer as the expected one reworded."""
    score: float = Field(ge=-1.0, le=1.0)
    """The cosine of the two texts' embeddings, rounded to six places."""
    guards: tuple[str, ...] = ()
    """The guards' problems with the pair; a pair with any never passes."""


class Minimums(Record):
    """What a language must reach to be accepted."""

    min_precision: float = Field(ge=LOWEST_MIN_PRECISION, le=1.0)
    min_recall: float = Field(ge=0.0, le=1.0)
    min_items: int = Field(ge=1)
    min_class: int = Field(ge=1)
    blind_score: float = Field(ge=0.0, le=1.0)
    blind_share: float = Field(ge=0.0, le=1.0)


class KindFigures(Record):
    """One kind of pair in one language: how many, how many passed, how many look identical."""

    kind: PairKind
    pairs: int
    passed: int
    """Pairs the decision passed (guards hold, score reaches the threshold)."""
    identical: int
    """Pairs scoring at least the blind score."""


class LanguageFigures(Record):
    """One language's threshold and figures, and whether it was accepted."""

    language: str
    """The primary subtag."""
    pairs: int
    positives: int
    """Pairs labelled `same`."""
    threshold: float | None
    """The chosen threshold; None when no threshold reaches the minimum precision."""
    passed: int
    """Pairs the decision passed at the threshold."""
    true_positives: int
    precision: float | None
    """Of the passed pairs, the share labelled `same`; None when none passed."""
    precision_low: float
    precision_high: float
    recall: float
    """Of the `same` pairs, the share passed."""
    recall_low: float
    recall_high: float
    negation_guarded: bool
    """Whether the guards have negation words for this language."""
    kinds: tuple[KindFigures, ...]
    """Per kind, in order of kind."""
    accepted: bool
    refused: str | None
    """Why the language is refused; None when accepted."""


class LabelsInfo(Record):
    """Which labels the embedder was calibrated on."""

    version: int
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
    source: str
    items: int


class SimilarityRecord(Record):
    """An embedder's similarity calibration: per-language thresholds and every scored pair."""

    schema_version: Literal[1] = 1
    gauntlet_version: str
    created_at: AwareDatetime
    embedder: EmbedderFingerprint
    """The embedder calibrated: the record holds for this fingerprint and no other."""
    labels: LabelsInfo
    guards: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
    """`guards_digest` when the pairs were guarded: a record made under other guards gates
    nothing, since its threshold was chosen among other pairs."""
    minimums: Minimums
    languages: tuple[LanguageFigures, ...]
    """Per language (primary subtag), in order of language."""
    pairs: tuple[ScoredPair, ...] = Field(min_length=1)

    def accepted(self) -> dict[str, float]:
        """The threshold of each accepted language."""
        return {
            figures.language: figures.threshold
            for figures in self.languages
            if figures.accepted and figures.threshold is not None
        }


def default_minimums(
    min_precision: float = DEFAULT_MIN_PRECISION, min_recall: float = DEFAULT_MIN_RECALL
) -> Minimums:
    """The minimums with the shipped item counts and blindness rule.

    Raises:
        ValidationError: `min_precision` below `LOWEST_MIN_PRECISION` or a share outside 0-1.
    """
    return Minimums(
        min_precision=min_precision,
        min_recall=min_recall,
        min_items=MIN_ITEMS,
        min_class=MIN_CLASS,
        blind_score=BLIND_SCORE,
        blind_share=BLIND_SHARE,
    )


def similarity_record_schema() -> dict[str, Any]:
    """The JSON Schema of a similarity calibration record, for other tools."""
    schema = SimilarityRecord.model_json_schema()
    schema["title"] = "gauntlet similarity calibration record"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


# ------------------------------------------------------------------ scoring


async def score_pairs(
    embeddings: Embeddings, labels: SimilarityLabelSet, *, progress: Progress | None = None
) -> tuple[ScoredPair, ...]:
    """Every labelled pair scored (cosine, rounded to six places) and guarded.

    Raises:
        EmbedderError: the embedder failed or gave vectors the cache refuses; calibration
            does not go on with some pairs missing.
    """
    items = labels.items
    scored: list[ScoredPair] = []
    for start in range(0, len(items), BATCH // 2):
        chunk = items[start : start + BATCH // 2]
        vectors = await embeddings.vectors([t for i in chunk for t in (i.expected, i.answer)])
        for index, item in enumerate(chunk):
            scored.append(
                ScoredPair(
                    id=item.id,
                    language=item.language,
                    kind=item.kind,
                    same=item.same,
                    score=max(
                        -1.0, min(1.0, round(cosine(*vectors[2 * index : 2 * index + 2]), 6))
                    ),
                    guards=guard_problems(item.expected, item.answer, item.language),
                )
            )
        if progress is not None:
            progress(len(scored), len(items))
    return tuple(scored)


async def calibrate_similarity(
    embeddings: Embeddings,
    labels: SimilarityLabelSet,
    *,
    minimums: Minimums | None = None,
    progress: Progress | None = None,
    created_at: datetime | None = None,
) -> SimilarityRecord:
    """Score every pair of `labels` with the embedder of `embeddings`, and record it."""
    pairs = await score_pairs(embeddings, labels, progress=progress)
    return build_similarity_record(
        pairs,
        labels,
        embeddings.fingerprint,
        minimums=minimums or default_minimums(),
        created_at=created_at,
    )


def build_similarity_record(
    pairs: Sequence[ScoredPair],
    labels: SimilarityLabelSet,
    fingerprint: EmbedderFingerprint,
    *,
    minimums: Minimums,
    created_at: datetime | None = None,
) -> SimilarityRecord:
    """The record of `pairs`, scored by the embedder of `fingerprint` on `labels`."""
    return SimilarityRecord(
        gauntlet_version=__version__,
        created_at=created_at if created_at is not None else datetime.now(UTC),
        embedder=fingerprint,
        labels=LabelsInfo(
            version=labels.version,
            digest=similarity_labels_digest(labels),
            source=labels.source,
            items=len(labels.items),
        ),
        guards=guards_digest(),
        minimums=minimums,
        languages=derive_languages(pairs, minimums),
        pairs=tuple(pairs),
    )


# ------------------------------------------------------------------ figures from pairs


def passes(pair: ScoredPair, threshold: float | None) -> bool:
    """The decision that gates: the guards hold and the score reaches the threshold."""
    return threshold is not None and not pair.guards and pair.score >= threshold


def choose_threshold(pairs: Sequence[ScoredPair], min_precision: float) -> float | None:
    """The threshold that passes the most `same` pairs at `min_precision` (see the module).

    None when no threshold passes a `same` pair at that precision.
    """
    open_ = sorted((p for p in pairs if not p.guards), key=lambda p: p.score, reverse=True)
    best: tuple[int, float] | None = None  # (true positives, lowest passed same score)
    passed = true = 0
    lowest_same: float | None = None  # scores fall as the loop goes: the last same is lowest
    for index, pair in enumerate(open_):
        passed += 1
        true += pair.same
        lowest_same = pair.score if pair.same else lowest_same
        if index + 1 < len(open_) and open_[index + 1].score == pair.score:
            continue  # a threshold passes every pair of one score: try it after the last
        if lowest_same is None or true < min_precision * passed:
            continue
        if best is None or true > best[0]:
            best = (true, lowest_same)
    if best is None:
        return None
    lowest = best[1]
    below = [p.score for p in open_ if p.score < lowest]
    if not below:
        return lowest
    midway = round((lowest + max(below)) / 2, 6)
    return midway if max(below) < midway <= lowest else lowest


def derive_languages(
    pairs: Sequence[ScoredPair], minimums: Minimums
) -> tuple[LanguageFigures, ...]:
    """Every language's threshold, figures and acceptance, as `pairs` give them."""
    by_language: dict[str, list[ScoredPair]] = {}
    for pair in pairs:
        by_language.setdefault(primary_language(pair.language), []).append(pair)
    return tuple(
        _language(language, group, minimums) for language, group in sorted(by_language.items())
    )


def _language(language: str, pairs: list[ScoredPair], bar: Minimums) -> LanguageFigures:
    threshold = choose_threshold(pairs, bar.min_precision)
    positives = sum(p.same for p in pairs)
    passed = [p for p in pairs if passes(p, threshold)]
    true = sum(p.same for p in passed)
    kinds = tuple(
        KindFigures(
            kind=kind,
            pairs=len(group),
            passed=sum(passes(p, threshold) for p in group),
            identical=sum(p.score >= bar.blind_score for p in group),
        )
        for kind in sorted({p.kind for p in pairs})
        for group in [[p for p in pairs if p.kind == kind]]
    )
    precision_low, precision_high = wilson_interval(true, len(passed))
    recall_low, recall_high = wilson_interval(true, positives)
    precision = round(true / len(passed), 6) if passed else None
    recall = round(true / positives, 6) if positives else 0.0
    figures = LanguageFigures(
        language=language,
        pairs=len(pairs),
        positives=positives,
        threshold=threshold,
        passed=len(passed),
        true_positives=true,
        precision=precision,
        precision_low=precision_low,
        precision_high=precision_high,
        recall=recall,
        recall_low=recall_low,
        recall_high=recall_high,
        negation_guarded=language in guarded_languages(),
        kinds=kinds,
        accepted=True,
        refused=None,
    )
    refused = _refused(figures, bar)
    if refused is None:
        return figures
    return figures.model_copy(update={"accepted": False, "refused": refused})


def _refused(figures: LanguageFigures, bar: Minimums) -> str | None:
    """Why a language with these figures is refused, the module's first reason; None if not."""
    pairs, positives, threshold = figures.pairs, figures.positives, figures.threshold
    precision, recall = figures.precision, figures.recall
    if pairs < bar.min_items:
        return f"{plural(pairs, 'labelled pair')}, fewer than the {bar.min_items} needed"
    if min(positives, pairs - positives) < bar.min_class:
        return (
            f"{plural(positives, 'same-meaning pair')} and "
            f"{plural(pairs - positives, 'different-meaning pair')}; "
            f"{bar.min_class} of each are needed"
        )
    for kind in figures.kinds:
        if kind.kind != SAME_KIND and kind.identical > bar.blind_share * kind.pairs:
            return (
                f"the embedder is blind to {kind.kind.replace('_', ' ')}: {kind.identical} of "
                f"{kind.pairs} such pairs score at least {bar.blind_score:g}, so any such "
                "difference the guards miss would pass"
            )
    if threshold is None or precision is None:
        return (
            f"no threshold passes a same-meaning pair at precision {bar.min_precision:g}: "
            "different meanings score as high as the best rewordings"
        )
    if precision < bar.min_precision:  # pragma: no cover - the threshold is chosen to reach it
        return f"precision {precision:.2f} is below {bar.min_precision:g}"
    if recall < bar.min_recall:
        return (
            f"recall {recall:.2f} is below {bar.min_recall:g}: at precision "
            f"{bar.min_precision:g} the threshold {threshold:.3f} passes only "
            f"{plural(round(recall * positives), 'rewording')} of {positives}"
        )
    return None


# ------------------------------------------------------------------ the record on disk


def write_similarity_record(record: SimilarityRecord, path: Path) -> None:
    """Write `record` to `path` atomically.

    Raises:
        SimilarityRecordError: the file cannot be written.
    """
    try:
        write_atomically(path, record.model_dump_json(indent=2) + "\n")
    except OSError as exc:
        raise SimilarityRecordError(
            f"{path}: cannot write the similarity calibration record: {exc.strerror or exc}"
        ) from exc


def read_similarity_record(path: Path) -> SimilarityRecord:
    """Read a similarity calibration record strictly, and check its figures are its pairs'.

    Raises:
        SimilarityRecordError: not a regular file, over `MAX_RECORD_BYTES`, unreadable, not
            strict JSON (located by line and column), newer than this gauntlet, not a record
            (located by JSON path), or a record whose figures disagree with its pairs.
    """
    raw = read_or_raise(
        path,
        limit=MAX_RECORD_BYTES,
        what="a similarity calibration record",
        error=SimilarityRecordError,
    )
    return parse_similarity_record(raw, str(path))


def parse_similarity_record(raw: bytes, source: str) -> SimilarityRecord:
    """Parse and check a similarity calibration record's bytes. Pure; see the reader.

    Raises:
        SimilarityRecordError: as `read_similarity_record`.
    """
    try:
        data = loads(raw, f"{source}: the similarity calibration record")
    except TargetContractError as exc:
        raise SimilarityRecordError(str(exc)) from None
    checked_version(
        data,
        source,
        newest=SIMILARITY_RECORD_VERSION,
        what="similarity calibration record",
        format_name="similarity calibration record",
        error=SimilarityRecordError,
    )
    try:
        record = SimilarityRecord.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        raise SimilarityRecordError(
            located(source, "not a valid similarity calibration record", validation_problems(exc))
        ) from None
    problems = similarity_record_problems(record)
    if problems:
        raise SimilarityRecordError(
            located(
                source, "a similarity calibration record whose figures are not its pairs'", problems
            )
        )
    return record


def similarity_record_problems(record: SimilarityRecord) -> list[str]:
    """Every way `record` disagrees with itself, each as `json.path: problem`."""
    problems = list(_structure(record))
    if problems:
        return problems
    derived = derive_languages(record.pairs, record.minimums)
    return list(
        differences(record.languages, derived, "languages", holder="the record", origin="its pairs")
    )


def _structure(record: SimilarityRecord) -> Iterator[str]:
    seen: dict[str, int] = {}
    for index, pair in enumerate(record.pairs):
        if pair.id in seen:
            yield f"pairs[{index}].id: {pair.id!r} repeats pairs[{seen[pair.id]}]"
        seen.setdefault(pair.id, index)
        if pair.same != (pair.kind == SAME_KIND):
            yield f"pairs[{index}].kind: {pair.kind!r} contradicts same: {pair.same}"
    if len(record.pairs) != record.labels.items:
        yield f"labels.items: {record.labels.items}, but the record has {len(record.pairs)} pairs"


def summary_lines(record: SimilarityRecord) -> list[str]:
    """The calibration for a console or a CI log: a table per language, then each verdict."""
    lines = [
        f"similarity calibration of {record.embedder.model} ({record.embedder.kind})",
        f"labels: {plural(record.labels.items, 'pair')} ({record.labels.source}); "
        f"min precision {record.minimums.min_precision:g}, min recall "
        f"{record.minimums.min_recall:g}",
        "",
    ]
    rows = [["language", "n", "same", "threshold", "precision", "95% interval", "recall",
             "95% interval", "guards"]]  # fmt: skip
    rows.extend(_row(f) for f in record.languages)
    lines += aligned(rows, right={1, 2})
    unavailable = language_guard_unavailable()
    if unavailable is not None:
        lines.append(f"language guard: UNAVAILABLE ({unavailable}): no run lets this record gate")
    lines.append("")
    for f in record.languages:
        passed = ", ".join(f"{k.kind} {k.passed}/{k.pairs}" for k in f.kinds)
        lines.append(f"{f.language} passed by kind: {passed}")
    for f in record.languages:
        lines.append(f"{f.language}: " + ("ACCEPTED" if f.accepted else f"REFUSED ({f.refused})"))
    return lines


def _row(f: LanguageFigures) -> list[str]:
    precision = "n/a" if f.precision is None else f"{f.precision:.2f}"
    return [
        f.language,
        str(f.pairs),
        str(f.positives),
        "none" if f.threshold is None else f"{f.threshold:.3f}",
        f"{precision} ({f.true_positives}/{f.passed})",
        f"{f.precision_low:.2f} to {f.precision_high:.2f}",
        f"{f.recall:.2f} ({f.true_positives}/{f.positives})",
        f"{f.recall_low:.2f} to {f.recall_high:.2f}",
        "all" if f.negation_guarded else "all but negation",
    ]


__all__ = [
    "BLIND_SCORE",
    "BLIND_SHARE",
    "DEFAULT_MIN_PRECISION",
    "DEFAULT_MIN_RECALL",
    "LOWEST_MIN_PRECISION",
    "MAX_RECORD_BYTES",
    "SIMILARITY_RECORD_VERSION",
    "KindFigures",
    "LabelsInfo",
    "LanguageFigures",
    "Minimums",
    "ScoredPair",
    "SimilarityRecord",
    "SimilarityRecordError",
    "build_similarity_record",
    "calibrate_similarity",
    "choose_threshold",
    "default_minimums",
    "derive_languages",
    "parse_similarity_record",
    "passes",
    "read_similarity_record",
    "score_pairs",
    "similarity_record_problems",
    "similarity_record_schema",
    "summary_lines",
    "write_similarity_record",
]
