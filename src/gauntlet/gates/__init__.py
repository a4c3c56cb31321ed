"""Stage 3 of the pipeline: score a target's response to a case, one pure gate per gate name.

Each gate is a pure function `(case, response) -> Judgement`, declared with everything else
gauntlet knows of it in its module's `SPEC` (see `gauntlet.gates.spec.GateSpec`).
`GATE_SPECS` gathers the specs, in `GateName` order, and `GATES` maps every name to its gate.
Every gate applies the readability guard, so silence never passes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import cast

from gauntlet.cases.model import CASE_MODELS, SUITE_MODELS, AnyCase, GateName
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
from gauntlet.gates.spec import Asked, GateFamily, GateSpec
from gauntlet.targets.contract import FieldName, TargetResponse

__all__ = [
    "GATES",
    "GATE_SPECS",
    "Gate",
    "GateFamily",
    "GateSpec",
    "Judgement",
    "family_of",
    "gates_in",
    "judge",
    "registered",
    "spec_of",
]

_BUILT_IN = (
    grounding.SPEC,
    adversarial.SPEC,
    refusal.SPEC,
    false_positive.SPEC,
    golden.SPEC,
    trajectory.SPEC,
    disclosure.SPEC,
)


def _declared(specs: tuple[GateSpec, ...]) -> dict[GateName, GateSpec]:
    """The specs by name, once each checked against the case-file models of its name."""
    by_name = {spec.name: spec for spec in specs}
    if list(by_name) != list(GateName):
        raise RuntimeError(f"gate specs {list(by_name)} are not one per GateName, in its order")
    for spec in specs:
        models = (CASE_MODELS.get(spec.name), SUITE_MODELS.get(spec.name))
        if models != (spec.case_model, spec.suite_model):
            raise RuntimeError(f"gate {spec.name.value!r}: its spec names another gate's models")
    return by_name


_SPECS = _declared(_BUILT_IN)
_BY_MODEL: dict[type, GateSpec] = {spec.case_model: spec for spec in _BUILT_IN}

GATE_SPECS: Mapping[GateName, GateSpec] = MappingProxyType(_SPECS)
"""Every gate's spec by name, in `GateName` order (a registered one after); read-only."""


class _Gates(Mapping[GateName, Gate]):
    """Every registered gate by name: a read-only view of `GATE_SPECS`."""

    def __getitem__(self, name: GateName) -> Gate:
        return _SPECS[name].judge

    def __iter__(self) -> Iterator[GateName]:
        return iter(_SPECS)

    def __len__(self) -> int:
        return len(_SPECS)


GATES: Mapping[GateName, Gate] = _Gates()
"""Every gate by name; read-only."""


@contextmanager
def registered(spec: GateSpec) -> Iterator[GateSpec]:
    """Register a gate declared outside this package for the block (a test's, say).

    Everything that reads `GATE_SPECS` when it runs (dispatch, scoring, drift's headline,
    history's families, the mapping `california_mapping()` builds) sees it; a table built
    at import does not. A name or case model already registered is refused.

    Raises:
        ValueError: the name, or the case model, is another gate's.
    """
    if spec.name in _SPECS or spec.case_model in _BY_MODEL:
        raise ValueError(f"gate {spec.name.value!r} or its case model is registered already")
    _SPECS[spec.name] = spec
    _BY_MODEL[spec.case_model] = spec
    try:
        yield spec
    finally:
        del _SPECS[spec.name], _BY_MODEL[spec.case_model]


def spec_of(case_model: type) -> GateSpec | None:
    """The spec of the gate whose cases are `case_model`s, or None for no gate's."""
    return _BY_MODEL.get(case_model)


def family_of(gate: str) -> GateFamily | None:
    """The family of the gate named `gate`, or None for a name no gate has (an old record's)."""
    spec = cast("Mapping[str, GateSpec]", _SPECS).get(gate)
    return spec.family if spec is not None else None


def gates_in(family: GateFamily) -> frozenset[GateName]:
    """The gates of `family`, as registered now."""
    return frozenset(name for name, spec in _SPECS.items() if spec.family is family)


def judge(
    case: AnyCase,
    response: TargetResponse,
    *,
    without: frozenset[FieldName] = frozenset(),
    exact: bool = True,
) -> Judgement:
    """Grade `response` with the gate that `case` belongs to.

    `without` names the fields the target did not supply and the case's suite does without
    (only grounding's `context_ids`): the checks that read them are not made. Without `exact`,
    a golden answer is not compared with `expected` here: a model judge compares them.
    """
    spec = spec_of(type(case))
    if spec is None:
        raise TypeError(f"no gate grades a {type(case).__name__}")
    return spec.judge_as(case, response, Asked(without=without, exact=exact))
