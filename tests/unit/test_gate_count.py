"""One count of the gates: every document that states how many there are states the registry's.

The count is `len(GATE_SPECS)`. The site renders it from the registry; the Markdown documents
are checked against it here, so adding or removing a gate fails this test until every sentence
that counts the gates is rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gauntlet.gates import GATE_SPECS
from gauntlet.words import NUMBER_WORDS, number_word

ROOT = Path(__file__).resolve().parents[2]

COUNT = r"(?P<count>\d+|" + "|".join(NUMBER_WORDS) + r")"
GATES_COUNTED = re.compile(
    rf"(?<![-:./])\b{COUNT}(?:[\s-]+(?:built-in|merge-blocking|distinct|quality|safety))?"
    r"[\s-]+gates\b(?!:)",
    re.IGNORECASE,
)
"""A count next to the word "gates": `seven gates`, `5 gates`, `Five built-in gates`."""
ALL_COUNTED = re.compile(rf"\|\s*all {COUNT}\s*\|", re.IGNORECASE)
"""A table cell that says every gate by count: `| all seven |`."""
LISTED = re.compile(r"\s*\((?P<names>[a-z_]+(?:,\s+[a-z_]+)+)\)")
"""The gates named after their count: `seven gates (grounding, adversarial, ...)`."""
NOT_A_TOTAL = re.compile(r"\b\d+ gates? (?:failed|passed|missed)\b")
"""A run's own tally (`2 gates failed: ...`), which counts a run's gates, not the registry's."""


def stated_counts(text: str) -> list[tuple[int, str]]:
    """Each gate count the text states, with the words that state it."""
    found = []
    for pattern in (GATES_COUNTED, ALL_COUNTED):
        for match in pattern.finditer(text):
            if NOT_A_TOTAL.match(text, match.start()):
                continue
            word = match["count"].lower()
            number = int(word) if word.isdigit() else NUMBER_WORDS.index(word)
            found.append((number, match[0]))
    return found


def listed_names(text: str) -> list[list[str]]:
    """The gates each counted list names, as `N gates (a, b, ...)` writes them."""
    return [
        re.split(r",\s+", listed["names"])
        for match in GATES_COUNTED.finditer(text)
        if (listed := LISTED.match(text, match.end()))
    ]


def documents() -> list[Path]:
    """Every document a reader meets: the root's Markdown, docs/, the site's templates."""
    paths = [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md")]
    paths += (ROOT / "src" / "gauntlet" / "site" / "templates").glob("*.j2")
    paths += [ROOT / "pyproject.toml", ROOT / "action.yml"]
    return sorted(path for path in paths if path.name != "CHANGELOG.md")


def test_the_counter_finds_every_way_of_stating_a_count() -> None:
    # Trap: a checker whose pattern misses a spelling passes every document it cannot read.
    text = (
        "through five gates (a, b), Seven gates, 5 gates, six built-in gates, "
        "one of eight gates | all seven | and 2 gates failed: grounding.\n"
        "    expires: 2027-01-15\n    gates: [grounding]"
    )
    assert stated_counts(text) == [
        (5, "five gates"),
        (7, "Seven gates"),
        (5, "5 gates"),
        (6, "six built-in gates"),
        (8, "eight gates"),
        (7, "| all seven |"),
    ]


def test_a_counted_list_is_read_name_by_name() -> None:
    # Trap: "seven gates (grounding, refusal)" has the right number and the wrong gates.
    text = "through seven gates (grounding,\nrefusal), and five gates (a, b_c)"
    assert listed_names(text) == [["grounding", "refusal"], ["a", "b_c"]]


@pytest.mark.parametrize("path", documents(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_document_states_the_registrys_gate_count(path: Path) -> None:
    # Trap: the README said five gates and the site's home page "seven" and then "Five gates"
    # while listing seven, because each sentence was typed rather than counted.
    text = path.read_text(encoding="utf-8")
    wrong = [words for number, words in stated_counts(text) if number != len(GATE_SPECS)]
    assert wrong == [], (
        f"{path.name} counts the gates as {wrong}; the registry has {len(GATE_SPECS)}"
    )
    names = [spec.name.value for spec in GATE_SPECS.values()]
    assert [listed for listed in listed_names(text) if listed != names] == []


def test_the_site_templates_count_the_gates_from_the_registry() -> None:
    # Trap: a template that types "seven" is right only until a gate is added.
    templates = (ROOT / "src" / "gauntlet" / "site" / "templates").glob("*.j2")
    typed = {
        path.name: stated_counts(path.read_text(encoding="utf-8"))
        for path in templates
        if stated_counts(path.read_text(encoding="utf-8"))
    }
    assert typed == {}


def test_number_words_are_words_up_to_twelve_and_digits_after() -> None:
    assert [number_word(n) for n in (0, 1, 5, 7, 12, 13)] == [
        "zero",
        "one",
        "five",
        "seven",
        "twelve",
        "13",
    ]
