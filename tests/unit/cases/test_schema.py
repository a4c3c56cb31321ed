"""The committed JSON Schemas are the generated ones; the case-file one agrees with the loader."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.feature_file import feature_schema
from gauntlet.cases.loader import parse_suite
from gauntlet.cases.model import case_file_schema
from gauntlet.cases.persona import PERSONA_FILE, builtin_personas_dir, persona_file_schema
from gauntlet.cases.waivers import waivers_schema
from gauntlet.cases.yaml_nodes import decode_source, read_document
from gauntlet.errors import ConfigErrors, ConfigSchemaError
from gauntlet.evidence.pack import evidence_schema
from gauntlet.semantic.calibration import similarity_record_schema
from gauntlet.semantic.labels import similarity_labels_schema
from gauntlet.targets.spec import target_file_schema

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus"
TARGETS = CORPUS / "targets"
"""Target files, not case files: tests/unit/targets/test_target_file.py checks them."""
PERSONAS = CORPUS / "personas"
"""Persona files, not case files: compared with their own schema below."""

# Rules the loader enforces that one file's JSON Schema cannot express. Files refused before
# any schema applies (size, encoding, BOM, NUL, YAML syntax, duplicate keys, anchors, aliases,
# tags, several documents, YAML 1.1 booleans, NaN, nesting depth) have no data to compare and
# are left out. A file refused only for one of these may pass the schema; every other verdict
# of the loader and of jsonschema must agree.
BEYOND_THE_SCHEMA = {
    "duplicate case id": "uniqueness of one field across list items, and across files",
    "duplicate suite name": "a rule across files",
    "only invisible characters": "which characters are invisible (Unicode properties)",
    "is not a regular expression": "which patterns the regex engine compiles",
    "is declared in the case's or the suite's": "a reference from a case to the suite's tools",
    "a second default result": "uniqueness of a property across list items",
    "is already declared for this case": "uniqueness of a name across the suite's and a case's",
    "not a JSON Schema": "the JSON Schema meta-schema, inside a case file",
    "give no markers in that language": "each case's language, or its primary subtag, looked "
    "up among the keys of every element of the suite",
    "pair '": "a key shared across list items: one case per language, of one shape",
    "is not one of the suite's languages": "a reference from a case to the suite's languages",
    "but the suite's parity is required": "a key every list item needs under a suite's setting",
    "is not one of the suite's (declared": "a reference from a case to the suite's transforms",
    "repeated transform best_of_n": "two `{best_of_n: N, seed: S}` that differ are unique items",
    "too short to be looked for in an encoded reply": "a marker's letters and digits, counted "
    "after normalising, against the transforms a case gets",
}


GENERATORS: dict[str, Callable[[], dict[str, Any]]] = {
    "cases": case_file_schema,
    "evidence": evidence_schema,
    "target": target_file_schema,
    "waivers": waivers_schema,
    "feature": feature_schema,
    "similarity-labels": similarity_labels_schema,
    "similarity-calibration": similarity_record_schema,
    "personas": persona_file_schema,
}
"""Each schema `make schemas` commits under schemas/, by `gauntlet schema` name."""


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_the_committed_schema_is_the_generated_one(name: str) -> None:
    generated = json.dumps(GENERATORS[name](), indent=2, ensure_ascii=False) + "\n"
    committed = ROOT / "schemas" / f"{name}.schema.json"
    assert committed.read_text(encoding="utf-8") == generated, "run `make schemas`"


def test_every_committed_schema_is_checked() -> None:
    assert sorted(path.name for path in (ROOT / "schemas").iterdir()) == [
        f"{name}.schema.json" for name in sorted(GENERATORS)
    ]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(case_file_schema())


def _data(path: Path) -> Any:
    """The file's data as the strict reader sees it, or None when it refuses the YAML itself."""
    try:
        return read_document(decode_source(path.read_bytes(), str(path)), str(path)).data
    except ConfigErrors:
        return None


def _comparable_files() -> list[Path]:
    case_files = [
        path
        for path in CORPUS.glob("**/*.yaml")
        if TARGETS not in path.parents and PERSONAS not in path.parents
    ]
    files = sorted(case_files) + sorted(builtin_suites_dir().glob("*.yaml"))
    return [path for path in files if _data(path) is not None]


def test_the_comparison_covers_the_corpus() -> None:
    assert len(_comparable_files()) >= 40


def _loader_verdict(path: Path) -> tuple[bool, list[str]]:
    try:
        parse_suite(path.read_bytes(), str(path))
    except ConfigErrors as exc:
        return False, [error.message for error in exc.errors]
    return True, []


@pytest.mark.parametrize("path", _comparable_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_jsonschema_and_the_loader_agree(path: Path) -> None:
    data = _data(path)
    validator = jsonschema.Draft202012Validator(case_file_schema())
    schema_errors = [error.message for error in validator.iter_errors(data)]
    accepted, loader_errors = _loader_verdict(path)
    if accepted:
        assert schema_errors == [], f"the loader accepts {path} but the schema refuses it"
    elif schema_errors == []:
        beyond = [m for m in loader_errors if any(rule in m for rule in BEYOND_THE_SCHEMA)]
        assert beyond == loader_errors, (
            f"the loader refuses {path} for a rule the schema should express: {loader_errors}"
        )


def test_schema_errors_are_schema_errors() -> None:
    with pytest.raises(ConfigErrors) as caught:
        parse_suite("suite: s\ngate: golden\n", "x.yaml")
    assert all(isinstance(error, ConfigSchemaError) for error in caught.value.errors)


# Rules of a persona file its JSON Schema cannot express: across files, across keys (a count
# against `max_turns`, a goal's gate against the keys it needs), and text compared as markers.
PERSONA_RULES_BEYOND_THE_SCHEMA = {
    "duplicate persona id": "uniqueness of one field across files",
    "says what its": "messages compared after normalising (case, accents, invisible characters)",
    "tactics for max_turns": "a list's length against another key's value",
    "an adversarial goal needs": "keys a goal needs for its gate, per language",
    "a refusal goal needs 'kind'": "a key a goal needs for its gate",
    "belong to a refusal goal": "keys a goal may not have for its gate",
    "belongs to an adversarial goal": "a key a goal may not have for its gate",
    "is for a crisis goal only": "a key a goal (or a language) may have only for one kind",
    "is the language of": "keys compared without regard to case",
}


def _persona_files() -> list[Path]:
    files = sorted(PERSONAS.glob("**/*.yaml")) + sorted(builtin_personas_dir().glob("*.yaml"))
    return [path for path in files if _data(path) is not None and not path.is_symlink()]


def test_the_persona_comparison_covers_the_corpus_and_the_library() -> None:
    assert len(_persona_files()) >= 30


@pytest.mark.parametrize("path", _persona_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_jsonschema_and_the_persona_loader_agree(path: Path) -> None:
    # Trap: a persona file an editor's schema marks valid that gauntlet refuses (or the
    # reverse) for a rule the schema could have said, such as a written null.
    data = _data(path)
    validator = jsonschema.Draft202012Validator(persona_file_schema())
    schema_errors = [error.message for error in validator.iter_errors(data)]
    try:
        PERSONA_FILE.parse(path.read_bytes(), str(path))
    except ConfigErrors as exc:
        loader_errors = [error.message for error in exc.errors]
    else:
        assert schema_errors == [], f"the loader accepts {path} but the schema refuses it"
        return
    if schema_errors == []:
        beyond = [m for m in loader_errors if any(r in m for r in PERSONA_RULES_BEYOND_THE_SCHEMA)]
        assert beyond == loader_errors, (
            f"the loader refuses {path} for a rule the schema should express: {loader_errors}"
        )
