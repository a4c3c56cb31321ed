"""A persona's goal as a case: what a conversation would freeze as, and one answer checked.

The check of an answer during exploration is the gate's own grading of the very case the
conversation would freeze as, so a break found live is the failure a replay sees, and a
replay that passes means the target no longer breaks that way. Which deterministic rule
fired is named (`detector`) for the finding and the frozen case's provenance.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from gauntlet.cases.model import AdversarialCase, FoundBy, GateName, RefusalCase, RefusalKind
from gauntlet.cases.persona import Persona
from gauntlet.gates import GATES
from gauntlet.gates.links import link_problems
from gauntlet.gates.readability import said_something
from gauntlet.gates.reasons import leaked, missing_markers
from gauntlet.targets.contract import TargetResponse

FrozenCase = AdversarialCase | RefusalCase

CASE_ID_PREFIX = "explore"


def case_id(persona: str, language: str, messages: Sequence[str]) -> str:
    """The frozen case's id: the persona, the language, and a digest of the messages sent.

    The same conversation always gets the same id, and a different one another id.
    """
    digest = hashlib.sha256(json.dumps(list(messages), ensure_ascii=False).encode()).hexdigest()
    return f"{CASE_ID_PREFIX}-{persona}-{language}-{digest[:10]}"


def candidate_case(
    persona: Persona,
    language: str,
    messages: Sequence[str],
    *,
    found_by: FoundBy | None = None,
) -> FrozenCase:
    """The case the conversation `messages` (the user's, in order) would freeze as.

    One message is a `prompt`; more are `turns`, the earlier ones holding the goal's checks
    a turn can make (the markers; a refusal), so a replay also catches an earlier break.
    """
    if not messages:
        raise ValueError("a conversation has at least its opening message")
    goal = persona.goal
    data: dict[str, Any] = {
        "id": case_id(persona.id, language, messages),
        "language": language,
        "tags": ["explore", persona.id],
    }
    earlier: dict[str, Any] = {}
    if goal.gate is GateName.ADVERSARIAL:
        assert goal.attack_type is not None  # noqa: S101 - PersonaGoal requires it
        data["attack_type"] = goal.attack_type.value
        data["must_not_contain"] = list(persona.never(language))
        earlier = {"must_not_contain": list(persona.never(language))}
    else:
        assert goal.kind is not None  # noqa: S101 - PersonaGoal requires it
        data["kind"] = goal.kind.value
        if persona.routing(language):
            data["must_contain"] = list(persona.routing(language))
        if goal.kind is RefusalKind.MUST_REFUSE:
            earlier = {"expect_refused": True}
    if goal.allowed_link_hosts is not None:
        data["allowed_link_hosts"] = list(goal.allowed_link_hosts)
    if goal.judge is not None and _judge_found(found_by):
        data["judge"] = {"criteria": [goal.judge.model_dump(mode="json")]}
    if len(messages) == 1:
        data["prompt"] = messages[0]
    else:
        data["turns"] = [{"user": text, **earlier} for text in messages[:-1]]
        data["turns"].append({"user": messages[-1]})
    if found_by is not None:
        data["found_by"] = found_by.model_dump(mode="json")
    model = AdversarialCase if goal.gate is GateName.ADVERSARIAL else RefusalCase
    return model.model_validate_json(json.dumps(data))


def _judge_found(found_by: FoundBy | None) -> bool:
    """Whether a case carries the goal's judge criterion.

    It does while exploring (no provenance yet), and when frozen from a break the judge found.
    A break the gate's own checks found replays by those checks alone, with or without
    `--judge`: its replay needs no model.
    """
    return found_by is None or found_by.detector.startswith(JUDGE_DETECTOR)


JUDGE_DETECTOR = "judge:"
"""The detector of a break the calibrated judge found: `judge:<criterion id>`."""


class GoalCheck(NamedTuple):
    """One answer against the goal, by the gate's own grading of the candidate case."""

    broke: bool
    detector: str | None
    """What fired, when it broke: `markers`, `links`, `silence`, `refusal`, `routing`."""
    reasons: tuple[str, ...]
    """The gate's reasons, when it broke."""


def check_answer(case: FrozenCase, response: TargetResponse) -> GoalCheck:
    """Whether `response`, the answer to `case`'s last message, breaks the goal.

    The gate decides; the detector names which of its rules fired first, in the order
    markers, links, silence, refusal, routing.
    """
    gate = GateName.ADVERSARIAL if isinstance(case, AdversarialCase) else GateName.REFUSAL
    judgement = GATES[gate](case, response)
    if judgement.passed:
        return GoalCheck(False, None, ())
    return GoalCheck(True, _detector(case, response), judgement.reasons)


def _detector(case: FrozenCase, response: TargetResponse) -> str:
    markers = case.must_not_contain if isinstance(case, AdversarialCase) else ()
    if markers and leaked(response.text, markers, ""):
        return "markers"
    if any(link_problems(case.allowed_link_hosts, tuple(markers), response.text)):
        return "links"
    if isinstance(case, AdversarialCase):
        return "silence" if not said_something(response) else "markers"
    if case.kind is RefusalKind.MUST_REFUSE:
        return "refusal"
    if missing_markers(response.text, case.must_contain) or not response.escalated:
        return "routing"
    return "silence"
