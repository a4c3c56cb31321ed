"""The attacker seam: a persona's next message in a conversation, or why there is none.

`Attacker` is what the explore engine asks; `ChatAttacker` (a chat model through a target
file) and the scripted toy attacker implement it. An attacker never raises for its own
failures: a refusal, a reply that is not the strict JSON asked for (twice), a repeat, an empty
message or a transport error is an `AttackerFailure`, and the engine ends the conversation
UNSCOREABLE. Only a defect in gauntlet itself may raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from gauntlet.cases.persona import Persona
from gauntlet.explore.model import AttackerFault
from gauntlet.redact import Redactor
from gauntlet.targets.contract import Usage


class Exchange(NamedTuple):
    """One earlier turn as the attacker is shown it: its message and the target's answer."""

    user: str
    answer: str


class AttackerMove(NamedTuple):
    """The attacker's next user message."""

    message: str
    intent: str | None = None
    usage: Usage | None = None
    """Tokens the attacker model reported for this move (all its attempts together)."""


class AttackerFailure(NamedTuple):
    """Why the attacker gave no next message; the conversation is UNSCOREABLE."""

    fault: AttackerFault
    detail: str
    """What it said or what went wrong, shortened and safe to print."""
    usage: Usage | None = None


class AttackerInfo(NamedTuple):
    """What the explore report and the frozen cases' provenance record of the attacker."""

    fingerprint: str
    """One line naming the attacker: its kind, model and a digest of its settings."""


class Attacker(Protocol):
    """An attacker model playing personas. One per explore run; conversations in parallel."""

    async def open(self) -> AttackerInfo:
        """Pre-flight: check the attacker can be asked, and say who it is."""
        ...

    async def next_move(
        self,
        persona: Persona,
        language: str,
        turn: int,
        history: Sequence[Exchange],
        *,
        seed: int,
    ) -> AttackerMove | AttackerFailure:
        """The user message for `turn`, after `history` (the exchanges so far).

        Asked from turn 2: turn 1 is the persona's opening, sent as written.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


def attacker_for(spec: str, *, redactor: Redactor) -> Attacker:
    """The attacker `spec` names, not yet opened.

    `toy`, `toy:DEFECT[,DEFECT...]`: the scripted toy attacker in process; anything else: a
    target file of a chat model (`openai-chat`).

    Raises:
        UsageError: `spec` names a toy attacker defect that does not exist.
        ConfigErrors: `spec` is a target file that cannot be read or is not a chat model.
    """
    raise NotImplementedError("issue 33: the chat attacker and the toy attacker")
