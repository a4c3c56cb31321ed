"""Similarity calibration: a threshold earned per language, a record that checks itself."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gauntlet.cases.yaml_nodes import Mark
from gauntlet.redact import Redactor
from gauntlet.semantic import guards
from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.calibration import (
    ScoredPair,
    SimilarityRecord,
    SimilarityRecordError,
    build_similarity_record,
    choose_threshold,
    default_minimums,
    parse_similarity_record,
    passes,
    read_similarity_record,
    summary_lines,
    write_similarity_record,
)
from gauntlet.semantic.check import similarity_check, similarity_of
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.fingerprint import EmbedderFingerprint
from gauntlet.semantic.labels import (
    LoadedSimilarityLabels,
    SimilarityLabel,
    SimilarityLabelSet,
    SimilarityLabelsFile,
)
from gauntlet.semantic.setup import open_similarity
from gauntlet.semantic.toy import EmbedderDefect

from .conftest import shipped_record, toy_over

FINGERPRINT = EmbedderFingerprint(kind="toy", model="toy over nothing", dimension=3)
WHEN = datetime(2026, 12, 5, tzinfo=UTC)


def pair(
    n: int, score: float, *, same: bool, language: str = "en", guards: tuple[str, ...] = ()
) -> ScoredPair:
    return ScoredPair(
        id=f"{language}-{n:03d}",
        language=language,
        kind="reworded" if same else "entity",
        same=same,
        score=score,
        guards=guards,
    )


def separable(language: str = "en", *, start: int = 0) -> list[ScoredPair]:
    """30 rewordings at 0.90-0.96 and 30 other meanings at 0.50-0.79: one clean gap."""
    return [
        pair(start + n, round(0.90 + n * 0.002, 6), same=True, language=language) for n in range(30)
    ] + [
        pair(start + 30 + n, round(0.50 + n * 0.01, 6), same=False, language=language)
        for n in range(30)
    ]


def label_set(pairs: list[ScoredPair]) -> SimilarityLabelSet:
    items = tuple(
        SimilarityLabel(
            id=p.id, language=p.language, expected="x", answer="y", same=p.same, kind=p.kind
        )
        for p in pairs
    )
    mark = Mark(line=1, column=1)
    loaded = LoadedSimilarityLabels(
        file=SimilarityLabelsFile(version=1, items=items),
        source="labels",
        id_marks=(mark,) * len(items),
        language_marks=(mark,) * len(items),
        version_mark=mark,
    )
    return SimilarityLabelSet((loaded,), "labels")


def record_of(pairs: list[ScoredPair]) -> SimilarityRecord:
    return build_similarity_record(
        pairs, label_set(pairs), FINGERPRINT, minimums=default_minimums(), created_at=WHEN
    )


# ---------------------------------------------------------------- the threshold


def test_the_threshold_sits_midway_below_the_lowest_passed_rewording() -> None:
    # Trap: a threshold at the lowest passed score itself, so a score one rounding under it
    # flips, or one at the highest different score, which passes that pair.
    assert choose_threshold(separable(), 0.95) == pytest.approx((0.90 + 0.79) / 2)


def test_the_threshold_keeps_precision_whatever_it_costs_in_recall() -> None:
    # Trap: maximising recall (or accuracy) alone, so one different meaning scoring among
    # the best rewordings is passed to gain the rest.
    pairs = separable()
    pairs[30] = pair(30, 0.955, same=False)  # two swapped entities among the best rewordings:
    pairs[31] = pair(31, 0.957, same=False)  # passing them and all 30 is precision 0.94
    threshold = choose_threshold(pairs, 0.95)
    assert threshold is not None and threshold > 0.957
    (figures,) = record_of(pairs).languages
    assert figures.precision == 1.0 and figures.recall < 0.5
    assert not figures.accepted and "recall" in (figures.refused or "")


def test_a_guarded_pair_never_passes_however_high_it_scores() -> None:
    # Trap: letting a guarded pair's score choose the threshold or count as passed.
    pairs = separable()
    pairs[31] = pair(31, 0.999, same=False, guards=("a negation",))
    (figures,) = record_of(pairs).languages
    assert figures.accepted and figures.passed == 30 and figures.true_positives == 30


def test_a_language_with_too_few_pairs_or_one_class_is_refused() -> None:
    # Trap: accepting a language on a handful of pairs, where precision 1.0 means 3 of 3.
    small = separable()[:10] + separable()[30:40]
    (figures,) = record_of(small).languages
    assert not figures.accepted and "fewer than the 60 needed" in (figures.refused or "")
    lopsided = [pair(n, 0.95, same=True) for n in range(50)] + separable()[30:40]
    (figures,) = record_of(lopsided).languages
    assert not figures.accepted and "20 of each are needed" in (figures.refused or "")


def test_an_embedder_that_scores_one_kind_of_difference_as_identity_is_refused() -> None:
    # Trap: judging blindness by precision alone, when the guards have already failed every
    # negated pair the blind embedder scored 1.0, so the figures look perfect.
    pairs = separable()
    for n in range(30, 40):
        pairs[n] = ScoredPair(
            id=f"en-{n:03d}",
            language="en",
            kind="negation",
            same=False,
            score=1.0,
            guards=("a negation",),
        )
    (figures,) = record_of(pairs).languages
    assert figures.precision == 1.0 and figures.recall == 1.0
    assert not figures.accepted and "blind to negation: 10 of 10" in (figures.refused or "")


# ---------------------------------------------------------------- the record


def test_a_record_whose_figures_are_not_its_pairs_is_refused(tmp_path: Path) -> None:
    # Trap: trusting a record's stated thresholds, so a hand-edited figure lets it gate.
    record = record_of(separable()[:30] + [pair(30 + n, 0.95, same=False) for n in range(30)])
    assert not record.languages[0].accepted
    data = json.loads(record.model_dump_json())
    data["languages"][0].update(accepted=True, refused=None)
    with pytest.raises(SimilarityRecordError) as caught:
        parse_similarity_record(json.dumps(data).encode(), "r.json")
    assert "languages[0].accepted: True in the record, but its pairs give False" in str(
        caught.value
    )


def test_a_record_that_is_not_one_is_a_located_error(tmp_path: Path) -> None:
    # Trap: a traceback, or a record read leniently, for a file that is not a record.
    for raw, said in (
        (b"{", "r.json"),
        (b'{"schema_version": 2}', "newer than this gauntlet reads"),
        (b'{"schema_version": 1}', "not a valid similarity calibration record"),
        (b"[]", "no schema_version"),
    ):
        with pytest.raises(SimilarityRecordError) as caught:
            parse_similarity_record(raw, "r.json")
        assert said in str(caught.value) and str(caught.value).startswith("r.json"), caught.value
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (16 * 1024 * 1024 + 1))
    with pytest.raises(SimilarityRecordError, match="over"):
        read_similarity_record(big)


def test_a_written_record_reads_back_equal(tmp_path: Path) -> None:
    record = record_of(separable() + separable("es", start=100))
    write_similarity_record(record, tmp_path / "r.json")
    assert read_similarity_record(tmp_path / "r.json") == record


# ---------------------------------------------------------------- what a record lets gate


def test_only_the_languages_a_record_accepted_get_a_threshold() -> None:
    # Trap: one threshold for every language, so a refused language gates with another's.
    refused_es = separable("es", start=100)[:30] + [
        pair(200 + n, 0.99, same=False, language="es") for n in range(30)
    ]
    similarity = similarity_of(
        record_of(separable() + refused_es), FINGERPRINT, None, record_sha256="0" * 64
    )
    assert set(similarity.thresholds) == {"en"} and similarity.refused is None
    assert "accepted no threshold in es" in (similarity.why_not("es-MX") or "")


def test_a_record_for_another_embedder_gates_nothing_and_names_what_differs() -> None:
    # Trap: comparing the model name alone, so other weights or a toy defect inherit the record.
    other = FINGERPRINT.model_copy(update={"defects": ("negation_blind",), "dimension": 4})
    similarity = similarity_of(record_of(separable()), other, None, record_sha256="0" * 64)
    assert similarity.thresholds == {}
    assert similarity.refused is not None and "another embedder" in similarity.refused
    assert (
        "dimension 3 in the record, 4 here" in similarity.refused
        and "defects" in similarity.refused
    )


def test_a_record_held_to_weaker_minimums_gates_nothing() -> None:
    # Trap: reading acceptance from the record, which its maker could reach by lowering the bar.
    pairs = separable()[:30] + [pair(30 + n, 0.95, same=False) for n in range(30)]
    weak = default_minimums().model_copy(update={"min_recall": 0.0, "min_precision": 0.9})
    record = build_similarity_record(
        pairs[:30] + pairs[30:], label_set(pairs), FINGERPRINT, minimums=weak, created_at=WHEN
    )
    similarity = similarity_of(record, FINGERPRINT, None, record_sha256="0" * 64)
    assert similarity.thresholds == {} and "weaker minimums" in (similarity.refused or "")
    assert "min_recall 0 (gauntlet's is 0.5)" in (similarity.refused or "")


def test_open_similarity_reads_a_record_and_applies_it(
    tmp_path: Path, builtin: BuiltinEmbedder
) -> None:
    # Trap: a record read but not applied, or applied without checking it is this embedder's.
    fingerprint = asyncio.run(builtin.open())
    pairs = separable()
    record = build_similarity_record(
        pairs, label_set(pairs), fingerprint, minimums=default_minimums(), created_at=WHEN
    )
    write_similarity_record(record, tmp_path / "r.json")
    similarity = asyncio.run(open_similarity("builtin", tmp_path / "r.json", redactor=Redactor()))
    assert similarity.refused is None and set(similarity.thresholds) == {"en"}
    assert similarity.record_sha256 is not None and len(similarity.record_sha256) == 64
    toy = asyncio.run(
        open_similarity("toy:negation_blind", tmp_path / "r.json", redactor=Redactor())
    )
    assert toy.thresholds == {} and "defects" in (toy.refused or "")
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    with pytest.raises(SimilarityRecordError, match="no schema_version"):
        asyncio.run(open_similarity("builtin", tmp_path / "bad.json", redactor=Redactor()))


# ---------------------------------------------------------------- the toy's defects, refused


def test_an_embedder_that_calls_everything_similar_is_refused(builtin: BuiltinEmbedder) -> None:
    # Trap: a threshold found anyway (every score is 1.0, so any threshold "separates").
    record = shipped_record(toy_over(builtin, EmbedderDefect.SIMILAR_EVERYTHING))
    assert len(record.languages) >= 2
    for figures in record.languages:
        assert not figures.accepted and "blind to" in (figures.refused or ""), figures


def test_a_negation_blind_embedder_is_refused(builtin: BuiltinEmbedder) -> None:
    # Trap: accepting it because the guards caught every negated pair, so a negation outside
    # the guards' lists would pass.
    record = shipped_record(toy_over(builtin, EmbedderDefect.NEGATION_BLIND))
    assert not record.accepted()
    assert len(record.languages) == 6
    for figures in record.languages:
        assert "blind to negation" in (figures.refused or ""), figures


def test_an_english_only_embedder_is_refused_in_spanish(builtin: BuiltinEmbedder) -> None:
    # Trap: one verdict for the whole record, so English figures carry Spanish through.
    record = shipped_record(toy_over(builtin, EmbedderDefect.ENGLISH_ONLY))
    (es,) = [f for f in record.languages if f.language == "es"]
    assert not es.accepted and es.true_positives == 0
    assert set(record.accepted()) <= {"en"}  # in English it is the builtin, and accepted


def test_the_guards_catch_a_negation_blind_embedder_even_with_a_forced_record(
    builtin: BuiltinEmbedder,
) -> None:
    # Trap: trusting similarity once a record is forced, so "cannot" passes as "can".
    toy = toy_over(builtin, EmbedderDefect.NEGATION_BLIND)
    fingerprint = asyncio.run(toy.open())
    pairs = separable()
    forced = build_similarity_record(
        pairs, label_set(pairs), fingerprint, minimums=default_minimums(), created_at=WHEN
    )
    similarity = similarity_of(
        forced, fingerprint, Embeddings(toy, fingerprint), record_sha256="0" * 64
    )
    check = asyncio.run(
        similarity_check(similarity, "You can pay online.", "You cannot pay online.", "en")
    )
    assert check.outcome == "failed" and check.guards


def test_the_builtin_is_not_blind_and_keeps_precision_in_en_and_es(
    builtin_record: SimilarityRecord,
) -> None:
    # Trap: an embedder refused for blindness or imprecision where it is only short of
    # recall, so its refusal reads as the wrong fault.
    for language in ("en", "es"):
        (figures,) = [f for f in builtin_record.languages if f.language == language]
        assert figures.threshold is not None and (figures.precision or 0) >= 0.95
        assert all(k.identical == 0 for k in figures.kinds if k.kind != "reworded"), figures
        assert all(k.passed == 0 for k in figures.kinds if k.kind in ("negation", "number"))


@given(
    st.lists(
        st.tuples(st.sampled_from([0.5, 0.6, 0.7, 0.8, 0.9, 0.95]), st.booleans(), st.booleans()),
        min_size=1,
        max_size=40,
    )
)
@example([(0.9, True, False)] * 20 + [(0.9, False, False)])  # a tie whose last pair differs
def test_the_threshold_passes_the_most_rewordings_any_precise_threshold_can(
    drawn: list[tuple[float, bool, bool]],
) -> None:
    # Trap: walking the scores one pair at a time, so within a tie the pair that comes last
    # decides whether the tie's score is tried, and a better threshold is missed.
    pairs = [
        pair(n, score, same=same, guards=("a number",) if guarded else ())
        for n, (score, same, guarded) in enumerate(drawn)
    ]
    best = 0
    for candidate in sorted({p.score for p in pairs}):
        passed = [p for p in pairs if passes(p, candidate)]
        true = sum(p.same for p in passed)
        if passed and true >= 0.95 * len(passed):
            best = max(best, true)
    threshold = choose_threshold(pairs, 0.95)
    passed = [p for p in pairs if passes(p, threshold)]
    assert sum(p.same for p in passed) == best
    assert not passed or sum(p.same for p in passed) >= 0.95 * len(passed)


def test_a_record_that_disagrees_with_itself_gates_nothing_even_when_never_read_from_a_file() -> (
    None
):
    # Trap: checking a record's figures only in the file reader, so a record built or edited
    # in memory (a caller's model_copy) lets a refused language gate.
    refused = record_of(separable()[:30] + [pair(30 + n, 0.95, same=False) for n in range(30)])
    (figures,) = refused.languages
    forged = refused.model_copy(
        update={"languages": (figures.model_copy(update={"accepted": True, "refused": None}),)}
    )
    similarity = similarity_of(forged, FINGERPRINT, None, record_sha256="0" * 64)
    assert similarity.thresholds == {} and "disagrees with itself" in (similarity.refused or "")


def test_a_record_made_under_other_guards_gates_nothing() -> None:
    # Trap: a threshold chosen while the guards failed some pairs, applied after the guards
    # changed (a word added or dropped), when those pairs would now be scored and passed.
    record = record_of(separable())
    stale = record.model_copy(update={"guards": "sha256:" + "0" * 64})
    similarity = similarity_of(stale, FINGERPRINT, None, record_sha256="0" * 64)
    assert similarity.thresholds == {} and "other guards" in (similarity.refused or "")
    assert similarity_of(record, FINGERPRINT, None, record_sha256="0" * 64).thresholds


def test_without_the_language_guard_no_record_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    # Trap: a missing py3langid skipping the language guard silently, so a record made with
    # it (or without it) lets an answer in another language pass on similarity alone.
    record = record_of(separable())
    assert similarity_of(record, FINGERPRINT, None, record_sha256="0" * 64).thresholds
    monkeypatch.setattr(guards, "_language_identifier", lambda: (None, "py3langid is missing"))
    assert guards.guards_digest() != record.guards
    for made in (record, record_of(separable())):
        similarity = similarity_of(made, FINGERPRINT, None, record_sha256="0" * 64)
        assert similarity.thresholds == {}
        assert "py3langid is missing" in (similarity.refused or ""), similarity.refused


def test_the_builtin_is_accepted_in_english_and_spanish(builtin_record: SimilarityRecord) -> None:
    # Trap: guards that let a one-slot swap or an answer in another language through, so
    # they score as high as rewordings and no threshold keeps precision with recall.
    accepted = builtin_record.accepted()
    assert {"en", "es"} <= set(accepted), [
        (f.language, f.refused) for f in builtin_record.languages
    ]
    for figures in builtin_record.languages:
        passed = {k.kind: k.passed for k in figures.kinds}
        assert passed["other_language"] == passed["negation"] == passed["number"] == 0, figures


def test_a_calibration_without_the_language_guard_says_so_in_its_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Trap: a table that reads as a healthy calibration when the language guard did not run,
    # so a reader learns only at run time that the record gates nothing.
    record = record_of(separable())
    assert not any("language guard" in line for line in summary_lines(record))
    monkeypatch.setattr(guards, "_language_identifier", lambda: (None, "py3langid is missing"))
    lines = summary_lines(record_of(separable()))
    assert "language guard: UNAVAILABLE (py3langid is missing): no run lets this record gate" in (
        lines
    )
    assert lines[3].split()[-1] == "guards" and lines[4].split()[-1] == "all", lines
