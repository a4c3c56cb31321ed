"""The built-in suites: their languages as peers, every attack type, both refusal kinds."""

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
from gauntlet.languages import PEERS

LANGUAGES = ("en", "es")
"""The languages every built-in suite is written in; a suite may declare more (`languages`)."""


@pytest.fixture(scope="module")
def suites() -> SuiteSet:
    return load_suites([builtin_suites_dir()])


def _cases(suites: SuiteSet) -> list[tuple[GateName, AnyCase]]:
    return [(loaded.suite.gate, case) for loaded in suites.suites for case in loaded.cases]


def test_there_are_enough_cases_in_exactly_the_languages_each_suite_declares(
    suites: SuiteSet,
) -> None:
    # Trap: a suite that declares a language and writes no case in it (or writes cases in one
    # it does not declare), so a run reports a language as tested that nothing tested.
    cases = _cases(suites)
    assert len(cases) >= 66
    for loaded in suites.suites:
        declared = set(loaded.suite.languages or ())
        assert set(LANGUAGES) <= declared <= set(PEERS), loaded.suite.suite
        assert {case.language for case in loaded.suite.cases} == declared, loaded.suite.suite
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
    unequal = {}
    for loaded in suites.suites:
        declared = tuple(loaded.suite.languages or LANGUAGES)
        counts = Counter((_kind(case), case.language) for case in loaded.suite.cases)
        for kind in {kind for kind, _ in counts}:
            by_language = {lang: counts[(kind, lang)] for lang in declared}
            if len(set(by_language.values())) != 1:
                unequal[(loaded.suite.suite, kind)] = by_language
    assert unequal == {}


def test_every_english_case_has_a_peer_in_each_language_its_suite_declares(
    suites: SuiteSet,
) -> None:
    for loaded in suites.suites:
        ids = {case.id for case in loaded.suite.cases}
        english = {i for i in ids if "-en-" in i}
        for language in loaded.suite.languages or LANGUAGES:
            written = {i for i in ids if f"-{language}-" in i}
            assert {i.replace("-en-", f"-{language}-", 1) for i in english} == written, language
        assert all(
            any(f"-{lang}-" in i for lang in loaded.suite.languages or LANGUAGES) for i in ids
        )


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
