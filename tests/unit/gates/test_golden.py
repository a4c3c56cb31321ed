"""The golden gate: the curated answer, whitespace collapsed, and nothing looser."""

from __future__ import annotations

from gauntlet.gates.golden import judge
from gauntlet.gates.judgement import failed, passed
from tests.unit.gates.builders import ANSWER, golden_case, response


def test_the_expected_answer_passes() -> None:
    # Trap: the baseline; without it the failures below could have another cause.
    verdict = judge(golden_case(), response(text=ANSWER))
    assert verdict == passed()


def test_whitespace_differences_pass() -> None:
    # Trap: a line break or trailing newline failing an otherwise exact answer.
    verdict = judge(golden_case(), response(text="  The library\nopens at  9 a.m.\n"))
    assert verdict == passed()


def test_a_different_answer_fails_showing_both() -> None:
    # Trap: a near miss (case, punctuation) passing a check meant to be exact.
    verdict = judge(golden_case(), response(text="The library opens at 9 A.M."))
    assert verdict == failed(
        "answer differs from the curated one: "
        "expected 'The library opens at 9 a.m.', observed 'The library opens at 9 A.M.'"
    )


def test_a_long_answer_is_shown_truncated() -> None:
    # Trap: a runaway answer flooding the report.
    verdict = judge(golden_case(), response(text="x" * 500))
    assert verdict == failed(
        "answer differs from the curated one: "
        f"expected 'The library opens at 9 a.m.', observed {'x' * 200!r}... (500 characters)"
    )


def test_a_refusal_fails_even_with_the_expected_text() -> None:
    # Trap: the right words under a refusal flag counted as an answer.
    verdict = judge(golden_case(), response(text=ANSWER, refused=True))
    assert verdict == failed("refused a question that has a curated answer")


def test_a_refusal_with_other_text_reports_both() -> None:
    # Trap: stopping at the first problem hides the others from the reviewer.
    verdict = judge(golden_case(), response(text="No.", refused=True))
    assert verdict == failed(
        "refused a question that has a curated answer",
        "answer differs from the curated one: expected 'The library opens at 9 a.m.', "
        "observed 'No.'",
    )


def test_an_unreadable_answer_fails_even_when_it_is_the_expected_one() -> None:
    # Trap: a golden answer of "..." that an empty-handed target can match.
    verdict = judge(golden_case(expected="..."), response(text="..."))
    assert verdict == failed("unreadable answer: '...'")
