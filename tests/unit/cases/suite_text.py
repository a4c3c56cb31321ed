"""Builders for case-file text in tests."""

from __future__ import annotations


def grounding_suite(name: str = "s", *ids: str, extra: str = "", ask_ids: bool = False) -> str:
    """The text of a valid grounding suite with one English case per id.

    Every prompt is "Where?", or the case's own id with `ask_ids`, so a scripted target can
    tell the cases apart.
    """
    cases = "".join(
        f"  - id: {case_id}\n    language: en\n    prompt: {case_id if ask_ids else 'Where?'}\n"
        "    expect_grounded: true\n"
        for case_id in (ids or ("c1",))
    )
    return f"suite: {name}\ngate: grounding\nversion: 1\nthreshold: 1.0\n{extra}cases:\n{cases}"
