"""Large inputs stay bounded: counted work, not timed work (machines here are shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.cases import strict_file, yaml_nodes
from gauntlet.cases.file_words import FileWords
from gauntlet.cases.loader import load_suites, parse_suite
from gauntlet.errors import ConfigErrors

CASE = (
    "  - id: case-{n}\n"
    "    language: {lang}\n"
    "    prompt: Where is service number {n} offered in Riverbend?\n"
    "    expect_grounded: true\n"
    '    must_contain: ["service", "{n}"]\n'
    "    tags: [scale]\n"
)


def _suite(count: int) -> str:
    head = "suite: scale\ngate: grounding\nversion: 1\nthreshold: 0.9\ncases:\n"
    return head + "".join(CASE.format(n=n, lang="en" if n % 2 else "es") for n in range(count))


EVENTS_PER_CASE = 19  # mapping start and end, 6 keys, 4 values, a 2-item and a 1-item list
EVENTS_PER_FILE = 17  # stream, document, top mapping, its 5 keys and 4 values, the case list


@pytest.mark.parametrize("count", [1, 5_000])
def test_a_5000_case_file_loads_with_work_linear_in_its_size(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents: list[yaml_nodes.Document] = []
    read = yaml_nodes.read_document

    def counting(text: str, source: str, words: FileWords) -> yaml_nodes.Document:
        documents.append(read(text, source, words))
        return documents[-1]

    monkeypatch.setattr(strict_file, "read_document", counting)
    loaded = parse_suite(_suite(count), "scale.yaml")
    assert len(loaded.cases) == count
    assert loaded.case_marks[-1].line == 6 + (count - 1) * 6
    # Exactly one parser event per YAML node and end marker: the reader does no work per
    # case beyond reading it, and nothing is read twice.
    [document] = documents
    assert document.events == EVENTS_PER_CASE * count + EVENTS_PER_FILE


def test_a_10_mb_file_is_refused_before_any_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.yaml"
    text = _suite(1)
    path.write_text(text + "# padding\n" * (10_000_000 // 10), encoding="utf-8")
    assert path.stat().st_size > 10_000_000

    def never(text: str, source: str, words: FileWords) -> yaml_nodes.Document:
        raise AssertionError("an oversized file must not reach the parser")

    monkeypatch.setattr(strict_file, "read_document", never)
    with pytest.raises(ConfigErrors) as caught:
        load_suites([path])
    [error] = caught.value.errors
    assert error.location == f"{path}:1:1"
    assert "over the 8,388,608-byte limit" in error.message


def test_a_file_just_under_the_limit_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _suite(1)
    padded = text + "#" * (yaml_nodes.MAX_FILE_BYTES - len(text) - 1) + "\n"
    assert len(padded.encode()) == yaml_nodes.MAX_FILE_BYTES
    assert len(parse_suite(padded.encode(), "edge.yaml").cases) == 1


def test_a_valid_paired_suite_locates_each_case_and_its_id_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where a pair's cases are is worded only for an error: a valid file asks for the marks
    # its LoadedSuite keeps (each case, each id, the suite's name) and no others.
    head = "suite: p\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1.0\n"
    head += "languages: [en, es]\nparity: required\ncases:\n"
    case = "  - {{id: c-{n}-{lang}, language: {lang}, pair: p-{n}, prompt: q, expected: a}}\n"
    text = head + "".join(case.format(n=n, lang=lang) for n in range(50) for lang in ("en", "es"))
    asked: list[yaml_nodes.NodePath] = []
    mark_for = yaml_nodes.Document.mark_for

    def counting(self: yaml_nodes.Document, path: yaml_nodes.NodePath) -> yaml_nodes.Mark:
        asked.append(path)
        return mark_for(self, path)

    monkeypatch.setattr(yaml_nodes.Document, "mark_for", counting)
    assert len(parse_suite(text, "p.yaml").cases) == 100
    assert len(asked) == 2 * 100 + 1
