"""Setting up a run's model judge: its target, its fingerprint, and whether it may vote.

A judge votes only with a calibration record made for its very fingerprint, on the labels
gauntlet ships or the ones named, whose figures reach the thresholds. Without one the run
still asks the target every case, and every judged check is unjudged with the reason, so the
verdict is withheld: a judge that has not shown it agrees with people never blocks or passes a
merge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gauntlet.judge.calibration import (
    DEFAULT_MIN_KAPPA,
    DEFAULT_MIN_POSITION_CONSISTENCY,
    CalibrationRecord,
    Thresholds,
    calibrated_languages,
    check_calibration,
    check_thresholds,
    in_peer_order,
    read_record,
)
from gauntlet.judge.judge_file import judge_fingerprint
from gauntlet.judge.labels import LabelSet, builtin_labels_dir, labels_digest, load_labels
from gauntlet.redact import Redactor
from gauntlet.run.results import CalibrationSummary, JudgeInfo, LanguageKappa
from gauntlet.run.settings import Judge
from gauntlet.targets.configured import build_target
from gauntlet.targets.target_file import load_target_file

NO_RECORD = (
    "no calibration record was given (--calibration RECORD): a judge votes only once it has "
    "shown it agrees with people (gauntlet calibrate)"
)


@dataclass(frozen=True, kw_only=True)
class JudgeRequest:
    """The judge a run is asked to use, and what its calibration must show.

    Args:
        judge_file: The judge's target file.
        calibration: The calibration record, or None (the judge may then not vote).
        labels: Labelled sets, besides the shipped one, a record may have been made on.
        min_kappa: The least kappa, overall and per language; at least 0.4.
        min_items: The fewest labelled items per language.
    """

    judge_file: Path
    calibration: Path | None = None
    labels: Sequence[Path] = ()
    min_kappa: float = DEFAULT_MIN_KAPPA
    min_items: int


def prepare_judge(
    request: JudgeRequest, *, seed: str, concurrency: int, redactor: Redactor
) -> Judge:
    """The judge `request` names, what the results record of it, and whether it may vote.

    Args:
        request: The judge file and the calibration's thresholds.
        seed: The run's judge seed (`gauntlet.run.settings.judge_seed`).
        concurrency: Judge checks at a time.
        redactor: Taught the judge file's secrets.

    Raises:
        ConfigErrors: the judge file or a labels directory is refused.
        CalibrationRecordError: the record cannot be read, or disagrees with itself.
        UsageError: a threshold below its floor, or a judge file that cannot be used.
    """
    judge_file, calibration = request.judge_file, request.calibration
    labels, min_kappa, min_items = request.labels, request.min_kappa, request.min_items
    check_thresholds(min_kappa, min_items, DEFAULT_MIN_POSITION_CONSISTENCY)
    loaded = load_target_file(judge_file)
    fingerprint = judge_fingerprint(loaded)
    summary: CalibrationSummary | None = None
    languages: frozenset[str] = frozenset()
    if calibration is None:
        refused: str | None = NO_RECORD
    else:
        record = read_record(calibration)
        sets = [load_labels(builtin_labels_dir()), *(load_labels(path) for path in labels)]
        made_on = next(
            (labelled for labelled in sets if labels_digest(labelled) == record.labels.digest),
            None,
        )
        refused = check_calibration(
            record,
            fingerprint=fingerprint,
            labels_digests=[labels_digest(labelled) for labelled in sets],
            thresholds=Thresholds(min_kappa=min_kappa, min_items=min_items),
            labels=made_on,
        )
        summary = _summary(record, str(calibration), made_on, min_kappa, min_items)
        languages = frozenset(calibrated_languages(record))
    target = build_target(loaded, concurrency=concurrency, redactor=redactor)
    info = JudgeInfo(
        target_file=str(judge_file), fingerprint=fingerprint, calibration=summary, refused=refused
    )
    return Judge(info=info, seed=seed, target=target, languages=languages, concurrency=concurrency)


def _summary(
    record: CalibrationRecord,
    source: str,
    labels: LabelSet | None,
    min_kappa: float,
    min_items: int,
) -> CalibrationSummary:
    overall = record.overall
    return CalibrationSummary(
        record=source,
        labels=f"{record.labels.name} v{record.labels.version}"
        + ("" if labels is not None else " (not the shipped or named labels)"),
        labels_digest=record.labels.digest,
        items=overall.items,
        agreement=overall.observed,
        kappa=overall.kappa,
        low=overall.low,
        high=overall.high,
        languages=tuple(
            LanguageKappa(
                language=figures.language,
                items=figures.items,
                kappa=figures.kappa,
                low=figures.low,
                high=figures.high,
            )
            for figures in in_peer_order(record.languages)
        ),
        position_consistency=record.pairwise.position_consistency,
        unjudged=record.unjudged,
        talking=record.talks_to_judge.talking,
        obeyed=record.talks_to_judge.obeyed,
        min_kappa=min_kappa,
        min_items=min_items,
    )


__all__ = ["NO_RECORD", "JudgeRequest", "prepare_judge"]
