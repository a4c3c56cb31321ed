"""The toy attacker: a deterministic attacker model, healthy or with named defects.

Like any attacker, it must be shown failing before its conversations are evidence. It reads
only the prompt gauntlet writes an attacker (`gauntlet.explore.attacker.attacker_prompt`),
with its own parsing of it: the boundary from the line that gives it, the tactic and the
language from their lines (JSON strings), the conversation's blocks by their labels. Healthy,
it replies `{"message": <this turn's tactic, verbatim>, "intent": ...}`, so the same persona
always sends the same conversation. A prompt it cannot read (anything gauntlet did not
write) gets a sentence of prose, which gauntlet reads as no reply.

Each `AttackerDefect` breaks one thing; with several, the first in declaration order wins.
`gauntlet toy serve --api openai --attacker` serves it as the model `riverbend-toy-attacker`;
`attacker_for("toy[:DEFECT,...]")` runs it in process behind the same `ChatAttacker`, so the
prompt writing and the reply reading are exercised either way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from gauntlet.languages import primary_language

if TYPE_CHECKING:
    from gauntlet.explore.attacker import ChatAttacker
    from gauntlet.redact import Redactor
    from gauntlet.targets.contract import Message, TargetResponse
    from gauntlet.targets.spec import DecisionFromText

MODEL = "riverbend-toy-attacker"
"""The model name the toy attacker is served as, and its name in process."""


class AttackerDefect(StrEnum):
    """A named fault the toy attacker can be built with, so each attacker check is seen working."""

    REFUSES = "refuses"
    """It declines to play: its message is a refusal its own refusal rule reads
    (`REFUSAL_PHRASES`, the example target file's `response.refused`)."""
    PROSE = "prose"
    """It answers in prose ("Sure! Here is the next message: ..."), never the JSON asked for."""
    REPEATS = "repeats"
    """It sends its previous message again instead of the turn's tactic."""


REFUSAL_PHRASES = MappingProxyType(
    {
        "en": ("I won't play this persona",),
        "es": ("No voy a interpretar a este personaje",),
        "zh": ("我不会扮演这个角色",),
        "vi": ("Tôi sẽ không đóng vai nhân vật này",),
        "tl": ("Hindi ko gagampanan ang karakter na ito",),
        "ko": ("이 인물은 연기하지 않겠습니다",),
    }
)
"""What the toy attacker says when it declines to play, and the phrases its target file reads
as a refusal: `examples/targets/toy-attacker.yaml` gives these (a test keeps them equal)."""

UNREADABLE = "I could not read that prompt, so I have no next message for you."
"""The toy's reply to a prompt gauntlet did not write."""


class Read(NamedTuple):
    """What the toy read from a prompt."""

    tactic: str
    language: str
    earlier: tuple[str, ...]
    """The earlier user messages, oldest first: the opening, then its own."""


def read_prompt(prompt: str) -> Read | None:
    """The tactic, language and earlier user messages of an attacker prompt; None if not one.

    Strict: the first line is gauntlet's, each labelled line and block is where gauntlet puts
    it, and the reply format closes the prompt (a re-ask's extra line may follow it).
    """
    from gauntlet.explore.attacker import (
        AGAIN,
        EXAMPLE,
        FENCE_RULE,
        INTRO,
        LANGUAGE,
        NO_CONVERSATION,
        PLAYS,
        REPLY_FORMAT,
        TACTIC,
        USER_LABEL,
        WIN,
    )

    lines = prompt.split("\n")
    if lines[-2:] == ["", AGAIN]:
        lines = lines[:-2]
    if len(lines) < 11 or lines[0] != INTRO or lines[-2:] != [REPLY_FORMAT, EXAMPLE]:
        return None
    tactic_line = TACTIC.match(lines[4])
    fence_line = FENCE_RULE.match(lines[7])
    if not (lines[1] == lines[6] == lines[8] == lines[-3] == ""):
        return None
    if not (lines[2].startswith(PLAYS) and lines[3].startswith(WIN)):
        return None
    if tactic_line is None or fence_line is None or not lines[5].startswith(LANGUAGE):
        return None
    tactic = _string(lines[4][tactic_line.end() :])
    language = _string(lines[5].removeprefix(LANGUAGE))
    if tactic is None or language is None:
        return None
    body = lines[9:-3]
    if body == [NO_CONVERSATION]:
        return Read(tactic, language, ())
    blocks = _blocks(body, fence_line.group("fence"))
    if blocks is None:
        return None
    earlier = [text for label, text in blocks if label.endswith(f", {USER_LABEL}")]
    return Read(tactic, language, tuple(earlier))


def _string(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _blocks(body: Sequence[str], fence: str) -> list[tuple[str, str]] | None:
    """Each fenced block's label and text, in order; None when the body is anything else."""
    opening = re.compile(rf"<<<{re.escape(fence)} (?P<label>turn \d+, .+)")
    blocks: list[tuple[str, str]] = []
    index = 0
    while index < len(body):
        start = opening.fullmatch(body[index])
        if start is None:
            return None
        try:
            end = body.index(f"{fence}>>>", index + 1)
        except ValueError:
            return None
        blocks.append((start.group("label"), "\n".join(body[index + 1 : end])))
        index = end + 1
    return blocks


def toy_attacker_reply(prompt: str, defects: Collection[AttackerDefect] = ()) -> str:
    """What the toy attacker with `defects` replies to `prompt`."""
    read = read_prompt(prompt)
    if read is None:
        return UNREADABLE
    primary = primary_language(read.language)
    language = primary if primary in REFUSAL_PHRASES else "en"
    for defect in AttackerDefect:
        if defect not in defects:
            continue
        if defect is AttackerDefect.REFUSES:
            return json.dumps({"message": f"{REFUSAL_PHRASES[language][0]}."}, ensure_ascii=False)
        if defect is AttackerDefect.PROSE:
            return f"Sure! Here is the next message: {read.tactic}"
        if read.earlier:  # REPEATS; the opening is always there from turn 2
            return json.dumps({"message": read.earlier[-1]}, ensure_ascii=False)
    return json.dumps(
        {"message": read.tactic, "intent": "the persona's tactic for this turn"},
        ensure_ascii=False,
    )


def _chosen(defects: Iterable[AttackerDefect | str]) -> frozenset[AttackerDefect]:
    return frozenset(AttackerDefect(defect) for defect in defects)


class ToyAttacker:
    """The toy attacker as a target answers: one reply per prompt, no state.

    Args:
        defects: The faults to build in; none gives the healthy attacker.
    """

    def __init__(self, defects: Iterable[AttackerDefect | str] = ()) -> None:
        self.defects: frozenset[AttackerDefect] = _chosen(defects)
        """The faults this attacker has."""
        self.name: str = MODEL + "".join(f"+{d}" for d in AttackerDefect if d in self.defects)
        """`riverbend-toy-attacker`, plus `+defect` for each defect, in declaration order."""

    def __repr__(self) -> str:
        return f"ToyAttacker({self.name!r})"

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """The reply to `prompt` (the last user message); an attacker here keeps no state."""
        from gauntlet.targets.contract import TargetResponse

        return TargetResponse(
            text=toy_attacker_reply(prompt, self.defects),
            citations=(),
            context_ids=(),
            refused=False,
            escalated=False,
        )


def toy_refusal() -> DecisionFromText:
    """The toy attacker's refusal rule, as its example target file writes it."""
    from gauntlet.targets.spec import DecisionFromText

    return DecisionFromText(
        from_text={tag: list(phrases) for tag, phrases in REFUSAL_PHRASES.items()}
    )


def toy_attacker(names: Sequence[str], *, redactor: Redactor) -> ChatAttacker:
    """`ChatAttacker` over the toy attacker with the defects `names`, in this process.

    Raises:
        UsageError: a name is not an `AttackerDefect`; the message lists them.
    """
    from gauntlet.errors import UsageError
    from gauntlet.explore.attacker import ATTACKER, ChatAttacker, attacker_fingerprint
    from gauntlet.targets.adapters import CallableTarget

    known = {defect.value: defect for defect in AttackerDefect}
    unknown = [name for name in names if name not in known]
    if unknown:
        from gauntlet.display import printable

        raise UsageError(
            ATTACKER,
            f": no toy attacker defect {printable(', '.join(unknown))} (known: {', '.join(known)})",
        )
    toy = ToyAttacker(known[name] for name in names)
    fingerprint = attacker_fingerprint("toy", toy.name, {"kind": "toy", "model": toy.name})
    return ChatAttacker(
        CallableTarget(toy, concurrency=1),
        fingerprint=fingerprint,
        refusal=toy_refusal(),
        redactor=redactor,
    )


__all__ = [
    "MODEL",
    "REFUSAL_PHRASES",
    "UNREADABLE",
    "AttackerDefect",
    "Read",
    "ToyAttacker",
    "read_prompt",
    "toy_attacker",
    "toy_attacker_reply",
    "toy_refusal",
]
