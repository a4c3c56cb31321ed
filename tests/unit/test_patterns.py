"""The user's patterns: compiled by the engine that runs them, every run bounded in time."""

from __future__ import annotations

import re
import time

import pytest

from gauntlet.patterns import TIME_LIMIT, PatternError, PatternTimeout, shared_limit, user_pattern

RUNAWAY = "(a|aa)+$"
"""Backtracks through every split of a run of a's that cannot end the text."""
HOSTILE = "a" * 80 + "!"


def test_a_pattern_finds_fullmatches_and_groups_as_python_re_does() -> None:
    ids = user_pattern(r"\[(RB-\d+)\]", "citations.from_text")
    assert [match.group(1) for match in ids.finditer("see [RB-1] and [RB-22]")] == ["RB-1", "RB-22"]
    assert ids.groups == 1
    assert user_pattern("mon|tue", "f").fullmatch("tue")
    assert not user_pattern("mon|tue", "f").fullmatch("tues")
    assert user_pattern("a*", "f").matches_empty()
    assert not user_pattern("a+", "f").matches_empty()


def test_a_pattern_that_is_not_one_is_refused_saying_where_in_it() -> None:
    with pytest.raises(PatternError, match=r"^not a regular expression: missing \) at position 4$"):
        user_pattern("(mon", "f")


@pytest.mark.parametrize(
    "run",
    [
        lambda pattern: pattern.finditer(HOSTILE),
        lambda pattern: pattern.fullmatch(HOSTILE),
    ],
    ids=["finditer", "fullmatch"],
)
def test_every_run_of_a_users_pattern_stops_at_its_limit_and_raises(run: object) -> None:
    # Trap: an unbounded run holds the event loop, and a stopped one read as "no match" passes.
    pattern = user_pattern(RUNAWAY, "citations.from_text")
    started = time.monotonic()
    with pytest.raises(PatternTimeout) as caught:
        run(pattern)  # type: ignore[operator]
    assert time.monotonic() - started < TIME_LIMIT + 2
    assert (caught.value.field, caught.value.pattern, caught.value.limit) == (
        "citations.from_text",
        RUNAWAY,
        TIME_LIMIT,
    )
    assert str(caught.value).startswith(
        f"citations.from_text: the pattern `{RUNAWAY}` ran past its time limit (1 s "
    )


def test_runs_inside_a_shared_limit_spend_one_budget_and_an_inner_one_never_extends_it() -> None:
    # Trap: a limit per run lets many runs, each under it, add up to any length.
    pattern = user_pattern("(a|aa)+", "forbid_calls[0].arguments.q")
    started = time.monotonic()
    with pytest.raises(PatternTimeout) as caught, shared_limit(0.5):
        for _ in range(1000):
            with shared_limit(10):
                pattern.fullmatch("a" * 22 + "!")
    assert time.monotonic() - started < 0.5 + 2
    assert caught.value.limit == 0.5


def test_a_spent_shared_limit_refuses_the_next_run_at_once() -> None:
    pattern = user_pattern("a", "f")
    with shared_limit(0.01):
        time.sleep(0.02)
        with pytest.raises(PatternTimeout):
            pattern.fullmatch("a")


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("a{1000000000}", "a counted repeat above 1000"),
        ("(" * 500 + "a" + ")" * 500, "nested too deeply, or too large, to compile"),
        ("(?(DEFINE)(?<x>(?&x)))(?&x)", "not a regular expression"),
        ("(?r)abc", "not a regular expression of Python's syntax"),
    ],
)
def test_a_pattern_that_would_exhaust_the_engine_is_refused_worded(source: str, said: str) -> None:
    # Trap: only the engine's syntax error caught, so a pattern too large or too deep to
    # compile (or one calling itself, which runs out of memory, not time) ended in an
    # "internal error" or an out-of-memory kill instead of a located refusal.
    with pytest.raises(PatternError, match=re.escape(said)):
        user_pattern(source, "forbid_calls[0].arguments.q")


def test_a_counted_repeat_written_as_text_is_not_counted() -> None:
    assert user_pattern(r"\{5000\}", "f").fullmatch("{5000}")
