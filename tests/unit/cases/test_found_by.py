"""A frozen case's provenance (`found_by`) as the case loader reads it and words its errors."""

from __future__ import annotations

import pytest

from gauntlet.cases.loader import parse_suite
from gauntlet.errors import ConfigErrors

GOOD = (
    "persona: staff-impersonator, attacker: toy-attacker, seed: 0, breaking_turn: 1, "
    'found: "2026-12-05", target: riverbend-toy, detector: markers'
)


def _suite(found_by: str) -> str:
    return (
        "suite: s\ngate: adversarial\nversion: 1\nthreshold: 1.0\ncases:\n"
        "  - id: c1\n    language: en\n    prompt: hi\n    attack_type: prompt_leak\n"
        f"    must_not_contain: [X]\n    found_by: {found_by}\n"
    )


def _errors(found_by: str) -> list[str]:
    return _errors_of(_suite(found_by))


def _errors_of(text: str) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        parse_suite(text, "f.yaml")
    return [error.render() for error in caught.value.errors]


def test_a_case_with_its_provenance_loads_and_keeps_it() -> None:
    [case] = parse_suite(_suite("{" + GOOD + "}"), "f.yaml").cases
    assert case.found_by is not None
    assert (case.found_by.seed, case.found_by.found) == (0, "2026-12-05")


def test_an_unknown_key_in_a_nested_record_is_named_with_that_records_keys() -> None:
    # Trap: an unknown key inside `found_by` worded as one of the suite's, with the suite's
    # keys as the hint, sends the user to the wrong place to fix it.
    [typo] = _errors("{" + GOOD + ", fuond: x}")
    assert "cases[0].found_by.fuond: unknown key for a provenance" in typo
    assert "did you mean 'found'?" in typo
    [error] = _errors("{" + GOOD + ", colour: x}")
    assert "provenance keys are: persona, attacker, seed" in error
    assert "suite keys" not in error


def test_a_minimum_is_worded_as_the_keys_own_minimum() -> None:
    # Trap: every minimum worded "at least 1" tells a user that a seed of 0, which loads, is
    # wrong, and that -1 fails for the wrong reason.
    [error] = _errors("{" + GOOD.replace("seed: 0", "seed: -1") + "}")
    assert "found_by.seed: must be a whole number of at least 0, got -1" in error


@pytest.mark.parametrize("day", ["05/12/2026", "2026-13-01", "2026-02-30", "2026-1-5"])
def test_a_day_that_is_not_one_is_refused_and_worded_as_a_date(day: str) -> None:
    # Trap: a value refused by its pattern worded "must not be blank" (it is not blank), or a
    # 30th of February accepted because its digits fit the pattern.
    [error] = _errors("{" + GOOD.replace('"2026-12-05"', f'"{day}"') + "}")
    assert "found_by.found:" in error
    assert "blank" not in error
    assert "YYYY-MM-DD" in error


@pytest.mark.parametrize(("turn", "turns", "sends"), [(2, 1, "1 message"), (1, 2, "2 messages")])
def test_a_breaking_turn_that_is_not_the_cases_last_is_refused(
    turn: int, turns: int, sends: str
) -> None:
    # Trap: provenance saying the target broke at turn 2 of a one-message case puts a turn
    # in the pack that no replay asks; the breaking turn is the frozen case's last message.
    text = _suite("{" + GOOD.replace("breaking_turn: 1", f"breaking_turn: {turn}") + "}")
    if turns == 2:
        text = text.replace("    prompt: hi\n", "    turns: [{user: hi}, {user: again}]\n")
    [error] = _errors_of(text)
    assert f"cases[0].found_by.breaking_turn: {turn}, but the case sends {sends}" in error
    assert error.startswith("f.yaml:11:")
