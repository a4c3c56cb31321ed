"""Errors that say what to do: each message of issue 29 item 3, from real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web

from gauntlet.targets.http import PROBE_PROMPT
from gauntlet.targets.toy import make_toy

from ..cli_helpers import RunCli
from ..toy_servers import running_app, running_openai

ADVERSARIAL = (
    "suite: talk\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
    "  - {id: a1, language: en, prompt: first, attack_type: jailbreak, must_not_contain: [PWNED]}\n"
    "  - {id: a2, language: en, prompt: second, attack_type: jailbreak,"
    " must_not_contain: [PWNED]}\n"
)


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "talk.yaml"
    path.write_text(ADVERSARIAL, encoding="utf-8")
    return path


def _openai(tmp_path: Path, base_url: str, extra: str = "") -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(
        f"version: 1\nkind: openai-chat\nbase_url: {base_url}\nmodel: riverbend-toy\n{extra}"
        "response:\n  citations: {absent: true}\n  context_ids: {absent: true}\n"
        "  escalated: {absent: true}\n",
        encoding="utf-8",
    )
    return path


def _slow_but_for_the_pre_flight_check() -> web.Application:
    """An OpenAI-compatible server that answers the pre-flight check at once, and then nothing
    in time: a slow local model asked many cases at once."""

    async def complete(request: web.Request) -> web.Response:
        body = await request.json()
        if body["messages"][-1]["content"] != PROBE_PROMPT:
            await asyncio.sleep(3)
        return web.json_response(
            {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "fine"},
                     "finish_reason": "stop"}
                ]
            }
        )  # fmt: skip

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    return app


@pytest.mark.network
@pytest.mark.parametrize(
    ("extra", "tokens"),
    [
        ("", "with no max_tokens set"),
        ("max_tokens: 64\n", "with max_tokens 64"),
    ],
)
def test_a_run_whose_cases_time_out_names_the_deadline_the_concurrency_and_max_tokens(
    tmp_path: Path, run_cli: RunCli, extra: str, tokens: str
) -> None:
    # Trap: every case errored "no complete answer within 0.3 s" and nothing said which of
    # the run's own settings to change.
    with running_app(_slow_but_for_the_pre_flight_check()) as base_url:
        target = _openai(tmp_path, base_url, extra + "http: {timeout: 0.3, retries: 1}\n")
        result = run_cli(
            "run", "--target", target, "--cases", _cases(tmp_path), "--out",
            tmp_path / "r.json", "--concurrency", "2", "--quiet",
        )  # fmt: skip
    assert result.code == 2, result.show()
    fix = "a smaller max_tokens" if "64" in tokens else "a max_tokens in the target file"
    assert (
        f"hint: 2 of 2 cases got no complete answer within 0.3 s (after 2 attempts) at "
        f"concurrency 2, {tokens}; a slow model needs a longer http.timeout (or --timeout), "
        f"a lower --concurrency, or {fix}\n"
    ) in result.stdout, result.show()
    assert result.stdout.count("hint:") == 1  # one hint for the run, not one per case


def _one_cut_one_too_slow() -> web.Application:
    """Answers the first case at once, cut at its token limit; the second, never in time."""

    async def complete(request: web.Request) -> web.Response:
        said = (await request.json())["messages"][-1]["content"]
        if said == "second":
            await asyncio.sleep(3)
        return web.json_response(
            {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "The library op"},
                     "finish_reason": "length" if said == "first" else "stop"}
                ]
            }
        )  # fmt: skip

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    return app


@pytest.mark.network
def test_the_timeout_hint_counts_the_answers_cut_at_max_tokens(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: a run half cut at max_tokens and half timed out reads as "too slow" alone, when
    # the same max_tokens is why the answers that did come are cut short.
    with running_app(_one_cut_one_too_slow()) as base_url:
        target = _openai(tmp_path, base_url, "max_tokens: 8\nhttp: {timeout: 0.3, retries: 1}\n")
        result = run_cli(
            "run", "--target", target, "--cases", _cases(tmp_path), "--out",
            tmp_path / "r.json", "--concurrency", "2", "--quiet",
        )  # fmt: skip
    assert result.code == 2, result.show()
    assert (
        "hint: 1 of 2 cases got no complete answer within 0.3 s (after 2 attempts) at "
        "concurrency 2, with max_tokens 8 (1 answer cut at max_tokens); "
    ) in result.stdout, result.show()


def _slow_even_for_the_pre_flight_check() -> web.Application:
    async def complete(request: web.Request) -> web.Response:
        await asyncio.sleep(3)
        return web.json_response({"choices": []})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    return app


@pytest.mark.network
def test_a_pre_flight_check_that_times_out_names_the_deadline_and_max_tokens(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: "pre-flight check failed: no complete answer within 0.3 s" and nothing more, when
    # the fix is one of two settings the user wrote.
    with running_app(_slow_even_for_the_pre_flight_check()) as base_url:
        target = _openai(tmp_path, base_url, "http: {timeout: 0.3, retries: 1}\n")
        result = run_cli(
            "run", "--target", target, "--cases", _cases(tmp_path), "--out", tmp_path / "r.json"
        )
    assert result.code == 2, result.show()
    assert "pre-flight check failed: no complete answer within 0.3 s" in result.stderr
    assert (
        "the check asks one short question, so the deadline is too short for this model "
        "(raise it: --timeout, or http.timeout in a target file) or max_tokens lets it talk "
        "too long"
    ) in result.stderr, result.show()


@pytest.mark.network
def test_a_run_without_timeouts_gives_no_timeout_hint(tmp_path: Path, run_cli: RunCli) -> None:
    # Trap: a hint printed whatever happened reads as noise and is soon ignored.
    with running_openai(make_toy()) as base_url:
        target = _openai(tmp_path, base_url)
        result = run_cli(
            "run", "--target", target, "--cases", _cases(tmp_path), "--out", tmp_path / "r.json"
        )
    assert result.code == 0, result.show()
    assert "hint:" not in result.stdout


@pytest.mark.network
@pytest.mark.parametrize("command", ["run", "probe"])
def test_a_404_from_an_openai_base_url_without_a_version_suggests_v1(
    tmp_path: Path, run_cli: RunCli, command: str
) -> None:
    # Trap: a bare "HTTP 404 Not Found" for the most common slip in a target file.
    with running_openai(make_toy()) as base_url:
        bare = base_url.removesuffix("/v1")
        target = _openai(tmp_path, bare + "/", "http: {retries: 0}\n")
        args = ("--cases", _cases(tmp_path))
        if command == "run":
            result = run_cli("run", "--target", target, *args, "--out", tmp_path / "r.json")
        else:
            result = run_cli("probe", "--target", target, *args)
    assert result.code == 2, result.show()
    said = result.stdout + result.stderr
    assert "HTTP 404" in said, result.show()
    assert f"did you mean `base_url: {bare}/v1`?" in said, result.show()


@pytest.mark.network
def test_a_404_from_a_base_url_that_has_a_version_suggests_nothing(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: suggesting /v1 to a base URL that already names a version sends the user astray.
    with running_openai(make_toy()) as base_url:
        target = _openai(tmp_path, base_url + "/wrong", "http: {retries: 0}\n")
        result = run_cli("probe", "--target", target, "--cases", _cases(tmp_path))
    assert result.code == 2, result.show()
    assert "HTTP 404" in result.stdout, result.show()
    assert "did you mean" not in result.stdout + result.stderr


@pytest.mark.network
def test_a_probe_that_got_no_answer_lists_no_suite_as_can_run(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: after a failed pre-flight, "can run" said the suites would run when nothing answered.
    with running_openai(make_toy()) as base_url:
        target = _openai(tmp_path, base_url.removesuffix("/v1"), "http: {retries: 0}\n")
        result = run_cli("probe", "--target", target, "--cases", _cases(tmp_path))
    assert result.code == 2, result.show()
    gates = result.stdout.split("gates:\n", 1)[1]
    assert "can run" not in gates, result.show()
    assert "  talk (adversarial): not known: the probe got no answer it could read\n" in gates


@pytest.mark.parametrize(
    "command",
    [("run",), ("probe",), ("validate",), ("report",), ("history",), ("merge",)],
)
def test_help_shows_a_plain_flag_without_a_type(run_cli: RunCli, command: tuple[str, ...]) -> None:
    # Trap: typer printed `<bool>` beside every flag (--help, --quiet, --resume, ...), as if
    # it took a value.
    result = run_cli(*command, "--help")
    assert result.code == 0, result.show()
    assert "<bool>" not in result.stdout, result.show()
    assert "--help" in result.stdout


def test_the_hint_reads_only_the_runs_own_deadline_wording() -> None:
    # Trap: a target's error body that quotes the deadline words counted as a timeout.
    from gauntlet.targets.client import missed_deadline

    assert missed_deadline("no complete answer within 30 s (after 3 attempts)")
    assert missed_deadline("turn 2 of 3: no complete answer within 0.5 s")
    assert not missed_deadline("HTTP 500: no complete answer within 30 s")
    assert not missed_deadline(json.dumps("no complete answer within 30 s"))


def _target_with(tmp_path: Path, kind: str, field: str, written: str) -> Path:
    """A target file of `kind` whose `response.field` is `written`, the rest well formed."""
    response = {
        "citations": "{absent: true}",
        "context_ids": "{absent: true}",
        "refused": "{absent: true}",
        "escalated": "{absent: true}",
    }
    if kind == "http":
        head = (
            "kind: http\nurl: http://127.0.0.1:9/ask\nbody: {q: '{{ prompt }}'}\n"
            "response:\n  text: answer\n"
        )
    else:
        head = "kind: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodel: m\nresponse:\n"
        del response["refused"]  # read from the answer itself
    response[field] = written
    lines = "".join(f"  {name}: {value}\n" for name, value in response.items())
    path = tmp_path / "target.yaml"
    path.write_text(f"version: 1\n{head}{lines}", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["probe", "run"])
@pytest.mark.parametrize(
    ("kind", "field", "key", "form"),
    [
        ("openai-chat", "context_ids", "absent", "{absent: true}"),
        ("openai-chat", "citations", "absent", "{absent: true}"),
        ("openai-chat", "citations", "from_text", "{from_text: <regular expression>}"),
        ("openai-chat", "escalated", "from_text", "{from_text: {<language>: [<phrase>, ...]}}"),
        ("http", "refused", "absent", "{absent: true}"),
        ("http", "tool_calls", "absent", "{absent: true}"),
    ],
)
def test_a_jmespath_that_is_a_key_of_the_fields_mapping_form_is_refused_with_that_form(
    tmp_path: Path, run_cli: RunCli, command: str, kind: str, field: str, key: str, form: str
) -> None:
    # Trap: `context_ids: absent` was read as JMESPath naming a field `absent` of the answer,
    # so a target that reports no retrieval ids seemed to report them, and nothing said why.
    target = _target_with(tmp_path, kind, field, key)
    line = target.read_text(encoding="utf-8").splitlines().index(f"  {field}: {key}") + 1
    extra = ("--cases", _cases(tmp_path), "--out", tmp_path / "r.json") if command == "run" else ()
    result = run_cli(command, "--target", target, *extra)
    assert result.code == 2, result.show()
    assert (
        f"{target}:{line}:{len(field) + 5}: response.{field}: '{key}' would read a field named "
        f"{key} from the answer\n"
        f"  hint: did you mean `{field}: {form}`? For a field really named {key}, quote it "
        f"as JMESPath does: '\"{key}\"'\n"
    ) in result.stderr, result.show()
    assert not (tmp_path / "r.json").exists()


@pytest.mark.network
def test_a_quoted_jmespath_reads_a_field_really_named_like_a_key(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: refusing every `absent` would leave no way to read a field that is named so.
    async def ask(request: web.Request) -> web.Response:
        return web.json_response({"answer": "fine", "absent": ["RB-001"]})

    app = web.Application()
    app.router.add_post("/v1/ask", ask)  # running_app names its /v1
    with running_app(app) as base_url:
        target = _target_with(tmp_path, "http", "context_ids", "'\"absent\"'")
        target.write_text(
            target.read_text(encoding="utf-8").replace("http://127.0.0.1:9/ask", f"{base_url}/ask"),
            encoding="utf-8",
        )
        result = run_cli("probe", "--target", target, "--cases", _cases(tmp_path))
    assert result.code == 0, result.show()
    assert "would read a field named" not in result.stdout, result.show()


def test_a_scalar_where_a_one_key_mapping_is_expected_suggests_that_mapping(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: `turns: [hello, there]` and `expect_calls: [lookup]` said only "expected a mapping",
    # when the one mapping they could mean is obvious; and a suggestion where no one-key form
    # would load (`judge: pass`, a tool result with no output) would send the user astray.
    cases = tmp_path / "tools.yaml"
    cases.write_text(
        "suite: tools\ngate: trajectory\nversion: 1\nthreshold: 1\n"
        "tools: [{name: lookup, description: finds, parameters: {type: object}}]\ncases:\n"
        "  - {id: t1, language: en, turns: [hello, 'there, again'], expect_calls: [lookup]}\n"
        "  - {id: t2, language: en, prompt: x, max_calls: 1, judge: pass,"
        " tool_results: [lookup]}\n",
        encoding="utf-8",
    )
    result = run_cli("validate", "--cases", cases)
    assert result.code == 2, result.show()
    assert result.stderr.splitlines() == [
        f"{cases}:7:36: cases[0].turns[0]: expected a mapping, got 'hello' (text)",
        "  hint: did you mean `{user: hello}`?",
        f"{cases}:7:43: cases[0].turns[1]: expected a mapping, got 'there, again' (text)",
        '  hint: did you mean `{user: "there, again"}`?',
        f"{cases}:7:75: cases[0].expect_calls[0]: expected a mapping, got 'lookup' (text)",
        "  hint: did you mean `{name: lookup}`?",
        f"{cases}:8:60: cases[1].judge: expected a mapping, got 'pass' (text)",
        f"{cases}:8:81: cases[1].tool_results[0]: expected a mapping, got 'lookup' (text)",
        "5 problems in 1 file; nothing was run.",
    ], result.show()


def test_a_built_in_suite_is_shown_as_builtin_name_in_the_console_markdown_and_junit(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: run outside a checkout, every failing case was located by the long path of the
    # installed package (site-packages/gauntlet/_builtin_suites/...), in every output.
    from gauntlet.cases.builtin import builtin_suites_dir

    monkeypatch.chdir(tmp_path)  # as from a wheel: the built-in suites by an absolute path
    installed = str(builtin_suites_dir())
    result = run_cli("run", "--toy-defect", "leak_system_prompt", "--out", "r.json")
    assert result.code == 1, result.show()
    assert "builtin:adversarial:" in result.stdout, result.show()
    shown = [result.stdout + result.stderr]
    for form, name in (("md", "e.md"), ("junit", "j.xml"), ("json", "e.json")):
        report = run_cli("report", "r.json", "--format", form, "--out", name)
        assert report.code in (0, 1), report.show()
        shown.append((tmp_path / name).read_text(encoding="utf-8"))
        assert "builtin:adversarial" in shown[-1], form
    for text in shown:
        assert installed not in text
        assert "_builtin_suites" not in text


@pytest.mark.network
def test_a_refused_built_in_suite_is_named_builtin_and_a_users_own_suite_as_given(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the grounding suite's refusal, the first thing a newcomer without retrieval ids
    # sees, began with the installed package's path; a user's own file must keep its name.
    monkeypatch.chdir(tmp_path)
    mine = Path("mine")
    mine.mkdir()
    (mine / "g.yaml").write_text(
        "suite: mine\ngate: grounding\nversion: 1\nthreshold: 1\n"
        "cases: [{id: g1, language: en, prompt: x, expect_grounded: false}]\n",
        encoding="utf-8",
    )
    with running_openai(make_toy()) as base_url:
        target = _openai(tmp_path, base_url)
        builtin = run_cli("run", "--target", target, "--out", "r.json")
        own = run_cli("run", "--target", target, "--cases", mine, "--out", "r.json")
    assert builtin.code == 2, builtin.show()
    assert (
        "  builtin:grounding:" in builtin.stderr
        and ": suite riverbend-grounding (grounding gate) needs `context_ids`" in builtin.stderr
    ), builtin.show()
    assert "_builtin_suites" not in builtin.stderr
    assert own.code == 2, own.show()
    assert "\n  mine/g.yaml:5: suite mine (grounding gate) needs `context_ids`" in own.stderr, (
        own.show()
    )
