"""The evidence pack: one versioned structure built from results (and a baseline). Pure.

JSON is the pack itself; Markdown and JUnit are renderings of it, so they cannot disagree.
Field order is part of the format: reordering or renaming a field means a version bump.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from enum import StrEnum
from typing import Any

from gauntlet.canonical import canonical_text
from gauntlet.cases.builtin import shown_source
from gauntlet.cases.model import FoundBy, GateName, GoldenMatch, ParityRule, SuiteOption
from gauntlet.display import clipped, json_escaped, masked, printable
from gauntlet.evidence.attacks import AttackRow, TransformBreak, attack_rows, broke_first
from gauntlet.evidence.digest import results_digest
from gauntlet.evidence.drift import SAFETY_GATES, Drift, MeaningMatches, compare
from gauntlet.evidence.mapping import CALIFORNIA, CaliforniaMapping, MappingRow
from gauntlet.evidence.scores import ScoreDistributions, gate_distributions
from gauntlet.evidence.trends import TrendsEvidence
from gauntlet.judge.fingerprint import JudgeFingerprint
from gauntlet.languages import in_column_order, primary_language
from gauntlet.proportions import percentile
from gauntlet.record import Record
from gauntlet.run.custody import custody_statement
from gauntlet.run.fields import GATE_FIELDS
from gauntlet.run.results import (
    VERDICT_STATUS,
    CalibrationSummary,
    CaseResult,
    GateResult,
    GateState,
    JudgeCheck,
    LanguageCount,
    LanguageKappa,
    Outcome,
    Results,
    TargetInfo,
    Totals,
    Trial,
    Verdict,
    WaiverResult,
    exit_code_for,
)
from gauntlet.run.tally import PairCheck, gate_state, pair_checks
from gauntlet.semantic.check import SimilarityCheck
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.targets.contract import (
    FINISH_REASON_LENGTH,
    FieldName,
    FieldSource,
    Origin,
    ToolCall,
    Usage,
    total_usage,
)
from gauntlet.trajectory.scoring import Call, group_steps
from gauntlet.transforms import Transform
from gauntlet.version import __version__

EVIDENCE_SCHEMA_VERSION = 13
"""The version of the evidence format this gauntlet writes.

2 added the run's `run_id`; 3 added where each gate's fields came from (`fields`), a suite's
`accepts_absent`, the target file, and the tokens the target reported (`usage`). 4 added the
model judge: the `unjudged` outcome and its counts (per language, per gate, in the totals),
`unjudged_cases` as a reason to withhold the verdict, the judge's fingerprint, calibration and
whether it was let vote (`judge`), the tokens it reported apart from the target's
(`run.judge_usage`), a golden suite's `match`, the cases each gate's judge checked, and for
each judged case the judge's checks of the ask that decided it, beside the calibration figures
for the case's language. 5 added tool-call trajectories (issue 16): for each failing case of a
gate that reads tool calls, the calls of the ask that failed as rows with the step where the
trajectory first went wrong marked (`trajectory`), and for each such gate how its tool accuracy
and faithfulness are spread over its asks, overall and per language (`trajectory_scores`). 6 added
the disclosure gate (`disclosure`) as a gate name, with its rows in the California mapping
(SAM 4986.10 Privacy Disclosures), a reader of format 5 not knowing the name; and waivers: the
`waived` outcome and counts, the waived failures beside the verdict (`verdict.waived`), every
waiver with its owner, ticket, dates, state and cases, marked when it covers a safety gate
(`waivers`), and drift's waivers added, removed and expired; and language parity: per gate with
pairs, each suite's parity rule, the pairs whose sides agree and are undecided (counts), and
each pair whose sides differ with every side's case, outcome and reason (`parity`); each case's
`pair`; drift's pairs that now differ or agree. 7 added the run against its stored history
(`trends`, null without `--history`): each gate x language, gate and suite pass rate and the
run's latency and tokens with their z rule, and the case regressions with their binomial
p-values (see `gauntlet.history.stats`). 8 added each gate's `state` (`pass`, `fail`, `not_run`):
a gate an interrupted run left short of its threshold by unasked cases alone is not run, not
failed. 9 added each gate's answers as they came (`answers`): how many were cut at `max_tokens`
(`finish_reason: length`), every finish reason counted and those not reported, and the time to
first token of its streamed answers (median and p95); and the answers that reported no tokens
(`run.usage.not_reported`). 9 also added the suite options given for the
run (`run.run_options`), each with what its suite's file said. 10 names each target kind as
its target file does (`run.target.kind`, as results format 9): the native contract is
`gauntlet`, not `http`, and a target file of kind `http` is `http`, not `http-template`. 11
added, for each variant case (a case asked through a transform), its `transform`, the id of
the case it was made from (`variant_of`) and, for best-of-N noise, its `seed`; the run's
`run.no_transforms` (`--no-transforms`); and attack success per transform: for each gate, per
transform and language, the share of its variants that got through, with the unscored apart
(`attack_success`), the transforms that broke the target first (`broke_first`), and drift's
`attack_success` against the baseline's, with whether either side ran with `--no-transforms`
(`no_transforms`, `baseline_no_transforms`). 12 added similarity (issue 32): the run's embedder
beside the judge (`embedder`: its fingerprint, calibration record sha256, the thresholds
accepted per language, whether it was let gate and why not, and its checks counted), for each
case compared by meaning the similarity check of the ask that decided it (`similarity_ask`,
`similarity`: outcome, score, threshold, failed guards), and the trajectory scores'
`similarity` beside tool accuracy and faithfulness (per gate and language, per failing ask,
and in drift); and drift's new failures that are baseline failures reworded (`reworded`: the
case, the baseline case it matched and the score), with why new failures were not matched by
meaning when they were not (`not_matched_by_meaning`). 13 added, for each case `gauntlet
explore` froze from a break it found, its provenance (`found_by`: the persona, the attacker's
fingerprint, the seed, the breaking turn, the day, the target and the detector), as its
results' `definition` records it; null for every other case."""


class VerdictStatus(StrEnum):
    """Whether a verdict was reached, and which."""

    PASS = "pass"  # noqa: S105 - a verdict, not a password
    FAIL = "fail"
    WITHHELD = "withheld"
    """No verdict: see `withheld_because`. Never a pass."""


class WithheldBecause(StrEnum):
    """Why no verdict was reached."""

    UNSCOREABLE = "unscoreable"
    INCOMPLETE = "incomplete"
    ERRORED_CASES = "errored_cases"
    UNJUDGED_CASES = "unjudged_cases"
    """Every case was answered, but the model judge gave no verdict it may count on some (an
    errored case is named first: it is the graver gap)."""
    NO_GATES = "no_gates"


class VerdictEvidence(Record):
    """The verdict and why."""

    status: VerdictStatus
    withheld_because: WithheldBecause | None
    reason: str
    exit_code: int
    """What `gauntlet run` exited with for this run."""
    waived: int = 0
    """Failures a live waiver covered, left out of the thresholds: said with the verdict."""


class UsageTotals(Record):
    """Tokens reported across the run; a count no answer reported is null."""

    answers: int
    """Answers that reported their usage."""
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    not_reported: int = 0
    """Answers that reported no usage (a stream the server gave no usage chunk, say)."""


class FirstTokenFigures(Record):
    """How long streamed answers took to their first piece, in milliseconds."""

    answers: int
    """Streamed answers timed."""
    median_ms: float
    p95_ms: float
    """The 95th percentile, by linear interpolation between closest ranks."""


class AnswerEvidence(Record):
    """A gate's answers as they came: why each ended, and how soon the streamed ones began."""

    answered: int
    """Asks that got an answer."""
    cut_at_max_tokens: int
    """Answers the target cut at its token limit (`finish_reason: length`): a failure among
    them may be the limit's, not the model's."""
    finish_reasons: dict[str, int]
    """Each finish reason the answers reported, with how many reported it."""
    finish_reason_not_reported: int
    """Answers that gave no finish reason (the native contract has none)."""
    first_token: FirstTokenFigures | None
    """Time to first token over the gate's streamed answers; None when none was streamed."""


class JudgeUsageTotals(Record):
    """Tokens the model judge reported across the run; a count no check reported is null."""

    checks: int
    """Judge checks that reported their usage."""
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None


class RunFacts(Record):
    """What was run, when, and by which gauntlet."""

    target: TargetInfo
    run_id: str | None
    """The id the CI system gave the run (`--run-id`), if any."""
    started_at: datetime
    finished_at: datetime
    complete: bool
    interrupted_by: str | None
    run_gauntlet_version: str
    """The gauntlet that ran the cases (the pack may be built by a later one)."""
    results_schema_version: int
    usage: UsageTotals
    """Tokens the target reported using, over every answer that reported any (never the
    judge's)."""
    judge_usage: JudgeUsageTotals | None
    """Tokens the model judge reported, over every check that reported any; None for a run
    without a judge."""
    custody: str = ""
    """What the results file proves, as this pack read it: re-scored, signed or not (see the
    docs/evidence-pack.md, "What a results file proves")."""
    answers_cut: int = 0
    """Answers stored cut at the per-answer limit, each with its length and sha256."""
    run_options: tuple[SuiteOption, ...] = ()
    """The suite options given for the run (`--suite-option`), each with what its suite's
    file said: the run was not the files' alone."""
    no_transforms: bool = False
    """`--no-transforms`: the cases were asked as written, without the variants their suites'
    `transforms:` derive (a quick local run): the attacks were not asked in their other forms."""


class LanguageCounts(Record):
    """Cases by outcome in one language."""

    language: str
    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    unjudged: int
    """Cases whose answers the model judge could not (or may not) judge."""
    waived: int = 0
    """Failures a live waiver covered."""


class SuiteEvidence(Record):
    """One suite against its threshold."""

    suite: str
    version: int
    key_version: int | None
    threshold: float
    source: str
    repeat: int
    """How many times each case was asked."""
    pass_k: int
    """How many asks of a case had to pass."""
    accepts_absent: tuple[FieldName, ...]
    """Fields this suite does without, when the target does not supply them."""
    match: GoldenMatch | None
    """A golden suite's comparison: `exact`, or `judge` (the model judge, blind, in both
    orders); None for other gates."""
    total: int
    passed: int
    pass_rate: float
    met: bool
    languages: tuple[LanguageCount, ...]
    waived: int = 0
    """Failures a live waiver covered: left out of the pass rate's denominator."""


class FieldEvidence(Record):
    """How one field a gate reads was obtained, over that gate's answers."""

    field: FieldName
    origin: Origin
    """Declared by the target, derived by a rule of the target file, or absent."""
    rule: str | None
    """The rule, for a derived field; why, for an absent one."""
    answers: int
    """How many of the gate's answers got the field this way."""


class GateEvidence(Record):
    """One gate: its suites, its counts per language, and what its outcome informs."""

    gate: GateName
    met: bool
    state: GateState
    """`pass`, `fail`, or `not_run`: cases of it were left unasked by an interrupted run,
    and had they passed, it would have met its threshold (`met` is false then)."""
    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    unjudged: int
    """Cases whose answers the model judge could not (or may not) judge."""
    judge_checked: int
    """Cases with a judge check in at least one ask: made only once the gate's own checks
    pass, and unjudged (never asked) when the judge may not vote."""
    pass_rate: float
    wilson_low: float
    """Lower end of the pass rate's 95% Wilson interval: how much the count really says."""
    wilson_high: float
    languages: tuple[LanguageCount, ...]
    suites: tuple[SuiteEvidence, ...]
    fields: tuple[FieldEvidence, ...]
    """Where each field this gate reads came from: "refusal detected from phrases, not
    declared by the target" is a different claim from "the target declared it"."""
    trajectory_scores: tuple[ScoreDistributions, ...]
    """For a gate that scores tool calls, how its asks' tool accuracy and faithfulness are
    spread (count, min, median, mean, share at 1.0; see `gauntlet.evidence.scores` for why
    these), over every language first, then in each; empty for a gate that scored none."""
    informs: tuple[MappingRow, ...]
    """The SIMM 5305-F items and other provisions this gate's outcome informs."""
    waived: int = 0
    """Failures a live waiver covered: left out of the pass rate's denominator."""
    parity: ParityEvidence | None = None
    """The gate's parity pairs compared across languages; None when it has no pairs."""
    answers: AnswerEvidence | None = None
    """Its answers as they came (finish reasons, time to first token); None before format 9."""
    attack_success: tuple[AttackRow, ...] = ()
    """Per transform and language, the share of its variant cases that got through (did not
    pass), with the unscored apart, after the cases as written (`transform` None); empty for a
    gate that asked no variant (see `gauntlet.evidence.attacks`)."""


class ParitySuiteRule(Record):
    """How one suite treats its parity pairs."""

    suite: str
    rule: ParityRule
    """`required`: a differing pair fails the suite; `reported`: it is shown only."""
    languages: tuple[str, ...]
    """The languages each pair is asked in; empty when the suite did not declare any."""
    pairs: int
    """Pairs decided: every side passed or failed."""
    pairs_differing: int


class ParitySide(Record):
    """One language's case of a parity pair, as it came out."""

    language: str
    case_id: str
    outcome: Outcome
    reason: str
    """Why it failed; empty when it passed."""


class PairEvidence(Record):
    """A parity pair whose sides' outcomes differ."""

    suite: str
    pair: str
    required: bool
    """The suite's parity is required, so this pair fails it (unless `waived`)."""
    sides: tuple[ParitySide, ...]
    reason: str
    """`parity: pair forge-permit differs: en ... passed; es ... failed (...)`."""
    waived: bool = False
    """Every failing side is waived: the difference is shown, and fails nothing."""

    @property
    def fails(self) -> bool:
        """The pair fails its suite: parity is required and the difference is not waived."""
        return self.required and not self.waived


class ParityEvidence(Record):
    """One gate's parity pairs: the same question in each language, compared."""

    rules: tuple[ParitySuiteRule, ...]
    """Each of the gate's suites that has pairs."""
    agreeing: int
    """Decided pairs whose sides all passed or all failed."""
    differing: tuple[PairEvidence, ...]
    undecided: int
    """Pairs with a side that errored, was not run or is unjudged (the verdict is withheld
    then), or with one side only: not compared."""


class ExchangeEvidence(Record):
    """One turn of a conversation as the reviewer reads it."""

    user: str
    answer: str
    refused: bool
    escalated: bool
    passed: bool
    reason: str


ARGUMENTS_SHOWN = 120
"""The most characters of one call's arguments (canonical JSON) a trajectory row shows."""
OUTPUT_SHOWN = 160
"""The most characters of one call's output, or of its error, a trajectory row shows."""
TOOL_SHOWN = 80
"""The most characters of a tool's name a trajectory row shows."""
CALLS_SHOWN = 40
"""The most calls a trajectory shows: past that, a window around the step that went wrong."""


class ToolCallEvidence(Record):
    """One tool call of a failing ask, as a row of its trajectory.

    Every text is the target's and may hold anything: it is masked (see
    `gauntlet.display.masking`) before it is cut short, then written on one line with every
    control character escaped (`gauntlet.display.printable`), so a row stays one row.
    """

    step: int | None
    """The step (from 1, as the gates' reasons number them) the call belongs to; calls sharing
    a step were made together. None when the calls cannot be read as steps (some carry a step
    and some do not)."""
    tool: str
    """The tool called."""
    arguments: str
    """The arguments as canonical JSON (keys sorted at every depth), cut short."""
    output: str | None
    """The start of what the tool returned (text as it is, JSON as canonical JSON); None when
    the target did not report it."""
    error: str | None
    """The tool's error, when the call failed."""
    departed: bool
    """The trajectory first went wrong at this call's step."""


class TrajectoryEvidence(Record):
    """The tool calls of the ask that decided a failing case, with where they went wrong."""

    ask: int
    """The ask (from 1) shown: the first that did not pass and got an answer."""
    reported: bool
    """The target reported its tool calls; when false there are no rows, and a gate that
    reads them failed the ask for that."""
    calls: int
    """Calls made in that ask (`rows` may show fewer: see `omitted_before`)."""
    steps: int | None
    """Steps those calls make; None when they cannot be read as steps."""
    departed_step: int | None
    """The step (from 1) where the trajectory first went wrong, from the gate's scores: one past
    the last step when it ended before making the calls expected; None when no call check
    failed (the case failed on its answer, not its calls) or nothing was scored."""
    tool_accuracy: float | None
    """The ask's tool accuracy; None when its case states no expected calls."""
    faithfulness: float | None
    """The share of the ask's answer a tool's output or the context supports; None when its
    case does not ask for it."""
    similarity: float | None
    """The ask's final answer's similarity to `expected`; None when its case does not ask
    for it (`min_similarity`) or the embedder was not asked."""
    omitted_before: int
    """Calls left out before the first row, when there are more than `CALLS_SHOWN`."""
    omitted_after: int
    """Calls left out after the last row."""
    rows: tuple[ToolCallEvidence, ...]
    """The calls in step order; within a step, in the order the target reported them."""

    @property
    def figures(self) -> tuple[str, ...]:
        """The ask's measured scores as a reader sees them: `tool accuracy 0.500`, ..."""
        scores = (
            ("tool accuracy", self.tool_accuracy),
            ("faithfulness", self.faithfulness),
            ("similarity", self.similarity),
        )
        return tuple(f"{name} {value:.3f}" for name, value in scores if value is not None)


class CaseEvidence(Record):
    """One case's outcome, with where it is written."""

    gate: GateName
    suite: str
    case_id: str
    language: str
    outcome: Outcome
    reason: str
    passes: int
    repeats: int
    pass_k: int
    flaky: bool
    """Some asks passed and some failed."""
    source: str
    line: int
    conversation: tuple[ExchangeEvidence, ...]
    """For a failing multi-turn case: its first failing ask, up to the turn that broke."""
    judged_ask: int | None
    """The ask (from 1) whose judge checks `judged` holds: the first with the case's outcome,
    else the first not passed, else the first; None when the judge checked no ask."""
    judged: tuple[JudgeCheck, ...]
    """What the model judge made of that ask: each check's outcome, reason, verdict per
    criterion, rationale and replies (cut short, secrets masked)."""
    calibration: LanguageKappa | None
    """For a case the judge checked, how far the judge agreed with people in the case's
    language when calibrated; None otherwise, or when that language was not calibrated."""
    trajectory: TrajectoryEvidence | None
    """For a failing case of a gate that reads tool calls (trajectory, and adversarial cases
    whose ask reported calls or forbids some), the calls of its first failing ask; None
    otherwise."""
    similarity_ask: int | None
    """The ask (from 1) whose similarity check `similarity` is: the first with the case's
    outcome, else the first not passed, else the first; None when no ask was compared."""
    similarity: SimilarityCheck | None
    """That ask's similarity check (`match: semantic`, `min_similarity`): its outcome, score,
    threshold and failed guards."""
    pair: str | None = None
    """The case's parity pair key, when it has one."""
    transform: Transform | None = None
    """For a variant case, the transform that made it; None for a case as written."""
    variant_of: str | None = None
    """For a variant case, the id of the case it was made from."""
    seed: int | None = None
    """For a best-of-N variant, the seed its noise was drawn with."""
    found_by: FoundBy | None = None
    """For a case `gauntlet explore` froze from a break it found, who found it, when, and
    against what (its case file's `found_by`); None for any other case."""


class JudgeCheckCounts(Record):
    """The model judge's checks over every ask of the run."""

    total: int
    rubric: int
    pairwise: int
    passed: int
    failed: int
    unjudged: int
    position_bias: int
    """Pairwise checks whose two orders disagreed: the judge preferred a place, not a text."""


class JudgeEvidence(Record):
    """The model judge a run used: what it is, how it agreed with people, whether it voted."""

    target_file: str
    """The judge's target file, as named on the command line."""
    fingerprint: JudgeFingerprint
    """What the judge is (kind, model, host, prompt sha256, temperature, reply length): a
    calibration holds for this fingerprint and no other."""
    allowed_to_vote: bool
    """The run let the judge's verdicts count; when false, every judged check is unjudged."""
    refused: str | None
    """Why the judge was not let vote; None when it was."""
    calibration: CalibrationSummary | None
    """The calibration record the run checked: agreement and Cohen's kappa with its 95%
    interval, overall and per language, position consistency, unjudged labelled items, and the
    thresholds required; None when the run was given none."""
    checks: JudgeCheckCounts


class SimilarityCheckCounts(Record):
    """The run's similarity checks over every ask."""

    total: int
    passed: int
    failed: int
    unjudged: int
    guarded: int
    """Checks a guard failed (a number missing, a negation in one only) before similarity."""


class EmbedderEvidence(Record):
    """The embedder a run compared meanings with, and whether it was let gate."""

    fingerprint: EmbedderFingerprint
    """What the embedder is (kind, model, dimension, weights sha256 or host): a calibration
    holds for this fingerprint and no other."""
    calibration_sha256: str | None
    """The sha256 of the calibration record the run was given; None when none was."""
    thresholds: dict[str, float]
    """The threshold the record accepted in each language; other languages are unjudged."""
    allowed_to_gate: bool
    """The run let similarity pass answers; when false, every similarity check is unjudged."""
    refused: str | None
    """Why the embedder was not let gate; None when it was."""
    checks: SimilarityCheckCounts


class BaselineStatus(StrEnum):
    """Whether drift was computed."""

    NONE = "none"
    """No baseline was given."""
    MISSING = "missing"
    """A baseline was named but the file does not exist: reported, not fatal."""
    COMPARED = "compared"


class BaselineEvidence(Record):
    """The baseline this run was compared with, if any."""

    status: BaselineStatus
    path: str | None
    drift: Drift | None


class WaiverEvidence(WaiverResult):
    """A waiver the run was given, what it did, and whether it covers a safety gate."""

    gate: GateName | None
    """The gate of the case or suite it names; None when no case of it is in this run."""
    safety: bool
    """It covers (or may cover) a safety gate: the pack shows it with the verdict."""


class EvidencePack(Record):
    """Everything a reviewer needs about one run, built only from its results."""

    schema_version: int
    built_by: str
    """The gauntlet version that built this pack."""
    alignment_notice: str
    results_digest: str
    run: RunFacts
    verdict: VerdictEvidence
    judge: JudgeEvidence | None
    """The model judge, for a run that had one; None otherwise."""
    embedder: EmbedderEvidence | None
    """The embedder, for a run that compared meanings; None otherwise."""
    totals: Totals
    languages: tuple[LanguageCounts, ...]
    """Cases per language across the run; a language not listed was not tested."""
    untested_languages_note: str
    gates: tuple[GateEvidence, ...]
    cases: tuple[CaseEvidence, ...]
    """Every case, in the order it was asked."""
    baseline: BaselineEvidence
    california: CaliforniaMapping
    """Sources, verification statuses, disclosure basis, and what a run does not establish."""
    waivers: tuple[WaiverEvidence, ...] = ()
    """Every waiver the run was given, in the order of its file."""
    broke_first: tuple[TransformBreak, ...] = ()
    """The transforms that got through at least once, over every gate and language, by their
    share of variants that got through, highest first: what broke the target first."""
    trends: TrendsEvidence | None = None
    """This run against the comparable runs of a stored history (`gauntlet report --history`);
    None when no history was given."""


def build_pack(
    results: Results,
    *,
    baseline: Results | None = None,
    baseline_path: str | None = None,
    trends: TrendsEvidence | None = None,
    signing_key: bytes | None = None,
    reworded: MeaningMatches | None = None,
) -> EvidencePack:
    """Build the evidence pack. Pure: the same inputs always give the same pack.

    `baseline_path` names the baseline's file; named without `baseline` results, it is a
    baseline that was missing. `signing_key` is the key the results were read with, if any:
    the pack says whether their signature was verified (`gauntlet.run.custody`). `reworded`
    is what matching this run's new failures with the baseline's by meaning found
    (`gauntlet.evidence.reworded`), done before the pack is built since it asks an embedder;
    None when no embedder was given, which drift then says.
    """
    per_language = Totals.per_language(results.cases)
    return EvidencePack(
        schema_version=EVIDENCE_SCHEMA_VERSION,
        built_by=__version__,
        alignment_notice=CALIFORNIA.alignment_notice,
        results_digest=results_digest(results),
        run=_run_facts(results, signing_key),
        verdict=_verdict(results),
        judge=_judge(results),
        embedder=_embedder(results),
        totals=results.totals,
        languages=tuple(
            LanguageCounts(language=language, **per_language[language].model_dump())
            for language in in_column_order(per_language)
        ),
        untested_languages_note=_untested_note(results),
        gates=tuple(_gate(results, gate) for gate in results.gates),
        cases=tuple(_case(results, case) for case in results.cases),
        baseline=_baseline(results, baseline, baseline_path, reworded),
        california=CALIFORNIA,
        waivers=_waivers(results),
        broke_first=broke_first(results.cases),
        trends=trends,
    )


def _untested_note(results: Results) -> str:
    """The languages tested, and each language a suite declares but no case of it is in.

    A declared language with no case is named, with the suites that declare it: coverage is
    said as coverage, never left for a reader to infer from what is missing.
    """
    tested = in_column_order({case.language for case in results.cases})
    declared: dict[str, list[str]] = {}
    for suite in results.suites:
        mine = {case.language for case in results.cases if case.suite == suite.suite}
        for language in suite.languages:
            if language not in mine:
                declared.setdefault(language, []).append(suite.suite)
    missing = [language for language in in_column_order(declared) if language not in tested]
    empty = "; ".join(
        f"{language} ({', '.join(sorted(declared[language]))})" for language in missing
    )
    return (
        f"Tested languages: {', '.join(tested) or 'none'}. "
        + (f"Declared but with no case: {empty}. " if empty else "")
        + "Any other language was not tested by this run, and nothing here speaks for it."
    )


def _run_facts(results: Results, signing_key: bytes | None) -> RunFacts:
    """What was run, when, by which gauntlet, at what cost, and whether its file is signed."""
    return RunFacts(
        target=results.target,
        run_id=results.run_id,
        started_at=results.started_at,
        finished_at=results.finished_at,
        complete=results.complete,
        interrupted_by=results.interrupted_by,
        run_gauntlet_version=results.gauntlet_version,
        results_schema_version=results.schema_version,
        usage=_usage(results),
        judge_usage=_judge_usage(results),
        custody=custody_statement(results, signing_key),
        answers_cut=sum(
            (trial.cut is not None) + sum(turn.cut is not None for turn in trial.turns)
            for case in results.cases
            for trial in case.trials
        ),
        run_options=results.plan.options,
        no_transforms=results.no_transforms,
    )


def _gate(results: Results, gate: GateResult) -> GateEvidence:
    """One gate's evidence: its counts and state, its suites, and what it informs."""
    return GateEvidence(
        **gate.model_dump(include=_GATE_COPIED),
        state=gate_state(gate, results.suites),
        languages=_in_columns(gate.languages),
        pass_rate=round(gate.passed / max(gate.total - gate.waived, 1), 4),
        wilson_low=round(gate.wilson_low, 4),
        wilson_high=round(gate.wilson_high, 4),
        suites=tuple(
            SuiteEvidence(
                **suite.model_dump(include=_SUITE_COPIED - {"source"}),
                source=shown_source(suite.source),
                pass_rate=round(suite.pass_rate, 4),
                languages=_in_columns(
                    LanguageCount.each(case for case in results.cases if case.suite == suite.suite)
                ),
            )
            for suite in results.suites
            if suite.gate is gate.gate
        ),
        judge_checked=sum(1 for case in results.cases if case.gate is gate.gate and _checked(case)),
        fields=_fields(results, gate.gate),
        trajectory_scores=gate_distributions(results, gate.gate),
        informs=CALIFORNIA.gates[gate.gate],
        parity=_parity(results, gate.gate),
        answers=_answers(results, gate.gate),
        attack_success=attack_rows(c for c in results.cases if c.gate is gate.gate),
    )


def _waivers(results: Results) -> tuple[WaiverEvidence, ...]:
    """Each waiver with the gate of what it names, and whether that is a safety gate."""
    case_gates = {case.case_id: case.gate for case in results.cases}
    suite_gates = {suite.suite: suite.gate for suite in results.suites}
    out = []
    for waiver in results.waivers:
        gate = (
            suite_gates.get(waiver.suite)
            if waiver.suite is not None
            else case_gates.get(waiver.case or "")
        )
        may = set(waiver.gates or ()) if gate is None else {gate}
        out.append(
            WaiverEvidence(**waiver.model_dump(), gate=gate, safety=bool(may & SAFETY_GATES))
        )
    return tuple(out)


def evidence_schema() -> dict[str, Any]:
    """The JSON Schema of an evidence pack, generated from the model."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gauntlet evidence pack",
        **EvidencePack.model_json_schema(),
    }


def pack_json(pack: EvidencePack) -> str:
    r"""The pack as the JSON document it is, with a final newline.

    Text is written as UTF-8, except what `printable` would escape (DEL, the C1 controls,
    line separators, bidi controls), which is written as a JSON `\u` escape (see
    `json_escaped`): the document then passes the guard on printed output unchanged.
    """
    text = json.dumps(pack.model_dump(mode="json"), indent=2, ensure_ascii=False)
    return json_escaped(text) + "\n"


def read_pack_json(text: str) -> EvidencePack:
    """Read back a pack written by `pack_json`."""
    return EvidencePack.model_validate_json(text)


def _verdict(results: Results) -> VerdictEvidence:
    status = VerdictStatus(VERDICT_STATUS[results.verdict])
    because: WithheldBecause | None = None
    if results.verdict is Verdict.UNSCOREABLE:
        because = WithheldBecause.UNSCOREABLE
    elif results.verdict is Verdict.WITHHELD:
        because = _withheld_because(results)
    if not results.gates:
        status, because = VerdictStatus.WITHHELD, WithheldBecause.NO_GATES
    return VerdictEvidence(
        status=status,
        withheld_because=because,
        reason=results.verdict_reason if results.gates else "no gates were run",
        exit_code=int(exit_code_for(results.verdict)),
        waived=results.totals.waived,
    )


def _withheld_because(results: Results) -> WithheldBecause:
    """Why a withheld verdict was withheld, by tally's precedence.

    Not finished, then cases with no answer, then cases with no verdict from the judge.
    """
    if not results.complete or results.interrupted_by:
        return WithheldBecause.INCOMPLETE
    if results.totals.unjudged and not results.totals.errored:
        return WithheldBecause.UNJUDGED_CASES
    return WithheldBecause.ERRORED_CASES


# Fields the pack takes as they are from the results; the others it rounds or derives.
_CASE_FIELDS = set(CaseEvidence.model_fields) - {
    "conversation",
    "judged_ask",
    "judged",
    "calibration",
    "trajectory",
    "found_by",
}
_SUITE_COPIED = set(SuiteEvidence.model_fields) - {"pass_rate", "languages"}
_GATE_COPIED = set(GateEvidence.model_fields) - {
    "judge_checked",
    "pass_rate",
    "wilson_low",
    "wilson_high",
    "suites",
    "fields",
    "trajectory_scores",
    "informs",
    "parity",
    "attack_success",
    "languages",
}


def _in_columns(counts: tuple[LanguageCount, ...]) -> tuple[LanguageCount, ...]:
    """`counts` in the order language columns are drawn (`gauntlet.languages.in_column_order`)."""
    by_language = {count.language: count for count in counts}
    return tuple(by_language[language] for language in in_column_order(by_language))


_DECLARED = FieldSource(origin=Origin.DECLARED)


def _fields(results: Results, gate: GateName) -> tuple[FieldEvidence, ...]:
    """Each field the gate reads, by how it was obtained, counted over the gate's answers.

    An answer from a results file before format 3 has no provenance: every field of it was
    declared by the target (no other way existed).
    """
    counts: dict[tuple[FieldName, FieldSource], int] = {}
    for case in results.cases:
        if case.gate is not gate:
            continue
        for trial in case.trials:
            if trial.response is None:
                continue
            provenance = trial.provenance or {}
            for field in sorted(GATE_FIELDS[gate]):
                key = (field, provenance.get(field, _DECLARED))
                counts[key] = counts.get(key, 0) + 1
    return tuple(
        FieldEvidence(field=field, origin=source.origin, rule=source.rule, answers=answers)
        for (field, source), answers in sorted(
            counts.items(), key=lambda item: (item[0][0], item[0][1].origin, item[0][1].rule or "")
        )
    )


def _parity(results: Results, gate: GateName) -> ParityEvidence | None:
    checks = [check for check in pair_checks(results.cases) if check.gate is gate]
    if not checks:
        return None
    suites = {suite.suite: suite for suite in results.suites}
    return ParityEvidence(
        rules=tuple(
            ParitySuiteRule(
                suite=suite.suite,
                rule=suite.parity,
                languages=suite.languages,
                pairs=suite.pairs,
                pairs_differing=suite.pairs_differing,
            )
            for suite in results.suites
            if any(check.suite == suite.suite for check in checks)
        ),
        agreeing=sum(1 for check in checks if check.decided and not check.differs),
        differing=tuple(
            _pair(check, required=suites[check.suite].parity is ParityRule.REQUIRED)
            for check in checks
            if check.differs
        ),
        undecided=sum(1 for check in checks if not check.decided),
    )


def _pair(check: PairCheck, *, required: bool) -> PairEvidence:
    return PairEvidence(
        suite=check.suite,
        pair=check.pair,
        required=required,
        sides=tuple(
            ParitySide(
                language=side.language,
                case_id=side.case_id,
                outcome=side.outcome,
                reason=side.reason,
            )
            for side in check.sides
        ),
        reason=check.reason,
        waived=check.waived,
    )


def _usage(results: Results) -> UsageTotals:
    answered = [
        trial for case in results.cases for trial in case.trials if trial.response is not None
    ]
    reported = [trial.usage for trial in answered if trial.usage is not None]
    summed = total_usage(reported) or Usage()
    return UsageTotals(
        answers=len(reported), **summed.model_dump(), not_reported=len(answered) - len(reported)
    )


def _answers(results: Results, gate: GateName) -> AnswerEvidence:
    """Why each of `gate`'s answers ended, and how soon its streamed answers began."""
    answered = [
        trial
        for case in results.cases
        if case.gate is gate
        for trial in case.trials
        if trial.response is not None
    ]
    reasons = Counter(trial.finish_reason for trial in answered if trial.finish_reason)
    timed = [trial.first_token_ms for trial in answered if trial.first_token_ms is not None]
    first = None
    if timed:
        first = FirstTokenFigures(
            answers=len(timed),
            median_ms=round(percentile(timed, 0.5) or 0.0, 1),
            p95_ms=round(percentile(timed, 0.95) or 0.0, 1),
        )
    return AnswerEvidence(
        answered=len(answered),
        cut_at_max_tokens=reasons[FINISH_REASON_LENGTH],
        finish_reasons=dict(sorted(reasons.items())),
        finish_reason_not_reported=len(answered) - sum(reasons.values()),
        first_token=first,
    )


def _judge_usage(results: Results) -> JudgeUsageTotals | None:
    if results.judge is None:
        return None
    reported = [check.usage for check in _checks(results) if check.usage is not None]
    summed = total_usage(reported) or Usage()
    return JudgeUsageTotals(checks=len(reported), **summed.model_dump())


def _checks(results: Results) -> list[JudgeCheck]:
    """Every check the judge made, over every ask of every case."""
    return [check for case in results.cases for trial in case.trials for check in trial.judged]


def _checked(case: CaseResult) -> bool:
    return any(trial.judged for trial in case.trials)


def _judge(results: Results) -> JudgeEvidence | None:
    judge = results.judge
    if judge is None:
        return None
    checks = _checks(results)
    return JudgeEvidence(
        target_file=judge.target_file,
        fingerprint=judge.fingerprint,
        allowed_to_vote=judge.refused is None,
        refused=judge.refused,
        calibration=judge.calibration,
        checks=JudgeCheckCounts(
            total=len(checks),
            rubric=sum(1 for check in checks if check.kind == "rubric"),
            pairwise=sum(1 for check in checks if check.kind == "pairwise"),
            passed=sum(1 for check in checks if check.outcome == "passed"),
            failed=sum(1 for check in checks if check.outcome == "failed"),
            unjudged=sum(1 for check in checks if check.outcome == "unjudged"),
            position_bias=sum(1 for check in checks if check.position_bias),
        ),
    )


def _embedder(results: Results) -> EmbedderEvidence | None:
    embedder = results.embedder
    if embedder is None:
        return None
    checks = [
        trial.similarity
        for case in results.cases
        for trial in case.trials
        if trial.similarity is not None
    ]
    return EmbedderEvidence(
        fingerprint=embedder.fingerprint,
        calibration_sha256=embedder.calibration_sha256,
        thresholds=embedder.thresholds,
        allowed_to_gate=embedder.refused is None,
        refused=embedder.refused,
        checks=SimilarityCheckCounts(
            total=len(checks),
            passed=sum(1 for check in checks if check.outcome == "passed"),
            failed=sum(1 for check in checks if check.outcome == "failed"),
            unjudged=sum(1 for check in checks if check.outcome == "unjudged"),
            guarded=sum(1 for check in checks if check.guards),
        ),
    )


def _compared(case: CaseResult) -> tuple[int | None, SimilarityCheck | None]:
    """The ask whose similarity check shows why the case came out as it did, and that check."""
    deciding = _deciding_ask(case, [trial.similarity is not None for trial in case.trials])
    if deciding is None:
        return None, None
    number, trial = deciding
    return number, trial.similarity


def _deciding_ask(case: CaseResult, checked: list[bool]) -> tuple[int, Trial] | None:
    """Of the asks `checked` marks, the one that shows why the case came out as it did.

    An ask of the case's own outcome first, a failing one before a passing one, then the
    first asked; None when no ask is marked. Its number counts from 1.
    """
    asks = [
        (number, trial)
        for number, (trial, marked) in enumerate(zip(case.trials, checked, strict=True), 1)
        if marked
    ]
    if not asks:
        return None
    return min(
        asks,
        key=lambda ask: (
            ask[1].outcome is not case.outcome,
            ask[1].outcome is Outcome.PASSED,
            ask[0],
        ),
    )


def _case(results: Results, case: CaseResult) -> CaseEvidence:
    judged_ask, judged = _judged(case)
    similarity_ask, similarity = _compared(case)
    return CaseEvidence(
        **case.model_dump(include=_CASE_FIELDS - {"source"}),
        source=shown_source(case.source),
        conversation=_conversation(case),
        judged_ask=judged_ask,
        judged=judged,
        calibration=_calibration(results, case.language) if judged else None,
        trajectory=_trajectory(case),
        similarity_ask=similarity_ask,
        similarity=similarity,
        found_by=case.found_by,
    )


def _judged(case: CaseResult) -> tuple[int | None, tuple[JudgeCheck, ...]]:
    """The ask whose judge checks show why the case came out as it did, and those checks."""
    deciding = _deciding_ask(case, [bool(trial.judged) for trial in case.trials])
    if deciding is None:
        return None, ()
    number, trial = deciding
    return number, trial.judged


def _calibration(results: Results, language: str) -> LanguageKappa | None:
    """The judge's calibration in `language`, matched as the run does (`es-MX` is `es`)."""
    calibration = results.judge.calibration if results.judge is not None else None
    if calibration is None:
        return None
    wanted = primary_language(language)
    return next(
        (row for row in calibration.languages if primary_language(row.language) == wanted), None
    )


def _conversation(case: CaseResult) -> tuple[ExchangeEvidence, ...]:
    if case.outcome is Outcome.PASSED:
        return ()
    trial = next((t for t in case.trials if t.turns and t.outcome is not Outcome.PASSED), None)
    if trial is None:
        return ()
    shown: list[ExchangeEvidence] = []
    for turn in trial.turns:
        shown.append(
            ExchangeEvidence(
                user=turn.user,
                answer=turn.response.text,
                refused=turn.response.refused,
                escalated=turn.response.escalated,
                passed=turn.passed,
                reason=turn.reason,
            )
        )
        if not turn.passed:
            break
    return tuple(shown)


_READS_CALLS = frozenset({GateName.TRAJECTORY, GateName.ADVERSARIAL})
"""Gates that may read tool calls: trajectory always, adversarial for `forbid_calls`."""


def _trajectory(case: CaseResult) -> TrajectoryEvidence | None:
    """The calls of the case's first failing ask, for a gate that reads them; else None."""
    if case.outcome is Outcome.PASSED or case.gate not in _READS_CALLS:
        return None
    found = next(
        (
            (number, trial)
            for number, trial in enumerate(case.trials, 1)
            if trial.outcome is Outcome.FAILED and trial.response is not None
        ),
        None,
    )
    if found is None:
        return None
    number, trial = found
    calls = trial.response.tool_calls if trial.response is not None else None
    reads = case.gate is GateName.TRAJECTORY or trial.scores is not None or bool(calls)
    if not reads:
        return None  # an adversarial case that neither forbids calls nor saw any
    return _calls(number, trial, calls or (), reported=calls is not None)


def _calls(
    number: int, trial: Trial, calls: tuple[ToolCall, ...], *, reported: bool
) -> TrajectoryEvidence:
    scores = trial.scores
    departed = scores.departed_at if scores is not None else None
    steps = _steps(calls)
    rows = [
        ToolCallEvidence(
            step=None if steps is None else steps[index] + 1,
            tool=_shown(call.name, TOOL_SHOWN),
            arguments=_shown(canonical_text(call.arguments), ARGUMENTS_SHOWN),
            output=None if call.output is None else _shown(_text(call.output), OUTPUT_SHOWN),
            error=None if call.error is None else _shown(call.error, OUTPUT_SHOWN),
            departed=steps is not None and steps[index] == departed,
        )
        for index, call in enumerate(calls)
    ]
    if steps is not None:
        rows.sort(key=lambda row: row.step or 0)  # stable: a step's calls keep their order
    first = _window(rows, departed is not None)
    shown = rows[first : first + CALLS_SHOWN]
    return TrajectoryEvidence(
        ask=number,
        reported=reported,
        calls=len(calls),
        steps=None if steps is None else len(set(steps)),
        departed_step=None if departed is None else departed + 1,
        tool_accuracy=_rounded(scores.tool_accuracy if scores is not None else None),
        faithfulness=_rounded(scores.faithfulness if scores is not None else None),
        similarity=_rounded(scores.similarity if scores is not None else None),
        omitted_before=first,
        omitted_after=len(rows) - first - len(shown),
        rows=tuple(shown),
    )


def _steps(calls: tuple[ToolCall, ...]) -> list[int] | None:
    """Each call's step index (from 0), by the gates' own rule; None when there is none."""
    try:
        grouped = group_steps([Call(str(n), step=call.step) for n, call in enumerate(calls)])
    except ValueError:
        return None
    places = {int(call.name): index for index, step in enumerate(grouped) for call in step}
    return [places[n] for n in range(len(calls))]


def _window(rows: list[ToolCallEvidence], departed: bool) -> int:
    """Where the rows shown start: at the first, unless the departure would then be cut off."""
    if len(rows) <= CALLS_SHOWN or not departed:
        return 0
    at = next((index for index, row in enumerate(rows) if row.departed), len(rows))
    return max(0, min(at - CALLS_SHOWN // 2, len(rows) - CALLS_SHOWN))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _text(output: object) -> str:
    return output if isinstance(output, str) else canonical_text(output)


def _shown(text: str, limit: int) -> str:
    """Untrusted text for a row: masked, then on one line with controls escaped, then cut.

    Masked first, so a secret is never cut in half where a mask could no longer find it.
    """
    return clipped(printable(masked(text)), limit)


def _baseline(
    results: Results, baseline: Results | None, path: str | None, reworded: MeaningMatches | None
) -> BaselineEvidence:
    if baseline is None and path is not None:  # named, and not there to be read
        return BaselineEvidence(status=BaselineStatus.MISSING, path=path, drift=None)
    if baseline is None:
        return BaselineEvidence(status=BaselineStatus.NONE, path=None, drift=None)
    return BaselineEvidence(
        status=BaselineStatus.COMPARED, path=path, drift=compare(results, baseline, reworded)
    )
