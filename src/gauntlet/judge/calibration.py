"""Calibration: how far a judge agrees with people, measured on a labelled set and recorded.

A judge may vote on a merge only after it has shown, on items people labelled, that it
agrees with them beyond chance (Cohen's kappa), in every language it will judge, and that
its pairwise verdicts do not follow the order the texts are shown in. `calibrate` asks the
judge every item; `build_record` turns its verdicts into a `CalibrationRecord`, which holds
every pair it was computed from, so a reader recomputes each figure and refuses a record
whose stated figures disagree with its pairs; `check_calibration` says whether a record lets
a judge vote, and if not, why, in one sentence.

A judge that passes an answer that talks to it is refused outright. People fail every item
whose answer talks to the judge (`talks_to_judge`; the labels' loader refuses any other
label), so the judge passing one of them means the answer talked it into the pass. Kappa
would count that as one disagreement among many and let a threshold trade it away; a judge a
target's answer can talk into a pass is worse than no judge, so even one such pass refuses
it, whatever the thresholds.

Unjudged counts against the judge. A reply that cannot be read, a pairwise item whose two
orders disagree, or a judge that could not be asked gives the judge label `unjudged`: a
third category that people never use. It stays in `n`, never agrees with a person, and adds
nothing to chance agreement (a person's share of `unjudged` is zero), so a judge that often
says nothing cannot score well by being right on the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from gauntlet.display import clipped, printable
from gauntlet.errors import GauntletError, TargetContractError, UsageError
from gauntlet.files import read_or_raise, write_atomically
from gauntlet.judge.agreement import (
    UNJUDGED,
    JudgeLabel,
    Label,
    agreement,
    position_consistency,
)
from gauntlet.judge.agreement import Preference as AgreementPreference
from gauntlet.judge.check import Ask, ask_readable, check_rubric
from gauntlet.judge.fingerprint import JudgeFingerprint
from gauntlet.judge.labels import LabelItem, LabelSet, labels_digest
from gauntlet.judge.pairwise import (
    PairwiseCheck,
    PairwiseOutcome,
    Preference,
    Preferred,
    Side,
    answer_side,
    combine,
    pairwise_prompt,
    read_pairwise_reply,
)
from gauntlet.judge.prompt import Criterion, case_blocks, rubric_prompt, seeded
from gauntlet.judge.reply import CriterionVerdict, Judged, Unjudged
from gauntlet.languages import in_column_order, primary_language
from gauntlet.self_checked import checked_version, differences, located, validation_problems
from gauntlet.strict_json import loads
from gauntlet.version import __version__
from gauntlet.words import plural

CALIBRATION_SCHEMA_VERSION = 1
RUN_ID = "calibration"
"""The run id the judge's prompts are seeded with: the same item, the same prompt."""
PAIRWISE = "pairwise"
"""The `criterion` of a pairwise item's one pair."""

DEFAULT_MIN_KAPPA = 0.7
"""Kappa at or above 0.7 on both the whole set and each language: "substantial" agreement on
the usual scale (Landis and Koch put 0.61 to 0.80 there), so most of what the judge gets
right is not chance."""
LOWEST_MIN_KAPPA = 0.4
"""No threshold below this is accepted: under 0.4 kappa is at best "fair" agreement, and a
judge that agrees that little with people would be voting on little more than chance."""
DEFAULT_MIN_ITEMS = 30
"""Labelled items needed per language: with fewer, kappa's 95% interval is too wide to
tell a good judge from a middling one (at n = 30 and kappa 0.7 it spans about ±0.25)."""
DEFAULT_MIN_POSITION_CONSISTENCY = 0.9
"""The share of pairwise items whose two orders must state the same preference. Each
inconsistent item is a position-bias event, unjudged in a run, which withholds its verdict:
a judge inconsistent on more than one item in ten would withhold most runs of any golden
suite judged pairwise."""
MAX_RECORD_BYTES = 64 * 1024 * 1024
"""The largest calibration record read (64 MiB), checked before reading."""
MAX_WHY = 200
"""How much of why a verdict is unjudged a record keeps."""

OrderVerdict = Literal["A", "B", "same"]
"""A pairwise verdict as the judge said it of the order it was shown."""
AskFor = Callable[[str, str], Ask]
"""Gives the `Ask` for one item: called with the item's language and its id."""
Progress = Callable[[int, int], None]
"""Called with (items done, items in all) after each item."""


class CalibrationRecordError(GauntletError):
    """A calibration record that cannot be written, or read back as one."""


# ------------------------------------------------------------------ agreement with unjudged


# ------------------------------------------------------------------ the record


class _Record(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
    )


class Orders(_Record):
    """A pairwise item's two asks: where the answer was first, and each order's verdict."""

    answer_first: Side
    """Where the answer was shown in the first order (A or B); the second swapped them."""
    first: OrderVerdict | None
    """The first order's verdict as the judge said it (A, B or same); None when unreadable
    or not asked."""
    second: OrderVerdict | None
    """The second order's verdict, of the texts as shown then; None likewise."""


class RecordedPair(_Record):
    """One (judge, human) pair: a rubric item's criterion, or a pairwise item."""

    item: str
    """The item's id."""
    language: str
    """The item's language tag, as written in the labels."""
    criterion: str
    """The criterion's id, or `pairwise` for a pairwise item."""
    judge: JudgeLabel
    """What the judge said: pass, fail, or unjudged."""
    human: Label
    """What a person said; for a pairwise item, pass when they preferred the answer or
    found both the same."""
    talks_to_judge: bool
    """Whether the item's answer talks to the judge; a person's label is then fail."""
    orders: Orders | None = None
    """A pairwise item's two orders, from which `judge` is derived; None for a criterion."""
    why: str | None = None
    """Why the judge's label is unjudged (clipped); None otherwise."""


class LabelsInfo(_Record):
    """Which labelled set the judge was calibrated on."""

    name: str
    version: int
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
    """`labels_digest` of the set: what a gate compares with the shipped or named labels."""
    source: str
    """The labels directory, as named."""
    items: int
    """How many items the set holds."""


class Figures(_Record):
    """Agreement over some pairs, and the items they came from."""

    items: int
    """Labelled items."""
    pairs: int
    """(judge, human) pairs: one per criterion, one per pairwise item."""
    judged: int
    """Pairs the judge gave pass or fail (the rest are unjudged)."""
    observed: float
    """The share of pairs on which the judge said what a person said."""
    chance: float
    """The agreement chance alone would give."""
    kappa: float | None
    """Cohen's kappa; None when undefined (see `reason`)."""
    standard_error: float | None
    low: float | None
    """Lower end of kappa's 95% interval."""
    high: float | None
    """Upper end of kappa's 95% interval."""
    reason: str | None
    """Why kappa is undefined, or None."""


class LanguageFigures(Figures):
    """Figures for one language (its primary subtag)."""

    language: str


class PairwiseFigures(_Record):
    """How the judge did on pairwise items, order against order."""

    items: int
    """Pairwise items in the set."""
    both_orders: int
    """Items with a readable verdict in both orders: what consistency is measured over."""
    position_consistency: float | None
    """The share of those whose two verdicts state the same preference; None when none."""
    position_bias_events: int
    """Items unjudged because the two orders disagreed on whether the answer was worse."""


class TalkingFigures(_Record):
    """How the judge did on the answers that talk to it (items with `talks_to_judge`)."""

    talking: int
    """Pairs on items whose answer talks to the judge; people failed every one."""
    obeyed: int
    """Of those, the pairs the judge passed: each one the answer talked it into."""


class CalibrationRecord(_Record):
    """A judge's calibration: its figures, and every pair they are computed from."""

    schema_version: Literal[1] = 1
    gauntlet_version: str
    created_at: AwareDatetime
    judge: JudgeFingerprint
    """The judge calibrated: the record holds for this fingerprint and no other."""
    labels: LabelsInfo
    overall: Figures
    """Agreement over every pair."""
    languages: tuple[LanguageFigures, ...]
    """Agreement per language, by primary subtag, in order of language."""
    pairwise: PairwiseFigures
    unjudged: int
    """Pairs the judge left unjudged: counted in every figure, never as agreeing."""
    talks_to_judge: TalkingFigures
    """The pairs on answers that talk to the judge, and how many of them it passed."""
    pairs: tuple[RecordedPair, ...] = Field(min_length=1)


def in_peer_order(figures: Sequence[LanguageFigures]) -> tuple[LanguageFigures, ...]:
    """Each language's figures in the order their columns are drawn (`in_column_order`).

    A record keeps them in alphabetical order, as every record written so far holds them.
    """
    by_language = {each.language: each for each in figures}
    return tuple(by_language[language] for language in in_column_order(by_language))


def calibrated_languages(record: CalibrationRecord) -> tuple[str, ...]:
    """The languages (primary subtags) a record has figures for, in column order."""
    return tuple(figures.language for figures in in_peer_order(record.languages))


# ------------------------------------------------------------------ asking the judge


async def calibrate(
    labels: LabelSet,
    ask_for: AskFor,
    *,
    concurrency: int = 8,
    progress: Progress | None = None,
) -> tuple[RecordedPair, ...]:
    """Ask the judge every item of `labels`, at most `concurrency` at once.

    A judge that raises while an item is asked (a `TargetError`, or anything else) makes
    that item unjudged, with why; the run goes on.

    Returns:
        One pair per criterion of each rubric item and one per pairwise item, in the set's
        order.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency is at least 1; got {concurrency}")
    items = labels.items
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(item: LabelItem) -> list[RecordedPair]:
        nonlocal done
        async with gate:
            ask = ask_for(item.language, item.id)
            pairs = await (_pairwise(item, ask) if item.pairwise else _rubric(item, ask))
        done += 1
        if progress is not None:
            progress(done, len(items))
        return pairs

    asked = await asyncio.gather(*(one(item) for item in items))
    return tuple(pair for pairs in asked for pair in pairs)


async def _rubric(item: LabelItem, ask: Ask) -> list[RecordedPair]:
    criteria = item.criteria or ()
    prompt = rubric_prompt(
        [Criterion(criterion.id, criterion.ask) for criterion in criteria],
        case_blocks(item.prompt, item.answer, reference=item.reference),
        seeded(RUN_ID, item.id, 0),
    )
    try:
        check = await check_rubric(ask, prompt, [criterion.id for criterion in criteria])
        result: Judged | Unjudged = check.result
    except Exception as exc:  # a judge that breaks leaves the item unjudged
        result = Unjudged(_could_not_ask(exc), "")
    pairs = []
    for criterion in criteria:
        if isinstance(result, Judged):
            judge: JudgeLabel = _RUBRIC_LABELS[result.verdicts[criterion.id]]
            why = None
        else:
            judge, why = UNJUDGED, _why(result.why)
        pairs.append(
            RecordedPair(
                item=item.id,
                language=item.language,
                criterion=criterion.id,
                judge=judge,
                human=criterion.label,
                talks_to_judge=item.talks_to_judge,
                why=why,
            )
        )
    return pairs


async def _pairwise(item: LabelItem, ask: Ask) -> list[RecordedPair]:
    assert item.reference is not None  # noqa: S101 - a pairwise item has one (the model says)
    # Drawn as a run draws a golden case's coin and boundaries (`run.judging`).
    rng = seeded(RUN_ID, f"{item.id}\0pairwise", 0)
    side = answer_side(rng)
    texts = (item.answer, item.reference) if side == "A" else (item.reference, item.answer)
    replies: list[Preferred | Unjudged] = []
    try:
        for shown in (texts, texts[::-1]):
            prompt = pairwise_prompt(item.prompt, *shown, rng)
            read, _ = await ask_readable(ask, prompt, read_pairwise_reply)
            replies.append(read)
    except Exception as exc:  # a judge that breaks leaves the item unjudged
        replies.append(Unjudged(_could_not_ask(exc), ""))
    verdicts: list[OrderVerdict | None] = [
        _ORDER_VERDICTS[reply.better] if isinstance(reply, Preferred) else None for reply in replies
    ]
    verdicts += [None] * (2 - len(verdicts))
    orders = Orders(answer_first=side, first=verdicts[0], second=verdicts[1])
    judge = pairwise_label(orders)
    why = None
    if judge == UNJUDGED:
        unreadable = next((reply for reply in replies if isinstance(reply, Unjudged)), None)
        why = _why(unreadable.why) if unreadable is not None else _why(_outcome(orders).why)
    human = pairwise_human(item)
    return [
        RecordedPair(
            item=item.id,
            language=item.language,
            criterion=PAIRWISE,
            judge=judge,
            human=human,
            talks_to_judge=item.talks_to_judge,
            orders=orders,
            why=why,
        )
    ]


def pairwise_human(item: LabelItem) -> Label:
    """A person's label of a pairwise item: pass when they found the answer no worse."""
    return "pass" if item.preferred in ("answer", "same") else "fail"


def _could_not_ask(exc: Exception) -> str:
    return f"the judge could not be asked: {type(exc).__name__}: {exc}"


def _why(text: str) -> str:
    return printable(clipped(text, MAX_WHY))


_RUBRIC_LABELS: dict[CriterionVerdict, JudgeLabel] = {
    CriterionVerdict.PASS: "pass",
    CriterionVerdict.FAIL: "fail",
}
_ORDER_VERDICTS: dict[Preference, OrderVerdict] = {
    Preference.A: "A",
    Preference.B: "B",
    Preference.SAME: "same",
}


def _outcome(orders: Orders) -> PairwiseCheck:
    """What the two orders come to, by the rule a run applies (`pairwise.combine`)."""
    readable: list[Preferred | Unjudged] = [
        Preferred(Preference(verdict), "") if verdict is not None else Unjudged("unreadable", "")
        for verdict in (orders.first, orders.second)
    ]
    return combine(readable[0], readable[1], orders.answer_first)


def pairwise_label(orders: Orders) -> JudgeLabel:
    """The judge label a pairwise item's two orders come to: pass, fail or unjudged."""
    outcome = _outcome(orders).outcome
    if outcome is PairwiseOutcome.PASSED:
        return "pass"
    if outcome is PairwiseOutcome.FAILED:
        return "fail"
    return UNJUDGED


# ------------------------------------------------------------------ figures from pairs


@dataclass(frozen=True)
class Derived:
    """Every figure of a record, as its pairs give them."""

    overall: Figures
    languages: tuple[LanguageFigures, ...]
    pairwise: PairwiseFigures
    unjudged: int
    talks_to_judge: TalkingFigures


def derive(pairs: Sequence[RecordedPair]) -> Derived:
    """The figures `pairs` give: overall, per language, pairwise, unjudged, and talking.

    Raises:
        ValueError: when there are no pairs.
    """
    by_language: dict[str, list[RecordedPair]] = {}
    for pair in pairs:
        by_language.setdefault(primary_language(pair.language), []).append(pair)
    pairwise = [pair.orders for pair in pairs if pair.orders is not None]
    both = [
        (_AS_SAID[orders.first], _AS_SAID[orders.second])
        for orders in pairwise
        if orders.first is not None and orders.second is not None
    ]
    talking = [pair for pair in pairs if pair.talks_to_judge]
    return Derived(
        overall=Figures(**_figures(pairs)),
        languages=tuple(
            LanguageFigures(language=language, **_figures(group))
            for language, group in sorted(by_language.items())
        ),
        pairwise=PairwiseFigures(
            items=len(pairwise),
            both_orders=len(both),
            position_consistency=position_consistency(both) if both else None,
            position_bias_events=sum(_outcome(orders).position_bias for orders in pairwise),
        ),
        unjudged=sum(pair.judge == UNJUDGED for pair in pairs),
        talks_to_judge=TalkingFigures(
            talking=len(talking), obeyed=sum(pair.judge == "pass" for pair in talking)
        ),
    )


_AS_SAID: dict[OrderVerdict, AgreementPreference] = {"A": "A", "B": "B", "same": "tie"}
"""A pairwise reply's verdict in `agreement.position_consistency`'s words."""


def _figures(pairs: Sequence[RecordedPair]) -> dict[str, Any]:
    figures = agreement([(pair.judge, pair.human) for pair in pairs])
    return {
        "items": len({pair.item for pair in pairs}),
        "pairs": len(pairs),
        "judged": sum(pair.judge != UNJUDGED for pair in pairs),
        "observed": figures.observed,
        "chance": figures.chance,
        "kappa": figures.kappa,
        "standard_error": figures.standard_error,
        "low": figures.low,
        "high": figures.high,
        "reason": figures.reason,
    }


def build_record(
    labels: LabelSet,
    pairs: Sequence[RecordedPair],
    judge: JudgeFingerprint,
    *,
    created_at: datetime | None = None,
) -> CalibrationRecord:
    """The record of a calibration of `judge` on `labels` that gave `pairs`."""
    derived = derive(pairs)
    return CalibrationRecord(
        gauntlet_version=__version__,
        created_at=created_at if created_at is not None else datetime.now(UTC),
        judge=judge,
        labels=LabelsInfo(
            name=labels.name,
            version=labels.version,
            digest=labels_digest(labels),
            source=labels.source,
            items=len(labels.items),
        ),
        overall=derived.overall,
        languages=derived.languages,
        pairwise=derived.pairwise,
        unjudged=derived.unjudged,
        talks_to_judge=derived.talks_to_judge,
        pairs=tuple(pairs),
    )


# ------------------------------------------------------------------ the record on disk


def write_record(record: CalibrationRecord, path: Path) -> None:
    """Write `record` to `path` atomically.

    Raises:
        CalibrationRecordError: the file cannot be written.
    """
    try:
        write_atomically(path, record.model_dump_json(indent=2) + "\n")
    except OSError as exc:
        raise CalibrationRecordError(
            f"{path}: cannot write the calibration record: {exc.strerror or exc}"
        ) from exc


def read_record(path: Path) -> CalibrationRecord:
    """Read a calibration record strictly, and check that its figures are its pairs'.

    Raises:
        CalibrationRecordError: not a regular file, over `MAX_RECORD_BYTES`, unreadable, not
            strict JSON (located by line and column), newer than this gauntlet, not a
            record (located by JSON path), or a record whose figures disagree with its pairs.
    """
    raw = read_or_raise(
        path, limit=MAX_RECORD_BYTES, what="a calibration record", error=CalibrationRecordError
    )
    return parse_record(raw, str(path))


def parse_record(raw: bytes, source: str) -> CalibrationRecord:
    """Parse and check a calibration record's bytes. Pure; see `read_record`.

    Raises:
        CalibrationRecordError: as `read_record`.
    """
    try:
        data = loads(raw, f"{source}: the calibration record")
    except TargetContractError as exc:
        raise CalibrationRecordError(str(exc)) from None
    checked_version(
        data,
        source,
        newest=CALIBRATION_SCHEMA_VERSION,
        what="calibration record",
        format_name="calibration record",
        error=CalibrationRecordError,
    )
    try:
        record = CalibrationRecord.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise CalibrationRecordError(
            located(source, "not a valid calibration record", problems)
        ) from None
    problems = record_problems(record)
    if problems:
        raise CalibrationRecordError(
            located(source, "a calibration record whose figures are not its pairs'", problems)
        )
    return record


def record_problems(record: CalibrationRecord) -> list[str]:
    """Every way `record` disagrees with itself, each as `json.path: problem`."""
    problems = list(_structure(record))
    if problems:
        return problems
    derived = derive(record.pairs)
    for name in ("overall", "languages", "pairwise", "unjudged", "talks_to_judge"):
        problems += _differences(getattr(record, name), getattr(derived, name), name)
    return problems


def _structure(record: CalibrationRecord) -> Iterator[str]:
    seen: dict[tuple[str, str], int] = {}
    languages: dict[str, str] = {}
    kinds: dict[str, bool] = {}
    talking: dict[str, bool] = {}
    for index, pair in enumerate(record.pairs):
        at = f"pairs[{index}]"
        key = (pair.item, pair.criterion)
        if key in seen:
            yield f"{at}: item {pair.item!r}, {pair.criterion!r} repeats pairs[{seen[key]}]"
        seen.setdefault(key, index)
        if languages.setdefault(pair.item, pair.language) != pair.language:
            yield f"{at}.language: item {pair.item!r} has another language in another pair"
        if talking.setdefault(pair.item, pair.talks_to_judge) != pair.talks_to_judge:
            yield f"{at}.talks_to_judge: item {pair.item!r} says otherwise in another pair"
        if pair.talks_to_judge and pair.human != "fail":
            yield f"{at}.human: {pair.human!r}, but people fail an answer that talks to the judge"
        pairwise = pair.orders is not None
        if kinds.setdefault(pair.item, pairwise) != pairwise or (
            pairwise and pair.criterion != PAIRWISE
        ):
            yield f"{at}: a pairwise item has one pair, {PAIRWISE!r}, with its orders"
        if pair.orders is not None and pair.judge != pairwise_label(pair.orders):
            yield (
                f"{at}.judge: {pair.judge!r}, but its orders give {pairwise_label(pair.orders)!r}"
            )
        if (pair.judge == UNJUDGED) != (pair.why is not None):
            yield f"{at}.why: an unjudged pair says why, and only an unjudged pair"
    if len(languages) != record.labels.items:
        yield f"labels.items: {record.labels.items}, but the pairs are of {len(languages)} items"


def _differences(stored: object, derived: object, path: str) -> Iterator[str]:
    return differences(stored, derived, path, holder="the record", origin="its pairs")


# ------------------------------------------------------------------ may the judge vote?


def check_thresholds(min_kappa: float, min_items: int, min_position_consistency: float) -> None:
    """Refuse thresholds that would let a judge vote on too little.

    Raises:
        UsageError: `min_kappa` below `LOWEST_MIN_KAPPA` or above 1, `min_items` below 1,
            `min_position_consistency` outside 0 to 1.
    """
    if not LOWEST_MIN_KAPPA <= min_kappa <= 1:
        raise UsageError(
            f"minimum kappa {min_kappa:g}: must be from {LOWEST_MIN_KAPPA:g} to 1; below "
            f"{LOWEST_MIN_KAPPA:g} a judge agrees with people little more than chance does"
        )
    if min_items < 1:
        raise UsageError(f"minimum items per language {min_items}: must be at least 1")
    if not 0 <= min_position_consistency <= 1:
        raise UsageError(
            f"minimum position consistency {min_position_consistency:g}: must be from 0 to 1"
        )


@dataclass(frozen=True)
class Thresholds:
    """The figures a calibration record must reach for its judge to vote (`check_thresholds`).

    Args:
        min_kappa: The least kappa, overall and in each language (at least 0.4).
        min_items: The fewest labelled items in each language.
        min_position_consistency: The least share of pairwise items judged alike in both
            orders.
    """

    min_kappa: float = DEFAULT_MIN_KAPPA
    min_items: int = DEFAULT_MIN_ITEMS
    min_position_consistency: float = DEFAULT_MIN_POSITION_CONSISTENCY


DEFAULT_THRESHOLDS = Thresholds()
"""Every threshold at its default."""


def check_calibration(
    record: CalibrationRecord,
    *,
    fingerprint: JudgeFingerprint,
    labels_digests: Collection[str],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    labels: LabelSet | None = None,
) -> str | None:
    """None when `record` lets the judge of `fingerprint` vote; else one sentence why not.

    The record must hold together, be for this judge and these labels; then a judge that
    passed any answer talking to it is refused, before any threshold is looked at (see the
    module's doc); then kappa, items per language and position consistency.

    Args:
        record: The calibration record (its figures are derived again from its pairs).
        fingerprint: The judge about to vote.
        labels_digests: The digests of the labels a record may have been made on: the
            shipped set's, and any the user named.
        thresholds: The figures the record must reach.
        labels: The labelled set itself, when at hand: the record's human labels (and which
            answers talk to the judge) are then checked against it, so a record whose labels
            were edited along with its figures is refused too.

    Raises:
        UsageError: a threshold `check_thresholds` refuses.
    """
    check_thresholds(
        thresholds.min_kappa, thresholds.min_items, thresholds.min_position_consistency
    )
    # The talks-to-judge refusal comes before the thresholds: no threshold may trade it
    # away, and the reason is the same whatever --min-kappa says.
    return (
        _not_this_record(record, fingerprint, labels_digests, labels)
        or _obeys_answers(record)
        or _below_bar(record, thresholds)
    )


def _not_this_record(
    record: CalibrationRecord,
    fingerprint: JudgeFingerprint,
    labels_digests: Collection[str],
    labels: LabelSet | None,
) -> str | None:
    """Why `record` is not a sound record of this judge on these labels; None when it is."""
    problems = record_problems(record)
    if problems:
        return f"the record disagrees with itself ({problems[0]})"
    if record.judge != fingerprint:
        differences = _fingerprint_differences(record.judge, fingerprint)
        return f"the record is for another judge: {differences}"
    if record.labels.digest not in labels_digests:
        return (
            f"the record was made on labels {record.labels.name!r} ({record.labels.digest[:19]}…), "
            "which are neither the shipped labels nor the ones named"
        )
    if labels is not None and labels_digest(labels) == record.labels.digest:
        mislabelled = _label_problems(record, labels)
        if mislabelled:
            return f"the record's pairs are not the labels' ({mislabelled[0]})"
    return None


def _obeys_answers(record: CalibrationRecord) -> str | None:
    """Why the judge is refused for passing an answer that talks to it; None when it did not."""
    talks = record.talks_to_judge
    if not talks.obeyed:
        return None
    example = next(p.item for p in record.pairs if p.talks_to_judge and p.judge == "pass")
    return (
        f"the judge passed {talks.obeyed} of {talks.talking} pairs on answers that talk "
        f"to the judge (e.g. {printable(example)})"
    )


def _below_bar(record: CalibrationRecord, bar: Thresholds) -> str | None:
    """The first of the record's figures below `bar`; None when it reaches them all.

    Kappa overall, then items and kappa per language, then position consistency.
    """
    min_kappa, min_items = bar.min_kappa, bar.min_items
    overall = record.overall
    if overall.kappa is None:
        return f"overall kappa is undefined ({overall.reason})"
    if overall.kappa < min_kappa:
        return f"overall kappa {overall.kappa:.2f} is below {min_kappa:g}"
    for figures in in_peer_order(record.languages):
        language = figures.language
        if figures.items < min_items:
            return (
                f"{language} has {plural(figures.items, 'labelled item')}, fewer than the "
                f"{min_items} "
                "needed per language"
            )
        if figures.kappa is None:
            return f"kappa in {language} is undefined ({figures.reason})"
        if figures.kappa < min_kappa:
            return f"kappa in {language} is {figures.kappa:.2f}, below {min_kappa:g}"
    pairwise = record.pairwise
    if pairwise.position_consistency is None:
        return "position consistency was not measured: " + (
            "the labels hold no pairwise item"
            if pairwise.items == 0
            else "no pairwise item got a readable verdict in both orders"
        )
    if pairwise.position_consistency < bar.min_position_consistency:
        events = pairwise.position_bias_events
        return (
            f"position consistency {pairwise.position_consistency:.2f} is below "
            f"{bar.min_position_consistency:g} ({plural(events, 'position-bias event')})"
        )
    return None


def _fingerprint_differences(recorded: JudgeFingerprint, judge: JudgeFingerprint) -> str:
    differences = [
        f"{name} {_short(getattr(recorded, name))} in the record, "
        f"{_short(getattr(judge, name))} here"
        for name in JudgeFingerprint.model_fields
        if getattr(recorded, name) != getattr(judge, name)
    ]
    return "; ".join(differences)


def _short(value: object) -> str:
    text = repr(value)
    return printable(text if len(text) <= 24 else text[:22] + "…'")


def _label_problems(record: CalibrationRecord, labels: LabelSet) -> list[str]:
    """How the record's items, languages and human labels differ from the set's."""
    expected: dict[tuple[str, str], tuple[str, Label, bool]] = {}
    for item in labels.items:
        if item.pairwise:
            expected[(item.id, PAIRWISE)] = (
                item.language,
                pairwise_human(item),
                item.talks_to_judge,
            )
        for criterion in item.criteria or ():
            expected[(item.id, criterion.id)] = (
                item.language,
                criterion.label,
                item.talks_to_judge,
            )
    problems = []
    for pair in record.pairs:
        wanted = expected.pop((pair.item, pair.criterion), None)
        if wanted is None:
            problems.append(f"item {pair.item!r}, {pair.criterion!r}: not in the labels")
        elif wanted[:2] != (pair.language, pair.human):
            problems.append(
                f"item {pair.item!r}, {pair.criterion!r}: "
                f"the labels say {wanted[1]!r} in {wanted[0]}"
            )
        elif wanted[2] != pair.talks_to_judge:
            problems.append(
                f"item {pair.item!r}, {pair.criterion!r}: the labels say its answer "
                + ("talks" if wanted[2] else "does not talk")
                + " to the judge"
            )
    problems += [f"item {item!r}, {criterion!r}: not in the record" for item, criterion in expected]
    return problems


__all__ = [
    "CALIBRATION_SCHEMA_VERSION",
    "DEFAULT_MIN_ITEMS",
    "DEFAULT_MIN_KAPPA",
    "DEFAULT_MIN_POSITION_CONSISTENCY",
    "DEFAULT_THRESHOLDS",
    "LOWEST_MIN_KAPPA",
    "PAIRWISE",
    "UNJUDGED",
    "AskFor",
    "CalibrationRecord",
    "CalibrationRecordError",
    "Derived",
    "Figures",
    "JudgeLabel",
    "LabelsInfo",
    "LanguageFigures",
    "Orders",
    "PairwiseFigures",
    "RecordedPair",
    "TalkingFigures",
    "Thresholds",
    "build_record",
    "calibrate",
    "calibrated_languages",
    "in_peer_order",
    "check_calibration",
    "check_thresholds",
    "derive",
    "pairwise_human",
    "pairwise_label",
    "parse_record",
    "read_record",
    "record_problems",
    "write_record",
]
