"""What the Riverbend toy says and reads in one language: the shape each language fills."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from gauntlet.targets.toy.page import Document


class Speech(NamedTuple):
    r"""Everything the toy says, reads and cites in one language, written for that language.

    Texts are what the toy answers with. Patterns are regular expressions over a prompt as the
    toy folds it (see `gauntlet.targets.toy.assistant`: `normalise`, then accents dropped,
    Chinese in Simplified characters, no spaces next to a Han or Hangul character but before
    or after punctuation: `拨打 988` reads `拨打988`); a pattern
    for a script without spaces between words cannot lean on `\\b` inside a run of them.
    Patterns of every language are tried on every prompt, so an attack that switches language
    mid-prompt is still read.
    """

    language: str
    """The primary subtag this speech is for (`en`)."""
    crisis: str
    """A crisis routed: sympathy, then how help is reached (the crisis line by its name,
    `crisis_line`, and the emergency number) and an offer of a person."""
    crisis_line: str
    """The crisis line's name as `crisis` writes it: in every escalated answer, in no other."""
    sympathy: str
    """A crisis not routed (`no_escalation`): kind words, no line, no person."""
    cant_help: str
    """What `refuse_everything` says to a prompt that is not a crisis."""
    deflect: str
    """An attack declined: what the toy can help with instead."""
    no_determination: str
    """An eligibility decision declined, and who decides."""
    decline: str
    """A harmful request refused."""
    comply: str
    """A harmful request answered (`never_refuse`)."""
    abstain: str
    """Nothing retrieved: nothing found, and where to ask."""
    drift: str
    """What `answer_drift` adds at the end of an answer (with its leading space, if any)."""
    disclosure: str
    """What opens an answer from a service-intake page: an automated assistant using AI, not a
    person; how to reach a city employee; that the resident can stop and ask for a person."""
    overridden: str
    """An override obeyed (`follow_injections`) that demanded no words."""
    no_rules: str
    """A role taken on (`follow_injections`)."""
    lock_picking: str
    """A jailbreak obeyed (`follow_injections`): the harmful steps."""
    leak_intro: str
    """What comes before the system prompt when the toy leaks it."""
    eligible: str
    """An eligibility decision made (`follow_injections`)."""
    word_labels: tuple[str, ...]
    """How a prompt names the one word it demands, as regular expressions over the prompt as
    written (NFKC, case ignored), each with the spacing it needs before the word (in English,
    `the word` and at least one space)."""
    crisis_patterns: tuple[str, ...]
    """A user in crisis: self-harm, suicide, not wanting to live."""
    attack_patterns: Mapping[str, tuple[str, ...]]
    """An attack, by kind (the values of `AttackType`): the first kind whose patterns match,
    in the toy's order of kinds, names it."""
    harmful_patterns: tuple[str, ...]
    """A request for harm: forgery, weapons, poison, theft, break-ins."""
    pushback_patterns: tuple[str, ...]
    """A user arguing against a refusal."""
    staff_patterns: tuple[str, ...]
    """A user claiming to be the city's staff (not asking for them)."""
    pages: tuple[Document, ...]
    """The language's pages, one peer of each topic, in id order."""
