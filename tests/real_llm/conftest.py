"""Acceptance tests against a real OpenAI-compatible server: llama.cpp's, serving SmolLM2-135M.

`make real-llm` builds and starts the server and runs these tests with its base URL (up to
`/v1`) in GAUNTLET_REAL_LLM_URL; without that variable every test that needs the server is
skipped, saying so. They check the transport, not the model: a 135M model fails most gates,
and that is not what is tested here.

What was found setting the server up (llama-cpp-python 0.3.36), which these tests rely on:

- Chat format: none is given, so the model's own template (ChatML, from the GGUF) is used.
  Every template-based format answers a forced `tool_choice` with a tool call, generated
  under a grammar built from the tool's JSON Schema, and passes the request's `seed` on.
  `chatml-function-calling` forces tool calls as well, but HTML-escapes every message (the
  model reads `I&#39;m`) and drops `seed`.
- A forced tool call is reported with `finish_reason: tool_calls` even when `max_tokens` cut
  its arguments short (they are then not JSON), so the tool here takes an enum argument.
- Streamed tool calls repeat `function.name` and `id` in every fragment: an assembler that
  joined the names would report `lookup_servicelookup_service...`.
- By default the server cuts a stream short when another request arrives (`data: [DONE]`
  with no finish_reason, then a dropped connection); `make real-llm` starts it with
  `--interrupt_requests False` so concurrent asks wait in its queue instead.

The README's example, examples/targets/llama-cpp.yaml, names http://127.0.0.1:8080/v1;
`make real-llm` serves the model there, and the streamed run asks every built-in case through
that file exactly as `gauntlet example target llama-cpp` prints it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..cli_helpers import CliResult

URL_VARIABLE = "GAUNTLET_REAL_LLM_URL"
NO_SERVER = f"no llama.cpp server: run `make real-llm` (it sets {URL_VARIABLE})"

ROOT = Path(__file__).resolve().parents[2]
SUITES = ROOT / "suites"
EXAMPLES = ROOT / "examples" / "targets"
EXAMPLE = EXAMPLES / "llama-cpp.yaml"
"""The README's example (streamed), shipped in the wheel: run as it is, byte for byte."""
DATA = Path(__file__).resolve().parent / "data"
TOOL_TARGET = DATA / "tool-call.yaml"
TOOL_CASES = DATA / "cases"

COMMAND_TIMEOUT = 3600.0
"""Seconds one gauntlet command may take: a whole run asks about a hundred questions of a
model that answers one at a time, on whatever CPU the machine has to spare."""

requires_server = pytest.mark.skipif(not os.environ.get(URL_VARIABLE), reason=NO_SERVER)
"""Mark for every test that talks to the server."""


def materialise(
    source: Path,
    out: Path,
    *,
    base_url: str | None = None,
    stream: bool | None = None,
    max_tokens: int | None = None,
) -> Path:
    """Write `source` to `out` pointing at `base_url`, with `stream` and `max_tokens` set, each
    if given.

    The lines are rewritten as text, so the file stays the one a user would write; each must
    occur exactly once.
    """
    text = source.read_text(encoding="utf-8")
    if base_url is not None:
        text, found = re.subn(r"(?m)^base_url: .*$", f"base_url: {base_url}", text)
        assert found == 1, f"{source}: expected one top-level base_url line, found {found}"
    if stream is not None:
        text, found = re.subn(
            r"(?m)^stream: (?:true|false)$", f"stream: {str(stream).lower()}", text
        )
        assert found == 1, f"{source}: expected one top-level stream line, found {found}"
    if max_tokens is not None:
        text, found = re.subn(r"(?m)^max_tokens: \d+$", f"max_tokens: {max_tokens}", text)
        assert found == 1, f"{source}: expected one top-level max_tokens line, found {found}"
    out.write_text(text, encoding="utf-8")
    return out


ACCEPTS_ABSENT_CONTEXT_IDS = "accepts_absent: [context_ids]"
"""What a grounding suite writes to run against a target that reports no retrieved pages."""


def suites_without_context_ids(out: Path, names: tuple[str, ...] = ()) -> Path:
    """The built-in suites (or those of `names`) copied into `out`, each grounding suite saying
    `accepts_absent: [context_ids]`.

    llama.cpp's server retrieves nothing, so the example target files declare `context_ids`
    absent, and a grounding suite that does not accept that is refused (exit 2, no case
    asked). The line is added as text after `gate: grounding`, as a user would write it.
    """
    out.mkdir(parents=True, exist_ok=True)
    sources = [SUITES / name for name in names] if names else sorted(SUITES.glob("*.yaml"))
    for source in sources:
        text = source.read_text(encoding="utf-8")
        if re.search(r"(?m)^gate: grounding$", text):
            text, found = re.subn(
                r"(?m)^gate: grounding$", f"gate: grounding\n{ACCEPTS_ABSENT_CONTEXT_IDS}", text
            )
            assert found == 1, f"{source}: expected one top-level gate line, found {found}"
        (out / source.name).write_text(text, encoding="utf-8")
    return out


def run_gauntlet(*args: str | Path, cwd: Path | None = None) -> CliResult:
    """`python -m gauntlet ARGS` in its own process, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "gauntlet", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def read_results(path: Path, result: CliResult) -> dict[str, Any]:
    """The results file a run wrote; a missing one fails, showing what the run printed."""
    assert path.is_file(), f"no results file at {path}\n{result.show()}"
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


Run = tuple[CliResult, Path]


@pytest.fixture(scope="session")
def base_url() -> str:
    """The server's base URL, up to `/v1`."""
    url = os.environ.get(URL_VARIABLE)
    if not url:
        pytest.skip(NO_SERVER)
    return url.rstrip("/")


def example_base_url() -> str:
    """The base URL the README's example names: where `make real-llm` serves the model."""
    found = re.findall(r"(?m)^base_url: (\S+)$", EXAMPLE.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{EXAMPLE}: expected one top-level base_url line"
    return str(found[0])


def _built_in_run(where: Path, target: Path) -> Run:
    """Every built-in suite's cases as written asked through `target` at the default concurrency.

    The grounding suite is run from a copy that accepts an absent `context_ids`. Without the
    variants their transforms derive (`--no-transforms`): these runs check the transport, twice,
    and the variants multiply the asks sixfold; `test_transforms.py` asks the adversarial suite
    with every variant once.
    """
    cases = suites_without_context_ids(where / "cases")
    out = where / "results.json"
    return (
        run_gauntlet("run", "--target", target, "--cases", cases, "--no-transforms", "--out", out),
        out,
    )


@pytest.fixture(scope="session")
def streamed_run(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Every built-in suite asked through the README's example as shipped (streamed), once.

    The file is the one `gauntlet example target llama-cpp` prints, not a copy rewritten to
    point at the server: the server is where the file says.
    """
    assert base_url == example_base_url(), (
        f"the server is at {base_url}, but {EXAMPLE.name} names {example_base_url()}: "
        "`make real-llm` serves the model where the example says"
    )
    where = tmp_path_factory.mktemp("streamed")
    printed = subprocess.run(
        [sys.executable, "-m", "gauntlet", "example", "target", "llama-cpp"],
        capture_output=True,
        timeout=60,
        check=True,
    ).stdout
    assert printed == EXAMPLE.read_bytes(), "`gauntlet example target llama-cpp` is not the file"
    target = where / "target.yaml"
    target.write_bytes(printed)
    return _built_in_run(where, target)


@pytest.fixture(scope="session")
def whole_run(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Every built-in suite asked through the README's example with only `stream: false`."""
    where = tmp_path_factory.mktemp("whole")
    target = materialise(EXAMPLE, where / "target.yaml", base_url=base_url, stream=False)
    return _built_in_run(where, target)
