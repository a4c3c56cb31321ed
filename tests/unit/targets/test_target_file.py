"""Target files: the corpus, every rule beyond the models, and no input that escapes the loader.

`tests/corpus/targets/valid/*.yaml` must load. Each `tests/corpus/targets/invalid/<name>/`
holds a `target.yaml` (and the files it names) and an `expected.txt`: the loader's errors
exactly as rendered (`target.yaml:LINE:COLUMN: message`, then `  hint: ...`), all of them and
nothing more. Both load with `ENVIRON` as the environment. A system prompt over the size cap
is written by the test (`GENERATED`), not kept in the repository.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from gauntlet.cases.yaml_nodes import read_document
from gauntlet.errors import ConfigErrors, ConfigSchemaError, ConfigSyntaxError
from gauntlet.redact import Secret
from gauntlet.targets.spec import (
    Absent,
    BearerAuth,
    CitationsFromText,
    DecisionFromText,
    GauntletSpec,
    HttpResponse,
    HttpSpec,
    OAuth2ClientCredentials,
    OpenAIChatSpec,
    Placeholder,
    SessionFromResponse,
    StreamFormat,
    target_file_schema,
)
from gauntlet.targets.target_file import (
    MAX_SYSTEM_FILE_BYTES,
    MAX_TARGET_FILE_BYTES,
    LoadedTarget,
    load_target_file,
    parse_target_file,
)

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus" / "targets"
VALID = CORPUS / "valid"
INVALID = CORPUS / "invalid"

ENVIRON = {
    "RIVERBEND_TOKEN": "rb-token-0123456789",
    "RIVERBEND_API_KEY": "sk-riverbend-0123456789",
    "RIVERBEND_CLIENT_ID": "riverbend-client-id",
    "RIVERBEND_CLIENT_SECRET": "client-secret-0123456789",
    "RIVERBEND_TENANT": "tenant-7",
    "EMPTY_SECRET": "",
}


def _too_large_prompt(directory: Path) -> None:
    (directory / "prompts").mkdir()
    (directory / "prompts" / "system.txt").write_bytes(b"x" * (MAX_SYSTEM_FILE_BYTES + 1))


GENERATED: dict[str, Callable[[Path], None]] = {"system-file-too-large": _too_large_prompt}

OPENAI = """\
version: 1
kind: openai-chat
base_url: http://127.0.0.1:8080/v1
model: m
response:
  citations: {absent: true}
  context_ids: {absent: true}
  escalated: {absent: true}
"""

HTTP = """\
version: 1
kind: http
url: http://127.0.0.1:9000/ask
body: {q: "{{ prompt }}"}
response:
  text: answer
  citations: {absent: true}
  context_ids: {absent: true}
  refused: {absent: true}
  escalated: {absent: true}
"""


def _parse(
    text: str | bytes, environ: Mapping[str, str] | None = None, base: Path = ROOT
) -> LoadedTarget:
    return parse_target_file(
        text, "t.yaml", environ=ENVIRON if environ is None else environ, base_dir=base
    )


def _errors(
    text: str | bytes, environ: Mapping[str, str] | None = None, base: Path = ROOT
) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        _parse(text, environ, base)
    return [error.render() for error in caught.value.errors]


# ------------------------------------------------------------------ the corpus


def _invalid_examples() -> list[Path]:
    return sorted(path for path in INVALID.iterdir() if path.is_dir())


@pytest.mark.parametrize("example", _invalid_examples(), ids=lambda path: path.name)
def test_invalid_example_is_refused_exactly_as_expected(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / example.name
    shutil.copytree(example, here, symlinks=True)
    if example.name in GENERATED:
        GENERATED[example.name](here)
    monkeypatch.chdir(here)
    with pytest.raises(ConfigErrors) as caught:
        load_target_file(Path("target.yaml"), environ=ENVIRON)
    rendered = "".join(error.render() + "\n" for error in caught.value.errors)
    assert rendered == (example / "expected.txt").read_text(encoding="utf-8")


def test_the_invalid_corpus_covers_every_rule() -> None:
    assert {path.name for path in _invalid_examples()} >= {
        "unknown-keys-with-suggestions", "wrong-kind", "bad-jmespath", "bad-regex",
        "regex-two-groups", "regex-matches-empty", "unknown-placeholder",
        "history-in-partial-string", "templated-key", "http-body-without-prompt",
        "unset-env-var", "system-and-system-file", "system-file-missing",
        "system-file-too-large", "system-file-symlink", "system-file-directory", "anchor",
        "tag", "duplicate-key", "extra-body-sets-messages", "ndjson-without-done",
        "not-a-mapping", "empty-file", "jmespath-unknown-function",
    }  # fmt: skip
    assert (INVALID / "system-file-symlink" / "prompts" / "system.txt").is_symlink()


def _valid(name: str) -> LoadedTarget:
    return load_target_file(VALID / f"{name}.yaml", environ=ENVIRON)


def test_every_valid_file_loads_and_every_kind_is_there() -> None:
    loaded = [load_target_file(path, environ=ENVIRON) for path in sorted(VALID.glob("*.yaml"))]
    assert {target.spec.kind for target in loaded} == {"gauntlet", "openai-chat", "http"}
    assert len(loaded) == 5


def test_openai_chat_streaming_with_derived_fields() -> None:
    target = _valid("openai-chat-streaming")
    spec = target.spec
    assert isinstance(spec, OpenAIChatSpec)
    assert spec.stream is True
    assert spec.system_file == "prompts/riverbend-system.txt"
    assert target.system_text == (VALID / "prompts" / "riverbend-system.txt").read_text("utf-8")
    assert spec.response.citations == CitationsFromText(
        from_text=r"\[(RB-\d+)\]", remove_from_text=True
    )
    assert spec.response.context_ids == Absent(absent=True)
    assert spec.response.refused is not None
    assert spec.response.refused.from_text["es"] == ["No puedo ayudar con eso"]
    assert spec.extra_body["seed"] == 7
    assert spec.temperature == 0.0
    assert (spec.http.timeout, spec.http.retries) == (60.0, 1)
    assert target.secrets == (
        Secret("sk-riverbend-0123456789", "environment variable RIVERBEND_API_KEY"),
    )
    assert dict(target.environ_values) == {"RIVERBEND_API_KEY": "sk-riverbend-0123456789"}
    assert target.source == str(VALID / "openai-chat-streaming.yaml")


def test_http_with_a_body_template_jmespath_and_a_session() -> None:
    target = _valid("http-session")
    spec = target.spec
    assert isinstance(spec, HttpSpec)
    assert spec.body["conversation"] == "{{ session_id }}"
    assert spec.body["options"] == {
        "top_k": 4,
        "include_sources": True,
        "filters": ["public", "runbooks"],
    }
    assert spec.response.citations == "answer.citations[*].id"
    assert spec.response.tool_calls == "trace.tools"
    assert spec.session == SessionFromResponse(from_response="conversation.id")
    assert spec.auth == BearerAuth(kind="bearer", token_env="RIVERBEND_TOKEN")  # noqa: S106
    assert target.system_text is None
    # In the order the file reads them: headers first, then auth.
    assert [secret.what for secret in target.secrets] == [
        "environment variable RIVERBEND_TENANT",
        "environment variable RIVERBEND_TOKEN",
    ]


def test_http_with_history_and_an_ndjson_stream() -> None:
    spec = _valid("http-history-ndjson").spec
    assert isinstance(spec, HttpSpec)
    assert spec.method == "PUT"
    assert spec.body == {"messages": "{{ history }}", "input": "{{prompt}}"}
    assert spec.response.stream is StreamFormat.NDJSON
    assert spec.response.done == "final != `null`"
    assert spec.response.refused == DecisionFromText(
        from_text={"en": ["cannot help"], "es-MX": ["no puedo ayudar"]}
    )
    assert spec.response.tool_calls == Absent(absent=True)


def test_gauntlet_with_headers_and_bearer_auth() -> None:
    target = _valid("gauntlet-headers-bearer")
    assert isinstance(target.spec, GauntletSpec)
    assert target.spec.headers == {
        "X-Api-Key": "${RIVERBEND_API_KEY}",
        "X-Route": "tenant=${RIVERBEND_TENANT}; canary",
    }
    assert dict(target.environ_values) == {
        "RIVERBEND_API_KEY": "sk-riverbend-0123456789",
        "RIVERBEND_TENANT": "tenant-7",
        "RIVERBEND_TOKEN": "rb-token-0123456789",
    }
    assert target.spec.http.max_bytes == 65536


def test_oauth2_client_credentials() -> None:
    target = _valid("oauth2-client-credentials")
    assert isinstance(target.spec, OpenAIChatSpec)
    assert target.spec.auth == OAuth2ClientCredentials(  # names of variables, not secrets
        kind="oauth2-client-credentials",
        token_url="https://login.example.gov/oauth2/token",  # noqa: S106
        client_id_env="RIVERBEND_CLIENT_ID",
        client_secret_env="RIVERBEND_CLIENT_SECRET",  # noqa: S106
        scope="api://assistant/.default",
        refresh_before=60.0,
    )
    assert target.system_text == (
        "You answer questions about Riverbend's city services.\n"
        "Cite each runbook you use as [RB-000].\n"
    )
    assert [secret.value for secret in target.secrets] == [
        "riverbend-client-id",
        "client-secret-0123456789",
    ]


# ------------------------------------------------------------------ the schema


def test_every_valid_file_is_valid_by_the_committed_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "target.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(VALID.glob("*.yaml")):
        data = read_document(path.read_text(encoding="utf-8"), str(path)).data
        assert [error.message for error in validator.iter_errors(data)] == [], path


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(target_file_schema())


# ------------------------------------------------------------------ the environment


class _Recording(Mapping[str, str]):
    """An environment that remembers which names were looked up, and cannot be walked."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)
        self.asked: list[str] = []

    def __getitem__(self, key: str) -> str:
        self.asked.append(key)
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the loader must not walk the environment")

    def __len__(self) -> int:
        return len(self._values)


def test_only_the_variables_the_file_names_are_read() -> None:
    environ = _Recording({**ENVIRON, "UNRELATED": "x"})
    target = load_target_file(VALID / "gauntlet-headers-bearer.yaml", environ=environ)
    assert sorted(set(environ.asked)) == [
        "RIVERBEND_API_KEY",
        "RIVERBEND_TENANT",
        "RIVERBEND_TOKEN",
    ]
    assert "UNRELATED" not in target.environ_values


def test_a_variable_read_twice_is_one_secret() -> None:
    text = OPENAI.replace(
        "model: m\n",
        "model: m\napi_key_env: RIVERBEND_TOKEN\n"
        "headers: {X-A: '${RIVERBEND_TOKEN}', X-B: '${RIVERBEND_TOKEN}'}\n",
    )
    target = _parse(text)
    assert target.secrets == (
        Secret("rb-token-0123456789", "environment variable RIVERBEND_TOKEN"),
    )


def test_environ_values_cannot_be_changed() -> None:
    target = _valid("http-session")
    with pytest.raises(TypeError):
        target.environ_values["RIVERBEND_TOKEN"] = "x"  # type: ignore[index]  # noqa: S105


def test_no_message_shows_a_value_read_from_the_environment() -> None:
    secret = "line-one-secret\nline-two-secret"  # noqa: S105 - a test value
    text = "version: 1\nkind: gauntlet\nurl: http://x\nheaders: {X-Key: 'k ${TOKEN}'}\n"
    errors = _errors(text, {"TOKEN": secret})
    assert errors == [
        "t.yaml:4:18: headers['X-Key']: environment variable TOKEN holds a line break, which a "
        "header value cannot (its value is not shown)"
    ]
    assert "secret" not in "".join(errors)


def test_a_header_value_cannot_hold_a_line_break() -> None:
    text = 'version: 1\nkind: gauntlet\nurl: http://x\nheaders: {X-Key: "a\\nb"}\n'
    assert _errors(text) == [
        "t.yaml:4:18: headers['X-Key']: a header value cannot hold a line break"
    ]


@pytest.mark.parametrize(
    ("text", "location"),
    [
        (OPENAI.replace("http://127.0.0.1", "http://me:pa55w0rd-x@127.0.0.1"), "3:11: base_url"),
        (HTTP.replace("http://127.0.0.1", "http://me:pa55w0rd-x@127.0.0.1"), "3:6: url"),
        ("version: 1\nkind: gauntlet\nurl: https://:pa55w0rd-x@x.test/\n", "3:6: url"),
    ],
    ids=["openai-chat", "http", "gauntlet"],
)
def test_credentials_in_a_url_are_refused_without_being_shown(text: str, location: str) -> None:
    assert _errors(text) == [
        f"t.yaml:{location}: holds credentials (user:password@); a target file reads every "
        "secret from the environment\n"
        "  hint: use `auth:`, or a header that reads them, such as "
        "`Authorization: Basic ${CREDENTIALS}`"
    ]


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1/ask", "cannot be used as a URL: Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/ask", "cannot be used as a URL: Port out of range 0-65535"),
        ("http:///ask", "has no host"),
    ],
)
def test_a_url_that_cannot_be_used_is_refused_where_it_is_written(url: str, problem: str) -> None:
    assert _errors(HTTP.replace("http://127.0.0.1:9000/ask", url)) == [
        f"t.yaml:3:6: url: {problem}"
    ]


def test_a_header_set_by_auth_is_refused_whatever_its_case() -> None:
    text = (
        "version: 1\nkind: gauntlet\nurl: http://x\n"
        "auth: {kind: bearer, token_env: RIVERBEND_TOKEN}\nheaders: {AUTHORIZATION: x}\n"
    )
    assert _errors(text) == [
        "t.yaml:5:11: headers.AUTHORIZATION: `auth` sets this header already\n"
        "  hint: remove the header, or the other"
    ]


# ------------------------------------------------------------------ system_file


def test_system_file_is_read_beside_the_target_file_not_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "target.yaml").write_text(
        OPENAI + "system_file: system.txt\n", encoding="utf-8"
    )
    (tmp_path / "conf" / "system.txt").write_text("Sé breve.\n", encoding="utf-8")
    (tmp_path / "system.txt").write_text("the wrong one\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    target = load_target_file(Path("conf/target.yaml"), environ={})
    assert target.system_text == "Sé breve.\n"
    assert target.source == "conf/target.yaml"
    assert isinstance(target.spec, OpenAIChatSpec)
    assert target.spec.system_file == "system.txt"


def test_inline_system_is_the_system_text() -> None:
    assert _parse(OPENAI + "system: Be brief.\n").system_text == "Be brief."


def test_a_system_file_with_a_bom_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_bytes(b"\xef\xbb\xbfBe brief.")
    assert _errors(OPENAI + "system_file: s.txt\n", base=tmp_path) == [
        f"t.yaml:9:14: system_file: {tmp_path / 's.txt'}: starts with a byte-order mark\n"
        "  hint: save it as UTF-8 without BOM"
    ]


def test_a_system_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    (tmp_path / "s.txt").write_text("x", encoding="utf-8")
    (tmp_path / "s.txt").chmod(0)
    assert _errors(OPENAI + "system_file: s.txt\n", base=tmp_path) == [
        f"t.yaml:9:14: system_file: {tmp_path / 's.txt'}: cannot read: Permission denied"
    ]


def test_a_system_file_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x", encoding="utf-8")
    assert _errors(OPENAI + "system_file: f/s.txt\n", base=tmp_path) == [
        f"t.yaml:9:14: system_file: {tmp_path / 'f' / 's.txt'}: cannot read: Not a directory"
    ]


def test_a_system_file_at_the_size_cap_is_read(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_bytes(b"x" * MAX_SYSTEM_FILE_BYTES)
    target = _parse(OPENAI + "system_file: s.txt\n", base=tmp_path)
    assert target.system_text is not None
    assert len(target.system_text) == MAX_SYSTEM_FILE_BYTES


_BESIDE = "name a file in the target file's directory (or below it), relative to that directory"
_ITSELF = "name the file itself, so the prompt sent is the one kept beside it"


@pytest.mark.parametrize(
    ("written", "why", "hint"),
    [
        (
            "/proc/self/environ",
            "an absolute path, which could name any file on this machine",
            _BESIDE,
        ),
        ("../outside.txt", "leaves the target file's directory", _BESIDE),
        ("prompts/../../outside.txt", "leaves the target file's directory", _BESIDE),
        ("linked/outside.txt", "goes through a symlink (linked)", _ITSELF),
        ("prompts/linked-file.txt", "is a symlink", _ITSELF),
    ],
)
def test_a_target_file_reads_only_what_is_beside_it(
    tmp_path: Path, written: str, why: str, hint: str
) -> None:
    # Trap: the name joined to the directory and read as it stands, so an absolute path, a
    # `..` or a symlinked directory sends any file the process can read (the environment,
    # another project's keys) to the target as the system prompt, and `probe` prints it.
    base = tmp_path / "conf"
    (base / "prompts").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-SECRET", encoding="utf-8")
    (base / "linked").symlink_to(tmp_path, target_is_directory=True)
    (base / "prompts" / "linked-file.txt").symlink_to(outside)
    errors = _errors(OPENAI + f"system_file: {written}\n", base=base)
    assert errors == [f"t.yaml:9:14: system_file: {base / written}: {why}\n  hint: {hint}"]


def test_a_system_file_below_the_target_files_directory_is_read(tmp_path: Path) -> None:
    # Trap: a rule against `..` that refuses every path with a directory in it.
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "s.txt").write_text("Be brief.", encoding="utf-8")
    target = _parse(OPENAI + "system_file: ./prompts/../prompts/s.txt\n", base=tmp_path)
    assert target.system_text == "Be brief."


# ------------------------------------------------------------------ reading the file


def test_text_and_bytes_load_the_same() -> None:
    assert _parse(OPENAI) == _parse(OPENAI.encode())


def test_a_target_file_over_the_size_cap_is_refused_before_parsing() -> None:
    text = OPENAI + "#" * MAX_TARGET_FILE_BYTES
    expected = [
        f"t.yaml:1:1: file is {len(text):,} bytes, over the 262,144-byte limit for a target "
        "file\n  hint: a target file describes one target; keep long prompts in system_file"
    ]
    assert _errors(text) == expected
    assert _errors(text.encode()) == expected


def test_a_large_target_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(b"#" * (MAX_TARGET_FILE_BYTES + 1))
    with pytest.raises(ConfigErrors) as caught:
        load_target_file(path, environ={})
    [error] = caught.value.errors
    assert isinstance(error, ConfigSyntaxError)
    assert error.render() == (
        f"{path}:1:1: file is 262,145 bytes, over the 262,144-byte limit for a target file\n"
        "  hint: a target file describes one target; keep long prompts in system_file"
    )


def test_a_target_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigErrors) as caught:
        load_target_file(tmp_path, environ={})
    assert [error.render() for error in caught.value.errors] == [
        f"{tmp_path}: not a regular file (a directory)"
    ]


def test_a_missing_target_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigErrors) as caught:
        load_target_file(tmp_path / "no.yaml", environ={})
    assert [error.render() for error in caught.value.errors] == [
        f"{tmp_path / 'no.yaml'}: cannot read: No such file or directory"
    ]


def test_bytes_that_are_not_utf8_are_refused_where_they_are() -> None:
    assert _errors(b"version: 1\nkind: gauntlet\nname: caf\xe9\n") == [
        "t.yaml:3:10: not UTF-8: byte 0xe9 at byte offset 35: invalid continuation byte\n"
        "  hint: save the file as UTF-8"
    ]


def test_a_nul_character_is_refused_in_a_target_file() -> None:
    assert _errors("version: 1\x00\n") == [
        "t.yaml:1:11: character U+0000 is not allowed in YAML\n"
        "  hint: control characters may be written as escapes inside double quotes"
    ]
    assert _errors(b"version: 1\x00\n") == ["t.yaml:1:11: NUL character in a target file"]


def test_schema_errors_are_schema_errors() -> None:
    with pytest.raises(ConfigErrors) as caught:
        _parse("version: 1\nkind: gauntlet\n")
    assert all(isinstance(error, ConfigSchemaError) for error in caught.value.errors)


# ------------------------------------------------------------------ schema error messages


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nrequest: {}\n",
            ["t.yaml:4:1: request: unknown key for a gauntlet target\n"
             "  hint: keys here are: version, name, headers, auth, http, kind, url"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nbody: {}\n",
            ["t.yaml:4:1: body: unknown key for a gauntlet target\n"
             "  hint: 'body' is a key of http files"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nhttp: {timeot: 3}\n",
            ["t.yaml:4:8: http.timeot: unknown key\n  hint: did you mean 'timeout'?"],
        ),
        (
            "version: 1\nkind: gauntlet\n",
            ["t.yaml:1:1: missing required key 'url'"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nhttp: {zzz: 1}\n",
            ["t.yaml:4:8: http.zzz: unknown key\n"
             "  hint: keys here are: timeout, retries, max_bytes"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}", "escalated: {from_text: {}}"),
            ["t.yaml:8:26: response.escalated.from_text: name at least one language's phrases"],
        ),
        (
            "kind: gauntlet\nurl: http://x\n",
            ["t.yaml:1:1: missing required key 'version'\n  hint: write version: 1"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nauth: {}\n",
            ["t.yaml:4:7: auth: missing required key 'kind': kind must be one of bearer, "
             "oauth2-client-credentials"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nauth: RIVERBEND_TOKEN\n",
            ["t.yaml:4:7: auth: expected a mapping, got 'RIVERBEND_TOKEN' (text)"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nauth: {kind: bearr}\n",
            ["t.yaml:4:14: auth.kind: must be one of bearer, oauth2-client-credentials, not "
             "'bearr'\n  hint: did you mean 'bearer'?"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\n"
            "auth: {kind: bearer, token_env: T, scope: x}\n",
            ["t.yaml:4:36: auth.scope: unknown key for kind bearer\n"
             "  hint: 'scope' is a key of kind oauth2-client-credentials"],
        ),
        (
            "version: 1\nkind: 7\n",
            [
                "t.yaml:2:7: kind: must be one of gauntlet, openai-chat, http, "
                "openai-embeddings, not 7 (a number)"
            ],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nname: " + "n" * 81 + "\n",
            ["t.yaml:4:7: name: is 81 characters long; at most 80 are allowed"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: 8080\n",
            ['t.yaml:3:6: url: expected text, got 8080 (a number)\n  hint: quote it ("8080") '
             "if you mean the text"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nhttp: {max_bytes: 0, timeout: 3601}\n",
            ["t.yaml:4:19: http.max_bytes: must be above 0, got 0",
             "t.yaml:4:31: http.timeout: must be at most 3600, got 3601"],
        ),
        (
            "version: 1\nkind: gauntlet\nurl: http://x\nheaders: {X-A: ''}\nhttp: {retries: -1}\n",
            ["t.yaml:5:17: http.retries: must be at least 0, got -1"],
        ),
        (
            OPENAI.replace("model: m", "model: m\ntemperature: 2.5\nstream: 'true'"),
            ["t.yaml:5:14: temperature: must be at most 2, got 2.5",
             "t.yaml:6:9: stream: expected true or false, got 'true' (text)"],
        ),
        (
            OPENAI.replace("{absent: true}\n  esc", "{absnt: true}\n  esc"),
            ["t.yaml:7:17: response.context_ids.absnt: unknown key\n"
             "  hint: did you mean 'absent'?"],
        ),
        (
            OPENAI.replace("citations: {absent: true}",
                           "citations: {absent: true, remove_from_text: true}"),
            ["t.yaml:6:29: response.citations.remove_from_text: cannot go with 'absent'; give "
             "one or the other"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}", "escalated: {from_text: {en: ['\u200b']}}"),
            ["t.yaml:8:32: response.escalated.from_text.en[0]: a phrase of only invisible "
             "characters could never be found"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}",
                           "escalated: {from_text: {en: [x], es: []}}"),
            ["t.yaml:8:40: response.escalated.from_text.es: must not be empty"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}",
                           "escalated: {from_text: {es: [a], ES: [b]}}"),
            ["t.yaml:8:26: response.escalated.from_text: 'es' and 'ES' are the same language; "
             "give its phrases once"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}", "escalated: '`unclosed'"),
            ["t.yaml:8:14: response.escalated: not a JMESPath expression: Unclosed ` delimiter "
             "at character 1"],
        ),
        (
            OPENAI.replace("escalated: {absent: true}", "escalated: 'a ||'"),
            ["t.yaml:8:14: response.escalated: not a JMESPath expression: it ends before it is "
             "complete"],
        ),
        (
            OPENAI.replace("model: m", "model: m\napi_key_env: RIVERBEND_API_KEY\n"
                           "auth: {kind: bearer, token_env: RIVERBEND_TOKEN}"),
            ["t.yaml:5:14: api_key_env: give `api_key_env` or `auth`, not both"],
        ),
        (
            OPENAI.replace("model: m", "model: m\ntool_choice: any"),
            ["t.yaml:5:14: tool_choice: 'any' (text) is not 'auto', 'required' or "
             "{type: function, function: {name: NAME}}"],
        ),
        (
            OPENAI.replace("model: m", "model: m\ntool_choice: {type: function, function: {}}"),
            ["t.yaml:5:14: tool_choice: a mapping is not 'auto', 'required' or "
             "{type: function, function: {name: NAME}}"],
        ),
        (
            OPENAI.replace("model: m", "model: m\ntool_choice: auto\n"
                           "extra_body: {tool_choice: required}"),
            ["t.yaml:6:27: extra_body.tool_choice: give `tool_choice` or "
             "`extra_body.tool_choice`, not both"],
        ),
        (
            HTTP.replace("method", "x") + "method: get\n",
            ["t.yaml:11:9: method: 'get' is not one of 'POST' or 'PUT'"],
        ),
        (
            HTTP + "session: {from_header: X-Session, from_response: id}\n",
            ["t.yaml:11:35: session.from_response: cannot go with 'from_header'; give one or "
             "the other"],
        ),
        (
            HTTP.replace("body:", "bdy:"),
            ["t.yaml:4:1: bdy: unknown key for an http target\n  hint: did you mean 'body'?"],
        ),
    ],
)  # fmt: skip
def test_schema_errors_are_located_and_plain(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


# ------------------------------------------------------------------ the request body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            '{q: "{{ prompt }}", turns: ["{{ history }}"], meta: {id: "{{case_id}}"}}',
            [],
        ),
        (
            '{q: "Q: {{ prompt }} ({{ language }})", k: 3, ok: true, none: null}',
            [],
        ),
        (
            '{q: "{{ prompt }}", h: "{{ history }}{{ history }}"}',
            ["t.yaml:4:30: body.h: {{ history }} must be the whole string: it is a list of "
             "messages, inserted as JSON\n"
             "  hint: write the key's value as exactly \"{{ history }}\""],
        ),
        (
            '{q: "{{ prompt }}", list: [{"a{{": 1}]}',
            ["t.yaml:4:35: body.list[0]['a{{']: a key cannot hold a placeholder: keys are sent "
             "as written\n  hint: put the placeholder in the value"],
        ),
        (
            '{q: "{{ prompt }}", x: "{{ zz }}, {{zz}}"}',
            ["t.yaml:4:30: body.x: unknown placeholder {{ zz }}; the placeholders are prompt, "
             "language, history, session_id, case_id"],
        ),
        (
            '{q: "{{ prompt }} {{ prompt"}',
            ["t.yaml:4:11: body.q: '{{' opens no placeholder\n"
             "  hint: write {{ name }} with one of: prompt, language, history, session_id, "
             "case_id"],
        ),
    ],
)  # fmt: skip
def test_body_placeholders(body: str, expected: list[str]) -> None:
    text = HTTP.replace('{q: "{{ prompt }}"}', body)
    if expected:
        assert _errors(text) == expected
    else:
        assert isinstance(_parse(text).spec, HttpSpec)


def test_a_session_sent_back_in_a_header_needs_no_placeholder() -> None:
    spec = _parse(HTTP + "session: {from_header: X-Session, header: X-Session}\n").spec
    assert isinstance(spec, HttpSpec)
    assert spec.session is not None
    assert spec.session.header == "X-Session"


def test_every_placeholder_is_listed_in_the_unknown_placeholder_message() -> None:
    [error] = _errors(HTTP.replace('{q: "{{ prompt }}"}', '{q: "{{ prompt }}", x: "{{ zzz }}"}'))
    assert error.endswith(", ".join(placeholder.value for placeholder in Placeholder))


# ------------------------------------------------------------------ the models, used directly


def test_a_model_instance_is_accepted_where_its_shape_belongs() -> None:
    response = HttpResponse(
        text="a",
        citations=Absent(absent=True),
        context_ids="ids",
        refused=DecisionFromText(from_text={"en": ["no"]}),
        escalated=Absent(absent=True),
    )
    assert response.refused == DecisionFromText(from_text={"en": ["no"]})


# ------------------------------------------------------------------ no input escapes


KEYS = [
    "version", "kind", "url", "base_url", "model", "headers", "auth", "http", "body",
    "response", "session", "system", "system_file", "api_key_env", "extra_body", "text",
    "citations", "context_ids", "refused", "escalated", "tool_calls", "stream", "done",
    "from_text", "absent", "token_env", "from_response", "from_header", "strem", "<<",
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(
        ["gauntlet", "openai-chat", "http", "bearer", "oauth2-client-credentials", "sse",
         "ndjson", "{{ prompt }}", "{{ history }}", "a {{ history }}", "{{ nope }}", "{{",
         "${RIVERBEND_TOKEN}", "${UNSET}", "${", "RIVERBEND_TOKEN", "http://x", "a.b", "[",
         r"\[(RB-\d+)\]", "(a)(b)", "x*", "prompts/riverbend-system.txt", ".", "en", "yes"]
    ),
)  # fmt: skip

documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), children, max_size=6
        ),
    ),
    max_leaves=40,
)

target_shaped = st.fixed_dictionaries(
    {
        "version": st.one_of(st.just(1), scalars),
        "kind": st.one_of(st.sampled_from(["gauntlet", "openai-chat", "http"]), scalars),
    },
    optional=dict.fromkeys(
        ("url", "base_url", "model", "headers", "auth", "body", "response", "session",
         "system", "system_file", "api_key_env", "extra_body", "http"),
        documents,
    ),
)  # fmt: skip


def _check(raw: str | bytes) -> None:
    try:
        loaded = parse_target_file(raw, "h.yaml", environ=ENVIRON, base_dir=VALID)
    except ConfigErrors as exc:
        for error in exc.errors:
            assert error.path == "h.yaml"
            assert error.line is not None and error.line >= 1
            assert error.column is not None and error.column >= 1
            assert error.message
            for value in ENVIRON.values():
                assert not value or value not in error.render()
    else:
        assert isinstance(loaded, LoadedTarget)


@given(st.binary(max_size=200))
def test_arbitrary_bytes_load_or_raise_only_the_loaders_error(raw: bytes) -> None:
    _check(raw)


@given(st.text(max_size=400))
def test_arbitrary_text_loads_or_raises_only_the_loaders_error(text: str) -> None:
    _check(text)


@given(st.one_of(documents, target_shaped), st.sampled_from([None, True, False]))
def test_arbitrary_yaml_structures_load_or_raise_only_the_loaders_error(
    data: Any, flow: bool | None
) -> None:
    _check(yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True))


def test_every_kind_of_target_file_has_the_kind_its_results_record() -> None:
    from typing import get_args

    from gauntlet.run.results import TargetInfo
    from gauntlet.targets.spec import TargetSpec

    kinds = {get_args(spec.model_fields["kind"].annotation)[0] for spec in get_args(TargetSpec)}
    assert kinds == {"gauntlet", "openai-chat", "http"}
    recorded = get_args(TargetInfo.model_fields["kind"].annotation)
    assert kinds <= set(recorded)


# ------------------------------------------------------------------ a key written as JMESPath


def _leaves(annotation: Any) -> Iterator[Any]:
    """The types a field's annotation allows, `Annotated` and unions taken apart."""
    if get_origin(annotation) is Annotated:
        yield from _leaves(get_args(annotation)[0])
    elif get_origin(annotation) in (Union, UnionType):
        for member in get_args(annotation):
            yield from _leaves(member)
    else:
        yield annotation


def _text_or_mapping_fields() -> Iterator[tuple[str, str, list[type[BaseModel]]]]:
    """(kind, field, its mapping forms) for every response field that also takes JMESPath."""
    for kind, spec in (("openai-chat", OpenAIChatSpec), ("http", HttpSpec)):
        response = spec.model_fields["response"].annotation
        assert isinstance(response, type) and issubclass(response, BaseModel)
        for field, info in response.model_fields.items():
            branches = list(_leaves(info.annotation))
            forms = [b for b in branches if isinstance(b, type) and issubclass(b, BaseModel)]
            if str in branches and forms:
                yield kind, field, forms


def test_every_key_of_a_mapping_form_written_as_jmespath_is_refused_with_its_form() -> None:
    # Trap: `context_ids: absent` was read as a field named `absent`; a form added to one
    # field (or a field added with forms) without the check would slip through again.
    checked = 0
    for kind, field, forms in _text_or_mapping_fields():
        head = (
            "kind: http\nurl: http://127.0.0.1:9/ask\nbody: {q: '{{ prompt }}'}\n"
            "response:\n  text: answer\n"
            if kind == "http"
            else "kind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: m\nresponse:\n"
        )
        for key in sorted({key for form in forms for key in form.model_fields}):
            errors = _errors(f"version: 1\n{head}  {field}: {key}\n")
            refused = [e for e in errors if f"response.{field}: '{key}' would read" in e]
            assert len(refused) == 1, (kind, field, key, errors)
            assert f"did you mean `{field}: {{{key}: " in refused[0] or (
                key == "remove_from_text" and "remove_from_text: true}`?" in refused[0]
            ), refused[0]
            quoted = _errors(f"version: 1\n{head}  {field}: '\"{key}\"'\n")
            assert not [e for e in quoted if f"response.{field}:" in e], quoted
            checked += 1
    assert checked >= 11  # 4 openai-chat keys + 7 http ones, or the walk found nothing
