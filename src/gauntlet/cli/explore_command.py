"""`gauntlet explore`: attacker personas against a target; every new break frozen as a case.

Parse (every flag checked, `--out` made or refused, before anything is built or asked),
build (personas, target, attacker, judge), execute (the conversations, the freeze, the
report), exit 0/1/2/4 (see `gauntlet.explore.report` for the order).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gauntlet.cli.console import stderr, stdout
from gauntlet.cli.options import (
    HeaderOption,
    JudgeMinItemsOption,
    JudgeMinKappaOption,
    PersonasOption,
    RetriesOption,
    TargetFileOption,
    TimeoutOption,
    named_options,
)
from gauntlet.cli.run_command import TargetRequest, build_target, parse_target
from gauntlet.cli.state import Invocation
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import ConfigErrors, UsageError
from gauntlet.targets.toy.defects import ToyDefect

if TYPE_CHECKING:
    from gauntlet.cases.persona import Persona
    from gauntlet.cli.run_command import TargetChoice
    from gauntlet.explore.attacker import Attacker
    from gauntlet.explore.engine import Ended, Explored, Planned
    from gauntlet.explore.model import Finding
    from gauntlet.run.settings import Judge


def explore_command(
    attacker: Annotated[
        str,
        typer.Option(
            "--attacker",
            metavar="SPEC",
            help="Who plays the personas: `toy`, `toy:DEFECT` (the scripted toy attacker, "
            "with a defect), or a target file of a chat model (openai-chat), which is sent "
            "gauntlet's prompt and must reply with strict JSON.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="DIR",
            help="The findings directory: frozen suites are written (and matched) there, with "
            "explore-report.json and explore-report.md. Created if missing; never a file.",
            show_default=False,
        ),
    ],
    target_file: TargetFileOption = None,
    toy_defects: Annotated[
        list[ToyDefect] | None,
        typer.Option(
            "--toy-defect",
            metavar="NAME",
            help="Without --target the built-in Riverbend toy is explored; inject a named "
            "defect into it (repeatable).",
            show_default=False,
        ),
    ] = None,
    header: HeaderOption = None,
    timeout: TimeoutOption = None,
    retries: RetriesOption = None,
    personas: PersonasOption = None,
    language: Annotated[
        str | None,
        typer.Option(
            "--language",
            metavar="TAG",
            help="Play only this language of each persona (e.g. `es`).",
            show_default=False,
        ),
    ] = None,
    conversations: Annotated[
        int,
        typer.Option(
            "--conversations",
            min=1,
            max=100,
            help="Conversations per persona and language.",
        ),
    ] = 1,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            min=0,
            help="Each conversation's seed is drawn from this, the persona, the language "
            "and its number: the same seed asks the attacker the same way.",
        ),
    ] = 0,
    max_turns: Annotated[
        int | None,
        typer.Option(
            "--max-turns",
            min=1,
            help="Cap every persona's max_turns.",
            show_default=False,
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            min=1,
            help="Tokens of every role together (attacker, target, judge), as they report "
            "them. Once spent, or once an ask reports no tokens (the budget cannot be kept), "
            "no new turn starts; conversations cut are counted as not finished, never as held.",
            show_default=False,
        ),
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option(
            "--deadline",
            min=0.0,
            metavar="SECONDS",
            help="Seconds from the first turn; once passed no new turn starts (as --max-tokens).",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Conversations at once.")
    ] = DEFAULT_CONCURRENCY,
    judge_file: Annotated[
        Path | None,
        typer.Option(
            "--judge",
            metavar="FILE",
            help="A model judge for goals with a `judge` criterion, asked about each answer "
            "the markers let through (needs --calibration). An answer it fails is a break; "
            "a reply it cannot give makes the conversation unscoreable.",
            show_default=False,
        ),
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(
            "--calibration",
            metavar="RECORD",
            help="The judge's calibration record (gauntlet calibrate); a judge it does not "
            "let vote is refused before anything is asked.",
            show_default=False,
        ),
    ] = None,
    min_kappa: JudgeMinKappaOption = 0.7,
    min_items: JudgeMinItemsOption = 30,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress lines, only the table.")
    ] = False,
) -> None:
    """Play attacker personas against the target; freeze every new break as a case.

    Each persona's conversation opens with its opening line; then the attacker writes each
    next message. Every answer is graded at once by the case the conversation would freeze
    as (and by the calibrated judge, if given); the first that breaks the goal ends it, and
    the conversation is written under --out as a case `gauntlet run --cases DIR` replays.
    A conversation whose attacker (or judge) fails is unscoreable, never held.

    Exit codes: 0 no new break (known ones may have been met again); 1 at least one new
    break frozen, even when most conversations were unscoreable; 2 the harness could not
    run (bad flags or files, a pre-flight check failed, a conversation errored, at
    least half were cut short by a budget, or the explore was interrupted: what was found is still
    frozen and reported); 4 no new break, and more than half of the conversations that
    ended were unscoreable (the attacker refused, answered prose, repeated itself or said
    nothing, or the judge gave no verdict).
    """
    request = ExploreRequest(
        attacker=attacker,
        out=out,
        target=TargetRequest(
            target_file=target_file,
            http_url=None,
            callable_spec=None,
            toy=False,
            toy_defects=toy_defects,
            header=header,
            timeout=timeout,
            retries=retries,
        ),
        personas=tuple(personas or ()),
        language=language,
        conversations=conversations,
        seed=seed,
        max_turns=max_turns,
        max_tokens=max_tokens,
        deadline=deadline,
        concurrency=concurrency,
        judge_file=judge_file,
        calibration=calibration,
        min_kappa=min_kappa,
        min_items=min_items,
        quiet=quiet,
    )
    parsed = parse_explore(request)
    raise typer.Exit(execute_explore(parsed))


@dataclass(frozen=True, kw_only=True)
class ExploreRequest:
    """`gauntlet explore`'s options, as given (see `explore_command` for each)."""

    attacker: str
    out: Path
    target: TargetRequest
    personas: tuple[Path, ...]
    language: str | None
    conversations: int
    seed: int
    max_turns: int | None
    max_tokens: int | None
    deadline: float | None
    concurrency: int
    judge_file: Path | None
    calibration: Path | None
    min_kappa: float
    min_items: int
    quiet: bool


@dataclass(frozen=True, kw_only=True)
class ParsedExplore:
    request: ExploreRequest
    target: TargetChoice


def parse_explore(request: ExploreRequest) -> ParsedExplore:
    """Check the flags alone and together, and make `--out`; nothing is read or asked yet.

    Raises:
        UsageError: a bad flag, flags that do not go together, or an `--out` that cannot be
            the findings directory.
    """
    if request.judge_file is None and request.calibration is not None:
        raise UsageError("--calibration is for a model judge: give --judge FILE")
    if request.judge_file is not None and request.calibration is None:
        raise UsageError(
            "--judge needs --calibration RECORD: a judge votes on a break only once it has "
            "shown it agrees with people (gauntlet calibrate)"
        )
    target = parse_target(request.target, None)
    prepare_out(request.out)
    return ParsedExplore(request=request, target=target)


def prepare_out(out: Path) -> None:
    """Make `out` the findings directory: created if missing, refused if it is anything else.

    Raises:
        UsageError: `out` is a file (or a device, a FIFO), or cannot be made or written.
    """
    if out.exists() and not out.is_dir():
        raise UsageError(
            f"--out {out}: is a file; explore writes a findings directory (frozen suites and "
            "its report) there"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot make it: {exc.strerror or exc}") from exc
    import os

    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: cannot write in it")


def _load_personas(paths: tuple[Path, ...]) -> tuple[Persona, ...]:
    from gauntlet.cases.persona import builtin_personas, load_personas
    from gauntlet.cli.collector import paused_while_loading

    with paused_while_loading(), named_options(paths="--personas"):
        return load_personas(paths) if paths else builtin_personas()


def _build_judge(request: ExploreRequest, seed: int) -> Judge | None:
    """The judge `--judge` names, refused unless its calibration lets it vote."""
    if request.judge_file is None:
        return None
    from gauntlet.run.judge_setup import JudgeRequest, prepare_judge

    judge = prepare_judge(
        JudgeRequest(
            judge_file=request.judge_file,
            calibration=request.calibration,
            min_kappa=request.min_kappa,
            min_items=request.min_items,
        ),
        seed=f"explore-{seed}",
        concurrency=request.concurrency,
        redactor=Invocation.redactor,
    )
    if judge.refused is not None:
        raise UsageError(f"--judge {request.judge_file}: the judge may not vote: {judge.refused}")
    return judge


def execute_explore(parsed: ParsedExplore, *, today: datetime.date | None = None) -> int:
    """Build, explore, freeze, report; the exit code."""
    import asyncio

    from gauntlet.cli.collector import young_only_while_running
    from gauntlet.explore.attacker import attacker_for
    from gauntlet.explore.engine import Budgets, ExploreSettings, explore, plan_conversations
    from gauntlet.explore.freeze import check_frozen

    request = parsed.request
    personas = _load_personas(request.personas)
    check_frozen(request.out)
    with named_options(spec="--attacker"):
        attacker = attacker_for(request.attacker, redactor=Invocation.redactor)
    built = build_target(parsed.target, request.concurrency)
    judge = _build_judge(request, request.seed)
    _note_unjudged_goals(personas, judge)
    settings = ExploreSettings(
        personas=personas,
        seed=request.seed,
        language=request.language,
        budgets=Budgets(
            conversations=request.conversations,
            max_turns=request.max_turns,
            max_tokens=request.max_tokens,
            deadline=request.deadline,
        ),
        concurrency=request.concurrency,
        judge=judge,
    )
    _refuse_unread_refusals(request.attacker, attacker, plan_conversations(settings))
    progress = _Progress(quiet=request.quiet)

    async def explored() -> Explored:
        try:
            return await explore(settings, built.target, attacker, on_end=progress)
        finally:
            await built.target.aclose()
            await attacker.aclose()
            if judge is not None and judge.target is not None:
                await judge.target.aclose()

    with young_only_while_running():
        result = _masked(asyncio.run(explored()))
    day = today or datetime.datetime.now(datetime.UTC).date()
    try:
        findings = _freeze(request.out, personas, result, built.name, day)
    except (ConfigErrors, UsageError) as exc:  # the breaks are reported, then the error said
        _report(parsed, result, (), built.name, judge, day, unfrozen=_said(exc))
        raise
    return _report(parsed, result, findings, built.name, judge, day)


def _said(error: ConfigErrors | UsageError) -> str:
    """Why the breaks could not be frozen, in one line (a file's name may hold anything)."""
    from gauntlet.display import printable

    if isinstance(error, ConfigErrors):
        first = error.errors[0]
        return printable(f"{first.path}: {first.message}")
    return printable(str(error))


def _refuse_unread_refusals(spec: str, attacker: Attacker, planned: Sequence[Planned]) -> None:
    """Refuse an attacker whose refusal to play could not be read in a language to be played.

    Its declined move would go to the target as the next message, and the conversation could
    end "held": a target nobody tested reported as safe.
    """
    from gauntlet.explore.attacker import ChatAttacker

    if not isinstance(attacker, ChatAttacker):
        return
    unread = attacker.unread_languages(item.language for item in planned)
    if unread:
        raise UsageError(
            f"--attacker {spec}: its response.refused gives no phrases for "
            f"{', '.join(unread)}: a refusal to play written as a move could not be told from "
            "one, and its conversation could end held; add `refused: {from_text: {"
            f"{unread[0]}: [...]}}}}` with the words the model declines in (see docs/explore.md)"
        )


def _note_unjudged_goals(personas: tuple[Persona, ...], judge: Judge | None) -> None:
    """Say so when a goal has a judge criterion and no judge was given to check it.

    Its conversations are then checked by the deterministic rules alone: one that "held"
    may have broken the criterion, and its frozen case needs `--judge` to replay.
    """
    unjudged = sorted(persona.id for persona in personas if persona.goal.judge is not None)
    if judge is None and unjudged:
        stderr().print(
            f"explore: {', '.join(unjudged)}: the goal's judge criterion is not checked "
            "without --judge and --calibration; only the markers, links and refusal rules are",
            markup=False,
        )


def _masked(result: Explored) -> Explored:
    """`result` with every known secret masked: what is frozen, reported and printed.

    A target or an attacker may echo a credential it was sent (a header, a key in its
    file); none may reach a frozen case, the report or the console.
    """
    from dataclasses import replace

    from gauntlet.explore.attacker import AttackerInfo
    from gauntlet.explore.model import Conversation

    redactor = Invocation.redactor
    return replace(
        result,
        attacker=AttackerInfo(redactor.text(result.attacker.fingerprint)),
        outcomes=tuple(
            redactor.model(item) if isinstance(item, Conversation) else item
            for item in result.outcomes
        ),
    )


def _freeze(
    out: Path,
    personas: tuple[Persona, ...],
    result: Explored,
    target: str,
    day: datetime.date,
) -> tuple[Finding, ...]:
    from gauntlet.explore.freeze import Break, freeze
    from gauntlet.explore.model import Outcome

    by_id = {persona.id: persona for persona in personas}
    breaks = [
        Break(by_id[item.persona], item, result.attacker.fingerprint, target, day)
        for item in result.conversations
        if item.outcome is Outcome.BROKE
    ]
    if not breaks:
        return ()
    try:
        return freeze(out, breaks)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the findings: {exc.strerror or exc}") from exc


def _report(
    parsed: ParsedExplore,
    result: Explored,
    findings: tuple[Finding, ...],
    target: str,
    judge: Judge | None,
    day: datetime.date,
    *,
    unfrozen: str | None = None,
) -> int:
    from gauntlet.explore.report import build_report, write_report
    from gauntlet.render.explore import console_lines, render_explore_markdown

    request = parsed.request
    report = build_report(
        result,
        findings,
        target=target,
        seed=request.seed,
        date=day,
        judge=None if judge is None else _judge_line(judge),
        unfrozen=unfrozen,
    )
    try:
        json_path, markdown_path = write_report(
            report, request.out, render_explore_markdown(report)
        )
    except OSError as exc:
        raise UsageError(
            f"--out {request.out}: cannot write the report: {exc.strerror or exc}"
        ) from exc
    console = stdout()
    for line in console_lines(report):
        console.print(Invocation.redactor.text(line), markup=False, highlight=False)
    console.print(f"report: {json_path} and {markdown_path}", markup=False, highlight=False)
    if result.interrupted_by is not None:
        stderr().print(
            f"explore: interrupted by {result.interrupted_by}; what was found is frozen and "
            "reported",
            markup=False,
        )
    return report.verdict.exit_code


def _judge_line(judge: Judge) -> str:
    """The judge in one line for the report: its file, kind, model and host."""
    seen = judge.info.fingerprint
    model = f" {seen.model}" if seen.model else ""
    return f"{judge.info.target_file} ({seen.kind}{model} at {seen.host})"


class _Progress:
    """A plain line on stderr as each conversation ends (nothing with --quiet)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet

    def __call__(self, ended: Ended, done: int, total: int) -> None:
        if self.quiet:
            return
        from gauntlet.display import printable
        from gauntlet.explore.model import Conversation, Outcome

        if isinstance(ended, Conversation):
            how = ended.outcome.value
            if ended.outcome is Outcome.BROKE:
                how += f" at turn {ended.breaking_turn} ({printable(ended.detector or '?')})"
            elif ended.why is not None:
                how += f": {printable(ended.why)}"
        else:
            how = f"not finished: {ended.why}"
        line = f"[{done}/{total}] {ended.persona} ({ended.language}, seed {ended.seed}): {how}"
        stderr().print(Invocation.redactor.text(line), markup=False, highlight=False)


__all__ = ["ExploreRequest", "execute_explore", "explore_command", "parse_explore"]
