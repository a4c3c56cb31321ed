"""The run engine: ask every case (K times each) with bounded concurrency, then score.

Asking is the one edge that touches the world (the target); scoring is pure
(`gauntlet.run.scoring`), so the same observations always give the same results. A run may be
one shard of a larger one (`--shard K/N`), journals every finished case so a killed run can
resume, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from functools import partial
from types import FrameType
from typing import Any

from gauntlet import limits
from gauntlet.cases.builtin import shown_source
from gauntlet.cases.loader import SuiteSet
from gauntlet.cases.model import AnyCase
from gauntlet.cases.waivers import WaiverInfo
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import Interrupted, TargetError, TargetTimeoutError, UsageError
from gauntlet.redact import Redactor
from gauntlet.run.fields import Needs, check_probe, check_supplied
from gauntlet.run.journal import Journal
from gauntlet.run.judging import Judging
from gauntlet.run.results import (
    CaseResult,
    JudgeInfo,
    Outcome,
    Results,
    Shard,
    TargetInfo,
)
from gauntlet.run.schedule import Scheduled, schedule
from gauntlet.run.scoring import (
    NOT_ASKED,
    Observation,
    gate_trial,
    judge_case,
    needs_judge,
    score,
)
from gauntlet.targets.adapters import as_async_target, is_cancelling, target_raised
from gauntlet.targets.contract import (
    PROBE_LANGUAGE,
    AsyncTarget,
    Conversation,
    Message,
    Target,
    TargetResponse,
    Traced,
)
from gauntlet.targets.scripted import Scripted, scripted_for

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What `signal.getsignal` returns."""

GRACE_SECONDS = 5.0
"""After an interruption, how long cases already sent may take to finish."""

Clock = Callable[[], datetime]
Progress = Callable[[int, int], None]
"""Called with (asks done, asks in all) each time an ask is answered."""

__all__ = [
    "DEFAULT_CONCURRENCY",
    "GRACE_SECONDS",
    "ask_all",
    "ask_one",
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
    started = time.perf_counter()
    messages = case.messages
    conversation: list[Traced] = []
    history: list[Message] = []
    state = Conversation(case_id=case.id)
    attempts, waited = 0, 0.0
    for number, message in enumerate(messages, start=1):
        at = f"turn {number} of {len(messages)}: " if len(messages) > 1 else ""
        try:
            ask = partial(
                asking.ask_traced,
                message,
                case.language,
                tuple(history) if len(messages) > 1 else None,
                stop=stop,
                conversation=state,
            )
            # Passed only when there are tools: an `AsyncTarget` written before they were
            # part of the interface still answers every case without them.
            scripted = tools is not None and number == len(messages)
            traced = await (ask(tools=tools) if scripted else ask())
        except Interrupted:
            return _observed(None, None, started, attempts, waited, conversation, asked=False)
        except TargetError as exc:
            return _observed(
                None, at + str(exc), started, attempts + exc.attempts, waited + exc.waited,
                conversation,
            )  # fmt: skip
        except BaseException as exc:  # noqa: BLE001 - a target cannot end the run
            if isinstance(exc, asyncio.CancelledError) and is_cancelling():
                raise  # the run's own cancellation, after the grace period
            return _observed(None, at + _raised(exc), started, attempts + 1, waited, conversation)
        attempts, waited = attempts + traced.attempts, waited + traced.waited
        too_deep = nested_too_deeply(traced.response)
        if too_deep is not None:
            return _observed(None, at + too_deep, started, attempts, waited, conversation)
        conversation.append(traced)
        history += [
            Message(role="user", content=message),
            Message(role="assistant", content=traced.response.text),
        ]
    return _observed(
        conversation[-1], None, started, attempts, waited,
        conversation if len(messages) > 1 else [],
    )  # fmt: skip


def _observed(
    last: Traced | None,
    error: str | None,
    started: float,
    attempts: int,
    waited: float,
    conversation: Sequence[Traced],
    *,
    asked: bool = True,
) -> Observation:
    return Observation(
        None if last is None else last.response,
        error,
        _since(started),
        attempts,
        round(waited, 3),
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


async def ask_all(
    planned: Sequence[Scheduled],
    target: Target | AsyncTarget,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
    grace: float = GRACE_SECONDS,
    on_case: CaseDone | None = None,
    judging: Judging | None = None,
) -> list[list[Observation]]:
    """Ask every planned case its repeats, at most `concurrency` asks at a time.

    A case's asks go one after another; cases go side by side. The result keeps the plan's
    order. When `stop` is set no new ask is sent; asks in flight get `grace` seconds to
    finish, and every ask without an answer by then is observed as not asked. With
    `judging`, an answer the gate passed in a case with judged checks is shown to the judge
    as soon as it comes.

    A target's failure is an observation. A failure of the harness's own work for a case
    (`on_case`, `progress` or the judge raising: a journal on a full disk) stops no other
    case, and is raised once every case is done, never swallowed.
    """
    bound = asyncio.Semaphore(max(1, concurrency))
    halt = stop or asyncio.Event()
    total = sum(item.info.repeat for item in planned)
    done = 0
    # A plain Python target gets a pool as wide as the bound (see `CallableTarget`).
    asking = as_async_target(target, concurrency=concurrency)
    answered: dict[int, list[Observation]] = {}

    async def one_case(item: Scheduled) -> None:
        nonlocal done
        observations = answered.setdefault(item.plan_index, [])
        scripted = scripted_for(item.case, item.loaded.suite)
        for _ in range(item.info.repeat):
            async with bound:
                if halt.is_set():
                    return
                observation = await _converse(asking, item.case, halt, scripted)
            if judging is not None:
                observation = await _judge(judging, item, len(observations) + 1, observation)
            observations.append(observation)
            done += 1
            if progress is not None:
                progress(done, total)
        if on_case is not None:
            on_case(item, observations)

    # Each case's task is made only when there is room for it: made all at once, thousands
    # of tasks queued on the bound before the first ask could go out (about 60 ms per 5,000
    # cases). Twice the bound leaves every slot in use while as many cases wait for a judge.
    room = asyncio.Semaphore(2 * max(1, concurrency))
    tasks: list[asyncio.Task[None]] = []
    failures: list[BaseException] = []

    def settled(task: asyncio.Task[None]) -> None:
        room.release()
        if not task.cancelled() and (failure := task.exception()) is not None:
            failures.append(failure)

    async def every_case() -> list[None | BaseException]:
        for item in planned:
            await room.acquire()
            if halt.is_set():
                break
            task = asyncio.ensure_future(one_case(item))
            task.add_done_callback(settled)
            tasks.append(task)
            if len(tasks) > 4 * max(1, concurrency):
                # Finished cases let go of their tasks, which add up over thousands; a failure
                # is kept in `failures` by `settled`.
                tasks[:] = [task for task in tasks if not task.done()]
        return await asyncio.gather(*tasks, return_exceptions=True)

    everything: asyncio.Future[list[None | BaseException]] = asyncio.ensure_future(every_case())
    stopped: asyncio.Future[list[None]] = asyncio.ensure_future(_until(halt))
    try:
        racing: list[asyncio.Future[Any]] = [everything, stopped]
        await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        if not everything.done():
            await asyncio.wait({everything}, timeout=grace)
            everything.cancel()
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await everything
    finally:
        stopped.cancel()
        if asking is not target:  # adapted here, so closed here
            await asking.aclose()
    if failures:
        raise failures[0]
    return [_padded(answered.get(item.plan_index, []), item.info.repeat) for item in planned]


async def _judge(
    judging: Judging, item: Scheduled, ask_number: int, observation: Observation
) -> Observation:
    """`observation` with the judge's checks, when the case has some and the gate passed it."""
    if observation.response is None or not needs_judge(item.case, item.info):
        return observation
    if gate_trial(item, observation).outcome is not Outcome.PASSED:
        return observation  # failed without asking the judge: it could only agree
    answers = observation.conversation or (observation.response,)
    checks = await judging.check(item.case, item.info, ask_number, answers)
    return observation._replace(judged=checks)


def _padded(observations: list[Observation], repeat: int) -> list[Observation]:
    return observations + [NOT_ASKED] * (repeat - len(observations))


async def _until(event: asyncio.Event) -> list[None]:
    await event.wait()
    return []


GC_YOUNG_THRESHOLD = 10_000
"""During a run, how many new container objects make the garbage collector look at the young
ones (Python's default is 700)."""


_gc_lock = threading.Lock()
_gc_runs = 0
_gc_before: tuple[tuple[int, int, int], bool] = ((700, 10, 10), True)
"""The collector's thresholds before the first of the runs going on, and whether to unfreeze."""


@contextlib.contextmanager
def _collecting_young_only() -> Iterator[None]:
    """Keep the cyclic garbage collector off what was there before the run, until it ends.

    The cases, the modules and everything else loaded before a run live to its end, yet each
    full collection walked all of them again: several per 5,000 cases, each holding up the
    event loop (so every ask) for tens of milliseconds, to find nothing. Frozen, they are
    left out of every collection until the run ends; and the young objects are collected
    less often, as each ask makes hundreds that its own end frees without help. A run makes
    almost no cyclic garbage, so memory stays as it was.

    The collector is the process's: runs that overlap (in threads) share one setting, made
    by the first and put back by the last as it was before the first. What the host froze
    itself stays frozen: then nothing is unfrozen, as `gc.unfreeze` cannot tell the two apart.
    """
    global _gc_runs, _gc_before  # noqa: PLW0603 - the collector is one per process
    with _gc_lock:
        if _gc_runs == 0:
            threshold = gc.get_threshold()
            _gc_before = (threshold, gc.get_freeze_count() == 0)
            gc.freeze()
            gc.set_threshold(max(threshold[0], GC_YOUNG_THRESHOLD), *threshold[1:])
        _gc_runs += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_runs -= 1
            if _gc_runs == 0:
                threshold, unfreeze = _gc_before
                gc.set_threshold(*threshold)
                if unfreeze:
                    gc.unfreeze()


@_collecting_young_only()
def run_gauntlet(
    suites: SuiteSet,
    target: Target | AsyncTarget,
    *,
    target_info: TargetInfo,
    concurrency: int = DEFAULT_CONCURRENCY,
    repeat: int = 1,
    shard: Shard | None = None,
    progress: Progress | None = None,
    clock: Clock = lambda: datetime.now(UTC),
    redactor: Redactor | None = None,
    preflight: bool = True,
    grace: float = GRACE_SECONDS,
    journal: Journal | None = None,
    run_id: str | None = None,
    judging: Judging | None = None,
    judge_info: JudgeInfo | None = None,
    waivers: Sequence[WaiverInfo] = (),
    strict_waivers: bool = False,
) -> Results:
    """Probe, ask and score: the whole of `gauntlet run` but the printing and the file.

    With `judging` (and `judge_info`, what the results record of it), cases with judged
    checks are shown to the model judge; its seed is set here, from the run id or the plan.

    `run_id` is the id the CI system gave the run, recorded so shards of different runs
    cannot be merged. With a `journal`, every finished case is appended to it as it
    finishes, and cases the journal already holds (from an interrupted run being resumed)
    are not asked again. `waivers` (checked against the suites) are applied against the day
    the run started, in UTC; with `strict_waivers` a waiver no longer needed fails the run.
    On SIGINT or SIGTERM (in the main thread) no new ask is sent, asks in flight get `grace`
    seconds, and the results say the run is incomplete: the verdict is withheld.

    Raises:
        TargetError: the pre-flight check failed (a target with a `probe` method that is
            down or does not speak the contract).
        UsageError: a suite's `pass_k` is more than its asks, or a case has judged checks
            and no judge was given.
    """
    redactor = redactor if redactor is not None else Redactor()
    run_schedule = schedule(suites, repeat=repeat, shard=shard)
    if judging is None:
        _refuse_unjudged(run_schedule.items)
    else:
        judging = dataclasses.replace(judging, seed=run_id or run_schedule.plan.digest)
    earlier = (
        journal.start(
            run_schedule.plan,
            shard,
            target_info.name,
            run_id,
            judge_info,
            waivers=tuple(waivers),
            strict_waivers=strict_waivers,
        )
        if journal
        else {}
    )
    todo = [item for item in run_schedule.items if item.plan_index not in earlier]
    started = clock()

    judged: dict[int, CaseResult] = {}

    def finished(item: Scheduled, observations: list[Observation]) -> None:
        # Graded once, as soon as every ask is answered: the journal and the results share it.
        case = judge_case(item, observations, redactor=redactor)
        judged[item.plan_index] = case
        if journal is not None:
            journal.append(case)

    asking = as_async_target(target, concurrency=concurrency)
    needs = check_supplied(suites, asking)
    session = _Session(
        todo, asking, concurrency, progress, preflight, grace, finished, needs, judging
    )
    observations = asyncio.run(session.execute())
    if journal is not None and session.interrupted_by is not None:
        journal.keep()  # even with nothing finished yet: --resume continues this run
    unfinished = [
        (item, seen)
        for item, seen in zip(todo, observations, strict=True)
        if item.plan_index not in judged
    ]
    results = score(
        run_schedule._replace(items=[item for item, _ in unfinished]),
        [seen for _, seen in unfinished],
        target=target_info,
        started_at=started,
        finished_at=clock(),
        interrupted_by=session.interrupted_by,
        redactor=redactor,
        earlier=[*earlier.values(), *judged.values()],
        run_id=run_id,
        judge=judge_info,
        waivers=waivers,
        strict_waivers=strict_waivers,
    )
    return results


def _refuse_unjudged(items: Sequence[Scheduled]) -> None:
    """Refuse to run cases with judged checks without a judge: they could never pass."""
    for item in items:
        if needs_judge(item.case, item.info):
            what = "`judge` criteria" if item.case.judge is not None else "`match: judge`"
            raise UsageError(
                f"{shown_source(item.loaded.source)}: case {item.case.id} of suite "
                f"{item.info.suite} has "
                f"{what}, which only a model judge can check; give --judge FILE and "
                "--calibration RECORD (see docs/judge.md)"
            )


class _Session:
    """One run's asyncio side: the probe, the asks, the signal handlers, closing the target."""

    def __init__(
        self,
        planned: Sequence[Scheduled],
        target: AsyncTarget,
        concurrency: int,
        progress: Progress | None,
        preflight: bool,
        grace: float,
        on_case: CaseDone,
        needs: Needs,
        judging: Judging | None = None,
    ) -> None:
        self.needs = needs
        self.judging = judging
        self.planned = planned
        self.target = target
        self.concurrency = concurrency
        self.progress = progress
        self.preflight = preflight
        self.grace = grace
        self.on_case = on_case
        self.interrupted_by: str | None = None

    async def execute(self) -> list[list[Observation]]:
        stop = asyncio.Event()
        before = self._catch_signals(stop)
        try:
            if self.preflight:
                await self._probe(stop)
            return await ask_all(
                self.planned,
                self.target,
                concurrency=self.concurrency,
                progress=self.progress,
                stop=stop,
                grace=self.grace,
                on_case=self.on_case,
                judging=self.judging,
            )
        finally:
            loop = asyncio.get_running_loop()
            for number, handler in before.items():
                loop.remove_signal_handler(number)
                # asyncio leaves the default behind; the caller's handler (the command
                # line's, which ends in exit 2) must hold again while the results are written.
                signal.signal(number, handler)
            await self.target.aclose()
            if self.judging is not None:
                await self.judging.target.aclose()

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
        if self.judging is not None and self.judging.refused is None:
            await self._until_stopped(self.judging.target, "judge's pre-flight check", stop)

    async def _until_stopped(
        self, target: AsyncTarget, what: str, stop: asyncio.Event
    ) -> Traced | None:
        probing = asyncio.ensure_future(_probed(target))
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

    def _catch_signals(self, stop: asyncio.Event) -> dict[signal.Signals, _Handler]:
        """Catch SIGINT and SIGTERM for the run; return the handlers they had before."""
        if threading.current_thread() is not threading.main_thread():
            return {}  # pragma: no cover - signal handlers live in the main thread only
        loop = asyncio.get_running_loop()
        before: dict[signal.Signals, _Handler] = {}
        for number in (signal.SIGINT, signal.SIGTERM):
            before[number] = signal.getsignal(number)
            loop.add_signal_handler(number, self._interrupt, number, stop)
        return before

    def _interrupt(self, number: signal.Signals, stop: asyncio.Event) -> None:
        self.interrupted_by = number.name
        stop.set()


async def _probed(target: AsyncTarget) -> Traced | None:
    """`target.probe()`, any `BaseException` but the run's own cancellation a `TargetError`.

    The probe runs in its own task, which lets `SystemExit` and `KeyboardInterrupt` out of
    the event loop: whatever a target raises is turned into an error here, inside the task.
    """
    try:
        return await target.probe()
    except Exception:
        raise  # a Python target's are worded by its adapter; anything else is a bug of ours
    except BaseException as exc:  # noqa: BLE001 - a target cannot end the run
        if isinstance(exc, asyncio.CancelledError) and is_cancelling():
            raise
        raise target_raised(exc) from None


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
