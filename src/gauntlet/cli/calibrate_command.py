"""`gauntlet calibrate`: ask a judge every labelled item and say whether it may vote."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gauntlet.cli.console import stderr, stdout
from gauntlet.cli.options import (
    replace_out,
)
from gauntlet.cli.state import Invocation
from gauntlet.defaults import (
    DEFAULT_CONCURRENCY,
)
from gauntlet.errors import ExitCode


def calibrate(
    judge_file: Annotated[
        Path,
        typer.Option(
            "--judge",
            metavar="FILE",
            help="The judge's target file (any kind; typically openai-chat at temperature 0).",
            show_default=False,
        ),
    ],
    labels_dir: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            metavar="DIR",
            help="A directory of *.yaml labels files: items people judged. "
            "Default: the shipped Riverbend set.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option("--out", metavar="RECORD", help="Where to write the calibration record."),
    ] = Path("calibration.json"),
    min_kappa: Annotated[
        float,
        typer.Option(
            "--min-kappa",
            metavar="K",
            help="The least Cohen's kappa, overall and in each language; never below 0.4.",
        ),
    ] = 0.7,
    min_items: Annotated[
        int,
        typer.Option("--min-items", metavar="N", help="The fewest labelled items per language."),
    ] = 30,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Items asked at once.")
    ] = DEFAULT_CONCURRENCY,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress, only the table.")
    ] = False,
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
    """
    from gauntlet.judge.calibration import DEFAULT_MIN_POSITION_CONSISTENCY, check_thresholds

    check_thresholds(min_kappa, min_items, DEFAULT_MIN_POSITION_CONSISTENCY)
    labels_path = labels_dir if labels_dir is not None else _builtin_labels()
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
        summary_lines,
        write_record,
    )
    from gauntlet.judge.judge_file import judge_asker, judge_fingerprint
    from gauntlet.judge.labels import labels_digest, load_labels
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
