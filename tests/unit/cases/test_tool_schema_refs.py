"""Tool schemas reach nothing: only refs inside the schema itself resolve, at load and at run.

A tool's `parameters` is a JSON Schema that gauntlet checks each call's arguments against.
jsonschema follows a `$ref` to wherever it points unless told otherwise: a file's content
would reach the model in a tool error (and so the results), and a URL would be fetched. The
loader refuses any ref that leaves the schema; the validator at run time is built on a
registry that retrieves nothing, whatever got past the loader.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.cases.model import ToolSpec
from gauntlet.errors import ConfigErrors, TargetError
from gauntlet.targets.mapping import Requested
from gauntlet.targets.scripted import Scripted, answer

SUITE = """\
suite: s
gate: trajectory
version: 1
threshold: 1
tools:
  - name: lookup_hours
    description: Opening hours.
    parameters: {parameters}
cases:
  - id: c1
    language: en
    prompt: When?
    max_calls: 1
"""

_OUTSIDE = "only a ref inside the schema itself ('#/...') is followed"


class _Counting(ThreadingHTTPServer):
    """A 127.0.0.1 server that counts every request and answers each with a schema."""

    def __init__(self) -> None:
        self.hits = 0
        super().__init__(("127.0.0.1", 0), _CountingHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/schema.json"


class _CountingHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, _Counting)
        server.hits += 1
        body = b'{"type": "string", "description": "FETCHED-FROM-THE-NETWORK"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing."""


@pytest.fixture
def counting() -> Iterator[_Counting]:
    server = _Counting()
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _errors(tmp_path: Path, parameters: str) -> list[str]:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(parameters=parameters), encoding="utf-8")
    with pytest.raises(ConfigErrors) as caught:
        load_suites([path])
    return [error.render().removeprefix(f"{path}:") for error in caught.value.errors]


@pytest.mark.parametrize(
    ("parameters", "why"),
    [
        (
            "{type: object, properties: {a: {$ref: 'file:///etc/passwd'}}}",
            "$ref at /properties/a is 'file:///etc/passwd'; " + _OUTSIDE,
        ),
        (
            "{type: object, properties: {a: {$ref: 'http://127.0.0.1:9/s.json'}}}",
            "$ref at /properties/a is 'http://127.0.0.1:9/s.json'; " + _OUTSIDE,
        ),
        (
            "{type: object, properties: {a: {$ref: 'other.json#/x'}}}",
            "$ref at /properties/a is 'other.json#/x'; " + _OUTSIDE,
        ),
        (
            "{type: object, $defs: {d: {$dynamicRef: 'https://example.test/s'}}}",
            "$dynamicRef at /$defs/d is 'https://example.test/s'; " + _OUTSIDE,
        ),
        (
            "{type: object, $id: 'http://127.0.0.1:9/', properties: {a: {$ref: '#/$defs/d'}}}",
            "$id at the root would make every '#' ref point elsewhere; a tool's schema has none",
        ),
        (
            "{type: object, properties: {a: {$ref: '#/$defs/missing'}}}",
            "$ref at /properties/a is '#/$defs/missing', which names nothing in the schema",
        ),
    ],
)
def test_a_tool_schema_that_reaches_outside_itself_is_refused_when_the_suite_loads(
    tmp_path: Path, parameters: str, why: str
) -> None:
    # Trap: any `$ref` accepted at load (jsonschema's check of a schema never follows one),
    # and followed at run time to a file (its content sent to the model in a tool error) or
    # to a URL (fetched).
    [error] = _errors(tmp_path, parameters)
    assert error == f"8:17: tools[0].parameters: {why}"


def test_a_ref_inside_the_schema_is_followed(tmp_path: Path) -> None:
    # Trap: a rule that refuses every `$ref`, and with it the `$defs` tool schemas rely on.
    path = tmp_path / "suite.yaml"
    parameters = (
        "{type: object, $defs: {day: {enum: [mon, sat]}, node: {properties: "
        "{next: {$ref: '#/$defs/node'}}}}, properties: {day: {$ref: '#/$defs/day'}, "
        "tree: {$ref: '#/$defs/node'}, self: {$ref: '#'}}}"
    )
    path.write_text(SUITE.format(parameters=parameters), encoding="utf-8")
    [loaded] = load_suites([path]).suites
    [tool] = loaded.suite.tools  # type: ignore[union-attr]
    scripted = Scripted((tool,))
    refused = answer(scripted, _asked({"day": "sun"}), 0).call.error
    assert refused is not None and "arguments do not match the schema at $.day" in refused
    assert (
        answer(scripted, _asked({"day": "sat"}), 0).call.error
        == "no scripted result for these arguments"
    )


def _asked(arguments: dict[str, Any]) -> Requested:
    return Requested("c1", "lookup_hours", arguments, "{}", "somewhere", {})


def test_a_tool_schema_never_fetches_a_ref_at_run_time(counting: _Counting) -> None:
    # Trap: the validator built with jsonschema's default retrieval, so a schema that got
    # past the loader (built in code, or a loader rule missed) fetches its URL and sends
    # what came back to the model.
    schema = {"type": "object", "properties": {"a": {"$ref": counting.url}}}
    tool = ToolSpec.model_construct(name="lookup_hours", description="d", parameters=schema)
    with warnings.catch_warnings(), pytest.raises(TargetError) as caught:
        # jsonschema only warns before it fetches: the fetch itself is what must not happen.
        warnings.simplefilter("ignore", DeprecationWarning)
        answer(Scripted((tool,)), _asked({"a": 1}), 0)
    assert str(caught.value) == (
        "the schema of tool lookup_hours refers outside itself "
        f"({counting.url}), which gauntlet never fetches"
    )
    assert counting.hits == 0


def test_a_suite_with_an_http_ref_is_refused_and_never_fetches_it(
    tmp_path: Path, counting: _Counting
) -> None:
    # Trap: the URL fetched while the suite loads (a check that resolves refs to test them).
    parameters = f"{{type: object, properties: {{a: {{$ref: '{counting.url}'}}}}}}"
    [error] = _errors(tmp_path, parameters)
    assert f"$ref at /properties/a is '{counting.url}'" in error
    assert counting.hits == 0


_LOOPS = "which leads back to itself before it reads any argument: no call could be checked"


@pytest.mark.parametrize(
    ("parameters", "why"),
    [
        ("{type: object, $ref: '#'}", f"$ref at the root is '#', {_LOOPS}"),
        (
            "{type: object, properties: {a: {$ref: '#/properties/a'}}}",
            f"$ref at /properties/a is '#/properties/a', {_LOOPS}",
        ),
        (
            "{type: object, $defs: {x: {allOf: [{$ref: '#/$defs/z'}]}, "
            "z: {not: {$ref: '#/$defs/x'}}}, properties: {a: {$ref: '#/$defs/x'}}}",
            f"$ref at /$defs/z/not is '#/$defs/x', {_LOOPS}",
        ),
    ],
)
def test_a_tool_schema_whose_refs_loop_in_place_is_refused_when_the_suite_loads(
    tmp_path: Path, parameters: str, why: str
) -> None:
    # Trap: only refs that leave the schema refused; a ref that comes back to where it stands
    # without descending into the arguments loaded, then recursed without end on the first
    # call (RecursionError: an internal error instead of a located refusal).
    [error] = _errors(tmp_path, parameters)
    assert error == f"8:17: tools[0].parameters: {why}"


def test_a_tool_schema_that_loops_past_the_loader_is_a_worded_error_at_run_time() -> None:
    # Trap: only `Unresolvable` caught around validation, so a looping schema built in code
    # (or a loader rule missed) ended the run with Python's RecursionError.
    schema = {"type": "object", "$ref": "#"}
    tool = ToolSpec.model_construct(name="lookup_hours", description="d", parameters=schema)
    with pytest.raises(TargetError) as caught:
        answer(Scripted((tool,)), _asked({"a": 1}), 0)
    assert str(caught.value) == (
        "the schema of tool lookup_hours leads back to itself before it reads any argument, "
        "so no call can be checked against it"
    )


def test_a_tool_schema_whose_refs_chain_too_deep_to_follow_is_refused(tmp_path: Path) -> None:
    # Trap: the ring search itself recursing once per ref, so a long chain of `$defs` each
    # naming the next (flat in the file, under every depth limit) ended the load in
    # RecursionError, an internal error, instead of a located refusal.
    links = ", ".join(f"d{n}: {{$ref: '#/$defs/d{n + 1}'}}" for n in range(3000))
    parameters = (
        "{type: object, properties: {a: {$ref: '#/$defs/d0'}}, "
        f"$defs: {{{links}, d3000: {{type: string}}}}}}"
    )
    [error] = _errors(tmp_path, parameters)
    assert error.endswith(
        "tools[0].parameters: its refs lead through more schemas in a row than can be checked; "
        "a tool's arguments need far fewer"
    )
