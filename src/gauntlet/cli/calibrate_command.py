"""`gauntlet calibrate`: measure a judge (`--judge`) or an embedder (`--embedder`) on labels.

A judge is asked every labelled item and told whether it may vote; an embedder scores every
labelled pair and each language is told its threshold, or why it gets none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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


def calibrate(
    judge_file: Annotated[
        Path | None,
        typer.Option(
            "--judge",
            metavar="FILE",
            help="The judge's target file (any kind; typically openai-chat at temperature 0).",
            show_default=False,
        ),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option(
            "--embedder",
            metavar="SPEC",
            help="Calibrate an embedder instead: builtin, toy[:DEFECT,...], or a target file "
            "of kind openai-embeddings. See docs/similarity.md.",
            show_default=False,
        ),
    ] = None,
    similarity_labels: Annotated[
        list[Path] | None,
        typer.Option(
            "--labels",
            metavar="DIR",
            help="With --embedder: a directory of *.yaml similarity labels files. "
            "Default: the shipped en and es pairs. (A judge's labels are --judge-labels.)",
            show_default=False,
        ),
    ] = None,
    labels_dir: Annotated[
        Path | None,
        typer.Option(
            "--judge-labels",
            metavar="DIR",
            help="A directory of *.yaml labels files: items people judged. "
            "Default: the shipped Riverbend set.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="RECORD",
            help="Where to write the calibration record. Default: calibration.json, or "
            "similarity-calibration.json with --embedder.",
            show_default=False,
        ),
    ] = None,
    min_kappa: Annotated[
        float | None,
        typer.Option(
            "--min-kappa",
            metavar="K",
            help="The least Cohen's kappa, overall and in each language; never below 0.4. "
            "[default: 0.7]",
            show_default=False,
        ),
    ] = None,
    min_items: Annotated[
        int | None,
        typer.Option(
            "--min-items",
            metavar="N",
            help="The fewest labelled items per language. [default: 30]",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            min=1,
            help=f"Items asked at once. [default: {DEFAULT_CONCURRENCY}]",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress, only the table.")
    ] = False,
    min_precision: Annotated[
        float | None,
        typer.Option(
            "--min-precision",
            metavar="P",
            help="With --embedder: the least precision a threshold keeps, 0.95 to 1 "
            "(default 0.95).",
            show_default=False,
        ),
    ] = None,
    min_recall: Annotated[
        float | None,
        typer.Option(
            "--min-recall",
            metavar="R",
            help="With --embedder: the least recall for a language to be accepted, 0.5 to 1 "
            "(default 0.5).",
            show_default=False,
        ),
    ] = None,
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
    if (judge_file is None) == (embedder is None):
        raise UsageError(
            "calibrate needs exactly one of --judge FILE (a model judge) or --embedder SPEC "
            "(similarity)" + ("; not both" if judge_file is not None else "")
        )
    if embedder is not None:
        for given, flag in (
            (labels_dir, "--judge-labels"),
            (min_kappa, "--min-kappa"),
            (min_items, "--min-items"),
            (concurrency, "--concurrency"),
        ):
            if given is not None:
                raise UsageError(f"{flag} is for --judge, not --embedder")
        if similarity_labels is not None and len(similarity_labels) > 1:
            raise UsageError("--labels: give one directory of similarity labels, once")
        _calibrate_embedder(
            embedder,
            similarity_labels[0] if similarity_labels else None,
            out,
            (min_precision, min_recall),
            quiet=quiet,
        )
        return
    assert judge_file is not None  # noqa: S101 - exactly one of the two, checked above
    refuse_old_judge_labels([str(path) for path in similarity_labels or ()] or None)
    for extra, flag in ((min_precision, "--min-precision"), (min_recall, "--min-recall")):
        if extra is not None:
            raise UsageError(f"{flag} is for --embedder, not --judge")
    from gauntlet.judge.calibration import (
        DEFAULT_MIN_ITEMS,
        DEFAULT_MIN_KAPPA,
        DEFAULT_MIN_POSITION_CONSISTENCY,
        check_thresholds,
    )

    min_kappa = DEFAULT_MIN_KAPPA if min_kappa is None else min_kappa
    min_items = DEFAULT_MIN_ITEMS if min_items is None else min_items
    concurrency = DEFAULT_CONCURRENCY if concurrency is None else concurrency
    check_thresholds(min_kappa, min_items, DEFAULT_MIN_POSITION_CONSISTENCY)
    labels_path = labels_dir if labels_dir is not None else _builtin_labels()
    out = out if out is not None else Path("calibration.json")
    replace_out(out, inputs=[judge_file, labels_path])
    _calibrate(judge_file, labels_path, out, min_kappa, min_items, concurrency, quiet)


def _builtin_labels() -> Path:
    from gauntlet.judge.labels import builtin_labels_dir

    builtin = builtin_labels_dir()
    return builtin.relative_to(Path.cwd()) if builtin.is_relative_to(Path.cwd()) else builtin


def _calibrate(
    judge_file: Path,
    labels_path: Path,
    out: Path,
    min_kappa: float,
    min_items: int,
    concurrency: int,
    quiet: bool,
) -> None:
    import asyncio

    from gauntlet.errors import TargetError
    from gauntlet.judge.calibration import (
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

    labels = load_labels(labels_path)
    loaded = load_target_file(judge_file)
    fingerprint = judge_fingerprint(loaded)
    target = build_target(loaded, concurrency=concurrency, redactor=Invocation.redactor)

    async def ask_all(progress: ProgressDisplay) -> Any:
        try:
            try:
                await target.probe()
            except TargetError as exc:
                raise type(exc)(f"{judge_file}: pre-flight check failed: {exc}") from exc
            return await calibrate(
                labels,
                lambda language, item: judge_asker(target, language=language, case_id=item),
                concurrency=concurrency,
                progress=progress,
            )
        finally:
            await target.aclose()

    with ProgressDisplay(stderr(), quiet=quiet) as progress:
        pairs = asyncio.run(ask_all(progress))
    record = build_record(labels, pairs, fingerprint)
    write_record(record, out)
    reason = check_calibration(
        record,
        fingerprint=fingerprint,
        labels_digests={labels_digest(labels)},
        min_kappa=min_kappa,
        min_items=min_items,
        labels=labels,
    )
    console = stdout()
    for line in summary_lines(record, reason):
        console.print(line)
    stderr().print(f"wrote {out}", markup=False)
    raise typer.Exit(ExitCode.PASS if reason is None else ExitCode.GATE_FAILED)


def _calibrate_embedder(
    spec: str,
    labels_dir: Path | None,
    out: Path | None,
    minimums: tuple[float | None, float | None],
    *,
    quiet: bool,
) -> None:
    import asyncio

    from gauntlet.render.console import ProgressDisplay
    from gauntlet.semantic.calibration import (
        DEFAULT_MIN_PRECISION,
        DEFAULT_MIN_RECALL,
        SimilarityRecord,
        calibrate_similarity,
        default_minimums,
        summary_lines,
        write_similarity_record,
    )
    from gauntlet.semantic.embedder import EmbedderError, Embeddings
    from gauntlet.semantic.labels import builtin_similarity_labels_dir, load_similarity_labels
    from gauntlet.semantic.load import embedder_for

    min_precision = DEFAULT_MIN_PRECISION if minimums[0] is None else minimums[0]
    min_recall = DEFAULT_MIN_RECALL if minimums[1] is None else minimums[1]
    if not DEFAULT_MIN_PRECISION <= min_precision <= 1:
        raise UsageError(
            f"--min-precision {min_precision:g}: must be from {DEFAULT_MIN_PRECISION:g} to 1; "
            "a run refuses a record held to less"
        )
    if not DEFAULT_MIN_RECALL <= min_recall <= 1:
        raise UsageError(
            f"--min-recall {min_recall:g}: must be from {DEFAULT_MIN_RECALL:g} to 1; "
            "a run refuses a record held to less"
        )
    builtin = builtin_similarity_labels_dir()
    if labels_dir is None:
        labels_dir = (
            builtin.relative_to(Path.cwd()) if builtin.is_relative_to(Path.cwd()) else builtin
        )
    out = out if out is not None else Path("similarity-calibration.json")
    replace_out(out, inputs=[labels_dir])
    labels = load_similarity_labels(labels_dir)
    chosen = embedder_for(spec, redactor=Invocation.redactor)

    async def score(progress: ProgressDisplay) -> SimilarityRecord:
        try:
            try:
                fingerprint = await chosen.open()
            except EmbedderError as exc:
                raise EmbedderError(f"--embedder {spec}: pre-flight failed: {exc}") from exc
            return await calibrate_similarity(
                Embeddings(chosen, fingerprint),
                labels,
                minimums=default_minimums(min_precision, min_recall),
                progress=progress,
            )
        finally:
            await chosen.aclose()

    with ProgressDisplay(
        stderr(), quiet=quiet, doing="scoring", verb="scored", noun="pairs"
    ) as progress:
        record = asyncio.run(score(progress))
    write_similarity_record(record, out)
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
    stderr().print(f"wrote {out}", markup=False)
    raise typer.Exit(ExitCode.PASS if accepted else ExitCode.GATE_FAILED)
