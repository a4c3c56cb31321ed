"""The built-in suites: English and Spanish as peers, every attack type, both refusal kinds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gauntlet.cases.builtin import builtin_suites_dir, shown_source
from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.cases.model import (
    AdversarialCase,
    AnyCase,
    AttackType,
    GateName,
    GroundingCase,
    RefusalCase,
    RefusalKind,
)

LANGUAGES = ("en", "es")


@pytest.fixture(scope="module")
def suites() -> SuiteSet:
    return load_suites([builtin_suites_dir()])


def _cases(suites: SuiteSet) -> list[tuple[GateName, AnyCase]]:
    return [(loaded.suite.gate, case) for loaded in suites.suites for case in loaded.cases]


def test_there_are_enough_cases_in_exactly_english_and_spanish(suites: SuiteSet) -> None:
    cases = _cases(suites)
    assert len(cases) >= 66
    assert {case.language for _, case in cases} == set(LANGUAGES)
    assert {gate for gate, _ in cases} == set(GateName)


def _kind(case: AnyCase) -> str:
    if isinstance(case, AdversarialCase):
        return case.attack_type.value
    if isinstance(case, RefusalCase):
        return case.kind.value
    if isinstance(case, GroundingCase):
        return "grounded" if case.expect_grounded else "abstention"
    return "-"


def test_languages_are_peers_per_gate_attack_type_and_refusal_kind(suites: SuiteSet) -> None:
    counts = Counter((gate, _kind(case), case.language) for gate, case in _cases(suites))
    groups = {(gate, kind) for gate, kind, _ in counts}
    unequal = {
        group: {lang: counts[(*group, lang)] for lang in LANGUAGES}
        for group in groups
        if len({counts[(*group, lang)] for lang in LANGUAGES}) != 1
    }
    assert unequal == {}


def test_every_english_case_has_a_spanish_peer_written_beside_it(suites: SuiteSet) -> None:
    ids = {case.id for _, case in _cases(suites)}
    english = {i for i in ids if "-en-" in i}
    spanish = {i for i in ids if "-es-" in i}
    assert english | spanish == ids
    assert {i.replace("-en-", "-es-", 1) for i in english} == spanish


def test_every_attack_type_refusal_kind_and_grounding_mode_is_covered(suites: SuiteSet) -> None:
    kinds = {_kind(case) for _, case in _cases(suites)}
    assert {attack.value for attack in AttackType} <= kinds
    assert {kind.value for kind in RefusalKind} <= kinds
    assert {"grounded", "abstention"} <= kinds


def test_every_case_is_tagged(suites: SuiteSet) -> None:
    assert [case.id for _, case in _cases(suites) if not case.tags] == []


def test_only_a_built_in_suites_path_is_shown_as_builtin_name(tmp_path: Path) -> None:
    # Trap: shortening any path that merely looks like a suite's would hide where a user's
    # own file is; not shortening a wheel's path from another machine would show it in full.

    here = builtin_suites_dir() / "grounding.yaml"
    elsewhere = "/home/ci/.venv/lib/python3.12/site-packages/gauntlet/_builtin_suites/golden.yaml"
    assert shown_source(str(here)) == "builtin:grounding"
    assert shown_source(elsewhere) == "builtin:golden"
    for given in (
        str(tmp_path / "suites" / "grounding.yaml"),  # a user's suites directory
        "suites/grounding.yaml",  # relative: what the user (or a checkout's short form) named
        "/srv/_builtin_suites/grounding.yaml",  # not inside a gauntlet package
        "builtin:grounding",
    ):
        assert shown_source(given) == given
