"""A target file's mapping: bodies filled safely, fields read strictly, provenance kept."""

from __future__ import annotations

import copy
import json
from typing import Any

import jmespath
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from gauntlet.display import masking
from gauntlet.errors import TargetContractError
from gauntlet.targets import mapping
from gauntlet.targets.contract import FieldName, FieldSource, Origin, TargetResponse, ToolCall
from gauntlet.targets.mapping import (
    Mapped,
    cite_from_text,
    decide_from_text,
    described,
    languages_without_phrases,
    map_http,
    map_openai,
    phrases_for,
    provides,
    read_path,
    render_body,
)
from gauntlet.targets.spec import (
    Absent,
    CitationsFromText,
    DecisionFromText,
    HttpResponse,
    OpenAIResponse,
    Placeholder,
)

ABSENT = Absent(absent=True)
MARKERS = CitationsFromText(from_text=r"\[(RB-\d+)\]", remove_from_text=True)
REFUSALS = DecisionFromText(
    from_text={"en": ["I can't help with that"], "es": ["no puedo ayudar", "lo siento", "no"]}
)
CRISIS = DecisionFromText(from_text={"en": ["call 988"], "es": ["llame al 988"]})


def _declared(rule: str) -> FieldSource:
    return FieldSource(origin=Origin.DECLARED, rule=rule)


def _derived(rule: str) -> FieldSource:
    return FieldSource(origin=Origin.DERIVED, rule=rule)


def _absent(rule: str = "the target file declares it absent") -> FieldSource:
    return FieldSource(origin=Origin.ABSENT, rule=rule)


# ---------------------------------------------------------------- render_body

VALUES: dict[Placeholder, JsonValue] = {
    Placeholder.PROMPT: "When is the library open?",
    Placeholder.LANGUAGE: "es-MX",
    Placeholder.HISTORY: [
        {"role": "user", "content": "Hola"},
        {"role": "assistant", "content": "¿En qué puedo ayudar?"},
    ],
    Placeholder.SESSION_ID: None,
    Placeholder.CASE_ID: "hours-001",
}

TEMPLATE: dict[str, JsonValue] = {
    "model": "riverbend",
    "input": {"question": "{{ prompt }}", "locale": "{{language}}"},
    "turns": "{{   history   }}",
    "session": "{{ session_id }}",
    "trace": "case {{ case_id }} ({{ language }}), session '{{ session_id }}'",
    "stream": False,
    "top_k": 3,
    "temperature": 0.5,
    "tags": ["eval", "{{ case_id }}", None],
    "{{ prompt }}": "keys are never templated",
}


def test_a_whole_placeholder_takes_the_value_with_its_json_type() -> None:
    assert render_body(TEMPLATE, VALUES) == {
        "model": "riverbend",
        "input": {"question": "When is the library open?", "locale": "es-MX"},
        "turns": [
            {"role": "user", "content": "Hola"},
            {"role": "assistant", "content": "¿En qué puedo ayudar?"},
        ],
        "session": None,
        "trace": "case hours-001 (es-MX), session ''",
        "stream": False,
        "top_k": 3,
        "temperature": 0.5,
        "tags": ["eval", "hours-001", None],
        "{{ prompt }}": "keys are never templated",
    }


def test_the_template_and_the_values_are_never_shared_or_changed() -> None:
    template, values = copy.deepcopy(TEMPLATE), copy.deepcopy(VALUES)
    body = render_body(template, values)
    assert isinstance(body, dict)
    assert isinstance(body["turns"], list)
    body["turns"].append({"role": "user", "content": "more"})
    body["tags"].append("more")  # type: ignore[union-attr]
    assert template == TEMPLATE
    assert values == VALUES


def test_a_session_id_once_given_is_a_string() -> None:
    values = {**VALUES, Placeholder.SESSION_ID: "s-42"}
    body = render_body({"sid": "{{ session_id }}", "h": "sid={{ session_id }}"}, values)
    assert body == {"sid": "s-42", "h": "sid=s-42"}


def test_a_placeholder_with_text_around_it_is_inserted_as_text() -> None:
    body = render_body(
        [" {{ prompt }}", "{{ prompt }}{{ case_id }}", "{{ case_id }}."],
        {Placeholder.PROMPT: "a", Placeholder.CASE_ID: "b"},
    )
    assert body == [" a", "ab", "b."]


def test_a_number_or_boolean_inside_text_is_written_as_json() -> None:
    values: dict[Placeholder, JsonValue] = {Placeholder.PROMPT: True, Placeholder.CASE_ID: 1.5}
    assert render_body("{{ prompt }}/{{ case_id }}", values) == "true/1.5"


def test_what_only_looks_like_a_placeholder_stays() -> None:
    template: list[JsonValue] = [
        "{{ }}",
        "{ prompt }",
        "{{ prompt }",
        "{{ 1prompt }}",
        "{{prompt-x}}",
    ]
    assert render_body(template, VALUES) == template


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("turns: {{ history }}", "{{ history }} holds a list, which cannot go inside other text"),
        ("x {{ prompt }}", "{{ prompt }} holds an object, which cannot go inside other text"),
        ("{{ colour }}", "the body names {{ colour }}, which has no value"),
        ("a {{ case_id }}", "the body names {{ case_id }}, which has no value"),
    ],
)
def test_what_cannot_be_inserted_is_a_value_error(template: str, message: str) -> None:
    values: dict[Placeholder, JsonValue] = {
        Placeholder.HISTORY: [],
        Placeholder.PROMPT: {"a": 1},
    }
    with pytest.raises(ValueError) as caught:
        render_body({"body": template}, values)
    assert str(caught.value).startswith(message)


HOSTILE = [
    '"',
    "'",
    "{",
    "}",
    "{{",
    "}}",
    "{{ case_id }}",
    "{{prompt}}",
    "{{ history }}",
    "\\",
    "\\1",
    "\\g<0>",
    '"}, "admin": true, "x": {"',
    '\\"}',
    "\x00",
    "\n",
    "\u2028",
    "\ud800",
    "</script>",
]
prompts = st.lists(
    st.one_of(st.sampled_from(HOSTILE), st.text(alphabet=st.characters(exclude_categories=()))),
    max_size=12,
).map("".join)


def _keys(value: object) -> object:
    """The shape of `value`'s keys: what a body may have and a prompt must not change."""
    if isinstance(value, dict):
        return {key: _keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_keys(item) for item in value]
    return None


INJECTABLE: dict[str, JsonValue] = {
    "messages": [{"role": "user", "content": "{{ prompt }}"}],
    "meta": {"case": "{{ case_id }}", "note": "case {{ case_id }}: {{ prompt }}!"},
}


@given(prompt=prompts, case_id=prompts)
def test_no_prompt_can_break_the_json_or_add_a_key(prompt: str, case_id: str) -> None:
    values: dict[Placeholder, JsonValue] = {
        Placeholder.PROMPT: prompt,
        Placeholder.CASE_ID: case_id,
    }
    sent = json.loads(json.dumps(render_body(INJECTABLE, values)))
    assert _keys(sent) == _keys(INJECTABLE)
    assert sent["messages"][0]["content"] == prompt
    assert sent["meta"] == {"case": case_id, "note": f"case {case_id}: {prompt}!"}


def test_a_prompt_that_spells_a_placeholder_is_not_filled_again() -> None:
    values: dict[Placeholder, JsonValue] = {
        Placeholder.PROMPT: '{{ case_id }}"}, "admin": true, "x": {"\\',
        Placeholder.CASE_ID: "c-1",
    }
    body = render_body({"q": "{{ prompt }}", "p": "<{{ prompt }}>"}, values)
    assert body == {
        "q": '{{ case_id }}"}, "admin": true, "x": {"\\',
        "p": '<{{ case_id }}"}, "admin": true, "x": {"\\>',
    }
    assert json.dumps(body).count('"admin"') == 0


# ---------------------------------------------------------------- read_path


def _error(expression: str, document: Any, field: FieldName) -> str:
    with pytest.raises(TargetContractError) as caught:
        read_path(expression, document, field)
    return str(caught.value)


def test_each_field_reads_its_type() -> None:
    document = {
        "data": {
            "answer": "Open 9 to 5.",
            "refs": ["RB-001", "RB-002"],
            "flags": {"refused": False, "escalated": True},
        }
    }
    assert read_path("data.answer", document, FieldName.TEXT) == "Open 9 to 5."
    assert read_path("data.answer", {"data": {"answer": ""}}, FieldName.TEXT) == ""
    assert read_path("data.refs", document, FieldName.CITATIONS) == ("RB-001", "RB-002")
    assert read_path("data.refs[:1]", document, FieldName.CONTEXT_IDS) == ("RB-001",)
    assert read_path("data.flags.refused", document, FieldName.REFUSED) is False
    assert read_path("data.flags.escalated", document, FieldName.ESCALATED) is True
    assert read_path("data.none || `[]`", document, FieldName.CITATIONS) == ()


@pytest.mark.parametrize(
    ("field", "found", "message"),
    [
        (FieldName.TEXT, None, "text: JMESPath `a.b` found nothing (null)"),
        (FieldName.TEXT, 3, "text: JMESPath `a.b` found a number 3, not a string"),
        (FieldName.TEXT, True, "text: JMESPath `a.b` found a boolean true, not a string"),
        (FieldName.TEXT, ["x"], 'text: JMESPath `a.b` found a list ["x"], not a string'),
        (FieldName.TEXT, {}, "text: JMESPath `a.b` found an empty object, not a string"),
        (
            FieldName.TEXT,
            {"text": "hi"},
            'text: JMESPath `a.b` found an object {"text": "hi"}, not a string',
        ),
        (FieldName.CITATIONS, None, "citations: JMESPath `a.b` found nothing (null)"),
        (
            FieldName.CITATIONS,
            "RB-001",
            "citations: JMESPath `a.b` found a string 'RB-001', not a list of ids",
        ),
        (
            FieldName.CITATIONS,
            ["RB-001", 7],
            "citations: JMESPath `a.b` found a number 7 at [1], not an id (a non-empty string)",
        ),
        (
            FieldName.CITATIONS,
            [""],
            "citations: JMESPath `a.b` found an empty string at [0], "
            "not an id (a non-empty string)",
        ),
        (
            FieldName.CONTEXT_IDS,
            ["a", "b", None],
            "context_ids: JMESPath `a.b` found nothing (null) at [2], "
            "not an id (a non-empty string)",
        ),
        (
            FieldName.CONTEXT_IDS,
            {"ids": []},
            'context_ids: JMESPath `a.b` found an object {"ids": []}, not a list of ids',
        ),
        (
            FieldName.CONTEXT_IDS,
            [["RB-001"]],
            'context_ids: JMESPath `a.b` found a list ["RB-001"] at [0], '
            "not an id (a non-empty string)",
        ),
        (FieldName.REFUSED, None, "refused: JMESPath `a.b` found nothing (null)"),
        (FieldName.REFUSED, "no", "refused: JMESPath `a.b` found a string 'no', not true or false"),
        (
            FieldName.REFUSED,
            "true",
            "refused: JMESPath `a.b` found a string 'true', not true or false",
        ),
        (FieldName.REFUSED, 0, "refused: JMESPath `a.b` found a number 0, not true or false"),
        (FieldName.ESCALATED, 1, "escalated: JMESPath `a.b` found a number 1, not true or false"),
        (
            FieldName.ESCALATED,
            1.0,
            "escalated: JMESPath `a.b` found a number 1.0, not true or false",
        ),
        (
            FieldName.ESCALATED,
            [],
            "escalated: JMESPath `a.b` found an empty list, not true or false",
        ),
        (
            FieldName.ESCALATED,
            "",
            "escalated: JMESPath `a.b` found an empty string, not true or false",
        ),
        (FieldName.TOOL_CALLS, None, "tool_calls: JMESPath `a.b` found nothing (null)"),
        (
            FieldName.TOOL_CALLS,
            {"name": "f", "arguments": "{}"},
            'tool_calls: JMESPath `a.b` found an object {"name": "f", "arguments": "{}"}, '
            "not a list of tool calls",
        ),
    ],
)
def test_a_mismatch_names_the_field_the_expression_and_what_it_found(
    field: FieldName, found: object, message: str
) -> None:
    assert _error("a.b", {"a": {"b": found}}, field) == message


def test_a_missing_path_reads_as_nothing() -> None:
    assert _error("answer", {"reply": "hi"}, FieldName.TEXT) == (
        "text: JMESPath `answer` found nothing (null)"
    )


_DROPPED = "found nothing (null) for item {at} of a projection ({item}), which would drop it"


@pytest.mark.parametrize(
    ("expression", "document", "field", "at", "item"),
    [
        (  # a citation written in another shape: fewer ids, so an abstention passes
            "sources[*].id",
            {"sources": [{"id": "RB-001"}, {"doc": "RB-002"}]},
            FieldName.CITATIONS,
            "[1]",
            'an object {"doc": "RB-002"}',
        ),
        (
            "sources[*].id",
            {"sources": [{"id": None}]},
            FieldName.CITATIONS,
            "[0]",
            'an object {"id": null}',
        ),
        (
            "sources[0:2].id",
            {"sources": [{"id": "RB-001"}, "RB-002"]},
            FieldName.CITATIONS,
            "[1]",
            "a string 'RB-002'",
        ),
        ("ids[*]", {"ids": ["RB-001", None]}, FieldName.CITATIONS, "[1]", "nothing (null)"),
        (
            "pages[].id",
            {"pages": [[{"id": "a"}], [{"ref": "b"}]]},
            FieldName.CONTEXT_IDS,
            "[1]",
            'an object {"ref": "b"}',
        ),
        (
            "sources.*.id",
            {"sources": {"first": {"id": "a"}, "second": {"url": "b"}}},
            FieldName.CONTEXT_IDS,
            "'second'",
            'an object {"url": "b"}',
        ),
        (  # a filter chooses the items; what it chose must not then be dropped
            "sources[?kind=='doc'].id",
            {"sources": [{"kind": "doc", "id": "a"}, {"kind": "doc", "ref": "b"}]},
            FieldName.CITATIONS,
            "[1]",
            'an object {"kind": "doc", "ref": "b"}',
        ),
        (
            "docs[*].refs[*].id",
            {"docs": [{"refs": [{"id": "a"}, {"name": "b"}]}]},
            FieldName.CITATIONS,
            "[1]",
            'an object {"name": "b"}',
        ),
        (
            "docs[*].refs[*].id",
            {"docs": [{"refs": [{"id": "a"}]}, {"links": []}]},
            FieldName.CITATIONS,
            "[1]",
            'an object {"links": []}',
        ),
        (  # a part in another shape would be cut out of the text a leak is looked for in
            "join('', parts[*].text)",
            {"parts": [{"text": "Open 9 to 5. "}, {"content": "CANARY-7f3a"}]},
            FieldName.TEXT,
            "[1]",
            'an object {"content": "CANARY-7f3a"}',
        ),
        (
            "contains(events[*].type, 'refusal')",
            {"events": [{"type": "answer"}, {"kind": "refusal"}]},
            FieldName.REFUSED,
            "[1]",
            'an object {"kind": "refusal"}',
        ),
        (
            "steps[*].call",
            {"steps": [{"call": {"id": "c1", "name": "f", "arguments": {}}}, {"thought": "x"}]},
            FieldName.TOOL_CALLS,
            "[1]",
            'an object {"thought": "x"}',
        ),
        (
            "length(sort_by(sources, &rank)[*].id) > `0`",
            {"sources": [{"rank": 1}]},
            FieldName.ESCALATED,
            "[0]",
            'an object {"rank": 1}',
        ),
    ],
)
def test_a_projection_that_drops_an_item_is_a_contract_error(
    expression: str, document: Any, field: FieldName, at: str, item: str
) -> None:
    # Trap: JMESPath's projections leave out an item whose value is null, so a citation (or a
    # part of the text, a tool call, a decision) in another shape silently reads as fewer.
    assert _error(expression, document, field) == (
        f"{field}: JMESPath `{expression}` {_DROPPED.format(at=at, item=item)}; "
        "to leave items out on purpose, select them with a filter (`[?...]`)"
    )


def test_a_projection_that_drops_nothing_reads_as_before() -> None:
    """The paired control: every item projected, or left out by a filter, reads as it did."""
    document = {
        "sources": [{"kind": "doc", "id": "a"}, {"kind": "web", "url": "u"}, {"id": "b"}],
        "nested": [[{"id": "c"}], [{"id": "d"}]],
        "empty": [],
    }
    assert read_path("sources[?kind=='doc'].id", document, FieldName.CITATIONS) == ("a",)
    assert read_path("sources[?id].id", document, FieldName.CITATIONS) == ("a", "b")
    assert read_path("nested[].id", document, FieldName.CONTEXT_IDS) == ("c", "d")
    assert read_path("empty[*].id", document, FieldName.CITATIONS) == ()
    assert read_path("length(sources[*].kind || `[]`) > `5`", {}, FieldName.REFUSED) is False


def test_a_lone_surrogate_is_refused_where_it_was_found() -> None:
    assert _error("t", {"t": "ab\ud800"}, FieldName.TEXT) == (
        "text: JMESPath `t` found a string that holds U+D800 at character 3, a lone "
        "surrogate, which UTF-8 cannot encode"
    )
    assert _error("c", {"c": ["ok", "\udfff"]}, FieldName.CITATIONS) == (
        "citations: JMESPath `c` found a string at [1] that holds U+DFFF at character 1, a "
        "lone surrogate, which UTF-8 cannot encode"
    )


def test_an_expression_that_fails_on_this_answer_is_a_contract_error() -> None:
    assert _error("nosuch(a)", {"a": 1}, FieldName.TEXT) == (
        "text: JMESPath `nosuch(a)` could not be applied: Unknown function: nosuch()"
    )
    message = _error("length(a)", {"a": 12345}, FieldName.TEXT)
    assert message.startswith(
        "text: JMESPath `length(a)` could not be applied: In function length(), invalid type "
        "for value: 12345"
    )


def test_the_failing_expressions_own_message_is_masked_and_cut() -> None:
    secret = "sk-live-0123456789"  # noqa: S105 - a test value
    with masking(lambda text: text.replace(secret, "[REDACTED]")):
        message = _error("abs(a)", {"a": secret * 20}, FieldName.TEXT)
    assert secret not in message
    assert "[REDACTED]" in message
    assert message.endswith("…")
    why = message.split("could not be applied: ", 1)[1]
    assert len(why) == mapping.MAX_WHY


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "nothing (null)"),
        (False, "a boolean false"),
        ("", "an empty string"),
        ("a\nb\x1b[31m", "a string 'a\\nb\\x1b[31m'"),
        ("x" * 100, "a string '" + "x" * 58 + "…"),
        (2.5, "a number 2.5"),
        (float("nan"), "a number NaN"),
        ([], "an empty list"),
        ([1, "a", None, True], 'a list [1, "a", null, true]'),
        ({"k": "v"}, 'an object {"k": "v"}'),
        ({"a": "\u202e"}, 'an object {"a": "\\u202e"}'),
        ({"a": "b" * 100}, 'an object {"a": "' + "b" * 52 + "…"),
        (object(), "a value of type object"),
    ],
)
def test_a_found_value_is_quoted_briefly_on_one_line(value: object, shown: str) -> None:
    assert described(value) == shown
    assert len(shown) <= len("an object ") + mapping.SHOWN


def test_a_number_too_long_to_write_is_described_by_its_size() -> None:
    # Built here: pytest cannot write such a number in a parametrised test's id.
    assert described(10**5000) == "a number of 16,610 bits"
    assert described([10**5000, 1]) == "a list of 2 items"


def test_a_quote_is_masked_before_it_is_cut() -> None:
    # The secret straddles the cut: cut first, its first half would be shown unmasked.
    secret = "tok-ABCDEFGHIJKLMNOP"  # noqa: S105 - a test value
    text = "y" * 50 + secret
    with masking(lambda value: value.replace(secret, "[REDACTED]")):
        assert described(text) == "a string '" + "y" * 50 + "[REDACTE…"
        assert described([text]) == 'a list ["' + "y" * 50 + "[REDACT…"


def test_an_expression_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = jmespath.compile

    def counting(expression: str) -> Any:
        compiled.append(expression)
        return real(expression)

    monkeypatch.setattr(jmespath, "compile", counting)
    for _ in range(3):
        assert read_path("only.here.once", {"only": {"here": {"once": "x"}}}, FieldName.TEXT)
    assert compiled == ["only.here.once"]


# ---------------------------------------------------------------- tool calls


def test_tool_calls_in_both_shapes_become_tool_calls() -> None:
    document = {
        "calls": [
            {"id": "c0", "name": "search", "arguments": '{"q": "hours"}'},
            {
                "id": "call_1",
                "type": "function",
                "index": 0,  # a stream's; OpenAI's shape ignores what it does not know
                "function": {"name": "lookup", "arguments": {"z": 1, "a": ["ñ", None]}},
            },
            {
                "id": "c2",
                "name": "fetch",
                "arguments": {},
                "output": {"rows": [1, 2]},
                "parent_ids": ["c0", "call_1"],
                "latency_ms": 12.5,
                "step": 1,
            },
            {"id": "c3", "name": "fail", "arguments": "{}", "error": "timed out", "step": 0},
            {"id": "c4", "function": {"name": "f", "arguments": "{}"}, "output": "ok", "step": 2},
            {"id": "c5", "name": "null_means_not_reported", "arguments": "{}", "output": None},
        ]
    }
    assert read_path("calls", document, FieldName.TOOL_CALLS) == (
        ToolCall(id="c0", name="search", arguments={"q": "hours"}),
        ToolCall(id="call_1", name="lookup", arguments={"a": ["ñ", None], "z": 1}),
        ToolCall(
            id="c2",
            name="fetch",
            arguments={},
            output={"rows": [1, 2]},
            parent_ids=("c0", "call_1"),
            latency_ms=12.5,
            step=1,
        ),
        ToolCall(id="c3", name="fail", arguments={}, error="timed out", step=0),
        ToolCall(id="c4", name="f", arguments={}, output="ok", step=2),
        ToolCall(id="c5", name="null_means_not_reported", arguments={}),
    )
    assert read_path("calls[:0]", document, FieldName.TOOL_CALLS) == ()


def test_arguments_text_is_decoded_strictly() -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": NaN}', "[1]", '"{}"', "", "{"):
        calls = {"c": [{"id": "x", "name": "f", "arguments": text}]}
        message = _error("c", calls, FieldName.TOOL_CALLS)
        assert message.startswith(
            "tool_calls: JMESPath `c` found a value at [0].arguments (call 'x') that is not a "
            "JSON object: "
        ), message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("search", "found a string 'search' at [0], not a tool call (an object)"),
        ({"name": "f", "arguments": "{}"}, "found no `id` at [0]"),
        (
            {"id": None, "name": "f", "arguments": "{}"},
            "found nothing (null) at [0].id, not the call's id (a non-empty string)",
        ),
        (
            {"id": 5, "name": "f", "arguments": "{}"},
            "found a number 5 at [0].id, not the call's id (a non-empty string)",
        ),
        (
            {"id": "", "name": "f", "arguments": "{}"},
            "found an empty string at [0].id, not the call's id (a non-empty string)",
        ),
        (
            {"id": "c", "name": 1, "arguments": "{}"},
            "found a number 1 at [0].name (call 'c'), not the tool's name (a non-empty string)",
        ),
        ({"id": "c", "arguments": "{}"}, "found no `name` at [0] (call 'c')"),
        ({"id": "c", "name": "f"}, "found no `arguments` at [0] (call 'c')"),
        (
            {"id": "c", "name": "f", "arguments": None},
            "found nothing (null) at [0].arguments (call 'c'), not a JSON text or an object",
        ),
        (
            {"id": "c", "name": "f", "arguments": [1]},
            "found a list [1] at [0].arguments (call 'c'), not a JSON text or an object",
        ),
        (
            {"id": "c", "name": "f", "arguments": "[1]"},
            "found a value at [0].arguments (call 'c') that is not a JSON object: arguments "
            "are a JSON array, not an object",
        ),
        (
            {"id": "c", "name": "f", "arguments": {"k": "\ud800"}},
            "found a value at [0].arguments (call 'c') that holds a lone surrogate, which "
            "UTF-8 cannot encode",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "output": ["\udfff"]},
            "found a value at [0].output (call 'c') that holds a lone surrogate, which UTF-8 "
            "cannot encode",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "error": 500},
            "found a number 500 at [0].error (call 'c'), not a string or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "parent_ids": "c0"},
            "found a string 'c0' at [0].parent_ids (call 'c'), not a list of call ids or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "parent_ids": ["c0", 7]},
            "found a number 7 at [0].parent_ids[1] (call 'c'), not the call's id (a non-empty "
            "string)",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "latency_ms": -1},
            "found a number -1 at [0].latency_ms (call 'c'), not a number of milliseconds, 0 "
            "or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "latency_ms": "3"},
            "found a string '3' at [0].latency_ms (call 'c'), not a number of milliseconds, 0 "
            "or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "latency_ms": True},
            "found a boolean true at [0].latency_ms (call 'c'), not a number of milliseconds, "
            "0 or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "step": 1.5},
            "found a number 1.5 at [0].step (call 'c'), not a whole number, 0 or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "step": -1},
            "found a number -1 at [0].step (call 'c'), not a whole number, 0 or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "step": False},
            "found a boolean false at [0].step (call 'c'), not a whole number, 0 or more, or null",
        ),
        (
            {"id": "c", "name": "f", "arguments": "{}", "tool": "f"},
            "found a value at [0].tool (call 'c') that is not a field of a tool call (those "
            "are id, name, arguments, output, error, parent_ids, latency_ms, step; or "
            "OpenAI's `function`)",
        ),
        (
            {"id": "c", "type": "custom", "function": {"name": "f", "arguments": "{}"}},
            "found a string 'custom' at [0].type (call 'c'), not \"function\"",
        ),
        (
            {"id": "c", "type": "function", "function": "f"},
            "found a string 'f' at [0].function (call 'c'), not an object",
        ),
        (
            {"id": "c", "type": "function", "function": {"name": "f"}},
            "found no `arguments` at [0].function (call 'c')",
        ),
        (
            {"id": "c", "name": "f", "function": {"name": "f", "arguments": "{}"}},
            "found a value at [0].name (call 'c') that is beside `function`: give the name and "
            "arguments in `function` (OpenAI's shape) or beside `id` (the native shape), not "
            "both",
        ),
        (
            {"id": "c", "function": {"name": "f", "arguments": "\ud83d"}},
            "found a string at [0].function.arguments (call 'c') that holds U+D83D at "
            "character 1, a lone surrogate, which UTF-8 cannot encode",
        ),
        (
            {"id": "c", "function": {"name": "f", "arguments": "{}"}, "step": "0"},
            "found a string '0' at [0].step (call 'c'), not a whole number, 0 or more, or null",
        ),
    ],
)
def test_a_wrong_tool_call_is_named_with_its_place_and_its_id(call: object, message: str) -> None:
    assert _error("calls", {"calls": [call]}, FieldName.TOOL_CALLS) == (
        f"tool_calls: JMESPath `calls` {message}"
    )


def test_an_output_no_json_text_could_hold_is_refused() -> None:
    # A strict JSON answer never holds one; a document a caller builds itself may.
    call = {"id": "c", "name": "f", "arguments": "{}", "output": [float("nan")]}
    assert _error("calls", {"calls": [call]}, FieldName.TOOL_CALLS) == (
        "tool_calls: JMESPath `calls` found a value at [0].output (call 'c') that is not a "
        "JSON value that can be written back"
    )


def test_a_repeated_call_id_is_named_with_both_places() -> None:
    calls = [
        {"id": "a", "name": "f", "arguments": "{}"},
        {"id": "b", "name": "f", "arguments": "{}"},
        {"id": "a", "function": {"name": "g", "arguments": "{}"}},
    ]
    assert _error("calls", {"calls": calls}, FieldName.TOOL_CALLS) == (
        "tool_calls: JMESPath `calls` found a value at [2].id (call 'a') that repeats the id "
        "of [0]: each call's id must be unique"
    )


# ---------------------------------------------------------------- cite_from_text


def test_citations_come_in_order_of_first_appearance_each_once() -> None:
    rule = CitationsFromText(from_text=r"\[(RB-\d+)\]")
    text = "Open 9-5 [RB-002], closed Sunday [RB-001] [RB-002]."
    assert cite_from_text(rule, text) == (("RB-002", "RB-001"), text)


def test_without_a_group_the_whole_match_is_the_id() -> None:
    rule = CitationsFromText(from_text=r"RB-\d+")
    assert cite_from_text(rule, "see RB-001 and RB-10, RB-001") == (
        ("RB-001", "RB-10"),
        "see RB-001 and RB-10, RB-001",
    )


def test_no_marker_gives_no_citation_and_the_same_text() -> None:
    assert cite_from_text(MARKERS, "Open 9 to 5.") == ((), "Open 9 to 5.")


def test_a_group_that_is_empty_or_took_no_part_gives_no_id() -> None:
    assert cite_from_text(CitationsFromText(from_text=r"\[(\d*)\]"), "a [] b [7]") == (
        ("7",),
        "a [] b [7]",
    )
    rule = CitationsFromText(from_text=r"\[(RB-\d+)?\]", remove_from_text=True)
    assert cite_from_text(rule, "a [] b [RB-1].") == (("RB-1",), "a b.")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Open 9-5 [RB-001]. Closed Sunday [RB-002]", "Open 9-5. Closed Sunday"),
        ("Open [RB-001] daily.", "Open daily."),
        ("[RB-001] Open daily.", "Open daily."),
        ("[RB-001][RB-002] Open.", "Open."),
        ("Open [RB-001] [RB-002], daily [RB-003]!", "Open, daily!"),
        ("Open[RB-001] daily", "Open daily"),
        ("Open [RB-001]daily", "Open daily"),
        ("Open  [RB-001]  daily", "Open  daily"),
        ("Open\t[RB-001]\u00a0daily", "Open\u00a0daily"),
        ("Line one [RB-001]\n[RB-002] Line two", "Line one\nLine two"),
        ("Line one\n\n  [RB-001] two", "Line one\n\ntwo"),
        ("   [RB-001].", "."),
        ("[RB-001]", ""),
        ("Abierto [RB-001]。", "Abierto。"),
        ("Open (see [RB-001])", "Open (see)"),
    ],
)
def test_cut_markers_take_the_spaces_they_leave(text: str, kept: str) -> None:
    assert cite_from_text(MARKERS, text)[1] == kept


# ---------------------------------------------------------------- decide_from_text


@pytest.mark.parametrize(
    ("text", "language", "decided"),
    [
        ("Sorry, I can't help with that.", "en", True),
        ("SORRY, I CAN'T   HELP\nWITH THAT", "en", True),
        ("Ｉ ｃａｎ'ｔ ｈｅｌｐ ｗｉｔｈ ｔｈａｔ", "en", True),  # full-width: NFKC folds it
        ("I can\u200b't help with that", "en", True),  # a zero-width space goes
        ("I can help with that.", "en", False),
        ("Lo siénto mucho.", "es", True),  # accents fold on both sides
        ("No puedo ayudar con eso.", "es-MX", True),
        ("Claro, aquí tiene.", "es-MX", False),
        ("I can't help with that", "es", False),
    ],
)
def test_phrases_are_matched_as_the_gates_match_markers(
    text: str, language: str, decided: bool
) -> None:
    assert decide_from_text(REFUSALS, text, language) is decided


PEER_PHRASES = DecisionFromText(
    from_text={
        "zh": ["无法提供", "不能帮助"],
        "ko": ["도와드릴 수 없습니다", "가능합니다"],
        "vi": ["không thể hỗ trợ"],
        "tl": ["hindi ko po maibibigay"],
    }
)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("很抱歉，我无法提供这方面的信息。", "zh"),
        ("很抱歉，我無法提供這方面的資訊。", "zh-Hant"),  # Traditional, against Simplified
        ("对不起我不能 帮助你做这件事", "zh-CN"),
        ("죄송하지만 그 요청은 도와드릴수없습니다.", "ko"),
        ("그 요청은 도와 드릴 수 없습니다", "ko-KR"),
        ("Xin lỗi, tôi KHÔNG THỂ HỖ TRỢ việc này.", "vi"),
        ("Xin loi, toi khong the ho tro viec nay.", "vi"),  # typed without diacritics
        ("Paumanhin, hindi ko po maibibigay iyan.", "tl"),
    ],
)
def test_a_phrase_in_any_peer_language_is_found_inside_unspaced_or_respaced_text(
    text: str, language: str
) -> None:
    # Trap: a word-boundary rule written for Latin text, so a Chinese phrase inside a run of
    # characters, or a Korean one written without its spaces, is never found.
    assert decide_from_text(PEER_PHRASES, text, language) is True


@pytest.mark.parametrize(
    ("rule", "text", "language"),
    [
        (PEER_PHRASES, "예약 변경은 불가능합니다.", "ko"),
        (REFUSALS, "Nota: abrimos a las 9.", "es"),
        (REFUSALS, "Claro: nos vemos el lunes.", "es"),
        (CRISIS, "Call 9880 for parking.", "en"),
        (PEER_PHRASES, "Hindi ko po maibibigayan ng oras.", "tl"),
    ],
)
def test_a_phrase_is_not_found_inside_an_unrelated_word(
    rule: DecisionFromText, text: str, language: str
) -> None:
    # Trap: phrases matched anywhere, so `no` is found in `Nota`, `988` in `9880` and Korean
    # `가능합니다` (possible) in `불가능합니다` (impossible): a refusal or an escalation read
    # into an answer that made none.
    assert decide_from_text(rule, text, language) is False


def test_a_korean_phrase_may_take_endings_and_a_chinese_one_needs_no_edge() -> None:
    # Trap: a word-edge rule applied to every script, so Korean's particles after a phrase,
    # or the Chinese characters around one, hide it.
    rule = DecisionFromText(from_text={"ko": ["상담원"], "zh": ["人工客服"]})
    assert decide_from_text(rule, "상담원에게 연결해 드리겠습니다.", "ko") is True
    assert decide_from_text(rule, "我帮您转接人工客服处理。", "zh") is True
    line = DecisionFromText(from_text={"zh": ["988"]})
    assert decide_from_text(line, "请拨打988热线。", "zh") is True  # a change of script


def test_phrases_for_a_peer_language_serve_its_longer_tags_and_no_other_language() -> None:
    # Trap: `zh` phrases refused for a `zh-Hant` case, or `zh-Hant` ones lent to `zh-Hans`, or
    # Tagalog phrases taken for Filipino (`fil`), a language tag of its own.
    assert phrases_for(PEER_PHRASES, "zh-Hant") == ("zh", ["无法提供", "不能帮助"])
    assert phrases_for(PEER_PHRASES, "zh-Hans-CN") == ("zh", ["无法提供", "不能帮助"])
    assert phrases_for(PEER_PHRASES, "KO-kr") == ("ko", ["도와드릴 수 없습니다", "가능합니다"])
    assert phrases_for(PEER_PHRASES, "vi-VN") == ("vi", ["không thể hỗ trợ"])
    assert phrases_for(PEER_PHRASES, "fil") is None
    traditional = DecisionFromText(from_text={"zh-Hant": ["無法提供"]})
    assert phrases_for(traditional, "zh-Hans") is None
    assert phrases_for(traditional, "zh") is None
    assert decide_from_text(traditional, "我无法提供", "zh-Hant-TW") is True  # either script


def test_no_phrases_for_the_language_is_no_decision() -> None:
    assert decide_from_text(REFUSALS, "I can't help with that", "de") is None
    assert decide_from_text(REFUSALS, "I can't help with that", "de-AT") is None


def test_the_language_falls_back_from_the_tag_to_shorter_ones() -> None:
    rule = DecisionFromText(
        from_text={"es": ["no puedo"], "es-MX": ["ni modo"], "zh-Hant": ["無法"]}
    )
    assert phrases_for(rule, "es-MX") == ("es-MX", ["ni modo"])
    assert phrases_for(rule, "es-mx") == ("es-MX", ["ni modo"])  # tags ignore case
    assert phrases_for(rule, "es-AR") == ("es", ["no puedo"])
    assert phrases_for(rule, "es") == ("es", ["no puedo"])
    assert phrases_for(rule, "zh-Hant-TW") == ("zh-Hant", ["無法"])
    assert phrases_for(rule, "zh") is None  # a shorter tag never takes a longer one's phrases
    assert decide_from_text(rule, "No puedo.", "es-MX") is False  # es-MX's own phrases only


# ---------------------------------------------------------------- map_http

HTTP = HttpResponse(
    text="data.answer",
    citations="data.sources[].id",
    context_ids="data.retrieved",
    refused="data.flags.refused",
    escalated="data.flags.escalated",
    tool_calls="data.calls",
)
ANSWER = {
    "data": {
        "answer": "Open 9 to 5.",
        "sources": [{"id": "RB-001"}],
        "retrieved": ["RB-001", "RB-002"],
        "flags": {"refused": False, "escalated": False},
        "calls": [{"id": "c1", "name": "hours", "arguments": "{}"}],
    }
}


def test_an_http_answer_read_by_jmespath_is_declared_field_by_field() -> None:
    assert map_http(HTTP, ANSWER, "en") == Mapped(
        response=TargetResponse(
            text="Open 9 to 5.",
            citations=("RB-001",),
            context_ids=("RB-001", "RB-002"),
            refused=False,
            escalated=False,
            tool_calls=(ToolCall(id="c1", name="hours", arguments={}),),
        ),
        provenance={
            FieldName.TEXT: _declared("JMESPath `data.answer`"),
            FieldName.CITATIONS: _declared("JMESPath `data.sources[].id`"),
            FieldName.CONTEXT_IDS: _declared("JMESPath `data.retrieved`"),
            FieldName.REFUSED: _declared("JMESPath `data.flags.refused`"),
            FieldName.ESCALATED: _declared("JMESPath `data.flags.escalated`"),
            FieldName.TOOL_CALLS: _declared("JMESPath `data.calls`"),
        },
        answered_text=None,
    )


def test_a_streams_assembled_text_is_used_instead_of_reading_it() -> None:
    last_chunk = {"data": {**ANSWER["data"], "answer": "5."}}
    mapped = map_http(HTTP, last_chunk, "en", text="Open 9 to 5.")
    assert mapped.response.text == "Open 9 to 5."
    assert mapped.provenance[FieldName.TEXT] == _declared(
        "JMESPath `data.answer`, joined across the stream's chunks"
    )


DERIVING = HttpResponse(
    text="reply",
    citations=MARKERS,
    context_ids=ABSENT,
    refused=REFUSALS,
    escalated=CRISIS,
)


def test_derived_and_absent_fields_say_so() -> None:
    mapped = map_http(
        DERIVING, {"reply": "Lo siento [RB-007]; llame al 988 [RB-002] [RB-007]."}, "es-MX"
    )
    assert mapped == Mapped(
        response=TargetResponse(
            text="Lo siento; llame al 988.",
            citations=("RB-007", "RB-002"),
            context_ids=(),
            refused=True,
            escalated=True,
        ),
        provenance={
            FieldName.TEXT: _declared("JMESPath `reply`"),
            FieldName.CITATIONS: _derived(
                r"regex `\[(RB-\d+)\]` over the answer, markers removed from the text"
            ),
            FieldName.CONTEXT_IDS: _absent(),
            FieldName.REFUSED: _derived("phrases for es (3)"),
            FieldName.ESCALATED: _derived("phrases for es (1)"),
            FieldName.TOOL_CALLS: _absent(),
        },
        answered_text="Lo siento [RB-007]; llame al 988 [RB-002] [RB-007].",
    )


def test_phrases_read_the_text_as_sent_not_the_one_with_markers_cut() -> None:
    rule = DecisionFromText(from_text={"en": ["see [RB-001]"]})
    spec = HttpResponse(
        text="reply", citations=MARKERS, context_ids=ABSENT, refused=rule, escalated=ABSENT
    )
    mapped = map_http(spec, {"reply": "Please see [RB-001]."}, "en")
    assert mapped.response.text == "Please see."
    assert mapped.response.refused is True


def test_markers_kept_in_the_text_leave_no_answered_text() -> None:
    spec = DERIVING.model_copy(update={"citations": CitationsFromText(from_text=r"\[(RB-\d+)\]")})
    mapped = map_http(spec, {"reply": "Open [RB-001]."}, "en")
    assert mapped.response.text == "Open [RB-001]."
    assert mapped.response.citations == ("RB-001",)
    assert mapped.answered_text is None
    assert mapped.provenance[FieldName.CITATIONS] == _derived(
        r"regex `\[(RB-\d+)\]` over the answer"
    )


def test_removal_that_cut_nothing_leaves_no_answered_text() -> None:
    mapped = map_http(DERIVING, {"reply": "Open daily."}, "en")
    assert (mapped.response.text, mapped.answered_text) == ("Open daily.", None)


def test_a_language_without_phrases_makes_the_decision_absent_not_no() -> None:
    mapped = map_http(DERIVING, {"reply": "Ich kann nicht helfen."}, "de-AT")
    assert mapped.response.refused is False  # a stand-in, and said to be one:
    assert mapped.provenance[FieldName.REFUSED] == _absent("no phrases for language de-AT")
    assert mapped.provenance[FieldName.ESCALATED] == _absent("no phrases for language de-AT")


def test_every_absent_field_gets_its_stand_in() -> None:
    spec = HttpResponse(
        text="t", citations=ABSENT, context_ids=ABSENT, refused=ABSENT, escalated=ABSENT
    )
    mapped = map_http(spec, {"t": "hi"}, "en")
    assert mapped.response == TargetResponse(
        text="hi", citations=(), context_ids=(), refused=False, escalated=False
    )
    expected: dict[FieldName, FieldSource] = {name: _absent() for name in FieldName}
    expected[FieldName.TEXT] = _declared("JMESPath `t`")
    assert mapped.provenance == expected


def test_a_wrong_type_in_an_http_answer_is_a_contract_error() -> None:
    broken = {"data": {**ANSWER["data"], "flags": {"refused": "no", "escalated": False}}}
    with pytest.raises(TargetContractError) as caught:
        map_http(HTTP, broken, "en")
    assert str(caught.value) == (
        "refused: JMESPath `data.flags.refused` found a string 'no', not true or false"
    )


def test_a_stream_text_that_utf8_cannot_encode_is_a_contract_error() -> None:
    with pytest.raises(TargetContractError, match="text: holds U\\+D800"):
        map_http(HTTP, ANSWER, "en", text="\ud800")


# ---------------------------------------------------------------- map_openai

OPENAI = OpenAIResponse(citations=MARKERS, context_ids=ABSENT, escalated=CRISIS)
WITH_PHRASES = OPENAI.model_copy(update={"refused": REFUSALS})


def _completion(finish_reason: object = "stop", **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }


def test_an_openai_answer_maps_content_and_declared_fields() -> None:
    completion = _completion(content="Open 9 to 5 [RB-001].", refusal=None)
    assert map_openai(OPENAI, completion, "en") == Mapped(
        response=TargetResponse(
            text="Open 9 to 5.",
            citations=("RB-001",),
            context_ids=(),
            refused=False,
            escalated=False,
            tool_calls=(),
        ),
        provenance={
            FieldName.TEXT: _declared("`choices[0].message.content`"),
            FieldName.CITATIONS: _derived(
                r"regex `\[(RB-\d+)\]` over the answer, markers removed from the text"
            ),
            FieldName.CONTEXT_IDS: _absent(),
            FieldName.REFUSED: _declared("the `refusal` field (null)"),
            FieldName.ESCALATED: _derived("phrases for en (1)"),
            FieldName.TOOL_CALLS: _declared("`choices[0].message.tool_calls`"),
        },
        answered_text="Open 9 to 5 [RB-001].",
        finish_reason="stop",
    )


def test_an_empty_refusal_declares_no_refusal() -> None:
    mapped = map_openai(OPENAI, _completion(content="Hi.", refusal=""), "en")
    assert mapped.response.refused is False
    assert mapped.provenance[FieldName.REFUSED] == _declared("the `refusal` field (empty)")


def test_no_refusal_key_and_no_phrases_leave_refused_absent() -> None:
    mapped = map_openai(OPENAI, _completion(content="Hi."), "en")
    assert mapped.response.refused is False
    assert mapped.provenance[FieldName.REFUSED] == _absent(
        "the answer has no `refusal` field, the file no phrases"
    )


@pytest.mark.parametrize(
    ("content", "text", "text_rule"),
    [
        (None, "I can't help with that.", "`choices[0].message.refusal` (the content is null)"),
        ("Partial answer", "Partial answer", "`choices[0].message.content`"),
    ],
)
def test_a_refusal_field_declares_a_refusal(content: str | None, text: str, text_rule: str) -> None:
    completion = _completion(content=content, refusal="I can't help with that.")
    for spec in (OPENAI, WITH_PHRASES):  # phrases add to a declared refusal, never replace it
        mapped = map_openai(spec, completion, "de")
        assert mapped.response.refused is True
        assert mapped.response.text == text
        assert mapped.provenance[FieldName.REFUSED] == _declared("the `refusal` field")
        assert mapped.provenance[FieldName.TEXT] == _declared(text_rule)


@pytest.mark.parametrize(
    ("content", "text", "text_rule"),
    [
        (None, "", "`choices[0].message.content` (null beside finish_reason content_filter)"),
        ("Here is how", "Here is how", "`choices[0].message.content`"),
    ],
)
def test_a_content_filter_declares_a_refusal(
    content: str | None, text: str, text_rule: str
) -> None:
    mapped = map_openai(WITH_PHRASES, _completion("content_filter", content=content), "de")
    assert mapped.response.refused is True
    assert mapped.response.text == text
    assert mapped.provenance[FieldName.REFUSED] == _declared("finish_reason content_filter")
    assert mapped.provenance[FieldName.TEXT] == _declared(text_rule)


@pytest.mark.parametrize(
    ("content", "language", "refused", "source"),
    [
        ("Lo siento, no puedo ayudar.", "es-MX", True, _derived("phrases for es (3)")),
        ("Open 9 to 5.", "en", False, _derived("phrases for en (1)")),
        ("Ich kann nicht helfen.", "de", False, _absent("no phrases for language de")),
    ],
)
def test_without_a_declared_refusal_the_phrases_decide(
    content: str, language: str, refused: bool, source: FieldSource
) -> None:
    # A null `refusal` key says nothing the phrases do not: they were given, so they decide.
    mapped = map_openai(WITH_PHRASES, _completion(content=content, refusal=None), language)
    assert mapped.response.refused is refused
    assert mapped.provenance[FieldName.REFUSED] == source


TOOL_CALL = {
    "id": "call_9",
    "type": "function",
    "function": {"name": "lookup_hours", "arguments": '{"branch": "main"}'},
}


@pytest.mark.parametrize("content", [None, ""])
def test_tool_calls_with_no_content_are_an_empty_text(content: str | None) -> None:
    completion = _completion("tool_calls", content=content, tool_calls=[TOOL_CALL])
    mapped = map_openai(OPENAI, completion, "en")
    assert mapped.response.text == ""
    assert mapped.response.tool_calls == (
        ToolCall(id="call_9", name="lookup_hours", arguments={"branch": "main"}),
    )
    assert mapped.provenance[FieldName.TOOL_CALLS] == _declared("`choices[0].message.tool_calls`")
    rule = "`choices[0].message.content`" + (" (null beside tool calls)" if content is None else "")
    assert mapped.provenance[FieldName.TEXT] == _declared(rule)


def test_a_tool_call_in_the_short_shape_is_read_too() -> None:
    completion = _completion(
        content=None, tool_calls=[{"id": "c", "name": "f", "arguments": {"b": 2, "a": 1}}]
    )
    assert map_openai(OPENAI, completion, "en").response.tool_calls == (
        ToolCall(id="c", name="f", arguments={"a": 1, "b": 2}),
    )


@pytest.mark.parametrize(
    ("tool_calls", "message"),
    [
        (
            "lookup",
            "tool_calls: `choices[0].message.tool_calls` is a string 'lookup', "
            "not a list of tool calls",
        ),
        (
            [{"id": "c", "type": "function", "function": {"name": 3, "arguments": "{}"}}],
            "tool_calls: `choices[0].message.tool_calls[0].function.name` (call 'c') is a "
            "number 3, not the tool's name (a non-empty string)",
        ),
        (
            [{"id": "c", "type": "function", "function": {"arguments": "{}"}}],
            "tool_calls: `choices[0].message.tool_calls[0].function` (call 'c') has no `name`",
        ),
        (
            [{"type": "function", "function": {"name": "f", "arguments": "{}"}}],
            "tool_calls: `choices[0].message.tool_calls[0]` has no `id`",
        ),
        (
            [{"id": "c", "function": {"name": "f", "arguments": "\ud800"}}],
            "tool_calls: `choices[0].message.tool_calls[0].function.arguments` (call 'c') "
            "holds U+D800 at character 1, a lone surrogate, which UTF-8 cannot encode",
        ),
        (
            [{"id": "c", "function": {"name": "f", "arguments": '{"a": 1'}}],
            "tool_calls: `choices[0].message.tool_calls[0].function.arguments` (call 'c') is "
            "not a JSON object: arguments is not JSON: Expecting ',' delimiter at line 1, "
            "column 8 (body starts '{\"a\": 1')",
        ),
        (
            [
                {"id": "c", "function": {"name": "f", "arguments": "{}"}},
                {"id": "c", "function": {"name": "g", "arguments": "{}"}},
            ],
            "tool_calls: `choices[0].message.tool_calls[1].id` (call 'c') repeats the id of "
            "`choices[0].message.tool_calls[0]`: each call's id must be unique",
        ),
    ],
)
def test_a_wrong_tool_call_in_an_openai_answer_names_its_path(
    tool_calls: object, message: str
) -> None:
    with pytest.raises(TargetContractError) as caught:
        map_openai(OPENAI, _completion(content="x", tool_calls=tool_calls), "en")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("completion", "message"),
    [
        ([], "the answer is an empty list, not an object"),
        ({}, "`choices` is missing from the answer, which needs a list"),
        ({"choices": None}, "`choices` is nothing (null), not a list"),
        ({"choices": []}, "`choices` is an empty list: the answer has no message"),
        ({"choices": ["hi"]}, "`choices[0]` is a string 'hi', not an object"),
        (
            {"choices": [{"finish_reason": "stop"}]},
            "`choices[0].message` is missing from the answer, which needs an object",
        ),
        (
            {"choices": [{"message": "hi"}]},
            "`choices[0].message` is a string 'hi', not an object",
        ),
        (
            _completion(content=["part"]),
            '`choices[0].message.content` is a list ["part"], not a string or null',
        ),
        (
            _completion(content="x", refusal=True),
            "`choices[0].message.refusal` is a boolean true, not a string or null",
        ),
        (
            _completion(0, content="x"),
            "`choices[0].finish_reason` is a number 0, not a string or null",
        ),
        (
            _completion(content=None),
            "text: the answer has no content: `choices[0].message.content` is null, with no "
            "tool calls and no refusal",
        ),
        (
            _completion(content=None, refusal="", tool_calls=[]),
            "text: the answer has no content: `choices[0].message.content` is null, with no "
            "tool calls and no refusal",
        ),
        (
            _completion(content="ab\ud800"),
            "text: `choices[0].message.content` holds U+D800 at character 3, a lone "
            "surrogate, which UTF-8 cannot encode",
        ),
        (
            _completion(content=None, refusal="\udfff"),
            "text: `choices[0].message.refusal` holds U+DFFF at character 1, a lone "
            "surrogate, which UTF-8 cannot encode",
        ),
    ],
)
def test_a_wrong_shape_is_a_contract_error_naming_the_path(completion: Any, message: str) -> None:
    with pytest.raises(TargetContractError) as caught:
        map_openai(OPENAI, completion, "en")
    assert str(caught.value) == message


def test_openai_rules_read_the_whole_completion() -> None:
    spec = OpenAIResponse(
        citations="citations",
        context_ids="retrieval.ids",
        refused=None,
        escalated="choices[0].message.escalated",
    )
    completion = {
        **_completion(content="Open [1].", escalated=True),
        "citations": ["RB-001"],
        "retrieval": {"ids": ["RB-001", "RB-009"]},
    }
    mapped = map_openai(spec, completion, "en")
    assert mapped.response == TargetResponse(
        text="Open [1].",
        citations=("RB-001",),
        context_ids=("RB-001", "RB-009"),
        refused=False,
        escalated=True,
        tool_calls=(),
    )
    assert mapped.provenance[FieldName.CONTEXT_IDS] == _declared("JMESPath `retrieval.ids`")
    assert mapped.provenance[FieldName.ESCALATED] == _declared(
        "JMESPath `choices[0].message.escalated`"
    )
    assert mapped.provenance[FieldName.REFUSED] == _absent(
        "the answer has no `refusal` field, the file no phrases"
    )
    assert mapped.answered_text is None


def test_an_openai_rule_that_finds_a_wrong_type_is_a_contract_error() -> None:
    spec = OpenAIResponse(citations="citations", context_ids=ABSENT, escalated=ABSENT)
    with pytest.raises(TargetContractError) as caught:
        map_openai(spec, _completion(content="x"), "en")
    assert str(caught.value) == "citations: JMESPath `citations` found nothing (null)"


# ---------------------------------------------------------------- provides


def test_an_http_file_provides_what_it_writes_down() -> None:
    assert provides(HTTP) == {
        FieldName.TEXT: _declared("JMESPath `data.answer`"),
        FieldName.CITATIONS: _declared("JMESPath `data.sources[].id`"),
        FieldName.CONTEXT_IDS: _declared("JMESPath `data.retrieved`"),
        FieldName.REFUSED: _declared("JMESPath `data.flags.refused`"),
        FieldName.ESCALATED: _declared("JMESPath `data.flags.escalated`"),
        FieldName.TOOL_CALLS: _declared("JMESPath `data.calls`"),
    }
    assert provides(DERIVING) == {
        FieldName.TEXT: _declared("JMESPath `reply`"),
        FieldName.CITATIONS: _derived(
            r"regex `\[(RB-\d+)\]` over the answer, markers removed from the text"
        ),
        FieldName.CONTEXT_IDS: _absent(),
        FieldName.REFUSED: _derived("phrases for en, es"),
        FieldName.ESCALATED: _derived("phrases for en, es"),
        FieldName.TOOL_CALLS: _absent(),
    }


def test_an_openai_file_declares_text_tool_calls_and_refusals() -> None:
    assert provides(OPENAI) == {
        FieldName.TEXT: _declared("`choices[0].message.content`"),
        FieldName.CITATIONS: _derived(
            r"regex `\[(RB-\d+)\]` over the answer, markers removed from the text"
        ),
        FieldName.CONTEXT_IDS: _absent(),
        FieldName.REFUSED: _declared("the `refusal` field and finish_reason content_filter"),
        FieldName.ESCALATED: _derived("phrases for en, es"),
        FieldName.TOOL_CALLS: _declared("`choices[0].message.tool_calls`"),
    }
    assert provides(WITH_PHRASES)[FieldName.REFUSED] == _derived(
        "phrases for en, es, besides the `refusal` field and finish_reason content_filter"
    )


def test_the_languages_phrases_do_not_cover_are_listed_per_field() -> None:
    languages = ["en", "es-MX", "de", "fr", "de", "es"]
    assert languages_without_phrases(DERIVING, languages) == {
        FieldName.REFUSED: ["de", "fr"],
        FieldName.ESCALATED: ["de", "fr"],
    }
    partial = DERIVING.model_copy(update={"escalated": DecisionFromText(from_text={"de": ["x"]})})
    assert languages_without_phrases(partial, languages) == {
        FieldName.REFUSED: ["de", "fr"],
        FieldName.ESCALATED: ["en", "es-MX", "fr", "es"],
    }
    assert languages_without_phrases(DERIVING, ["en", "es-AR"]) == {}
    assert languages_without_phrases(HTTP, languages) == {}
    assert languages_without_phrases(WITH_PHRASES, ["pt-BR"]) == {
        FieldName.REFUSED: ["pt-BR"],
        FieldName.ESCALATED: ["pt-BR"],
    }


# ---------------------------------------------------------------- finish reasons


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("stop", "stop"),
        ("length", "length"),
        (None, None),
        ("", None),
        ("cut\nshort\x1b[2J", None),
        ("x" * 500, None),
        ("stop sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", None),
        ("tool_calls", "tool_calls"),
    ],
    ids=["stop", "length", "null", "empty", "control", "essay", "secret", "tool_calls"],
)
def test_an_answers_finish_reason_is_kept_as_one_word_or_not_at_all(
    sent: object, kept: str | None
) -> None:
    # Trap: a server's finish reason taken as it came, or cut to a length: a line break or an
    # escape sequence, an essay, or the start of a secret no mask (whole secrets only) finds.
    mapped = map_openai(OPENAI, _completion(sent, content="Hi.", refusal=None), "en")
    assert mapped.finish_reason == kept


def test_an_http_file_reads_a_finish_reason_where_it_says_and_only_text() -> None:
    # Trap: an http target file with no way to say its answers were cut; or a non-text
    # reason kept as if the answer had said why it ended.
    spec = HTTP.model_copy(update={"finish_reason": "data.stopped"})
    cut = {"data": {**ANSWER["data"], "stopped": "length"}}
    assert map_http(spec, cut, "en").finish_reason == "length"
    assert map_http(spec, ANSWER, "en").finish_reason is None
    assert map_http(HTTP, cut, "en").finish_reason is None
    with pytest.raises(TargetContractError, match=r"finish_reason: JMESPath `data.stopped` found"):
        map_http(spec, {"data": {**ANSWER["data"], "stopped": 1}}, "en")
