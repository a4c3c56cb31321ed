"""The run engine: ask every case (K times each) with bounded concurrency, then score.

Asking is the one edge that touches the world (the target); scoring is pure
(`gauntlet.run.scoring`), so the same observations always give the same results. A run may be
one shard of a larger one (`--shard K/N`), journals every finished case so a killed run can
resume, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import FrameType
from typing import Any, NamedTuple

from gauntlet import limits
from gauntlet.cases.builtin import shown_source
from gauntlet.cases.loader import SuiteSet
from gauntlet.cases.model import AnyCase, case_key
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import Interrupted, TargetError, TargetTimeoutError, UsageError
from gauntlet.run.fields import Needs, check_probe, check_supplied
from gauntlet.run.journal import Journal
from gauntlet.run.results import CaseResult, Outcome, Results
from gauntlet.run.schedule import Scheduled, schedule
from gauntlet.run.scoring import (
    NOT_ASKED,
    Observation,
    after_gate,
    gate_trial,
    judge_case,
    needs_judge,
    needs_similarity,
    score,
    similarity_floor,
)
from gauntlet.run.settings import GRACE_SECONDS, Judge, RunSettings, RunSpan
from gauntlet.semantic.check import Similarity, similarity_check
from gauntlet.targets.adapters import as_async_target, is_cancelling, target_raised
from gauntlet.targets.contract import (
    PROBE_LANGUAGE,
    AsyncTarget,
    Conversation,
    Message,
    Question,
    Target,
    TargetResponse,
    Traced,
)
from gauntlet.targets.scripted import Scripted, scripted_for

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What `signal.getsignal` returns."""

Clock = Callable[[], datetime]
Progress = Callable[[int, int], None]
"""Called with (asks done, asks in all) each time an ask is answered."""

__all__ = [
    "DEFAULT_CONCURRENCY",
    "GRACE_SECONDS",
    "ask_all",
    "ask_one",
    "ask_turn",
    "probed",
    "StopSignals",
    "Unanswered",
    "Listeners",
    "Pace",
    "run_gauntlet",
]


async def ask_one(
    target: Target | AsyncTarget,
    case: AnyCase,
    stop: asyncio.Event | None = None,
    *,
    tools: Scripted | None = None,
) -> Observation:
    """Ask one case once; any failure becomes the observation's error, never an exception.

    A multi-turn case is a conversation: each turn is asked with the earlier turns (the
    user's messages and the target's own answers) as `history`, one after another, within one
    `Conversation` (a session id or cookie never crosses to another case or ask). When `stop`
    is set while the target waits to retry, the case is observed as not asked. `tools` are
    the case's scripted tools (`scripted_for`), passed with its last turn only: a target that
    holds a tool loop plays them there, and the earlier turns set the conversation up.
    """
    asking = as_async_target(target)
    try:
        return await _converse(asking, case, stop, tools)
    finally:
        if asking is not target:  # adapted here, so closed here
            await asking.aclose()


async def _converse(
    asking: AsyncTarget, case: AnyCase, stop: asyncio.Event | None, tools: Scripted | None
) -> Observation:
    messages = case.messages
    conversation: list[Traced] = []
    history: list[Message] = []
    state = Conversation(case_id=case.id)
    effort = _Effort(started=time.perf_counter())
    for number, message in enumerate(messages, start=1):
        at = f"turn {number} of {len(messages)}: " if len(messages) > 1 else ""
        question = Question(
            message,
            case.language,
            tuple(history) if len(messages) > 1 else None,
            tools=tools if number == len(messages) else None,
            conversation=state,
            stop=stop,
        )
        traced = await ask_turn(asking, question)
        if isinstance(traced, Unanswered):
            if traced.error is None:
                return _observed(None, None, effort, conversation, asked=False)
            spent = effort.plus(traced.attempts, traced.waited)
            return _observed(None, at + traced.error, spent, conversation)
        effort = effort.plus(traced.attempts, traced.waited)
        conversation.append(traced)
        history += [
            Message(role="user", content=message),
            Message(role="assistant", content=traced.response.text),
        ]
    return _observed(conversation[-1], None, effort, conversation if len(messages) > 1 else [])


class Unanswered(NamedTuple):
    """Why one turn got no answer, and what trying cost."""

    error: str | None
    """What went wrong, in the contract's words; None when a stop request ended the wait."""
    attempts: int
    waited: float


async def ask_turn(asking: AsyncTarget, question: Question) -> Traced | Unanswered:
    """Ask one turn; any failure of the target becomes `Unanswered`, never an exception.

    The one place a turn is asked and its failure worded, for a case's conversation here
    and for an explored one (`gauntlet.explore.engine`): a target's error, its own raise,
    or an answer nesting too deeply is an error; a stop request during a retry wait is not.
    Only the run's own cancellation, after its grace period, is raised.
    """
    try:
        traced = await asking.ask(question)
    except Interrupted:
        return Unanswered(None, 0, 0.0)
    except TargetError as exc:
        return Unanswered(str(exc), exc.attempts, exc.waited)
    except BaseException as exc:  # a target cannot end the run
        if isinstance(exc, asyncio.CancelledError) and is_cancelling():
            raise  # the run's own cancellation, after the grace period
        return Unanswered(_raised(exc), 1, 0.0)
    too_deep = nested_too_deeply(traced.response)
    if too_deep is not None:
        return Unanswered(too_deep, traced.attempts, traced.waited)
    return traced


@dataclass(frozen=True)
class _Effort:
    """What asking one case has cost so far: when it began, its attempts and its waits.

    The three travel together from the first turn to the observation, each turn (or the
    error that ends the conversation) adding its own.
    """

    started: float
    """`time.perf_counter()` when the case's first turn was asked."""
    attempts: int = 0
    waited: float = 0.0

    def plus(self, attempts: int, waited: float) -> _Effort:
        return _Effort(self.started, self.attempts + attempts, self.waited + waited)


def _observed(
    last: Traced | None,
    error: str | None,
    effort: _Effort,
    conversation: Sequence[Traced],
    *,
    asked: bool = True,
) -> Observation:
    return Observation(
        None if last is None else last.response,
        error,
        _since(effort.started),
        effort.attempts,
        round(effort.waited, 3),
        asked=asked,
        conversation=tuple(turn.response for turn in conversation),
        traced=last,
        traced_turns=tuple(conversation),
    )


def nested_too_deeply(response: TargetResponse) -> str | None:
    """Why `response` cannot be kept, when a value the target supplied nests too deeply.

    Checked where the answer comes in, so the case errors in words that name the limit and
    the file the run writes stays one every reader reads (`gauntlet.limits`).
    """
    for call in response.tool_calls or ():
        for what, value in (("arguments", call.arguments), ("output", call.output)):
            depth = limits.nesting(value)
            if depth > limits.MAX_NESTING:
                return f"{limits.TOO_DEEP}: tool call {call.id!r}'s {what} nest {depth} levels deep"
    return None


def _raised(error: BaseException) -> str:
    """Why a target's own exception errors its case, in the contract's words when it can.

    A Python target that builds a `TargetResponse` breaking the contract meets pydantic's
    refusal in its own code; that is a contract error, and it reads as one. Anything else,
    `SystemExit` and the rest of `BaseException` among them, is "the target raised" it.
    """
    return str(target_raised(error))


_SLOW_PROBE = (
    "the check asks one short question, so the deadline is too short for this model "
    "(raise it: --timeout, or http.timeout in a target file) or max_tokens lets it talk too "
    "long"
)
"""What a pre-flight check that timed out adds: the two settings that decide it."""


CaseDone = Callable[[Scheduled, list[Observation]], None]
"""Called with a case and its observations as soon as every ask of it is answered."""


@dataclass(frozen=True, kw_only=True)
class Pace:
    """How a run's asks go, as `ask_all` needs it: built once from the run's settings.

    Args:
        concurrency: At most this many asks at a time.
        grace: After a stop, how long asks in flight may take to finish, in seconds.
        judge: With a judge, an answer the gate passed in a case with judged checks is
            shown to it as soon as it comes, at most `judge.concurrency` at a time.
        similarity: With an embedder, an answer the gate passed in a case that compares
            meanings (`match: semantic`, `min_similarity`) is compared as soon as it comes.
    """

    concurrency: int = DEFAULT_CONCURRENCY
    grace: float = GRACE_SECONDS
    judge: Judge | None = None
    similarity: Similarity | None = None

    @classmethod
    def of(cls, settings: RunSettings) -> Pace:
        """The pace `settings` set: their concurrency, grace, judge and similarity."""
        return cls(
            concurrency=settings.concurrency,
            grace=settings.grace,
            judge=settings.judge,
            similarity=settings.similarity,
        )

    @property
    def width(self) -> int:
        """The bound on asks at a time: `concurrency`, and at least 1."""
        return max(1, self.concurrency)


@dataclass(frozen=True, kw_only=True)
class Listeners:
    """Who hears of a run's asks as they are answered (see `Progress` and `CaseDone`)."""

    progress: Progress | None = None
    on_case: CaseDone | None = None


async def ask_all(
    planned: Sequence[Scheduled],
    target: Target | AsyncTarget,
    *,
    pace: Pace = Pace(),
    listeners: Listeners = Listeners(),
    stop: asyncio.Event | None = None,
) -> list[list[Observation]]:
    """Ask every planned case its repeats, at most `pace.concurrency` asks at a time.

    A case's asks go one after another; cases go side by side. The result keeps the plan's
    order. When `stop` is set no new ask is sent; asks in flight get `pace.grace` seconds to
    finish, and every ask without an answer by then is observed as not asked. With
    `pace.judge`, an answer the gate passed in a case with judged checks is shown to the
    judge as soon as it comes.

    A target's failure is an observation. A failure of the harness's own work for a case
    (`on_case`, `progress` or the judge raising: a journal on a full disk) stops no other
    case, and is raised once every case is done, never swallowed.
    """
    # A plain Python target gets a pool as wide as the bound (see `CallableTarget`).
    asking = as_async_target(target, concurrency=pace.concurrency)
    asks = _Asks(planned, asking, pace, listeners, stop or asyncio.Event())
    try:
        await asks.until_done_or_stopped()
    finally:
        if asking is not target:  # adapted here, so closed here
            await asking.aclose()
        if pace.similarity is not None and pace.similarity.embeddings is not None:
            # Its connections belong to this loop; a later use in another loop opens its own.
            await pace.similarity.embeddings.embedder.aclose()
    if asks.failures:
        raise asks.failures[0]
    return [_padded(asks.answered.get(item.plan_index, []), item.info.repeat) for item in planned]


class _Asks:
    """One `ask_all`: its bounds, what has been answered, and the tasks of its cases."""

    def __init__(
        self,
        planned: Sequence[Scheduled],
        asking: AsyncTarget,
        pace: Pace,
        listeners: Listeners,
        halt: asyncio.Event,
    ) -> None:
        self.planned = planned
        self.asking = asking
        self.pace = pace
        self.listeners = listeners
        self.halt = halt
        self.bound = asyncio.Semaphore(pace.width)
        judge = pace.judge
        self.judging = (
            None if judge is None else (judge, asyncio.Semaphore(max(1, judge.concurrency)))
        )
        self.total = sum(item.info.repeat for item in planned)
        self.done = 0
        self.answered: dict[int, list[Observation]] = {}
        # Each case's task is made only when there is room for it: made all at once,
        # thousands of tasks queued on the bound before the first ask could go out (about
        # 60 ms per 5,000 cases). Twice the bound leaves every slot in use while as many
        # cases wait for a judge.
        self.room = asyncio.Semaphore(2 * pace.width)
        self.tasks: list[asyncio.Task[None]] = []
        self.failures: list[BaseException] = []

    async def until_done_or_stopped(self) -> None:
        """Every case asked; or, once stopped, what finishes within the grace period."""
        everything = asyncio.ensure_future(self.every_case())
        stopped: asyncio.Future[list[None]] = asyncio.ensure_future(_until(self.halt))
        try:
            racing: list[asyncio.Future[Any]] = [everything, stopped]
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            if not everything.done():
                await asyncio.wait({everything}, timeout=self.pace.grace)
                everything.cancel()
                for task in self.tasks:
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await everything
        finally:
            stopped.cancel()

    async def every_case(self) -> list[None | BaseException]:
        """Start each case as room frees up, and wait for every one started."""
        tasks = self.tasks
        for item in self.planned:
            await self.room.acquire()
            if self.halt.is_set():
                break
            task = asyncio.ensure_future(self.one_case(item))
            task.add_done_callback(self.settled)
            tasks.append(task)
            if len(tasks) > 4 * self.pace.width:
                # Finished cases let go of their tasks, which add up over thousands; a
                # failure is kept in `failures` by `settled`.
                tasks[:] = [task for task in tasks if not task.done()]
        return await asyncio.gather(*tasks, return_exceptions=True)

    def settled(self, task: asyncio.Task[None]) -> None:
        self.room.release()
        if not task.cancelled() and (failure := task.exception()) is not None:
            self.failures.append(failure)

    async def one_case(self, item: Scheduled) -> None:
        """Ask one case its repeats, one after another, each judged as it comes."""
        observations = self.answered.setdefault(item.plan_index, [])
        scripted = scripted_for(item.case, item.loaded.suite)
        progress = self.listeners.progress
        for _ in range(item.info.repeat):
            async with self.bound:
                if self.halt.is_set():
                    return
                observation = await _converse(self.asking, item.case, self.halt, scripted)
            observation = await self.after_gate(item, len(observations) + 1, observation)
            observations.append(observation)
            self.done += 1
            if progress is not None:
                progress(self.done, self.total)
        if self.listeners.on_case is not None:
            self.listeners.on_case(item, observations)

    async def after_gate(
        self, item: Scheduled, ask_number: int, observation: Observation
    ) -> Observation:
        """`observation` with the checks made once the gate passed its answer.

        The judge's checks, when the case has judged checks, and the similarity check, when
        it compares meanings. Never asked when the gate failed the answer: they could only
        agree. They can fail the ask or leave it unjudged, never pass one the gate failed
        (`gauntlet.run.tally.after_gate_outcome`).
        """
        case, info, response = item.case, item.info, observation.response
        if response is None or not after_gate(case, info):
            return observation
        if gate_trial(item, observation).outcome is not Outcome.PASSED:
            return observation
        if self.judging is not None and needs_judge(case, info):
            answers = observation.conversation or (response,)
            # Here, not at the top: a run without a judge never loads its checker and prompts.
            from gauntlet.run.judging import judge_checks

            judge, bound = self.judging
            checks = await judge_checks(judge, case, info, ask_number, answers, bound)
            observation = observation._replace(judged=checks)
        similarity = self.pace.similarity
        if similarity is not None and needs_similarity(case, info):
            expected = case_key(case, "expected")
            assert isinstance(expected, str)  # noqa: S101 - golden and min_similarity need it
            check = await similarity_check(
                similarity,
                expected,
                response.text,
                case.language,
                at_least=similarity_floor(case),
            )
            observation = observation._replace(similarity=check)
        return observation


def _padded(observations: list[Observation], repeat: int) -> list[Observation]:
    return observations + [NOT_ASKED] * (repeat - len(observations))


async def _until(event: asyncio.Event) -> list[None]:
    await event.wait()
    return []


def run_gauntlet(
    suites: SuiteSet,
    target: Target | AsyncTarget,
    settings: RunSettings,
    *,
    progress: Progress | None = None,
    clock: Clock = lambda: datetime.now(UTC),
    journal: Journal | None = None,
) -> Results:
    """Probe, ask and score: the whole of `gauntlet run` but the printing and the file.

    `settings` say what the run is (its plan, made from these `suites`, its shard, run id,
    judge and waivers) and how it goes (see `RunSettings`). With a judge, cases with judged
    checks are shown to it. With a `journal`, every finished case is appended to it as it
    finishes, and cases the journal already holds (from an interrupted run being resumed)
    are not asked again. On SIGINT or SIGTERM (in the main thread) no new ask is sent, asks
    in flight get the settings' `grace` seconds, and the results say the run is incomplete:
    the verdict is withheld.

    Raises:
        TargetError: the pre-flight check failed (a target with a `probe` method that is
            down or does not speak the contract).
        UsageError: a suite's `pass_k` is more than its asks, a case has judged checks and
            no judge that can ask was given, or the plan was made from other suites.
    """
    run_schedule = schedule(suites, plan=settings.plan, shard=settings.shard)
    _check_judge(settings.judge, run_schedule.items)
    _check_similarity(settings.similarity, run_schedule.items)
    earlier = journal.start(settings) if journal else {}
    todo = [item for item in run_schedule.items if item.plan_index not in earlier]
    started = clock()

    judged: dict[int, CaseResult] = {}

    def finished(item: Scheduled, observations: list[Observation]) -> None:
        # Graded once, as soon as every ask is answered: the journal and the results share it.
        case = judge_case(item, observations, redactor=settings.redactor)
        judged[item.plan_index] = case
        if journal is not None:
            journal.append(case)

    asking = as_async_target(target, concurrency=settings.concurrency)
    needs = check_supplied(suites, asking)
    session = _Session(todo, asking, settings, progress, finished, needs)
    observations = asyncio.run(session.execute())
    if journal is not None and session.interrupted_by is not None:
        journal.keep()  # even with nothing finished yet: --resume continues this run
    unfinished = [
        (item, seen)
        for item, seen in zip(todo, observations, strict=True)
        if item.plan_index not in judged
    ]
    return score(
        run_schedule._replace(items=[item for item, _ in unfinished]),
        [seen for _, seen in unfinished],
        settings,
        RunSpan(started, clock(), session.interrupted_by),
        earlier=[*earlier.values(), *judged.values()],
    )


def _check_judge(judge: Judge | None, items: Sequence[Scheduled]) -> None:
    """Refuse a judge that cannot ask, and judged checks without a judge.

    A judge read back from a results file has nothing to ask; a case with judged checks and
    no judge could never pass.
    """
    if judge is not None and judge.target is None:
        raise UsageError(
            "the judge in these settings was read back from a results file and cannot ask: "
            "give the judge's target file (--judge FILE)"
        )
    if judge is not None:
        return
    for item in items:
        if needs_judge(item.case, item.info):
            what = "`judge` criteria" if item.case.judge is not None else "`match: judge`"
            raise UsageError(
                f"{shown_source(item.loaded.source)}: case {item.case.id} of suite "
                f"{item.info.suite} has "
                f"{what}, which only a model judge can check; give --judge FILE and "
                "--calibration RECORD (see docs/judge.md)"
            )


def _check_similarity(similarity: Similarity | None, items: Sequence[Scheduled]) -> None:
    """Refuse a similarity that cannot embed, and cases comparing meanings without one.

    A similarity read back from a results file has nothing to ask; a case that compares
    meanings with no embedder could never pass.
    """
    if similarity is not None and similarity.embeddings is None:
        raise UsageError(
            "the similarity in these settings was read back from a results file and cannot "
            "embed: give the embedder (--embedder builtin, or a target file)"
        )
    if similarity is not None:
        return
    for item in items:
        if needs_similarity(item.case, item.info):
            what = (
                "`min_similarity`"
                if similarity_floor(item.case) is not None
                else ("`match: semantic`")
            )
            raise UsageError(
                f"{shown_source(item.loaded.source)}: case {item.case.id} of suite "
                f"{item.info.suite} has {what}, which only an embedder can check; give "
                "--embedder builtin (or a target file) and --embedder-calibration RECORD "
                "(see docs/case-files.md)"
            )


class _Session:
    """One run's asyncio side: the probe, the asks, the signal handlers, closing the target."""

    def __init__(
        self,
        planned: Sequence[Scheduled],
        target: AsyncTarget,
        settings: RunSettings,
        progress: Progress | None,
        on_case: CaseDone,
        needs: Needs,
    ) -> None:
        self.needs = needs
        self.judge = settings.judge
        self.planned = planned
        self.target = target
        self.settings = settings
        self.progress = progress
        self.on_case = on_case
        self.signals = StopSignals(asyncio.Event())

    @property
    def interrupted_by(self) -> str | None:
        """The signal that stopped the run (`SIGINT`, `SIGTERM`), or None."""
        return self.signals.by

    async def execute(self) -> list[list[Observation]]:
        stop = asyncio.Event()
        self.signals = StopSignals(stop)
        self.signals.catch()
        try:
            if self.settings.preflight:
                await self._probe(stop)
            return await ask_all(
                self.planned,
                self.target,
                pace=Pace.of(self.settings),
                listeners=Listeners(progress=self.progress, on_case=self.on_case),
                stop=stop,
            )
        finally:
            self.signals.release()
            await self.target.aclose()
            if self.judge is not None and self.judge.target is not None:
                await self.judge.target.aclose()

    async def _probe(self, stop: asyncio.Event) -> None:
        """The pre-flight checks, stopped at once by a signal (their waits can last a minute).

        The target is asked first; then a judge that may vote, so one that is down fails the
        run before any case rather than leaving every judged case unjudged.

        Raises:
            TargetError: a probe failed, with "pre-flight check failed" in front.
            Interrupted: a signal came first; nothing was asked.
        """
        traced = await self._until_stopped(self.target, "pre-flight check", stop)
        if traced is not None:
            check_probe(traced, self.needs, self.target.provides(PROBE_LANGUAGE))
        judge = self.judge
        if judge is not None and judge.refused is None and judge.target is not None:
            await self._until_stopped(judge.target, "judge's pre-flight check", stop)

    async def _until_stopped(
        self, target: AsyncTarget, what: str, stop: asyncio.Event
    ) -> Traced | None:
        probing = asyncio.ensure_future(probed(target))
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({probing, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if not probing.done():
            probing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await probing
            raise Interrupted(
                f"interrupted by {self.interrupted_by or 'a stop request'} during the "
                f"{what}; no case was asked"
            )
        try:
            return probing.result()
        except TargetTimeoutError as exc:
            raise type(exc)(f"{what} failed: {exc}; {_SLOW_PROBE}") from exc
        except TargetError as exc:
            raise type(exc)(f"{what} failed: {exc}") from exc


class StopSignals:
    """SIGINT and SIGTERM caught while a loop runs: each sets `stop` and is named in `by`.

    The one way a run and an explore stop cleanly: no new ask starts, what is in flight may
    finish, and what was found is kept. `catch` inside the running loop; `release` before it
    ends, which puts back the handlers there were (the command line's, which end in exit 2).
    """

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.by: str | None = None
        self._before: dict[signal.Signals, _Handler] = {}

    def catch(self) -> None:
        """Catch SIGINT and SIGTERM in the running loop (only the main thread can)."""
        if threading.current_thread() is not threading.main_thread():
            return  # pragma: no cover - signal handlers live in the main thread only
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            self._before[number] = signal.getsignal(number)
            loop.add_signal_handler(number, self._interrupt, number)

    def release(self) -> None:
        """Put back the handlers there were before `catch`."""
        loop = asyncio.get_running_loop()
        for number, handler in self._before.items():
            loop.remove_signal_handler(number)
            # asyncio leaves the default behind; the caller's handler (the command line's,
            # which ends in exit 2) must hold again while the results are written.
            signal.signal(number, handler)
        self._before = {}

    def _interrupt(self, number: signal.Signals) -> None:
        self.by = number.name
        self.stop.set()


async def probed(target: AsyncTarget) -> Traced | None:
    """`target.probe()`, any `BaseException` but the run's own cancellation a `TargetError`.

    The probe runs in its own task, which lets `SystemExit` and `KeyboardInterrupt` out of
    the event loop: whatever a target raises is turned into an error here, inside the task.
    """
    try:
        return await target.probe()
    except Exception:
        raise  # a Python target's are worded by its adapter; anything else is a bug of ours
    except BaseException as exc:  # a target cannot end the run
        if isinstance(exc, asyncio.CancelledError) and is_cancelling():
            raise
        raise target_raised(exc) from None


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
