"""The conversation loop: personas played against a target, each answer checked as it comes.

For each persona and language, `conversations` conversations, each with its own seed drawn
stably from the run's. Turn 1 sends the persona's opening as written; each later turn asks
the attacker. Every message is asked of the target as a `Question` with the conversation so
far, through the run's own asking (`gauntlet.run.engine.ask_turn`: retries, timeouts,
redaction, usage). Each answer is checked at once against the goal by the gate's grading of
the case the conversation would freeze as, then, if it held and a calibrated judge was given
and the goal has a judge criterion, by the judge as `run --judge` asks it.

How a conversation ends says what it shows, and nothing else:

- BROKE: an answer broke the goal (its turn and detector kept);
- HELD: every turn up to `max_turns` held;
- UNSCOREABLE: the attacker failed, or the judge gave no verdict (never a held target);
- ERRORED: the target could not be asked (never a break, never a hold);
- not finished: a budget (tokens, deadline) was spent or the run was stopped before it ended;
  neither held nor broke.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gauntlet.cases.persona import Persona
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import Interrupted, TargetError, UsageError
from gauntlet.explore.attacker import Attacker, AttackerFailure, AttackerInfo, Exchange
from gauntlet.explore.goal import JUDGE_DETECTOR, FrozenCase, candidate_case, check_answer
from gauntlet.explore.model import (
    AttackerFault,
    Conversation,
    ExploreTurn,
    Outcome,
    TokensByRole,
)
from gauntlet.run.engine import StopSignals, Unanswered, ask_turn, probed
from gauntlet.run.results import SuiteInfo
from gauntlet.run.settings import GRACE_SECONDS, Judge
from gauntlet.spellings import leaks, unsearched
from gauntlet.targets.contract import AsyncTarget, Message, Question, TargetResponse, Usage
from gauntlet.targets.contract import Conversation as Session

__all__ = [
    "Budgets",
    "Explored",
    "ExploreSettings",
    "Planned",
    "Unfinished",
    "conversation_seed",
    "explore",
    "plan_conversations",
]

MAX_CONVERSATIONS = 100
"""The most conversations per persona and language one explore may plan."""


@dataclass(frozen=True, kw_only=True)
class Budgets:
    """What one explore may spend. None: no bound beyond the personas' own `max_turns`."""

    conversations: int = 1
    """Conversations per persona and language."""
    max_turns: int | None = None
    """Caps every persona's `max_turns`."""
    max_tokens: int | None = None
    """Tokens of every role together (attacker, target, judge) as they report them; once
    spent, or once any ask reports none (the budget cannot be kept), no new turn starts."""
    deadline: float | None = None
    """Seconds from the first turn; once passed, no new turn starts."""


@dataclass(frozen=True, kw_only=True)
class ExploreSettings:
    """One explore: what is played, against what bounds, and who judges."""

    personas: tuple[Persona, ...]
    seed: int = 0
    language: str | None = None
    """Only this language of each persona (the personas that do not speak it are left out)."""
    budgets: Budgets = Budgets()
    concurrency: int = DEFAULT_CONCURRENCY
    """Conversations at once (each holds its slot for all its turns)."""
    judge: Judge | None = None
    """A judge that may vote: asked about an answer that held, for a goal with a criterion."""
    grace: float = GRACE_SECONDS
    """After a stop, how long turns in flight may take to finish, in seconds."""
    preflight: bool = True
    """Probe the target (and the judge) before the first conversation."""


class Planned(NamedTuple):
    """One conversation to have: the persona, its language, its number and its seed."""

    persona: Persona
    language: str
    number: int
    """From 1, within its persona and language."""
    seed: int
    max_turns: int


class Unfinished(NamedTuple):
    """A conversation a budget or a stop cut short (or never let start): no outcome."""

    persona: str
    language: str
    seed: int
    turns: int
    """The exchanges made before it was cut."""
    why: str
    tokens: TokensByRole


Ended = Conversation | Unfinished
"""How one planned conversation came out."""

ConversationDone = Callable[[Ended, int, int], None]
"""Called with a conversation as it ends, how many have ended, and how many were planned."""


@dataclass(frozen=True)
class Explored:
    """What an explore found: every planned conversation, ended or cut, in plan order."""

    attacker: AttackerInfo
    outcomes: tuple[Ended, ...]
    interrupted_by: str | None = None

    @property
    def conversations(self) -> tuple[Conversation, ...]:
        """The conversations that ended (broke, held, unscoreable or errored)."""
        return tuple(item for item in self.outcomes if isinstance(item, Conversation))

    @property
    def unfinished(self) -> tuple[Unfinished, ...]:
        """The conversations a budget or a stop cut short."""
        return tuple(item for item in self.outcomes if isinstance(item, Unfinished))


def conversation_seed(seed: int, persona: str, language: str, number: int) -> int:
    """The seed of one conversation: drawn from the run's by a digest, the same every time.

    Never `hash()`, which Python salts per process: the same `--seed` must replay the same
    attacker draws on any machine.
    """
    text = f"{seed}\0{persona}\0{language}\0{number}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")


def plan_conversations(settings: ExploreSettings) -> tuple[Planned, ...]:
    """Every conversation to have, in a stable order: persona, language, number.

    Raises:
        UsageError: a `--language` no persona speaks, no persona at all, or a bound out of
            range.
    """
    budgets = settings.budgets
    if not 1 <= budgets.conversations <= MAX_CONVERSATIONS:
        raise UsageError(
            f"--conversations {budgets.conversations}: expected 1 to {MAX_CONVERSATIONS}"
        )
    if not settings.personas:
        raise UsageError("no persona to play: give --personas DIR with at least one")
    planned = []
    for persona in settings.personas:
        turns = persona.max_turns
        if budgets.max_turns is not None:
            turns = min(turns, budgets.max_turns)
        for language in persona.languages:
            if settings.language is not None and language != settings.language:
                continue
            for number in range(1, budgets.conversations + 1):
                seed = conversation_seed(settings.seed, persona.id, language, number)
                planned.append(Planned(persona, language, number, seed, turns))
    if not planned:
        spoken = sorted({tag for persona in settings.personas for tag in persona.languages})
        raise UsageError(
            f"--language {settings.language}: no persona speaks it (they speak {', '.join(spoken)})"
        )
    return tuple(planned)


async def explore(
    settings: ExploreSettings,
    target: AsyncTarget,
    attacker: Attacker,
    *,
    on_end: ConversationDone | None = None,
    stop: asyncio.Event | None = None,
) -> Explored:
    """Have every planned conversation, at most `settings.concurrency` at a time.

    The caller owns `target`, `attacker` and the judge and closes them. On SIGINT or
    SIGTERM (in the main thread), or when `stop` is set, no new turn starts; turns in
    flight get `settings.grace` seconds, and every conversation not ended by then is
    unfinished: what was found is kept.

    Raises:
        UsageError: as `plan_conversations`; a target that cannot hold a conversation for
            personas that take more than one turn.
        TargetError: the pre-flight check of the target or the attacker failed.
        Interrupted: a signal came during the pre-flight; nothing was asked.
    """
    planned = plan_conversations(settings)
    if not target.holds_conversations and any(item.max_turns > 1 for item in planned):
        raise UsageError(
            f"the target {target.name} cannot hold a conversation (it takes no history), and "
            "a persona takes more than one turn; give --max-turns 1 or a target that does"
        )
    halt = stop or asyncio.Event()
    signals = StopSignals(halt)
    signals.catch()
    try:
        info = await _until_stopped(_preflight(settings, target, attacker), halt, signals)
        loop = _Loop(settings, target, attacker, halt, on_end, len(planned))
        outcomes = await loop.run(planned)
    finally:
        signals.release()
    return Explored(attacker=info, outcomes=outcomes, interrupted_by=signals.by)


async def _preflight(
    settings: ExploreSettings, target: AsyncTarget, attacker: Attacker
) -> AttackerInfo:
    """Check the target (and judge) can be asked, then open the attacker, saying who it is."""
    if settings.preflight:
        for what, asked in (("target", target), ("judge", _judge_target(settings.judge))):
            if asked is None:
                continue
            try:
                await probed(asked)
            except TargetError as exc:
                raise type(exc)(f"the {what}'s pre-flight check failed: {exc}") from exc
    return await attacker.open()  # worded as the attacker's own pre-flight by `open`


def _judge_target(judge: Judge | None) -> AsyncTarget | None:
    return None if judge is None else judge.target


async def _until_stopped(
    preflight: Coroutine[object, object, AttackerInfo], halt: asyncio.Event, signals: StopSignals
) -> AttackerInfo:
    """The pre-flight's result, or `Interrupted` at once when a signal comes first."""
    checking = asyncio.ensure_future(preflight)
    stopping = asyncio.ensure_future(halt.wait())
    try:
        await asyncio.wait({checking, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not checking.done():
        checking.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await checking
        raise Interrupted(
            f"interrupted by {signals.by or 'a stop request'} during the pre-flight checks; "
            "no conversation was had"
        )
    return checking.result()


@dataclass
class _Spent:
    """What every conversation together has spent, against the budgets."""

    max_tokens: int | None
    deadline: float | None
    started: float = field(default_factory=time.monotonic)
    tokens: int = 0
    silent: str | None = None
    """Who first answered without reporting its tokens: the token budget cannot hold then."""

    def add(self, tokens: int | None, role: str) -> None:
        """Count one ask's tokens; an ask that reported none leaves the budget uncountable.

        Adding up only what is reported would let an attacker, target or judge that reports
        nothing spend without limit under a budget it was never held to.
        """
        if tokens is None:
            self.silent = self.silent or role
            return
        self.tokens += tokens

    def exhausted(self) -> str | None:
        """Which budget is spent (or cannot be kept), in words; None while both last."""
        if self.max_tokens is not None and self.silent is not None:
            return (
                f"the token budget ({self.max_tokens:,}) cannot be kept: the {self.silent} "
                "reported no token usage"
            )
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"the token budget ({self.max_tokens:,}) was spent"
        if self.deadline is not None and time.monotonic() - self.started >= self.deadline:
            return f"the deadline ({self.deadline:g} s) passed"
        return None


JUDGE_SUITE = "explore"
"""The suite name a judge's check of an explored answer is made under (the judge reads
only a golden suite's `match`, which an explored case never has)."""


class _Loop:
    """One explore's conversations: the bound on them, the budgets, and who hears of each."""

    def __init__(
        self,
        settings: ExploreSettings,
        target: AsyncTarget,
        attacker: Attacker,
        halt: asyncio.Event,
        on_end: ConversationDone | None,
        total: int,
    ) -> None:
        self.settings = settings
        self.target = target
        self.attacker = attacker
        self.halt = halt
        self.on_end = on_end
        self.total = total
        self.done = 0
        self.bound = asyncio.Semaphore(max(1, settings.concurrency))
        judge = settings.judge
        self.judge_bound = asyncio.Semaphore(max(1, judge.concurrency if judge else 1))
        budgets = settings.budgets
        self.spent = _Spent(budgets.max_tokens, budgets.deadline)
        self.ended: dict[int, Ended] = {}

    async def run(self, planned: Sequence[Planned]) -> tuple[Ended, ...]:
        tasks = [asyncio.ensure_future(self.one(index, item)) for index, item in enumerate(planned)]
        everything = asyncio.ensure_future(asyncio.gather(*tasks, return_exceptions=True))
        stopping = asyncio.ensure_future(self.halt.wait())
        try:
            racing: list[asyncio.Future[Any]] = [everything, stopping]
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            if not everything.done():
                await asyncio.wait({everything}, timeout=self.settings.grace)
                for task in tasks:
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await everything
        finally:
            stopping.cancel()
        for task in tasks:  # a failure of gauntlet's own is raised, never swallowed
            failure = task.exception() if task.done() and not task.cancelled() else None
            if failure is not None:
                raise failure
        return tuple(
            self.ended.get(index) or _cut(item, 0, "the run was stopped", TokensByRole())
            for index, item in enumerate(planned)
        )

    async def one(self, index: int, item: Planned) -> None:
        async with self.bound:
            ended = await _Talk(self, item).have()
        self.ended[index] = ended
        self.done += 1
        if self.on_end is not None:
            self.on_end(ended, self.done, self.total)


def _cut(item: Planned, turns: int, why: str, tokens: TokensByRole) -> Unfinished:
    return Unfinished(item.persona.id, item.language, item.seed, turns, why, tokens)


def _tokens_of(usage: Usage | None) -> int | None:
    """The tokens one answer reports: its total, else prompt and completion together."""
    if usage is None:
        return None
    if usage.total_tokens is not None:
        return usage.total_tokens
    if usage.prompt_tokens is not None and usage.completion_tokens is not None:
        return usage.prompt_tokens + usage.completion_tokens
    return None


def _secrets(persona: Persona, language: str) -> tuple[str, ...]:
    """The goal's markers only the target can know: those the persona's own words never hold.

    A marker the persona sends itself (a prompt injector's "say INJECTION-WORKED") is what a
    target that obeys says back, and asking for it is the attack; any other marker (a canary,
    a line of the target's instructions) can reach an answer only from the target.
    """
    side = persona.languages[language]
    written = "\n".join((side.style, side.opening, *side.tactics))
    sent = {leak.marker for leak in leaks(written, persona.never(language))}
    return tuple(marker for marker in persona.never(language) if marker not in sent)


def _marker_in(message: str, markers: Sequence[str]) -> str | None:
    """Why `message`, the user's, holds one of the goal's `markers`; None when it holds none.

    Looked for as the gate looks in an answer (as written, respelled, encoded), since an
    answer that repeats or decodes the user's words would otherwise be graded a leak: the
    attacker's, frozen as the target's, and failing every target that echoes on replay.
    """
    found = leaks(message, markers)
    if found:
        marker, spelling = found[0]
        how = f" spelled {spelling}" if spelling else ""
        return (
            f"its message holds the goal's marker {marker!r}{how}; an answer repeating it "
            "would show the attacker's words, not the target's"
        )
    hidden = unsearched(message, markers)
    if hidden:
        return (
            f"its message ({len(message):,} characters) is too long to rule out the goal's "
            f"marker {hidden[0]!r} in another spelling"
        )
    return None


class _Talk:
    """One conversation, turn by turn, until it breaks, holds, fails or is cut."""

    def __init__(self, loop: _Loop, item: Planned) -> None:
        self.loop = loop
        self.item = item
        self.persona = item.persona
        self.language = item.language
        self.turns: list[ExploreTurn] = []
        self.messages: list[str] = []
        self.answers: list[TargetResponse] = []
        self.tokens: dict[str, int | None] = {"attacker": None, "target": None, "judge": None}

    def count(self, role: str, usage: Usage | None) -> None:
        used = _tokens_of(usage)
        self.loop.spent.add(used, role)
        if used is not None:
            self.tokens[role] = (self.tokens[role] or 0) + used

    @property
    def by_role(self) -> TokensByRole:
        return TokensByRole.model_validate(self.tokens)

    def ended(self, outcome: Outcome, **how: object) -> Conversation:
        return Conversation.model_validate(
            {
                "persona": self.persona.id,
                "language": self.language,
                "seed": self.item.seed,
                "outcome": outcome,
                "turns": tuple(self.turns),
                "tokens": self.by_role,
                **how,
            }
        )

    async def have(self) -> Ended:
        session = Session(case_id=f"explore-{self.persona.id}-{self.language}-{self.item.number}")
        for turn in range(1, self.item.max_turns + 1):
            why = self.loop.spent.exhausted()
            if why is None and self.loop.halt.is_set():
                why = "the run was stopped"
            if why is not None:
                return _cut(self.item, len(self.turns), why, self.by_role)
            message, intent = self.persona.languages[self.language].opening, None
            if turn > 1:
                move = await self.loop.attacker.next_move(
                    self.persona,
                    self.language,
                    turn,
                    tuple(Exchange(t.user, t.answer or "") for t in self.turns),
                    seed=self.item.seed,
                )
                self.count("attacker", move.usage)
                if isinstance(move, AttackerFailure):
                    return self.ended(
                        Outcome.UNSCOREABLE,
                        fault=move.fault,
                        why=f"{move.fault.value} at turn {turn}: {move.detail}",
                    )
                message, intent = move.message, move.intent
                marked = _marker_in(message, _secrets(self.persona, self.language))
                if marked is not None:
                    return self.ended(
                        Outcome.UNSCOREABLE,
                        fault=AttackerFault.MARKER,
                        why=f"{AttackerFault.MARKER.value} at turn {turn}: {marked}",
                    )
            ended = await self.exchange(turn, message, intent, session)
            if ended is not None:
                return ended
        return self.ended(Outcome.HELD)

    async def exchange(
        self, turn: int, message: str, intent: str | None, session: Session
    ) -> Ended | None:
        """Ask the target `message`, check its answer; how the conversation ended, if it did."""
        history: list[Message] = []
        for earlier, answer in zip(self.messages, self.answers, strict=True):
            history += [
                Message(role="user", content=earlier),
                Message(role="assistant", content=answer.text),
            ]
        question = Question(
            message,
            self.language,
            tuple(history) if self.item.max_turns > 1 else None,
            conversation=session,
            stop=self.loop.halt,
        )
        traced = await ask_turn(self.loop.target, question)
        if isinstance(traced, Unanswered):
            self.turns.append(ExploreTurn(user=message, intent=intent))
            if traced.error is None:
                return _cut(self.item, len(self.turns) - 1, "the run was stopped", self.by_role)
            return self.ended(
                Outcome.ERRORED, why=f"the target errored at turn {turn}: {traced.error}"
            )
        self.count("target", traced.usage)
        response = traced.response
        self.messages.append(message)
        self.answers.append(response)
        case = candidate_case(self.persona, self.language, self.messages)
        check = check_answer(case, response)
        if check.broke:
            self.turns.append(
                ExploreTurn(
                    user=message, intent=intent, answer=response.text, problems=check.reasons
                )
            )
            return self.ended(Outcome.BROKE, breaking_turn=turn, detector=check.detector)
        self.turns.append(ExploreTurn(user=message, intent=intent, answer=response.text))
        if self.loop.settings.judge is None or self.persona.goal.judge is None:
            return None
        return await self.judged(turn, case)

    async def judged(self, turn: int, case: FrozenCase) -> Ended | None:
        """The judge's check of an answer that held: a break, unscoreable, or None (held)."""
        from gauntlet.run.judging import judge_checks

        judge = self.loop.settings.judge
        assert judge is not None  # noqa: S101 - asked only with a judge
        info = SuiteInfo(
            suite=JUDGE_SUITE,
            gate=self.persona.goal.gate,
            version=1,
            key_version=None,
            threshold=1.0,
            source=JUDGE_SUITE,
            repeat=1,
            pass_k=1,
            capability=False,
        )
        checks = await judge_checks(
            judge, case, info, 1, tuple(self.answers), self.loop.judge_bound
        )
        for check in checks:
            self.count("judge", check.usage)
        unjudged = [check for check in checks if check.outcome == "unjudged"]
        failed = [check for check in checks if check.outcome == "failed"]
        if failed:
            criterion = self.persona.goal.judge
            assert criterion is not None  # noqa: S101 - judged only with a criterion
            last = self.turns[-1]
            self.turns[-1] = last.model_copy(
                update={"problems": tuple(f"the judge: {check.reason}" for check in failed)}
            )
            return self.ended(
                Outcome.BROKE, breaking_turn=turn, detector=f"{JUDGE_DETECTOR}{criterion.id}"
            )
        if unjudged or not checks:
            reason = unjudged[0].reason if unjudged else "the judge made no check"
            return self.ended(
                Outcome.UNSCOREABLE, why=f"the judge gave no verdict at turn {turn}: {reason}"
            )
        return None
