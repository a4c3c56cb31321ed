"""What a stored run's own rows say: each case from its asks, the run's verdict from its cases.

A history is read the way a results file is (`gauntlet.run.results_file`): whatever can be
derived is derived again, and a stored value that disagrees is a damaged row, never shown. The
store calls these on every row it reads (`gauntlet.history.store.load_history`), so `history
list`, `show`, `trend`, the dashboard and `report --history` all see only rows that agree.

A case, from its asks (the `trials` table): as many asks as its `repeats`, its `passes` the
asks passed, its outcome by `gauntlet.run.tally.decide_case`'s rule (not run, errored or
unjudged if any ask was, in that order; else passed when at least `pass_k` asks passed; else
failed, or waived: a failure a waiver tolerated), its tokens the sum of its asks' when every
ask reported them, its latency within its asks'.

A run's verdict, from its cases, by `gauntlet.run.tally.decide_verdict`'s precedence: withheld
exactly when it was interrupted or a case was not run, errored or is unjudged; otherwise a pass
only when every suite met its threshold (waived failures left out of the rate) and, with
`parity: required`, no parity pair's outcomes differ but through waived failures. A fail or an
unscoreable verdict over suites that all met theirs is accepted: what else decides those (a
waiver no longer needed under `--strict-waivers`, answers that said nothing) is not stored,
and neither can turn a failure into a pass. A run stored before the history kept thresholds
(schema 3) is held to what every threshold allows: a suite none of whose counted cases passed
never met one (a threshold is above 0).

What cannot be derived is the file's custody: a waiver's existence, the asks' own outcomes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from gauntlet.cases.model import (
    CASE_ID_PATTERN,
    ID_PATTERN,
    LANGUAGE_PATTERN,
    MAX_CASE_ID_LENGTH,
    MAX_ID_LENGTH,
    GateName,
    ParityRule,
)
from gauntlet.display import printable
from gauntlet.history.numbers import tokens_or_none
from gauntlet.history.records import CaseRecord, RunRecord
from gauntlet.run.results import Outcome, Verdict
from gauntlet.words import plural

_SPECIAL = (Outcome.NOT_RUN, Outcome.ERRORED, Outcome.UNJUDGED)
"""Outcomes of an ask that decide its case whatever the others did, in this order."""
_DECIDED = frozenset({Outcome.PASSED, Outcome.FAILED, Outcome.WAIVED})
_GATES = frozenset(gate.value for gate in GateName)


@dataclass(frozen=True)
class StoredSuite:
    """A suite of a stored run, with what scoring it needs (None before schema 3)."""

    name: str
    threshold: float | None
    pass_k: int | None
    parity: str | None


@dataclass(frozen=True)
class StoredAsk:
    """One ask of a stored case: the `trials` table's row."""

    number: int
    outcome: str
    latency_ms: float
    tokens: int | None


@dataclass(frozen=True)
class StoredRun:
    """What a run's row says beyond its record: whether it finished, and its shard."""

    complete: bool
    interrupted_by: str | None
    sharded: bool


def name_problem(case: CaseRecord) -> str | None:
    """Why a case's suite, id, gate or language is not one a case file could give; or None."""
    # A case id as run: a variant's (`<case id>~<transform>`) is one the loader derives.
    for column, value, pattern, longest in (
        ("suite", case.suite, ID_PATTERN, MAX_ID_LENGTH),
        ("case_id", case.case_id, CASE_ID_PATTERN, MAX_CASE_ID_LENGTH),
    ):
        if len(value) > longest or not re.fullmatch(pattern, value):
            return f"{column}: {printable(value)!r} is not an identifier"
    if case.gate not in _GATES:
        return f"gate: {printable(case.gate)!r} is not a gate"
    if not re.fullmatch(LANGUAGE_PATTERN, case.language):
        return f"language: {printable(case.language)!r} is not a language tag"
    return None


def case_problems(
    case: CaseRecord, asks: Sequence[StoredAsk], suite: StoredSuite | None
) -> list[str]:
    """Every way `case` disagrees with its asks (and its suite's `pass_k`)."""
    named = name_problem(case)
    if named is not None:
        return [named]
    if suite is None:
        return [f"suite: {case.suite} is not among its run's suites"]
    if [ask.number for ask in asks] != list(range(1, len(asks) + 1)):
        return ["its asks are not numbered 1, 2, ..."]
    if case.repeats != len(asks):
        return [f"repeats {case.repeats}, but it has {plural(len(asks), 'ask')}"]
    problems = []
    passes = sum(ask.outcome == Outcome.PASSED for ask in asks)
    if case.passes != passes:
        problems.append(f"passes {case.passes}, but its asks give {passes}")
    allowed = _outcomes(asks, passes, suite.pass_k)
    if case.outcome not in allowed:
        problems.append(
            f"outcome {case.outcome!r}, but its asks give {' or '.join(map(repr, allowed))}"
        )
    counts = [ask.tokens for ask in asks]
    tokens = (
        tokens_or_none(sum(count for count in counts if count is not None))
        if counts and None not in counts
        else None
    )
    if case.tokens != tokens:
        problems.append(
            f"tokens {case.tokens}, but its asks give {'none' if tokens is None else tokens}"
        )
    latencies = [ask.latency_ms for ask in asks]
    if case.latency_ms is not None and not (
        latencies and min(latencies) <= case.latency_ms <= max(latencies)
    ):
        span = f"{min(latencies)} to {max(latencies)} ms" if latencies else "no time"
        problems.append(
            f"latency_ms {case.latency_ms} is not the median of its asks: they took {span}"
        )
    return problems


def _outcomes(asks: Sequence[StoredAsk], passes: int, pass_k: int | None) -> tuple[str, ...]:
    """The outcomes a case with these asks may have (one, but where `pass_k` is unknown)."""
    for special in _SPECIAL:
        if any(ask.outcome == special for ask in asks):
            return (special.value,)
    failed = any(ask.outcome == Outcome.FAILED for ask in asks)
    if pass_k is not None:
        if passes >= pass_k:
            return (Outcome.PASSED.value,)
        return (Outcome.FAILED.value, Outcome.WAIVED.value)
    return tuple(
        outcome.value
        for outcome, possible in (
            (Outcome.PASSED, passes >= 1),
            (Outcome.FAILED, failed),
            (Outcome.WAIVED, failed),
        )
        if possible
    )


def verdict_problem(
    run: RunRecord,
    stored: StoredRun,
    suites: Sequence[StoredSuite],
    cases: Sequence[CaseRecord],
    pairs: dict[tuple[str, str], str | None],
) -> str | None:
    """Why `run`'s verdict (or `complete`) is not what its cases give; None when it agrees.

    `pairs` maps each (suite, case id) of the run to its parity pair key (None: no pair, or
    not stored).
    """
    not_run = sum(case.outcome == Outcome.NOT_RUN for case in cases)
    if stored.complete != (not_run == 0):
        cases_not_run = plural(not_run, "case was", "cases were")
        return f"complete {int(stored.complete)}, but {cases_not_run} not run"
    held = [case for case in cases if case.outcome in {special.value for special in _SPECIAL}]
    claim = f"verdict {printable(run.verdict)!r}, but its cases give"
    if not cases and stored.sharded:
        allowed, why = {Verdict.PASS.value}, "a shard that holds no case passes"
    elif stored.interrupted_by is not None or held:
        why = (
            f"it was interrupted by {printable(stored.interrupted_by)}"
            if stored.interrupted_by is not None
            else f"case {held[0].case_id} is {held[0].outcome.replace('_', ' ')}"
        )
        allowed = {Verdict.WITHHELD.value}
    else:
        unmet = [found for suite in suites if (found := _unmet(suite, cases, pairs)) is not None]
        allowed = {Verdict.FAIL.value, Verdict.UNSCOREABLE.value}
        if unmet:
            why = "; ".join(unmet)
        else:
            allowed.add(Verdict.PASS.value)
            why = "every case was answered and judged, and every suite met its threshold"
    if run.verdict in allowed:
        return None
    said = " or ".join(repr(verdict.value) for verdict in Verdict if verdict.value in allowed)
    return f"{claim} {said}: {why}"


def _unmet(
    suite: StoredSuite, cases: Sequence[CaseRecord], pairs: dict[tuple[str, str], str | None]
) -> str | None:
    """Why `suite` cannot have met its threshold (or parity), by `tally`'s rule; None if it did."""
    own = [case for case in cases if case.suite == suite.name]
    waived = sum(case.outcome == Outcome.WAIVED for case in own)
    passed = sum(case.outcome == Outcome.PASSED for case in own)
    counted = len(own) - waived
    rate = f"suite {suite.name} passed {passed} of {plural(counted, 'counted case')}"
    if counted == 0:
        return None if waived else f"suite {suite.name} has no case"
    if suite.threshold is None:
        if passed == 0:
            return f"{rate}, which no threshold allows"
    elif Fraction(passed, counted) < Fraction(str(suite.threshold)):
        return f"{rate}, under its threshold {suite.threshold:g}"
    if suite.parity == ParityRule.REQUIRED:
        differing = _differing_pair(own, pairs)
        if differing is not None:
            return f"suite {suite.name} requires parity, and pair {differing} differs"
    return None


def _differing_pair(
    cases: Sequence[CaseRecord], pairs: dict[tuple[str, str], str | None]
) -> str | None:
    """The first parity pair whose sides were all decided and differ but through waivers."""
    groups: dict[str, list[CaseRecord]] = {}
    for case in cases:
        key = pairs.get((case.suite, case.case_id))
        if key is not None:
            groups.setdefault(key, []).append(case)
    for key, sides in groups.items():
        decided = len(sides) >= 2 and all(side.outcome in _DECIDED for side in sides)
        judged = {
            Outcome.FAILED.value if side.outcome == Outcome.WAIVED else side.outcome
            for side in sides
        }
        if decided and len(judged) > 1 and any(side.outcome == Outcome.FAILED for side in sides):
            return key
    return None
