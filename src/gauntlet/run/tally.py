"""Tallying: a case's outcome from its asks, counts from outcomes, the verdict from counts.

Pure functions of what a run recorded, shared by the run (`gauntlet.run.scoring`), `gauntlet
merge`, and every reader of a results file, which re-derives each of these values and refuses a
file that disagrees (`gauntlet.run.results_file`): a results file cannot say PASS unless its
own cases do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple, Protocol, TypeVar

from gauntlet.cases.model import GateName, ParityRule
from gauntlet.gates import GATE_SPECS
from gauntlet.languages import in_column_order
from gauntlet.proportions import wilson_interval
from gauntlet.run.results import (
    RESULTS_SCHEMA_VERSION,
    CaseResult,
    GateResult,
    GateState,
    JudgeCheck,
    LanguageCount,
    Outcome,
    Results,
    SuiteInfo,
    SuiteResult,
    Totals,
    Trial,
    TurnResult,
    Verdict,
)
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.run.waivers import apply_waivers, not_needed_cases, run_day
from gauntlet.semantic.check import SimilarityCheck
from gauntlet.targets.contract import FINISH_REASON_LENGTH
from gauntlet.version import __version__
from gauntlet.words import noun, plural


def shard_of(suite: str, case_id: str, count: int, pair: str | None = None) -> int:
    """The 1-based shard of a case, from a hash of its suite and id (or its pair key).

    A hash, not a position: adding a case moves no other case to another shard. A paired
    case is placed by its suite and pair key instead of its id, so every side of a pair is in
    one shard, which can then compare them.
    """
    key = case_id if pair is None else f"pair\0{pair}"
    digest = hashlib.sha256(f"{suite}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def conversation_outcome(turns: Sequence[TurnResult]) -> tuple[Outcome, str]:
    """A conversation's outcome from its turns: it fails at the first turn that failed.

    A conversation of no turn is errored: that no turn failed says nothing of it.
    """
    if not turns:
        return Outcome.ERRORED, "the conversation recorded no turn, so there is nothing to judge"
    failing = next(((n, t) for n, t in enumerate(turns, 1) if not t.passed), None)
    if failing is None:
        return Outcome.PASSED, ""
    return Outcome.FAILED, f"turn {failing[0]} of {len(turns)}: {failing[1].reason}"


def judged_outcome(checks: Sequence[JudgeCheck]) -> tuple[Outcome, str]:
    """An ask's outcome from what the judge made of an answer the gate's checks passed.

    Failed if any check failed; else unjudged if any is (or there is none: a case with judged
    checks is never passed without them); else passed. The judge can fail an ask, never pass
    one the gate failed: it is asked only when the gate passed.
    """
    if not checks:
        return Outcome.UNJUDGED, "the judge was not asked"
    for outcome in (Outcome.FAILED, Outcome.UNJUDGED):
        # Once each: a judge that may not vote gives every check the same reason.
        reasons = {f"judge: {check.reason}": None for check in checks if check.outcome == outcome}
        if reasons:
            return outcome, "; ".join(reasons)
    return Outcome.PASSED, ""


def similarity_outcome(check: SimilarityCheck) -> tuple[Outcome, str]:
    """An ask's outcome from a similarity check of an answer the gate's checks passed."""
    outcome = Outcome(check.outcome)
    return outcome, "" if outcome is Outcome.PASSED else f"similarity: {check.reason}"


def after_gate_outcome(
    checks: Sequence[JudgeCheck] | None, similarity: SimilarityCheck | None
) -> tuple[Outcome, str]:
    """An ask's outcome from every check made after the gate passed its answer.

    `checks` are the judge's (None when the case has no judged checks), `similarity` the
    similarity check (None when the case compares no meaning). Failed if any failed; else
    unjudged if any is (or nothing was checked); else passed. Asked only when the gate passed,
    they can fail an ask or leave it unjudged, never pass one the gate failed.
    """
    decided = []
    if checks is not None:
        decided.append(judged_outcome(checks))
    if similarity is not None:
        decided.append(similarity_outcome(similarity))
    if not decided:
        return Outcome.UNJUDGED, "nothing was checked after the gate"
    for outcome in (Outcome.FAILED, Outcome.UNJUDGED):
        reasons = [reason for each, reason in decided if each is outcome]
        if reasons:
            return outcome, "; ".join(reasons)
    return Outcome.PASSED, ""


def is_flaky(trials: Sequence[Trial]) -> bool:
    """Some asks passed and some failed: the target answers the case inconsistently."""
    outcomes = [trial.outcome for trial in trials]
    return Outcome.PASSED in outcomes and Outcome.FAILED in outcomes


def decide_case(trials: Sequence[Trial], repeats: int, pass_k: int) -> tuple[Outcome, str]:
    """A case's outcome and reason from its asks.

    Not run, errored or unjudged if any ask was, in that order (the first such ask's reason);
    otherwise passed when at least `pass_k` asks passed, else failed with the first failing
    ask's reason. An unjudged ask is never counted toward `pass_k`, nor against it: the case
    waits for a verdict the judge did not give.

    Errored, never passed nor a traceback, when the asks do not match the plan: not
    `repeats` of them, a `pass_k` outside 1 to `repeats`, or an ask with an outcome only a
    case can have (`waived`). The engine records none of these; a results file scored
    again may hold anything.
    """
    cannot = ", so the case cannot be decided"
    if len(trials) != repeats:
        return (
            Outcome.ERRORED,
            f"{plural(len(trials), 'ask')} recorded for {repeats} planned{cannot}",
        )
    if not 1 <= pass_k <= repeats:
        return Outcome.ERRORED, f"pass_k {pass_k} for {plural(repeats, 'ask')}{cannot}"
    for number, trial in enumerate(trials, start=1):
        if trial.outcome not in _ASK_OUTCOMES:
            return Outcome.ERRORED, (
                f"ask {number} of {repeats} is {trial.outcome.value}, which an ask never is{cannot}"
            )
    for special in (Outcome.NOT_RUN, Outcome.ERRORED, Outcome.UNJUDGED):
        for number, trial in enumerate(trials, start=1):
            if trial.outcome is special:
                return special, _nth(_noted(trial), number, repeats)
    passes = sum(1 for trial in trials if trial.outcome is Outcome.PASSED)
    if passes >= pass_k:
        return Outcome.PASSED, ""
    number, first = next((n, t) for n, t in enumerate(trials, 1) if t.outcome is Outcome.FAILED)
    if repeats == 1:
        return Outcome.FAILED, _noted(first)
    return Outcome.FAILED, (
        f"passed {passes}/{repeats} asks, needs {pass_k}; ask {number}: {_noted(first)}"
    )


_ASK_OUTCOMES = frozenset(
    {Outcome.PASSED, Outcome.FAILED, Outcome.ERRORED, Outcome.NOT_RUN, Outcome.UNJUDGED}
)
"""What one ask can come to; `waived` is a case's, given after its asks are decided."""


CUT_AT_MAX_TOKENS = "the answer was cut at max_tokens (finish_reason: length)"
"""What a case's reason adds when the ask it names was cut by the target's token limit: the
answer may have failed for its length, not its content (the outcome is unchanged)."""


def _noted(trial: Trial) -> str:
    """An ask's reason, with `CUT_AT_MAX_TOKENS` when its answer was cut there."""
    if trial.finish_reason != FINISH_REASON_LENGTH:
        return trial.reason
    return f"{trial.reason}; {CUT_AT_MAX_TOKENS}" if trial.reason else CUT_AT_MAX_TOKENS


def _nth(reason: str, number: int, repeats: int) -> str:
    return reason if repeats == 1 else f"ask {number} of {repeats}: {reason}"


def summarize(
    cases: Sequence[CaseResult],
    suites: Sequence[SuiteInfo],
    settings: RunSettings,
    span: RunSpan,
) -> Results:
    """Count, score every suite and gate, and decide the verdict.

    The settings' waivers are applied against the day the run started in UTC (see
    `gauntlet.run.waivers`); with `strict_waivers`, a waiver no longer needed fails the run.
    """
    shard = settings.shard
    ordered, waiver_results = apply_waivers(
        sorted(cases, key=lambda case: case.index), settings.waivers, run_day(span.started_at)
    )
    suite_results = tuple(_suite_result(info, ordered) for info in suites)
    gates = _gate_results(suite_results, ordered)
    totals = Totals.of(case.outcome for case in ordered)
    grounds = VerdictGrounds.of(
        ordered,
        totals,
        capability_scored=any(info.capability for info in suites),
        failed_gates=tuple(gate.gate for gate in gates if not gate.met),
        interrupted_by=span.interrupted_by,
        not_needed=not_needed_cases(waiver_results) if settings.strict_waivers else (),
    )
    verdict, reason = decide_verdict(grounds)
    if not ordered and shard is not None:  # a shard of a small run may hold no case
        verdict, reason = Verdict.PASS, "this shard holds no case; the merged run's verdict counts"
    return Results(
        schema_version=RESULTS_SCHEMA_VERSION,
        gauntlet_version=__version__,
        started_at=span.started_at,
        finished_at=span.finished_at,
        target=settings.target,
        judge=settings.judge_info,
        embedder=settings.embedder_info,
        plan=settings.plan,
        shard=shard,
        run_id=settings.run_id,
        complete=totals.not_run == 0,
        interrupted_by=span.interrupted_by,
        verdict=verdict,
        verdict_reason=reason,
        capability_scored=grounds.capability_scored,
        unreadable_answers=grounds.unreadable,
        totals=totals,
        gates=gates,
        suites=suite_results,
        cases=tuple(ordered),
        waivers=waiver_results,
        strict_waivers=settings.strict_waivers,
        no_transforms=settings.no_transforms,
    )


@dataclass(frozen=True, kw_only=True)
class VerdictGrounds:
    """What a run's verdict is decided on (`decide_verdict`): its counts, gates and stop.

    Args:
        errored: Cases that got no answer.
        unreadable: Answers that said nothing readable.
        capability_scored: Whether a loaded suite scores capability (silence fails it).
        failed_gates: The gates that missed their thresholds.
        not_run: Cases not asked.
        interrupted_by: The signal that stopped the run, if one did.
        unjudged: Cases the judge did not answer usably.
        unjudged_reason: The first unjudged case's reason.
        not_needed: With `--strict-waivers`, the waived cases that passed.
    """

    errored: int
    unreadable: int
    capability_scored: bool
    failed_gates: Sequence[GateName]
    not_run: int = 0
    interrupted_by: str | None = None
    unjudged: int = 0
    unjudged_reason: str = ""
    not_needed: Sequence[str] = ()

    @classmethod
    def of(  # the tallies, and what only the run knows
        cls,
        cases: Sequence[CaseResult],
        totals: Totals,
        *,
        capability_scored: bool,
        failed_gates: Sequence[GateName],
        interrupted_by: str | None,
        not_needed: Sequence[str],
    ) -> VerdictGrounds:
        """The grounds of a run whose cases (waivers applied) are `cases`, counted in `totals`."""
        unjudged = next((case for case in cases if case.outcome is Outcome.UNJUDGED), None)
        return cls(
            errored=totals.errored,
            unreadable=sum(
                1
                for case in cases
                for trial in case.trials
                if trial.response is not None and not trial.said_something
            ),
            capability_scored=capability_scored,
            failed_gates=failed_gates,
            not_run=totals.not_run,
            interrupted_by=interrupted_by,
            unjudged=totals.unjudged,
            unjudged_reason=unjudged.reason if unjudged is not None else "",
            not_needed=not_needed,
        )


def decide_verdict(grounds: VerdictGrounds) -> tuple[Verdict, str]:
    """The verdict and its reason, by the precedence WITHHELD > UNSCOREABLE > FAIL > PASS.

    That is exit code 2 > 4 > 1 > 0: a run that could not finish never reports a verdict, and
    an unscoreable run is never reported as a gate failure or a pass.
    """
    not_run, interrupted_by = grounds.not_run, grounds.interrupted_by
    if not_run or interrupted_by:
        by = f" by {interrupted_by}" if interrupted_by else ""
        cases = plural(not_run, "case was", "cases were")
        return Verdict.WITHHELD, f"the run was interrupted{by}: {cases} not asked"
    if grounds.errored:
        return Verdict.WITHHELD, (f"{plural(grounds.errored, 'case')} got no answer, so no verdict")
    if grounds.unjudged:
        return Verdict.WITHHELD, (
            f"{plural(grounds.unjudged, 'case')} could not be judged, so no "
            f"verdict; the first: {grounds.unjudged_reason}"
        )
    if grounds.unreadable and not grounds.capability_scored:
        return Verdict.UNSCOREABLE, (
            f"{plural(grounds.unreadable, 'answer')} said nothing readable "
            "and no loaded suite scores capability, so silence could pass unnoticed"
        )
    reasons = []
    failed_gates, not_needed = grounds.failed_gates, grounds.not_needed
    if failed_gates:
        names = ", ".join(gate.value for gate in failed_gates)
        count = len(failed_gates)
        reasons.append(f"{plural(count, 'gate')} failed: {names}")
    if not_needed:
        count = len(not_needed)
        reasons.append(
            f"--strict-waivers: {plural(count, 'waived case')} passed, "
            f"so {noun(count, 'its waiver is', 'their waivers are')} no longer needed: "
            + ", ".join(not_needed)
        )
    if reasons:
        return Verdict.FAIL, "; ".join(reasons)
    return Verdict.PASS, "every gate met its threshold"


def reaches_threshold(passed: int, counted: int, threshold: float) -> bool:
    """Whether `passed` of `counted` cases (waived ones left out) reach a suite's `threshold`.

    Compared as exact fractions, the threshold as written (`0.7` is seven tenths, not the
    float just below it); no case counted is a rate of zero.
    """
    return Fraction(passed, max(counted, 1)) >= Fraction(str(threshold))


def _suite_result(info: SuiteInfo, cases: Sequence[CaseResult]) -> SuiteResult:
    own = [case for case in cases if case.suite == info.suite]
    mine = Totals.of(case.outcome for case in own)
    # A waived failure leaves the denominator; a suite whose every case is waived is met.
    counted = mine.total - mine.waived
    total = max(counted, 1)
    pairs = [check for check in pair_checks(own) if check.decided]
    differing = sum(1 for check in pairs if check.differs)
    parity_met = info.parity is ParityRule.REPORTED or not any(check.fails for check in pairs)
    return SuiteResult(
        **info.model_dump(),
        **mine.model_dump(),
        pass_rate=mine.passed / total,
        met=parity_met and _meets(mine, info.threshold) and _written_meet(own, info.threshold),
        pairs=len(pairs),
        pairs_differing=differing,
    )


def _meets(totals: Totals, threshold: float) -> bool:
    counted = totals.total - totals.waived
    return (counted == 0 and totals.waived > 0) or reaches_threshold(
        totals.passed, counted, threshold
    )


def written_short(results: Results) -> list[tuple[SuiteResult, Totals]]:
    """Each suite with variants whose cases as written miss its threshold, with their counts.

    Such a suite is not met however its variants did (`_written_meet`); the summary says why,
    since its rate over every case may read above the threshold.
    """
    short = []
    for suite in results.suites:
        own = [case for case in results.cases if case.suite == suite.suite]
        if not _written_meet(own, suite.threshold):
            written = Totals.of(case.outcome for case in own if case.transform is None)
            short.append((suite, written))
    return short


def _written_meet(cases: Sequence[CaseResult], threshold: float) -> bool:
    """Whether the cases as written (no variants) reach `threshold` on their own.

    Variants (`gauntlet.cases.variants`) add ways to fail, never passes to spend: read over
    every case, a suite whose written cases miss its threshold would be lifted over it by
    variants that held, and pass in full where `--no-transforms` fails it. A suite without
    variants is not asked again.
    """
    if all(case.transform is None for case in cases):
        return True
    return _meets(Totals.of(c.outcome for c in cases if c.transform is None), threshold)


def suite_state(suite: SuiteResult) -> GateState:
    """Whether a suite passed, failed, or was not run to the end (see `GateState`).

    Failed when it missed its threshold and either every case was asked, or its decided
    parity pairs already fail it, or even every unasked case passing would leave it short.
    """
    if suite.met:
        return GateState.PASS
    if suite.not_run == 0:
        return GateState.FAIL
    counted = suite.total - suite.waived
    if reaches_threshold(suite.passed, counted, suite.threshold):
        return GateState.FAIL  # its rate is met, so its parity or its written cases failed it
    if reaches_threshold(suite.passed + suite.not_run, counted, suite.threshold):
        return GateState.NOT_RUN
    return GateState.FAIL


def gate_state(gate: GateResult, suites: Sequence[SuiteResult]) -> GateState:
    """A gate's state from its suites': failed if one failed, else not run if one was not."""
    states = {suite_state(suite) for suite in suites if suite.suite in gate.suites}
    for state in (GateState.FAIL, GateState.NOT_RUN):
        if state in states:
            return state
    return GateState.PASS if gate.met else GateState.FAIL


def _gate_results(
    suites: Sequence[SuiteResult], cases: Sequence[CaseResult]
) -> tuple[GateResult, ...]:
    results = []
    for gate in GATE_SPECS:  # registry order: GateName's, a registered gate after
        mine = [suite for suite in suites if suite.gate is gate]
        if not mine:
            continue
        gate_cases = [case for case in cases if case.gate is gate]
        counts = Totals.of(case.outcome for case in gate_cases)
        counted = counts.total - counts.waived  # a waived failure is not counted either way
        low, high = wilson_interval(counts.passed, counted)
        results.append(
            GateResult(
                gate=gate,
                suites=tuple(suite.suite for suite in mine),
                **counts.model_dump(),
                pass_rate=round(counts.passed / max(counted, 1), 6),
                wilson_low=low,
                wilson_high=high,
                languages=LanguageCount.each(gate_cases),
                met=all(suite.met for suite in mine),
            )
        )
    return tuple(results)


class PairCheck(NamedTuple):
    """One parity pair of a suite: its sides, compared outcome for outcome."""

    suite: str
    gate: GateName
    pair: str
    sides: tuple[CaseResult, ...]
    """The cases sharing the key, in plan order."""

    @property
    def decided(self) -> bool:
        """Every side passed, failed or was waived (and there are two at least): comparable.

        A side that errored, was not run or is unjudged withholds the verdict anyway.
        """
        return len(self.sides) >= 2 and all(
            side.outcome in _DECIDED for side in self.sides
        )  # a pair is two sides at least

    @property
    def differs(self) -> bool:
        """Decided, and its sides' outcomes are not all equal (a waived side counted as failed).

        A waiver tolerates a failure; it does not make the two languages agree.
        """
        return self.decided and len({_judged(side.outcome) for side in self.sides}) > 1

    @property
    def waived(self) -> bool:
        """Differs, and every side that failed is waived: the difference is a tolerated one."""
        return self.differs and all(side.outcome is not Outcome.FAILED for side in self.sides)

    @property
    def fails(self) -> bool:
        """Differs, and not only through waived failures: what `parity: required` refuses."""
        return self.differs and not self.waived

    @property
    def reason(self) -> str:
        """`parity: pair forge-permit differs: en ref-en-... passed; es ref-es-... failed (...)`.

        Two sides are said side by side; more (`languages: [en, es, zh, vi, tl, ko]`) by
        `sides_said`: each language that did not pass with its case and reason, then the
        languages that passed, listed (`failed: ko ref-ko-... (...); passed: en, es, zh`).
        """
        state = (
            "differs, its failing side waived"
            if self.waived
            else "differs"
            if self.differs
            else "agrees"
            if self.decided
            else "is undecided"
        )
        return f"parity: pair {self.pair} {state}: {sides_said(self.sides)}"


class Side(Protocol):
    """One language's case of a parity pair, as a results file or an evidence pack holds it."""

    @property
    def language(self) -> str:
        """The side's language tag."""
        ...

    @property
    def case_id(self) -> str:
        """The side's case."""
        ...

    @property
    def outcome(self) -> Outcome:
        """How the side's case came out."""
        ...

    @property
    def reason(self) -> str:
        """Why it failed; empty when it passed."""
        ...


_S = TypeVar("_S", bound=Side)


def side_groups(sides: Sequence[_S]) -> list[tuple[Outcome, list[_S]]]:
    """The sides of a pair grouped by outcome, `passed` last.

    Every outcome but `passed` in `Outcome`'s order (failed first), then `passed`; each
    group's sides in the pair's order, empty groups left out. The one grouping every output
    says a pair of more than two sides by: which languages did not pass, each with its case,
    and which passed.
    """
    order = [*(o for o in Outcome if o is not Outcome.PASSED), Outcome.PASSED]
    groups = [(outcome, [side for side in sides if side.outcome is outcome]) for outcome in order]
    return [(outcome, mine) for outcome, mine in groups if mine]


def sides_said(sides: Sequence[Side]) -> str:
    """A pair's sides in words: side by side for two (or fewer), grouped for more.

    `en ref-en-x passed; es ref-es-x failed (why)`, or with more than two sides
    `failed: vi ref-vi-x (why), ko ref-ko-x (why); passed: en, es, zh, tl`.
    """
    if len(sides) <= 2:
        return "; ".join(
            f"{side.language} {side.case_id} {side.outcome.value}"
            + (f" ({side.reason})" if side.reason else "")
            for side in sides
        )
    return "; ".join(
        f"{outcome.value}: "
        + ", ".join(
            side.language
            if outcome is Outcome.PASSED
            else f"{side.language} {side.case_id}" + (f" ({side.reason})" if side.reason else "")
            for side in mine
        )
        for outcome, mine in side_groups(sides)
    )


def languages_said(sides: Sequence[Side]) -> str:
    """Which languages of a pair came out how, without cases or reasons.

    `failed: ko; passed: en, es, zh, vi, tl`: for a line that names the pair already (drift,
    a JUnit property).
    """
    return "; ".join(
        f"{outcome.value}: " + ", ".join(side.language for side in mine)
        for outcome, mine in side_groups(sides)
    )


_DECIDED = frozenset({Outcome.PASSED, Outcome.FAILED, Outcome.WAIVED})


def _judged(outcome: Outcome) -> Outcome:
    return Outcome.FAILED if outcome is Outcome.WAIVED else outcome


def pair_checks(cases: Sequence[CaseResult]) -> list[PairCheck]:
    """Every parity pair among `cases`, by suite then key in plan order. Pure."""
    groups: dict[tuple[str, str], list[CaseResult]] = {}
    for case in sorted(cases, key=lambda case: case.index):
        if case.pair is not None:
            groups.setdefault((case.suite, case.pair), []).append(case)
    return [
        PairCheck(suite, sides[0].gate, pair, _in_column_order(sides))
        for (suite, pair), sides in groups.items()
    ]


def _in_column_order(sides: list[CaseResult]) -> tuple[CaseResult, ...]:
    """A pair's sides in plan order when two, in the language columns' order when more.

    Two sides are said side by side, as they always were; more are listed (`passed: en, es,
    zh, vi, tl`) in the order the tables draw them, whatever order a suite's file writes its
    languages in.
    """
    if len(sides) <= 2:
        return tuple(sides)
    order = {tag: place for place, tag in enumerate(in_column_order(s.language for s in sides))}
    return tuple(sorted(sides, key=lambda side: order[side.language]))


def parity_failures(results: Results) -> list[PairCheck]:
    """The differing pairs of every suite whose parity is required: why it failed on parity."""
    required = {s.suite for s in results.suites if s.parity is ParityRule.REQUIRED}
    return [
        check for check in pair_checks(results.cases) if check.fails and check.suite in required
    ]
