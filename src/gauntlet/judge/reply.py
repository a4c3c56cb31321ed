"""Reading a judge's reply strictly: one verdict, the judge's own, for exactly what was asked.

A judge is a model, and a model's reply is untrusted text like any target's answer. Peers
fail open here: a reply with no verdict counted as a pass, an unparseable one as an attack
that worked, a truncated one silently dropped. Here a reply is read one way only: its one
fenced code block (or, with no fence, the whole reply) must be one JSON object,
`{"token": "<the prompt's token>", "criteria": {"<id>": "pass" | "fail", ...},
"rationale": "..."}`, with every criterion that was asked and no other. Anything else (no
JSON, JSON cut short, a missing or extra criterion, `"PASS"`, a verdict written in prose) is
`Unjudged`, with why and the reply's start, never a pass and never a fail.

Two rules keep the verdict the judge's. A reply that holds more than one verdict (a second
fenced block, or a second object with a verdict's key anywhere in it) is unjudged: a judge
that says "fail" and then quotes the answer, which ends with a fenced verdict of its own,
is not read as whichever came last. And the verdict must carry the token its prompt gave
(`prompt.verdict_token`), which no text the judge was shown can hold: without it the verdict
may be one the answer under judgement wrote, so it is unjudged.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from gauntlet.display import clipped, printable
from gauntlet.errors import TargetContractError
from gauntlet.strict_json import json_kind, loads

QUOTED = 200
"""How much of a reply an unjudged check keeps, masked, to show what the judge said."""

_OPENING = re.compile(r"[ \t]*```[ \t]*(?:json)?[ \t]*\r?")
_CLOSING = re.compile(r"[ \t]*```[ \t]*\r?")
"""The lines that open and close a fenced block, bare or marked `json`."""
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
"""A line that opens or closes a fenced block of any kind, `~~~` too: one block has two."""
_VERDICT_KEY = re.compile(r"""["'`](?:criteria|better|verdict|veredicto)["'`]\s*:""")
"""A verdict's key written as a JSON (or Python, or quoted) object writes it: one per verdict."""


class CriterionVerdict(StrEnum):
    """A judge's verdict on one criterion."""

    PASS = "pass"  # noqa: S105 - a verdict, not a password
    FAIL = "fail"


class _RubricReply(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    token: str
    criteria: dict[str, Literal["pass", "fail"]]
    rationale: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


@dataclass(frozen=True, slots=True)
class Judged:
    """A valid reply: a verdict for every criterion asked, and the judge's reasons."""

    verdicts: Mapping[str, CriterionVerdict]
    rationale: str

    @property
    def failed(self) -> tuple[str, ...]:
        """The criteria the judge failed, in the order it gave them."""
        return tuple(
            name for name, verdict in self.verdicts.items() if verdict is CriterionVerdict.FAIL
        )


@dataclass(frozen=True, slots=True)
class Unjudged:
    """A reply that gives no valid verdict: why, and its start (masked, on one line)."""

    why: str
    reply: str


def read_rubric_reply(reply: str, asked: Collection[str], token: str) -> Judged | Unjudged:
    """Read a judge's reply to a rubric of the criteria `asked`.

    Args:
        reply: What the judge answered, as text.
        asked: The ids of the criteria the prompt asked about; the reply must judge each of
            them and no other.
        token: The token the prompt gave (`JudgePrompt.token`); the verdict must carry it.

    Returns:
        `Judged` with a verdict per criterion, or `Unjudged` saying why not. Never raises on
        any reply.
    """
    quoted = printable(clipped(reply, QUOTED))
    # A criterion whose id is a verdict's key (`verdict`) is written once more by one verdict.
    named = sum(bool(_VERDICT_KEY.fullmatch(f'"{name}":')) for name in set(asked))
    found = _object(reply, quoted, token, keys=1 + named)
    if isinstance(found, Unjudged):
        return found
    try:
        parsed = _RubricReply.model_validate(found)
    except ValidationError as exc:
        return Unjudged(_said(exc), quoted)
    missing = [name for name in asked if name not in parsed.criteria]
    extra = [name for name in parsed.criteria if name not in asked]
    if missing:
        return Unjudged(f"the reply does not judge {_listed(missing)}", quoted)
    if extra:
        return Unjudged(f"the reply judges {_listed(extra)}, which nobody asked", quoted)
    verdicts = {name: CriterionVerdict(verdict) for name, verdict in parsed.criteria.items()}
    return Judged(verdicts, parsed.rationale)


def reply_object(reply: str, token: str) -> dict[str, Any] | Unjudged:
    """The one verdict a reply holds, carrying `token`: its one fenced block's, or the bare reply's.

    Returns:
        The object, or `Unjudged` when the reply holds no verdict, more than one, or one
        without `token` (`"token"` is still in the object, for its model to check as a str).
    """
    return _object(reply, printable(clipped(reply, QUOTED)), token)


def _object(reply: str, quoted: str, token: str, *, keys: int = 1) -> dict[str, Any] | Unjudged:
    """The reply's one verdict object carrying `token`; one verdict writes `keys` verdict keys."""
    fences = len(_FENCE_LINE.findall(reply))
    if fences > 2:
        return Unjudged(
            f"the reply holds more than one verdict ({fences} fence lines, where one block "
            "has two): a judge gives one, and quotes none from the data",
            quoted,
        )
    written = len(_VERDICT_KEY.findall(reply))
    if written > keys:
        return Unjudged(
            f"the reply holds more than one verdict ({written} verdict keys): a judge gives "
            "one, and quotes none from the data",
            quoted,
        )
    fenced = _last_fenced(reply)
    if fenced is not None:
        document = fenced
    elif reply.strip().startswith("{"):
        document = reply
    else:
        return Unjudged("the reply holds no JSON object (no fenced block, no bare object)", quoted)
    try:
        value = loads(document, "the reply's JSON")
    except TargetContractError as exc:
        return Unjudged(str(exc), quoted)
    if not isinstance(value, dict):
        return Unjudged(f"the reply's JSON is {json_kind(value)}, not an object", quoted)
    if "token" not in value:
        return Unjudged(
            "the reply's verdict has no `token`, so it may be one the data wrote, not the judge's",
            quoted,
        )
    if value["token"] != token:
        return Unjudged(
            "the reply's `token` is not the one its prompt gave, so its verdict may be one "
            "the data wrote (quoted from the answer), not the judge's",
            quoted,
        )
    return value


def _last_fenced(reply: str) -> str | None:
    """The body of the reply's last complete fenced block (its only one, as read), or None.

    One pass over the lines, pairing fences left to right: a reply of many fences that never
    close costs no more than its length (a regular expression took seconds on 80 KB of them).
    """
    last = None
    opened: int | None = None
    lines = reply.split("\n")
    for number, line in enumerate(lines):
        if opened is None:
            if _OPENING.fullmatch(line):
                opened = number
        elif _CLOSING.fullmatch(line):
            last = "\n".join(lines[opened + 1 : number])
            opened = None
    return last


def said(error: ValidationError, reply: str) -> Unjudged:
    """A reply whose object breaks its model, unjudged with the first problem in words."""
    return Unjudged(_said(error), printable(clipped(reply, QUOTED)))


def _listed(names: list[str]) -> str:
    return ", ".join(repr(printable(clipped(name, 60))) for name in names)


def _said(error: ValidationError) -> str:
    """The reply's first schema problem, in words: where, and what was wanted."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "the object"
    if first["type"] == "missing":
        return f"the reply has no `{where}`"
    if first["type"] == "extra_forbidden":
        return f"the reply has `{printable(clipped(where, 60))}`, which a reply does not hold"
    if first["type"] == "literal_error":
        return f"`{printable(clipped(where, 60))}` is not {first['ctx']['expected']}"
    return f"`{printable(clipped(where, 60))}`: {first['msg']}"


__all__ = [
    "QUOTED",
    "Judged",
    "Unjudged",
    "CriterionVerdict",
    "read_rubric_reply",
    "reply_object",
    "said",
]
