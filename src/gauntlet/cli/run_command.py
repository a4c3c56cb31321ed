"""`gauntlet run` and `gauntlet merge`: options parsed, the target built, the run executed."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gauntlet.cli.console import stderr, stdout
from gauntlet.cli.options import (
    CasesOption,
    EmbedderCalibrationOption,
    EmbedderOption,
    ExcludeGateOption,
    GateOption,
    HeaderOption,
    HistoryOption,
    JudgeMinItemsOption,
    JudgeMinKappaOption,
    LabelOption,
    OldJudgeLabelsOption,
    RetriesOption,
    SuiteChoiceOption,
    SuiteSettingOption,
    TargetFileOption,
    TimeoutOption,
    WaiversOption,
    named_options,
    refuse_old_judge_labels,
    replace_out,
)
from gauntlet.cli.state import Invocation
from gauntlet.cli.validate import (
    load_cases,
    load_waivers_for,
)
from gauntlet.defaults import (
    DEFAULT_CONCURRENCY,
    MAX_REPEAT,
)
from gauntlet.errors import UsageError
from gauntlet.targets.toy.defects import ToyDefect
from gauntlet.words import plural

if TYPE_CHECKING:
    from gauntlet.cases.loader import SuiteSet
    from gauntlet.run.results import Results, Shard, TargetInfo
    from gauntlet.run.settings import Judge, RunSettings
    from gauntlet.semantic.check import Similarity
    from gauntlet.targets.build import BuiltTarget
    from gauntlet.targets.http import Header


def run_command(
    cases: CasesOption = None,
    suite: SuiteChoiceOption = None,
    gate: GateOption = None,
    exclude_gate: ExcludeGateOption = None,
    suite_option: SuiteSettingOption = None,
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
    timeout: TimeoutOption = None,
    retries: RetriesOption = None,
    header: HeaderOption = None,
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
    judge_labels: Annotated[
        list[Path] | None,
        typer.Option(
            "--judge-labels",
            metavar="DIR",
            help="A labelled set the calibration may have been made on, besides the one "
            "gauntlet ships (repeatable).",
            show_default=False,
        ),
    ] = None,
    min_kappa: JudgeMinKappaOption = 0.7,
    min_items: JudgeMinItemsOption = 30,
    embedder: EmbedderOption = None,
    embedder_calibration: EmbedderCalibrationOption = None,
    waivers: WaiversOption = None,
    strict_waivers: Annotated[
        bool,
        typer.Option(
            "--strict-waivers",
            help="Fail the run (exit 1) when a live waiver is no longer needed: every case "
            "it covers passed.",
        ),
    ] = False,
    no_transforms: Annotated[
        bool,
        typer.Option(
            "--no-transforms",
            help="Ask the cases as written, without the variants their suites' `transforms:` "
            "derive: a quick local run (the built-in suites: 112 cases, not 684). Not the "
            "gate a merge needs; the results and the evidence pack record it.",
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress, only the summary.")
    ] = False,
    history: HistoryOption = None,
    label: LabelOption = None,
    old_labels: OldJudgeLabelsOption = None,
) -> None:
    """Ask the target every case, score the answers, write the results file, exit 0/1/2/4.

    With no target and no --cases, runs the built-in suites against the Riverbend toy;
    --suite, --gate and --exclude-gate choose among suites, built-in or not. Exit
    codes: 0 every gate passed; 1 a gate failed; 2 the run could not run or finish (cases
    that got no answer, or an interruption, withhold the verdict); 4 unscoreable.
    """
    refuse_old_judge_labels(old_labels)
    _run(
        RunRequest(
            cases=cases,
            choice=SuiteChoice(
                suites=suite or [],
                gates=gate or [],
                excluded=exclude_gate or [],
                options=suite_option or [],
            ),
            target=TargetRequest(
                target_file=target_file,
                http_url=http_url,
                callable_spec=callable_spec,
                toy=toy,
                toy_defects=toy_defects,
                header=header,
                timeout=timeout,
                retries=retries,
            ),
            out=out,
            concurrency=concurrency,
            repeat=repeat,
            shard=shard,
            run_id=run_id,
            resume=resume,
            judge_file=judge_file,
            calibration=calibration,
            judge_labels=judge_labels,
            min_kappa=min_kappa,
            min_items=min_items,
            embedder=embedder,
            embedder_calibration=embedder_calibration,
            waivers=waivers,
            strict_waivers=strict_waivers,
            no_transforms=no_transforms,
            quiet=quiet,
            history=history,
            label=label,
        )
    )


@dataclass(frozen=True, kw_only=True)
class TargetRequest:
    """What `gauntlet run` says about the target, as given."""

    target_file: Path | None
    http_url: str | None
    callable_spec: str | None
    toy: bool
    toy_defects: list[ToyDefect] | None
    header: list[str] | None
    timeout: float | None
    retries: int | None


@dataclass(frozen=True, kw_only=True)
class SuiteChoice:
    """Which suites `gauntlet run` loads, and the suite options it sets, as given."""

    suites: list[str]
    gates: list[str]
    excluded: list[str]
    options: list[str]

    @property
    def names_files(self) -> bool:
        """A `--suite` names a case file of the user's, which needs a target as --cases does."""
        from gauntlet.cases.builtin import BUILTIN_PREFIX
        from gauntlet.cases.select import builtin_files

        builtin = builtin_files()
        return any(
            not name.startswith(BUILTIN_PREFIX) and name not in builtin for name in self.suites
        )


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """`gauntlet run`'s options, as given (see `run_command` for each)."""

    cases: list[Path] | None
    choice: SuiteChoice
    target: TargetRequest
    out: Path
    concurrency: int
    repeat: int
    shard: str | None
    run_id: str | None
    resume: bool
    judge_file: Path | None
    calibration: Path | None
    judge_labels: list[Path] | None
    min_kappa: float
    min_items: int
    embedder: str | None
    embedder_calibration: Path | None
    waivers: Path | None
    strict_waivers: bool
    no_transforms: bool
    quiet: bool
    history: Path | None
    label: list[str] | None


# ---------------------------------------------------------------- the target, one of four


@dataclass(frozen=True, kw_only=True)
class HttpOptions:
    """What an HTTP target is asked with besides its own settings: headers, deadline, retries."""

    headers: tuple[Header, ...]
    """The `--header`s, read (their `${VAR}`s from the environment)."""
    timeout: float | None
    retries: int | None


@dataclass(frozen=True)
class FileChoice:
    """`--target FILE`: a target file of any kind."""

    path: Path
    http: HttpOptions


@dataclass(frozen=True)
class UrlChoice:
    """`--http-url URL`: a feature that speaks gauntlet's own contract over HTTP."""

    url: str
    http: HttpOptions


@dataclass(frozen=True)
class CallableChoice:
    """`--callable MODULE:FACTORY`: a Python target."""

    spec: str


@dataclass(frozen=True)
class ToyChoice:
    """`--toy` or `--toy-defect` (or no target at all): the built-in Riverbend toy."""

    defects: tuple[ToyDefect, ...]


TargetChoice = FileChoice | UrlChoice | CallableChoice | ToyChoice
"""The one target `gauntlet run`'s flags name, checked together (`parse_target`)."""


# ---------------------------------------------------------------- parse, build, execute


@dataclass(frozen=True, kw_only=True)
class ParsedRun:
    """`gauntlet run`'s options checked on their own, before any file is read but the history."""

    request: RunRequest
    target: TargetChoice
    shard: Shard | None
    history_labels: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class BuiltRun:
    """What `gauntlet run` runs: the suites, the target ready to ask, and the run's settings."""

    suites: SuiteSet
    target: BuiltTarget
    settings: RunSettings


def _run(request: RunRequest) -> None:
    """Parse the options, build the run, execute it: run, write, summarise and exit."""
    parsed = _parse(request)
    _execute(parsed, _build(parsed))


def _parse(request: RunRequest) -> ParsedRun:
    """Check the options alone and together; nothing is built or asked yet.

    Raises:
        UsageError: a bad option, or options that do not go together.
        HistoryError: the history could not be appended to.
    """
    if request.embedder_calibration is not None and request.embedder is None:
        raise UsageError(
            "--embedder-calibration is for an embedder: give --embedder builtin (or a target "
            "file of kind openai-embeddings)"
        )
    inputs = (
        request.target.target_file,
        request.judge_file,
        request.calibration,
        request.embedder_calibration,
    )
    given = [*(request.cases or ()), *(path for path in (*inputs, request.waivers) if path)]
    replace_out(request.out, inputs=given)
    shard = _parse_shard(request.shard)
    _check_run_id(request.run_id)
    history_labels = _history_labels(request.history, request.label)
    needs_target = "--cases" if request.cases else None
    if needs_target is None and request.choice.names_files:
        needs_target = "--suite PATH"
    target = parse_target(request.target, needs_target)
    return ParsedRun(request=request, target=target, shard=shard, history_labels=history_labels)


def _build(parsed: ParsedRun) -> BuiltRun:
    """The target, the suites, their waivers and plan, the judge: the run's settings, built once.

    Raises:
        UsageError: options that do not fit the suites, or a judge's flags without a judge.
        ConfigErrors: a case, waivers or judge file does not load.
    """
    from gauntlet.run.schedule import plan_of
    from gauntlet.run.settings import RunSettings, judge_seed

    request, shard = parsed.request, parsed.shard
    built = build_target(parsed.target, request.concurrency)
    info = _target_info(built)
    suites = _load_suites(request.cases, request.choice)
    if request.strict_waivers and request.waivers is None:
        raise UsageError("--strict-waivers is for a run with waivers: give --waivers FILE")
    # Waivers are checked against the suites as loaded: one for a variant is no mistake in a
    # run that leaves the variants out (it covers no case of it, as in a shard without it).
    waived = load_waivers_for(request.waivers, suites)
    if request.no_transforms:
        from gauntlet.cases.variants import without_variants

        suites = without_variants(suites)
    if shard is not None and shard.count > suites.case_total:
        total = suites.case_total
        raise UsageError(
            f"--shard {shard.index}/{shard.count}: {shard.count} shards for "
            f"{plural(total, 'case')}, so a shard would hold none; split the run "
            f"at most {total} ways"
        )
    plan = plan_of(suites, repeat=request.repeat, no_transforms=request.no_transforms)
    settings = RunSettings(
        plan=plan,
        target=info,
        shard=shard,
        judge=_build_judge(request, judge_seed(request.run_id, plan)),
        similarity=_open_similarity(request),
        run_id=request.run_id,
        waivers=tuple(waived),
        strict_waivers=request.strict_waivers,
        no_transforms=request.no_transforms,
        concurrency=request.concurrency,
        redactor=Invocation.redactor,
    )
    return BuiltRun(suites=suites, target=built, settings=settings)


def _build_judge(request: RunRequest, seed: str) -> Judge | None:
    """The model judge `--judge` names, seeded for the run; None without `--judge`.

    Raises:
        UsageError: `--calibration` or `--judge-labels` without `--judge`, or a bad threshold.
        ConfigErrors: the judge file or a labels directory is refused.
    """
    if request.judge_file is None:
        if request.calibration is not None or request.judge_labels:
            raise UsageError(
                "--calibration and --judge-labels are for a model judge: give --judge FILE"
            )
        return None
    from gauntlet.run.judge_setup import JudgeRequest, prepare_judge

    judge = JudgeRequest(
        judge_file=request.judge_file,
        calibration=request.calibration,
        labels=request.judge_labels or (),
        min_kappa=request.min_kappa,
        min_items=request.min_items,
    )
    return prepare_judge(
        judge, seed=seed, concurrency=request.concurrency, redactor=Invocation.redactor
    )


def _open_similarity(request: RunRequest) -> Similarity | None:
    """The similarity `--embedder` names, its embedder opened; None without `--embedder`.

    Without `--embedder-calibration` it may gate nothing, and the run says so before it asks.

    Raises:
        UsageError, ConfigError: as `gauntlet.semantic.setup.open_similarity`.
        EmbedderError: the embedder cannot be loaded or reached (its pre-flight ask).
    """
    if request.embedder is None:
        return None
    import asyncio

    from gauntlet.semantic.setup import open_similarity

    spec = request.embedder

    async def opened() -> Similarity:
        similarity = await open_similarity(
            spec, request.embedder_calibration, redactor=Invocation.redactor
        )
        if similarity.embeddings is not None:
            # Its connections belong to this loop, which ends here; the run's loop opens its
            # own on first use (and the engine lets go of them as it ends).
            await similarity.embeddings.embedder.aclose()
        return similarity

    with named_options(embedder="--embedder", embedder_calibration="--embedder-calibration"):
        similarity = asyncio.run(opened())
    if similarity.refused is not None:
        stderr().print(
            f"similarity: {similarity.refused}; every similarity check will be unjudged",
            markup=False,
            style="yellow",
        )
    return similarity


def _close_similarity(settings: RunSettings) -> None:
    """Let go of the embedder `--embedder` opened, once the run is over (or never began)."""
    embeddings = settings.similarity.embeddings if settings.similarity is not None else None
    if embeddings is not None:
        import asyncio

        asyncio.run(embeddings.embedder.aclose())


def _execute(parsed: ParsedRun, built: BuiltRun) -> None:
    """Run, journalled beside the results; write them, summarise, keep the history, and exit."""
    from gauntlet.cli.collector import young_only_while_running
    from gauntlet.render.console import ProgressDisplay, TimeoutHintSettings, summary_lines
    from gauntlet.run.engine import run_gauntlet
    from gauntlet.run.journal import Journal, journal_path
    from gauntlet.run.results import exit_code_for
    from gauntlet.run.results_file import write_results

    request, settings = parsed.request, built.settings
    journal = Journal(journal_path(request.out), resume=request.resume)
    finished = False
    try:
        with (
            young_only_while_running(),
            ProgressDisplay(stderr(), quiet=request.quiet) as progress,
        ):
            results = run_gauntlet(
                built.suites, built.target.target, settings, progress=progress, journal=journal
            )
        write_results(results, request.out)
        finished = results.complete
    finally:
        # The journal goes only once the results file holds every case: an interrupted run
        # keeps it, so --resume continues where it stopped.
        journal.close(remove=finished)
        _close_similarity(settings)
    console = stdout()
    hint = TimeoutHintSettings(
        concurrency=settings.concurrency,
        timeout=built.target.timeout,
        max_tokens=built.target.max_tokens,
        asks_tokens=built.target.kind == "openai-chat",
    )
    for line in summary_lines(results, results_path=str(request.out), settings=hint):
        console.print(line)
    if request.history is not None:
        _append_to_history(request.history, results, parsed.history_labels)
    raise typer.Exit(exit_code_for(results.verdict))


def _load_suites(cases: list[Path] | None, choice: SuiteChoice) -> SuiteSet:
    """The suites `--cases`, `--suite`, `--gate` and `--exclude-gate` choose, options applied.

    Raises:
        UsageError: a name that chooses nothing, a choice of no suite, or a bad option.
        ConfigErrors: a case file does not load.
    """
    from gauntlet.cases.select import apply_suite_options, select_suites
    from gauntlet.cli.collector import paused_while_loading

    with (
        paused_while_loading(),
        named_options(
            suites="--suite", gates="--gate", excluded="--exclude-gate", options="--suite-option"
        ),
    ):
        chosen = select_suites(
            cases,
            suites=choice.suites,
            gates=choice.gates,
            excluded=choice.excluded,
            load=load_cases,
        )
        return apply_suite_options(chosen, choice.options)


def parse_target(request: TargetRequest, needs_target: str | None) -> TargetChoice:
    """Which target the flags name; each `--header` read (its `${VAR}`s from the environment).

    Raises:
        UsageError: a bad `--header`, or flags that do not go together.
    """
    from gauntlet.targets.http import parse_header

    with named_options(header="--header"):
        headers = tuple(parse_header(spec, os.environ) for spec in request.header or [])
    if headers and request.http_url is None and request.target_file is None:
        raise UsageError("--header is for HTTP targets (--target, --http-url)")
    toy = request.toy or bool(request.toy_defects)
    chosen = [
        flag
        for flag, given in (
            ("--target", request.target_file is not None),
            ("--http-url", request.http_url is not None),
            ("--callable", request.callable_spec is not None),
            ("--toy/--toy-defect", toy),
        )
        if given
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one target, not {' and '.join(chosen)}")
    http = HttpOptions(headers=headers, timeout=request.timeout, retries=request.retries)
    if request.target_file is not None:
        return FileChoice(request.target_file, http)
    if request.http_url is not None:
        return UrlChoice(request.http_url, http)
    if request.timeout is not None or request.retries is not None:
        raise UsageError("--timeout and --retries are for HTTP targets (--target, --http-url)")
    if request.callable_spec is not None:
        return CallableChoice(request.callable_spec)
    if needs_target and not chosen:
        raise UsageError(
            f"{needs_target} needs a target: --target FILE, --http-url URL or --callable "
            "MODULE:FACTORY (a verdict on the toy is not a verdict on your feature; --toy "
            "runs it on purpose)"
        )
    return ToyChoice(tuple(request.toy_defects or ()))


def build_target(choice: TargetChoice, concurrency: int) -> BuiltTarget:
    """The target `choice` names, its secrets taught to the redactor that masks every line."""
    from gauntlet.targets.build import (
        build_callable_target,
        build_file_target,
        build_gauntlet_target,
        build_toy_target,
    )

    redactor = Invocation.redactor
    match choice:
        case FileChoice(path, http):
            with named_options(extra_headers="--header"):
                return build_file_target(
                    path,
                    timeout=http.timeout,
                    retries=http.retries,
                    concurrency=concurrency,
                    redactor=redactor,
                    headers=http.headers,
                )
        case UrlChoice(url, http):
            with named_options(url="--http-url", headers="--header"):
                return build_gauntlet_target(
                    url,
                    http.headers,
                    timeout=http.timeout,
                    retries=http.retries,
                    concurrency=concurrency,
                    redactor=redactor,
                )
        case CallableChoice(spec):
            with named_options(spec="--callable"):
                return build_callable_target(spec, concurrency=concurrency)
        case ToyChoice(defects):
            return build_toy_target(defects, concurrency=concurrency)


def _target_info(built: BuiltTarget) -> TargetInfo:
    """How the results record the target: by the kind it was built as, one word throughout."""
    from gauntlet.run.results import TargetInfo

    return TargetInfo(
        kind=built.kind, name=built.name, defects=built.defects, target_file=built.target_file
    )


def _history_labels(history: Path | None, labels: list[str] | None) -> dict[str, str]:
    """The run's `--label`s, checked, and its `--history` file checked before anything is asked.

    Raises:
        UsageError: a bad label, or labels without a history to keep them.
        HistoryError: the history could not be appended to.
    """
    if history is None and not labels:
        return {}  # nothing to check: the store is not even imported
    from gauntlet.history.store import check_history, parse_labels

    with named_options(labels="--label"):
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
    stderr().print(f"history: {said} {appended.number} in {history}", markup=False)


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

    replace_out(out, inputs=shards)
    merged = merge_shards([(str(path), read_results(path)) for path in shards])
    write_results(merged, out)
    console = stdout()
    for line in summary_lines(merged, results_path=str(out)):
        console.print(line)
    raise typer.Exit(exit_code_for(merged.verdict))
