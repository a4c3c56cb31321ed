"""Each gate's `SPEC`, and the registry the rest of gauntlet reads it from.

A gate declared in a test module (`echo_gate`) is registered and shown scored, counted in its
family by drift and history, listed by the mapping, the site and the inventory: adding a gate
touches its module, its suites and the toy, not a table in each consumer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, get_args

import pytest

from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import (
    CASE_MODELS,
    SUITE_MODELS,
    AdversarialCase,
    AdversarialSuite,
    AnyCase,
    DisclosureCase,
    DisclosureSuite,
    FalsePositiveCase,
    FalsePositiveSuite,
    GateName,
    GoldenCase,
    GoldenSuite,
    GroundingCase,
    GroundingSuite,
    RefusalCase,
    RefusalSuite,
    TrajectoryCase,
    TrajectorySuite,
)
from gauntlet.cases.yaml_nodes import Mark
from gauntlet.evidence.drift import COMPETENCE_GATES, SAFETY_GATES, Direction, compare
from gauntlet.evidence.mapping import CALIFORNIA, california_mapping, iter_rows
from gauntlet.gates import (
    GATE_SPECS,
    GATES,
    GateFamily,
    _declared,
    family_of,
    gates_in,
    judge,
    registered,
    spec_of,
)
from gauntlet.gates.spec import Asked
from gauntlet.history.stats import _family
from gauntlet.inventory import inventory_rows
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.fields import GATE_FIELDS, suite_needs
from gauntlet.run.results import Outcome, Results, TargetInfo
from gauntlet.site.content import describe_gates
from gauntlet.targets.contract import FieldName, TargetResponse
from tests.unit.gates import echo_gate
from tests.unit.gates.builders import response
from tests.unit.gates.echo_gate import ECHO, SPEC, EchoCase, EchoSuite

from ...run_settings import settings_for

START = Mark(1, 1)


def _echo_suite() -> LoadedSuite:
    cases = (
        EchoCase(id="echo-en", language="en", prompt="Say river.", word="river"),
        EchoCase(id="echo-es", language="es", prompt="Di río.", word="río"),
    )
    suite = EchoSuite(suite="echo-basic", gate=ECHO, version=1, threshold=1.0, cases=cases)
    return LoadedSuite(
        suite=suite,  # type: ignore[arg-type]  # a test gate is in no union of the models
        source="echo.yaml",
        case_marks=(START, START),
        id_marks=(START, START),
        name_mark=START,
    )


class _Parrot:
    """Says the prompt back, or nothing at all."""

    def __init__(self, *, silent: bool) -> None:
        self.name = "silent" if silent else "parrot"
        self.silent = silent

    def ask(self, prompt: str, language: str) -> TargetResponse:
        return response(text="" if self.silent else prompt)


def _run(*, silent: bool) -> Results:
    target = _Parrot(silent=silent)
    suites = SuiteSet((_echo_suite(),))
    return run_gauntlet(
        suites,
        target,
        settings_for(suites, TargetInfo(kind="callable", name=target.name), preflight=False),
    )


# ---------------------------------------------------------------- the built-in gates


BUILT_IN: dict[GateName, tuple[type[Any], type[Any], GateFamily, frozenset[FieldName]]] = {
    GateName.GROUNDING: (
        GroundingCase,
        GroundingSuite,
        GateFamily.COMPETENCE,
        frozenset({FieldName.TEXT, FieldName.CITATIONS, FieldName.CONTEXT_IDS, FieldName.REFUSED}),
    ),
    GateName.ADVERSARIAL: (
        AdversarialCase,
        AdversarialSuite,
        GateFamily.SAFETY,
        frozenset({FieldName.TEXT}),
    ),
    GateName.REFUSAL: (
        RefusalCase,
        RefusalSuite,
        GateFamily.SAFETY,
        frozenset({FieldName.TEXT, FieldName.REFUSED, FieldName.ESCALATED}),
    ),
    GateName.FALSE_POSITIVE: (
        FalsePositiveCase,
        FalsePositiveSuite,
        GateFamily.COMPETENCE,
        frozenset({FieldName.TEXT, FieldName.REFUSED, FieldName.ESCALATED}),
    ),
    GateName.GOLDEN: (
        GoldenCase,
        GoldenSuite,
        GateFamily.COMPETENCE,
        frozenset({FieldName.TEXT, FieldName.REFUSED}),
    ),
    GateName.TRAJECTORY: (
        TrajectoryCase,
        TrajectorySuite,
        GateFamily.COMPETENCE,
        frozenset({FieldName.TEXT, FieldName.REFUSED, FieldName.TOOL_CALLS}),
    ),
    GateName.DISCLOSURE: (
        DisclosureCase,
        DisclosureSuite,
        GateFamily.SAFETY,
        frozenset({FieldName.TEXT, FieldName.REFUSED}),
    ),
}
"""What each built-in gate declared before its facts moved into its spec."""


def test_every_gate_name_has_a_spec_in_order() -> None:
    # Trap: a gate name with no spec, or the specs in an order other than the enum's.
    assert list(GATE_SPECS) == list(GateName)
    for name, (case, suite, family, reads) in BUILT_IN.items():
        spec = GATE_SPECS[name]
        assert (spec.name, spec.case_model, spec.suite_model) == (name, case, suite)
        assert (spec.family, spec.reads) == (family, reads)
        assert GATES[name] is spec.judge
        assert spec_of(case) is spec


def test_the_families_are_what_drift_and_history_read() -> None:
    # Trap: a family table of drift's own that disagrees with the specs.
    assert {GateName.ADVERSARIAL, GateName.REFUSAL, GateName.DISCLOSURE} == SAFETY_GATES
    assert gates_in(GateFamily.SAFETY) == SAFETY_GATES
    assert gates_in(GateFamily.COMPETENCE) == COMPETENCE_GATES
    assert family_of("refusal") is GateFamily.SAFETY
    assert family_of("grounding") is GateFamily.COMPETENCE
    assert family_of("retired") is None


def test_the_fields_and_mapping_rows_are_the_specs() -> None:
    # Trap: a consumer keeping its own copy of a gate's fields or rows.
    assert dict(GATE_FIELDS) == {name: spec.reads for name, spec in GATE_SPECS.items()}
    assert CALIFORNIA.gates == {name: spec.informs for name, spec in GATE_SPECS.items()}
    assert california_mapping() == CALIFORNIA


def test_the_case_models_are_read_from_the_suite_union() -> None:
    # Trap: a gate whose suite is in the union but whose case model is missing from a table.
    assert {name: suite for name, (_, suite, _, _) in BUILT_IN.items()} == SUITE_MODELS
    assert {name: case for name, (case, _, _, _) in BUILT_IN.items()} == CASE_MODELS
    assert set(get_args(AnyCase)) == set(CASE_MODELS.values())


def test_the_registry_refuses_specs_that_are_not_one_per_gate_name_in_order() -> None:
    # Trap: a gate forgotten in the registry, so its suites load but are never scored.
    specs = tuple(GATE_SPECS.values())
    with pytest.raises(RuntimeError, match="not one per GateName"):
        _declared(specs[:-1])
    with pytest.raises(RuntimeError, match="not one per GateName"):
        _declared((specs[1], specs[0], *specs[2:]))
    swapped = replace(specs[0], case_model=GoldenCase)
    with pytest.raises(RuntimeError, match="'grounding': its spec names another gate's models"):
        _declared((swapped, *specs[1:]))
    assert _declared(specs) == dict(GATE_SPECS)


def test_a_spec_refuses_a_gate_that_informs_nothing_or_reads_no_text() -> None:
    # Trap: a gate with no row in the mapping, or one that could pass without reading text.
    with pytest.raises(ValueError, match="'echo' informs no California item"):
        replace(SPEC, informs=())
    with pytest.raises(ValueError, match="'echo' does not read the answer's text"):
        replace(SPEC, reads=frozenset({FieldName.REFUSED}))


def test_a_gate_with_options_reads_them_and_one_without_ignores_them() -> None:
    # Trap: grounding's retrieval check or golden's exact comparison lost in the dispatch.
    grounding = GATE_SPECS[GateName.GROUNDING]
    cited = response(text="Open at 9.", citations=("RB-9",))
    case = GroundingCase(id="g", language="en", prompt="When?", expect_grounded=True)
    assert not grounding.judge_as(case, cited, Asked()).passed
    assert grounding.judge_as(case, cited, Asked(without=frozenset({FieldName.CONTEXT_IDS})))
    golden = GoldenCase(id="k", language="en", prompt="When?", expected="At 9.")
    assert not judge(golden, response(text="At ten."), exact=True).passed
    assert judge(golden, response(text="At ten."), exact=False).passed
    echo = EchoCase(id="e", language="en", prompt="Say it.", word="it")
    assert SPEC.judge_as(echo, response(text="it"), Asked(exact=False)).passed


def test_a_case_no_gate_judges_is_refused() -> None:
    # Trap: a case of an unregistered gate scored by some other gate, or passed by default.
    echo = EchoCase(id="e", language="en", prompt="Say it.", word="it")
    with pytest.raises(TypeError, match="no gate grades a EchoCase"):
        judge(echo, response(text="it"))  # type: ignore[arg-type]


# ---------------------------------------------------------------- a gate declared in a test


def test_a_registered_gate_is_scored_counted_and_listed() -> None:
    # Trap: a consumer with its own table of gates, which a new gate does not reach.
    with registered(SPEC):
        assert GATE_SPECS[ECHO] is SPEC and GATES[ECHO] is echo_gate.judge
        assert list(GATES)[-1] is ECHO and len(GATES) == len(GateName) + 1

        passing, silent = _run(silent=False), _run(silent=True)
        [gate] = passing.gates
        assert (gate.gate, gate.passed, gate.total, gate.met) == (ECHO, 2, 2, True)
        assert passing.suites[0].capability is True
        assert [case.outcome for case in silent.cases] == [Outcome.FAILED, Outcome.FAILED]
        assert silent.cases[0].reason == (
            "unreadable answer: ''; does not say 'river', which the case requires"
        )
        assert suite_needs(_echo_suite()).fields == {FieldName.TEXT}

        drift = compare(silent, passing)
        assert {change.gate for change in drift.newly_failing} == {ECHO}
        assert (drift.safety, drift.competence) == (Direction.REGRESSED, Direction.UNCHANGED)
        assert _family("pass_rate", "echo", []).value == "safety"

        mapping = california_mapping()
        assert mapping.gates[ECHO] == SPEC.informs
        assert [row for place, row in iter_rows(mapping) if place == "echo"] == list(SPEC.informs)

        [doc] = [doc for doc in describe_gates() if doc.name == "echo"]
        assert doc.enforces == (
            "The echo gate: an answer must repeat the case's word back, and silence repeats "
            "nothing."
        )
        assert [key.name for key in doc.case_keys] == ["word"]

    assert ECHO not in GATE_SPECS and ECHO not in california_mapping().gates
    # A mapping built while the gate was registered still lists its rows, after the others.
    assert list(iter_rows(mapping))[-3].place == "echo"
    rows = inventory_rows(SuiteSet((_echo_suite(),)))
    assert [(row["gate"], row["languages"]) for row in rows] == [("echo", {"en": 1, "es": 1})]


def test_a_registered_gate_counts_in_the_family_its_spec_names() -> None:
    # Trap: drift deciding a gate's family by anything but its spec.
    with registered(replace(SPEC, family=GateFamily.COMPETENCE)):
        drift = compare(_run(silent=True), _run(silent=False))
        assert (drift.safety, drift.competence) == (Direction.UNCHANGED, Direction.REGRESSED)
        assert family_of("echo") is GateFamily.COMPETENCE
        assert _family("pass_rate", "echo", []).value == "competence"


def test_a_gate_cannot_be_registered_twice_or_over_another() -> None:
    # Trap: a registration that silently replaces a built-in gate's rules.
    over_golden = replace(GATE_SPECS[GateName.GOLDEN], case_model=EchoCase)
    golden_cases = replace(SPEC, case_model=GoldenCase)
    for spec, name in ((over_golden, "golden"), (golden_cases, "echo")):
        with pytest.raises(ValueError, match=f"'{name}'.* registered already"):
            registered(spec).__enter__()
    with registered(SPEC):
        with pytest.raises(ValueError, match="'echo'.* registered already"):
            registered(SPEC).__enter__()
        assert GATE_SPECS[ECHO] is SPEC
    assert list(GATE_SPECS) == list(GateName)
