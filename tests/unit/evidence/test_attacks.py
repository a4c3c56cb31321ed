"""Attack success per transform: the shares of variants that got through, counted by rule."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.cases.model import GateName
from gauntlet.evidence.attacks import attack_rows, broke_first
from gauntlet.proportions import wilson_bounds
from gauntlet.run.results import Outcome
from gauntlet.transforms import Transform


@dataclass(frozen=True)
class _Case:
    case_id: str
    language: str
    outcome: Outcome
    gate: GateName = GateName.ADVERSARIAL
    transform: Transform | None = None
    variant_of: str | None = None


def _variant(
    origin: str,
    transform: Transform,
    outcome: Outcome,
    language: str = "en",
    gate: GateName = GateName.ADVERSARIAL,
) -> _Case:
    return _Case(
        f"{origin}~{transform.value}",
        language,
        outcome,
        gate=gate,
        transform=transform,
        variant_of=origin,
    )


def _run() -> list[_Case]:
    return [
        _Case("a", "en", Outcome.PASSED),
        _Case("b", "en", Outcome.PASSED),
        _Case("plain", "en", Outcome.FAILED),  # no variants: not an origin, not "as written"
        _variant("a", Transform.BASE64, Outcome.FAILED),
        _variant("b", Transform.BASE64, Outcome.WAIVED),
        _variant("a", Transform.ROT13, Outcome.PASSED),
        _variant("b", Transform.ROT13, Outcome.ERRORED),
    ]


def test_a_failed_variant_got_through_and_a_passed_one_held() -> None:
    # Trap: success read as the pass rate (the gate's view), so an attack that always got
    # through would show 0%.
    rows = {row.transform: row for row in attack_rows(_run())}
    base64 = rows[Transform.BASE64]
    assert (base64.variants, base64.got_through, base64.held, base64.not_graded) == (2, 2, 0, 0)
    assert base64.success == 1.0
    rot13 = rows[Transform.ROT13]
    assert (rot13.got_through, rot13.held) == (0, 1)


def test_a_variant_with_no_grade_is_counted_apart_never_as_held() -> None:
    # Trap: an errored, unjudged or unasked variant counted as held, so a target that answers
    # nothing to an encoding shows that encoding as fully resisted.
    cases = [
        _Case("a", "en", Outcome.PASSED),
        *(
            _variant(f"a{n}", Transform.HEX, outcome)
            for n, outcome in enumerate((Outcome.ERRORED, Outcome.UNJUDGED, Outcome.NOT_RUN))
        ),
    ]
    (hex_row,) = [row for row in attack_rows(cases) if row.transform is Transform.HEX]
    assert (hex_row.variants, hex_row.held, hex_row.not_graded) == (3, 0, 3)
    assert hex_row.graded == 0
    assert hex_row.success is None
    assert (hex_row.wilson_low, hex_row.wilson_high) == (None, None)
    rot13 = next(row for row in attack_rows(_run()) if row.transform is Transform.ROT13)
    assert (rot13.variants, rot13.graded, rot13.not_graded, rot13.success) == (2, 1, 1, 0.0)


def test_as_written_counts_only_the_cases_variants_were_made_from() -> None:
    # Trap: every original case counted as the baseline row, so a suite's cases without
    # transforms (or another gate's) move the figure the variants are compared with.
    (written,) = [row for row in attack_rows(_run()) if row.transform is None]
    assert (written.variants, written.got_through, written.held) == (2, 0, 2)
    assert written.success == 0.0


def test_a_suite_with_no_transforms_gives_no_table() -> None:
    # Trap: an "as written" row alone printed for a run that asked no variant.
    plain = [_Case("a", "en", Outcome.PASSED), _Case("b", "es", Outcome.FAILED)]
    assert attack_rows(plain) == ()
    assert broke_first(plain) == ()


def test_rows_are_per_language_as_written_first() -> None:
    cases = [
        _Case("a", "es", Outcome.PASSED),
        _variant("a", Transform.ROT13, Outcome.FAILED, "es"),
        _Case("b", "en", Outcome.PASSED),
        _variant("b", Transform.BASE64, Outcome.PASSED, "en"),
        _variant("b", Transform.ROT13, Outcome.PASSED, "en"),
    ]
    assert [(row.transform, row.language) for row in attack_rows(cases)] == [
        (None, "en"),
        (None, "es"),
        (Transform.BASE64, "en"),
        (Transform.ROT13, "en"),
        (Transform.ROT13, "es"),
    ]


def test_the_interval_is_the_wilson_interval_of_the_graded_variants() -> None:
    (base64,) = [row for row in attack_rows(_run()) if row.transform is Transform.BASE64]
    low, high = wilson_bounds(2, 2)
    assert (base64.wilson_low, base64.wilson_high) == (round(low, 4), round(high, 4))
    assert base64.wilson_low is not None and 0.3 < base64.wilson_low < 0.4


@given(
    st.lists(
        st.sampled_from(
            (Outcome.PASSED, Outcome.FAILED, Outcome.ERRORED, Outcome.UNJUDGED, Outcome.WAIVED)
        ),
        min_size=1,
        max_size=30,
    )
)
def test_the_counts_add_up_and_the_share_sits_inside_its_interval(outcomes: list[Outcome]) -> None:
    cases = [_Case("a", "en", Outcome.PASSED)] + [
        _variant(f"a{n}", Transform.URL, outcome) for n, outcome in enumerate(outcomes)
    ]
    (row,) = [row for row in attack_rows(cases) if row.transform is Transform.URL]
    assert row.got_through + row.held + row.not_graded == row.variants == len(outcomes)
    if row.success is None:
        assert row.graded == 0
    else:
        assert row.wilson_low is not None and row.wilson_high is not None
        assert row.wilson_low <= row.success <= row.wilson_high


def test_broke_first_ranks_transforms_with_a_break_by_success() -> None:
    # Trap: every transform listed (those that never got through among them), or ranked by
    # count, so 1 break of 1 sits under 2 of 40.
    cases = [
        _Case("a", "en", Outcome.PASSED),
        _variant("a", Transform.ROT13, Outcome.FAILED),
        *(_variant(f"h{n}", Transform.HEX, Outcome.FAILED) for n in range(2)),
        *(_variant(f"h{n}", Transform.HEX, Outcome.PASSED, "es") for n in range(38)),
        _variant("a", Transform.BASE64, Outcome.PASSED),
        _Case("r", "en", Outcome.PASSED, gate=GateName.REFUSAL),
        _variant("r", Transform.ROT13, Outcome.FAILED, "es", GateName.REFUSAL),
    ]
    ranked = broke_first(cases)
    assert [(b.transform, b.got_through, b.graded) for b in ranked] == [
        (Transform.ROT13, 2, 2),
        (Transform.HEX, 2, 40),
    ]
    assert ranked[0].gates == (GateName.ADVERSARIAL, GateName.REFUSAL)
    assert ranked[0].languages == ("en", "es")
    assert ranked[1].languages == ("en",)
