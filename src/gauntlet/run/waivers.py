"""Applying waivers: which failures a run tolerates, decided against the run's start date.

Pure functions of the cases and the waivers, shared by the run, `gauntlet merge` and every
reader of a results file (which applies the recorded waivers again and refuses a file that
disagrees). A waiver is live from its `created` day through the end of its `expires` day, in
UTC. A case it covers is judged as always; then:

- failed, waiver live: the case is WAIVED (its reason kept) and leaves its suite's denominator;
- passed: the waiver is not needed for it (`--strict-waivers` fails the run for that);
- waiver expired: nothing changes (a failure counts), and the waiver is listed as expired;
- errored, not run or unjudged: nothing changes; a missing answer is never waived.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

from gauntlet.cases.waivers import WaiverInfo
from gauntlet.run.results import CaseResult, Outcome, WaivedCase, WaiverResult, WaiverState
from gauntlet.words import plural


def run_day(started_at: datetime) -> date:
    """The day a run is judged on: its start, in UTC (a naive time is taken as UTC)."""
    if started_at.tzinfo is None:
        return started_at.date()
    return started_at.astimezone(UTC).date()


def covers(waiver: WaiverInfo, case: CaseResult) -> bool:
    """Whether `waiver` names `case` (directly or through its suite) for the case's gate."""
    named = case.case_id == waiver.case if waiver.case is not None else case.suite == waiver.suite
    return named and (waiver.gates is None or case.gate in waiver.gates)


def is_expired(waiver: WaiverInfo, today: date) -> bool:
    """The run started after the waiver's last day."""
    return today > waiver.expires


def apply_waivers(
    cases: Sequence[CaseResult], waivers: Sequence[WaiverInfo], today: date
) -> tuple[list[CaseResult], tuple[WaiverResult, ...]]:
    """`cases` with every live waiver applied, and what each waiver did. Pure.

    A case already WAIVED (a shard's, a file's) is taken as the failure it was, so applying
    the same waivers again gives the same cases. The first waiver that covers a case is its
    waiver (the loader refuses two on one case).
    """
    out: list[CaseResult] = []
    states: list[list[WaivedCase]] = [[] for _ in waivers]
    for case in cases:
        if case.outcome is Outcome.WAIVED:
            case = case.model_copy(update={"outcome": Outcome.FAILED})
        number = next((n for n, waiver in enumerate(waivers) if covers(waiver, case)), None)
        if number is not None:
            state = case_state(waivers[number], case, today)
            states[number].append(WaivedCase(suite=case.suite, case_id=case.case_id, state=state))
            if state is WaiverState.APPLIED:
                case = case.model_copy(update={"outcome": Outcome.WAIVED})
        out.append(case)
    results = tuple(
        WaiverResult(
            **waiver.model_dump(),
            state=waiver_state(waiver, mine, today),
            cases=tuple(mine),
        )
        for waiver, mine in zip(waivers, states, strict=True)
    )
    return out, results


def case_state(waiver: WaiverInfo, case: CaseResult, today: date) -> WaiverState:
    """What `waiver` does to `case` (a case it covers, judged, not yet waived) on `today`."""
    if is_expired(waiver, today):
        return WaiverState.EXPIRED
    if today < waiver.created:
        return WaiverState.NOT_APPLIED
    if case.outcome is Outcome.FAILED:
        return WaiverState.APPLIED
    if case.outcome is Outcome.PASSED:
        return WaiverState.NOT_NEEDED
    return WaiverState.NOT_APPLIED


def waiver_state(waiver: WaiverInfo, cases: Sequence[WaivedCase], today: date) -> WaiverState:
    """A waiver's state over its cases: expired; else applied to any; else not needed by all."""
    if is_expired(waiver, today):
        return WaiverState.EXPIRED
    states = {case.state for case in cases}
    if WaiverState.APPLIED in states:
        return WaiverState.APPLIED
    if states == {WaiverState.NOT_NEEDED}:
        return WaiverState.NOT_NEEDED
    return WaiverState.NOT_APPLIED


def not_needed_cases(waivers: Sequence[WaiverResult]) -> list[str]:
    """The cases of every waiver no longer needed (each case it covers passed), in order."""
    return [
        case.case_id
        for waiver in waivers
        if waiver.state is WaiverState.NOT_NEEDED
        for case in waiver.cases
    ]


def waived_failures(count: int) -> str:
    """` with 2 waived failures`, for a verdict line; empty when nothing was waived."""
    if not count:
        return ""
    return f" with {plural(count, 'waived failure')}"
