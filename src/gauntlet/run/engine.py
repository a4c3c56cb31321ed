"""The run engine: ask every case with bounded concurrency, then score the answers purely.

`ask_all` is the one edge that touches the world (the target); `score` is a pure function of
the suites and what came back, so the same observations always give the same results.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime
from fractions import Fraction
from typing import NamedTuple

from gauntlet import __version__
from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import AnyCase, GateName, GroundingCase, RefusalCase, RefusalKind
from gauntlet.defaults import DEFAULT_CONCURRENCY
from gauntlet.errors import TargetError
from gauntlet.gates import judge
from gauntlet.gates.readability import said_something
from gauntlet.redact import Redactor
from gauntlet.run.results import (
    RESULTS_SCHEMA_VERSION,
    CaseResult,
    GateResult,
    LanguageCount,
    Outcome,
    Results,
    SuiteResult,
    TargetInfo,
    Totals,
    Verdict,
)
from gauntlet.targets.contract import Target, TargetResponse, check_response

GRACE_SECONDS = 5.0
"""After an interruption, how long cases already sent may take to finish."""

Clock = Callable[[], datetime]
Progress = Callable[[int, int], None]
"""Called with (cases done, cases in all) each time a case is answered."""


class Observation(NamedTuple):
    """What one ask produced: a response, or the reason there is none."""

    response: TargetResponse | None
    error: str | None
    latency_ms: float
    attempts: int = 1
    waited_s: float = 0.0
    asked: bool = True
    """False when an interruption stopped the run before this case was answered."""


NOT_ASKED = Observation(None, None, 0.0, attempts=0, asked=False)


class Planned(NamedTuple):
    """One case to ask, with the suite it belongs to."""

    loaded: LoadedSuite
    position: int
    """The case's place in its suite."""

    @property
    def case(self) -> AnyCase:
        """The case itself."""
        return self.loaded.cases[self.position]


def plan(suites: SuiteSet) -> list[Planned]:
    """Every case of every suite, in load order: the order results are reported in."""
    return [Planned(loaded, i) for loaded in suites.suites for i in range(len(loaded.cases))]


async def ask_one(target: Target, case: AnyCase, pool: Executor | None = None) -> Observation:
    """Ask one case; any failure becomes the observation's error, never an exception.

    A coroutine `ask` is awaited; a plain one runs in `pool` (or asyncio's default pool).
    """
    started = time.perf_counter()
    attempts, waited = 1, 0.0
    try:
        traced = getattr(target, "ask_traced", None)
        answer: object
        if traced is not None and inspect.iscoroutinefunction(traced):
            answer, attempts, waited = await traced(case.prompt, case.language)
        elif inspect.iscoroutinefunction(target.ask):
            answer = await target.ask(case.prompt, case.language)
        else:
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(pool, target.ask, case.prompt, case.language)
            if inspect.isawaitable(answer):
                answer = await answer
        response = check_response(answer)
    except TargetError as exc:
        return Observation(None, str(exc), _since(started), exc.attempts, exc.waited)
    except Exception as exc:  # noqa: BLE001 - a target's own bug errors the case, not the run
        reason = f"the target raised {type(exc).__name__}: {exc}"
        return Observation(None, reason, _since(started))
    return Observation(response, None, _since(started), attempts, waited)


async def ask_all(
    planned: Sequence[Planned],
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
    grace: float = GRACE_SECONDS,
) -> list[Observation]:
    """Ask every planned case, at most `concurrency` at a time, in the plan's order.

    When `stop` is set no new case is sent; cases in flight get `grace` seconds to finish,
    and every case without an answer by then is observed as not asked.
    """
    bound = asyncio.Semaphore(max(1, concurrency))
    halt = stop or asyncio.Event()
    done = 0
    # Sync targets get a pool as wide as the bound: asyncio's default pool has only a few
    # threads on a small machine, which would cap --concurrency without saying so.
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="gauntlet-ask")

    async def guarded(item: Planned) -> Observation:
        nonlocal done
        async with bound:
            if halt.is_set():
                return NOT_ASKED
            observation = await ask_one(target, item.case, pool)
        done += 1
        if progress is not None:
            progress(done, len(planned))
        return observation

    tasks = [asyncio.ensure_future(guarded(item)) for item in planned]
    everything: asyncio.Future[list[Observation]] = asyncio.gather(*tasks)
    stopped: asyncio.Future[list[Observation]] = asyncio.ensure_future(_until(halt))
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
    return [NOT_ASKED if task.cancelled() else task.result() for task in tasks]


async def _until(event: asyncio.Event) -> list[Observation]:
    await event.wait()
    return []


def score(
    planned: Sequence[Planned],
    observations: Sequence[Observation],
    *,
    target: TargetInfo,
    started_at: datetime,
    finished_at: datetime,
    interrupted_by: str | None = None,
    redactor: Redactor | None = None,
) -> Results:
    """Judge every observation and decide the verdict. Pure."""
    redactor = redactor or Redactor()
    cases = [
        _judge_case(item, observation, redactor, interrupted_by)
        for item, observation in zip(planned, observations, strict=True)
    ]
    suites = _suite_results(planned, cases)
    gates = _gate_results(suites, cases)
    totals = _count(cases)
    unreadable = sum(1 for case in cases if case.response is not None and not case.said_something)
    capability = any(scores_capability(item.loaded) for item in planned)
    verdict, reason = decide_verdict(
        errored=totals.errored,
        not_run=totals.not_run,
        interrupted_by=interrupted_by,
        unreadable=unreadable,
        capability_scored=capability,
        failed_gates=[gate.gate for gate in gates if not gate.met],
    )
    return Results(
        schema_version=RESULTS_SCHEMA_VERSION,
        gauntlet_version=__version__,
        started_at=started_at,
        finished_at=finished_at,
        target=target,
        complete=totals.not_run == 0,
        interrupted_by=interrupted_by,
        verdict=verdict,
        verdict_reason=reason,
        capability_scored=capability,
        unreadable_answers=unreadable,
        totals=totals,
        gates=gates,
        suites=suites,
        cases=tuple(cases),
    )


def run_gauntlet(
    suites: SuiteSet,
    target: Target,
    *,
    target_info: TargetInfo,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    clock: Clock = lambda: datetime.now(UTC),
    redactor: Redactor | None = None,
    preflight: bool = True,
    grace: float = GRACE_SECONDS,
) -> Results:
    """Probe, ask and score: the whole of `gauntlet run` but the printing and the file.

    On SIGINT or SIGTERM (in the main thread) no new case is sent, cases in flight get
    `grace` seconds, and the results say the run is incomplete: the verdict is withheld.

    Raises:
        TargetError: the pre-flight check failed (a target with a `probe` method that is
            down or does not speak the contract).
    """
    planned = plan(suites)
    started = clock()
    session = _Session(planned, target, concurrency, progress, preflight, grace)
    observations = asyncio.run(session.run())
    return score(
        planned,
        observations,
        target=target_info,
        started_at=started,
        finished_at=clock(),
        interrupted_by=session.interrupted_by,
        redactor=redactor,
    )


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
    ) -> None:
        self.planned = planned
        self.target = target
        self.concurrency = concurrency
        self.progress = progress
        self.preflight = preflight
        self.grace = grace
        self.interrupted_by: str | None = None

    async def run(self) -> list[Observation]:
        stop = asyncio.Event()
        handled = self._catch_signals(stop)
        try:
            probe = getattr(self.target, "probe", None)
            if self.preflight and probe is not None and inspect.iscoroutinefunction(probe):
                try:
                    await probe()
                except TargetError as exc:
                    raise type(exc)(f"pre-flight check failed: {exc}") from exc
            return await ask_all(
                self.planned,
                self.target,
                concurrency=self.concurrency,
                progress=self.progress,
                stop=stop,
                grace=self.grace,
            )
        finally:
            loop = asyncio.get_running_loop()
            for number in handled:
                loop.remove_signal_handler(number)
            close = getattr(self.target, "aclose", None)
            if close is not None and inspect.iscoroutinefunction(close):
                await close()

    def _catch_signals(self, stop: asyncio.Event) -> list[signal.Signals]:
        if threading.current_thread() is not threading.main_thread():
            return []  # pragma: no cover - signal handlers live in the main thread only
        loop = asyncio.get_running_loop()
        handled = [signal.SIGINT, signal.SIGTERM]
        for number in handled:
            loop.add_signal_handler(number, self._interrupt, number, stop)
        return handled

    def _interrupt(self, number: signal.Signals, stop: asyncio.Event) -> None:
        self.interrupted_by = number.name
        stop.set()


def decide_verdict(
    *,
    errored: int,
    unreadable: int,
    capability_scored: bool,
    failed_gates: Sequence[GateName],
    not_run: int = 0,
    interrupted_by: str | None = None,
) -> tuple[Verdict, str]:
    """The verdict and its reason, by the precedence WITHHELD > UNSCOREABLE > FAIL > PASS.

    That is exit code 2 > 4 > 1 > 0: a run that could not finish never reports a verdict, and
    an unscoreable run is never reported as a gate failure or a pass.
    """
    if not_run or interrupted_by:
        by = f" by {interrupted_by}" if interrupted_by else ""
        cases = "case was" if not_run == 1 else "cases were"
        return Verdict.WITHHELD, f"the run was interrupted{by}: {not_run} {cases} not asked"
    if errored:
        return Verdict.WITHHELD, (
            f"{errored} {'case' if errored == 1 else 'cases'} got no answer, so no verdict"
        )
    if unreadable and not capability_scored:
        return Verdict.UNSCOREABLE, (
            f"{unreadable} {'answer' if unreadable == 1 else 'answers'} said nothing readable "
            "and no loaded suite scores capability, so silence could pass unnoticed"
        )
    if failed_gates:
        names = ", ".join(gate.value for gate in failed_gates)
        count = len(failed_gates)
        return Verdict.FAIL, f"{count} {'gate' if count == 1 else 'gates'} failed: {names}"
    return Verdict.PASS, "every gate met its threshold"


def scores_capability(loaded: LoadedSuite) -> bool:
    """True if a silent target would fail this suite for its silence.

    false_positive and golden suites always do; grounding does with a case that expects a
    grounded answer; refusal does with a crisis case. Adversarial suites, abstentions and
    must-refuse cases can all be satisfied by saying nothing useful.
    """
    gate = loaded.suite.gate
    if gate in (GateName.FALSE_POSITIVE, GateName.GOLDEN):
        return True
    return any(
        (isinstance(case, GroundingCase) and case.expect_grounded)
        or (isinstance(case, RefusalCase) and case.kind is RefusalKind.CRISIS)
        for case in loaded.cases
    )


def _judge_case(
    item: Planned, observation: Observation, redactor: Redactor, interrupted_by: str | None
) -> CaseResult:
    case = item.case
    response = observation.response
    if response is not None:
        response = redactor.response(response)
    if not observation.asked:
        outcome = Outcome.NOT_RUN
        reason = f"not asked: the run was interrupted by {interrupted_by or 'a stop request'}"
    elif response is None:
        outcome, reason = Outcome.ERRORED, redactor.text(observation.error or "no answer")
    else:
        judgement = judge(case, response)
        outcome = Outcome.PASSED if judgement.passed else Outcome.FAILED
        reason = judgement.reason
    return CaseResult(
        suite=item.loaded.suite.suite,
        gate=item.loaded.suite.gate,
        case_id=case.id,
        language=case.language,
        prompt=case.prompt,
        source=item.loaded.source,
        line=item.loaded.case_marks[item.position].line,
        outcome=outcome,
        reason=reason,
        response=response,
        said_something=response is not None and said_something(response),
        latency_ms=observation.latency_ms,
        attempts=observation.attempts,
        waited_s=observation.waited_s,
    )


def _count(cases: Sequence[CaseResult]) -> Totals:
    outcomes = [case.outcome for case in cases]
    return Totals(
        total=len(outcomes),
        passed=outcomes.count(Outcome.PASSED),
        failed=outcomes.count(Outcome.FAILED),
        errored=outcomes.count(Outcome.ERRORED),
        not_run=outcomes.count(Outcome.NOT_RUN),
    )


def _suite_results(
    planned: Sequence[Planned], cases: Sequence[CaseResult]
) -> tuple[SuiteResult, ...]:
    results = []
    seen: dict[str, LoadedSuite] = {}
    for item in planned:
        seen.setdefault(item.loaded.suite.suite, item.loaded)
    for name, loaded in seen.items():
        mine = _count([case for case in cases if case.suite == name])
        suite = loaded.suite
        results.append(
            SuiteResult(
                suite=name,
                gate=suite.gate,
                version=suite.version,
                key_version=getattr(suite, "key_version", None),
                threshold=suite.threshold,
                source=loaded.source,
                total=mine.total,
                passed=mine.passed,
                failed=mine.failed,
                errored=mine.errored,
                not_run=mine.not_run,
                pass_rate=mine.passed / mine.total,
                met=Fraction(mine.passed, mine.total) >= Fraction(str(suite.threshold)),
            )
        )
    return tuple(results)


def _gate_results(
    suites: Sequence[SuiteResult], cases: Sequence[CaseResult]
) -> tuple[GateResult, ...]:
    results = []
    for gate in GateName:
        mine = [suite for suite in suites if suite.gate is gate]
        if not mine:
            continue
        gate_cases = [case for case in cases if case.gate is gate]
        counts = _count(gate_cases)
        languages = sorted({case.language for case in gate_cases})
        results.append(
            GateResult(
                gate=gate,
                suites=tuple(suite.suite for suite in mine),
                total=counts.total,
                passed=counts.passed,
                failed=counts.failed,
                errored=counts.errored,
                not_run=counts.not_run,
                languages=tuple(
                    LanguageCount(
                        language=language,
                        total=sum(1 for c in gate_cases if c.language == language),
                        passed=sum(
                            1
                            for c in gate_cases
                            if c.language == language and c.outcome is Outcome.PASSED
                        ),
                    )
                    for language in languages
                ),
                met=all(suite.met for suite in mine),
            )
        )
    return tuple(results)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
