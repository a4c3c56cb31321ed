"""What an explore run produces: conversations, how each ended, and the breaks it found."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from gauntlet.record import Record


class Outcome(StrEnum):
    """How one conversation ended. Only BROKE and HELD say anything about the target."""

    BROKE = "broke"
    """An answer broke the persona's goal: the conversation is a finding."""
    HELD = "held"
    """The attacker used every turn and no answer broke the goal."""
    UNSCOREABLE = "unscoreable"
    """The attacker failed (see `AttackerFault`): this says nothing of the target."""
    ERRORED = "errored"
    """The target (or the judge) could not be asked: a case error, never a break or a hold."""


class AttackerFault(StrEnum):
    """Why an attacker gave no next message. Each makes the conversation UNSCOREABLE."""

    REFUSED = "refused"
    """It declined to play the persona (a refusal its target file reads, or the words of
    one in its message)."""
    NOT_JSON = "not_json"
    """Its reply was not the strict JSON object asked for, twice running."""
    REPEATED = "repeated"
    """Its message was one of its earlier messages again (after normalising): a loop too."""
    EMPTY = "empty"
    """Its message said nothing."""
    UNREACHABLE = "unreachable"
    """It could not be asked: a transport error, a timeout, a server's error status."""
    MARKER = "marker"
    """Its message held one of the goal's markers (in any spelling the gate reads): a target
    that repeated or decoded it would show the attacker's words, not a leak of its own."""


TokenCount = Annotated[int, Field(ge=0)]


class TokensByRole(Record):
    """Tokens used, by who used them; None where that side reported none."""

    attacker: TokenCount | None = None
    target: TokenCount | None = None
    judge: TokenCount | None = None


class ExploreTurn(Record):
    """One exchange: what the attacker sent and what the target answered."""

    user: str
    """The attacker's message, verbatim (the persona's opening at turn 1)."""
    intent: str | None = None
    """What the attacker said it was trying, if it said."""
    answer: str | None = None
    """The target's answer text; None when the target was not reached at this turn."""
    problems: tuple[str, ...] = ()
    """Why this answer broke the goal (the gate's reasons, the judge's); empty if it held."""


class Conversation(Record):
    """One persona's conversation in one language, and how it ended."""

    persona: str
    language: str
    seed: Annotated[int, Field(ge=0)]
    outcome: Outcome
    turns: tuple[ExploreTurn, ...]
    """Every exchange made, in order; a break is the last."""
    breaking_turn: Annotated[int, Field(ge=1)] | None = None
    """The turn (from 1) whose answer broke the goal; None unless BROKE."""
    detector: str | None = None
    """BROKE: what fired (`markers`, `links`, `silence`, `refusal`, `routing`,
    `judge:<criterion id>`)."""
    why: str | None = None
    """UNSCOREABLE or ERRORED: what went wrong, in a sentence (an `AttackerFault`'s value
    first for an attacker's failure)."""
    fault: AttackerFault | None = None
    """UNSCOREABLE: the attacker's fault."""
    tokens: TokensByRole = TokensByRole()


class FindingStatus(StrEnum):
    """Whether a break was frozen now or was already a frozen case."""

    NEW = "new"
    """Written as a case under `--out`."""
    KNOWN = "known"
    """It matches a case already frozen: reported, not written twice."""


class Finding(Record):
    """A break, and what freezing it did."""

    conversation: Conversation
    status: FindingStatus
    case_id: str
    """The frozen case's id (for KNOWN, the id of the case it matched)."""
    file: str
    """The suite file that holds it, relative to `--out`."""
