"""`gauntlet probe --target FILE` against real servers on 127.0.0.1: its report and exit codes."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from gauntlet import __version__
from gauntlet.languages import PEERS
from gauntlet.targets.toy import make_toy

from ..cli_helpers import RunCli
from ..hostile_server import (
    CLIENT_SECRET,
    HostileServer,
    hostile_server,
    write_oauth_target,
)
from ..toy_servers import running_openai

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "targets"

MAPPED = """\
version: 1
kind: http
url: {url}
http: {{retries: 0}}
body: {{prompt: "{{{{ prompt }}}}", language: "{{{{ language }}}}"}}
response:
  text: text
  citations: citations
  context_ids: context_ids
  refused: {refused}
  escalated: escalated
"""
"""The native contract's answer read through a body template and JMESPath."""

ADVERSARIAL = (
    "suite: talk\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
    "  - {id: a1, language: en, prompt: x, attack_type: jailbreak, must_not_contain: [PWNED]}\n"
)


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def _target(tmp_path: Path, url: str, *, refused: str = "refused") -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(MAPPED.format(url=url, refused=refused), encoding="utf-8")
    return path


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "talk.yaml"
    path.write_text(ADVERSARIAL, encoding="utf-8")
    return path


def test_a_target_that_supplies_every_field_is_probed_plainly_and_exits_0(
    tmp_path: Path, server: HostileServer, run_cli: RunCli
) -> None:
    url = server.url("/ok")
    result = run_cli("probe", "--target", _target(tmp_path, url), "--cases", _cases(tmp_path))
    assert (result.code, result.stderr) == (0, ""), result.show()
    said = "You asked: What are the library's opening hours?"
    assert result.stdout == (
        "request:\n"
        f"  POST {url}\n"
        "  Content-Type: application/json\n"
        f"  User-Agent: gauntlet/{__version__}\n"
        "  body:\n"
        "    {\n"
        '      "prompt": "What are the library\'s opening hours?",\n'
        '      "language": "en"\n'
        "    }\n"
        "status: 200 OK\n"
        "response (first 2,000 characters at most):\n"
        f'    {{"text": "{said}", "citations": ["RB-1"], "context_ids": ["RB-1"], '
        '"refused": false, "escalated": false}\n'
        "fields:\n"
        f'  text: "{said}"  <- declared (JMESPath `text`)\n'
        '  citations: ["RB-1"]  <- declared (JMESPath `citations`)\n'
        '  context_ids: ["RB-1"]  <- declared (JMESPath `context_ids`)\n'
        "  refused: false  <- declared (JMESPath `refused`)\n"
        "  escalated: false  <- declared (JMESPath `escalated`)\n"
        "  tool_calls: null  <- absent (the target file declares it absent)\n"
        "gates:\n"
        "  talk (adversarial): can run\n"
    )


def test_the_built_in_suites_that_read_no_tool_calls_can_all_run_against_such_a_target(
    tmp_path: Path, server: HostileServer, run_cli: RunCli
) -> None:
    # The target reports no tool calls: the two suites that read them are refused, by name,
    # saying how to map the calls or leave those suites out; every other suite can run.
    result = run_cli("probe", "--target", _target(tmp_path, server.url("/ok")))
    assert result.code == 2, result.show()
    lines = result.stdout.split("gates:\n")[1].splitlines()
    gates = [line for line in lines if not line.startswith("    ")]
    assert len(gates) == 8
    refused = {line.split()[0] for line in gates if line.endswith(": refused")}
    assert refused == {"riverbend-indirect-injection", "riverbend-trajectory"}, result.show()
    assert all(line.endswith(": can run") for line in gates if line.split()[0] not in refused)
    reasons = [line for line in lines if line.startswith("    ")]
    assert len(reasons) == 2
    for line in reasons:  # in every language the suite declares
        listed = re.search(r"needs `tool_calls` in (.+?), which", line)
        assert listed is not None, line
        assert set(re.split(r", | and ", listed.group(1))) == set(PEERS), line
    assert all(line.endswith("naming the others with --cases") for line in reasons)


def test_the_prompt_and_language_asked_are_the_ones_given(
    tmp_path: Path, server: HostileServer, run_cli: RunCli
) -> None:
    result = run_cli(
        "probe",
        "--target",
        _target(tmp_path, server.url("/ok")),
        "--cases",
        _cases(tmp_path),
        "--prompt",
        "¿Cuál es el horario?",
        "--language",
        "es",
    )
    assert result.code == 0, result.show()
    assert '      "prompt": "¿Cuál es el horario?",\n      "language": "es"\n' in result.stdout
    assert server.seen[-1].prompt == "¿Cuál es el horario?"
    assert '  text: "You asked: ¿Cuál es el horario?"  <- declared' in result.stdout


def test_a_field_a_loaded_suite_needs_and_nobody_supplies_exits_2_naming_it(
    tmp_path: Path, server: HostileServer, run_cli: RunCli
) -> None:
    target = _target(tmp_path, server.url("/ok"), refused="{absent: true}")
    result = run_cli("probe", "--target", target)
    assert (result.code, result.stderr) == (2, ""), result.show()
    gates = result.stdout.split("gates:\n")[1]
    assert "  riverbend-adversarial (adversarial): can run\n" in gates
    assert "  riverbend-refusal (refusal): refused\n" in gates
    assert re.search(
        r"^    \S+refusal\.yaml:\d+: suite riverbend-refusal \(refusal gate\) needs `refused` in "
        rf"en, es, zh, vi, tl and ko, which {re.escape(server.url('/ok'))} does not supply "
        r"\(the target file declares it absent\): map it with a JMESPath expression, or derive "
        r"it: `refused: \{from_text: \{en: \[\.\.\.\], es: \[\.\.\.\], zh: \[\.\.\.\], "
        r"vi: \[\.\.\.\], tl: \[\.\.\.\], ko: \[\.\.\.\]\}\}`$",
        gates,
        re.MULTILINE,
    ), result.show()
    # Every gate but adversarial reads `refused`; the suites that read tool calls are refused
    # for those as well (the target reports none).
    assert gates.count(": refused\n") == 7


def test_a_target_file_that_does_not_load_exits_2_with_located_errors(
    tmp_path: Path, run_cli: RunCli
) -> None:
    target = tmp_path / "target.yaml"
    target.write_text("version: 1\nkind: http\nurl: ftp://x\n", encoding="utf-8")
    result = run_cli("probe", "--target", target)
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{target}:1:1: missing required key 'body'\n"
        f"{target}:1:1: missing required key 'response'\n"
        f"{target}:3:6: url: 'ftp://x' is not an http:// or https:// URL\n"
        "3 problems in 1 file; nothing was run.\n"
    )


def test_a_missing_target_file_exits_2(tmp_path: Path, run_cli: RunCli) -> None:
    result = run_cli("probe", "--target", tmp_path / "nope.yaml")
    assert result.code == 2, result.show()
    assert result.stderr == (
        f"{tmp_path / 'nope.yaml'}: cannot read: No such file or directory\n"
        "1 problem in 1 file; nothing was run.\n"
    )


def test_a_language_that_is_not_a_tag_exits_2_before_anything_is_read(
    tmp_path: Path, run_cli: RunCli
) -> None:
    result = run_cli("probe", "--target", tmp_path / "nope.yaml", "--language", "Spanish!")
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        "error: --language Spanish!: not a BCP 47 language tag, as a case's `language` is "
        "written (en, es, es-MX)\n"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_target_that_cannot_be_reached_exits_2_saying_so(tmp_path: Path, run_cli: RunCli) -> None:
    url = f"http://127.0.0.1:{_free_port()}/ask"
    result = run_cli("probe", "--target", _target(tmp_path, url), "--cases", _cases(tmp_path))
    assert (result.code, result.stderr) == (2, ""), result.show()
    assert f"  POST {url}\n" in result.stdout
    assert re.search(rf"^error: cannot connect to {re.escape(url)}: ", result.stdout, re.MULTILINE)
    assert "status:" not in result.stdout and "fields:" not in result.stdout


def test_an_answer_that_breaks_the_mapping_exits_2_with_the_error(
    tmp_path: Path, server: HostileServer, run_cli: RunCli
) -> None:
    result = run_cli(
        "probe",
        "--target",
        _target(tmp_path, server.url("/wrong-types")),
        "--cases",
        _cases(tmp_path),
    )
    assert (result.code, result.stderr) == (2, ""), result.show()
    assert "\nerror: refused: JMESPath `refused` found a string 'no', not true or false\n" in (
        result.stdout
    )


def test_oauth_credentials_and_the_token_are_masked_in_the_probe(
    tmp_path: Path, server: HostileServer, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = write_oauth_target(tmp_path / "target.yaml", server, monkeypatch)
    result = run_cli("probe", "--target", target, "--cases", _cases(tmp_path))
    assert result.code == 0, result.show()
    [token] = server.tokens
    assert "  Authorization: [REDACTED]\n" in result.stdout
    assert "with [REDACTED]" in result.stdout  # the answer says the token back
    for secret in (token, CLIENT_SECRET):
        assert secret not in result.stdout + result.stderr


def test_an_openai_chat_stream_is_probed_with_its_derived_fields(
    tmp_path: Path, run_cli: RunCli
) -> None:
    example = (EXAMPLES / "openai-toy-stream.yaml").read_text(encoding="utf-8")
    with running_openai(make_toy()) as base_url:
        target = tmp_path / "target.yaml"
        target.write_text(example.replace("http://127.0.0.1:8765/v1", base_url), encoding="utf-8")
        result = run_cli("probe", "--target", target, "--language", "es", "--prompt", "¿Horario?")
    assert result.code == 0, result.show()
    fields = result.stdout.split("fields:\n")[1].split("gates:\n")[0].splitlines()
    assert fields[1:6] == [
        "  citations: []  <- derived (regex `\\[(RB-\\d+)\\]` over the answer, markers removed "
        "from the text)",
        "  context_ids: []  <- declared (JMESPath `choices[0].message.context.retrieved`)",
        "  refused: false  <- declared (the `refusal` field (null))",
        "  escalated: false  <- derived (phrases for es (2))",
        "  tool_calls: []  <- declared (`choices[0].message.tool_calls`)",
    ]
    assert re.fullmatch(r"  first streamed chunk after [0-9,]+ ms", fields[-1])


def test_the_probe_printed_to_no_terminal_is_plain_text(
    tmp_path: Path, server: HostileServer, run_process: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    prompt = "[bold red]hours[/] \x1b[31m?"  # markup and a terminal escape, echoed back
    result = run_process(
        "probe",
        "--target",
        _target(tmp_path, server.url("/ok")),
        "--cases",
        _cases(tmp_path),
        "--prompt",
        prompt,
    )
    assert result.code == 0, result.show()
    assert "\x1b" not in result.stdout + result.stderr
    assert '  text: "You asked: [bold red]hours[/] \\u001b[31m?"  <- declared' in result.stdout
