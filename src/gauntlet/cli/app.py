"""The command line: the only module that reads argv, prints and chooses an exit code."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer
from rich.console import Console
from rich.text import Text

from gauntlet.defaults import (
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    MAX_REPEAT,
)
from gauntlet.display import guard_lines, printable, unencodable
from gauntlet.errors import ConfigErrors, ExitCode, GauntletError, UsageError
from gauntlet.judge.toy import JudgeDefect
from gauntlet.redact import MIN_SECRET_LENGTH, Redactor
from gauntlet.targets.toy.defects import ToyDefect
from gauntlet.version import __version__

if TYPE_CHECKING:
    from gauntlet.cases.loader import SuiteSet
    from gauntlet.cases.waivers import WaiverInfo
    from gauntlet.evidence.pack import EvidencePack
    from gauntlet.evidence.trends import TrendsEvidence
    from gauntlet.run.results import Results, Shard, TargetInfo
    from gauntlet.targets.contract import AsyncTarget
    from gauntlet.targets.http import Header

# Each command imports what it needs when it runs: `gauntlet --version` and `--help` stay
# fast, and a run against the toy never loads the HTTP client.

app = typer.Typer(
    name="gauntlet",
    help=(
        "A merge-blocking evaluation gate for generative-AI features.\n\n"
        "Exit codes: 0 every gate passed; 1 a gate failed; 2 the harness could not run "
        "(bad flags, bad case files); 4 unscoreable (unreadable answers)."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _Options:
    """State the whole invocation shares: the callback's options, the secrets to mask."""

    show_traceback = False
    redactor = Redactor()
    """Every secret known so far (header values, URL credentials), masked in every line."""


def _safe(text: str) -> str:
    """`text` as it may be printed: secrets masked, no line able to act on the CI runner."""
    return guard_lines(_Options.redactor.text(text))


class _GuardedConsole(Console):
    """A console whose every line is masked and guarded (see `gauntlet.display`)."""

    def print(self, *objects: object, **options: Any) -> None:
        """See `rich.console.Console.print`; text and `Text` are made safe first."""
        super().print(*(_safe_object(item) for item in objects), **options)


def _safe_object(item: object) -> object:
    if isinstance(item, Text):
        plain = item.plain
        safe = _safe(plain)
        return item if safe == plain else Text(safe)  # the styles no longer fit: dropped
    if isinstance(item, str):
        return _safe(item)
    return item


def _echo(text: str, *, nl: bool = True) -> None:
    typer.echo(_safe(text), nl=nl)


def _stdout() -> Console:
    # soft_wrap: never break a `path:line:column` line to fit a terminal or a CI log.
    return _GuardedConsole(highlight=False, soft_wrap=True)


def _stderr() -> Console:
    return _GuardedConsole(stderr=True, highlight=False, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        _echo(f"gauntlet {__version__}")
        raise typer.Exit


@app.callback()
def _main(
    show_traceback: Annotated[
        bool,
        typer.Option(
            "--traceback", help="On an internal error, show the Python traceback.", hidden=False
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    _Options.show_traceback = show_traceback


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


def _load(cases: list[Path] | None) -> SuiteSet:
    from gauntlet.cases.builtin import builtin_suites_dir
    from gauntlet.cases.loader import load_suites

    if cases:
        return load_suites(cases)
    builtin = builtin_suites_dir()
    if builtin.is_relative_to(Path.cwd()):
        builtin = builtin.relative_to(Path.cwd())  # shorter locations in a checkout
    return load_suites([builtin])


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


def _load_waivers(path: Path | None, suites: SuiteSet) -> tuple[WaiverInfo, ...]:
    """The waivers file checked on its own and against `suites`, judged on today's date (UTC)."""
    if path is None:
        return ()
    from datetime import UTC, datetime

    from gauntlet.cases.waivers import check_waivers, load_waivers

    return check_waivers(load_waivers(path, today=datetime.now(UTC).date()), suites)


@app.command()
def validate(cases: CasesOption = None, waivers: WaiversOption = None) -> None:
    """Load case files strictly and report every problem, each as path:line:column.

    Exits 0 when every file loads, printing the cases per gate and language; exits 2 when any
    file has a problem, after listing all of them. With --waivers, the waivers file is
    checked too, against the suites and today's date (UTC).
    """
    suites = _load(cases)
    waived = _load_waivers(waivers, suites)
    out = _stdout()
    counts = suites.counts()
    width = max(len(gate.value) for gate in counts)
    for gate, count in counts.items():
        languages = "  ".join(f"{lang} {n}" for lang, n in count.languages.items())
        suites_word = "suite" if count.suites == 1 else "suites"
        out.print(
            f"{gate.value:<{width}}  {count.suites} {suites_word}  {count.cases:>4} cases  "
            f"{languages}",
            markup=False,
        )
    total_suites = len(suites.suites)
    out.print(
        f"OK: {total_suites} {'suite' if total_suites == 1 else 'suites'}, "
        f"{suites.case_total} cases"
        + (f", {len(waived)} {'waiver' if len(waived) == 1 else 'waivers'}" if waivers else ""),
        markup=False,
    )


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


@app.command("run")
def run_command(
    cases: CasesOption = None,
    target_file: TargetFileOption = None,
    http_url: Annotated[
        str | None,
        typer.Option(
            "--http-url",
            metavar="URL",
            help="Ask a deployed feature that speaks gauntlet's own contract over HTTP "
            "(a shorthand for a target file of kind gauntlet).",
        ),
    ] = None,
    callable_spec: Annotated[
        str | None,
        typer.Option(
            "--callable",
            metavar="MODULE:FACTORY",
            help="Ask a Python target: FACTORY() from MODULE, imported from the working "
            "directory, must return an object with `name` and `ask(prompt, language)`.",
        ),
    ] = None,
    toy: Annotated[
        bool,
        typer.Option(
            "--toy",
            help="Ask the built-in Riverbend toy: a self-test of the suites, not of your feature.",
        ),
    ] = False,
    toy_defects: Annotated[
        list[ToyDefect] | None,
        typer.Option(
            "--toy-defect",
            metavar="NAME",
            help="Inject a named defect into the toy (repeatable); implies --toy.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", metavar="PATH", help="Where to write the results file.")
    ] = Path("results.json"),
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Cases asked at once.")
    ] = DEFAULT_CONCURRENCY,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            help="Seconds for one HTTP attempt, start to end (a stream's last byte included). "
            f"Default: the target file's `http.timeout`, else {DEFAULT_TIMEOUT:g}.",
            show_default=False,
        ),
    ] = None,
    retries: Annotated[
        int | None,
        typer.Option(
            "--retries",
            min=0,
            help="HTTP retries after connect errors, timeouts, 429 and 502/503/504. "
            f"Default: the target file's `http.retries`, else {DEFAULT_RETRIES}.",
            show_default=False,
        ),
    ] = None,
    header: Annotated[
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
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat",
            min=1,
            max=MAX_REPEAT,
            help=f"Ask every case this many times, at most {MAX_REPEAT} (a suite's `repeat:` "
            "may ask more); a case passes when every ask does, or its suite's `pass_k:` of "
            "them.",
        ),
    ] = 1,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="K/N",
            help="Run only shard K of N (a stable split of the cases); merge the shards' "
            "results with `gauntlet merge`.",
        ),
    ] = None,
    run_id: Annotated[
        str | None,
        typer.Option(
            "--run-id",
            metavar="ID",
            help="The id your CI system gives this run (the Action passes GitHub's run id). "
            "Every shard records it, and `gauntlet merge` refuses shards of different runs.",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Ask only the cases the journal beside --out does not hold yet (after a "
            "killed run); refuses a journal from other suites, options or target.",
        ),
    ] = False,
    judge_file: Annotated[
        Path | None,
        typer.Option(
            "--judge",
            metavar="FILE",
            help="A model judge for the cases' `judge` criteria and `match: judge` golden "
            "suites: a target file of any kind (typically openai-chat at temperature 0). It "
            "is asked only about answers the gates passed, and can fail them, never pass them.",
            show_default=False,
        ),
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(
            "--calibration",
            metavar="RECORD",
            help="The judge's calibration record (from `gauntlet calibrate`). Without one, or "
            "when it is for another judge or falls short of the thresholds, every judged "
            "check is unjudged and the verdict is withheld (exit 2).",
            show_default=False,
        ),
    ] = None,
    labels: Annotated[
        list[Path] | None,
        typer.Option(
            "--labels",
            metavar="DIR",
            help="A labelled set the calibration may have been made on, besides the one "
            "gauntlet ships (repeatable).",
            show_default=False,
        ),
    ] = None,
    min_kappa: Annotated[
        float,
        typer.Option(
            "--min-kappa",
            help="The least Cohen's kappa the calibration must show, overall and in every "
            "language; never below 0.4.",
        ),
    ] = 0.7,
    min_items: Annotated[
        int,
        typer.Option(
            "--min-items",
            min=1,
            help="The fewest labelled items the calibration must hold in every language.",
        ),
    ] = 30,
    waivers: WaiversOption = None,
    strict_waivers: Annotated[
        bool,
        typer.Option(
            "--strict-waivers",
            help="Fail the run (exit 1) when a live waiver is no longer needed: every case "
            "it covers passed.",
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress, only the summary.")
    ] = False,
    history: HistoryOption = None,
    label: LabelOption = None,
) -> None:
    """Ask the target every case, score the answers, write the results file, exit 0/1/2/4.

    With no target and no --cases, runs the built-in suites against the Riverbend toy. Exit
    codes: 0 every gate passed; 1 a gate failed; 2 the run could not run or finish (cases
    that got no answer, or an interruption, withhold the verdict); 4 unscoreable.
    """
    from gauntlet.render.console import ProgressDisplay, summary_lines
    from gauntlet.run.engine import run_gauntlet
    from gauntlet.run.journal import Journal, journal_path
    from gauntlet.run.results import exit_code_for
    from gauntlet.run.results_file import write_results
    from gauntlet.targets.http import parse_header

    given = [
        *(cases or ()),
        *(path for path in (target_file, judge_file, calibration, waivers) if path),
    ]
    _replace_out(out, inputs=given)
    part = _parse_shard(shard)
    _check_run_id(run_id)
    run_labels = _history_labels(history, label)
    headers = [parse_header(spec, os.environ) for spec in header or []]
    if headers and http_url is None:
        raise UsageError(
            "--header is for --http-url targets (a target file writes its own `headers:`)"
        )
    chosen = _choose_target(
        _TargetChoice(cases, target_file, http_url, callable_spec, toy, toy_defects, headers),
        timeout,
        retries,
        concurrency,
    )
    target, info = chosen
    suites = _load(cases)
    if strict_waivers and waivers is None:
        raise UsageError("--strict-waivers is for a run with waivers: give --waivers FILE")
    waived = _load_waivers(waivers, suites)
    if part is not None and part.count > suites.case_total:
        total = suites.case_total
        raise UsageError(
            f"--shard {part.index}/{part.count}: {part.count} shards for {total} "
            f"{'case' if total == 1 else 'cases'}, so a shard would hold none; split the run "
            f"at most {total} ways"
        )
    judging, judge_info = None, None
    if judge_file is not None:
        from gauntlet.run.judge_setup import prepare_judge

        judging, judge_info = prepare_judge(
            judge_file,
            calibration=calibration,
            labels=labels or (),
            min_kappa=min_kappa,
            min_items=min_items,
            concurrency=concurrency,
            redactor=_Options.redactor,
        )
    elif calibration is not None or labels:
        raise UsageError("--calibration and --labels are for a model judge: give --judge FILE")
    journal = Journal(journal_path(out), resume=resume)
    finished = False
    try:
        with ProgressDisplay(_stderr(), quiet=quiet) as progress:
            results = run_gauntlet(
                suites,
                target,
                target_info=info,
                concurrency=concurrency,
                repeat=repeat,
                shard=part,
                progress=progress,
                redactor=_Options.redactor,
                journal=journal,
                run_id=run_id,
                judging=judging,
                judge_info=judge_info,
                waivers=waived,
                strict_waivers=strict_waivers,
            )
        write_results(results, out)
        finished = results.complete
    finally:
        # The journal goes only once the results file holds every case: an interrupted run
        # keeps it, so --resume continues where it stopped.
        journal.close(remove=finished)
    console = _stdout()
    for line in summary_lines(results, results_path=str(out)):
        console.print(line)
    if history is not None:
        _append_to_history(history, results, run_labels)
    raise typer.Exit(exit_code_for(results.verdict))


def _history_labels(history: Path | None, labels: list[str] | None) -> dict[str, str]:
    """The run's `--label`s, checked, and its `--history` file checked before anything is asked.

    Raises:
        UsageError: a bad label, or labels without a history to keep them.
        HistoryError: the history could not be appended to.
    """
    from gauntlet.history.store import check_history, parse_labels

    parsed = parse_labels(labels or [])
    if history is None:
        if parsed:
            raise UsageError("--label is for a run kept in a history: give --history FILE")
        return parsed
    check_history(history)
    return parsed


def _append_to_history(history: Path, results: Results, labels: dict[str, str]) -> None:
    from gauntlet.history.store import append_run

    appended = append_run(history, results, labels)
    said = "added as run" if appended.added else "already stored as run"
    _stderr().print(f"history: {said} {appended.number} in {history}", markup=False)


def _replace_out(out: Path, *, inputs: Sequence[Path] = ()) -> None:
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


def _check_run_id(run_id: str | None) -> None:
    from gauntlet.run.results import RUN_ID_PATTERN

    if run_id is not None and not re.fullmatch(RUN_ID_PATTERN, run_id):
        raise UsageError(
            "--run-id: expected letters, digits and . _ : - (at most 128, starting with a "
            "letter or digit), such as GitHub's run id"
        )


def _parse_shard(text: str | None) -> Shard | None:
    from gauntlet.run.results import Shard

    if text is None:
        return None
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise UsageError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return Shard(index=int(index), count=int(count))


@app.command()
def merge(
    shards: Annotated[
        list[Path], typer.Argument(metavar="SHARD...", help="Results files of every shard.")
    ],
    out: Annotated[
        Path, typer.Option("--out", metavar="PATH", help="Where to write the merged results.")
    ] = Path("results.json"),
) -> None:
    """Merge the results of a sharded run into the results of the whole run, and score it.

    Checks that the shards come from the same suites, options and target and together cover
    every case exactly once (a missing or repeated shard is named). The merged file and its
    digest equal an unsharded run's, timing aside. Exits like `gauntlet run`: 0/1/2/4.
    """
    from gauntlet.render.console import summary_lines
    from gauntlet.run.merge import merge_shards
    from gauntlet.run.results import exit_code_for
    from gauntlet.run.results_file import read_results, write_results

    _replace_out(out, inputs=shards)
    merged = merge_shards([(str(path), read_results(path)) for path in shards])
    write_results(merged, out)
    console = _stdout()
    for line in summary_lines(merged, results_path=str(out)):
        console.print(line)
    raise typer.Exit(exit_code_for(merged.verdict))


class _TargetChoice(NamedTuple):
    """What the command line says about the target."""

    cases: list[Path] | None
    target_file: Path | None
    http_url: str | None
    callable_spec: str | None
    toy: bool
    toy_defects: list[ToyDefect] | None
    headers: list[Header]


def _choose_target(
    choice: _TargetChoice, timeout: float | None, retries: int | None, concurrency: int
) -> tuple[AsyncTarget, TargetInfo]:
    """The one target the flags name, adapted to the engine's seam, and how to record it.

    Every secret it holds is taught to `_Options.redactor`, which masks every line printed.
    """
    from gauntlet.run.results import TargetInfo
    from gauntlet.targets.adapters import CallableTarget
    from gauntlet.targets.http import HttpSettings, HttpTarget
    from gauntlet.targets.python import load_callable_target
    from gauntlet.targets.toy import make_toy

    chosen = [
        flag
        for flag, given in (
            ("--target", choice.target_file is not None),
            ("--http-url", choice.http_url is not None),
            ("--callable", choice.callable_spec is not None),
            ("--toy/--toy-defect", choice.toy or bool(choice.toy_defects)),
        )
        if given
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one target, not {' and '.join(chosen)}")
    redactor = _Options.redactor
    if choice.target_file is not None:
        return _file_target(choice.target_file, timeout, retries, concurrency)
    if choice.http_url is not None:
        settings = HttpSettings(
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
            retries=DEFAULT_RETRIES if retries is None else retries,
        )
        http = HttpTarget(
            choice.http_url,
            headers=choice.headers,
            settings=settings,
            concurrency=concurrency,
            redactor=redactor,
        )
        _note_unmasked(redactor)
        return http, TargetInfo(kind="http", name=redactor.text(http.name))
    if timeout is not None or retries is not None:
        raise UsageError("--timeout and --retries are for HTTP targets (--target, --http-url)")
    if choice.callable_spec is not None:
        python = load_callable_target(choice.callable_spec)
        info = TargetInfo(kind="callable", name=python.name)
        return CallableTarget(python, concurrency=concurrency), info
    if choice.cases and not chosen:
        raise UsageError(
            "--cases needs a target: --target FILE, --http-url URL or --callable "
            "MODULE:FACTORY (a verdict on the toy is not a verdict on your feature; --toy "
            "runs it on purpose)"
        )
    defects = list(dict.fromkeys(choice.toy_defects or []))
    toy_target = make_toy(defects)
    info = TargetInfo(kind="toy", name=toy_target.name, defects=tuple(d.value for d in defects))
    return CallableTarget(toy_target, concurrency=concurrency), info


def _file_target(
    path: Path, timeout: float | None, retries: int | None, concurrency: int
) -> tuple[AsyncTarget, TargetInfo]:
    """The target a target file describes; `--timeout` and `--retries` override its `http:`."""
    from gauntlet.run.results import TARGET_FILE_KINDS, TargetInfo
    from gauntlet.targets.configured import build_target
    from gauntlet.targets.target_file import load_target_file

    loaded = load_target_file(path)
    http = loaded.spec.http
    changed = {
        key: value
        for key, value in (("timeout", timeout), ("retries", retries))
        if value is not None
    }
    if changed:
        spec = loaded.spec.model_copy(update={"http": http.model_copy(update=changed)})
        loaded = dataclasses.replace(loaded, spec=spec)
    redactor = _Options.redactor
    target = build_target(loaded, concurrency=concurrency, redactor=redactor)
    _note_unmasked(redactor)
    info = TargetInfo(
        kind=TARGET_FILE_KINDS[loaded.spec.kind],
        name=redactor.text(target.name),
        target_file=str(path),
    )
    return target, info


def _note_unmasked(redactor: Redactor) -> None:
    for what in redactor.unmasked:
        _stderr().print(
            f"note: {what} is shorter than {MIN_SECRET_LENGTH} characters: it is sent, but "
            "not masked in any output (masking so short a value would rewrite the answers)",
            markup=False,
        )


@app.command()
def probe(
    target_file: Annotated[
        Path,
        typer.Option(
            "--target",
            metavar="FILE",
            help="The target file to try.",
            show_default=False,
        ),
    ],
    prompt: Annotated[
        str,
        typer.Option("--prompt", metavar="TEXT", help="What to ask."),
    ] = "What are the library's opening hours?",
    language: Annotated[
        str,
        typer.Option("--language", metavar="TAG", help="The prompt's language (BCP 47)."),
    ] = "en",
    cases: CasesOption = None,
) -> None:
    """Send one request through a target file and show what every field became, and why.

    Prints the request (secrets masked), the status, the start of the raw answer, and each
    contract field with its value and provenance (declared by the target, derived by which
    rule, or absent); then, for the suites of --cases (default: the built-in ones), which
    could run against this target and which would be refused, and why. Exit 0 when every
    field those suites need is supplied; 2 otherwise.
    """
    from gauntlet.cases.model import LANGUAGE_PATTERN
    from gauntlet.run.probe import probe_target, report_lines
    from gauntlet.targets.target_file import load_target_file

    if not re.fullmatch(LANGUAGE_PATTERN, language):
        raise UsageError(
            f"--language {printable(language)!s}: not a BCP 47 language tag, as a case's "
            "`language` is written (en, es, es-MX)"
        )
    loaded = load_target_file(target_file)
    suites = _load(cases)
    report = probe_target(loaded, suites, prompt, language, _Options.redactor)
    out = _stdout()
    for line in report_lines(report, suites, _Options.redactor):
        out.print(line, markup=False)
    if report.error is not None or report.problems:
        raise typer.Exit(ExitCode.HARNESS_ERROR)


class InventoryFormat(StrEnum):
    """Formats of `gauntlet inventory`."""

    MD = "md"
    JSON = "json"


@app.command()
def inventory(
    cases: CasesOption = None,
    output_format: Annotated[
        InventoryFormat, typer.Option("--format", help="Markdown table or JSON.")
    ] = InventoryFormat.MD,
    update: Annotated[
        Path | None,
        typer.Option(
            "--update",
            metavar="FILE",
            help="Rewrite the Markdown table between the inventory markers in FILE.",
        ),
    ] = None,
) -> None:
    """Count suites and cases per gate and language, from the suites as loaded."""
    from gauntlet.inventory import (
        render_inventory_json,
        render_inventory_markdown,
        update_file,
    )

    suites = _load(cases)
    if update is not None:
        changed = update_file(update, render_inventory_markdown(suites))
        _stderr().print(f"{update}: {'updated' if changed else 'already up to date'}", markup=False)
        return
    match output_format:
        case InventoryFormat.MD:
            _echo(render_inventory_markdown(suites), nl=False)
        case InventoryFormat.JSON:
            _echo(render_inventory_json(suites), nl=False)


toy_app = typer.Typer(
    help="The Riverbend toy: a deterministic, offline assistant with named defects.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(toy_app, name="toy")


class ToyApi(StrEnum):
    """What `gauntlet toy serve` speaks."""

    GAUNTLET = "gauntlet"
    OPENAI = "openai"


@toy_app.command("serve")
def toy_serve(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = 8765,
    api: Annotated[
        ToyApi,
        typer.Option(
            "--api",
            help="gauntlet: the target contract at POST /. openai: an OpenAI-compatible "
            "POST /v1/chat/completions (streaming or not) and GET /v1/models.",
        ),
    ] = ToyApi.GAUNTLET,
    toy_defects: Annotated[
        list[ToyDefect] | None,
        typer.Option(
            "--toy-defect",
            metavar="NAME",
            help="Inject a named defect (repeatable).",
            show_default=False,
        ),
    ] = None,
    judge: Annotated[
        bool,
        typer.Option(
            "--judge",
            help="Serve the toy judge instead (with --api openai, as model riverbend-toy-judge): "
            "it replies to gauntlet's rubric and pairwise judge prompts about Riverbend.",
        ),
    ] = False,
    judge_defects: Annotated[
        list[JudgeDefect] | None,
        typer.Option(
            "--judge-defect",
            metavar="NAME",
            help="Inject a named defect into the toy judge (repeatable); implies --judge.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the toy on 127.0.0.1 until interrupted: the target contract, or OpenAI's API."""
    from gauntlet.targets.toy import make_toy
    from gauntlet.targets.toy.http import serve

    if judge or judge_defects:
        _serve_toy_judge(port, api, toy_defects, judge_defects or [])
        return
    toy = make_toy(list(dict.fromkeys(toy_defects or [])))
    if api is ToyApi.OPENAI:
        import contextlib

        from gauntlet.targets.toy.openai import serve_forever

        def announce(bound: int) -> None:
            _stderr().print(
                f"serving {toy.name} on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
                "chat completions API (Ctrl-C to stop)",
                markup=False,
            )

        with contextlib.suppress(KeyboardInterrupt):
            serve_forever("127.0.0.1", port, toy, on_ready=announce)
        return
    server = serve("127.0.0.1", port, toy)
    bound = server.server_address[1]
    _stderr().print(
        f"serving {toy.name} on http://127.0.0.1:{bound}/ (Ctrl-C to stop)", markup=False
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _serve_toy_judge(
    port: int, api: ToyApi, toy_defects: list[ToyDefect] | None, defects: list[JudgeDefect]
) -> None:
    """`gauntlet toy serve --judge`: the toy judge as an OpenAI-compatible API."""
    import contextlib

    from gauntlet.judge.toy import MODEL, ToyJudge
    from gauntlet.targets.toy.openai import serve_forever

    if api is not ToyApi.OPENAI:
        raise UsageError("--judge serves the toy judge as OpenAI's API only: add --api openai")
    if toy_defects:
        raise UsageError("--toy-defect is the toy's; give the judge's with --judge-defect")
    judge = ToyJudge(list(dict.fromkeys(defects)))

    def announce(bound: int) -> None:
        _stderr().print(
            f"serving {judge.name} on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
            f"chat completions API, model {MODEL} (Ctrl-C to stop)",
            markup=False,
        )

    with contextlib.suppress(KeyboardInterrupt):
        serve_forever("127.0.0.1", port, judge, on_ready=announce, model=MODEL)


class ReportFormat(StrEnum):
    """Formats of `gauntlet report`."""

    MD = "md"
    JSON = "json"
    JUNIT = "junit"


@app.command()
def report(
    results_path: Annotated[
        Path, typer.Argument(metavar="RESULTS", help="A results file written by gauntlet run.")
    ],
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="PREV",
            help="An earlier results file to compute drift against. A missing file is "
            "reported in the pack, not fatal.",
        ),
    ] = None,
    output_format: Annotated[
        ReportFormat, typer.Option("--format", help="Markdown, the JSON pack, or JUnit XML.")
    ] = ReportFormat.MD,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="PATH", help="Write here (atomically) instead of stdout."),
    ] = None,
    github_output: Annotated[
        Path | None,
        typer.Option(
            "--github-output",
            metavar="FILE",
            help="Append the step outputs (verdict, counts, digest, drift) to FILE, "
            "normally $GITHUB_OUTPUT.",
        ),
    ] = None,
    github_summary: Annotated[
        Path | None,
        typer.Option(
            "--github-summary",
            metavar="FILE",
            help="Append the Markdown report to FILE, normally $GITHUB_STEP_SUMMARY, "
            "truncated with a note past GitHub's size limit.",
        ),
    ] = None,
    github_annotations: Annotated[
        bool,
        typer.Option(
            "--github-annotations",
            help="Print an ::error annotation for each failing, errored or unjudged case, at "
            "its line.",
        ),
    ] = False,
    history: Annotated[
        Path | None,
        typer.Option(
            "--history",
            metavar="FILE",
            help="A run history: add a Trends section judging this run against the comparable "
            "runs before it (the run is added in memory if the history lacks it).",
        ),
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(
            "--window", metavar="N", help="With --history: at most N comparable runs (30)."
        ),
    ] = None,
    z_threshold: Annotated[
        float | None,
        typer.Option(
            "--z",
            metavar="Z",
            help="With --history: flag a pass rate at z <= Z, latency and tokens at z >= -Z "
            "(-1.5).",
        ),
    ] = None,
    compare_on: Annotated[
        str | None,
        typer.Option(
            "--compare-on",
            metavar="LABEL",
            help="With --history: compare only with runs carrying this run's value of LABEL, "
            "such as branch.",
        ),
    ] = None,
) -> None:
    """Build the evidence pack from a results file and render it. Runs nothing.

    Exits 0 when the pack was built, whatever the verdict inside it, and 2 when it could not
    be (a results or baseline file that is unreadable, newer, or inconsistent).
    """
    from gauntlet.evidence.pack import build_pack, pack_json
    from gauntlet.files import write_atomically
    from gauntlet.render.junit import render_junit
    from gauntlet.render.markdown import render_markdown
    from gauntlet.run.results_file import read_results

    if out is not None:
        _replace_out(out, inputs=[results_path, *([baseline] if baseline else [])])
    results = read_results(results_path)
    previous = None
    missing = baseline is not None and not baseline.exists()
    if baseline is not None and not missing:
        previous = read_results(baseline)
    trends = _report_trends(results, history, window, z_threshold, compare_on)
    pack = build_pack(
        results,
        baseline=previous,
        baseline_path=str(baseline) if baseline is not None else None,
        baseline_missing=missing,
        trends=trends,
    )
    match output_format:
        case ReportFormat.MD:
            text = render_markdown(pack)
        case ReportFormat.JSON:
            text = pack_json(pack)
        case ReportFormat.JUNIT:
            text = render_junit(pack)
    if missing:
        _stderr().print(
            f"note: baseline {baseline} does not exist; no drift computed", markup=False
        )
    _github(pack, github_output, github_summary, github_annotations)
    if out is None:
        if github_output or github_summary or github_annotations:
            return  # GitHub's outputs were asked for, not the report on stdout
        _echo(text, nl=False)
        return
    try:
        write_atomically(out, text)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror or exc}") from exc
    _stderr().print(f"wrote {out} ({output_format.value})", markup=False)


def _report_trends(
    results: Results,
    history: Path | None,
    window: int | None,
    z_threshold: float | None,
    compare_on: str | None,
) -> TrendsEvidence | None:
    """The Trends section `report --history` asks for: `results` against the stored runs."""
    from gauntlet.history.stats import DEFAULT_THRESHOLD, DEFAULT_WINDOW
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
    if z_threshold is not None and not z_threshold < 0:
        raise UsageError(f"--z {z_threshold:g}: must be below 0 (a drop in standard deviations)")
    if compare_on is not None and not compare_on.strip():
        raise UsageError("--compare-on: a label name is needed")
    if not history.is_file():
        raise UsageError(f"--history {history}: no such file")
    return report_trends(
        results,
        history,
        load_history=load_history,
        records_of=records_of,
        window=DEFAULT_WINDOW if window is None else window,
        threshold=DEFAULT_THRESHOLD if z_threshold is None else z_threshold,
        compare_on=compare_on,
    )


def _github(pack: EvidencePack, output: Path | None, summary: Path | None, annotate: bool) -> None:
    from gauntlet.files import RefusedFileError, open_for_writing
    from gauntlet.render.github import annotation_commands, github_outputs, job_summary
    from gauntlet.render.markdown import render_markdown

    for path, text in (
        (output, github_outputs(pack) if output else ""),
        (summary, job_summary(render_markdown(pack)) if summary else ""),
    ):
        if path is None:
            continue
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


@app.command()
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
    _replace_out(out, inputs=[judge_file, labels_path])
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
    target = build_target(loaded, concurrency=concurrency, redactor=_Options.redactor)
    _note_unmasked(_Options.redactor)

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

    with ProgressDisplay(_stderr(), quiet=quiet) as progress:
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
    console = _stdout()
    for line in summary_lines(record, reason):
        console.print(line)
    _stderr().print(f"wrote {out}", markup=False)
    raise typer.Exit(ExitCode.PASS if reason is None else ExitCode.GATE_FAILED)


class SchemaName(StrEnum):
    """The JSON Schemas `gauntlet schema` can print."""

    CASES = "cases"
    EVIDENCE = "evidence"
    TARGET = "target"
    WAIVERS = "waivers"


@app.command()
def schema(
    name: Annotated[
        SchemaName,
        typer.Argument(
            help="'cases' for a case file, 'evidence' for an evidence pack, "
            "'target' for a target file, 'waivers' for a waivers file."
        ),
    ],
) -> None:
    """Print a JSON Schema generated from gauntlet's models (for editors and other tools).

    The committed copies are in schemas/; point your editor's YAML language server at
    schemas/cases.schema.json (or target.schema.json) to get completion and checking while you
    write case files (or a target file).
    """
    match name:
        case SchemaName.CASES:
            from gauntlet.cases.model import case_file_schema

            document = case_file_schema()
        case SchemaName.EVIDENCE:
            from gauntlet.evidence.pack import evidence_schema

            document = evidence_schema()
        case SchemaName.TARGET:
            from gauntlet.targets.spec import target_file_schema

            document = target_file_schema()
        case SchemaName.WAIVERS:
            from gauntlet.cases.waivers import waivers_schema

            document = waivers_schema()
    _echo(json.dumps(document, indent=2, ensure_ascii=False))


@app.command()
def site(
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="The directory to write the site to.")
    ] = Path("site"),
    generated: Annotated[
        str | None,
        typer.Option(
            "--generated",
            metavar="YYYY-MM-DD",
            help="A date to print in every page's footer. Without it the build reads no clock, "
            "so the same commit renders byte-identical pages.",
            show_default=False,
        ),
    ] = None,
    cases: CasesOption = None,
    history: Annotated[
        Path | None,
        typer.Option(
            "--history",
            metavar="FILE",
            help="A run history (from `gauntlet run --history` or `gauntlet history add`): "
            "adds a Run history dashboard and a page per stored run.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Build the documentation site: static HTML and one stylesheet, no JavaScript.

    Every page is rendered from what the other commands use: the loaded suites, real runs
    against the toy, the evidence pack's reporter, the California mapping and action.yml.
    With --history, a dashboard of the stored runs too.
    """
    from datetime import date

    from gauntlet.site import build_site

    day = None
    if generated is not None:
        try:
            if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", generated):
                raise ValueError(generated)
            day = date.fromisoformat(generated)
        except ValueError:
            raise UsageError(
                f"--generated {generated!r}: expected a date as YYYY-MM-DD, e.g. 2026-11-30"
            ) from None
    dashboard = None
    if history is not None:
        from gauntlet.site.dashboard import load_dashboard

        dashboard = load_dashboard(history)
    try:
        written = build_site(out, generated=day, cases=cases, dashboard=dashboard)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror or exc}") from exc
    _stderr().print(f"wrote {len(written)} files to {out}", markup=False)


history_app = typer.Typer(
    help="The run history: every run kept in one SQLite file, listed, shown and trended "
    "(see docs/history.md). Exit codes: 0 done; 2 a bad flag, a results file that cannot be "
    "read, or a history file that is not one (or from a newer gauntlet).",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(history_app, name="history")

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
    from gauntlet.history.store import append_run, check_history, parse_labels
    from gauntlet.run.results_file import read_results

    labels = parse_labels(label or [])
    check_history(history)
    read = [(path, read_results(path)) for path in results]
    for path, run in read:
        appended = append_run(history, run, labels)
        said = "added as run" if appended.added else "already stored as run"
        _echo(f"{path}: {said} {appended.number}")


@history_app.command("list")
def history_list(history: HistoryFileOption) -> None:
    """List the stored runs, oldest first.

    One line per run: its number, start (UTC), verdict, target, cases passed and labels.
    """
    from gauntlet.history.store import load_history
    from gauntlet.history.views import list_lines

    for line in list_lines(load_history(history)):
        _echo(line)


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
        _echo(line)


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
        _echo(line)


def _report(error: GauntletError, err: Console) -> None:
    if isinstance(error, ConfigErrors):
        for problem in error.errors:
            # Each part is one line by design; a line break in one came from the input.
            location, message = printable(problem.location), printable(problem.message)
            err.print(Text.assemble((location, "bold"), ": ", message))
            if problem.hint:
                err.print(Text(f"  hint: {printable(problem.hint)}", style="dim"))
        err.print(f"{error}; nothing was run.", markup=False)
    else:
        err.print(f"error: {error}", markup=False)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` and return the exit code instead of exiting."""
    _Options.show_traceback = False
    _Options.redactor = Redactor()
    err = _stderr()
    previous = _terminate_like_interrupt()
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        _check_arguments(args)
        # standalone mode: typer prints usage errors itself and exits 2, as click always has.
        app(args=args, prog_name="gauntlet")
    except SystemExit as done:
        status = _exit_status(done.code)
        if status == _INTERRUPTED:
            # typer turns Ctrl-C outside a run into 130; the contract has 2 for "could not
            # finish" (an interrupted run records itself and exits 2 on its own).
            err.print("interrupted", markup=False)
            return ExitCode.HARNESS_ERROR
        return status
    except GauntletError as error:
        _report(error, err)
        return ExitCode.HARNESS_ERROR
    except Exception as bug:  # noqa: BLE001 - the last line of defence: never a bare traceback
        if _Options.show_traceback:
            err.print(traceback.format_exc(), markup=False)
        err.print(
            f"internal error: {type(bug).__name__}: {bug}\n"
            "  this is a bug in gauntlet; re-run with --traceback and report it",
            markup=False,
        )
        return ExitCode.HARNESS_ERROR
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return ExitCode.PASS


_INTERRUPTED = 130


def _check_arguments(args: Sequence[str]) -> None:
    """Refuse an argument that is not UTF-8 text before it reaches a path, a URL or a file.

    Python hands such bytes over as lone surrogates, which no results file can hold.
    """
    for number, arg in enumerate(args, start=1):
        if unencodable(arg) is not None:
            raise UsageError(f"argument {number} ('{printable(arg)}') is not valid UTF-8")


def _terminate_like_interrupt() -> Any:
    """Make SIGTERM end the command as Ctrl-C does (exit 2, "interrupted"), whatever it is doing.

    By default SIGTERM kills the process at once, with no word and exit 143: a cancelled CI job
    loading a large suite would leave nothing behind that says why. While a run asks its
    target, the engine catches both signals itself and records the run as interrupted. Returns
    the handler to put back, or `None` off the main thread (where no handler can be set).
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt


def _exit_status(code: object) -> int:
    if code is None:
        return ExitCode.PASS
    if isinstance(code, int):
        return code
    _stderr().print(str(code), markup=False)  # pragma: no cover - typer exits with ints
    return ExitCode.HARNESS_ERROR  # pragma: no cover


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())
