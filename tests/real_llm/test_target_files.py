"""The target files `make real-llm` uses are valid, and say what its tests assume they say.

These need no server: they run in `make verify`, so a change to the target file format that
breaks an example fails there, not only in the next `make real-llm`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import GroundingSuite
from gauntlet.cases.yaml_nodes import decode_source, read_document
from gauntlet.languages import PEERS
from gauntlet.targets.spec import (
    TARGET_FILE_ADAPTER,
    Absent,
    CitationsFromText,
    DecisionFromText,
    OpenAIChatSpec,
)

from .conftest import (
    EXAMPLE,
    NO_SERVER,
    SUITES,
    TOOL_CASES,
    TOOL_TARGET,
    URL_VARIABLE,
    example_base_url,
    materialise,
    suites_without_context_ids,
)

HERE = Path(__file__).resolve().parent


def _load(path: Path) -> OpenAIChatSpec:
    data = read_document(decode_source(path.read_bytes(), str(path)), str(path)).data
    spec = TARGET_FILE_ADAPTER.validate_python(data)
    assert isinstance(spec, OpenAIChatSpec)
    return spec


@pytest.mark.parametrize("path", [EXAMPLE, TOOL_TARGET], ids=lambda p: p.name)
def test_the_target_file_is_valid_and_deterministic(path: Path) -> None:
    spec = _load(path)
    assert spec.model == "smollm2"  # the alias scripts/real_llm.py gives the server
    assert spec.temperature == 0
    assert spec.extra_body["seed"] == 0
    assert spec.http.timeout >= 120  # asks wait in the server's queue


def test_the_example_names_the_url_make_real_llm_serves_and_streams() -> None:
    # Trap: the README's example pointing somewhere `make real-llm` does not serve, so the run
    # that proves it works has to rewrite it, and then proves nothing of the file itself.
    spec = _load(EXAMPLE)
    assert spec.base_url == example_base_url() == "http://127.0.0.1:8080/v1"
    assert spec.stream is True
    assert spec.max_tokens is not None


def test_the_examples_derive_what_the_server_cannot_report() -> None:
    response = _load(EXAMPLE).response
    assert response.context_ids == Absent(absent=True)
    assert isinstance(response.citations, CitationsFromText)
    found = re.findall(response.citations.from_text, "See [RB-001] and [RB-12].")
    assert found == ["RB-001", "RB-12"]
    assert isinstance(response.refused, DecisionFromText)
    assert isinstance(response.escalated, DecisionFromText)
    for decision in (response.refused, response.escalated):
        assert set(decision.from_text) == set(PEERS)  # every language the suites speak
    for language in PEERS:
        assert "988" in response.escalated.from_text[language]
    # "línea" alone is also "en línea" (online): it would escalate ordinary answers.
    assert not {"línea", "linea"} & {
        phrase.casefold() for phrase in response.escalated.from_text["es"]
    }


def test_the_tool_call_target_forces_a_tool_it_offers() -> None:
    body: dict[str, Any] = _load(TOOL_TARGET).extra_body
    offered = [tool["function"]["name"] for tool in body["tools"]]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "lookup_service"}}
    assert offered == ["lookup_service"]
    # An enum ends the grammar-forced JSON early: a cut-off call would not be JSON.
    topic = body["tools"][0]["function"]["parameters"]["properties"]["topic"]
    assert topic["enum"]


def test_the_tool_call_cases_load() -> None:
    assert load_suites([TOOL_CASES]).case_total == 1


@pytest.mark.parametrize("stream", [None, False, True])
@pytest.mark.parametrize("path", [EXAMPLE, TOOL_TARGET], ids=lambda p: p.name)
def test_a_materialised_file_points_at_the_server(
    path: Path, stream: bool | None, tmp_path: Path
) -> None:
    original = _load(path)
    written = materialise(
        path, tmp_path / "t.yaml", base_url="http://127.0.0.1:41234/v1", stream=stream
    )
    spec = _load(written)
    assert spec.base_url == "http://127.0.0.1:41234/v1"
    assert spec.stream is (original.stream if stream is None else stream)
    assert spec.model_dump(exclude={"base_url", "stream"}) == original.model_dump(
        exclude={"base_url", "stream"}
    )


def test_the_suite_copies_differ_only_in_accepting_an_absent_context_ids(tmp_path: Path) -> None:
    originals = load_suites([SUITES]).suites
    suites_without_context_ids(tmp_path)
    copies = {loaded.suite.suite: loaded.suite for loaded in load_suites([tmp_path]).suites}
    assert set(copies) == {loaded.suite.suite for loaded in originals}
    groundings = 0
    for loaded in originals:
        copy = copies[loaded.suite.suite]
        if isinstance(loaded.suite, GroundingSuite):
            groundings += 1
            assert loaded.suite.accepts_absent == ()
            assert isinstance(copy, GroundingSuite)
            assert copy.accepts_absent == ("context_ids",)
            assert copy.model_copy(update={"accepts_absent": ()}) == loaded.suite
        else:
            assert copy == loaded.suite
    assert groundings == 1


def test_materialise_refuses_a_file_it_cannot_rewrite(tmp_path: Path) -> None:
    source = tmp_path / "nested.yaml"
    source.write_text("kind: openai-chat\nhttp:\n  base_url: x\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="expected one top-level base_url line, found 0"):
        materialise(source, tmp_path / "out.yaml", base_url="http://127.0.0.1:1/v1")


def test_without_a_server_every_acceptance_test_is_skipped_saying_why(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != URL_VARIABLE}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rs",
            str(HERE / "test_transport.py"),
            str(HERE / "test_server.py"),
        ],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.splitlines()[-1]
    assert re.search(r"\b\d+ skipped\b", summary), done.stdout
    assert "passed" not in summary and "failed" not in summary, done.stdout
    assert NO_SERVER in done.stdout
