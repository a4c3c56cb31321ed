"""The run engine: ask every case with bounded concurrency, then score the answers purely.

`ask_all` is the one edge that touches the world (the target); `score` is a pure function of
the suites and what came back, so the same observations always give the same results.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import NamedTuple

from gauntlet import __version__
from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import AnyCase, GateName, GroundingCase, RefusalCase, RefusalKind
from gauntlet.errors import TargetError
from gauntlet.gates import judge
from gauntlet.gates.readability import said_something
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

DEFAULT_CONCURRENCY = 8

Clock = Callable[[], datetime]
Progress = Callable[[int, int], None]
"""Called with (cases done, cases in all) each time a case is answered."""


class Observation(NamedTuple):
    """What one ask produced: a response, or the reason there is none."""

    response: TargetResponse | None
    error: str | None
    latency_ms: float


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


async def ask_one(target: Target, case: AnyCase) -> Observation:
    """Ask one case; any failure becomes the observation's error, never an exception."""
    started = time.perf_counter()
    try:
        if inspect.iscoroutinefunction(target.ask):
            answer: object = await target.ask(case.prompt, case.language)
        else:
            answer = await asyncio.to_thread(target.ask, case.prompt, case.language)
            if inspect.isawaitable(answer):
                answer = await answer
        response = check_response(answer)
    except TargetError as exc:
        return Observation(None, str(exc), _since(started))
    except Exception as exc:  # noqa: BLE001 - a target's own bug errors the case, not the run
        return Observation(None, f"the target raised {type(exc).__name__}: {exc}", _since(started))
    return Observation(response, None, _since(started))


async def ask_all(
    planned: Sequence[Planned],
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
) -> list[Observation]:
    """Ask every planned case, at most `concurrency` at a time, in the plan's order."""
    bound = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def guarded(item: Planned) -> Observation:
        nonlocal done
        async with bound:
            observation = await ask_one(target, item.case)
        done += 1
        if progress is not None:
            progress(done, len(planned))
        return observation

    return list(await asyncio.gather(*(guarded(item) for item in planned)))


def score(
    planned: Sequence[Planned],
    observations: Sequence[Observation],
    *,
    target: TargetInfo,
    started_at: datetime,
    finished_at: datetime,
) -> Results:
    """Judge every observation and decide the verdict. Pure."""
    cases = [
        _judge_case(item, observation)
        for item, observation in zip(planned, observations, strict=True)
    ]
    suites = _suite_results(planned, cases)
    gates = _gate_results(suites, cases)
    totals = _count(cases)
    unreadable = sum(1 for case in cases if case.response is not None and not case.said_something)
    capability = any(scores_capability(item.loaded) for item in planned)
    verdict, reason = decide_verdict(
        errored=totals.errored,
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
) -> Results:
    """Load, ask and score: the whole of `gauntlet run` but the printing and the file."""
    planned = plan(suites)
    started = clock()
    observations = asyncio.run(
        _ask_then_close(planned, target, concurrency=concurrency, progress=progress)
    )
    return score(planned, observations, target=target_info, started_at=started, finished_at=clock())


async def _ask_then_close(
    planned: Sequence[Planned], target: Target, *, concurrency: int, progress: Progress | None
) -> list[Observation]:
    try:
        return await ask_all(planned, target, concurrency=concurrency, progress=progress)
    finally:
        close = getattr(target, "aclose", None)
        if close is not None and inspect.iscoroutinefunction(close):
            await close()


def decide_verdict(
    *,
    errored: int,
    unreadable: int,
    capability_scored: bool,
    failed_gates: Sequence[GateName],
) -> tuple[Verdict, str]:
    """The verdict and its reason, by the precedence WITHHELD > UNSCOREABLE > FAIL > PASS.

    That is exit code 2 > 4 > 1 > 0: a run that could not finish never reports a verdict, and
    an unscoreable run is never reported as a gate failure or a pass.
    """
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


def _judge_case(item: Planned, observation: Observation) -> CaseResult:
    case = item.case
    response = observation.response
    if response is None:
        outcome, reason = Outcome.ERRORED, observation.error or "no answer"
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
    )


def _count(cases: Sequence[CaseResult]) -> Totals:
    return Totals(
        total=len(cases),
        passed=sum(1 for c in cases if c.outcome is Outcome.PASSED),
        failed=sum(1 for c in cases if c.outcome is Outcome.FAILED),
        errored=sum(1 for c in cases if c.outcome is Outcome.ERRORED),
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
