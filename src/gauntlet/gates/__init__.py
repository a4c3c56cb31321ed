"""Stage 3 of the pipeline: score a target's response to a case, one pure gate per gate name.

Each gate is a pure function `(case, response) -> Judgement`; `GATES` maps every `GateName`
to its gate. Every gate applies the readability guard, so silence never passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gauntlet.cases.model import (
    CASE_MODELS,
    AnyCase,
    Case,
    GateName,
    GoldenCase,
    GroundingCase,
)
from gauntlet.gates import (
    adversarial,
    disclosure,
    false_positive,
    golden,
    grounding,
    refusal,
    trajectory,
)
from gauntlet.gates.judgement import Gate, Judgement
from gauntlet.targets.contract import TargetResponse
from gauntlet.targets.spec import FieldName

__all__ = ["GATES", "Gate", "Judgement", "judge"]

GATES: Mapping[GateName, Gate] = MappingProxyType(
    {
        GateName.GROUNDING: grounding.judge,
        GateName.ADVERSARIAL: adversarial.judge,
        GateName.REFUSAL: refusal.judge,
        GateName.FALSE_POSITIVE: false_positive.judge,
        GateName.GOLDEN: golden.judge,
        GateName.TRAJECTORY: trajectory.judge,
        GateName.DISCLOSURE: disclosure.judge,
    }
)
"""Every gate by name; read-only."""

_GATE_OF_MODEL: Mapping[type[Case], GateName] = MappingProxyType(
    {model: gate for gate, model in CASE_MODELS.items()}
)


def judge(
    case: AnyCase,
    response: TargetResponse,
    *,
    without: frozenset[FieldName] = frozenset(),
    exact: bool = True,
) -> Judgement:
    """Judge `response` with the gate that `case` belongs to.

    `without` names the fields the target did not supply and the case's suite does without
    (only grounding's `context_ids`): the checks that read them are not made. Without `exact`,
    a golden answer is not compared with `expected` here: a model judge compares them.
    """
    if isinstance(case, GoldenCase):
        return golden.judge(case, response, exact=exact)
    if isinstance(case, GroundingCase):
        return grounding.judge(case, response, retrieved=FieldName.CONTEXT_IDS not in without)
    return GATES[_GATE_OF_MODEL[type(case)]](case, response)
