"""docs/explore.md's `## Persona files` says what the persona models and the library are."""

from __future__ import annotations

from pathlib import Path

from gauntlet.cases.persona import Persona, PersonaGoal, PersonaSide, builtin_personas

ROOT = Path(__file__).resolve().parents[2]
SECTION = (
    (ROOT / "docs" / "explore.md")
    .read_text(encoding="utf-8")
    .split("## Persona files\n", 1)[1]
    .split("\n## ", 1)[0]
)


def _first_cells(header: str) -> list[str]:
    """The first cell of each row of the table whose header row starts `header`."""
    table = SECTION.split(header, 1)[1].split("\n\n", 1)[0]
    return [row.split("|")[1].strip().strip("`") for row in table.splitlines()[2:]]


def test_every_persona_key_is_documented_and_no_other() -> None:
    # Trap: a key added to the model (or renamed) that the format table never mentions, or
    # a documented key the loader refuses as unknown.
    keys = {
        *Persona.model_fields,
        *(f"goal.{key}" for key in PersonaGoal.model_fields),
        *(f"languages.<tag>.{key}" for key in PersonaSide.model_fields),
    }
    assert set(_first_cells("| key | required |")) == keys


def test_the_library_table_is_the_built_in_library() -> None:
    # Trap: a persona added to personas/ (or its turns changed) that the table never shows.
    rows = {
        cells[1].strip().strip("`"): (cells[3].strip(), cells[4].strip())
        for cells in (
            row.split("|")
            for row in SECTION.split("| id | goal |", 1)[1].splitlines()[2:]
            if row.startswith("| `")
        )
    }
    assert rows == {
        persona.id: (", ".join(persona.languages), str(persona.max_turns))
        for persona in builtin_personas()
    }
