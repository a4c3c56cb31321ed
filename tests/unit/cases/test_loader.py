"""The loader: files and directories, rules across files, and located schema errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.file_words import by_position, relevant
from gauntlet.cases.loader import CASE_FILE, load_suites, parse_suite
from gauntlet.cases.model import SUITE_ADAPTER, GateName, GroundingCase
from gauntlet.cases.yaml_nodes import MAX_FILE_BYTES, Mark
from gauntlet.errors import ConfigError, ConfigErrors

from .suite_text import grounding_suite


def _errors(*paths: Path | str) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        load_suites(list(paths))
    return [error.render() for error in caught.value.errors]


def test_parse_suite_keeps_where_each_case_came_from() -> None:
    loaded = parse_suite(grounding_suite("s", "a", "b"), "x.yaml")
    assert loaded.suite.gate is GateName.GROUNDING
    assert [case.id for case in loaded.cases] == ["a", "b"]
    assert isinstance(loaded.cases[0], GroundingCase)
    assert loaded.case_marks == (Mark(6, 5), Mark(10, 5))
    assert loaded.id_marks == (Mark(6, 9), Mark(10, 9))
    assert loaded.name_mark == Mark(1, 8)


def test_parse_suite_accepts_bytes_and_checks_them() -> None:
    assert parse_suite(grounding_suite().encode(), "x.yaml").suite.suite == "s"
    with pytest.raises(ConfigErrors):
        parse_suite(b"\xef\xbb\xbf" + grounding_suite().encode(), "x.yaml")


def test_a_directory_is_searched_recursively_in_a_stable_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "z").mkdir(parents=True)
    (tmp_path / "b" / "one.yaml").write_text(grounding_suite("b1", "b1"))
    (tmp_path / "a" / "z" / "two.yaml").write_text(grounding_suite("az2", "az2"))
    (tmp_path / "a" / "three.yaml").write_text(grounding_suite("a3", "a3"))
    (tmp_path / "notes.md").write_text("not a case file")
    loaded = load_suites([tmp_path])
    assert [s.suite.suite for s in loaded.suites] == ["a3", "az2", "b1"]
    assert loaded.suites[0].source == str(tmp_path / "a" / "three.yaml")


def test_a_single_file_may_be_named(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(grounding_suite())
    assert len(load_suites([path]).suites) == 1


def test_the_same_file_reached_twice_is_loaded_once(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(grounding_suite())
    assert len(load_suites([tmp_path, path]).suites) == 1


@pytest.mark.parametrize("name", ["suite.yml", "suite.YAML", "suite.Yml"])
def test_a_near_miss_suffix_is_an_error_not_a_skip(tmp_path: Path, name: str) -> None:
    (tmp_path / "good.yaml").write_text(grounding_suite())
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / name).write_text(grounding_suite("other", "other"))
    [problem] = _errors(tmp_path)
    assert problem.startswith(f"{tmp_path / 'deep' / name}:1:1: case files must end in .yaml")


def test_a_named_yml_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "x.yml"
    path.write_text(grounding_suite())
    [problem] = _errors(path)
    assert "must end in .yaml, not .yml" in problem


def test_a_named_file_of_another_kind_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{}")
    assert _errors(path) == [f"{path}: not a case file: case files end in .yaml"]


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    [problem] = _errors(tmp_path)
    assert problem.startswith(f"{tmp_path}: no case files (*.yaml) in this directory")


def test_a_missing_path_is_an_error(tmp_path: Path) -> None:
    assert _errors(tmp_path / "nope") == [f"{tmp_path / 'nope'}: no such file or directory"]


def test_no_paths_at_all_is_an_error() -> None:
    assert _errors() == [".: no case files or directories were given"]


def test_a_file_with_no_cases_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases: []\n"
    )
    [problem] = _errors(tmp_path)
    assert problem.endswith("s.yaml:5:8: cases: a suite needs at least one case")


def test_a_symlink_out_of_the_directory_is_an_error(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    inside = tmp_path / "cases"
    outside.mkdir()
    inside.mkdir()
    (outside / "x.yaml").write_text(grounding_suite("x", "x"))
    (inside / "good.yaml").write_text(grounding_suite())
    (inside / "file-link.yaml").symlink_to(outside / "x.yaml")
    (inside / "dir-link").symlink_to(outside)
    problems = _errors(inside)
    assert len(problems) == 2
    assert all("symlink leads out of the case directory" in p for p in problems)


def test_a_dangling_symlink_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(grounding_suite())
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "missing.yaml")
    [problem] = _errors(tmp_path)
    assert "symlink points to nothing" in problem


def test_a_symlink_inside_the_directory_is_followed_once(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "s.yaml").write_text(grounding_suite())
    (tmp_path / "alias.yaml").symlink_to(tmp_path / "real" / "s.yaml")
    (tmp_path / "alias-dir").symlink_to(tmp_path / "real")
    loaded = load_suites([tmp_path])
    assert len(loaded.suites) == 1


def test_an_unreadable_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(grounding_suite())

    def refuse(path: Path, *, limit: int, what: str) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("gauntlet.cases.strict_file.read_regular_file", refuse)
    assert _errors(path) == [f"{path}: cannot read: Permission denied"]


def test_duplicate_ids_across_files_name_both_places(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(grounding_suite("a", "same"))
    (tmp_path / "b.yaml").write_text(grounding_suite("b", "other", "same"))
    [problem] = _errors(tmp_path)
    assert problem == (
        f"{tmp_path / 'b.yaml'}:10:9: cases[1].id: duplicate case id 'same'\n"
        f"  hint: first defined at {tmp_path / 'a.yaml'}:6:9; "
        "case ids must be unique across every loaded suite"
    )


def test_duplicate_ids_across_directories_are_caught(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.yaml").write_text(grounding_suite(name, "same"))
    [problem] = _errors(tmp_path / "one", tmp_path / "two")
    assert "duplicate case id 'same'" in problem


def test_duplicate_suite_names_name_both_places(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(grounding_suite("same", "a"))
    (tmp_path / "b.yaml").write_text(grounding_suite("same", "b"))
    [problem] = _errors(tmp_path)
    assert problem.startswith(f"{tmp_path / 'b.yaml'}:1:8: suite: duplicate suite name 'same'")
    assert f"first used at {tmp_path / 'a.yaml'}:1:8" in problem


def test_several_suites_may_share_a_gate(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(grounding_suite("a", "a"))
    (tmp_path / "b.yaml").write_text(grounding_suite("b", "b"))
    counts = load_suites([tmp_path]).counts()
    assert counts[GateName.GROUNDING].suites == 2


def test_every_file_is_checked_before_reporting(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("suite: a\nsuite: b\n")
    (tmp_path / "b.yaml").write_text(grounding_suite("b").replace("1.0", "0"))
    (tmp_path / "c.yml").write_text("")
    assert len(_errors(tmp_path)) == 3


def test_an_oversized_file_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk

    def never(descriptor: int, size: int) -> bytes:
        raise AssertionError("an oversized file must not be read")

    with monkeypatch.context() as patched:
        patched.setattr(os, "read", never)
        [problem] = _errors(path)
    assert problem == (
        f"{path}:1:1: file is 8,388,609 bytes, over the 8,388,608-byte limit for a case file\n"
        "  hint: split the suite into several files"
    )


def test_find_case_files_reports_into_the_list_it_is_given(tmp_path: Path) -> None:
    errors: list[ConfigError] = []
    assert CASE_FILE.find([tmp_path / "missing"], errors) == []
    assert len(errors) == 1


ONE_GATE_BUILT = """\
import json, sys
from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import SUITE_ADAPTER, SUITE_MODELS
load_suites([sys.argv[1]])
built = sorted(gate.value for gate, model in SUITE_MODELS.items() if model.__pydantic_complete__)
print(json.dumps([built, SUITE_ADAPTER.pydantic_complete]))
"""


def test_a_case_file_builds_only_its_own_gates_suite_validator(tmp_path: Path) -> None:
    # Trap: every case file validated through the union of the seven gates' suites, whose
    # validator holds all seven: the first file read paid for six suites it is not, before
    # any case of a run was asked.
    path = tmp_path / "one.yaml"
    path.write_text(grounding_suite())
    completed = subprocess.run(  # our interpreter, a fixed script
        [sys.executable, "-c", ONE_GATE_BUILT, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(completed.stdout) == [["grounding"], False]


CORPUS = Path(__file__).parents[2] / "corpus"


@pytest.mark.parametrize(
    "path",
    [*sorted((CORPUS / "valid").glob("*.yaml")), *sorted(builtin_suites_dir().glob("*.yaml"))],
    ids=lambda path: path.name,
)
def test_a_case_file_read_by_its_gates_suite_alone_is_what_the_union_reads(path: Path) -> None:
    # Trap: the gate's own suite model taking a file the union would word otherwise (or
    # building another suite from it): each valid file must give the very suite the union gives.
    parsed = CASE_FILE.parse(path.read_bytes(), str(path))
    union = SUITE_ADAPTER.validate_json(json.dumps(parsed.document.data), strict=True)
    assert type(parsed.model) is type(union)
    assert parsed.model == union


@pytest.mark.parametrize(
    "path", sorted((CORPUS / "invalid").glob("*/cases/*.yaml")), ids=lambda path: path.parts[-3]
)
def test_a_refused_case_file_is_worded_from_the_unions_own_errors(path: Path) -> None:
    # Trap: a file refused by its gate's suite model worded from that model's errors, which
    # lack the union's gate tag in every location, so a message would point at the wrong key.
    source, raw = str(path), path.read_bytes()
    try:
        document = CASE_FILE.document(raw, source)
    except ConfigErrors:
        return  # refused before any model is asked
    try:
        union = SUITE_ADAPTER.validate_json(json.dumps(document.data), strict=True)
    except ValidationError as exc:
        errors = CASE_FILE.schema_errors(relevant(exc.errors(include_url=False)), document, source)
        with pytest.raises(ConfigErrors) as caught:
            CASE_FILE.parse(raw, source)
        worded = [error.render() for error in sorted(errors, key=by_position)]
        assert [error.render() for error in caught.value.errors] == worded
    else:  # refused only by the rules across cases or files
        assert CASE_FILE.parse(raw, source).model == union
