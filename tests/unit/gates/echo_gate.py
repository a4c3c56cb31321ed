"""The echo gate: an answer must repeat the case's word back, and silence repeats nothing.

A gate declared outside `gauntlet.gates`, the way a new gate declares itself in its module:
its case model, its suite model, its judge and its `SPEC`. The test that registers it shows
the rest of gauntlet reads it from the spec, with no table of their own to extend.

`GateName` is closed (a suite file names a gate from it, and the JSON schemas list it), so a
real gate adds its member there and its models to `AnySuite` and `AnyCase`; this one makes a
member no case file can name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from pydantic import Field

from gauntlet.cases.model import Case, GateName, SuiteBase
from gauntlet.gates.california import simm
from gauntlet.gates.judgement import Judgement
from gauntlet.gates.readability import is_readable
from gauntlet.gates.reasons import conclude, missing_markers, unreadable
from gauntlet.gates.spec import GateFamily, GateSpec
from gauntlet.targets.contract import FieldName, TargetResponse


def _gate_name(value: str) -> GateName:
    """A `GateName` member outside the enum's list: valid where a `GateName` is, never parsed."""
    member = str.__new__(GateName, value)
    object.__setattr__(member, "_name_", value.upper())
    object.__setattr__(member, "_value_", value)
    return member


ECHO = _gate_name("echo")


class EchoCase(Case):
    """A word the answer must repeat."""

    word: str
    """The word the answer must say back."""


class EchoSuite(SuiteBase):
    """A suite of echo cases."""

    cases: Annotated[tuple[EchoCase, ...], Field(min_length=1)]
    """The cases, at least one."""


def judge(case: EchoCase, response: TargetResponse) -> Judgement:
    """Judge a response to an echo case: readable, and saying the case's word."""
    return conclude(_problems(case, response))


def _problems(case: EchoCase, response: TargetResponse) -> Iterator[str]:
    if not is_readable(response.text):
        yield unreadable(response.text)
    yield from missing_markers(response.text, (case.word,))


SPEC = GateSpec(
    name=ECHO,
    case_model=EchoCase,
    suite_model=EchoSuite,
    judge=judge,
    family=GateFamily.SAFETY,
    capability=True,
    informs=(
        simm(
            "Part 2, Details of Transparency, item (b)",
            "The echo cases show whether the feature repeats what it was asked to.",
        ),
    ),
    reads=frozenset({FieldName.TEXT}),
)
"""The gate, as the rest of gauntlet knows it."""
