"""gauntlet's command line against llama.cpp's server: what the transport must guarantee.

Each test reads what a run or a probe printed and wrote; none judges the model's answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.yaml_nodes import decode_source, read_document
from gauntlet.languages import PEERS
from gauntlet.targets.contract import FieldName

from .conftest import (
    EXAMPLE,
    SUITES,
    TOOL_CASES,
    TOOL_TARGET,
    Run,
    materialise,
    read_results,
    requires_server,
    run_gauntlet,
    suites_without_context_ids,
)

pytestmark = requires_server

ANSWERED = ("passed", "failed")
"""A case or ask that got an answer; `errored` and `not_run` did not."""
ORIGINS = ("declared", "derived", "absent")
TOOL_NAME = "lookup_service"
TOPICS = ("library", "parking", "trash")
GROUNDING_SUITE = "riverbend-grounding"
"""The built-in grounding suite: refused unless it accepts an absent `context_ids`."""


def _trials(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for case in document["cases"]:
        for number, trial in enumerate(case["trials"], 1):
            yield f"{case['suite']}/{case['case_id']} ask {number}", trial


def _suites_with_tools() -> set[str]:
    """The built-in suites whose cases the scripted tool loop offers tools."""
    return {
        loaded.suite.suite
        for loaded in load_suites([SUITES]).suites
        if getattr(loaded.suite, "tools", ())
        or any(c.tools for c in loaded.cases if hasattr(c, "tools"))
    }


def _texts(document: dict[str, Any]) -> dict[str, list[str]]:
    """Every answer's text, by case: each turn's of a conversation, then the last."""
    texts: dict[str, list[str]] = {}
    for case in document["cases"]:
        answers = texts.setdefault(f"{case['suite']}/{case['case_id']}", [])
        for trial in case["trials"]:
            answers.extend(turn["response"]["text"] for turn in trial.get("turns", ()))
            answers.append(trial["response"]["text"] if trial["response"] else "<no answer>")
    return texts


def _unanswered(document: dict[str, Any]) -> list[str]:
    return [
        f"{case['suite']}/{case['case_id']}: {case['outcome']}: {case['reason']}"
        for case in document["cases"]
        if case["outcome"] not in ANSWERED
    ]


def _answered_run(run: Run) -> dict[str, Any]:
    """The results of a run that ended with a verdict (0 or 1) and every case answered."""
    result, out = run
    assert result.code in (0, 1), result.show()
    document = read_results(out, result)
    assert document["complete"] is True, result.show()
    assert _unanswered(document) == [], result.show()
    return document


# ---------------------------------------------------------------- (c) the built-in suites


@pytest.mark.parametrize("run", ["streamed_run", "whole_run"])
def test_the_built_in_suites_run_end_to_end_with_every_case_answered(
    run: str, request: pytest.FixtureRequest
) -> None:
    # Trap: the README's example passing a one-case smoke test while, at the default
    # concurrency, most cases time out or their streams are cut by the next request.
    document = _answered_run(request.getfixturevalue(run))
    as_written = [case for loaded in load_suites([SUITES]).suites for case in loaded.cases]
    assert len(document["cases"]) == sum(case.variant is None for case in as_written)
    assert document["no_transforms"] is True
    assert document["totals"]["errored"] == 0
    # The grounding suite ran from its copy that does without `context_ids`, and the results
    # say so; no other suite waived anything.
    waived = {suite["suite"]: suite["accepts_absent"] for suite in document["suites"]}
    assert waived == {
        suite: ["context_ids"] if suite == GROUNDING_SUITE else [] for suite in waived
    }
    offered = _suites_with_tools()
    for where, trial in _trials(document):
        assert trial["outcome"] in ANSWERED, f"{where}: {trial['reason']}"
        assert trial["response"] is not None, where
        calls = trial["response"]["tool_calls"]
        assert isinstance(calls, list), f"{where}: an openai-chat answer reports its calls"
        if where.split("/")[0] not in offered:
            assert calls == [], f"{where}: no tool was offered, so none can have been called"
    # Text arrived: a transport that dropped every answer's text would still "answer".
    assert any(text.strip() for texts in _texts(document).values() for text in texts)
    # Every peer language was asked and answered: the six-language suites, not a subset.
    assert {case["language"] for case in document["cases"]} == set(PEERS)


def test_every_answer_says_where_each_field_came_from(whole_run: Run) -> None:
    document = _answered_run(whole_run)
    for where, trial in _trials(document):
        provenance = trial["provenance"]
        contract = {name.value for name in FieldName} - {FieldName.TOOL_CALLS.value}
        assert set(provenance) >= contract, where
        for field, source in provenance.items():
            assert source["origin"] in ORIGINS, f"{where}: {field}: {source}"
        # What llama-cpp.yaml says of each field, whatever the model answered.
        assert provenance["text"]["origin"] == "declared", where
        assert provenance["citations"]["origin"] == "derived", where
        assert provenance["citations"]["rule"], where
        assert provenance["escalated"]["origin"] == "derived", where
        assert provenance["context_ids"]["origin"] == "absent", where


def test_the_recorded_text_is_what_the_server_sent(whole_run: Run, base_url: str) -> None:
    """Asked directly with the same request, the server says what the results hold."""
    document = _answered_run(whole_run)
    spec = read_document(decode_source(EXAMPLE.read_bytes(), str(EXAMPLE)), str(EXAMPLE)).data
    golden = [case for case in document["cases"] if case["suite"] == "riverbend-golden"]
    assert golden, "the built-in golden suite was not run"
    with httpx.Client(base_url=base_url, timeout=300) as client:
        for case in golden[:4]:
            body = {
                "model": spec["model"],
                "messages": [
                    {"role": "system", "content": spec["system"]},
                    {"role": "user", "content": case["prompt"]},
                ],
                "temperature": spec["temperature"],
                "max_tokens": spec["max_tokens"],
                **spec["extra_body"],
            }
            answer = client.post("/chat/completions", json=body)
            assert answer.status_code == 200, answer.text
            sent = answer.json()["choices"][0]["message"]["content"]
            assert case["trials"][0]["response"]["text"] == sent, case["case_id"]


# ---------------------------------------------------------------- (a) streamed or not


def test_streamed_and_whole_answers_are_assembled_the_same(
    whole_run: Run, streamed_run: Run
) -> None:
    whole = _texts(_answered_run(whole_run))
    streamed = _texts(_answered_run(streamed_run))
    assert streamed, "the streamed run asked nothing"
    assert set(streamed) == set(whole)
    differ = {
        case: {"whole": whole[case], "streamed": texts}
        for case, texts in streamed.items()
        if texts != whole[case]
    }
    assert differ == {}, json.dumps(differ, ensure_ascii=False, indent=1)


# ---------------------------------------------------------------- (b) a forced tool call


def test_a_forced_tool_call_comes_back_as_a_tool_call(base_url: str, tmp_path: Path) -> None:
    calls = {}
    for stream in (False, True):
        mode = "streamed" if stream else "whole"
        target = materialise(
            TOOL_TARGET, tmp_path / f"{mode}.yaml", base_url=base_url, stream=stream
        )
        out = tmp_path / f"{mode}.json"
        result = run_gauntlet("run", "--target", target, "--cases", TOOL_CASES, "--out", out)
        # The answer is a tool call and no text, so the case fails: 1, never an error (2).
        assert result.code in (0, 1), f"{mode}\n{result.show()}"
        [(where, trial)] = _trials(read_results(out, result))
        assert trial["outcome"] in ANSWERED, f"{mode}: {where}: {trial['reason']}"
        [call] = trial["response"]["tool_calls"]
        # A stream repeats the name in every fragment: it is taken once, never joined.
        assert call["name"] == TOOL_NAME, f"{mode}: {call}"
        assert isinstance(call["id"], str), f"{mode}: the server sends an id: {call}"
        assert call["id"], f"{mode}: {call}"
        arguments = call["arguments"]  # decoded from the server's JSON text
        assert set(arguments) == {"topic"}, f"{mode}: {call}"
        assert arguments["topic"] in TOPICS, f"{mode}: {call}"
        calls[mode] = (call["name"], call["arguments"])
    assert calls["streamed"] == calls["whole"]


# ---------------------------------------------------------------- (d) probe

PROBE_FIELD = re.compile(
    rf"^  (?P<field>\w+): (?P<value>.*)  <- (?P<origin>{'|'.join(ORIGINS)})"
    r"(?: \((?P<rule>.*)\))?$"
)
"""A field line of `gauntlet probe`: `  field: value  <- origin (rule)`; the value is JSON,
clipped with `…` when long; the rule is there when the field has one."""
PROBE_GATE = re.compile(r"^  (?P<suite>\S+) \((?P<gate>\w+)\): (?P<state>can run|refused)$")
"""A gate line of `gauntlet probe`: `  suite (gate): can run` or `refused`."""


def _section(output: str, title: str, until: str | None) -> list[str]:
    """The lines between `title:` and `until:` (or the end), each heading alone on its line."""
    lines = output.splitlines()
    assert lines.count(f"{title}:") == 1, f"no single `{title}:` line\n{output}"
    start = lines.index(f"{title}:") + 1
    end = lines.index(f"{until}:", start) if until is not None else len(lines)
    return lines[start:end]


def _probe_fields(output: str) -> dict[str, re.Match[str]]:
    """Each field line of the probe's `fields:` section, by field name (each named once)."""
    fields: dict[str, re.Match[str]] = {}
    for line in _section(output, "fields", "gates"):
        found = PROBE_FIELD.match(line)
        if found is not None:
            assert found["field"] not in fields, f"{found['field']} shown twice\n{output}"
            fields[found["field"]] = found
    return fields


def _probe_gates(output: str) -> dict[str, str]:
    """Each suite of the probe's `gates:` section, and whether it can run."""
    gates = {}
    for line in _section(output, "gates", None):
        found = PROBE_GATE.match(line)
        if found is not None:
            gates[found["suite"]] = found["state"]
    return gates


@pytest.mark.parametrize(
    ("stream", "question", "language", "accepting"),
    [
        pytest.param(False, (), "en", False, id="whole"),
        pytest.param(
            True,
            ("--prompt", "¿Cuál es el horario de la biblioteca?", "--language", "es"),
            "es",
            False,
            id="streamed-es",
        ),
        pytest.param(False, (), "en", True, id="whole-accepting-suites"),
    ],
)
def test_probe_shows_where_every_field_comes_from(
    base_url: str,
    tmp_path: Path,
    stream: bool,
    question: tuple[str, ...],
    language: str,
    accepting: bool,
) -> None:
    written = materialise(EXAMPLE, tmp_path / "target.yaml", base_url=base_url, stream=stream)
    # Without --cases the probe judges the built-in suites.
    cases = ("--cases", suites_without_context_ids(tmp_path / "cases")) if accepting else ()
    result = run_gauntlet("probe", "--target", written, *question, *cases)

    fields = _probe_fields(result.stdout)
    assert set(fields) == {name.value for name in FieldName}, result.show()
    # What the example target file says of each field, whatever the model answered.
    expected = {
        FieldName.TEXT: (
            "declared",
            "`choices[0].delta.content`, joined across the stream's chunks"
            if stream
            else "`choices[0].message.content`",
        ),
        FieldName.CITATIONS: ("derived", r"regex `\[(RB-\d+)\]` over the answer"),
        FieldName.CONTEXT_IDS: ("absent", "the target file declares it absent"),
        FieldName.REFUSED: ("derived", f"phrases for {language} "),
        FieldName.ESCALATED: ("derived", f"phrases for {language} "),
        FieldName.TOOL_CALLS: ("declared", "`choices[0].message.tool_calls`"),
    }
    for field, (origin, rule) in expected.items():
        shown = fields[field.value]
        assert shown["origin"] == origin, f"{field.value}: {shown[0]}\n{result.show()}"
        assert rule in (shown["rule"] or ""), f"{field.value}: {shown[0]}\n{result.show()}"
    # The text the server sent arrived (a JSON string, clipped when long), streamed or not.
    assert fields["text"]["value"].startswith('"'), result.show()
    assert len(fields["text"]["value"]) > len('""'), result.show()
    for listed in ("citations", "context_ids", "tool_calls"):
        assert fields[listed]["value"].startswith("["), result.show()
    for decided in ("refused", "escalated"):
        assert fields[decided]["value"] in ("true", "false"), result.show()
    streamed = any(
        line.startswith("  first streamed chunk after ")
        for line in _section(result.stdout, "fields", "gates")
    )
    assert streamed is stream, result.show()

    # Without `accepts_absent: [context_ids]` the grounding suite is refused (exit 2); every
    # other suite can run, and with the accepting copies all of them can (exit 0).
    gates = _probe_gates(result.stdout)
    assert set(gates) == {loaded.suite.suite for loaded in load_suites([SUITES]).suites}
    assert gates == {
        suite: "can run" if accepting or suite != GROUNDING_SUITE else "refused" for suite in gates
    }, result.show()
    assert result.code == (0 if accepting else 2), result.show()
