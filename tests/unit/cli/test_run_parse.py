"""`gauntlet run` parses its flags into one target choice, built and recorded by its kind."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gauntlet.cli.run_command import (
    CallableChoice,
    FileChoice,
    TargetChoice,
    TargetRequest,
    ToyChoice,
    UrlChoice,
    parse_target,
)
from gauntlet.errors import UsageError
from gauntlet.targets.toy.defects import ToyDefect

NOTHING = TargetRequest(
    target_file=None,
    http_url=None,
    callable_spec=None,
    toy=False,
    toy_defects=None,
    header=None,
    timeout=None,
    retries=None,
)

GIVEN: dict[str, tuple[dict[str, object], type[TargetChoice]]] = {
    "--target": ({"target_file": Path("t.yaml")}, FileChoice),
    "--http-url": ({"http_url": "http://127.0.0.1:9/ask"}, UrlChoice),
    "--callable": ({"callable_spec": "m:f"}, CallableChoice),
    "--toy": ({"toy": True}, ToyChoice),
    "--toy-defect": ({"toy_defects": [ToyDefect.DROP_CITATIONS]}, ToyChoice),
}


@pytest.mark.parametrize("flag", sorted(GIVEN))
def test_each_target_flag_parses_to_its_own_choice(flag: str) -> None:
    # Trap: one choice type for all four, whose builder tests the flags again in its own
    # order, so a target flag could be parsed as one kind and built as another.
    fields, kind = GIVEN[flag]
    choice = parse_target(dataclasses.replace(NOTHING, **fields), None)  # type: ignore[arg-type]
    assert type(choice) is kind


def test_no_target_flag_is_the_toy_unless_a_target_is_needed() -> None:
    # Trap: a run of the user's own cases silently scored against the toy.
    assert parse_target(NOTHING, None) == ToyChoice(())
    with pytest.raises(UsageError, match="--cases needs a target"):
        parse_target(NOTHING, "--cases")


@pytest.mark.parametrize(("first", "second"), [("--target", "--callable"), ("--http-url", "--toy")])
def test_two_target_flags_are_refused_naming_both(first: str, second: str) -> None:
    # Trap: the first flag in the builder's order winning silently over the other.
    fields = {**GIVEN[first][0], **GIVEN[second][0]}
    with pytest.raises(UsageError, match=f"choose one target, not {first} and {second}"):
        parse_target(dataclasses.replace(NOTHING, **fields), None)  # type: ignore[arg-type]
