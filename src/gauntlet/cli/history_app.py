"""`gauntlet history`: add, list, show and trend the runs kept in one SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gauntlet.cli.options import (
    LabelOption,
    echo,
    named_options,
)

history_app = typer.Typer(
    help="The run history: every run kept in one SQLite file, listed, shown and trended "
    "(see docs/history.md). Exit codes: 0 done; 2 a bad flag, a results file that cannot be "
    "read, or a history file that is not one (or from a newer gauntlet).",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)


HistoryFileOption = Annotated[
    Path,
    typer.Option(
        "--history",
        metavar="FILE",
        help="The run-history file (SQLite).",
        show_default=False,
    ),
]


@history_app.command("add")
def history_add(
    results: Annotated[
        list[Path],
        typer.Argument(
            metavar="RESULTS...",
            help="Results files to import, such as CI artifacts; each is checked as "
            "`gauntlet report` checks one.",
        ),
    ],
    history: HistoryFileOption,
    label: LabelOption = None,
) -> None:
    """Import results files into the history (made when missing), each run once.

    Every file is read and checked before anything is stored; then each is appended in its
    own transaction and reported as `added as run N` or, when the history already holds it
    (the same results, started at the same time, with the same run id and shard), `already
    stored as run N`. Safe to run from several CI jobs at once on one file.
    """
    from gauntlet.errors import HistoryError
    from gauntlet.history.store import append_run, check_history, parse_labels, records_of
    from gauntlet.run.results_file import read_results

    with named_options(labels="--label"):
        labels = parse_labels(label or [])
    check_history(history)
    read = [(path, read_results(path)) for path in results]
    for path, run in read:  # every number in its range, before anything is stored
        try:
            records_of(run, labels)
        except HistoryError as exc:
            raise HistoryError(f"{path}: {exc}") from None
    for path, run in read:
        appended = append_run(history, run, labels)
        said = "added as run" if appended.added else "already stored as run"
        echo(f"{path}: {said} {appended.number}")


@history_app.command("list")
def history_list(history: HistoryFileOption) -> None:
    """List the stored runs, oldest first.

    One line per run: its number, start (UTC), verdict, target, cases passed and labels.
    """
    from gauntlet.history.store import load_history
    from gauntlet.history.views import list_lines

    for line in list_lines(load_history(history)):
        echo(line)


@history_app.command("show")
def history_show(
    run: Annotated[
        str,
        typer.Argument(
            metavar="RUN", help="A run's number as `gauntlet history list` shows it, or latest."
        ),
    ],
    history: HistoryFileOption,
) -> None:
    """Show one run: its facts and its cases counted per gate and language.

    The facts: key, times, target and its fingerprint, plan and results digests, verdict,
    labels and suites.
    """
    from gauntlet.history.store import load_history
    from gauntlet.history.views import pick_run, show_lines

    stored = load_history(history)
    for line in show_lines(stored, pick_run(stored, run)):
        echo(line)


@history_app.command("trend")
def history_trend(
    history: HistoryFileOption,
    gate: Annotated[
        str | None,
        typer.Option("--gate", metavar="GATE", help="Only this gate's cases.", show_default=False),
    ] = None,
    language: Annotated[
        str | None,
        typer.Option(
            "--language", metavar="LANG", help="Only cases in this language.", show_default=False
        ),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite", metavar="SUITE", help="Only this suite's cases.", show_default=False
        ),
    ] = None,
) -> None:
    """The pass rate of each comparable run, oldest first, for a gate, language or suite.

    Comparable runs asked the same plan (the same suites at the same versions, the same
    cases) as the newest run; others are counted and left out. `asks passed` counts every
    ask of a repeated case, so a flaky case shows there before it fails a whole case.
    """
    from gauntlet.history.store import load_history
    from gauntlet.history.views import trend_lines

    for line in trend_lines(load_history(history), gate=gate, language=language, suite=suite):
        echo(line)
