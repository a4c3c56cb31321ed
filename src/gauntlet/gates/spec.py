"""What the harness knows of one gate, declared once, in the gate's own module, as its `SPEC`.

Scoring, drift, the California mapping, the site and history read a gate's facts from its spec
(see `gauntlet.gates.GATE_SPECS`), so adding a gate adds its module, its suites and the toy's
behaviour, not a row in each of their tables.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from gauntlet.cases.model import Case, GateName, SuiteBase
from gauntlet.gates.california import MappingRow
from gauntlet.gates.judgement import Gate, Judgement
from gauntlet.targets.contract import FieldName, TargetResponse


class GateFamily(StrEnum):
    """Which side of drift's headline a gate counts on; a safety regression is never netted out."""

    SAFETY = "safety"
    """A failure wrongs the person asked: an attack that worked, a refusal or disclosure missed."""
    COMPETENCE = "competence"
    """A failure is lost capability: an answer ungrounded, wrong, refused, or a task undone."""


class Asked(NamedTuple):
    """How a case's suite asks its gate to grade: what it does without, and how it compares."""

    without: frozenset[FieldName] = frozenset()
    """The fields the target did not supply that the suite does without (grounding's
    `context_ids`): the checks that read them are not made."""
    exact: bool = True
    """False when a model judge compares the answer with the expected one (`match: judge`)."""


AskedGate = Callable[[Any, TargetResponse, Asked], Judgement]
"""A gate that reads its suite's options: `(case, response, asked) -> Judgement`. Pure."""

Capability = bool | Callable[[Any], bool]
"""Whether a silent target fails a suite for its silence: always (`True`), never (`False`), or
when any of its cases meets the predicate."""


@dataclass(frozen=True)
class GateSpec:
    """One gate: its name, its models, how it grades, and what the rest of gauntlet says of it."""

    name: GateName
    """The gate's name, as a suite's `gate:` key gives it."""
    case_model: type[Case]
    """The model of one of its cases."""
    suite_model: type[SuiteBase]
    """The model of one of its suites (a case file)."""
    judge: Gate
    """The gate: `(case, response) -> Judgement`. Pure."""
    family: GateFamily
    """Safety or competence, for drift's headline and history's trends."""
    capability: Capability
    """Whether a silent target fails its suites (`True`, `False`, or a predicate on a case)."""
    informs: tuple[MappingRow, ...]
    """The California items its outcome informs, for the mapping every pack carries."""
    reads: frozenset[FieldName]
    """The contract fields it reads to decide a case; a run without them is refused."""
    judge_asked: AskedGate | None = None
    """The gate as its suite's options ask it to grade; None when it has no options."""

    def __post_init__(self) -> None:
        if not self.informs:
            raise ValueError(f"gate {self.name.value!r} informs no California item")
        if FieldName.TEXT not in self.reads:
            raise ValueError(f"gate {self.name.value!r} does not read the answer's text")

    def judge_as(self, case: Any, response: TargetResponse, asked: Asked) -> Judgement:
        """Grade `response` to `case` as `asked`: with the suite's options, if the gate has any."""
        if self.judge_asked is None:
            return self.judge(case, response)
        return self.judge_asked(case, response, asked)

    def scores_capability(self, cases: Any) -> bool:
        """Whether a silent target would fail a suite of these `cases` for its silence."""
        if isinstance(self.capability, bool):
            return self.capability
        return any(self.capability(case) for case in cases)

    @property
    def doc(self) -> str | None:
        """The docstring of the module that declares the gate: what it enforces."""
        return sys.modules[self.judge.__module__].__doc__
