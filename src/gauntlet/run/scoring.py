"""Scoring: grade every ask of a case with its gate, and decide the case. Pure.

The engine asks; these functions turn what came back into `CaseResult`s, which
`gauntlet.run.tally.summarize` counts into `Results`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from pydantic import ValidationError

from gauntlet import limits
from gauntlet.canonical import canonical_text
from gauntlet.cases.loader import LoadedSuite
from gauntlet.cases.model import (
    CASE_MODELS,
    AnyCase,
    DisclosureCase,
    GateName,
    GoldenMatch,
    case_key,
)
from gauntlet.display import masking, printable
from gauntlet.gates import GATE_SPECS, judge
from gauntlet.gates.judgement import TrajectoryScores
from gauntlet.gates.readability import said_something
from gauntlet.gates.turn import judge_turn
from gauntlet.patterns import PatternTimeout, shared_limit
from gauntlet.redact import MASK, Redactor
from gauntlet.run.fields import absent_fields, describe_unsupplied, suite_needs, unsupplied
from gauntlet.run.results import (
    CaseAsRun,
    CaseResult,
    CutAnswer,
    JudgeCheck,
    Outcome,
    Results,
    SuiteInfo,
    Trial,
    TurnResult,
)
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.run.tally import (
    after_gate_outcome,
    conversation_outcome,
    decide_case,
    is_flaky,
    summarize,
)
from gauntlet.semantic.check import SimilarityCheck
from gauntlet.targets.contract import TargetResponse, Traced, Usage, total_usage
from gauntlet.targets.spec import FieldName
from gauntlet.transforms import Transform
from gauntlet.words import plural

if TYPE_CHECKING:
    from gauntlet.run.schedule import Schedule, Scheduled


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
    traced: Traced | None = None
    """The last answer with what the target reported beside it: provenance, tool calls,
    usage, time to first token."""
    traced_turns: tuple[Traced, ...] = ()
    """For a multi-turn case, every turn's traced answer, in order."""
    judged: tuple[JudgeCheck, ...] = ()
    """What the model judge made of the answer, for a case with judged checks whose answer
    the gate passed."""
    similarity: SimilarityCheck | None = None
    """The answer's similarity to `expected`, for a case that compares meanings
    (`needs_similarity`) whose answer the gate passed."""


NOT_ASKED = Observation(None, None, 0.0, attempts=0, asked=False)


def scores_capability(loaded: LoadedSuite) -> bool:
    """True if a silent target would fail this suite for its silence, as its gate's spec says.

    false_positive, golden, trajectory and disclosure suites always do; grounding does with a
    case that expects a grounded answer; refusal does with a crisis case. Adversarial suites,
    abstentions and must-refuse cases can all be satisfied by saying nothing useful.
    """
    return GATE_SPECS[loaded.suite.gate].scores_capability(loaded.cases)


def suite_info(loaded: LoadedSuite, repeat: int) -> SuiteInfo:
    """A loaded suite's settings, with `--repeat` applied (a suite may ask for more)."""
    suite = loaded.suite
    repeats = max(repeat, suite.repeat)
    return SuiteInfo(
        suite=suite.suite,
        gate=suite.gate,
        version=suite.version,
        key_version=getattr(suite, "key_version", None),
        threshold=suite.threshold,
        source=loaded.source,
        repeat=repeats,
        pass_k=suite.pass_k if suite.pass_k is not None else repeats,
        capability=scores_capability(loaded),
        accepts_absent=tuple(FieldName(name) for name in getattr(suite, "accepts_absent", ())),
        match=getattr(suite, "match", None),
        languages=suite.languages or (),
        parity=suite.parity,
    )


def needs_judge(case: AnyCase, info: SuiteInfo) -> bool:
    """True if a model judge must pass the case's answers: judge criteria, or `match: judge`."""
    return case.judge is not None or info.match is GoldenMatch.JUDGE


def needs_similarity(case: AnyCase, info: SuiteInfo) -> bool:
    """True if the run's embedder must pass the case's answers.

    A golden suite's `match: semantic`, or a trajectory case's `min_similarity`.
    """
    return info.match is GoldenMatch.SEMANTIC or _similarity_floor(case) is not None


def _similarity_floor(case: AnyCase) -> float | None:
    floor = case_key(case, "min_similarity")
    return None if floor is None else float(floor)


def similarity_floor(case: AnyCase) -> float | None:
    """The case's own least similarity (`min_similarity`), which can only raise the bar."""
    return _similarity_floor(case)


def after_gate(case: AnyCase, info: SuiteInfo) -> bool:
    """True if an answer the gate passed is checked further: by the judge, or by meaning."""
    return needs_judge(case, info) or needs_similarity(case, info)


def judge_case(
    item: Scheduled,
    observations: Sequence[Observation],
    *,
    redactor: Redactor,
    interrupted_by: str | None = None,
) -> CaseResult:
    """Grade every ask of one case and decide the case.

    The gates grade the answers as they came; the case is masked only afterwards, for what is
    written and shown, so a leaked secret still fails the case it leaked in.
    """
    case = item.case
    with masking(redactor.text):
        trials = tuple(_trial(item, observation, interrupted_by) for observation in observations)
    passes = sum(1 for trial in trials if trial.outcome is Outcome.PASSED)
    repeats, pass_k = item.info.repeat, item.info.pass_k
    outcome, reason = decide_case(trials, repeats, pass_k)
    judged = CaseResult(
        index=item.plan_index,
        suite=item.info.suite,
        gate=item.info.gate,
        case_id=case.id,
        language=case.language,
        prompt=case.final_prompt,
        source=item.loaded.source,
        line=item.loaded.case_marks[item.position].line,
        outcome=outcome,
        reason=reason,
        passes=passes,
        repeats=repeats,
        pass_k=pass_k,
        flaky=is_flaky(trials),
        trials=tuple(stored_cut(trial) for trial in trials),
        pair=case.pair,
        definition=case_as_run(case, item.info),
        **variant_fields(case),
    )
    return redactor.model(judged)


def variant_consistent(case: CaseResult) -> bool:
    """Whether a stored case's `transform`, `variant_of` and `seed` agree with its id."""
    original, mark, suffix = case.case_id.partition("~")
    if not mark:
        return (case.transform, case.variant_of, case.seed) == (None, None, None)
    name, _, number = suffix.partition("-")
    noised = case.transform is Transform.BEST_OF_N
    return (
        case.variant_of == original
        and case.transform is not None
        and name == case.transform.value
        and (number.isdigit() and int(number) >= 1) == noised
        and (case.seed is not None) == noised
    )


def variant_fields(case: AnyCase) -> dict[str, Any]:
    """What a variant case's result records of where it came from; nothing for a case."""
    variant = case.variant
    if variant is None:
        return {}
    return {"transform": variant.transform, "variant_of": variant.of, "seed": variant.seed}


def case_as_run(case: AnyCase, info: SuiteInfo) -> CaseAsRun:
    """What scoring `case`'s answers again needs: the case as loaded, and its suite's rules."""
    return CaseAsRun(
        case=case.model_dump(mode="json", exclude_unset=True),
        required=case.required if isinstance(case, DisclosureCase) else (),
        accepts_absent=info.accepts_absent,
        match=info.match,
    )


def rebuilt_case(gate: GateName, definition: CaseAsRun) -> AnyCase:
    """The case `definition` describes, as the run loaded it.

    Raises:
        ValidationError: `definition` is not a case of `gate`.
    """
    # From JSON text: strict models read a list as a tuple, and a string as an enum, only there.
    case = CASE_MODELS[gate].model_validate_json(canonical_text(definition.case))
    if isinstance(case, DisclosureCase):
        case._required = definition.required  # what its suite bound at load
    return cast("AnyCase", case)


def rescore_problems(case: CaseResult, where: str) -> list[str]:
    """Where a stored ask of `case` disagrees with its answer scored again through its gate.

    Each answer is graded again from the case as the run saw it (`CaseResult.definition`):
    the gate's outcome, reason and measures, and each turn's. What the model judge said of an
    answer the gate passed cannot be derived again (the results' custody covers it), nor an
    answer stored cut, or masked (a secret in it, or in the case, replaced by the mask): those
    are left as stored. A file before format 7 carries no definition and is not scored again.
    """
    definition = case.definition
    if definition is None or MASK in canonical_text(definition.model_dump(mode="json")):
        return []
    named = f"{where} ({case.case_id})"
    try:
        rebuilt = rebuilt_case(case.gate, definition)
    except ValidationError as exc:
        return [f"{named}.definition: not a {case.gate.value} case: {exc.error_count()} errors"]
    problems = []
    if (rebuilt.id, rebuilt.language, rebuilt.final_prompt, rebuilt.pair) != (
        case.case_id,
        case.language,
        case.prompt,
        case.pair,
    ):
        problems.append(f"{named}.definition: not the case the file records (id, prompt, pair)")
        return problems
    if not variant_consistent(case):
        problems.append(f"{named}: its transform, variant_of and seed do not match its id")
        return problems
    judged = rebuilt.judge is not None or definition.match is GoldenMatch.JUDGE
    by_meaning = definition.match is GoldenMatch.SEMANTIC or _similarity_floor(rebuilt) is not None
    for number, trial in enumerate(case.trials):
        try:
            with shared_limit():  # as at the run: the case's patterns share one limit
                again = _scored_again(rebuilt, definition, trial)
        except PatternTimeout as exc:
            problems.append(
                f"{named}.trials[{number}]: stored {trial.outcome.value}, but its answer "
                f"could not be scored again: {exc}"
            )
            continue
        gate_passed = again is not None and again[0] == Outcome.PASSED.value
        if gate_passed and by_meaning and trial.similarity is None:
            problems.append(
                f"{named}.trials[{number}]: its gate passed the answer, but the ask records no "
                "similarity check, which its case needs (match: semantic, min_similarity)"
            )
            continue
        if gate_passed and judged and not trial.judged:
            # A judged case's answer the gate passed was always shown to the judge, and each
            # check is kept, an unjudged one too: without them the ask's outcome is the
            # file's word alone (a judge's failure deleted reads as a pass).
            problems.append(
                f"{named}.trials[{number}]: its gate passed the answer, but the ask records no "
                "judge check, which its case needs (judge criteria, match: judge)"
            )
            continue
        if not by_meaning and trial.similarity is not None:
            problems.append(
                f"{named}.trials[{number}].similarity: a similarity check for a case that "
                "compares no meaning"
            )
            continue
        if again is not None and not gate_passed and trial.similarity is not None:
            problems.append(
                f"{named}.trials[{number}].similarity: a similarity check of an answer its "
                "gate failed, where similarity is never asked"
            )
            continue
        after = (judged or by_meaning) and gate_passed
        if again is not None and again != _as_stored(trial, judged=after):
            outcome, reason = again[0], again[1]
            problems.append(
                f"{named}.trials[{number}]: stored {trial.outcome.value}"
                + (f" ({trial.reason})" if trial.reason else "")
                + f", but its answer, scored again by its gate, is {outcome}"
                + (f" ({reason})" if reason else "")
            )
    return problems


_Scored = tuple[str, str, object, tuple[tuple[bool, str], ...]]


def _as_stored(trial: Trial, *, judged: bool) -> _Scored:
    """What the file says the gate made of `trial`'s answer.

    With `judged` (the gate passes the answer and the case has judged checks or a similarity
    check), those checks decided the ask (`rederive` holds the ask to them), so the gate's own
    word is pass. The similarity in the scores is the similarity check's, not the gate's.
    """
    outcome, reason = trial.outcome.value, trial.reason
    checked_after = trial.judged or trial.similarity is not None
    if judged and (checked_after or trial.outcome is Outcome.UNJUDGED):
        outcome, reason = Outcome.PASSED.value, ""
    scores = trial.scores
    if scores is not None and scores.similarity is not None:
        scores = scores.model_copy(update={"similarity": None})
    return outcome, reason, scores, tuple((t.passed, t.reason) for t in trial.turns)


def _scored_again(case: AnyCase, definition: CaseAsRun, trial: Trial) -> _Scored | None:
    """The gate's outcome, reason, measures and turns for `trial`'s answer; None if unscoreable."""
    response = trial.response
    if trial.outcome not in (Outcome.PASSED, Outcome.FAILED, Outcome.UNJUDGED) or response is None:
        return None
    if trial.cut is not None or any(turn.cut is not None for turn in trial.turns):
        return None
    if MASK in canonical_text(
        trial.model_dump(mode="json", include={"response", "turns", "reason"})
    ):
        return None
    waived = frozenset(definition.accepts_absent)
    without = absent_fields(trial.provenance) & waived if trial.provenance else frozenset()
    exact = definition.match is None or definition.match is GoldenMatch.EXACT
    if case.turns:
        # The engine's own rule first: one answer per turn of the script, the last recorded,
        # so a conversation cut short (or its turns removed) never skips the gate's turn.
        mismatch = _unmatched(case.turns, response, tuple(t.response for t in trial.turns))
        if mismatch:
            return Outcome.ERRORED.value, mismatch, None, ()
    if trial.turns:
        script = case.turns or ()
        turns = []
        for number, (turn, result) in enumerate(zip(script, trial.turns, strict=False), 1):
            earlier = case if number < len(script) else None
            reasons = list(judge_turn(turn, result.response, links=earlier).reasons)
            if number == len(script):
                reasons += judge(case, result.response, without=without, exact=exact).reasons
            turns.append((not reasons, printable("; ".join(reasons))))
        failing = next(((n, t) for n, t in enumerate(turns, 1) if not t[0]), None)
        outcome, reason = (
            (Outcome.PASSED.value, "")
            if failing is None
            else (Outcome.FAILED.value, f"turn {failing[0]} of {len(turns)}: {failing[1][1]}")
        )
        scores = judge(case, response, without=without, exact=exact).scores
        return outcome, printable(reason), scores, tuple(turns)
    judgement = judge(case, response, without=without, exact=exact)
    outcome = Outcome.PASSED.value if judgement.passed else Outcome.FAILED.value
    return outcome, printable(judgement.reason), judgement.scores, ()


def _cut(response: TargetResponse) -> tuple[TargetResponse, CutAnswer | None]:
    limit = limits.MAX_ANSWER_BYTES
    whole = response.text.encode("utf-8")
    if len(whole) <= limit:
        return response, None
    kept = limits.cut_at(response.text, limit)
    cut = CutAnswer(length=len(whole), sha256=hashlib.sha256(whole).hexdigest())
    return response.model_copy(update={"text": kept}), cut


def stored_cut(trial: Trial) -> Trial:
    """`trial` as stored: each answer's text cut at `gauntlet.limits.MAX_ANSWER_BYTES`.

    Done after the gates graded it whole, so a leak past the limit still fails its case; the
    whole text's length and sha256 stay with it, and the reader knows not to score it again.
    """
    update: dict[str, object] = {}
    if trial.response is not None:
        update["response"], update["cut"] = _cut(trial.response)
    if trial.answered_text is not None:
        limit = limits.MAX_ANSWER_BYTES
        update["answered_text"] = limits.cut_at(trial.answered_text, limit)
        if update["answered_text"] != trial.answered_text and update.get("cut") is None:
            whole = trial.answered_text.encode("utf-8")
            update["cut"] = CutAnswer(length=len(whole), sha256=hashlib.sha256(whole).hexdigest())
    turns = []
    for turn in trial.turns:
        response, cut = _cut(turn.response)
        turns.append(
            turn if cut is None else turn.model_copy(update={"response": response, "cut": cut})
        )
    if update.get("cut") is None and all(turn.cut is None for turn in turns):
        return trial
    update["turns"] = tuple(turns)
    return trial.model_copy(update=update)


def _trial(item: Scheduled, observation: Observation, interrupted_by: str | None) -> Trial:
    trial = gate_trial(item, observation, interrupted_by)
    case, info = item.case, item.info
    if trial.outcome is not Outcome.PASSED or not after_gate(case, info):
        return trial
    similarity = None
    if needs_similarity(case, info):
        similarity = observation.similarity or SimilarityCheck(
            outcome="unjudged", reason="the embedder was not asked"
        )
    checks = observation.judged if needs_judge(case, info) else None
    outcome, reason = after_gate_outcome(checks, similarity)
    update: dict[str, object] = {
        "outcome": outcome,
        "reason": printable(reason),
        "judged": checks or (),
        "similarity": similarity,
    }
    if similarity is not None and trial.scores is not None:
        update["scores"] = trial.scores.model_copy(update={"similarity": similarity.score})
    return trial.model_copy(update=update)


def gate_trial(
    item: Scheduled, observation: Observation, interrupted_by: str | None = None
) -> Trial:
    """One ask as the gate alone judges it: what decides whether the model judge is asked."""
    response = observation.response
    conversation = observation.conversation
    traced = observation.traced
    turns: tuple[TurnResult, ...] = ()
    scores = None
    waived = frozenset(item.info.accepts_absent)
    missing = _unsupplied(item, observation, waived)
    without = absent_fields(traced.provenance) & waived if traced is not None else frozenset()
    if not observation.asked:
        outcome = Outcome.NOT_RUN
        reason = f"not asked: the run was interrupted by {interrupted_by or 'a stop request'}"
    elif response is None:
        outcome, reason = Outcome.ERRORED, observation.error or "no answer"
        turns = _turns(item, conversation, final=False)
    elif missing:
        # Graded as if the stand-in were an answer, a false_positive case would pass on a
        # refusal nobody reported: the case errors instead, which withholds the verdict.
        outcome, reason = Outcome.ERRORED, describe_unsupplied(missing)
        turns = _turns(item, conversation, final=False)
    else:
        try:
            with shared_limit():  # the case's patterns share one limit over this answer
                turns, outcome, reason, scores = _judged(item, response, conversation, without)
        except PatternTimeout as exc:
            # Stopped, the pattern decided nothing: read as "no match", a forbidden call passes.
            outcome, reason, scores = Outcome.ERRORED, str(exc), None
            turns = _turns(item, conversation, final=False)
    return Trial(
        outcome=outcome,
        reason=printable(reason),
        response=response,
        said_something=response is not None and said_something(response),
        latency_ms=observation.latency_ms,
        attempts=observation.attempts,
        waited_s=observation.waited_s,
        turns=turns,
        provenance=dict(traced.provenance) if traced is not None else None,
        scores=scores,
        usage=_usage(observation.traced_turns or ((traced,) if traced else ())),
        first_token_ms=traced.first_token_ms if traced is not None else None,
        answered_text=traced.answered_text if traced is not None else None,
        finish_reason=traced.finish_reason if traced is not None else None,
    )


class _Judged(NamedTuple):
    """What grading an answer gave: its turns, its outcome and reason, what it measured."""

    turns: tuple[TurnResult, ...]
    outcome: Outcome
    reason: str
    scores: TrajectoryScores | None


def _judged(
    item: Scheduled,
    response: TargetResponse,
    conversation: tuple[TargetResponse, ...],
    without: frozenset[FieldName],
) -> _Judged:
    """An answer as its gate grades it (and, in a conversation, every turn as its own checks do).

    Raises:
        PatternTimeout: a pattern of the case ran past its time limit.
    """
    exact = _exact(item)
    script = item.case.turns or ()
    unmatched = _unmatched(script, response, conversation)
    if unmatched:
        return _Judged(_turns(item, conversation, final=False), Outcome.ERRORED, unmatched, None)
    if conversation:
        turns = _turns(item, conversation, final=True, without=without)
        outcome, reason = conversation_outcome(turns)
        # The gate graded the last turn inside `_turns`; what it measured there is the ask's.
        scores = judge(item.case, response, without=without, exact=exact).scores
        return _Judged(turns, outcome, reason, scores)
    judgement = judge(item.case, response, without=without, exact=exact)
    outcome = Outcome.PASSED if judgement.passed else Outcome.FAILED
    return _Judged((), outcome, judgement.reason, judgement.scores)


def _unmatched(
    script: Sequence[object], response: TargetResponse, conversation: Sequence[TargetResponse]
) -> str:
    """Why a multi-turn case's answers cannot be graded turn by turn, or "" when they can.

    Each turn of the script is graded on its own answer and the last also by the gate, so a
    conversation must hold one answer per turn, its last the answer recorded as the ask's:
    paired by position, a missing answer would leave the gate's turn unjudged. The engine
    records nothing else; a results file scored again may.
    """
    if len(conversation) != len(script):
        count = plural(len(conversation), "answer")
        return f"the conversation holds {count} for a script of {plural(len(script), 'turn')}"
    if conversation and conversation[-1] != response:
        return "the answer recorded as the last is not the conversation's last"
    return ""


def _exact(item: Scheduled) -> bool:
    """Whether the gate compares the answer with `expected` itself (`match: exact`)."""
    return item.info.match is None or item.info.match is GoldenMatch.EXACT


def _unsupplied(
    item: Scheduled, observation: Observation, waived: frozenset[FieldName]
) -> list[str]:
    """The fields the case's gate reads that some turn's answer did not supply."""
    fields = suite_needs(item.loaded).fields
    answers = observation.traced_turns or (
        (observation.traced,) if observation.traced is not None else ()
    )
    missing: dict[str, None] = {}
    for answer in answers:
        missing |= dict.fromkeys(unsupplied(answer.provenance, sorted(fields), waived))
    return list(missing)


def _usage(answers: tuple[Traced, ...]) -> Usage | None:
    """The tokens every turn reported, added up; None when no turn reported any."""
    return total_usage([answer.usage for answer in answers if answer.usage is not None])


def _turns(
    item: Scheduled,
    conversation: tuple[TargetResponse, ...],
    *,
    final: bool,
    without: frozenset[FieldName] = frozenset(),
) -> tuple[TurnResult, ...]:
    """Grade each answered turn by its own checks; the last one by the gate's too."""
    script = item.case.turns or ()
    judged = []
    for number, (turn, response) in enumerate(zip(script, conversation, strict=False), 1):
        earlier = item.case if number < len(script) else None
        reasons = list(judge_turn(turn, response, links=earlier).reasons)
        if final and number == len(script):
            reasons += judge(item.case, response, without=without, exact=_exact(item)).reasons
        judged.append(
            TurnResult(
                user=turn.user,
                response=response,
                passed=not reasons,
                reason=printable("; ".join(reasons)),
            )
        )
    return tuple(judged)


def score(
    schedule: Schedule,
    observations: Sequence[Sequence[Observation]],
    settings: RunSettings,
    span: RunSpan,
    *,
    earlier: Sequence[CaseResult] = (),
) -> Results:
    """Grade every observation and decide the verdict. Pure.

    `earlier` holds cases already graded: by an earlier, interrupted run being resumed, or
    as they finished. What the cases keep is masked by the settings' redactor.
    """
    cases = [
        judge_case(item, list(seen), redactor=settings.redactor, interrupted_by=span.interrupted_by)
        for item, seen in zip(schedule.items, observations, strict=True)
    ]
    return summarize([*earlier, *cases], schedule.suites, settings, span)
