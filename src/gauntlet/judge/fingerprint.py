"""What a judge is, as a results file and a calibration record hold it: its fingerprint.

A record alone, apart from the judge's prompts and asker (`gauntlet.judge.judge_file`), so a
results file can hold (and read back) a judge's fingerprint without loading the judge.
"""

from __future__ import annotations

from typing import Literal

from gauntlet.record import Record


class JudgeFingerprint(Record):
    """What a judge is: what a calibration record holds for."""

    kind: Literal["gauntlet", "openai-chat", "http"]
    """The judge's target-file kind."""
    model: str | None
    """The model named in an `openai-chat` file; None for other kinds."""
    host: str
    """`host:port` the judge is reached at (the scheme's port when none is written); never a
    path or credentials."""
    prompt_sha256: str
    """sha256 of the prompts gauntlet sends the judge (see `JUDGE_PROMPT_SHA256`)."""
    temperature: float | None
    """The temperature sent, or None for the server's default."""
    max_tokens: int | None
    """The reply length cap sent, or None for the server's default."""


__all__ = ["JudgeFingerprint"]
