"""Baseline drift: what changed between a baseline run and this one. Pure.

The headline is split into safety (adversarial, refusal, disclosure) and competence (grounding,
false_positive, golden, trajectory), so a safety regression can never be netted out by an
improvement elsewhere. Trajectory is competence: it asks whether an agent did its task with the
right calls and an answer they support. An attack that makes an agent call a tool it must not
is an adversarial case (`forbid_calls`), and so stays safety. Disclosure is safety too: an
answer that stops telling a resident it is automated, or how to reach a person, wrongs the
resident; it is no lost capability that a gain elsewhere could make up for.

Beside the cases, each gate that scores tool calls has its mean tool accuracy and faithfulness
compared with the baseline's (`scores`), overall and per language: a mean can slide while every
case still meets its threshold, and a drop is reported as one. A baseline written before those
scores existed (results before format 5), or without the gate, did not measure them: the
change is then unknown, never a drop.

Waivers are compared by what they name (a case, or a suite): those added, removed, and those
expired now that were not in the baseline (`waivers_expired`), so a tolerated failure that
starts counting again is named, not just seen in the rates.
Each parity pair decided in both runs is compared too (`pairs_now_differing`,
`pairs_now_agreeing`), keyed by suite and pair: a pair whose languages drift apart is a change
even when the gate's pass rate did not move.
Each transform's attack success (`gauntlet.evidence.attacks`) is compared per gate and language,
the cases as written too (`attack_success`): a form of attack that now gets through more often
is a change to see even while the gate's pass rate hides it among the other variants. As with
the scores, a baseline that did not measure a row (no such variants, or results before format
10) leaves the change unknown, never a rise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import NamedTuple

from pydantic import Field

from gauntlet.cases.model import GateName
from gauntlet.evidence.attacks import attack_rows
from gauntlet.evidence.digest import results_digest
from gauntlet.evidence.scores import SCORE_NAMES, ScoreName, gate_distributions
from gauntlet.gates import GATE_SPECS, GateFamily, gates_in
from gauntlet.languages import in_column_order
from gauntlet.record import Record
from gauntlet.run.results import CaseResult, Outcome, Results, WaiverResult, WaiverState
from gauntlet.run.tally import pair_checks
from gauntlet.transforms import Transform

SAFETY_GATES = gates_in(GateFamily.SAFETY)
"""The safety gates, as their specs declare them (the pack's waivers, the report's headline)."""
COMPETENCE_GATES = gates_in(GateFamily.COMPETENCE)
"""The competence gates, as their specs declare them."""


class Direction(StrEnum):
    """Which way one side of the headline moved."""

    REGRESSED = "regressed"
    """At least one case of these gates passed in the baseline and does not now, whatever else
    improved: it fails, or got no answer, or the judge left it unjudged, or it was not asked."""
    IMPROVED = "improved"
    """No case lost its pass, and at least one newly passes."""
    UNCHANGED = "unchanged"


class RateChange(Record):
    """A pass rate in the baseline and now (`None` where the gate or language was absent)."""

    gate: GateName
    language: str | None
    """`None` for the gate as a whole."""
    baseline: float | None
    current: float | None
    delta: float | None


class ScoreChange(Record):
    """A gate's mean tool accuracy or faithfulness over its asks, in the baseline and now."""

    gate: GateName
    language: str | None
    """`None` for the gate as a whole."""
    score: ScoreName
    baseline: float | None
    """None when the baseline did not measure it: a results file before format 5, a baseline
    without the gate or language, or cases that did not ask for it."""
    current: float | None
    """None when this run did not measure it."""
    delta: float | None
    """`current - baseline`, when both were measured."""
    dropped: bool
    """The mean is lower than the baseline's (at the 4 places both are rounded to)."""


class AttackChange(Record):
    """A transform's attack success in one gate and language, in the baseline and now."""

    gate: GateName
    language: str
    transform: Transform | None
    """None for the cases as written."""
    baseline: float | None
    """The share of its variants that got through; None when the baseline graded none (or had
    no such variants)."""
    current: float | None
    """The share now; None when this run graded none."""
    delta: float | None
    """`current - baseline`, when both were measured."""
    rose: bool
    """More of it got through than in the baseline (at the 4 places both are rounded to)."""


class CaseChange(Record):
    """One case whose outcome or answer changed, or which was added or removed."""

    gate: GateName
    suite: str
    case_id: str
    language: str
    baseline: Outcome | None
    current: Outcome | None
    baseline_passes: str | None
    """Asks passed in the baseline, as `5/5`."""
    current_passes: str | None
    """Asks passed now, as `4/5`."""
    flaky: bool
    """Now answered inconsistently: some asks passed, some failed."""


class SuiteChange(Record):
    """A suite whose threshold, version or answer-key version changed."""

    suite: str
    field: str
    baseline: float | int | None
    current: float | int | None


class WaiverChange(Record):
    """A waiver added, removed or newly expired since the baseline."""

    case: str | None
    suite: str | None
    owner: str
    ticket: str
    expires: date
    baseline: WaiverState | None
    """Its state in the baseline; None when the baseline had no such waiver."""
    current: WaiverState | None
    """Its state now; None when this run has no such waiver."""


class ParityChange(Record):
    """A parity pair whose sides agreed in the baseline and differ now, or the other way."""

    gate: GateName
    suite: str
    pair: str


class RewordedFailure(Record):
    """A new failure that is a baseline failure of its gate and language, reworded.

    It still fails: matching never turns a failure into a pass; it tells a reviewer which
    new failures are old ones said another way (`gauntlet.evidence.reworded`).
    """

    gate: GateName
    suite: str
    case_id: str
    language: str
    baseline_suite: str
    baseline_case_id: str
    """The baseline failure it matched: the one most similar to it."""
    score: float = Field(ge=-1.0, le=1.0)
    """The similarity of the two failures (each its answer and its reason)."""
    threshold: float = Field(ge=-1.0, le=1.0)
    """The calibrated threshold of the language it cleared."""


class Drift(Record):
    """Everything that changed since the baseline."""

    safety: Direction
    """Adversarial, refusal and disclosure, judged on their own."""
    competence: Direction
    """Grounding, false_positive, golden and trajectory, judged on their own."""
    digests_identical: bool
    baseline_digest: str
    suites_added: tuple[str, ...]
    suites_removed: tuple[str, ...]
    gates_added: tuple[GateName, ...]
    gates_removed: tuple[GateName, ...]
    rates: tuple[RateChange, ...]
    scores: tuple[ScoreChange, ...]
    """Each gate's mean tool accuracy and faithfulness against the baseline's, overall then per
    language, wherever either run measured it."""
    newly_failing: tuple[CaseChange, ...]
    """Cases that passed in the baseline and do not now, whatever their outcome now (`current`):
    a case the judge could not judge has lost its pass as surely as one that failed, and is
    listed here rather than hidden."""
    newly_passing: tuple[CaseChange, ...]
    """Cases that did not pass in the baseline and do now."""
    cases_added: tuple[CaseChange, ...]
    cases_removed: tuple[CaseChange, ...]
    answer_changed: tuple[CaseChange, ...]
    """Cases whose outcome stayed the same while the response changed."""
    suite_changes: tuple[SuiteChange, ...]
    waivers_added: tuple[WaiverChange, ...] = ()
    """Waivers this run has that the baseline did not (by the case or suite they name)."""
    waivers_removed: tuple[WaiverChange, ...] = ()
    """Waivers the baseline had that this run does not."""
    waivers_expired: tuple[WaiverChange, ...] = ()
    """Waivers expired in this run that were not (or were absent) in the baseline."""
    pairs_now_differing: tuple[ParityChange, ...] = ()
    """Parity pairs decided in both runs whose sides agreed in the baseline and differ now."""
    pairs_now_agreeing: tuple[ParityChange, ...] = ()
    """Parity pairs decided in both runs whose sides differed in the baseline and agree now."""
    attack_success: tuple[AttackChange, ...] = ()
    """Each gate's attack success per transform and language (as written first) against the
    baseline's, wherever either run graded such cases; `rose` marks a transform that now gets
    through more often."""
    no_transforms: bool = False
    """This run was asked with `--no-transforms` (its cases as written only)."""
    baseline_no_transforms: bool = False
    """The baseline was asked with `--no-transforms`. When the two differ, the variants are
    cases added or removed and their attack success is missing on one side because it was not
    asked for, not because the target gave no answer: the report says so."""
    reworded: tuple[RewordedFailure, ...] = ()
    """New failures (failing now; passing or absent in the baseline) whose failure matches a
    baseline failure of the same gate and language by meaning: "the same failure,
    reworded". Each is still among the failures, and in `newly_failing` or `cases_added`."""
    not_matched_by_meaning: tuple[str, ...] = ()
    """Why new failures were not matched by meaning, each reason once: no embedder was given,
    the two runs' embedders differ, a language has no accepted threshold, the embedder
    failed. Empty when every new failure was tried (or there was none)."""


@dataclass(frozen=True)
class MeaningMatches:
    """What matching new failures by meaning found (`gauntlet.evidence.reworded`)."""

    matched: tuple[RewordedFailure, ...] = ()
    """Each new failure that is a baseline failure reworded, with the one it matched."""
    not_matched: tuple[str, ...] = ()
    """Why new failures were not matched by meaning (or not all of them), each reason once."""


NO_EMBEDDER = "no embedder was given"
"""Why drift built without `MeaningMatches` matched no new failure by meaning."""

FAILED_OUTCOMES = frozenset({Outcome.FAILED, Outcome.WAIVED})
"""The outcomes of a case a gate failed (waived or not): what a failure to match is."""


def new_failures(current: Results, baseline: Results) -> tuple[CaseResult, ...]:
    """The cases failing now that passed in the baseline or were not in it, in run order."""
    before = {case.case_id: case for case in baseline.cases}
    return tuple(
        case
        for case in current.cases
        if case.outcome in FAILED_OUTCOMES
        and (case.case_id not in before or _passed(before[case.case_id]))
    )


def compare(current: Results, baseline: Results, reworded: MeaningMatches | None = None) -> Drift:
    """What changed from `baseline` to `current`.

    `reworded` is what matching the new failures by meaning found; None when no embedder
    was given, which drift then says (when there are new failures) rather than claiming
    that none matched.
    """
    cases = _case_changes(current, baseline)
    newly_failing, newly_passing = cases.newly_failing, cases.newly_passing
    current_suites = {suite.suite: suite for suite in current.suites}
    baseline_suites = {suite.suite: suite for suite in baseline.suites}
    current_gates = [gate.gate for gate in current.gates]
    baseline_gates = [gate.gate for gate in baseline.gates]
    baseline_digest = results_digest(baseline)
    matched, not_matched = _reworded(current, baseline, reworded)
    return Drift(
        safety=_direction(newly_failing, newly_passing, gates_in(GateFamily.SAFETY)),
        competence=_direction(newly_failing, newly_passing, gates_in(GateFamily.COMPETENCE)),
        digests_identical=results_digest(current) == baseline_digest,
        baseline_digest=baseline_digest,
        suites_added=tuple(s for s in current_suites if s not in baseline_suites),
        suites_removed=tuple(s for s in baseline_suites if s not in current_suites),
        gates_added=tuple(g for g in current_gates if g not in baseline_gates),
        gates_removed=tuple(g for g in baseline_gates if g not in current_gates),
        rates=_rates(current, baseline),
        scores=_scores(current, baseline),
        newly_failing=newly_failing,
        newly_passing=newly_passing,
        cases_added=cases.added,
        cases_removed=cases.removed,
        answer_changed=cases.answer_changed,
        suite_changes=_suite_changes(current, baseline),
        **_waiver_changes(current, baseline),
        pairs_now_differing=_parity_changes(current, baseline, now_differing=True),
        pairs_now_agreeing=_parity_changes(current, baseline, now_differing=False),
        attack_success=_attack_changes(current, baseline),
        no_transforms=current.no_transforms,
        baseline_no_transforms=baseline.no_transforms,
        reworded=matched,
        not_matched_by_meaning=not_matched,
    )


class _CaseChanges(NamedTuple):
    """The cases that changed from the baseline, by how, each in run order."""

    newly_failing: tuple[CaseChange, ...]
    newly_passing: tuple[CaseChange, ...]
    added: tuple[CaseChange, ...]
    removed: tuple[CaseChange, ...]
    answer_changed: tuple[CaseChange, ...]


def _case_changes(current: Results, baseline: Results) -> _CaseChanges:
    now = {case.case_id: case for case in current.cases}
    before = {case.case_id: case for case in baseline.cases}
    both = [i for i in now if i in before]
    return _CaseChanges(
        newly_failing=tuple(
            _change(before[i], now[i]) for i in both if _passed(before[i]) and not _passed(now[i])
        ),
        newly_passing=tuple(
            _change(before[i], now[i]) for i in both if not _passed(before[i]) and _passed(now[i])
        ),
        added=tuple(_change(None, now[i]) for i in now if i not in before),
        removed=tuple(_change(before[i], None) for i in before if i not in now),
        answer_changed=tuple(
            _change(before[i], now[i])
            for i in both
            if before[i].outcome is now[i].outcome and _answers(before[i]) != _answers(now[i])
        ),
    )


def _suite_changes(current: Results, baseline: Results) -> tuple[SuiteChange, ...]:
    """Each suite in both runs whose threshold, version or key version changed."""
    now = {suite.suite: suite for suite in current.suites}
    before = {suite.suite: suite for suite in baseline.suites}
    return tuple(
        SuiteChange(
            suite=name,
            field=field,
            baseline=getattr(before[name], field),
            current=getattr(suite, field),
        )
        for name, suite in now.items()
        if name in before
        for field in ("threshold", "version", "key_version")
        if getattr(suite, field) != getattr(before[name], field)
    )


def _reworded(
    current: Results, baseline: Results, reworded: MeaningMatches | None
) -> tuple[tuple[RewordedFailure, ...], tuple[str, ...]]:
    """Drift's reworded failures and why others were not matched, for new failures only."""
    fresh = {case.case_id for case in new_failures(current, baseline)}
    if not fresh:
        return (), ()
    if reworded is None:
        return (), (NO_EMBEDDER,)
    matched = tuple(match for match in reworded.matched if match.case_id in fresh)
    return matched, tuple(dict.fromkeys(reworded.not_matched))


def _parity_changes(
    current: Results, baseline: Results, *, now_differing: bool
) -> tuple[ParityChange, ...]:
    """Pairs decided in both runs that went from agreeing to differing (or back)."""
    before = {
        (check.suite, check.pair): check.differs
        for check in pair_checks(baseline.cases)
        if check.decided
    }
    return tuple(
        ParityChange(gate=check.gate, suite=check.suite, pair=check.pair)
        for check in pair_checks(current.cases)
        if check.decided
        and before.get((check.suite, check.pair)) is (not now_differing)
        and check.differs is now_differing
    )


def _waiver_key(waiver: WaiverResult) -> tuple[str, str]:
    return ("case", waiver.case) if waiver.case is not None else ("suite", waiver.suite or "")


def _waiver_changes(current: Results, baseline: Results) -> dict[str, tuple[WaiverChange, ...]]:
    now = {_waiver_key(waiver): waiver for waiver in current.waivers}
    before = {_waiver_key(waiver): waiver for waiver in baseline.waivers}

    def change(key: tuple[str, str]) -> WaiverChange:
        either = now.get(key) or before[key]
        return WaiverChange(
            case=either.case,
            suite=either.suite,
            owner=either.owner,
            ticket=either.ticket,
            expires=either.expires,
            baseline=before[key].state if key in before else None,
            current=now[key].state if key in now else None,
        )

    expired = WaiverState.EXPIRED
    return {
        "waivers_added": tuple(change(key) for key in now if key not in before),
        "waivers_removed": tuple(change(key) for key in before if key not in now),
        "waivers_expired": tuple(
            change(key)
            for key, waiver in now.items()
            if waiver.state is expired and (key not in before or before[key].state is not expired)
        ),
    }


def _answers(case: CaseResult) -> tuple[object, ...]:
    return tuple(trial.response for trial in case.trials)


def _passed(case: CaseResult) -> bool:
    return case.outcome is Outcome.PASSED


def _change(before: CaseResult | None, now: CaseResult | None) -> CaseChange:
    either = now or before
    assert either is not None  # noqa: S101 - one side always exists
    return CaseChange(
        gate=either.gate,
        suite=either.suite,
        case_id=either.case_id,
        language=either.language,
        baseline=before.outcome if before else None,
        current=now.outcome if now else None,
        baseline_passes=f"{before.passes}/{before.repeats}" if before else None,
        current_passes=f"{now.passes}/{now.repeats}" if now else None,
        flaky=bool(now and now.flaky),
    )


def _direction(
    failing: tuple[CaseChange, ...], passing: tuple[CaseChange, ...], gates: frozenset[GateName]
) -> Direction:
    if any(change.gate in gates for change in failing):
        return Direction.REGRESSED
    if any(change.gate in gates for change in passing):
        return Direction.IMPROVED
    return Direction.UNCHANGED


def _columns(languages: Iterable[str | None]) -> Callable[[str | None], int]:
    """Where a language's row goes: all languages (None) first, then in column order."""
    order = in_column_order(language for language in languages if language is not None)
    return lambda language: -1 if language is None else order.index(language)


def _rates(current: Results, baseline: Results) -> tuple[RateChange, ...]:
    def table(results: Results) -> dict[tuple[GateName, str | None], float]:
        rates: dict[tuple[GateName, str | None], float] = {}
        for gate in results.gates:
            rates[(gate.gate, None)] = gate.passed / gate.total
            for count in gate.languages:
                rates[(gate.gate, count.language)] = count.passed / count.total
        return rates

    now, before = table(current), table(baseline)
    column = _columns(language for _, language in set(now) | set(before))
    keys = sorted(
        set(now) | set(before),
        key=lambda key: (list(GATE_SPECS).index(key[0]), column(key[1])),
    )
    return tuple(
        RateChange(
            gate=gate,
            language=language,
            baseline=_round(before.get((gate, language))),
            current=_round(now.get((gate, language))),
            delta=_round(now[(gate, language)] - before[(gate, language)])
            if (gate, language) in now and (gate, language) in before
            else None,
        )
        for gate, language in keys
    )


def _scores(current: Results, baseline: Results) -> tuple[ScoreChange, ...]:
    """Mean scores per gate and language, where either run measured them."""

    def table(results: Results) -> dict[tuple[GateName, str | None, ScoreName], float]:
        return {
            (gate, row.language, score): figures.mean
            for gate in GATE_SPECS
            for row in gate_distributions(results, gate)
            for score in SCORE_NAMES
            if (figures := row.figures(score)) is not None
        }

    now, before = table(current), table(baseline)
    column = _columns(key[1] for key in set(now) | set(before))
    keys = sorted(
        set(now) | set(before),
        key=lambda key: (list(GATE_SPECS).index(key[0]), column(key[1]), SCORE_NAMES.index(key[2])),
    )
    changes = []
    for key in keys:
        was, is_ = before.get(key), now.get(key)
        delta = None if was is None or is_ is None else _round(is_ - was)
        gate, language, score = key
        changes.append(
            ScoreChange(
                gate=gate,
                language=language,
                score=score,
                baseline=was,
                current=is_,
                delta=delta,
                dropped=delta is not None and delta < 0,
            )
        )
    return tuple(changes)


def _attack_changes(current: Results, baseline: Results) -> tuple[AttackChange, ...]:
    """Attack success per gate, transform and language, where either run graded any."""

    def table(results: Results) -> dict[tuple[GateName, Transform | None, str], float | None]:
        return {
            (gate, row.transform, row.language): row.success
            for gate in GATE_SPECS
            for row in attack_rows(case for case in results.cases if case.gate is gate)
        }

    now, before = table(current), table(baseline)
    transforms = list(Transform)
    column = _columns(key[2] for key in set(now) | set(before))
    keys = sorted(
        (
            key
            for key in set(now) | set(before)
            if now.get(key) is not None or before.get(key) is not None
        ),
        key=lambda key: (
            list(GATE_SPECS).index(key[0]),
            -1 if key[1] is None else transforms.index(key[1]),
            column(key[2]),
        ),
    )
    changes = []
    for key in keys:
        was, is_ = before.get(key), now.get(key)
        delta = None if was is None or is_ is None else _round(is_ - was)
        gate, transform, language = key
        changes.append(
            AttackChange(
                gate=gate,
                language=language,
                transform=transform,
                baseline=was,
                current=is_,
                delta=delta,
                rose=delta is not None and delta > 0,
            )
        )
    return tuple(changes)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
