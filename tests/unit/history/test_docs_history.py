"""docs/history.md documents the schema the store makes: every table, column and version."""

from __future__ import annotations

import re
from pathlib import Path

from gauntlet.history.store import (
    APPLICATION_ID,
    HISTORY_SCHEMA_VERSION,
    MIGRATIONS,
    check_history,
    open_history,
)

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
_TABLE = re.compile(r"^### `(?P<name>[a-z_]+)`\n(?P<body>.*?)(?=^#)", re.MULTILINE | re.DOTALL)
_ROW = re.compile(r"^\| `(?P<column>[a-z_]+)` \| (?P<type>[a-z]+) \|", re.MULTILINE)


def documented() -> dict[str, list[tuple[str, str]]]:
    """Each table the doc describes, with its columns and their types, in order."""
    return {
        table["name"]: [(row["column"], row["type"]) for row in _ROW.finditer(table["body"])]
        for table in _TABLE.finditer(DOC)
    }


def made(tmp_path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each table a new history holds, with its columns and declared types, in order."""
    path = tmp_path / "history.sqlite"
    path.touch()
    check_history(path)
    with open_history(path) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
            )
        ]
        return {
            table: [
                (column, kind.lower())
                for _, column, kind, *_ in connection.execute(f"PRAGMA table_info({table})")
            ]
            for table in tables
        }


def test_every_table_and_column_is_documented_and_no_other(tmp_path: Path) -> None:
    assert documented() == made(tmp_path)


def test_the_documented_check_finds_a_missing_column(tmp_path: Path) -> None:
    schema = made(tmp_path)
    schema["runs"] = schema["runs"][:-1]
    assert documented() != schema


def test_the_doc_states_the_marker_the_version_and_each_migration() -> None:
    assert f"`{APPLICATION_ID}` (`{APPLICATION_ID:#X}`".replace("0X", "0x") in DOC
    assert f"now **{HISTORY_SCHEMA_VERSION}**" in DOC
    versions = re.findall(r"^\| (\d+) \| ", DOC, re.MULTILINE)
    assert versions == [str(number) for number in range(1, len(MIGRATIONS) + 1)]
