"""The gate inventory: suites and cases per gate and language, counted from what was loaded.

`gauntlet inventory --update docs/gates.md` rewrites the block between the inventory markers,
and a test fails when that block is not what the harness loads, so the counts cannot rot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gauntlet import markdown_table
from gauntlet.cases.loader import SuiteSet
from gauntlet.errors import UsageError
from gauntlet.files import (
    RefusedFileError,
    SymlinkRefusedError,
    read_regular_file,
    write_atomically,
)
from gauntlet.languages import in_column_order

START = "<!-- gauntlet:inventory:start -->"
END = "<!-- gauntlet:inventory:end -->"
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
"""The largest file `--update` rewrites: a README, not a data file."""


def inventory_rows(suites: SuiteSet) -> list[dict[str, Any]]:
    """One row per suite: gate, suite, version, threshold, cases per language, total."""
    return [
        {
            "gate": loaded.suite.gate.value,
            "suite": loaded.suite.suite,
            "version": loaded.suite.version,
            "threshold": loaded.suite.threshold,
            "languages": _per_language(loaded.cases),
            "total": len(loaded.cases),
        }
        for loaded in suites.suites
    ]


def languages_of(suites: SuiteSet) -> list[str]:
    """Every language in the loaded cases, in column order (`gauntlet.languages.PEERS` first)."""
    return in_column_order({case.language for loaded in suites.suites for case in loaded.cases})


def render_inventory_json(suites: SuiteSet) -> str:
    """The inventory as JSON: the rows, the languages and the totals."""
    rows = inventory_rows(suites)
    languages = languages_of(suites)
    document = {
        "languages": languages,
        "suites": rows,
        "totals": {
            "languages": {
                lang: sum(r["languages"].get(lang, 0) for r in rows) for lang in languages
            },
            "total": sum(r["total"] for r in rows),
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_inventory_markdown(suites: SuiteSet) -> str:
    """The inventory as a Markdown table with a total row."""
    rows = inventory_rows(suites)
    languages = languages_of(suites)
    header = ["Gate", "Suite", "Threshold", *languages, "Total"]
    lines = markdown_table.head(*header)
    for row in rows:
        cells = [
            row["gate"],
            f"`{row['suite']}`",
            f"{row['threshold']:g}",
            *(str(row["languages"].get(lang, 0)) for lang in languages),
            str(row["total"]),
        ]
        lines.append(markdown_table.row(*cells))
    totals = [
        "**all**",
        "",
        "",
        *(str(sum(r["languages"].get(lang, 0) for r in rows)) for lang in languages),
        str(sum(r["total"] for r in rows)),
    ]
    lines.append(markdown_table.row(*totals))
    return "\n".join(lines) + "\n"


def replace_block(document: str, block: str, *, source: str) -> str:
    """`document` with the text between the inventory markers replaced by `block`.

    Raises:
        UsageError: the markers are missing, repeated or out of order.
    """
    if document.count(START) != 1 or document.count(END) != 1:
        raise UsageError(
            f"{source}: needs exactly one {START} and one {END} line around the inventory"
        )
    start, end = document.index(START), document.index(END)
    if end < start:
        raise UsageError(f"{source}: {END} comes before {START}")
    return f"{document[:start]}{START}\n{block}{document[end:]}"


def update_file(path: Path, block: str) -> bool:
    """Rewrite the inventory block of `path`; True if the file changed.

    The file is rewritten whole and atomically. A symlink at `path` is refused rather than
    replaced by a copy of what it points to, and so is anything but a regular file of at most
    `MAX_DOCUMENT_BYTES`.

    Raises:
        UsageError: the file is a symlink or not a regular file, is too large, cannot be read
            or written, is not UTF-8, or has no markers.
    """
    try:
        if path.is_symlink():
            raise SymlinkRefusedError(path)
        raw = read_regular_file(path, limit=MAX_DOCUMENT_BYTES, what="a document to update")
    except RefusedFileError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        before = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 (byte {exc.start})") from None
    after = replace_block(before, block, source=str(path))
    if after != before:
        try:
            write_atomically(path, after, mode=0o666)
        except OSError as exc:
            raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    return after != before


def _per_language(cases: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.language] = counts.get(case.language, 0) + 1
    return {language: counts[language] for language in in_column_order(counts)}
