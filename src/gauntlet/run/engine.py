"""The run engine: ask every case (K times each) with bounded concurrency, then score.

Asking is the one edge that touches the world (the target); scoring is pure
(`gauntlet.run.scoring`), so the same observations always give the same results. A run may be
one shard of a larger one (`--shard K/N`), journals every finished case so a killed run can
resume, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import inspect
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from types import FrameType
from typing import Any, NamedTuple

from pydantic import ValidationError

from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import AnyCase
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import Interrupted, TargetContractError, TargetError, UsageError
from gauntlet.evidence.digest import canonical_json
from gauntlet.redact import Redactor
from gauntlet.run.journal import Journal
from gauntlet.run.results import CaseResult, Plan, Results, Shard, SuiteInfo, TargetInfo
from gauntlet.run.scoring import judge_case, suite_info
from gauntlet.run.tally import shard_of, summarize
from gauntlet.targets.contract import (
    Message,
    Target,
    TargetResponse,
    check_response,
    describe_contract_errors,
)

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
    "NOT_ASKED",
    "Observation",
    "Planned",
    "ask_all",
    "ask_one",
    "plan",
    "run_gauntlet",
    "score",
]


class Observation(NamedTuple):
    """What one ask produced: a response, or the reason there is none."""

    response: TargetResponse | None
    error: str | None
    latency_ms: float
    attempts: int = 1
    waited_s: float = 0.0
    asked: bool = True
    """False when an interruption stopped the run before this ask was answered."""
    conversation: tuple[TargetResponse, ...] = ()
    """For a multi-turn case, every turn's answer so far, in order."""


NOT_ASKED = Observation(None, None, 0.0, attempts=0, asked=False)


class Planned(NamedTuple):
    """One case to ask, with its suite and its place in the whole plan."""

    loaded: LoadedSuite
    position: int
    """The case's place in its suite."""
    plan_index: int
    """The case's place in the whole plan, before sharding."""
    info: SuiteInfo

    @property
    def case(self) -> AnyCase:
        """The case itself."""
        return self.loaded.cases[self.position]


class RunPlan(NamedTuple):
    """The cases this run asks, the suites they belong to, and what the whole run covers."""

    items: list[Planned]
    suites: list[SuiteInfo]
    plan: Plan
    shard: Shard | None


def plan(suites: SuiteSet, *, repeat: int = 1, shard: Shard | None = None) -> RunPlan:
    """Every case of every suite, in load order, each asked `repeat` times or more.

    Raises:
        UsageError: a suite's `pass_k` is more than the asks it gets.
    """
    items: list[Planned] = []
    infos: list[SuiteInfo] = []
    described = []
    index = 0
    for loaded in suites.suites:
        info = suite_info(loaded, repeat)
        if info.pass_k > info.repeat:
            raise UsageError(
                f"{loaded.source}: pass_k {info.pass_k} is more than the {info.repeat} asks "
                f"suite {info.suite} gets; raise --repeat or lower pass_k"
            )
        described.append({**info.model_dump(mode="json", exclude={"source"}), "cases": []})
        kept = False
        for position, case in enumerate(loaded.cases):
            # The whole case, not only its id: a journal or a shard made before its prompt,
            # markers or expected answer changed must not pass for this plan's.
            described[-1]["cases"].append(case.model_dump(mode="json"))
            if shard is None or shard_of(info.suite, case.id, shard.count) == shard.index:
                items.append(Planned(loaded, position, index, info))
                kept = True
            index += 1
        if kept:
            infos.append(info)
    digest = "sha256:" + hashlib.sha256(canonical_json(described)).hexdigest()
    return RunPlan(items, infos, Plan(cases=index, digest=digest, repeat=repeat), shard)


async def ask_one(
    target: Target,
    case: AnyCase,
    pool: Executor | None = None,
    stop: asyncio.Event | None = None,
) -> Observation:
    """Ask one case once; any failure becomes the observation's error, never an exception.

    A multi-turn case is a conversation: each turn is asked with the earlier turns (the
    user's messages and the target's own answers) as `history`, one after another. A
    coroutine `ask` is awaited; a plain one runs in `pool` (or asyncio's default pool). A
    target whose `ask_traced` takes `stop` stops waiting to retry when it is set, and the
    case is then observed as not asked.
    """
    started = time.perf_counter()
    messages = case.messages
    conversation: list[TargetResponse] = []
    history: list[Message] = []
    attempts, waited = 0, 0.0
    for number, message in enumerate(messages, start=1):
        at = f"turn {number} of {len(messages)}: " if len(messages) > 1 else ""
        try:
            answer, tries, wait = await _ask(
                target,
                message,
                case.language,
                tuple(history) if len(messages) > 1 else None,
                pool,
                stop,
            )
            response = check_response(answer)
        except Interrupted:
            return Observation(
                None, None, _since(started), attempts, waited, asked=False,
                conversation=tuple(conversation),
            )  # fmt: skip
        except TargetError as exc:
            return Observation(
                None, at + str(exc), _since(started), attempts + exc.attempts,
                waited + exc.waited, conversation=tuple(conversation),
            )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - a target's own bug errors the case, not the run
            reason = at + _raised(exc)
            return Observation(
                None, reason, _since(started), attempts + 1, waited,
                conversation=tuple(conversation),
            )  # fmt: skip
        attempts, waited = attempts + tries, waited + wait
        conversation.append(response)
        history += [
            Message(role="user", content=message),
            Message(role="assistant", content=response.text),
        ]
    return Observation(
        conversation[-1], None, _since(started), attempts, waited,
        conversation=tuple(conversation) if len(messages) > 1 else (),
    )  # fmt: skip


async def _ask(
    target: Target,
    prompt: str,
    language: str,
    history: tuple[Message, ...] | None,
    pool: Executor | None,
    stop: asyncio.Event | None,
) -> tuple[object, int, float]:
    extra: dict[str, object] = {}
    if history is not None:
        if not _takes_history(target):
            raise TargetContractError(
                f"{target.name} holds no conversations: its ask() takes no `history`, and "
                "multi-turn cases need ask(prompt, language, history=...)"
            )
        extra["history"] = history
    traced = getattr(target, "ask_traced", None)
    if traced is not None and inspect.iscoroutinefunction(traced):
        if stop is not None and _takes(traced, "stop"):
            extra["stop"] = stop
        answer, attempts, waited = await traced(prompt, language, **extra)
        return answer, attempts, waited
    if inspect.iscoroutinefunction(target.ask):
        return await target.ask(prompt, language, **extra), 1, 0.0
    loop = asyncio.get_running_loop()
    answer = await loop.run_in_executor(pool, partial(target.ask, prompt, language, **extra))
    if inspect.isawaitable(answer):
        answer = await answer
    return answer, 1, 0.0


def _raised(error: Exception) -> str:
    """Why a target's own exception errors its case, in the contract's words when it can.

    A Python target that builds a `TargetResponse` breaking the contract meets pydantic's
    refusal in its own code; that is a contract error, and it reads as one.
    """
    if isinstance(error, ValidationError) and error.title == TargetResponse.__name__:
        return describe_contract_errors(error)
    return f"the target raised {type(error).__name__}: {error}"


def _takes(method: Callable[..., object], name: str) -> bool:
    # Asked for every ask: looked up once per function, not once per call (a signature costs
    # more than the rest of the engine's own work for one request).
    return _accepts(getattr(method, "__func__", method), name)


@functools.cache
def _accepts(function: Callable[..., object], name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def _takes_history(target: Target) -> bool:
    method = getattr(target, "ask_traced", None) or target.ask
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return any(p.name == "history" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


CaseDone = Callable[[Planned, list[Observation]], None]
"""Called with a case and its observations as soon as every ask of it is answered."""


async def ask_all(
    planned: Sequence[Planned],
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
    grace: float = GRACE_SECONDS,
    on_case: CaseDone | None = None,
) -> list[list[Observation]]:
    """Ask every planned case its repeats, at most `concurrency` asks at a time.

    A case's asks go one after another; cases go side by side. The result keeps the plan's
    order. When `stop` is set no new ask is sent; asks in flight get `grace` seconds to
    finish, and every ask without an answer by then is observed as not asked.
    """
    bound = asyncio.Semaphore(max(1, concurrency))
    halt = stop or asyncio.Event()
    total = sum(item.info.repeat for item in planned)
    done = 0
    # Sync targets get a pool as wide as the bound: asyncio's default pool has only a few
    # threads on a small machine, which would cap --concurrency without saying so.
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="gauntlet-ask")
    answered: dict[int, list[Observation]] = {}

    async def one_case(item: Planned) -> None:
        nonlocal done
        observations = answered.setdefault(item.plan_index, [])
        for _ in range(item.info.repeat):
            async with bound:
                if halt.is_set():
                    return
                observation = await ask_one(target, item.case, pool, halt)
            observations.append(observation)
            done += 1
            if progress is not None:
                progress(done, total)
        if on_case is not None:
            on_case(item, observations)

    tasks = [asyncio.ensure_future(one_case(item)) for item in planned]
    everything: asyncio.Future[list[None]] = asyncio.gather(*tasks)
    stopped: asyncio.Future[list[None]] = asyncio.ensure_future(_until(halt))
    try:
        await asyncio.wait([everything, stopped], return_when=asyncio.FIRST_COMPLETED)
        if not everything.done():
            await asyncio.wait({everything}, timeout=grace)
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await everything
    finally:
        stopped.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
    return [_padded(answered.get(item.plan_index, []), item.info.repeat) for item in planned]


def _padded(observations: list[Observation], repeat: int) -> list[Observation]:
    return observations + [NOT_ASKED] * (repeat - len(observations))


async def _until(event: asyncio.Event) -> list[None]:
    await event.wait()
    return []


def score(
    run_plan: RunPlan,
    observations: Sequence[Sequence[Observation]],
    *,
    target: TargetInfo,
    started_at: datetime,
    finished_at: datetime,
    interrupted_by: str | None = None,
    redactor: Redactor | None = None,
    earlier: Sequence[CaseResult] = (),
    run_id: str | None = None,
) -> Results:
    """Judge every observation and decide the verdict. Pure.

    `earlier` holds cases already judged: by an earlier, interrupted run being resumed, or
    as they finished.
    """
    redactor = redactor or Redactor()
    cases = [
        judge_case(item, list(seen), redactor=redactor, interrupted_by=interrupted_by)
        for item, seen in zip(run_plan.items, observations, strict=True)
    ]
    return summarize(
        [*earlier, *cases],
        run_plan.suites,
        target=target,
        plan=run_plan.plan,
        shard=run_plan.shard,
        started_at=started_at,
        finished_at=finished_at,
        interrupted_by=interrupted_by,
        run_id=run_id,
    )


def run_gauntlet(
    suites: SuiteSet,
    target: Target,
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
) -> Results:
    """Probe, ask and score: the whole of `gauntlet run` but the printing and the file.

    `run_id` is the id the CI system gave the run, recorded so shards of different runs
    cannot be merged. With a `journal`, every finished case is appended to it as it
    finishes, and cases the journal already holds (from an interrupted run being resumed)
    are not asked again.
    On SIGINT or SIGTERM (in the main thread) no new ask is sent, asks in flight get `grace`
    seconds, and the results say the run is incomplete: the verdict is withheld.

    Raises:
        TargetError: the pre-flight check failed (a target with a `probe` method that is
            down or does not speak the contract).
        UsageError: a suite's `pass_k` is more than its asks.
    """
    redactor = redactor or Redactor()
    run_plan = plan(suites, repeat=repeat, shard=shard)
    earlier = journal.start(run_plan.plan, shard, target_info.name, run_id) if journal else {}
    todo = [item for item in run_plan.items if item.plan_index not in earlier]
    started = clock()

    judged: dict[int, CaseResult] = {}

    def finished(item: Planned, observations: list[Observation]) -> None:
        # Judged once, as soon as every ask is answered: the journal and the results share it.
        case = judge_case(item, observations, redactor=redactor)
        judged[item.plan_index] = case
        if journal is not None:
            journal.append(case)

    session = _Session(todo, target, concurrency, progress, preflight, grace, finished)
    observations = asyncio.run(session.run())
    if journal is not None and session.interrupted_by is not None:
        journal.keep()  # even with nothing finished yet: --resume continues this run
    unfinished = [
        (item, seen)
        for item, seen in zip(todo, observations, strict=True)
        if item.plan_index not in judged
    ]
    results = score(
        run_plan._replace(items=[item for item, _ in unfinished]),
        [seen for _, seen in unfinished],
        target=target_info,
        started_at=started,
        finished_at=clock(),
        interrupted_by=session.interrupted_by,
        redactor=redactor,
        earlier=[*earlier.values(), *judged.values()],
        run_id=run_id,
    )
    return results


class _Session:
    """One run's asyncio side: the probe, the asks, the signal handlers, closing the target."""

    def __init__(
        self,
        planned: Sequence[Planned],
        target: Target,
        concurrency: int,
        progress: Progress | None,
        preflight: bool,
        grace: float,
        on_case: CaseDone,
    ) -> None:
        self.planned = planned
        self.target = target
        self.concurrency = concurrency
        self.progress = progress
        self.preflight = preflight
        self.grace = grace
        self.on_case = on_case
        self.interrupted_by: str | None = None

    async def run(self) -> list[list[Observation]]:
        stop = asyncio.Event()
        before = self._catch_signals(stop)
        try:
            probe = getattr(self.target, "probe", None)
            if self.preflight and probe is not None and inspect.iscoroutinefunction(probe):
                await self._probe(probe, stop)
            return await ask_all(
                self.planned,
                self.target,
                concurrency=self.concurrency,
                progress=self.progress,
                stop=stop,
                grace=self.grace,
                on_case=self.on_case,
            )
        finally:
            loop = asyncio.get_running_loop()
            for number, handler in before.items():
                loop.remove_signal_handler(number)
                # asyncio leaves the default behind; the caller's handler (the command
                # line's, which ends in exit 2) must hold again while the results are written.
                signal.signal(number, handler)
            close = getattr(self.target, "aclose", None)
            if close is not None and inspect.iscoroutinefunction(close):
                await close()

    async def _probe(self, probe: Callable[[], Awaitable[object]], stop: asyncio.Event) -> None:
        """The pre-flight check, stopped at once by a signal (its waits can last a minute).

        Raises:
            TargetError: the probe failed, with "pre-flight check failed" in front.
            Interrupted: a signal came first; nothing was asked.
        """
        probing = asyncio.ensure_future(probe())
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
                "pre-flight check; no case was asked"
            )
        try:
            probing.result()
        except TargetError as exc:
            raise type(exc)(f"pre-flight check failed: {exc}") from exc

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


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
