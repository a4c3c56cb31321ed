"""`gauntlet report`: the evidence pack built from a results file, rendered and written."""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated

import typer

from gauntlet.cli.console import stderr
from gauntlet.cli.options import (
    echo,
    replace_out,
)
from gauntlet.cli.state import safe
from gauntlet.display import printable
from gauntlet.errors import GauntletError, UsageError

if TYPE_CHECKING:
    from gauntlet.evidence.build import BuiltPack
    from gauntlet.evidence.drift import MeaningMatches
    from gauntlet.evidence.pack import EvidencePack
    from gauntlet.evidence.trends import TrendsEvidence
    from gauntlet.run.results import Results


class ReportFormat(StrEnum):
    """Formats of `gauntlet report`."""

    MD = "md"
    JSON = "json"
    JUNIT = "junit"
    SARIF = "sarif"


ResultsArgument = Annotated[
    Path, typer.Argument(metavar="RESULTS", help="A results file written by gauntlet run.")
]


BaselineOption = Annotated[
    Path | None,
    typer.Option(
        "--baseline",
        metavar="PREV",
        help="An earlier results file to compute drift against. A missing file is "
        "reported in the pack, not fatal.",
    ),
]


FormatOption = Annotated[
    ReportFormat,
    typer.Option(
        "--format",
        help="Markdown, the JSON pack, JUnit XML, or SARIF 2.1.0 for GitHub code scanning.",
    ),
]


OutOption = Annotated[
    Path | None,
    typer.Option("--out", metavar="PATH", help="Write here (atomically) instead of stdout."),
]


SourceRootOption = Annotated[
    Path | None,
    typer.Option(
        "--source-root",
        metavar="DIR",
        help="With --format sarif: the repository root every case file is named from "
        "($GITHUB_WORKSPACE, else the current directory). A failing case in a file "
        "outside it is refused.",
    ),
]


GithubOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--github-output",
        metavar="FILE",
        help="Append the step outputs (verdict, counts, digest, drift) to FILE, "
        "normally $GITHUB_OUTPUT.",
    ),
]


GithubSummaryOption = Annotated[
    Path | None,
    typer.Option(
        "--github-summary",
        metavar="FILE",
        help="Append the Markdown report to FILE, normally $GITHUB_STEP_SUMMARY, "
        "truncated with a note past GitHub's size limit.",
    ),
]


GithubAnnotationsOption = Annotated[
    bool,
    typer.Option(
        "--github-annotations",
        help="Print an ::error annotation for each failing, errored or unjudged case, at its line.",
    ),
]


ReportHistoryOption = Annotated[
    Path | None,
    typer.Option(
        "--history",
        metavar="FILE",
        help="A run history: add a Trends section judging this run against the comparable "
        "runs before it (the run is added in memory if the history lacks it).",
    ),
]


WindowOption = Annotated[
    int | None,
    typer.Option("--window", metavar="N", help="With --history: at most N comparable runs (30)."),
]


ZOption = Annotated[
    float | None,
    typer.Option(
        "--z",
        metavar="Z",
        help="With --history: flag a pass rate at z <= Z, latency and tokens at z >= -Z (-1.5).",
    ),
]


CompareOnOption = Annotated[
    str | None,
    typer.Option(
        "--compare-on",
        metavar="LABEL",
        help="With --history: compare only with runs carrying this run's value of LABEL, "
        "such as branch.",
    ),
]


ReportEmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        metavar="SPEC",
        help="With --baseline: match each new failure with the baseline's failures by "
        "meaning, with this embedder (builtin, toy[:DEFECT,...] or a target file of kind "
        "openai-embeddings); one that matches is reported as the same failure, reworded, "
        "and still fails.",
    ),
]


ReportEmbedderCalibrationOption = Annotated[
    Path | None,
    typer.Option(
        "--embedder-calibration",
        metavar="RECORD",
        help="With --embedder: the similarity calibration record (gauntlet calibrate "
        "--embedder) whose accepted thresholds per language matching needs; without it "
        "nothing is matched, and the report says so.",
    ),
]


def report(
    results_path: ResultsArgument,
    baseline: BaselineOption = None,
    output_format: FormatOption = ReportFormat.MD,
    out: OutOption = None,
    source_root: SourceRootOption = None,
    github_output: GithubOutputOption = None,
    github_summary: GithubSummaryOption = None,
    github_annotations: GithubAnnotationsOption = False,
    history: ReportHistoryOption = None,
    window: WindowOption = None,
    z_threshold: ZOption = None,
    compare_on: CompareOnOption = None,
    embedder: ReportEmbedderOption = None,
    embedder_calibration: ReportEmbedderCalibrationOption = None,
) -> None:
    """Build the evidence pack from a results file and render it. Runs nothing.

    Exits 0 when the pack was built, whatever the verdict inside it, and 2 when it could not
    be (a results or baseline file that is unreadable, newer, or inconsistent).
    """
    if source_root is not None and output_format is not ReportFormat.SARIF:
        raise UsageError("--source-root needs --format sarif")
    if embedder_calibration is not None and embedder is None:
        raise UsageError("--embedder-calibration needs --embedder")
    if embedder is not None and baseline is None:
        raise UsageError("--embedder needs --baseline: it matches new failures with the baseline's")
    if out is not None:
        replace_out(out, inputs=[results_path, *([baseline] if baseline else [])])
    built = _built(
        results_path,
        baseline,
        trends=lambda results: _report_trends(results, history, window, z_threshold, compare_on),
        reworded=lambda results, previous: _report_reworded(
            results, previous, embedder, embedder_calibration
        ),
    )
    text = _rendered(built, output_format, source_root)
    if built.baseline_missing:
        stderr().print(f"note: baseline {baseline} does not exist; no drift computed", markup=False)
    if embedder is not None:
        for line in _reworded_lines(built.pack):
            stderr().print(safe(line), markup=False, highlight=False)
    _github(built.pack, github_output, github_summary, github_annotations)
    if out is not None:
        _write(out, text, output_format)
    elif not (github_output or github_summary or github_annotations):
        echo(text, nl=False)  # with GitHub's outputs asked for, no report on stdout


def _built(
    results_path: Path,
    baseline: Path | None,
    *,
    trends: Callable[[Results], TrendsEvidence | None],
    reworded: Callable[[Results, Results], MeaningMatches | None],
) -> BuiltPack:
    """The evidence pack of `results_path`, an error naming the embedder's flags as typed."""
    from gauntlet.evidence.build import build_evidence_pack

    try:
        return build_evidence_pack(
            results_path, baseline=baseline, trends=trends, reworded=reworded
        )
    except GauntletError as error:
        error.name_options(
            {"embedder": "--embedder", "embedder_calibration": "--embedder-calibration"}
        )
        raise


def _rendered(built: BuiltPack, output_format: ReportFormat, source_root: Path | None) -> str:
    """The pack in `output_format`."""
    from gauntlet.evidence.pack import pack_json
    from gauntlet.render.junit import render_junit
    from gauntlet.render.markdown import render_markdown

    match output_format:
        case ReportFormat.MD:
            return render_markdown(built.pack)
        case ReportFormat.JSON:
            return pack_json(built.pack)
        case ReportFormat.JUNIT:
            return render_junit(built.pack)
        case ReportFormat.SARIF:
            return _sarif(built, source_root)


def _write(out: Path, text: str, output_format: ReportFormat) -> None:
    """`text` written to `out` atomically, and said on stderr."""
    from gauntlet.files import write_atomically

    try:
        write_atomically(out, text)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror or exc}") from exc
    stderr().print(f"wrote {out} ({output_format.value})", markup=False)


def _sarif(built: BuiltPack, source_root: Path | None) -> str:
    """The SARIF log, its case files named from the repository root."""
    from gauntlet.render.sarif import attack_types, render_sarif

    workspace = os.environ.get("GITHUB_WORKSPACE")
    root = source_root or (Path(workspace) if workspace else Path.cwd())
    # Both as the disk has them (links followed), so a root named through a link still holds
    # the files a run named from the real directory.
    real_root, cwd = Path(os.path.realpath(root)), Path(os.path.realpath(Path.cwd()))
    if not real_root.is_dir():
        raise UsageError(f"--source-root {printable(str(root))}: no such directory")
    try:
        return render_sarif(
            built.pack,
            attack_types=attack_types(built.results),
            root=PurePosixPath(real_root.as_posix()),
            cwd=PurePosixPath(cwd.as_posix()),
        )
    except UsageError as error:
        error.name_options({"source_root": "--source-root"})
        raise


def _report_reworded(
    results: Results, previous: Results, spec: str | None, record: Path | None
) -> MeaningMatches | None:
    """What `report --embedder` found matching the new failures by meaning; None without it."""
    if spec is None:
        return None
    from gauntlet.cli.state import Invocation
    from gauntlet.evidence.reworded import reworded_with

    return asyncio.run(reworded_with(spec, record, results, previous, redactor=Invocation.redactor))


def _reworded_lines(pack: EvidencePack) -> list[str]:
    """The console's drift lines for matching by meaning: how many matched, and why not."""
    drift = pack.baseline.drift
    if drift is None:
        return []
    lines = [
        f"drift: {change.case_id} is {change.baseline_case_id} reworded "
        f"({change.gate.value}, {change.language}, similarity {change.score:.3f}); it still "
        "fails"
        for change in drift.reworded
    ]
    lines += [
        f"note: new failures were not matched by meaning: {why}"
        for why in drift.not_matched_by_meaning
    ]
    return lines


def _report_trends(
    results: Results,
    history: Path | None,
    window: int | None,
    z_threshold: float | None,
    compare_on: str | None,
) -> TrendsEvidence | None:
    """The Trends section `report --history` asks for: `results` against the stored runs."""
    from gauntlet.history.stats import DEFAULT_THRESHOLD, DEFAULT_WINDOW, TrendRule
    from gauntlet.history.store import load_history, records_of
    from gauntlet.history.trends import report_trends

    if history is None:
        given = [
            flag
            for flag, value in (
                ("--window", window),
                ("--z", z_threshold),
                ("--compare-on", compare_on),
            )
            if value is not None
        ]
        if given:
            raise UsageError(f"{', '.join(given)} needs --history FILE")
        return None
    if window is not None and window < 1:
        raise UsageError(f"--window {window}: must be at least 1")
    if z_threshold is not None and not (math.isfinite(z_threshold) and z_threshold < 0):
        raise UsageError(
            f"--z {z_threshold:g}: must be a finite number below 0 (a drop in standard deviations)"
        )
    if compare_on is not None and not compare_on.strip():
        raise UsageError("--compare-on: a label name is needed")
    if not history.is_file():
        raise UsageError(f"--history {history}: no such file")
    rule = TrendRule(
        window=DEFAULT_WINDOW if window is None else window,
        threshold=DEFAULT_THRESHOLD if z_threshold is None else z_threshold,
        compare_on=compare_on,
    )
    return report_trends(
        results, history, load_history=load_history, records_of=records_of, rule=rule
    )


def _github(pack: EvidencePack, output: Path | None, summary: Path | None, annotate: bool) -> None:
    from gauntlet.files import RefusedFileError, open_for_writing
    from gauntlet.render.github import annotation_commands, build_github_files

    for path, text in build_github_files(pack, output=output, summary=summary):
        try:
            with open_for_writing(path, append=True) as handle:
                handle.write(text)
        except RefusedFileError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"{path}: cannot append: {exc.strerror or exc}") from exc
    if annotate:
        workspace = os.environ.get("GITHUB_WORKSPACE")
        # Printed as they are: these are the workflow commands this flag asks for, and
        # `annotation_commands` escapes what they carry so none can end early.
        typer.echo(
            annotation_commands(pack, relative_to=Path(workspace) if workspace else None),
            nl=False,
        )
