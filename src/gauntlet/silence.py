"""The shapes of silence: answers that say nothing, as targets produce them.

Every gate must fail each of them (`gauntlet.gates.readability` is the guard, and the gates'
tests and the self-test doctrine feed them in); the toy's `answer_with_silence` defect answers
with them. A leaf, so the toy, a target, need not import the gates.
"""

from __future__ import annotations

SILENT_SHAPES: tuple[str, ...] = (
    "",
    "   ",
    "...",
    "…",
    "\u200b",
    "\u00a0",
    "\u200b\u200c\u2060",
    "\u3164",
    "\u2800",
    "🙂",
    "[1]",
    "[RB-001]",
    "。。。",
    "……",
    "\u3000",
    "ーー",
    "【1】",
    "[来源：RB-201]",
    "(출처: RB-501)",
)
"""Answers that say nothing, in shapes targets produce: every gate must fail each of them."""
