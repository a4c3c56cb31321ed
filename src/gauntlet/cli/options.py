"""The options several commands share, and what every command does with its flags and output."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from gauntlet.cli.state import safe
from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.errors import GauntletError, UsageError


def echo(text: str, *, nl: bool = True) -> None:
    """Print `text` to stdout as click does (escape codes dropped off a terminal), made safe."""
    typer.echo(safe(text), nl=nl)


@contextmanager
def named_options(**options: str) -> Iterator[None]:
    """Word an error about a library parameter as the flag its value came from.

    `with named_options(url="--http-url"):` makes a `UsageError` about `url`, raised inside, say
    `--http-url`, as the user typed it.
    """
    try:
        yield
    except GauntletError as error:
        error.name_options(options)
        raise


HistoryOption = Annotated[
    Path | None,
    typer.Option(
        "--history",
        metavar="FILE",
        help="A run-history file (SQLite, made when missing): the run is appended when it "
        "finishes, whatever its verdict. See docs/history.md.",
        show_default=False,
    ),
]


LabelOption = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        metavar="KEY=VALUE",
        help="A label stored with the run in the history, such as branch=main or "
        "commit=3f2a9c1 (repeatable). Keys: a lowercase letter, then lowercase letters, "
        "digits, '_', '.' or '-'; values: one printable line of at most 200 characters.",
        show_default=False,
    ),
]


OldJudgeLabelsOption = Annotated[
    list[str] | None,
    typer.Option("--labels", hidden=True, show_default=False),
]
"""`--labels`, the judge's labelled sets before they were `--judge-labels`: kept only to be
refused by name, so click never steers it to `--label` (a history label)."""


def refuse_old_judge_labels(given: list[str] | None) -> None:
    """Refuse `--labels`, naming `--judge-labels`, before anything else is read.

    Raises:
        UsageError: `--labels` was given.
    """
    if given is not None:
        raise UsageError(
            "--labels is now --judge-labels (a labelled set the judge's calibration may have "
            "been made on): give --judge-labels DIR"
        )


CasesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--cases",
        metavar="PATH",
        help="A directory of *.yaml case files (searched recursively) or one case file. "
        "Repeatable. Default: the built-in suites.",
        show_default=False,
    ),
]


TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        help="Seconds for one HTTP attempt of the target, start to end (a stream's last byte "
        f"included). Default: the target file's `http.timeout`, else {DEFAULT_TIMEOUT:g}.",
        show_default=False,
    ),
]


RetriesOption = Annotated[
    int | None,
    typer.Option(
        "--retries",
        min=0,
        help="HTTP retries of the target after connect errors, timeouts, 429 and 502/503/504. "
        f"Default: the target file's `http.retries`, else {DEFAULT_RETRIES}.",
        show_default=False,
    ),
]


HeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        metavar="'NAME: VALUE'",
        help="An HTTP header to send (repeatable); write the value as ${ENV_VAR} to read "
        "it from the environment. Values read so, and those of headers named like "
        "credentials (Authorization, Cookie, *key*, *token*, ...), are masked in every "
        "output; values under 8 characters are not.",
        show_default=False,
    ),
]


JudgeMinKappaOption = Annotated[
    float,
    typer.Option(
        "--min-kappa",
        help="The least Cohen's kappa the judge's calibration must show, overall and in every "
        "language; never below 0.4.",
    ),
]


JudgeMinItemsOption = Annotated[
    int,
    typer.Option(
        "--min-items",
        min=1,
        help="The fewest labelled items the judge's calibration must hold in every language.",
    ),
]


PersonasOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--personas",
        metavar="PATH",
        help="A persona file, or a directory of *.yaml persona files (searched recursively); "
        "repeatable. `gauntlet explore` plays the built-in personas without it. See `gauntlet "
        "schema personas`.",
        show_default=False,
    ),
]


SuiteChoiceOption = Annotated[
    list[str] | None,
    typer.Option(
        "--suite",
        metavar="NAME|PATH",
        help="Run only this suite (repeatable): a built-in one as builtin:NAME or NAME "
        "(builtin:refusal, refusal), a suite of --cases by its name, or a case file's path.",
        show_default=False,
    ),
]


GateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gate",
        metavar="GATE",
        help="Run only the suites of this gate (repeatable).",
        show_default=False,
    ),
]


ExcludeGateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude-gate",
        metavar="GATE",
        help="Leave out the suites of this gate (repeatable).",
        show_default=False,
    ),
]


SuiteSettingOption = Annotated[
    list[str] | None,
    typer.Option(
        "--suite-option",
        metavar="SUITE.OPTION=VALUE",
        help="Set a suite's option for this run, as if its file said it, e.g. "
        "grounding.accepts_absent=context_ids (SUITE: a gate, a suite's name or file stem; "
        "repeatable). Recorded in the results, the plan digest and the evidence pack.",
        show_default=False,
    ),
]


EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        metavar="SPEC",
        help="The embedder that compares meanings (`match: semantic` golden suites, "
        "trajectory `min_similarity`): `builtin` (in process, the gauntlet[semantic] extra), "
        "`toy[:DEFECT,...]`, or a target file of kind openai-embeddings. It is asked only "
        "about answers the gates passed, and can fail them, never pass them.",
        show_default=False,
    ),
]
EmbedderCalibrationOption = Annotated[
    Path | None,
    typer.Option(
        "--embedder-calibration",
        metavar="RECORD",
        help="The embedder's similarity calibration record (from `gauntlet calibrate "
        "--embedder`). Without one, or for another embedder, or in a language it did not "
        "accept, every similarity check is unjudged and the verdict is withheld (exit 2).",
        show_default=False,
    ),
]


WaiversOption = Annotated[
    Path | None,
    typer.Option(
        "--waivers",
        metavar="FILE",
        help="A waivers file: failures you ship with for now, each with an owner, a ticket "
        "and an expiry. A waived failure still runs, is reported WAIVED and does not count "
        "against its suite's threshold. See `gauntlet schema waivers`.",
        show_default=False,
    ),
]


TargetFileOption = Annotated[
    Path | None,
    typer.Option(
        "--target",
        metavar="FILE",
        help="A target file: how to reach your feature (an OpenAI-compatible chat endpoint, "
        "any JSON API, or gauntlet's own contract) and read its answers. See `gauntlet schema "
        "target` and `gauntlet probe`.",
        show_default=False,
    ),
]


def replace_out(out: Path, *, inputs: Sequence[Path] = ()) -> None:
    """Check that `out` can be this command's output, then remove a stale file there.

    Nothing is removed when `out` is refused: a directory, a place in a directory that does
    not exist, a case file's name, or one of the command's own inputs. Otherwise the stale
    file goes at once, so whatever fails later, no earlier results (a PASS, say) are left
    where CI looks for this run's.

    Raises:
        UsageError: `out` is refused, or cannot be removed.
    """
    if out.suffix.lower() in (".yaml", ".yml"):
        raise UsageError(
            f"--out {out}: that is a case file's name; gauntlet writes results and reports, "
            "never over a case file"
        )
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory; name a file in it")
    kind = _kind_of(out)
    if kind is not None:
        raise UsageError(
            f"--out {out}: is {kind}; gauntlet writes results and reports only to regular files"
        )
    if not out.parent.is_dir():
        raise UsageError(f"--out {out}: the directory {out.parent} does not exist")
    for given in inputs:
        if out.exists() and given.exists() and os.path.samefile(out, given):
            raise UsageError(f"--out {out}: is also this command's input {given}")
    try:
        out.unlink(missing_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot replace it: {exc.strerror or exc}") from exc


def _kind_of(path: Path) -> str | None:
    """What `path` is when it is there and neither a regular file nor a symlink, else None.

    Replacing a device such as /dev/null, or a FIFO, with a file would break whatever uses it.
    """
    import stat

    from gauntlet.files import describe_kind

    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return None
    return describe_kind(mode)
