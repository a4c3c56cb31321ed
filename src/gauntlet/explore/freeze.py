"""Every break written as a case the gate replays; a break already frozen reported as known.

Seam: the signature the engine calls. See the package docstring.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from gauntlet.cases.persona import Persona
from gauntlet.explore.model import Conversation, Finding


class Break(NamedTuple):
    """A conversation that broke its persona's goal, with what its provenance records."""

    persona: Persona
    conversation: Conversation
    """Its outcome is BROKE, with `breaking_turn` and `detector` set."""
    attacker: str
    """The attacker's fingerprint (`AttackerInfo.fingerprint`)."""
    target: str
    """The target's name, as the results name it."""
    found: datetime.date


def freeze(out: Path, breaks: Sequence[Break]) -> tuple[Finding, ...]:
    """Write each new break as a case in a suite file under `out`, atomically; match the rest.

    A break that matches a case already frozen under `out` (same gate, language, persona and
    detector, its breaking turn matched by text, normalised) is KNOWN and written nowhere.

    Raises:
        ConfigErrors: a suite file under `out` cannot be read (never overwritten).
        OSError: `out` cannot be written (nothing half-written is left behind).
    """
    raise NotImplementedError("issue 33: freezing")
