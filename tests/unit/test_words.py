"""Words that agree with a count."""

from __future__ import annotations

import pytest

from gauntlet.words import noun, plural


@pytest.mark.parametrize(
    ("count", "expected"), [(0, "0 cases"), (1, "1 case"), (2, "2 cases"), (-1, "-1 cases")]
)
def test_a_regular_noun_adds_s_unless_there_is_one(count: int, expected: str) -> None:
    assert plural(count, "case") == expected


@pytest.mark.parametrize(("count", "expected"), [(1, "1 entry"), (0, "0 entries")])
def test_an_irregular_form_is_the_one_passed(count: int, expected: str) -> None:
    assert plural(count, "entry", "entries") == expected


def test_a_phrase_agrees_as_a_whole() -> None:
    assert plural(1, "case was", "cases were") == "1 case was"
    assert plural(4, "case was", "cases were") == "4 cases were"


def test_the_word_alone_is_given_without_its_count() -> None:
    assert noun(1, "its waiver is", "their waivers are") == "its waiver is"
    assert noun(2, "its waiver is", "their waivers are") == "their waivers are"
    assert noun(2, "run") == "runs"
