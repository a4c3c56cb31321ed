"""Trajectory score distributions: worked numbers per gate and per language, and their bounds."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.cases.model import GateName
from gauntlet.evidence.pack import build_pack
from gauntlet.evidence.scores import Distribution, distribution, gate_distributions
from gauntlet.gates.judgement import TrajectoryScores

from ... import evidence_fixtures as fx


def _scored(accuracy: float | None, faithfulness: float | None = None) -> TrajectoryScores:
    return TrajectoryScores(tool_accuracy=accuracy, faithfulness=faithfulness)


def test_an_even_count_takes_the_middle_two_for_its_median() -> None:
    assert distribution([1.0, 0.25, 1.0, 0.5]) == Distribution(
        measured=4, min=0.25, median=0.75, mean=0.6875, perfect=0.5
    )


def test_an_odd_count_is_rounded_to_four_places() -> None:
    assert distribution([0.0, 1 / 3, 1.0]) == Distribution(
        measured=3, min=0.0, median=0.3333, mean=0.4444, perfect=0.3333
    )


def test_no_values_have_no_distribution() -> None:
    assert distribution([]) is None


def test_a_score_just_short_of_one_is_not_perfect() -> None:
    figures = distribution([0.99995])
    assert figures is not None
    # Rounded for show, it reads 1.0; the share at 1.0 counts only what was 1.0 exactly.
    assert (figures.min, figures.perfect) == (1.0, 0.0)


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=40))
def test_the_figures_keep_their_order_and_bounds(values: list[float]) -> None:
    figures = distribution(values)
    assert figures is not None
    assert figures.measured == len(values)
    assert 0 <= figures.min <= figures.median <= round(max(values), 4)
    assert figures.min <= figures.mean <= round(max(values), 4)
    assert figures.perfect == round(values.count(1.0) / len(values), 4)
    assert figures.mean == round(statistics.fmean(values), 4)


def test_each_gate_is_summarised_over_its_asks_then_per_language() -> None:
    # en: the renewal asked twice (1.0, 1.0) and the payment once (0.4); es: 0.5 and 0.0, the
    # lookup's second ask unscored (its calls were not reported).
    results = fx.rescored(
        fx.trajectory(),
        {
            "trj-en-renew-permit": [_scored(1.0, 1.0), _scored(1.0, 0.5)],
            "trj-en-pay-ticket": [_scored(0.4)],
            "trj-es-renovar-permiso": [_scored(0.5, 0.0)],
            "trj-es-multa-y-permiso": [_scored(0.0, 1.0), None],
        },
    )
    overall, english, spanish = gate_distributions(results, GateName.TRAJECTORY)
    assert (overall.language, overall.asks) == (None, 6)
    assert overall.tool_accuracy == Distribution(
        measured=5, min=0.0, median=0.5, mean=0.58, perfect=0.4
    )
    assert overall.faithfulness == Distribution(
        measured=4, min=0.0, median=0.75, mean=0.625, perfect=0.5
    )
    assert (english.language, english.asks) == ("en", 3)
    assert english.tool_accuracy == Distribution(
        measured=3, min=0.4, median=1.0, mean=0.8, perfect=0.6667
    )
    assert english.faithfulness == Distribution(
        measured=2, min=0.5, median=0.75, mean=0.75, perfect=0.5
    )
    assert (spanish.language, spanish.asks) == ("es", 3)
    assert spanish.tool_accuracy == Distribution(
        measured=2, min=0.0, median=0.25, mean=0.25, perfect=0.0
    )
    assert spanish.faithfulness == Distribution(
        measured=2, min=0.0, median=0.5, mean=0.5, perfect=0.5
    )


def test_a_language_without_a_score_says_so_beside_one_with_it() -> None:
    results = fx.rescored(
        fx.trajectory(),
        {
            "trj-en-renew-permit": [_scored(1.0)],
            "trj-en-pay-ticket": [_scored(0.5)],
            "trj-es-renovar-permiso": [None],
            "trj-es-multa-y-permiso": [None],
        },
    )
    _, _, spanish = gate_distributions(results, GateName.TRAJECTORY)
    assert (spanish.asks, spanish.tool_accuracy, spanish.faithfulness) == (2, None, None)


@pytest.mark.parametrize("gate", [GateName.ADVERSARIAL, GateName.GOLDEN])
def test_a_gate_that_scored_nothing_has_no_rows(gate: GateName) -> None:
    # The adversarial case forbids calls: its ask has scores, but only where it departed.
    assert gate_distributions(fx.trajectory(), gate) == ()


def test_the_pack_carries_the_distributions_of_each_gate() -> None:
    pack = build_pack(fx.trajectory())
    scores = {gate.gate: gate.trajectory_scores for gate in pack.gates}
    assert scores[GateName.ADVERSARIAL] == ()
    overall = scores[GateName.TRAJECTORY][0]
    # The fixture: 1.0 and 0.5 in English, 1.0 and 2/3 in Spanish.
    assert overall.tool_accuracy == Distribution(
        measured=4, min=0.5, median=0.8333, mean=0.7917, perfect=0.5
    )
    assert all(gate.trajectory_scores == () for gate in build_pack(fx.classic()).gates)
