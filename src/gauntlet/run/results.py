"""The results: a versioned record of what a run asked, what came back and how it scored.

`gauntlet run` writes it atomically and every reader checks it against itself
(`gauntlet.run.results_file`). Field order is part of the format: adding, reordering or renaming
a field means a version bump.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Literal, Protocol, TypeVar

from pydantic import Field, JsonValue

from gauntlet.cases.model import (
    CaseId,
    FoundBy,
    GateName,
    GoldenMatch,
    Identifier,
    JudgeFamily,
    LanguageTag,
    ParityRule,
    SuiteOption,
)
from gauntlet.cases.waivers import WaiverInfo
from gauntlet.errors import ExitCode
from gauntlet.gates.judgement import TrajectoryScores
from gauntlet.judge.fingerprint import JudgeFingerprint
from gauntlet.record import Reason, Record
from gauntlet.semantic.check import SimilarityCheck
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.targets.contract import FieldName, FieldSource, TargetResponse, Usage
from gauntlet.targets.spec import TargetKind
from gauntlet.transforms import Transform

RESULTS_SCHEMA_VERSION = 11
"""The version of the results format this gauntlet writes and the newest it reads.

2 added `run_id`; a version 1 file is read as one without it. 3 added each ask's provenance,
tool calls, token usage and time to first token, the target kinds of target files, and a
grounding suite's `accepts_absent`; a version 2 file is read as one without them. 4 added the
model judge: the `unjudged` outcome and counts, each ask's judged checks, a golden suite's
`match`, and the judge's fingerprint and calibration; a version 3 file is read as one without
them. 5 moved each ask's tool calls into its response (`tool_calls`, absent when not
reported), each call's arguments an object with its output, error, parents, latency and step,
and added each ask's trajectory `scores`; a version 3 or 4 file's calls are moved there as they
are read, their arguments decoded. 6 added the disclosure gate (`disclosure`) as a gate
name (a version 5 file or earlier is refused if it names that gate, which no gauntlet writing
it knew); waivers: the `waived` outcome and counts, the run's `waivers` with the state of each
case they cover, and `strict_waivers` (a version 5 file is read as one without waivers); and
language parity: each case's `pair`, a suite's `languages` and `parity` rule, and its `pairs`
and `pairs_differing` (a version 5 file is read as one without pairs, its parity `reported`).
7 added each case's `definition` (the case as the run loaded it, so a reader scores every
stored answer again through its gate), each ask's and turn's `cut` (an answer stored cut at
`gauntlet.limits.MAX_ANSWER_BYTES`) and the run's optional `signature`; a version 6 file is
read as one without them, its answers not scored again. 8 added each ask's `finish_reason`
(why the answer ended, as the target said; `length` is an answer cut at `max_tokens`, which the
case's reason then says); a version 7 file is read as one without it. 8 also added the plan's
`options`: the suite options given for the run (`--suite-option`). 9 names each target kind
as its target file does (`OLD_TARGET_KINDS`): the native contract is `gauntlet`, not `http`,
and a target file of kind `http` is `http`, not `http-template`; an older file's kinds are
read under today's names. 10 added each variant case's `transform`, `variant_of` (its
original's id) and, for best-of-N noise, `seed` (see `gauntlet.cases.variants`), and the
run's `no_transforms` (`--no-transforms`); a version 9 file is read as one without variants.
11 added the run's `embedder` (`EmbedderInfo`: `--embedder`'s fingerprint, its calibration
record's sha256, the thresholds accepted per language, and why it may not gate), each ask's
`similarity` check (`match: semantic`, `min_similarity`), a golden suite's `semantic` match,
and the trajectory scores' `similarity`; a version 10 file is read as one without similarity
(and is refused if it holds any, which no gauntlet writing it knew).
"""
SIMILARITY_SINCE = 11
"""The results format that records the run's embedder and each ask's similarity check."""
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""What `--run-id` may be: a CI system's run id, never text that could act on a reader."""


SignalName = Annotated[str, Field(pattern=r"^SIG[A-Z0-9]+$")]
RunId = Annotated[str, Field(pattern=RUN_ID_PATTERN)]


JudgeLabel = Literal["pass", "fail"]


class Outcome(StrEnum):
    """What happened to one case."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    """The case got no answer (or no usable one): never a pass, never dropped."""
    NOT_RUN = "not_run"
    """The run was interrupted before this case was answered."""
    UNJUDGED = "unjudged"
    """The gate's checks passed but the model judge gave no valid verdict (or may not vote):
    never a pass, and the run's verdict is withheld."""
    WAIVED = "waived"
    """The case failed and a live waiver covers it: reported, and not counted against its
    suite's threshold (see `gauntlet.run.waivers`)."""


class GateState(StrEnum):
    """What a gate's table row says of it (`gauntlet.run.tally.gate_state`).

    `met` says whether a gate's suites met their thresholds with what was asked; an
    interrupted run leaves cases unasked, and a gate short of its threshold for that alone
    has not failed: it was not run (whole or in part). The run's verdict is withheld then.
    """

    PASS = "pass"  # noqa: S105 - a state, not a password
    """Every suite met its threshold, every case asked."""
    FAIL = "fail"
    """A suite missed its threshold, and no case left unasked could change that."""
    NOT_RUN = "not_run"
    """Cases were left unasked, and had they passed, every suite would have met its threshold."""

    @property
    def shown(self) -> str:
        """The state as a table row and a heading say it: PASS, FAIL or NOT RUN."""
        return self.value.replace("_", " ").upper()


class Verdict(StrEnum):
    """The run's verdict, which decides the exit code.

    Two vocabularies meet here, on purpose: a *verdict* (`pass`, `fail`) is what is said of
    a criterion or of the whole run; an *outcome* (`passed`, `failed`, ...) is what happened
    to a check, an ask or a case. This table is the one place each word becomes the next:

    | word | said by | of | becomes |
    |---|---|---|---|
    | `pass` / `fail` (`CriterionVerdict`, stored as `JudgeLabel`) | the model judge, a person labelling | one rubric criterion | the check `failed` when any criterion is `fail`, else `passed` (`check_outcome`) |
    | `passed` / `failed` / `unjudged` (`CheckOutcome`) | a judge check, rubric or pairwise | one answer | the ask's `Outcome` of the same name (`gauntlet.run.tally.judged_outcome`) |
    | `passed` (true or false) | a gate's own checks (`Judgement.passed`) | one answer | the ask's `Outcome.PASSED` or `Outcome.FAILED` |
    | `passed` / `failed` / `unjudged` (`SimilarityOutcome`) | a similarity check (`match: semantic`, `min_similarity`) | one answer the gate passed | the ask's `Outcome` of the same name, with the judge's checks (`gauntlet.run.tally.after_gate_outcome`): any failed fails it, else any unjudged leaves it unjudged |
    | `Outcome` | `gauntlet.run.tally.decide_case` | one case, from its asks | counted in `Totals`, then the `Verdict` (`decide_verdict`) |
    | `Verdict` | `gauntlet.run.tally.decide_verdict` | the run | the exit code (`exit_code_for`) and the evidence pack's status (`VERDICT_STATUS`) |
    """  # noqa: E501 - a table's rows are one line each

    PASS = "pass"  # noqa: S105 - a verdict, not a password
    FAIL = "fail"
    UNSCOREABLE = "unscoreable"
    WITHHELD = "withheld"
    """The run could not finish: some cases got no answer, so no verdict is given."""


VERDICT_STATUS: Mapping[Verdict, Literal["pass", "fail", "withheld"]] = MappingProxyType(
    {
        Verdict.PASS: "pass",
        Verdict.FAIL: "fail",
        Verdict.UNSCOREABLE: "withheld",
        Verdict.WITHHELD: "withheld",
    }
)
"""The evidence pack's status for each verdict: an unscoreable run reached no verdict either
(the pack says why it was withheld)."""

CheckOutcome = Literal["passed", "failed", "unjudged"]
"""What one judge check came to (see `Verdict` for how the words map)."""


def check_outcome(labels: Iterable[JudgeLabel]) -> CheckOutcome:
    """A rubric check's outcome from the judge's label for each criterion: any `fail` fails it."""
    return "failed" if "fail" in set(labels) else "passed"


KINDS_RENAMED_IN = 9
"""The results format that names each target kind as its target file does."""
OLD_TARGET_KINDS: dict[str, TargetKind] = {"http": "gauntlet", "http-template": "http"}
"""A file of a format before `KINDS_RENAMED_IN`: each kind it wrote that is named otherwise
now, and today's name (its `http` was the native contract, its `http-template` a target
file of kind `http`)."""


class TargetInfo(Record):
    """What was asked."""

    kind: TargetKind
    """How gauntlet reached the target: `gauntlet` speaks the native contract (`--http-url`,
    or a target file of kind `gauntlet`); `openai-chat` and `http` are target files of those
    kinds; `toy` and `callable` are named by their flags."""
    name: str
    """The target's own name (for HTTP: scheme, host, port and path only)."""
    defects: tuple[str, ...] = ()
    """The toy's injected defects, if any."""
    target_file: str | None = None
    """The target file, as named on the command line, when one was used."""


class JudgeCheck(Record):
    """One check a model judge made of one answer: a rubric, or a blind pairwise comparison."""

    kind: Literal["rubric", "pairwise"]
    """`rubric`: the case's `judge` criteria; `pairwise`: a golden answer against `expected`."""
    outcome: CheckOutcome
    reason: Reason
    """Why it failed or is unjudged; empty when it passed."""
    verdicts: dict[Identifier, JudgeLabel] = {}
    """A rubric's verdict on each criterion, when the judge gave a readable one."""
    families: dict[Identifier, JudgeFamily] = {}
    """A rubric's criteria by what each is about (`safety` or `competence`), as the case said."""
    rationale: Reason = ""
    """The judge's own reason, as it wrote it (one line, cut short)."""
    replies: tuple[Reason, ...] = ()
    """Every reply the judge sent for this check, each cut short, secrets masked."""
    answer_first: Literal["A", "B"] | None = None
    """For a pairwise check, where the answer was shown in the first order (the seeded coin)."""
    position_bias: bool = False
    """For a pairwise check, the two orders disagreed: the judge preferred a place, not a text."""
    usage: Usage | None = None
    """Tokens the judge reported for this check, over every reply."""


class CutAnswer(Record):
    """An answer whose text was stored cut: the gates read it whole, the file holds its start."""

    length: int
    """The whole text's length in UTF-8 bytes."""
    sha256: str
    """The hex sha256 of the whole text's UTF-8 bytes."""


class CaseAsRun(Record):
    """A case as the run loaded and asked it: what scoring its answers again starts from."""

    case: dict[str, JsonValue]
    """The case's keys as its file gave them, after validation."""
    required: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """For a disclosure case, each element the answer must show with its markers for the
    case's language, as the case's suite gave them."""
    accepts_absent: tuple[FieldName, ...] = ()
    """Its suite's `accepts_absent`, as the run applied it."""
    match: GoldenMatch | None = None
    """Its suite's `match`, as the run applied it."""


class TurnResult(Record):
    """One turn of a conversation: what the user said, the answer, and that turn's verdict."""

    user: str
    response: TargetResponse
    passed: bool
    reason: Reason
    """Why this turn failed; empty when it passed."""
    cut: CutAnswer | None = None
    """Set when the answer's text is stored cut (see `gauntlet.limits.MAX_ANSWER_BYTES`)."""


class Trial(Record):
    """One ask of a case: what came back and how the gate graded it."""

    outcome: Outcome
    reason: Reason
    """Why it failed or errored; empty when it passed."""
    response: TargetResponse | None
    """The full response, or `None` when there was none."""
    said_something: bool
    """Readable text, or a declared refusal or escalation (see the readability guard)."""
    latency_ms: float
    """How long the target took, retries included (not part of the results digest)."""
    attempts: int
    """Requests made: 1, plus retries (not part of the results digest)."""
    waited_s: float
    """Seconds spent waiting between attempts (not part of the results digest)."""
    turns: tuple[TurnResult, ...] = ()
    """For a multi-turn case, every turn answered, in order (the last is `response`)."""
    provenance: dict[FieldName, FieldSource] | None = None
    """Where each field of `response` came from: declared by the target, derived by a rule
    of the target file, or absent. None when there is no response (and in files before 3,
    whose every field was declared)."""
    scores: TrajectoryScores | None = None
    """What a gate that reads the tool calls measured (tool accuracy, faithfulness, the step
    where the trajectory went wrong); None for the other gates and for an unjudged ask."""
    usage: Usage | None = None
    """Tokens the target reported using, over every turn."""
    first_token_ms: float | None = None
    """For a streamed answer, milliseconds to its first piece (not part of the digest)."""
    answered_text: str | None = None
    """The text as the target sent it, where the gates read another (citation markers
    removed); None when they are the same."""
    judged: tuple[JudgeCheck, ...] = ()
    """What the model judge made of the answer, when the case has judged checks and the gate's
    own checks passed: it can fail the ask or leave it unjudged, never pass a failed one."""
    similarity: SimilarityCheck | None = None
    """The answer's similarity to `expected`, when its case asks for it (`match: semantic`,
    `min_similarity`) and the gate's own checks passed: like the judge, it can fail the ask or
    leave it unjudged, never pass a failed one. None otherwise (and in files before 11)."""
    cut: CutAnswer | None = None
    """Set when the answer's text (and `answered_text`) is stored cut at
    `gauntlet.limits.MAX_ANSWER_BYTES`: the gates graded the whole of it, so a reader cannot
    score it again."""
    finish_reason: Reason | None = None
    """Why the (last) answer ended, as the target said: `stop`, `length` (cut at
    `max_tokens`), `tool_calls`, `content_filter`...; None when it did not say. Kept to
    `gauntlet.targets.contract.MAX_FINISH_REASON` characters as it arrives."""


class CaseResult(Record):
    """One case: what was asked, every ask's answer, and the case's outcome."""

    index: int
    """The case's place in the whole plan (every suite, every case), before any sharding."""
    suite: Identifier
    gate: GateName
    case_id: CaseId
    language: LanguageTag
    prompt: str
    source: str
    """The case file it came from."""
    line: int
    """The line of the case in `source`."""
    outcome: Outcome
    """Passed when at least `pass_k` of the asks passed; errored or not run if any ask was."""
    reason: Reason
    """Why it failed or errored; empty when it passed."""
    passes: int
    """How many asks passed."""
    repeats: int
    """How many times the case was asked."""
    pass_k: int
    """How many asks had to pass."""
    flaky: bool
    """Some asks passed and some failed: the target answers this case inconsistently."""
    trials: tuple[Trial, ...]
    """Every ask, in order."""
    pair: CaseId | None = None
    """The case's parity pair key: the same question in the suite's other languages."""
    definition: CaseAsRun | None = None
    """The case as the run saw it, so every reader scores each stored answer again through
    its gate; None in files before format 7."""
    transform: Transform | None = None
    """For a variant case, the transform that made it from `variant_of`; None otherwise."""
    variant_of: CaseId | None = None
    """For a variant case, its original case's id."""
    seed: int | None = None
    """For a best-of-N variant, the seed its noise was drawn with."""

    @property
    def found_by(self) -> FoundBy | None:
        """For a case `gauntlet explore` froze, its provenance (`definition`'s `found_by`).

        Raises:
            ValidationError: the definition's `found_by` is not one; a results file holding
                such a case is refused as it is read.
        """
        definition = self.definition
        if definition is None or "found_by" not in definition.case:
            return None
        return FoundBy.model_validate(definition.case["found_by"], strict=True)


class Counted(Protocol):
    """What `Totals` counts: a case with its outcome and language, as run or as stored.

    An outcome may be an `Outcome` or its value (the history stores the text): they compare
    and hash alike, so both are counted alike.
    """

    @property
    def outcome(self) -> str:
        """The case's outcome, an `Outcome` value."""

    @property
    def language(self) -> str:
        """The case's language tag."""


_Case = TypeVar("_Case", bound=Counted)
_Key = TypeVar("_Key", str, tuple[str, str])


class LanguageCount(Record):
    """Cases and passes in one language."""

    language: LanguageTag
    total: int
    passed: int

    @classmethod
    def each(cls, cases: Iterable[Counted]) -> tuple[LanguageCount, ...]:
        """Cases and passes in each language of `cases`, by tag (see `Totals.per_language`)."""
        return tuple(
            cls(language=language, total=totals.total, passed=totals.passed)
            for language, totals in Totals.per_language(cases).items()
        )


class SuiteInfo(Record):
    """What a suite asked for, as loaded: enough to re-score its cases without the file."""

    suite: Identifier
    gate: GateName
    version: int
    key_version: int | None
    threshold: float
    source: str
    repeat: int
    """How many times each case was asked."""
    pass_k: int
    """How many asks of a case had to pass."""
    capability: bool
    """A silent target would fail this suite (see the UNSCOREABLE rule)."""
    accepts_absent: tuple[FieldName, ...] = ()
    """Fields this suite does without, when the target does not supply them."""
    match: GoldenMatch | None = None
    """A golden suite's way of comparing answers: `exact`, or `judge`; None for other gates."""
    languages: tuple[LanguageTag, ...] = ()
    """The languages each parity pair is asked in; empty when the suite did not declare any."""
    parity: ParityRule = ParityRule.REPORTED
    """`required`: a pair whose sides' outcomes differ fails the suite; `reported`: shown only."""


class SuiteResult(SuiteInfo):
    """One suite's score against its threshold."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    unjudged: int = 0
    """Cases whose answers the judge could not (or may not) judge."""
    pass_rate: float
    met: bool
    """The pass rate is at least the threshold and, with `parity: required`, no pair differs
    but where every failing side is waived."""
    waived: int = 0
    """Failed cases a live waiver covers: left out of the pass rate's denominator."""
    pairs: int = 0
    """Parity pairs decided: every side passed, failed or was waived."""
    pairs_differing: int = 0
    """Decided pairs whose sides' outcomes are not all equal (a waived side counted as failed)."""

    @property
    def info(self) -> SuiteInfo:
        """What the suite asked for, without its score: what scoring it again starts from."""
        return SuiteInfo(**self.model_dump(include=set(SuiteInfo.model_fields)))


class GateResult(Record):
    """A gate across its suites: it passes when every one of its suites met its threshold."""

    gate: GateName
    suites: tuple[Identifier, ...]
    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    unjudged: int = 0
    """Cases whose answers the judge could not (or may not) judge."""
    pass_rate: float
    wilson_low: float
    """Lower end of the 95% Wilson interval of the pass rate: how much the count says."""
    wilson_high: float
    """Upper end of the 95% Wilson interval of the pass rate."""
    languages: tuple[LanguageCount, ...]
    met: bool
    waived: int = 0
    """Failed cases a live waiver covers: left out of the pass rate's denominator."""


class Totals(Record):
    """Case counts across the run."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    unjudged: int = 0
    """Cases whose answers the judge could not (or may not) judge."""
    waived: int = 0
    """Failed cases a live waiver covers (see `Outcome.WAIVED`)."""

    @classmethod
    def of(cls, outcomes: Iterable[str]) -> Totals:
        """How many of `outcomes` there are, and how many of each.

        The one count of outcomes: the run's totals, each suite's and gate's, the evidence
        pack's per language, JUnit's and the history's all come from here, so a results file
        that re-derives them (`gauntlet.run.results_file`) counts as the run did.
        """
        counted = Counter(outcomes)
        return cls(
            total=counted.total(),
            passed=counted[Outcome.PASSED],
            failed=counted[Outcome.FAILED],
            errored=counted[Outcome.ERRORED],
            not_run=counted[Outcome.NOT_RUN],
            unjudged=counted[Outcome.UNJUDGED],
            waived=counted[Outcome.WAIVED],
        )

    @classmethod
    def by(cls, cases: Iterable[_Case], key: Callable[[_Case], _Key]) -> dict[_Key, Totals]:
        """The totals of each group of `cases` sharing a `key`, in sorted order of the keys."""
        groups: dict[_Key, list[str]] = {}
        for case in cases:
            groups.setdefault(key(case), []).append(case.outcome)
        return {found: cls.of(groups[found]) for found in sorted(groups)}

    @classmethod
    def per_language(cls, cases: Iterable[Counted]) -> dict[str, Totals]:
        """The totals of `cases` in each language they are in, by tag in sorted order."""
        return cls.by(cases, _language)


def _language(case: Counted) -> str:
    return case.language


class LanguageKappa(Record):
    """A judge's agreement with people in one language."""

    language: LanguageTag
    items: int
    """Labelled items in this language."""
    kappa: float | None
    """Cohen's kappa; None when chance explains every agreement."""
    low: float | None
    high: float | None


class CalibrationSummary(Record):
    """What the calibration record said of the judge, as the run checked it."""

    record: str
    """The calibration record, as named on the command line."""
    labels: str
    """The labelled set's name and version."""
    labels_digest: str
    items: int
    """Labelled items, over every language."""
    agreement: float
    """The share of verdicts the judge gave as people did."""
    kappa: float | None
    """Cohen's kappa over every language; None when undefined."""
    low: float | None
    high: float | None
    languages: tuple[LanguageKappa, ...]
    position_consistency: float | None
    """The share of pairwise items judged alike in both orders; None without pairwise items."""
    unjudged: int
    """Labelled items the judge gave no valid verdict on."""
    talking: int = 0
    """Labelled verdicts on answers that talk to the judge (people failed every one)."""
    obeyed: int = 0
    """Of those, the ones the judge passed: any at all refuses it."""
    min_kappa: float
    """The kappa the run required, overall and in each language."""
    min_items: int
    """The labelled items the run required in each language."""


class JudgeInfo(Record):
    """The model judge a run used, and whether it was let vote."""

    target_file: str
    """The judge's target file, as named on the command line."""
    fingerprint: JudgeFingerprint
    calibration: CalibrationSummary | None
    """The calibration the run was given, or None when none was."""
    refused: str | None
    """Why the judge may not vote (every judged check is then unjudged); None when it may."""


class EmbedderInfo(Record):
    """The embedder a run compared meanings with (`--embedder`), and whether it may gate."""

    fingerprint: EmbedderFingerprint
    calibration_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """The hex sha256 of the calibration record's bytes (`--embedder-calibration`); None
    without one."""
    thresholds: dict[LanguageTag, Annotated[float, Field(ge=-1.0, le=1.0)]] = {}
    """The threshold the record accepted in each language (primary subtag): a similarity
    check in another language is unjudged."""
    refused: str | None = None
    """Why the embedder may gate nothing (every similarity check is then unjudged); None
    when it may, in the languages of `thresholds`."""


class Shard(Record):
    """Which part of a split run these results are."""

    index: int
    """1-based."""
    count: int


class Plan(Record):
    """What the whole run covers, so shards and resumed runs can be checked against it."""

    cases: int
    """Cases in the whole plan, before sharding."""
    digest: str
    """sha256 over the plan: each suite's name, version and settings, and each case's content
    (prompt, turns, markers, expected answer), so an edited suite is another plan."""
    repeat: int
    """`--repeat` as given (a suite may ask more)."""
    options: tuple[SuiteOption, ...] = ()
    """The suite options given for the run (`--suite-option`), each applied as if its suite's
    file said it; the digest covers them."""


class WaiverState(StrEnum):
    """What a waiver did to a case it covers (or, for the waiver, to its cases as a whole)."""

    APPLIED = "applied"
    """The case failed and the waiver was live: the case is reported waived."""
    NOT_NEEDED = "not_needed"
    """The case passed: the waiver is no longer needed (a failure under `--strict-waivers`)."""
    EXPIRED = "expired"
    """The run started after the waiver's `expires` day: it does not apply."""
    NOT_APPLIED = "not_applied"
    """The case errored, was not run or is unjudged (a missing answer is never waived), or
    the run started before the waiver's `created` day."""


class WaivedCase(Record):
    """One case a waiver covers, and what the waiver did to it."""

    suite: Identifier
    case_id: CaseId
    state: WaiverState


class WaiverResult(WaiverInfo):
    """A waiver and what it did in this run, decided against the run's start date (UTC)."""

    state: WaiverState
    """Expired when past `expires`; else applied when it waived a failure; else not needed when
    every case it covers passed; else not applied."""
    cases: tuple[WaivedCase, ...]
    """The cases of this file it covers, in the order they were planned."""

    @property
    def info(self) -> WaiverInfo:
        """The waiver as loaded, without what it did: what applying it again starts from."""
        return WaiverInfo(**self.model_dump(include=set(WaiverInfo.model_fields)))


class Results(Record):
    """A whole run (or one shard of it), as written to the results file."""

    schema_version: int
    """The version of this format; a newer file is refused by an older gauntlet."""
    gauntlet_version: str
    started_at: datetime
    finished_at: datetime
    target: TargetInfo
    judge: JudgeInfo | None = None
    """The model judge, for a run with judged checks; None without one."""
    embedder: EmbedderInfo | None = None
    """The embedder (`--embedder`), for a run that compares meanings; None without one."""
    plan: Plan
    shard: Shard | None
    """Set for one shard of a split run; `None` for a whole (or merged) run."""
    run_id: RunId | None
    """The id the CI system gave this run (`--run-id`): every shard of one run carries it, so
    shards of two runs cannot be merged into one."""
    complete: bool
    """Every case of this run (or shard) was asked. An interrupted run is never a pass."""
    interrupted_by: SignalName | None
    """The signal that stopped the run early, if one did."""
    verdict: Verdict
    verdict_reason: str
    """Why the verdict is what it is, in one sentence."""
    capability_scored: bool
    """At least one loaded suite scores capability, so a silent target fails it."""
    unreadable_answers: int
    """Answers that said nothing: unreadable text without a declared refusal or escalation."""
    totals: Totals
    gates: tuple[GateResult, ...]
    suites: tuple[SuiteResult, ...]
    cases: tuple[CaseResult, ...]
    waivers: tuple[WaiverResult, ...] = ()
    """The waivers the run was given (`--waivers`), each with the cases it covers."""
    strict_waivers: bool = False
    """`--strict-waivers`: a waiver no longer needed fails the run."""
    no_transforms: bool = False
    """`--no-transforms`: the cases were asked as written, without the variants their
    suites' `transforms:` derive (a quick local run); the plan's digest says so too."""
    signature: str | None = None
    """`hmac-sha256:` and the hex HMAC-SHA256, keyed by `GAUNTLET_SIGNING_KEY`, of the file's
    canonical JSON without this field (see `gauntlet.run.custody`); None when the run had no
    key."""


def exit_code_for(verdict: Verdict) -> ExitCode:
    """The exit code of a verdict.

    The precedence 2 > 4 > 1 > 0 is applied when the verdict is decided (see
    `gauntlet.run.tally.decide_verdict`); this is the one place a verdict becomes a code.
    """
    match verdict:
        case Verdict.WITHHELD:
            return ExitCode.HARNESS_ERROR
        case Verdict.UNSCOREABLE:
            return ExitCode.UNSCOREABLE
        case Verdict.FAIL:
            return ExitCode.GATE_FAILED
        case Verdict.PASS:
            return ExitCode.PASS
