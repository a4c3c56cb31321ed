"""Secrets are learned in the form that travels: a real 127.0.0.1 server says back all it got.

The server is an OpenAI-compatible chat API and an OAuth token endpoint. Every answer repeats
the request as the server read it: the path and query as sent, the query decoded, every
header, and the body. Whatever gauntlet sends, in whatever form it went, comes back in an
answer, so a secret registered in any other form than the one that travelled is seen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from ..cli_helpers import CliResult, RunCli
from ..toy_servers import running_app

pytestmark = pytest.mark.network

QUERY_KEY = "q-key+5e/91c=7b"
"""A credential in the base URL's query: `+`, `/` and `=` travel percent-encoded."""
PADDED = "  padded-4f0d2a91  "
"""A `${VAR}` value with spaces around it, which no header value keeps."""
SHORT_TOKEN = "t0k-9"  # noqa: S105 - a test token, sent only to 127.0.0.1
"""An access token shorter than 8 characters: still a token, and still masked."""
CLIENT_ID = "echo-client"
CLIENT_SECRET = "echo-cl13nt-s3cret"  # noqa: S105 - a test fixture
SECRET_SPELLINGS = (
    "q-key+5e/91c=7b",
    "q-key%2B5e%2F91c%3D7b",
    "q-key%2B5e/91c%3D7b",  # as aiohttp sends it: `/` is left plain in a query
    "q-key 5e/91c=7b",  # the `+` read as a space, as a form decoder reads it
    "padded-4f0d2a91",
    SHORT_TOKEN,
    CLIENT_SECRET,
)

ADVERSARIAL = (
    "suite: talk\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
    "  - {id: a1, language: en, prompt: Hello, attack_type: jailbreak, "
    "must_not_contain: [PWNED]}\n"
    "  - {id: a2, language: es, prompt: Hola, attack_type: jailbreak, "
    "must_not_contain: [PWNED]}\n"
)


def _echo_app() -> web.Application:
    async def completions(request: web.Request) -> web.Response:
        said = {
            "path": request.raw_path,
            "query": dict(request.query),
            "headers": dict(request.headers),
            "body": await request.text(),
        }
        text = "You sent " + json.dumps(said, ensure_ascii=False)
        return web.json_response(
            {
                "id": "c1",
                "object": "chat.completion",
                "model": "echo",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
            }
        )

    async def token(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response(
            {"access_token": SHORT_TOKEN, "token_type": "Bearer", "expires_in": 3600}
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_post("/token", token)
    return app


@pytest.fixture
def base_url() -> Iterator[str]:
    with running_app(_echo_app()) as url:
        yield url


@pytest.fixture
def target(tmp_path: Path, base_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ECHO_PADDED", PADDED)
    monkeypatch.setenv("ECHO_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("ECHO_CLIENT_SECRET", CLIENT_SECRET)
    root = base_url.removesuffix("/v1")
    path = tmp_path / "target.yaml"
    path.write_text(
        "version: 1\nkind: openai-chat\n"
        f"base_url: {base_url}?api-version=1&api-key=q-key%2B5e%2F91c%3D7b\n"
        "model: echo\n"
        "headers: {X-Tenant: '${ECHO_PADDED}'}\n"
        "auth:\n  kind: oauth2-client-credentials\n"
        f"  token_url: {root}/token\n"
        "  client_id_env: ECHO_CLIENT_ID\n  client_secret_env: ECHO_CLIENT_SECRET\n"
        "response:\n  citations: {absent: true}\n  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "talk.yaml"
    path.write_text(ADVERSARIAL, encoding="utf-8")
    return path


def _leaked(*outputs: str) -> list[str]:
    return [secret for secret in SECRET_SPELLINGS if any(secret in out for out in outputs)]


def _shown(result: CliResult) -> str:
    return result.stdout + result.stderr


def test_every_secret_is_masked_in_the_form_it_travelled_in_the_results(
    tmp_path: Path, target: Path, cases: Path, run_cli: RunCli
) -> None:
    # Trap: secrets registered as the file wrote them (the query's value percent-encoded, the
    # variable with its spaces) or not at all (a token under 8 characters), while the server
    # says back what it received: the query decoded, the header trimmed, the short token.
    out = tmp_path / "results.json"
    result = run_cli("run", "--target", target, "--cases", cases, "--out", out)
    assert result.code == 0, result.show()
    written = out.read_text(encoding="utf-8")
    answers = [case["trials"][0]["response"]["text"] for case in json.loads(written)["cases"]]
    assert all(answer.startswith("You sent ") and "[REDACTED]" in answer for answer in answers)
    assert _leaked(written, _shown(result)) == []


def test_every_secret_is_masked_in_the_form_it_travelled_in_the_probe(
    tmp_path: Path, target: Path, cases: Path, run_cli: RunCli
) -> None:
    # Trap: `probe` prints the request and the raw answer; masking only the URL it shows
    # leaves the echoed query, header and token in the answer it prints.
    result = run_cli("probe", "--target", target, "--cases", cases)
    assert result.code == 0, result.show()
    assert "response (first" in result.stdout
    assert "[REDACTED]" in result.stdout
    assert _leaked(_shown(result)) == []


def test_probe_sends_and_prints_no_file_that_is_not_beside_the_target_file(
    tmp_path: Path, cases: Path, run_cli: RunCli
) -> None:
    # Trap: `system_file: /proc/self/environ` read, sent as the system prompt and printed
    # by `probe` with the request, the environment's secrets with it.
    path = tmp_path / "target.yaml"
    path.write_text(
        "version: 1\nkind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: m\n"
        "system_file: /proc/self/environ\n"
        "response:\n  citations: {absent: true}\n  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    result = run_cli("probe", "--target", path, "--cases", cases)
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{path}:5:14: system_file: /proc/self/environ: an absolute path, which could name "
        "any file on this machine\n"
        "  hint: name a file in the target file's directory (or below it), relative to that "
        "directory\n"
        "1 problem in 1 file; nothing was run.\n"
    )
