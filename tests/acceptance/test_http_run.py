"""`gauntlet run --http-url` end to end against a hostile server: secrets, errors, pre-flight."""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from ..cli_helpers import CliResult, RunCli
from ..hostile_server import HostileServer, hostile_server
from ..unit.cases.suite_text import grounding_suite

pytestmark = pytest.mark.network

TOKEN = "tok-5f1c9e27b3d84a60"  # noqa: S105 - a test token, sent only to 127.0.0.1
MASK = "[REDACTED]"


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client trusts the environment: no proxy may stand between it and 127.0.0.1."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    """A case directory with one grounding suite whose prompts are its case ids."""
    directory = tmp_path / "cases"
    directory.mkdir()
    suite = grounding_suite("hostile", "ask-1", "boom-1", "ask-2", "boom-2", ask_ids=True)
    (directory / "hostile.yaml").write_text(suite, encoding="utf-8")
    return directory


def _run(run_cli: RunCli, url: str, cases: Path, out: Path, *extra: str) -> CliResult:
    return run_cli(
        "run", "--http-url", url, "--cases", cases, "--out", out, "--timeout", "2", *extra
    )


def _everything(result: CliResult, out: Path) -> bytes:
    """Every byte the run put out: stdout, stderr and the results file, if any."""
    written = out.read_bytes() if out.exists() else b""
    return result.stdout.encode() + result.stderr.encode() + written


def _results(out: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(out.read_bytes())
    return document


def test_an_echoed_header_token_reaches_no_output(
    server: HostileServer,
    cases: Path,
    tmp_path: Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GAUNTLET_TEST_TOKEN", TOKEN)
    out = tmp_path / "results.json"
    header = "Authorization: Bearer ${GAUNTLET_TEST_TOKEN}"
    result = _run(run_cli, server.url("/echo-auth"), cases, out, "--header", header)
    assert result.code == 0, result.show()
    # The target really got the token (the probe and every case), and echoed it back...
    assert [seen.headers["authorization"] for seen in server.seen] == [f"Bearer {TOKEN}"] * 5
    # ...but no output holds it, and every answer shows the mask where it was echoed.
    assert TOKEN.encode() not in _everything(result, out)
    texts = [case["trials"][0]["response"]["text"] for case in _results(out)["cases"]]
    assert texts == [f"You sent Authorization: {MASK} to /echo-auth"] * 4


def test_credentials_in_the_url_reach_no_output(
    server: HostileServer, cases: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    """Whatever the run makes of them, the URL's password and key are never shown."""
    out = tmp_path / "results.json"
    url = server.url("/echo-auth?api_key=k3y", userinfo="user:s3cret")
    result = _run(run_cli, url, cases, out)
    everything = _everything(result, out)
    assert b"s3cret" not in everything, result.show()
    assert b"k3y" not in everything, result.show()


def test_credentials_in_the_url_are_sent_and_masked_where_echoed(
    server: HostileServer, cases: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "results.json"
    url = server.url("/echo-auth?api_key=k3y", userinfo="user:s3cret")
    result = _run(run_cli, url, cases, out)
    assert result.code == 0, result.show()
    assert b"dXNlcjpzM2NyZXQ" not in _everything(result, out)  # base64("user:s3cret")
    for case in _results(out)["cases"]:
        assert case["trials"][0]["response"]["text"].endswith(f"to /echo-auth?api_key={MASK}")


def test_cases_that_error_are_listed_and_the_verdict_withheld(
    server: HostileServer, cases: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "results.json"
    result = _run(run_cli, server.url("/boom"), cases, out)
    assert result.code == 2, result.show()
    assert "verdict: WITHHELD (2 cases got no answer, so no verdict)" in result.stdout
    document = _results(out)
    assert document["verdict"] == "withheld"
    assert document["totals"] == {
        "total": 4,
        "passed": 2,
        "failed": 0,
        "errored": 2,
        "not_run": 0,
    }
    outcomes = [(c["case_id"], c["outcome"], c["reason"]) for c in document["cases"]]
    assert [(case_id, outcome) for case_id, outcome, _ in outcomes] == [
        ("ask-1", "passed"),
        ("boom-1", "errored"),
        ("ask-2", "passed"),
        ("boom-2", "errored"),
    ]
    errored = [reason for _, outcome, reason in outcomes if outcome == "errored"]
    assert errored == ["HTTP 500 Internal Server Error"] * 2
    assert all(
        c["trials"][0]["response"] is None for c in document["cases"] if c["outcome"] == "errored"
    )
    # 500 is not retried: the probe and each case were asked exactly once.
    assert server.hits("/boom") == 5


def test_a_target_of_another_shape_fails_at_pre_flight(
    server: HostileServer, cases: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "results.json"
    result = _run(run_cli, server.url("/html"), cases, out)
    assert result.code == 2, result.show()
    assert result.stderr.startswith("error: pre-flight check failed: response is not JSON"), (
        result.show()
    )
    assert "body starts b'<!doctype html>" in result.stderr
    assert not out.exists()
    assert server.hits("/html") == 1  # the probe only: no case was asked


def test_a_header_naming_an_unset_variable_is_refused(
    server: HostileServer,
    cases: Path,
    tmp_path: Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GAUNTLET_UNSET_TOKEN", raising=False)
    out = tmp_path / "results.json"
    header = "Authorization: Bearer ${GAUNTLET_UNSET_TOKEN}"
    result = _run(run_cli, server.url("/echo-auth"), cases, out, "--header", header)
    assert result.code == 2, result.show()
    assert "GAUNTLET_UNSET_TOKEN" in result.stderr
    assert "is not set" in result.stderr
    assert not out.exists()
    assert server.seen == []


def test_a_certificate_authority_from_the_environment_is_trusted(
    cases: Path, tmp_path: Path, run_process: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private CA reaches the client through SSL_CERT_FILE, as on a corporate runner."""
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    out = tmp_path / "results.json"
    with hostile_server(tls=context) as server:
        result = _run(run_process, server.url("/ok"), cases, out)
        assert result.code == 0, result.show()
        assert server.hits("/ok") == 5  # the probe and the four cases
