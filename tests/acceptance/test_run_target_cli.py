"""`gauntlet run --target FILE`: what the command line refuses, and runs against real servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gauntlet.targets.toy import make_toy

from ..cli_helpers import RunCli
from ..hostile_server import (
    CLIENT_SECRET,
    HostileServer,
    hostile_server,
    write_oauth_target,
)
from ..toy_servers import running_openai

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "targets"

ADVERSARIAL = (
    "suite: talk\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
    "  - {id: a1, language: en, prompt: Hello, attack_type: jailbreak, "
    "must_not_contain: [PWNED]}\n"
    "  - {id: a2, language: es, prompt: Hola, attack_type: jailbreak, "
    "must_not_contain: [PWNED]}\n"
)


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "talk.yaml"
    path.write_text(ADVERSARIAL, encoding="utf-8")
    return path


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A target file that loads (its server is never asked by the tests that use it)."""
    path = tmp_path / "target.yaml"
    path.write_text("version: 1\nkind: gauntlet\nurl: http://127.0.0.1:9/ask\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("other", "named"),
    [
        (["--http-url", "http://127.0.0.1:9/"], "--http-url"),
        (["--callable", "tests.action_targets:passing"], "--callable"),
        (["--toy"], "--toy/--toy-defect"),
        (["--toy-defect", "drop_citations"], "--toy/--toy-defect"),
    ],
)
def test_a_target_file_and_another_target_are_refused_together(
    tmp_path: Path, target: Path, run_cli: RunCli, other: list[str], named: str
) -> None:
    result = run_cli("run", "--target", target, *other, "--out", tmp_path / "r.json")
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == f"error: choose one target, not --target and {named}\n"
    assert not (tmp_path / "r.json").exists()


def test_a_header_is_refused_where_no_http_request_is_sent(tmp_path: Path, run_cli: RunCli) -> None:
    # A header beside a target file is sent (tests/acceptance/test_action.py); beside the toy
    # or a Python callable there is no request to send it with.
    result = run_cli("run", "--toy", "--header", "X-Key: v", "--out", tmp_path / "r.json")
    assert (result.code, result.stderr) == (
        2,
        "error: --header is for HTTP targets (--target, --http-url)\n",
    )


def test_a_header_the_target_file_also_writes_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    # Trap: two values for one header, one silently winning, sends what nobody chose.
    path = tmp_path / "target.yaml"
    path.write_text(
        "version: 1\nkind: gauntlet\nurl: http://127.0.0.1:9/ask\nheaders:\n  X-Key: a\n",
        encoding="utf-8",
    )
    result = run_cli("run", "--target", path, "--header", "x-key: b", "--out", tmp_path / "r")
    assert (result.code, result.stderr) == (
        2,
        "error: --header and the target file both set x-key: write it once\n",
    )


@pytest.mark.parametrize(
    ("kind", "auth", "owner"),
    [
        ("gauntlet", "auth: {kind: bearer, token_env: RB_TOKEN}", "auth"),
        ("openai-chat", "api_key_env: RB_TOKEN", "api_key_env"),
    ],
)
def test_an_authorization_header_the_files_auth_also_sets_is_refused(
    tmp_path: Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    auth: str,
    owner: str,
) -> None:
    # Trap: `--header Authorization: ...` beside a file whose `auth:` (or `api_key_env`) sets
    # the same header: the file's credential silently replaced the one typed, so a run was
    # sent with a token nobody chose for it (the file's own `headers:` were already refused).
    monkeypatch.setenv("RB_TOKEN", "file-token")
    where = (
        "url: http://127.0.0.1:9/ask"
        if kind == "gauntlet"
        else (
            "base_url: http://127.0.0.1:9/v1\nmodel: m\nresponse:\n  citations: {absent: true}\n"
            "  context_ids: {absent: true}\n  escalated: {absent: true}"
        )
    )
    path = tmp_path / "target.yaml"
    path.write_text(f"version: 1\nkind: {kind}\n{where}\n{auth}\n", encoding="utf-8")
    result = run_cli(
        "run", "--target", path, "--header", "Authorization: Bearer typed", "--out", tmp_path / "r"
    )
    assert (result.code, result.stderr) == (
        2,
        f"error: --header and the target file's `{owner}` both set Authorization: write it once\n",
    )
    assert "typed" not in result.stderr


def test_an_unset_environment_variable_is_refused_where_the_file_names_it(
    tmp_path: Path, cases: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RB_TOKEN", raising=False)
    path = tmp_path / "target.yaml"
    path.write_text(
        "version: 1\nkind: gauntlet\nurl: http://127.0.0.1:9/ask\n"
        "auth: {kind: bearer, token_env: RB_TOKEN}\n",
        encoding="utf-8",
    )
    result = run_cli("run", "--target", path, "--cases", cases, "--out", tmp_path / "r.json")
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{path}:4:33: auth.token_env: environment variable RB_TOKEN is not set\n"
        "  hint: set it where gauntlet runs; in GitHub Actions, pass the secret with `env:`\n"
        "1 problem in 1 file; nothing was run.\n"
    )


def test_a_missing_target_file_is_refused_before_anything_runs(
    tmp_path: Path, cases: Path, run_cli: RunCli
) -> None:
    missing = tmp_path / "nope.yaml"
    result = run_cli("run", "--target", missing, "--cases", cases, "--out", tmp_path / "r.json")
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{missing}: cannot read: No such file or directory\n"
        "1 problem in 1 file; nothing was run.\n"
    )
    assert not (tmp_path / "r.json").exists()


def test_an_invalid_target_file_is_refused_with_every_problem_located(
    tmp_path: Path, cases: Path, run_cli: RunCli
) -> None:
    path = tmp_path / "target.yaml"
    path.write_text(
        "version: 1\nkind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: m\n"
        "response:\n  citations: {absent: true}\n  contxt_ids: x\n",
        encoding="utf-8",
    )
    result = run_cli("run", "--target", path, "--cases", cases, "--out", tmp_path / "r.json")
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{path}:6:3: response: missing required key 'escalated'\n"
        f"{path}:7:3: response.contxt_ids: unknown key\n"
        "  hint: did you mean 'context_ids'?\n"
        "2 problems in 1 file; nothing was run.\n"
    )


@pytest.mark.parametrize("option", [["--timeout", "5"], ["--retries", "1"]])
@pytest.mark.parametrize("chosen", [["--toy"], ["--callable", "tests.action_targets:passing"], []])
def test_timeout_and_retries_are_refused_for_a_target_that_is_not_http(
    tmp_path: Path, run_cli: RunCli, chosen: list[str], option: list[str]
) -> None:
    result = run_cli("run", *chosen, *option, "--out", tmp_path / "r.json")
    assert (result.code, result.stderr) == (
        2,
        "error: --timeout and --retries are for HTTP targets (--target, --http-url)\n",
    ), result.show()


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server(slow_seconds=30) as running:
        yield running


def _mapped(tmp_path: Path, url: str, http: str = "") -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(
        f"version: 1\nkind: http\nurl: {url}\n{http}"
        'body: {prompt: "{{ prompt }}", language: "{{ language }}"}\n'
        "response:\n  text: text\n  citations: citations\n  context_ids: context_ids\n"
        "  refused: refused\n  escalated: escalated\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.network
def test_timeout_and_retries_on_the_command_line_override_the_files(
    tmp_path: Path, cases: Path, server: HostileServer, run_cli: RunCli
) -> None:
    target = _mapped(tmp_path, server.url("/slow"), "http: {timeout: 60, retries: 5}\n")
    out = tmp_path / "r.json"
    result = run_cli(
        "run", "--target", target, "--cases", cases, "--out", out,
        "--timeout", "0.2", "--retries", "0",
    )  # fmt: skip
    assert result.code == 2, result.show()
    assert result.stderr.startswith(
        "error: pre-flight check failed: no complete answer within 0.2 s; "
    ), result.show()
    assert server.hits("/slow") == 1  # no retry


@pytest.mark.network
def test_a_run_through_a_target_file_records_the_file_and_each_fields_provenance(
    tmp_path: Path, cases: Path, server: HostileServer, run_cli: RunCli
) -> None:
    target = _mapped(tmp_path, server.url("/ok?v=1"))
    out = tmp_path / "r.json"
    result = run_cli("run", "--target", target, "--cases", cases, "--out", out)
    assert result.code == 0, result.show()
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["target"] == {
        "kind": "http",
        "name": server.url("/ok"),
        "defects": [],
        "target_file": str(target),
    }
    [trial] = written["cases"][0]["trials"]
    assert trial["provenance"]["text"] == {"origin": "declared", "rule": "JMESPath `text`"}
    assert trial["provenance"]["tool_calls"] == {
        "origin": "absent",
        "rule": "the target file declares it absent",
    }


@pytest.mark.network
def test_oauth_through_a_target_file_sends_the_token_and_shows_no_secret(
    tmp_path: Path,
    cases: Path,
    server: HostileServer,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = write_oauth_target(tmp_path / "target.yaml", server, monkeypatch)
    out = tmp_path / "r.json"
    result = run_cli("run", "--target", target, "--cases", cases, "--out", out)
    assert result.code == 0, result.show()
    [token] = server.tokens  # one token for the pre-flight check and both cases
    asked = [seen for seen in server.seen if seen.path.startswith("/protected")]
    assert [seen.headers["authorization"] for seen in asked] == [f"Bearer {token}"] * 3
    written = out.read_text(encoding="utf-8")
    assert "with [REDACTED]" in written  # the answers say the token back
    for secret in (token, CLIENT_SECRET):
        assert secret not in written + result.stdout + result.stderr


@pytest.mark.network
def test_an_openai_chat_target_file_runs_the_built_in_suites_against_the_toy(
    tmp_path: Path, run_cli: RunCli
) -> None:
    example = (EXAMPLES / "openai-toy.yaml").read_text(encoding="utf-8")
    out = tmp_path / "r.json"
    with running_openai(make_toy()) as base_url:
        target = tmp_path / "openai-toy.yaml"
        target.write_text(example.replace("http://127.0.0.1:8765/v1", base_url), encoding="utf-8")
        result = run_cli("run", "--target", target, "--out", out, "--quiet")
    assert result.code == 0, result.show()
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["verdict"] == "pass"
    assert written["target"]["kind"] == "openai-chat"
    assert written["target"]["name"] == "riverbend-toy (openai-chat)"


CUT_STREAM_HINT = (
    "llama-cpp-python's server cuts a stream short when another request arrives unless it "
    "is started with `--interrupt_requests False`"
)
"""What a cut stream's error says of the server setting that cuts streams."""


@pytest.mark.network
def test_a_cut_stream_names_the_server_setting_that_cuts_streams(
    tmp_path: Path, cases: Path, server: HostileServer, run_cli: RunCli
) -> None:
    # Trap: a stream that ends with `data: [DONE]` but no finish_reason is refused (fail
    # closed), yet the message says nothing of why a server does that or how to stop it, so
    # the user of llama-cpp-python's server is left with a run of errors and no fix.
    target = tmp_path / "target.yaml"
    target.write_text(
        f"version: 1\nkind: openai-chat\nbase_url: {server.url('/cut-stream')}\nmodel: m\n"
        "stream: true\nresponse:\n  citations: {absent: true}\n  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    result = run_cli("run", "--target", target, "--cases", cases, "--out", out, "--retries", "0")
    assert result.code == 2, result.show()
    assert "stream ended without a finish_reason for choices[0]" in result.stderr, result.show()
    assert CUT_STREAM_HINT in result.stderr, result.show()
    assert server.hits("/cut-stream/chat/completions") == 1
