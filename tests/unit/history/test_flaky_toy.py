"""The history demo's flaky toy: drifts on the share of asks it is told, the same every run."""

from __future__ import annotations

import pytest
from scripts.flaky_toy import NAME, FlakyToy, make_target

from gauntlet.targets.toy import ToyDefect, make_toy

PROMPT = "What are the library hours?"


def test_no_drift_answers_as_the_toy_and_full_drift_as_the_drifting_toy() -> None:
    healthy, drifting = make_toy(), make_toy([ToyDefect.ANSWER_DRIFT])
    assert FlakyToy(0, "1").ask(PROMPT, "en") == healthy.ask(PROMPT, "en")
    assert FlakyToy(1, "1").ask(PROMPT, "en") == drifting.ask(PROMPT, "en")
    assert healthy.ask(PROMPT, "en") != drifting.ask(PROMPT, "en")


def test_the_draws_depend_on_the_seed_and_the_asks_count_not_on_the_order() -> None:
    def drawn(seed: str) -> list[bool]:
        toy = FlakyToy(0.5, seed)
        return [toy._drifts(PROMPT, "en") for _ in range(40)]

    assert drawn("1") == drawn("1")
    assert drawn("1") != drawn("2")
    assert 5 < sum(drawn("1")) < 35


def test_the_factory_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAUNTLET_DEMO_DRIFT", "1")
    toy = make_target()
    assert toy.name == NAME
    assert toy.ask(PROMPT, "en") == make_toy([ToyDefect.ANSWER_DRIFT]).ask(PROMPT, "en")
    monkeypatch.setenv("GAUNTLET_DEMO_DRIFT", "1.5")
    with pytest.raises(ValueError, match="expected a share from 0 to 1"):
        make_target()
