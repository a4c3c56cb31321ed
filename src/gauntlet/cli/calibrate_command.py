"""`gauntlet calibrate`: measure a judge (`--judge`) or an embedder (`--embedder`) on labels.

A judge is asked every labelled item and told whether it may vote; an embedder scores every
labelled pair and each language is told its threshold, or why it gets none.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gauntlet.cli.console import stderr, stdout
from gauntlet.cli.options import (
    refuse_old_judge_labels,
    replace_out,
)
from gauntlet.cli.state import Invocation
from gauntlet.defaults import (
    DEFAULT_CONCURRENCY,
)
from gauntlet.errors import ExitCode, UsageError

if TYPE_CHECKING:  # the modules themselves load only when their half of the command runs
    from gauntlet.judge.calibration import RecordedPair
    from gauntlet.semantic.calibration import Progress, SimilarityRecord
    from gauntlet.semantic.embedder import Embedder
    from gauntlet.semantic.labels import SimilarityLabelSet


JudgeFileOption = Annotated[
    Path | None,
    typer.Option(
        "--judge",
        metavar="FILE",
        help="The judge's target file (any kind; typically openai-chat at temperature 0).",
        show_default=False,
    ),
]


CalibrateEmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        metavar="SPEC",
        help="Calibrate an embedder instead: builtin, toy[:DEFECT,...], or a target file "
        "of kind openai-embeddings. See docs/similarity.md.",
        show_default=False,
    ),
]


SimilarityLabelsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--labels",
        metavar="DIR",
        help="With --embedder: a directory of *.yaml similarity labels files. "
        "Default: the shipped pairs, six languages. (A judge's labels are --judge-labels.)",
        show_default=False,
    ),
]


JudgeLabelsOption = Annotated[
    Path | None,
    typer.Option(
        "--judge-labels",
        metavar="DIR",
        help="A directory of *.yaml labels files: items people judged. "
        "Default: the shipped Riverbend set.",
        show_default=False,
    ),
]


RecordOutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="RECORD",
        help="Where to write the calibration record. Default: calibration.json, or "
        "similarity-calibration.json with --embedder.",
        show_default=False,
    ),
]


MinKappaOption = Annotated[
    float | None,
    typer.Option(
        "--min-kappa",
        metavar="K",
        help="The least Cohen's kappa, overall and in each language; never below 0.4. "
        "[default: 0.7]",
        show_default=False,
    ),
]


MinItemsOption = Annotated[
    int | None,
    typer.Option(
        "--min-items",
        metavar="N",
        help="The fewest labelled items per language. [default: 30]",
        show_default=False,
    ),
]


CalibrateConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        min=1,
        help=f"Items asked at once. [default: {DEFAULT_CONCURRENCY}]",
        show_default=False,
    ),
]


CalibrateQuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress, only the table.")
]


MinPrecisionOption = Annotated[
    float | None,
    typer.Option(
        "--min-precision",
        metavar="P",
        help="With --embedder: the least precision a threshold keeps, 0.95 to 1 (default 0.95).",
        show_default=False,
    ),
]


MinRecallOption = Annotated[
    float | None,
    typer.Option(
        "--min-recall",
        metavar="R",
        help="With --embedder: the least recall for a language to be accepted, 0.5 to 1 "
        "(default 0.5).",
        show_default=False,
    ),
]


def calibrate(
    judge_file: JudgeFileOption = None,
    embedder: CalibrateEmbedderOption = None,
    similarity_labels: SimilarityLabelsOption = None,
    labels_dir: JudgeLabelsOption = None,
    out: RecordOutOption = None,
    min_kappa: MinKappaOption = None,
    min_items: MinItemsOption = None,
    concurrency: CalibrateConcurrencyOption = None,
    quiet: CalibrateQuietOption = False,
    min_precision: MinPrecisionOption = None,
    min_recall: MinRecallOption = None,
) -> None:
    """Measure how far a judge agrees with people, write the record, and say if it may vote.

    Asks the judge every labelled item (rubric items criterion by criterion, pairwise items
    in both orders), then prints agreement and Cohen's kappa with its 95% interval per
    language and overall, the pairwise position consistency, how many verdicts were
    unjudged (each counts as a disagreement), and how many of its verdicts on answers that
    talk to the judge were a pass. The record holds every pair, so whoever reads it
    recomputes the figures.

    Refused outright if the judge passed any answer that talks to the judge, whatever the
    thresholds. Otherwise accepted when kappa reaches --min-kappa overall and in every
    language, each language has at least --min-items items, and at least 0.9 of the pairwise
    items get the same verdict in both orders. Exit codes: 0 accepted; 1 refused (the last
    line says why); 2 bad flags, labels or judge file, or a judge that fails the pre-flight
    ask. See docs/judge.md.

    With --embedder instead of --judge: scores every labelled pair (cosine of the two
    embeddings, and the number and negation guards), chooses each language's threshold to
    pass the most rewordings at --min-precision, and prints per language the threshold,
    precision and recall with their 95% intervals, n, and accepted or why refused. Exit
    codes: 0 the record was written and at least one language accepted (only accepted
    languages gate); 1 no language accepted; 2 bad flags or labels, or an embedder that
    fails to load. See docs/similarity.md.
    """
    _exactly_one(judge_file, embedder)
    if embedder is not None:
        _only_for(
            "--judge",
            {
                "--judge-labels": labels_dir,
                "--min-kappa": min_kappa,
                "--min-items": min_items,
                "--concurrency": concurrency,
            },
        )
        asked = _similarity_calibration(embedder, similarity_labels, out, min_precision, min_recall)
        replace_out(asked.out, inputs=[asked.labels])
        _calibrate_similarity(asked, quiet=quiet)
        return
    assert judge_file is not None  # noqa: S101 - exactly one of the two, checked above
    refuse_old_judge_labels([str(path) for path in similarity_labels or ()] or None)
    _only_for("--embedder", {"--min-precision": min_precision, "--min-recall": min_recall})
    judge = _judge_calibration(judge_file, labels_dir, out, min_kappa, min_items, concurrency)
    replace_out(judge.out, inputs=[judge.judge_file, judge.labels])
    _calibrate_judge(judge, quiet=quiet)


def _exactly_one(judge_file: Path | None, embedder: str | None) -> None:
    """Refuse a command that names neither half, or both."""
    if (judge_file is None) == (embedder is None):
        raise UsageError(
            "calibrate needs exactly one of --judge FILE (a model judge) or --embedder SPEC "
            "(similarity)" + ("; not both" if judge_file is not None else "")
        )


def _only_for(owner: str, flags: dict[str, object | None]) -> None:
    """Refuse the first of `flags` given: each belongs to `owner`, the other half of the command."""
    other = "--embedder" if owner == "--judge" else "--judge"
    for flag, given in flags.items():
        if given is not None:
            raise UsageError(f"{flag} is for {owner}, not {other}")


@dataclass(frozen=True, kw_only=True)
class JudgeCalibration:
    """What `calibrate --judge` measures and where it writes, every default filled in."""

    judge_file: Path
    labels: Path
    """The labels directory: the one named, or the shipped Riverbend set."""
    out: Path
    min_kappa: float
    min_items: int
    concurrency: int


@dataclass(frozen=True, kw_only=True)
class SimilarityCalibration:
    """What `calibrate --embedder` measures and where it writes, every default filled in."""

    spec: str
    """The embedder as `--embedder` named it: builtin, toy[:DEFECT,...] or a target file."""
    labels: Path
    """The similarity labels directory: the one named, or the shipped pairs (six languages)."""
    out: Path
    min_precision: float
    min_recall: float


def _judge_calibration(
    judge_file: Path,
    labels: Path | None,
    out: Path | None,
    min_kappa: float | None,
    min_items: int | None,
    concurrency: int | None,
) -> JudgeCalibration:
    """The judge calibration the flags ask for, its thresholds checked against their floors."""
    from gauntlet.judge.calibration import (
        DEFAULT_MIN_ITEMS,
        DEFAULT_MIN_KAPPA,
        DEFAULT_MIN_POSITION_CONSISTENCY,
        check_thresholds,
    )
    from gauntlet.judge.labels import builtin_labels_dir

    kappa = DEFAULT_MIN_KAPPA if min_kappa is None else min_kappa
    items = DEFAULT_MIN_ITEMS if min_items is None else min_items
    check_thresholds(kappa, items, DEFAULT_MIN_POSITION_CONSISTENCY)
    return JudgeCalibration(
        judge_file=judge_file,
        labels=labels if labels is not None else _shown(builtin_labels_dir()),
        out=out if out is not None else Path("calibration.json"),
        min_kappa=kappa,
        min_items=items,
        concurrency=DEFAULT_CONCURRENCY if concurrency is None else concurrency,
    )


def _shown(path: Path) -> Path:
    """`path` relative to the working directory when it is under it, as a person names it."""
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


def _calibrate_judge(request: JudgeCalibration, *, quiet: bool) -> None:
    """Ask the judge every labelled item, write the record, print the table, exit 0 or 1."""
    import asyncio

    from gauntlet.errors import TargetError
    from gauntlet.judge.calibration import (
        Thresholds,
        build_record,
        calibrate,
        check_calibration,
        write_record,
    )
    from gauntlet.judge.judge_file import judge_asker, judge_fingerprint
    from gauntlet.judge.labels import labels_digest, load_labels
    from gauntlet.render.calibration import summary_lines
    from gauntlet.render.console import ProgressDisplay
    from gauntlet.targets.configured import build_target
    from gauntlet.targets.target_file import load_target_file

    labels = load_labels(request.labels)
    loaded = load_target_file(request.judge_file)
    fingerprint = judge_fingerprint(loaded)
    target = build_target(loaded, concurrency=request.concurrency, redactor=Invocation.redactor)

    async def ask_all(progress: ProgressDisplay) -> tuple[RecordedPair, ...]:
        try:
            try:
                await target.probe()
            except TargetError as exc:
                raise type(exc)(f"{request.judge_file}: pre-flight check failed: {exc}") from exc
            return await calibrate(
                labels,
                lambda language, item: judge_asker(target, language=language, case_id=item),
                concurrency=request.concurrency,
                progress=progress,
            )
        finally:
            await target.aclose()

    with ProgressDisplay(stderr(), quiet=quiet) as progress:
        pairs = asyncio.run(ask_all(progress))
    record = build_record(labels, pairs, fingerprint)
    write_record(record, request.out)
    reason = check_calibration(
        record,
        fingerprint=fingerprint,
        labels_digests={labels_digest(labels)},
        thresholds=Thresholds(min_kappa=request.min_kappa, min_items=request.min_items),
        labels=labels,
    )
    console = stdout()
    for line in summary_lines(record, reason):
        console.print(line)
    stderr().print(f"wrote {request.out}", markup=False)
    raise typer.Exit(ExitCode.PASS if reason is None else ExitCode.GATE_FAILED)


def _similarity_calibration(
    spec: str,
    labels: list[Path] | None,
    out: Path | None,
    min_precision: float | None,
    min_recall: float | None,
) -> SimilarityCalibration:
    """The embedder calibration the flags ask for, its minimums checked against their floors."""
    from gauntlet.semantic.calibration import DEFAULT_MIN_PRECISION, DEFAULT_MIN_RECALL
    from gauntlet.semantic.labels import builtin_similarity_labels_dir

    if labels is not None and len(labels) > 1:
        raise UsageError("--labels: give one directory of similarity labels, once")
    precision = DEFAULT_MIN_PRECISION if min_precision is None else min_precision
    recall = DEFAULT_MIN_RECALL if min_recall is None else min_recall
    if not DEFAULT_MIN_PRECISION <= precision <= 1:
        raise UsageError(
            f"--min-precision {precision:g}: must be from {DEFAULT_MIN_PRECISION:g} to 1; "
            "a run refuses a record held to less"
        )
    if not DEFAULT_MIN_RECALL <= recall <= 1:
        raise UsageError(
            f"--min-recall {recall:g}: must be from {DEFAULT_MIN_RECALL:g} to 1; "
            "a run refuses a record held to less"
        )
    return SimilarityCalibration(
        spec=spec,
        labels=labels[0] if labels else _shown(builtin_similarity_labels_dir()),
        out=out if out is not None else Path("similarity-calibration.json"),
        min_precision=precision,
        min_recall=recall,
    )


def _calibrate_similarity(request: SimilarityCalibration, *, quiet: bool) -> None:
    """Score every labelled pair, write the record, print the table, exit 0 or 1."""
    import asyncio

    from gauntlet.render.console import ProgressDisplay, ProgressWords
    from gauntlet.semantic.calibration import summary_lines, write_similarity_record
    from gauntlet.semantic.labels import load_similarity_labels
    from gauntlet.semantic.load import embedder_for

    labels = load_similarity_labels(request.labels)
    chosen = embedder_for(request.spec, redactor=Invocation.redactor)
    scoring = ProgressWords("scoring", "scored", "pairs")
    with ProgressDisplay(stderr(), quiet=quiet, words=scoring) as progress:
        record = asyncio.run(_score_pairs(request, chosen, labels, progress))
    write_similarity_record(record, request.out)
    console = stdout()
    for line in summary_lines(record):
        console.print(line, markup=False, highlight=False)
    accepted = sorted(record.accepted())
    console.print(
        "similarity: "
        + (f"ACCEPTED for {', '.join(accepted)}" if accepted else "REFUSED in every language"),
        markup=False,
        highlight=False,
    )
    stderr().print(f"wrote {request.out}", markup=False)
    raise typer.Exit(ExitCode.PASS if accepted else ExitCode.GATE_FAILED)


async def _score_pairs(
    request: SimilarityCalibration,
    chosen: Embedder,
    labels: SimilarityLabelSet,
    progress: Progress,
) -> SimilarityRecord:
    """Every labelled pair scored by `chosen`, after it opens; the embedder closed."""
    from gauntlet.semantic.calibration import calibrate_similarity, default_minimums
    from gauntlet.semantic.embedder import EmbedderError, Embeddings

    try:
        try:
            fingerprint = await chosen.open()
        except EmbedderError as exc:
            raise EmbedderError(f"--embedder {request.spec}: pre-flight failed: {exc}") from exc
        return await calibrate_similarity(
            Embeddings(chosen, fingerprint),
            labels,
            minimums=default_minimums(request.min_precision, request.min_recall),
            progress=progress,
        )
    finally:
        await chosen.aclose()
