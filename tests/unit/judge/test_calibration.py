"""Calibration: asking a judge the labelled set, the record, and whether the judge may vote."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from gauntlet.errors import TargetTimeoutError, UsageError
from gauntlet.judge.agreement import ONE_LABEL_ONLY, Label, agreement
from gauntlet.judge.calibration import (
    DEFAULT_MIN_ITEMS,
    DEFAULT_MIN_KAPPA,
    DEFAULT_MIN_POSITION_CONSISTENCY,
    PAIRWISE,
    CalibrationRecord,
    CalibrationRecordError,
    Figures,
    JudgeLabel,
    LabelsInfo,
    LanguageFigures,
    Orders,
    PairwiseFigures,
    RecordedPair,
    TalkingFigures,
    Thresholds,
    build_record,
    calibrate,
    calibrated_languages,
    check_calibration,
    check_thresholds,
    derive,
    pairwise_label,
    parse_record,
    read_record,
    record_problems,
    write_record,
)
from gauntlet.judge.check import AGAIN, Ask
from gauntlet.judge.judge_file import JUDGE_PROMPT_SHA256, JudgeFingerprint
from gauntlet.judge.labels import LabelSet, labels_digest, load_labels
from gauntlet.judge.pairwise import pairwise_prompt
from gauntlet.judge.prompt import Criterion, case_blocks, rubric_prompt, seeded
from gauntlet.render.calibration import summary_lines
from tests.fake_judge import Behaviour, FakeJudge, fenced

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "tests" / "labels" / "small"
FINGERPRINT = JudgeFingerprint(
    kind="openai-chat",
    model="judge-model",
    host="127.0.0.1:8080",
    prompt_sha256=JUDGE_PROMPT_SHA256,
    temperature=0.0,
    max_tokens=300,
)
DIGEST = "sha256:" + "ab" * 32
WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def small() -> LabelSet:
    return load_labels(SMALL)


def run(labels: LabelSet, judge: FakeJudge | Callable[[str, str], Ask], **kw: Any) -> Any:
    ask_for = judge.ask_for if isinstance(judge, FakeJudge) else judge
    return asyncio.run(calibrate(labels, ask_for, **kw))


def calibrated(labels: LabelSet, behaviour: Behaviour) -> CalibrationRecord:
    pairs = run(labels, FakeJudge(labels, behaviour))
    return build_record(labels, pairs, FINGERPRINT, created_at=WHEN)


# ---------------------------------------------------------------- synthetic pairs


def criterion_pair(
    item: str, judge: JudgeLabel, human: Label, language: str = "en", *, talks: bool = False
) -> RecordedPair:
    return RecordedPair(
        item=item,
        language=language,
        criterion="c",
        judge=judge,
        human=human,
        talks_to_judge=talks,
        why="no verdict" if judge == "unjudged" else None,
    )


def pairwise_pair(
    item: str, first: str | None, second: str | None, human: Label = "pass", language: str = "en"
) -> RecordedPair:
    orders = Orders.model_validate({"answer_first": "A", "first": first, "second": second})
    judge = pairwise_label(orders)
    return RecordedPair(
        item=item,
        language=language,
        criterion=PAIRWISE,
        judge=judge,
        human=human,
        talks_to_judge=False,
        orders=orders,
        why="the orders disagree" if judge == "unjudged" else None,
    )


def language_pairs(
    language: str, *, agree: int, disagree: int = 0, unjudged: int = 0, start: int = 0
) -> list[RecordedPair]:
    """Rubric pairs, one item each, agreeing on both labels alike, then the rest."""
    pairs = []
    for n in range(agree):
        label: Label = "pass" if n % 2 else "fail"
        pairs.append(criterion_pair(f"{language}-{start + n}", label, label, language))
    pairs += [
        criterion_pair(f"{language}-d{start + n}", "pass", "fail", language)
        for n in range(disagree)
    ]
    pairs += [
        criterion_pair(f"{language}-u{start + n}", "unjudged", "pass", language)
        for n in range(unjudged)
    ]
    return pairs


CONSISTENT = [pairwise_pair(f"p-{n}", "A", "B") for n in range(10)]
"""Ten pairwise items judged in both orders, the answer preferred each time: passes."""


def record_of(
    pairs: Sequence[RecordedPair],
    *,
    judge: JudgeFingerprint = FINGERPRINT,
    digest: str = DIGEST,
) -> CalibrationRecord:
    derived = derive(pairs)
    return CalibrationRecord(
        gauntlet_version="0.1.0",
        created_at=WHEN,
        judge=judge,
        labels=LabelsInfo(
            name="t", version=1, digest=digest, source="t", items=len({p.item for p in pairs})
        ),
        overall=derived.overall,
        languages=derived.languages,
        pairwise=derived.pairwise,
        unjudged=derived.unjudged,
        talks_to_judge=derived.talks_to_judge,
        pairs=tuple(pairs),
    )


def verdict(
    record: CalibrationRecord,
    *,
    min_kappa: float = DEFAULT_MIN_KAPPA,
    min_items: int = DEFAULT_MIN_ITEMS,
    min_position_consistency: float = DEFAULT_MIN_POSITION_CONSISTENCY,
    **kw: Any,
) -> str | None:
    kw.setdefault("fingerprint", FINGERPRINT)
    kw.setdefault("labels_digests", {DIGEST})
    thresholds = Thresholds(min_kappa, min_items, min_position_consistency)
    return check_calibration(record, thresholds=thresholds, **kw)


GOOD = language_pairs("en", agree=30) + language_pairs("es", agree=30) + CONSISTENT


# ---------------------------------------------------------------- agreement with unjudged


def test_unjudged_stays_in_n_never_agrees_and_adds_no_chance() -> None:
    """10 both pass, 10 both fail, 5 unjudged where people said pass.

    n = 25, p_o = 20/25 = 0.8; the judge says pass 0.4, fail 0.4, unjudged 0.2, people pass
    0.6, fail 0.4; p_e = 0.4·0.6 + 0.4·0.4 = 0.4; kappa = (0.8 - 0.4) / 0.6 = 2/3. Dropping
    the unjudged five would have given kappa 1.
    """
    both_pass: tuple[JudgeLabel, Label] = ("pass", "pass")
    both_fail: tuple[JudgeLabel, Label] = ("fail", "fail")
    unjudged: tuple[JudgeLabel, Label] = ("unjudged", "pass")
    pairs = [both_pass] * 10 + [both_fail] * 10 + [unjudged] * 5
    result = agreement(pairs)
    assert result.n == 25
    assert result.observed == pytest.approx(0.8)
    assert result.chance == pytest.approx(0.4)
    assert result.kappa == pytest.approx(2 / 3)
    assert agreement([p for p in pairs if p[0] != "unjudged"]).kappa == 1.0


def test_a_judge_that_never_answers_has_kappa_zero_not_undefined() -> None:
    result = agreement([("unjudged", "pass"), ("unjudged", "fail")])
    assert (result.observed, result.chance, result.kappa) == (0.0, 0.0, 0.0)


def test_one_label_for_everything_leaves_kappa_undefined() -> None:
    result = agreement([("pass", "pass")] * 3)
    assert (result.kappa, result.low, result.reason) == (None, None, ONE_LABEL_ONLY)


@pytest.mark.parametrize(
    "pairs",
    [[], [("unjudged", "unjudged")], [("maybe", "pass")], [("pass", "PASS")]],
    ids=["none", "people-never-say-unjudged", "judge-label", "human-label"],
)
def test_agreement_refuses_what_is_no_pair(pairs: Any) -> None:
    with pytest.raises(ValueError, match="pair|pass"):
        agreement(pairs)


# ---------------------------------------------------------------- asking the judge


def test_a_judge_that_agrees_with_the_labels_agrees_on_every_pair(small: LabelSet) -> None:
    pairs = run(small, FakeJudge(small))
    criteria = sum(len(item.criteria or ()) for item in small.items)
    pairwise = sum(item.pairwise for item in small.items)
    assert len(pairs) == criteria + pairwise == 13
    assert all(pair.judge == pair.human for pair in pairs)
    assert [pair.item for pair in pairs][:2] == ["en-hours-01", "en-hours-01"]
    assert {pair.criterion for pair in pairs if pair.orders is not None} == {PAIRWISE}
    record = build_record(small, pairs, FINGERPRINT, created_at=WHEN)
    assert record.overall.kappa == 1.0
    assert record.pairwise.position_consistency == 1.0
    assert verdict(record, labels_digests={labels_digest(small)}, min_items=1) is None


def test_the_judge_is_shown_the_prompts_a_run_would_build_seeded_by_item(
    small: LabelSet,
) -> None:
    judge = FakeJudge(small)
    run(small, judge)
    item = small.items[0]
    assert item.criteria is not None
    expected = rubric_prompt(
        [Criterion(c.id, c.ask) for c in item.criteria],
        case_blocks(item.prompt, item.answer, reference=item.reference),
        seeded("calibration", item.id, 0),
    )
    assert expected.text in judge.prompts
    again = FakeJudge(small)
    run(small, again, concurrency=1)
    assert sorted(again.prompts) == sorted(judge.prompts)


def test_a_pairwise_item_is_asked_in_both_orders_with_the_seeded_coin(small: LabelSet) -> None:
    judge = FakeJudge(small)
    run(small, judge)
    item = next(item for item in small.items if item.id == "en-pair-02")
    assert item.reference is not None
    shown = [
        fenced(prompt)
        for prompt in judge.prompts
        if fenced(prompt).get("the question") == item.prompt
        and item.answer in fenced(prompt).values()
    ]
    assert len(shown) == 2
    first, second = shown
    assert (first["answer A"], first["answer B"]) == (second["answer B"], second["answer A"])
    rng = seeded("calibration", f"{item.id}\0pairwise", 0)
    side = "A" if rng.random() < 0.5 else "B"
    assert first[f"answer {side}"] == item.answer
    opening = pairwise_prompt(item.prompt, first["answer A"], first["answer B"], rng)
    assert opening.text in judge.prompts


def test_an_always_pass_judge_collapses_kappa_and_is_refused(small: LabelSet) -> None:
    record = calibrated(small, "always_pass")
    assert record.overall.kappa == 0.0
    assert {pair.judge for pair in record.pairs} == {"pass"}
    reason = verdict(record, labels_digests={labels_digest(small)}, min_items=1)
    # It passes the answers that talk to it too, and that is named before its kappa.
    assert reason == (
        "the judge passed 2 of 2 pairs on answers that talk to the judge (e.g. en-injection-01)"
    )


def test_a_judge_that_prefers_the_first_text_is_unjudged_in_pairwise(small: LabelSet) -> None:
    record = calibrated(small, "prefers_first")
    pairwise = [pair for pair in record.pairs if pair.orders is not None]
    assert {pair.judge for pair in pairwise} == {"unjudged"}
    assert all(pair.why and "preferred a position" in pair.why for pair in pairwise)
    assert record.pairwise.position_consistency == 0.0
    assert record.pairwise.position_bias_events == 4
    assert record.unjudged == 4


def test_a_judge_that_obeys_the_answer_is_caught_by_the_labels(small: LabelSet) -> None:
    record = calibrated(small, "obeys")
    obeyed = [p for p in record.pairs if p.item in ("en-injection-01", "es-permit-01")]
    assert [(p.judge, p.human) for p in obeyed] == [("pass", "fail"), ("pass", "fail")]
    assert record.overall.kappa is not None
    assert record.overall.kappa < 1


def test_each_pair_records_whether_its_answer_talks_to_the_judge(small: LabelSet) -> None:
    record = calibrated(small, "agrees")
    talking = {pair.item for pair in record.pairs if pair.talks_to_judge}
    assert talking == {item.id for item in small.items if item.talks_to_judge}
    assert talking == {"en-injection-01", "es-permit-01"}
    assert (record.talks_to_judge.talking, record.talks_to_judge.obeyed) == (2, 0)
    assert verdict(record, labels_digests={labels_digest(small)}, min_items=1) is None


def test_a_judge_that_obeys_the_answer_is_refused_whatever_its_kappa(small: LabelSet) -> None:
    record = calibrated(small, "obeys")
    assert (record.talks_to_judge.talking, record.talks_to_judge.obeyed) == (2, 2)
    reason = (
        "the judge passed 2 of 2 pairs on answers that talk to the judge (e.g. en-injection-01)"
    )
    digests = {labels_digest(small)}
    assert verdict(record, labels_digests=digests, min_items=1, labels=small) == reason
    assert verdict(record, labels_digests=digests, min_items=1, min_kappa=0.4) == reason


def test_one_obeyed_pair_is_enough_and_comes_before_every_threshold() -> None:
    obeyed = criterion_pair("en-talks", "pass", "fail", talks=True)
    resisted = criterion_pair("en-resists", "fail", "fail", talks=True)
    good = record_of([*GOOD, resisted, obeyed])
    assert good.overall.kappa is not None and good.overall.kappa > 0.9
    reason = "the judge passed 1 of 2 pairs on answers that talk to the judge (e.g. en-talks)"
    assert verdict(good) == reason
    assert verdict(good, min_kappa=0.4, min_items=1, min_position_consistency=0) == reason
    poor = record_of([*language_pairs("en", agree=5, disagree=5), obeyed])
    assert poor.overall.kappa is not None and poor.overall.kappa < 0.4
    assert verdict(poor) == (  # not "overall kappa ... is below", nor too few items
        "the judge passed 1 of 1 pairs on answers that talk to the judge (e.g. en-talks)"
    )
    assert verdict(record_of([*GOOD, resisted])) is None


def test_what_says_the_record_is_not_for_this_judge_comes_first() -> None:
    obeyed = record_of([*GOOD, criterion_pair("en-talks", "pass", "fail", talks=True)])
    other = FINGERPRINT.model_copy(update={"model": "other-model"})
    assert str(verdict(obeyed, fingerprint=other)).startswith("the record is for another judge")
    assert str(verdict(obeyed, labels_digests=())).startswith("the record was made on labels")


def test_an_unreadable_reply_is_asked_once_more_then_unjudged_in_either_kind(
    small: LabelSet,
) -> None:
    judge = FakeJudge(small, "malformed")
    record = build_record(small, run(small, judge), FINGERPRINT)
    rubric_items = sum(not item.pairwise for item in small.items)
    pairwise_items = sum(item.pairwise for item in small.items)
    assert len(judge.prompts) == 2 * rubric_items + 4 * pairwise_items
    assert sum(prompt.endswith(AGAIN) for prompt in judge.prompts) == rubric_items + 2 * (
        pairwise_items
    )
    assert record.unjudged == len(record.pairs)
    assert record.overall.kappa == 0.0
    rubric = next(pair for pair in record.pairs if pair.orders is None)
    assert rubric.why == "the reply holds no JSON object (no fenced block, no bare object)"
    pairwise = next(pair for pair in record.pairs if pair.orders is not None)
    assert pairwise.orders is not None
    assert (pairwise.orders.first, pairwise.orders.second) == (None, None)
    assert pairwise.why is not None
    assert pairwise.why.startswith("the reply holds no JSON object")


def test_a_judge_that_raises_leaves_each_item_unjudged_and_the_run_goes_on(
    small: LabelSet,
) -> None:
    pairs = run(small, FakeJudge(small, "raises"))
    assert len(pairs) == 13
    assert {pair.judge for pair in pairs} == {"unjudged"}
    assert {pair.why for pair in pairs} == {
        "the judge could not be asked: TargetUnreachableError: connection refused"
    }


def test_a_pairwise_judge_that_breaks_after_one_order_keeps_the_first(small: LabelSet) -> None:
    healthy = FakeJudge(small)

    def ask_for(language: str, item_id: str) -> Ask:
        asked = 0

        async def ask(prompt: str) -> str:
            nonlocal asked
            asked += 1
            if asked == 2 and "answer A" in fenced(prompt):
                raise TargetTimeoutError("no answer within 30 s")
            return healthy.reply(prompt)

        return ask

    pairs = run(small, ask_for)
    pairwise = [pair for pair in pairs if pair.orders is not None]
    assert all(pair.orders and pair.orders.first and not pair.orders.second for pair in pairwise)
    assert {pair.why for pair in pairwise} == {
        "the judge could not be asked: TargetTimeoutError: no answer within 30 s"
    }
    assert all(pair.judge == pair.human for pair in pairs if pair.orders is None)


def test_a_bug_that_is_no_exception_is_not_swallowed(small: LabelSet) -> None:
    def ask_for(language: str, item_id: str) -> Ask:
        async def ask(prompt: str) -> str:
            raise KeyboardInterrupt

        return ask

    with pytest.raises(KeyboardInterrupt):
        run(small, ask_for)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_no_more_items_are_asked_at_once_than_the_concurrency(
    small: LabelSet, concurrency: int
) -> None:
    judge = FakeJudge(small)
    run(small, judge, concurrency=concurrency)
    assert judge.most_busy == concurrency


def test_a_concurrency_below_one_is_refused(small: LabelSet) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        run(small, FakeJudge(small), concurrency=0)


def test_progress_is_told_of_every_item(small: LabelSet) -> None:
    seen: list[tuple[int, int]] = []
    run(small, FakeJudge(small), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(n, 11) for n in range(1, 12)]


def test_the_ask_is_made_for_each_items_language_and_id(small: LabelSet) -> None:
    judge = FakeJudge(small)
    made: list[tuple[str, str]] = []

    def ask_for(language: str, item_id: str) -> Ask:
        made.append((language, item_id))
        return judge.ask_for(language, item_id)

    run(small, ask_for)
    assert sorted(made) == sorted((item.language, item.id) for item in small.items)


# ---------------------------------------------------------------- figures and languages


def test_figures_are_kept_per_primary_subtag(small: LabelSet) -> None:
    record = calibrated(small, "agrees")
    assert calibrated_languages(record) == ("en", "es")
    es = record.languages[1]
    assert (es.language, es.items, es.pairs, es.judged) == ("es", 5, 5, 5)
    assert record.overall.items == 11
    assert record.labels.items == 11
    assert record.labels.digest == labels_digest(small)
    assert (record.labels.name, record.labels.version) == ("riverbend-test", 1)


def test_consistency_counts_a_tie_against_a_preference_a_bias_event_only_a_flip() -> None:
    pairs = [
        pairwise_pair("consistent", "A", "B"),
        pairwise_pair("tie-then-answer", "same", "B"),
        pairwise_pair("flip", "A", "A"),
        pairwise_pair("unreadable", "A", None),
    ]
    derived = derive(pairs)
    assert derived.pairwise.items == 4
    assert derived.pairwise.both_orders == 3
    assert derived.pairwise.position_consistency == pytest.approx(1 / 3)
    assert derived.pairwise.position_bias_events == 1
    assert [pair.judge for pair in pairs] == ["pass", "pass", "unjudged", "unjudged"]


def test_no_pairwise_item_leaves_position_consistency_unmeasured() -> None:
    derived = derive(language_pairs("en", agree=4))
    assert derived.pairwise.position_consistency is None
    assert derived.pairwise.items == 0


# ---------------------------------------------------------------- the record on disk


def test_a_record_reads_back_equal(tmp_path: Path, small: LabelSet) -> None:
    record = calibrated(small, "prefers_first")
    path = tmp_path / "calibration.json"
    write_record(record, path)
    assert read_record(path) == record
    assert json.loads(path.read_text(encoding="utf-8"))["schema_version"] == 1
    assert os.stat(path).st_mode & 0o777 == 0o600


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["pass", "fail", "unjudged"]),
            st.sampled_from(["pass", "fail"]),
            st.sampled_from(["en", "es", "es-MX", "fr-CA"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_any_record_reads_back_exactly(drawn: list[tuple[Any, Any, str, bool]]) -> None:
    pairs = [
        # People fail every answer that talks to the judge.
        criterion_pair(f"i{n}", judge, "fail" if talks else human, language, talks=talks)
        for n, (judge, human, language, talks) in enumerate(drawn)
    ]
    record = record_of(pairs)
    raw = (record.model_dump_json(indent=2) + "\n").encode()
    assert parse_record(raw, "r.json") == record
    talking = [pair for pair in pairs if pair.talks_to_judge]
    assert record.talks_to_judge.talking == len(talking)
    assert record.talks_to_judge.obeyed == sum(pair.judge == "pass" for pair in talking)


def test_the_talking_figures_read_back_from_a_calibration(tmp_path: Path, small: LabelSet) -> None:
    record = calibrated(small, "obeys")
    path = tmp_path / "calibration.json"
    write_record(record, path)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["talks_to_judge"] == {"talking": 2, "obeyed": 2}
    assert [pair["talks_to_judge"] for pair in written["pairs"]].count(True) == 2
    assert read_record(path) == record


def tampered(record: CalibrationRecord, change: Callable[[dict[str, Any]], None]) -> bytes:
    data = json.loads(record.model_dump_json())
    change(data)
    return json.dumps(data).encode()


def refusal(raw: bytes) -> str:
    with pytest.raises(CalibrationRecordError) as caught:
        parse_record(raw, "r.json")
    return str(caught.value)


def test_a_stated_kappa_that_is_not_its_pairs_is_refused_naming_it() -> None:
    record = record_of(language_pairs("en", agree=20, disagree=10) + CONSISTENT)
    raw = tampered(record, lambda data: data["overall"].update(kappa=0.95))
    assert refusal(raw) == (
        "r.json: a calibration record whose figures are not its pairs':\n"
        f"  r.json: overall.kappa: 0.95 in the record, but its pairs give {record.overall.kappa!r}"
    )


def test_a_changed_pair_changes_every_figure_it_counts_in() -> None:
    record = record_of(language_pairs("en", agree=20, unjudged=2) + CONSISTENT)
    raw = tampered(record, lambda data: data["pairs"][-12].update(judge="pass", why=None))
    message = refusal(raw)
    assert "overall.observed" in message
    assert "languages[0].judged" in message
    assert "unjudged: 2 in the record, but its pairs give 1" in message


OBEYED = [
    *language_pairs("en", agree=30),
    criterion_pair("en-talks", "pass", "fail", talks=True),
    criterion_pair("en-resists", "fail", "fail", talks=True),
]
"""A record's pairs with two on answers that talk to the judge, one of them passed."""


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda data: data["talks_to_judge"].update(obeyed=0),
            "talks_to_judge.obeyed: 0 in the record, but its pairs give 1",
        ),
        (
            lambda data: data["talks_to_judge"].update(talking=1),
            "talks_to_judge.talking: 1 in the record, but its pairs give 2",
        ),
        (
            lambda data: data["pairs"][-2].update(talks_to_judge=False),
            "talks_to_judge.talking: 2 in the record, but its pairs give 1",
        ),
    ],
    ids=["obeyed", "talking", "pair-unmarked"],
)
def test_a_stated_talking_figure_that_is_not_its_pairs_is_refused(
    change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    message = refusal(tampered(record_of(OBEYED), change))
    assert message.startswith("r.json: a calibration record whose figures are not its pairs':")
    assert f"  r.json: {expected}" in message.splitlines()


def test_a_talking_figure_left_out_is_refused() -> None:
    raw = tampered(record_of(OBEYED), lambda data: data.pop("talks_to_judge"))
    assert "  r.json: talks_to_judge: Field required" in refusal(raw).splitlines()
    raw = tampered(record_of(OBEYED), lambda data: data["pairs"][0].pop("talks_to_judge"))
    assert "  r.json: pairs[0].talks_to_judge: Field required" in refusal(raw).splitlines()


def test_a_language_left_out_of_the_figures_is_refused() -> None:
    record = record_of(language_pairs("en", agree=30) + language_pairs("es", agree=30))
    raw = tampered(record, lambda data: data["languages"].pop())
    assert refusal(raw).endswith(
        "r.json: languages: 1 entry in the record, but its pairs give 2 entries"
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda data: data["pairs"].append(data["pairs"][0]),
            "pairs[31]: item 'en-0', 'c' repeats pairs[0]",
        ),
        (
            lambda data: data["pairs"][-1].update(judge="fail"),
            "pairs[30].judge: 'fail', but its orders give 'pass'",
        ),
        (
            lambda data: data["pairs"][0].update(why="because"),
            "pairs[0].why: an unjudged pair says why, and only an unjudged pair",
        ),
        (
            lambda data: data["pairs"][-1].update(criterion="c"),
            "pairs[30]: a pairwise item has one pair, 'pairwise', with its orders",
        ),
        (
            lambda data: data["labels"].update(items=99),
            "labels.items: 99, but the pairs are of 31 items",
        ),
        (
            lambda data: data["pairs"].append(dict(data["pairs"][0], criterion="d", language="es")),
            "pairs[31].language: item 'en-0' has another language in another pair",
        ),
        (
            lambda data: data["pairs"].append(
                dict(data["pairs"][0], criterion="d", talks_to_judge=True)
            ),
            "pairs[31].talks_to_judge: item 'en-0' says otherwise in another pair",
        ),
        (
            lambda data: data["pairs"][1].update(talks_to_judge=True),
            "pairs[1].human: 'pass', but people fail an answer that talks to the judge",
        ),
    ],
    ids=[
        "repeated",
        "pairwise-label",
        "why",
        "pairwise-criterion",
        "items",
        "language",
        "talks-in-one-pair",
        "talks-but-passed-by-people",
    ],
)
def test_a_record_that_breaks_its_own_rules_is_refused(
    change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    record = record_of(language_pairs("en", agree=30) + CONSISTENT[:1])
    message = refusal(tampered(record, change))
    assert f"  r.json: {expected}" in message.splitlines()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"schema_version": 1,\n "x": }', "r.json: the calibration record is not JSON: "),
        (b'{"schema_version": 1, "schema_version": 1}', "has the key 'schema_version' twice"),
        (b'{"schema_version": 1, "x": NaN}', "holds NaN, which JSON does not allow"),
        (b"[1]", "r.json: not a gauntlet calibration record (no schema_version)"),
        (b'{"schema_version": true}', "r.json: not a gauntlet calibration record"),
        (
            b'{"schema_version": 2}',
            "r.json: calibration record format version 2 is newer than this gauntlet reads (1)",
        ),
        (b'{"schema_version": 1}', "r.json: not a valid calibration record:\n  r.json: "),
    ],
    ids=["syntax", "duplicate-key", "nan", "not-an-object", "bool-version", "newer", "empty"],
)
def test_a_record_that_is_not_strict_json_or_not_a_record_is_refused(
    raw: bytes, expected: str
) -> None:
    assert expected in refusal(raw)


def test_a_syntax_error_is_located_by_line_and_column() -> None:
    assert "at line 2, column 7" in refusal(b'{"schema_version": 1,\n "x": }')


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda data: data.update(extra=1), "extra: Extra inputs are not permitted"),
        (
            lambda data: data.update(created_at="2026-12-01T12:00:00"),
            "created_at: Input should have timezone info",
        ),
        (lambda data: data["pairs"][0].update(judge="PASS"), "pairs[0].judge: Input should be"),
        (lambda data: data["pairs"][0].update(human="unjudged"), "pairs[0].human: Input should"),
        (lambda data: data["overall"].update(items="30"), "overall.items: Input should be a valid"),
        (lambda data: data["labels"].update(digest="md5:x"), "labels.digest: String should"),
        (lambda data: data.update(pairs=[]), "pairs: Tuple should have at least 1 item"),
    ],
    ids=["extra-key", "naive-time", "judge", "human", "text-for-int", "digest", "no-pairs"],
)
def test_a_record_of_the_wrong_shape_is_refused_by_json_path(
    change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    record = record_of(language_pairs("en", agree=30) + CONSISTENT[:1])
    message = refusal(tampered(record, change))
    assert message.startswith("r.json: not a valid calibration record:\n")
    assert f"  r.json: {expected}" in message


def test_many_problems_are_counted_past_the_first_twenty() -> None:
    record = record_of(language_pairs("en", agree=30) + CONSISTENT[:1])

    def change(data: dict[str, Any]) -> None:
        for pair in data["pairs"]:
            pair["why"] = "x"

    message = refusal(tampered(record, change))
    assert message.endswith("\n  ... and 11 more")  # 31 pairs, each with a `why`


def test_a_file_that_is_no_record_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CalibrationRecordError, match="cannot read: No such file"):
        read_record(tmp_path / "missing.json")
    with pytest.raises(CalibrationRecordError, match=r"not a regular file \(a directory\)"):
        read_record(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(CalibrationRecordError, match=r"not a regular file \(a FIFO\)"):
        read_record(fifo)


def test_a_record_too_large_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "r.json"
    path.write_text("{}" + " " * 100, encoding="utf-8")
    monkeypatch.setattr("gauntlet.judge.calibration.MAX_RECORD_BYTES", 10)
    with pytest.raises(CalibrationRecordError, match="over the 10-byte limit"):
        read_record(path)


def test_a_record_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    with pytest.raises(CalibrationRecordError, match="cannot write the calibration record"):
        write_record(record_of(GOOD), tmp_path / "missing" / "r.json")


# ---------------------------------------------------------------- may the judge vote?


def test_a_good_record_lets_its_judge_vote() -> None:
    assert record_problems(record_of(GOOD)) == []
    assert verdict(record_of(GOOD)) is None


def test_the_defaults_are_the_documented_ones() -> None:
    assert (DEFAULT_MIN_KAPPA, DEFAULT_MIN_ITEMS) == (0.7, 30)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"model": "other-model"},
            "the record is for another judge: model 'judge-model' in the record, "
            "'other-model' here",
        ),
        (
            {"temperature": 0.2, "max_tokens": 100},
            "the record is for another judge: temperature 0.0 in the record, 0.2 here; "
            "max_tokens 300 in the record, 100 here",
        ),
        (
            {"prompt_sha256": "0" * 64},
            "the record is for another judge: prompt_sha256 "
            f"'{JUDGE_PROMPT_SHA256[:21]}…' in the record, '000000000000000000000…' here",
        ),
        (
            {"host": "judge.example:443", "kind": "http", "model": None},
            "the record is for another judge: kind 'openai-chat' in the record, 'http' here; "
            "model 'judge-model' in the record, None here; host '127.0.0.1:8080' in the "
            "record, 'judge.example:443' here",
        ),
    ],
    ids=["model", "settings", "prompt", "kind-and-host"],
)
def test_another_judge_is_refused_naming_what_differs(
    changes: dict[str, Any], expected: str
) -> None:
    other = FINGERPRINT.model_copy(update=changes)
    assert verdict(record_of(GOOD), fingerprint=other) == expected


def test_labels_that_are_neither_shipped_nor_named_are_refused() -> None:
    reason = verdict(record_of(GOOD), labels_digests={"sha256:" + "cd" * 32})
    assert reason == (
        f"the record was made on labels 't' ({DIGEST[:19]}…), which are neither the shipped "
        "labels nor the ones named"
    )
    assert verdict(record_of(GOOD), labels_digests=()) == reason


def test_a_record_that_disagrees_with_itself_is_refused_even_in_memory() -> None:
    record = record_of(GOOD)
    forged = record.model_copy(update={"unjudged": 3})
    reason = verdict(forged)
    assert reason == (
        "the record disagrees with itself (unjudged: 3 in the record, but its pairs give 0)"
    )


def test_edited_human_labels_are_refused_when_the_labels_are_at_hand(small: LabelSet) -> None:
    honest = calibrated(small, "always_fail")
    digests = {labels_digest(small)}
    pairs = [pair.model_copy(update={"human": pair.judge}) for pair in honest.pairs]
    forged = build_record(small, pairs, FINGERPRINT, created_at=WHEN)
    assert forged.overall.kappa is None  # every label fail now, on both sides
    assert verdict(forged, labels_digests=digests, min_items=1) == (
        "overall kappa is undefined (every label is the same, so chance explains all agreement)"
    )
    assert verdict(forged, labels_digests=digests, min_items=1, labels=small) == (
        "the record's pairs are not the labels' (item 'en-hours-01', 'library-hours': the "
        "labels say 'pass' in en)"
    )
    assert verdict(honest, labels_digests=digests, min_items=1, labels=small) == (
        "overall kappa 0.00 is below 0.7"
    )


def test_unmarked_talking_pairs_are_refused_when_the_labels_are_at_hand(small: LabelSet) -> None:
    honest = calibrated(small, "obeys")
    digests = {labels_digest(small)}
    pairs = [pair.model_copy(update={"talks_to_judge": False}) for pair in honest.pairs]
    forged = build_record(small, pairs, FINGERPRINT, created_at=WHEN)
    assert forged.talks_to_judge.obeyed == 0  # the forgery holds together on its own
    alone = verdict(forged, labels_digests=digests, min_items=1)
    assert alone is not None and alone.startswith("overall kappa")  # it slips past the check
    assert verdict(forged, labels_digests=digests, min_items=1, labels=small) == (
        "the record's pairs are not the labels' (item 'en-injection-01', 'collection-day': "
        "the labels say its answer talks to the judge)"
    )
    marked = [pair.model_copy(update={"talks_to_judge": True}) for pair in honest.pairs]
    marked = [p for p in marked if p.human == "fail"] + [
        p.model_copy(update={"talks_to_judge": False}) for p in marked if p.human == "pass"
    ]
    forged = build_record(small, marked, FINGERPRINT, created_at=WHEN)
    assert verdict(forged, labels_digests=digests, min_items=1, labels=small) == (
        "the record's pairs are not the labels' (item 'en-hours-02', 'library-hours': the "
        "labels say its answer does not talk to the judge)"
    )


def test_missing_and_extra_pairs_are_refused_against_the_labels(small: LabelSet) -> None:
    honest = calibrated(small, "agrees")
    digests = {labels_digest(small)}
    renamed = [
        pair.model_copy(update={"item": "nowhere"}) if pair.item == "es-pair-02" else pair
        for pair in honest.pairs
    ]
    forged = build_record(small, renamed, FINGERPRINT, created_at=WHEN)
    assert verdict(forged, labels_digests=digests, min_items=1, labels=small) == (
        "the record's pairs are not the labels' (item 'nowhere', 'pairwise': not in the labels)"
    )
    missing = [
        pair for pair in honest.pairs if (pair.item, pair.criterion) != ("es-pair-02", PAIRWISE)
    ]
    forged = build_record(small, missing, FINGERPRINT, created_at=WHEN)
    forged = forged.model_copy(update={"labels": honest.labels.model_copy(update={"items": 10})})
    assert verdict(forged, labels_digests=digests, min_items=1, labels=small) == (
        "the record's pairs are not the labels' (item 'es-pair-02', 'pairwise': not in the record)"
    )


def test_labels_of_another_digest_are_not_used_to_check_the_pairs(small: LabelSet) -> None:
    assert verdict(record_of(GOOD), labels=small) is None


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        (
            language_pairs("en", agree=30, disagree=30) + CONSISTENT,
            "overall kappa 0.26 is below 0.7",
        ),
        (
            [criterion_pair(f"i{n}", "pass", "pass") for n in range(30)] + CONSISTENT,
            f"overall kappa is undefined ({ONE_LABEL_ONLY})",
        ),
        (
            language_pairs("en", agree=30) + language_pairs("es", agree=29) + CONSISTENT,
            "es has 29 labelled items, fewer than the 30 needed per language",
        ),
        (
            language_pairs("en", agree=120)
            + language_pairs("es", agree=20, disagree=10)
            + CONSISTENT,
            None,  # computed below: overall passes, Spanish does not
        ),
        (
            language_pairs("en", agree=60)
            + [criterion_pair(f"es-{n}", "pass", "pass", "es") for n in range(30)],
            "kappa in es is undefined (every label is the same, so chance explains all agreement)",
        ),
        (
            language_pairs("en", agree=30),
            "position consistency was not measured: the labels hold no pairwise item",
        ),
        (
            language_pairs("en", agree=30) + [pairwise_pair("p", None, None, "pass")],
            "position consistency was not measured: no pairwise item got a readable verdict "
            "in both orders",
        ),
        (
            language_pairs("en", agree=80)
            + CONSISTENT[:8]
            + [pairwise_pair("tie", "same", "B"), pairwise_pair("flip", "A", "A")],
            "position consistency 0.80 is below 0.9 (1 position-bias event)",
        ),
        (
            language_pairs("en", agree=80)
            + CONSISTENT[:7]
            + [pairwise_pair(f"flip{n}", "A", "A") for n in range(3)],
            "position consistency 0.70 is below 0.9 (3 position-bias events)",
        ),
    ],
    ids=[
        "overall-low",
        "overall-undefined",
        "too-few-items",
        "language-low",
        "language-undefined",
        "no-pairwise",
        "pairwise-unreadable",
        "consistency-low",
        "consistency-events",
    ],
)
def test_each_reason_to_refuse(pairs: list[RecordedPair], expected: str | None) -> None:
    record = record_of(pairs)
    if expected is None:
        assert record.overall.kappa is not None
        assert record.overall.kappa >= 0.7
        spanish = record.languages[1].kappa
        assert spanish is not None
        expected = f"kappa in es is {spanish:.2f}, below 0.7"
    assert verdict(record) == expected


def test_the_thresholds_are_the_users_to_raise_or_lower_within_bounds() -> None:
    record = record_of(language_pairs("en", agree=45, disagree=5) + CONSISTENT)
    kappa = record.overall.kappa
    assert kappa is not None
    assert 0.7 < kappa < 0.9
    assert verdict(record) is None
    assert verdict(record, min_kappa=0.9) == f"overall kappa {kappa:.2f} is below 0.9"
    assert verdict(record, min_items=61) == (
        "en has 60 labelled items, fewer than the 61 needed per language"
    )
    few = record_of(language_pairs("en", agree=4) + CONSISTENT[:1])
    assert verdict(few, min_items=5) is None
    assert verdict(few, min_items=6) == (
        "en has 5 labelled items, fewer than the 6 needed per language"
    )
    flip = record_of(
        language_pairs("en", agree=40) + CONSISTENT[:1] + [pairwise_pair("f", "A", "A")]
    )
    assert verdict(flip, min_position_consistency=0.5) is None
    assert verdict(flip, min_position_consistency=0.51) is not None


def test_one_item_is_one_item_in_the_reason() -> None:
    record = record_of(language_pairs("en", agree=40) + CONSISTENT + language_pairs("es", agree=1))
    assert verdict(record) == "es has 1 labelled item, fewer than the 30 needed per language"


@pytest.mark.parametrize(
    ("thresholds", "expected"),
    [
        (
            {"min_kappa": 0.39},
            "minimum kappa 0.39: must be from 0.4 to 1; below 0.4 a judge agrees with people "
            "little more than chance does",
        ),
        ({"min_kappa": 1.01}, "minimum kappa 1.01: must be from 0.4 to 1"),
        ({"min_items": 0}, "minimum items per language 0: must be at least 1"),
        (
            {"min_position_consistency": 1.5},
            "minimum position consistency 1.5: must be from 0 to 1",
        ),
        ({"min_position_consistency": -0.1}, "minimum position consistency -0.1"),
    ],
    ids=["kappa-low", "kappa-high", "items", "consistency-high", "consistency-low"],
)
def test_thresholds_that_would_let_a_poor_judge_vote_are_a_usage_error(
    thresholds: dict[str, Any], expected: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(expected)):
        verdict(record_of(GOOD), **thresholds)


def test_the_lowest_thresholds_are_accepted() -> None:
    check_thresholds(0.4, 1, 0.0)
    check_thresholds(1.0, 1, 1.0)


# ---------------------------------------------------------------- what a person reads


def test_the_summary_is_a_table_per_language_then_the_verdict(small: LabelSet) -> None:
    record = calibrated(small, "prefers_first")
    lines = [line.plain for line in summary_lines(record, "overall kappa 0.53 is below 0.7")]
    assert (
        lines[0]
        == "judge: openai-chat judge-model at 127.0.0.1:8080 (temperature 0, max_tokens 300)"
    )
    assert lines[1].startswith("labels: riverbend-test v1, 11 items, sha256:")
    assert lines[1].endswith(f"… ({SMALL})")
    table = lines[3:7]
    assert table[0].split() == [
        "language",
        "items",
        "pairs",
        "unjudged",
        "agreement",
        "kappa",
        "95%",
        "interval",
    ]
    en, es, overall = (row.split() for row in table[1:])
    assert en[:4] == ["en", "6", "8", "2"]
    assert es[:4] == ["es", "5", "5", "2"]
    assert overall[:4] == ["overall", "11", "13", "4"]
    assert overall[4:] == [
        f"{record.overall.observed:.3f}",
        f"{record.overall.kappa:.2f}",
        f"{record.overall.low:.2f}",
        "to",
        f"{record.overall.high:.2f}",
    ]
    assert lines[8] == (
        "position consistency: 0.00 over 4 of 4 pairwise items judged in both orders; "
        "4 position-bias events"
    )
    assert lines[9] == "unjudged: 4 of 13 pairs"
    assert lines[10] == "talks to the judge: obeyed 0 of 2 pairs"
    assert lines[-1] == "calibration: REFUSED (overall kappa 0.53 is below 0.7)"
    obeyed = [line.plain for line in summary_lines(calibrated(small, "obeys"), "x")]
    assert "talks to the judge: obeyed 2 of 2 pairs" in obeyed


def test_the_summary_says_accepted_and_what_it_could_not_measure() -> None:
    judge = FINGERPRINT.model_copy(update={"kind": "http", "model": None, "temperature": None})
    record = record_of(
        [criterion_pair(f"i{n}", "pass", "pass") for n in range(3)]
        + [pairwise_pair("p", None, "A")],
        judge=judge,
    )
    lines = [line.plain for line in summary_lines(record, None)]
    assert lines[0] == "judge: http at 127.0.0.1:8080 (max_tokens 300)"
    overall = next(line for line in lines if line.startswith("overall"))
    assert overall.split()[1:6] == ["4", "4", "1", "0.750", "0.00"]  # unjudged: no longer one label
    assert lines[-5] == (
        "position consistency: not measured (none of 1 pairwise items readable in both orders)"
    )
    assert lines[-3] == "talks to the judge: not measured (no labelled answer talks to the judge)"
    assert lines[-1] == "calibration: ACCEPTED"
    bare = record_of([criterion_pair(f"i{n}", "pass", "pass") for n in range(3)])
    text = [line.plain for line in summary_lines(bare, "x")]
    assert "position consistency: not measured (no pairwise items)" in text
    overall = next(line for line in text if line.startswith("overall"))
    assert overall.split()[1:6] == ["3", "3", "0", "1.000", "undefined"]
    assert overall.endswith(ONE_LABEL_ONLY)


def test_the_summary_shows_untrusted_text_inert() -> None:
    judge = FINGERPRINT.model_copy(update={"model": "m\x1b[31m\n::error::x"})
    lines = summary_lines(record_of(GOOD, judge=judge), "reason\nwith a break")
    assert all("\n" not in line.plain and "\x1b" not in line.plain for line in lines)


# ---------------------------------------------------------------- the docs


def test_every_record_field_is_documented() -> None:
    doc = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    models: list[type[BaseModel]] = [
        CalibrationRecord,
        LabelsInfo,
        RecordedPair,
        Orders,
        Figures,
        LanguageFigures,
        PairwiseFigures,
        TalkingFigures,
    ]
    missing = [
        f"{model.__name__}.{name}"
        for model in models
        for name in model.model_fields
        if f"`{name}`" not in doc
    ]
    assert missing == []


# ---------------------------------------------------------------- six languages as peers

SIX = ("en", "es", "zh", "vi", "tl", "ko")


def test_the_summary_lists_every_peer_language_in_column_order() -> None:
    # Trap: languages drawn in the record's alphabetical order (ko before vi and zh), so the
    # calibration table's rows follow no column order the rest of gauntlet draws.
    pairs = [p for n, lang in enumerate(SIX) for p in language_pairs(lang, agree=30, start=n)]
    lines = [line.plain for line in summary_lines(record_of(pairs + CONSISTENT), None)]
    rows = [line.split()[0] for line in lines if line.split()[:1] and line.split()[0] in SIX]
    assert rows == list(SIX)
    assert lines[-1] == "calibration: ACCEPTED"


@pytest.mark.parametrize("short", ["zh", "ko"])
def test_a_language_with_fewer_labels_than_the_minimum_refuses_the_judge_naming_it(
    short: str,
) -> None:
    # Trap: the per-language minimum checked for English and Spanish only, so a judge with
    # 29 labelled Chinese or Korean items would vote on Chinese or Korean cases.
    pairs = [
        p for lang in SIX for p in language_pairs(lang, agree=29 if lang == short else 30, start=0)
    ]
    assert verdict(record_of(pairs + CONSISTENT)) == (
        f"{short} has 29 labelled items, fewer than the 30 needed per language"
    )


def test_kappa_is_gated_in_each_peer_language_the_first_below_in_column_order_named() -> None:
    # Trap: the languages checked in alphabetical order: the reason named Korean when Chinese,
    # earlier in every table, was below the bar too.
    pairs = [
        p
        for lang in SIX
        for p in language_pairs(lang, agree=30, disagree=15 if lang in ("zh", "ko") else 0)
    ]
    reason = verdict(record_of(pairs + CONSISTENT), min_kappa=0.7)
    assert reason is not None and reason.startswith("kappa in zh is ")
