"""Agreement between a judge and people: Cohen's kappa, its interval, and position consistency."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.judge.agreement import (
    ONE_LABEL_ONLY,
    Label,
    Preference,
    agreement,
    position_consistency,
)


def pairs_of(
    both_pass: int = 0, both_fail: int = 0, judge_only_passes: int = 0, human_only_passes: int = 0
) -> list[tuple[Label, Label]]:
    """`(judge, human)` pairs from the four cells of the two-by-two table."""
    cells: list[tuple[tuple[Label, Label], int]] = [
        (("pass", "pass"), both_pass),
        (("fail", "fail"), both_fail),
        (("pass", "fail"), judge_only_passes),
        (("fail", "pass"), human_only_passes),
    ]
    return [pair for pair, count in cells for _ in range(count)]


labels = st.sampled_from(["pass", "fail"])
label_pairs = st.lists(st.tuples(labels, labels), min_size=1, max_size=80)
preferences = st.sampled_from(["A", "B", "tie"])
order_pairs = st.lists(st.tuples(preferences, preferences), min_size=1, max_size=40)
MIRROR: dict[Preference, Preference] = {"A": "B", "B": "A", "tie": "tie"}


# ---------------------------------------------------------------- agreement


def test_the_textbook_example_gives_kappa_0_4_with_its_interval() -> None:
    """Wikipedia's example: 50 items, 20 both yes, 15 both no, 5 and 10 disagreements.

    p_o = 35/50 = 0.7. The judge says yes 25/50 = 0.5, the person 30/50 = 0.6, so
    p_e = 0.5·0.6 + 0.5·0.4 = 0.5 and kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    SE = sqrt(0.7·0.3 / (50·0.5²)) = sqrt(0.21 / 12.5) = sqrt(0.0168) ≈ 0.12961.
    The interval is the Wilson interval of 35/50, z² ≈ 3.841459: centre (0.7 + 0.038415) /
    1.076829 ≈ 0.685730, half 1.959964·sqrt(0.0042 + 0.000384) / 1.076829 ≈ 0.123234, so
    [0.562496, 0.808964]; each end as kappa, (p - 0.5) / 0.5: ≈ [0.12499, 0.61793].
    """
    result = agreement(
        pairs_of(both_pass=20, both_fail=15, judge_only_passes=5, human_only_passes=10)
    )
    assert result.n == 50
    assert result.observed == pytest.approx(0.7)
    assert result.chance == pytest.approx(0.5)
    assert result.kappa == pytest.approx(0.4)
    assert result.standard_error == pytest.approx(0.1296148, abs=1e-6)
    assert result.low == pytest.approx(0.12499, abs=1e-5)
    assert result.high == pytest.approx(0.61793, abs=1e-5)
    assert result.reason is None


def test_perfect_agreement_with_both_labels_present_is_kappa_1() -> None:
    """p_o = 1, p_e = 0.6·0.6 + 0.4·0.4 = 0.52, kappa = 0.48 / 0.48 = 1; SE is 0 at p_o = 1.

    The interval does not collapse: the Wilson interval of 10/10 is [0.722465, 1] (centre
    1.192073 / 1.384146 ≈ 0.861232, half 0.192073 / 1.384146 ≈ 0.138767), and its low end as
    kappa is (0.722465 - 0.52) / 0.48 ≈ 0.42180: ten items say little.
    """
    result = agreement(pairs_of(both_pass=6, both_fail=4))
    assert result.observed == 1.0
    assert result.chance == pytest.approx(0.52)
    assert result.kappa == 1.0
    assert result.standard_error == 0.0
    assert result.low == pytest.approx(0.42180, abs=1e-5)
    assert result.high == 1.0


def test_a_judge_that_always_passes_scores_kappa_0_on_mixed_labels() -> None:
    """30 human passes, 20 fails, the judge passes all 50.

    p_o = 30/50 = 0.6; the judge passes at 1, the person at 0.6: p_e = 1·0.6 + 0·0.4 = 0.6,
    so kappa = 0 / 0.4 = 0, though it agrees on 60% of items.
    SE = sqrt(0.24 / (50·0.16)) = sqrt(0.03) ≈ 0.17321. The Wilson interval of 30/50 is
    ≈ [0.461815, 0.723917] (centre 0.638415 / 1.076829 ≈ 0.592866, half
    1.959964·sqrt(0.0048 + 0.000384) / 1.076829 ≈ 0.131051); as kappa, (p - 0.6) / 0.4:
    ≈ [-0.34546, 0.30979].
    """
    result = agreement(pairs_of(both_pass=30, judge_only_passes=20))
    assert result.observed == pytest.approx(0.6)
    assert result.chance == pytest.approx(0.6)
    assert result.kappa == 0.0
    assert result.standard_error == pytest.approx(math.sqrt(0.03))
    assert result.low == pytest.approx(-0.34546, abs=1e-5)
    assert result.high == pytest.approx(0.30979, abs=1e-5)


@pytest.mark.parametrize("label", ["pass", "fail"])
def test_kappa_is_undefined_not_1_when_every_label_is_the_same(label: Label) -> None:
    result = agreement([(label, label)] * 40)
    assert result.observed == 1.0
    assert result.chance == 1.0
    assert result.kappa is None
    assert result.standard_error is None
    assert (result.low, result.high) == (None, None)
    assert result.reason == ONE_LABEL_ONLY
    assert "chance explains all agreement" in ONE_LABEL_ONLY


def test_a_judge_that_always_disagrees_with_one_label_people_scores_kappa_0() -> None:
    """The judge passes all, people fail all: p_o = 0, p_e = 1·0 + 0·1 = 0, kappa = 0."""
    result = agreement(pairs_of(judge_only_passes=10))
    assert (result.observed, result.chance, result.kappa) == (0.0, 0.0, 0.0)
    assert result.reason is None


def test_no_pairs_is_an_error_that_says_so() -> None:
    with pytest.raises(ValueError, match="at least one labelled pair"):
        agreement([])


def test_a_label_other_than_pass_or_fail_is_an_error() -> None:
    with pytest.raises(ValueError, match="'PASS'"):
        agreement([("pass", "PASS")])  # type: ignore[list-item]


@given(label_pairs)
def test_observed_and_chance_agreement_are_shares(pairs: list[tuple[Label, Label]]) -> None:
    result = agreement(pairs)
    assert result.n == len(pairs)
    assert 0.0 <= result.observed <= 1.0
    assert 0.0 <= result.chance <= 1.0


@given(label_pairs)
def test_kappa_is_undefined_exactly_when_every_label_is_the_same(
    pairs: list[tuple[Label, Label]],
) -> None:
    one_label_only = len({label for pair in pairs for label in pair}) == 1
    result = agreement(pairs)
    assert (result.kappa is None) == one_label_only
    assert (result.reason is None) != one_label_only


@given(label_pairs)
def test_kappa_lies_inside_its_interval_inside_minus_1_to_1(
    pairs: list[tuple[Label, Label]],
) -> None:
    result = agreement(pairs)
    if result.kappa is None:
        return
    assert result.low is not None and result.high is not None
    assert -1.0 <= result.low <= result.kappa <= result.high <= 1.0


@given(label_pairs)
def test_swapping_the_two_raters_leaves_kappa_unchanged(pairs: list[tuple[Label, Label]]) -> None:
    forward = agreement(pairs)
    swapped = agreement([(human, judge) for judge, human in pairs])
    assert swapped.observed == forward.observed
    assert swapped.chance == pytest.approx(forward.chance)
    if forward.kappa is None:
        assert swapped.kappa is None
    else:
        assert swapped.kappa == pytest.approx(forward.kappa)
        assert swapped.low == pytest.approx(forward.low)
        assert swapped.high == pytest.approx(forward.high)


# ---------------------------------------------------------------- position consistency


@pytest.mark.parametrize(
    ("verdicts", "share"),
    [
        ([("A", "B")], 1.0),  # the first text both times, the swap undone
        ([("B", "A")], 1.0),
        ([("tie", "tie")], 1.0),
        ([("A", "A")], 0.0),  # whichever text came first
        ([("B", "B")], 0.0),  # whichever text came second
        ([("tie", "A")], 0.0),
        ([("A", "B"), ("A", "A"), ("tie", "tie"), ("B", "tie")], 0.5),
    ],
)
def test_position_consistency_counts_items_whose_two_orders_agree_once_unswapped(
    verdicts: list[tuple[Preference, Preference]], share: float
) -> None:
    assert position_consistency(verdicts) == share


def test_a_judge_that_prefers_the_first_text_is_consistent_on_no_item() -> None:
    assert position_consistency([("A", "A")] * 25) == 0.0


def test_position_consistency_of_no_items_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one item"):
        position_consistency([])


def test_a_verdict_other_than_a_b_or_tie_is_an_error() -> None:
    with pytest.raises(ValueError, match="'first'"):
        position_consistency([("A", "first")])  # type: ignore[list-item]


@given(st.lists(preferences, min_size=1, max_size=40))
def test_a_judge_blind_to_order_is_fully_consistent(firsts: list[Preference]) -> None:
    assert position_consistency([(first, MIRROR[first]) for first in firsts]) == 1.0


@given(order_pairs)
def test_position_consistency_is_a_share_unchanged_by_which_order_came_first(
    verdicts: list[tuple[Preference, Preference]],
) -> None:
    share = position_consistency(verdicts)
    assert 0.0 <= share <= 1.0
    assert position_consistency([(second, first) for first, second in verdicts]) == share


@given(order_pairs, order_pairs)
def test_position_consistency_of_two_sets_is_their_weighted_mean(
    left: list[tuple[Preference, Preference]], right: list[tuple[Preference, Preference]]
) -> None:
    together = position_consistency(left + right) * (len(left) + len(right))
    apart = position_consistency(left) * len(left) + position_consistency(right) * len(right)
    assert together == pytest.approx(apart)
