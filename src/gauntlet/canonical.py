"""Canonical JSON: the one spelling of a value that digests and comparisons hash or compare.

Keys sorted at every depth, no insignificant whitespace, not ASCII-escaped, NaN and the
infinities refused. The results digest hashes it (as UTF-8); trajectory scoring compares
tool-call arguments by it; the run's plan digest hashes every case by it. A leaf: it imports
nothing of gauntlet, so every layer may use it.
"""

from __future__ import annotations

import json
from typing import Any


def canonical_text(value: Any) -> str:
    """`value` as canonical JSON text."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def canonical_json(value: Any) -> bytes:
    """`value` as canonical JSON, encoded as UTF-8."""
    return canonical_text(value).encode("utf-8")
