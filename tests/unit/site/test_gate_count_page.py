"""The built site counts the gates as the registry does (see tests/unit/test_gate_count.py)."""

from __future__ import annotations

import re
from pathlib import Path

from gauntlet.gates import GATE_SPECS
from gauntlet.words import number_word

from ..test_gate_count import stated_counts


def _text(page: Path) -> str:
    return re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))


def test_the_built_site_states_the_registrys_gate_count(built_site: Path) -> None:
    # Trap: the home page said "seven gates" and then "Five gates" while listing seven.
    counted = {page.name: stated_counts(_text(page)) for page in built_site.glob("*.html")}
    assert counted["index.html"], "the home page no longer says how many gates there are"
    assert counted["gates.html"], "the gates page no longer says how many gates there are"
    wrong = {
        name: [words for number, words in found if number != len(GATE_SPECS)]
        for name, found in counted.items()
    }
    assert {name: words for name, words in wrong.items() if words} == {}
    word = number_word(len(GATE_SPECS))
    assert f"{word.capitalize()} gates, each guarded" in _text(built_site / "index.html")
