"""An answer cut at `max_tokens`: its case's reason says so, and its outcome stays its own."""

from __future__ import annotations

import pytest

from gauntlet.run.results import Outcome, Trial
from gauntlet.run.tally import CUT_AT_MAX_TOKENS, decide_case


def _trial(outcome: Outcome, reason: str, finish_reason: str | None) -> Trial:
    return Trial(
        outcome=outcome,
        reason=reason,
        response=None,
        said_something=True,
        latency_ms=1.0,
        attempts=1,
        waited_s=0.0,
        finish_reason=finish_reason,
    )


@pytest.mark.parametrize("outcome", [Outcome.FAILED, Outcome.ERRORED, Outcome.UNJUDGED])
def test_a_case_whose_named_ask_was_cut_at_max_tokens_says_so_and_keeps_its_outcome(
    outcome: Outcome,
) -> None:
    # Trap: a cut answer read as the model's failure, with nothing pointing at `max_tokens`;
    # or the note turning the outcome it explains into another.
    decided = decide_case([_trial(outcome, "missing vinegar", "length")], 1, 1)
    assert decided == (outcome, f"missing vinegar; {CUT_AT_MAX_TOKENS}")


def test_the_note_follows_the_ask_the_reason_names_among_several() -> None:
    # Trap: a note taken from another ask than the one whose reason the case gives.
    trials = [
        _trial(Outcome.PASSED, "", "length"),
        _trial(Outcome.FAILED, "missing vinegar", "length"),
        _trial(Outcome.FAILED, "missing by hand", "stop"),
    ]
    assert decide_case(trials, 3, 3) == (
        Outcome.FAILED,
        f"passed 1/3 asks, needs 3; ask 2: missing vinegar; {CUT_AT_MAX_TOKENS}",
    )
    assert decide_case(trials[::-1], 3, 3)[1] == (
        "passed 1/3 asks, needs 3; ask 1: missing by hand"
    )


@pytest.mark.parametrize("finish_reason", [None, "stop", "content_filter", "LENGTH"])
def test_only_a_length_finish_adds_the_note(finish_reason: str | None) -> None:
    # Trap: every unexplained failure blamed on the token limit.
    assert decide_case([_trial(Outcome.FAILED, "wrong", finish_reason)], 1, 1) == (
        Outcome.FAILED,
        "wrong",
    )


def test_a_passed_case_cut_at_max_tokens_stays_passed_with_no_reason() -> None:
    # Trap: a pass given a reason, which every reader takes for a failure's.
    assert decide_case([_trial(Outcome.PASSED, "", "length")], 1, 1) == (Outcome.PASSED, "")
