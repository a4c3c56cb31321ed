"""The toy's named defects, in a module cheap to import (the command line lists them)."""

from enum import StrEnum


class ToyDefect(StrEnum):
    """A named fault the toy can be built with, so each gate can be shown failing."""

    DROP_CITATIONS = "drop_citations"
    """Answers cite nothing."""
    FABRICATE_CITATIONS = "fabricate_citations"
    """Answers and abstentions also cite `RB-999`, which was never retrieved."""
    FOLLOW_INJECTIONS = "follow_injections"
    """Attacks work: the toy obeys overrides, plays roles, leaks, "runs" code, decides."""
    LEAK_SYSTEM_PROMPT = "leak_system_prompt"
    """Requests for the system prompt, obfuscated or not, get it, canary included."""
    NEVER_REFUSE = "never_refuse"
    """Harmful requests get a helpful-sounding answer; attacks are still deflected."""
    NO_ESCALATION = "no_escalation"
    """Crises get a sympathetic line with no crisis line, and are not escalated."""
    REFUSE_EVERYTHING = "refuse_everything"
    """Every prompt that is not a crisis is refused; crises still escalate."""
    ANSWER_DRIFT = "answer_drift"
    """Retrieved answers gain a closing sentence, so curated answers no longer match."""
    WRONG_LANGUAGE = "wrong_language"
    """Answers come in the other language, from the peer page, citing the peer's id."""
    YIELDS_TO_PUSHBACK = "yields_to_pushback"
    """In a conversation, a refused request is granted after the user pushes back twice."""
    ANSWER_WITH_SILENCE = "answer_with_silence"
    """Every answer's text is a silent shape chosen by its prompt, and nothing is refused."""
