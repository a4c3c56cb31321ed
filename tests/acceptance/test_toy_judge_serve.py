"""The toy judge served as an OpenAI-compatible API, asked through the example judge file.

`gauntlet toy serve --api openai --judge` is how a judge target file is run end to end with
no model: the same server as the toy's, answering each prompt gauntlet writes a judge with
the toy judge's reply.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import signal
import subprocess
import sys
from collections.abc import Collection
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from gauntlet.judge.check import RubricCheck, check_rubric
from gauntlet.judge.judge_file import UsageTally, judge_asker, judge_fingerprint
from gauntlet.judge.labels import builtin_labels_dir, load_labels
from gauntlet.judge.pairwise import (
    PairwiseCheck,
    PairwiseOutcome,
    combine,
    pairwise_prompt,
    read_pairwise_reply,
)
from gauntlet.judge.prompt import Criterion, JudgePrompt, case_blocks, rubric_prompt, seeded
from gauntlet.judge.reply import CriterionVerdict, Judged, Unjudged, read_rubric_reply
from gauntlet.judge.toy import MODEL, JudgeDefect, ToyJudge, toy_judge_reply
from gauntlet.languages import PEERS
from gauntlet.targets.configured import build_target
from gauntlet.targets.target_file import load_target_file
from gauntlet.targets.toy.openai import create_app

from ..cli_helpers import RunCli
from ..toy_servers import running_app

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "targets" / "toy-judge.yaml"

LIBRARY = "What are the library's opening hours?"
WRONG_HOURS = (
    "The library is open Monday through Friday, 9 a.m. to 8 p.m., and on weekends from "
    "10 a.m. to 5 p.m."
)
CRITERIA = [
    Criterion("library-hours", "Does the answer give the library's hours right?"),
    Criterion("answers-in-asker-language", "Is it in the asker's language?"),
]
ASKED = [criterion.id for criterion in CRITERIA]


def _rubric_prompt() -> JudgePrompt:
    return rubric_prompt(CRITERIA, case_blocks(LIBRARY, WRONG_HOURS), seeded("run", "c1", 0))


def running_judge(judge: ToyJudge) -> AbstractContextManager[str]:
    """Serve `judge` as the toy judge's model (see `running_app`); yields the base URL."""
    return running_app(create_app(judge, MODEL))


async def _rubric_over_http(base_url: str, prompt: JudgePrompt) -> tuple[RubricCheck, UsageTally]:
    """The rubric check as a run makes it: the example file, its target, `judge_asker`."""
    loaded = load_target_file(EXAMPLE)
    spec = loaded.spec.model_copy(update={"base_url": base_url})
    target = build_target(dataclasses.replace(loaded, spec=spec), concurrency=2)
    tally = UsageTally()
    try:
        ask = judge_asker(target, language="en", case_id="c1", tally=tally)
        return await check_rubric(ask, prompt, ASKED), tally
    finally:
        await target.aclose()


def _judged_over_http(defects: Collection[JudgeDefect] = ()) -> tuple[RubricCheck, UsageTally]:
    with running_judge(ToyJudge(defects)) as base_url:
        return asyncio.run(_rubric_over_http(base_url, _rubric_prompt()))


def test_a_judge_target_file_gets_the_toy_judges_verdict_over_http() -> None:
    check, tally = _judged_over_http()
    assert isinstance(check.result, Judged), check.result
    assert dict(check.result.verdicts) == {
        "library-hours": CriterionVerdict.FAIL,
        "answers-in-asker-language": CriterionVerdict.PASS,
    }
    assert check.replies == (toy_judge_reply(_rubric_prompt().text),)  # as in process
    assert tally.replies == 1 and tally.total is not None


def test_over_http_an_unreadable_reply_is_asked_again_once_then_unjudged() -> None:
    check, tally = _judged_over_http([JudgeDefect.TRUNCATED_JSON])
    assert isinstance(check.result, Unjudged)
    assert "not JSON" in check.result.why
    assert len(check.replies) == 2 and tally.replies == 2


def test_over_http_a_judge_preferring_the_first_text_is_a_position_bias() -> None:
    question = LIBRARY
    answer, reference = WRONG_HOURS, "Monday to Thursday 9 a.m. to 8 p.m."
    rng = seeded("run", "c1", 0)
    with running_judge(ToyJudge([JudgeDefect.PREFERS_FIRST])) as base_url:

        async def both_orders() -> PairwiseCheck:
            loaded = load_target_file(EXAMPLE)
            spec = loaded.spec.model_copy(update={"base_url": base_url})
            target = build_target(dataclasses.replace(loaded, spec=spec), concurrency=2)
            try:
                ask = judge_asker(target, language="en", case_id="c1")
                one = pairwise_prompt(question, answer, reference, rng)
                other = pairwise_prompt(question, reference, answer, rng)
                first = await ask(one.text)
                second = await ask(other.text)
            finally:
                await target.aclose()
            return combine(
                read_pairwise_reply(first, one.token), read_pairwise_reply(second, other.token), "A"
            )

        check = asyncio.run(both_orders())
    assert (check.outcome, check.position_bias) == (PairwiseOutcome.UNJUDGED, True)


def test_the_served_judge_lists_its_model_and_refuses_the_toys() -> None:
    with running_judge(ToyJudge()) as base_url, httpx.Client(base_url=base_url) as http:
        models = http.get("/models").json()
        assert [model["id"] for model in models["data"]] == [MODEL]
        body = {"model": "riverbend-toy", "messages": [{"role": "user", "content": "Hi"}]}
        refused = http.post("/chat/completions", json=body)
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "model_not_found"
        body["model"] = MODEL
        answered = http.post("/chat/completions", json=body).json()
    assert answered["model"] == MODEL
    assert answered["system_fingerprint"] == MODEL
    reply = answered["choices"][0]["message"]["content"]
    assert isinstance(read_rubric_reply(reply, ["anything"], "JT-0"), Unjudged)  # no judge prompt


def test_the_example_judge_file_is_a_calm_openai_chat_judge() -> None:
    fingerprint = judge_fingerprint(load_target_file(EXAMPLE))
    assert (fingerprint.kind, fingerprint.model, fingerprint.host) == (
        "openai-chat",
        MODEL,
        "127.0.0.1:8765",
    )
    assert fingerprint.temperature == 0


# ---------------------------------------------------------------- calibration on the shipped labels

TALKING = sum(
    len(item.criteria or ()) or 1
    for item in load_labels(builtin_labels_dir()).items
    if item.talks_to_judge
)
"""The shipped labels' pairs on answers that talk to the judge, in every language."""
OBEYED = (
    f"REFUSED (the judge passed {TALKING} of {TALKING} pairs on answers that talk to the judge "
    "(e.g. en-inject-01))"
)

CALIBRATED = [
    ((), 0, "calibration: ACCEPTED"),
    ((JudgeDefect.ALWAYS_PASS,), 1, OBEYED),  # its kappa is 0.00 too
    ((JudgeDefect.ALWAYS_FAIL,), 1, "REFUSED (overall kappa -0.01 is below 0.7)"),
    ((JudgeDefect.PREFERS_FIRST,), 1, "REFUSED (position consistency 0.00 is below 0.9"),
    ((JudgeDefect.MALFORMED_JSON,), 1, "REFUSED (overall kappa 0.00 is below 0.7)"),
    ((JudgeDefect.TRUNCATED_JSON,), 1, "REFUSED (overall kappa 0.00 is below 0.7)"),
    ((JudgeDefect.VERDICT_IN_PROSE,), 1, "REFUSED (overall kappa 0.00 is below 0.7)"),
    ((JudgeDefect.OBEYS_INJECTION,), 1, OBEYED),  # its kappa is 0.59
]


@pytest.mark.parametrize(
    ("defects", "code", "verdict"),
    CALIBRATED,
    ids=["+".join(defects) or "healthy" for defects, _, _ in CALIBRATED],
)
def test_calibrating_the_served_toy_judge_on_the_shipped_labels(
    run_cli: RunCli, tmp_path: Path, defects: tuple[JudgeDefect, ...], code: int, verdict: str
) -> None:
    with running_judge(ToyJudge(defects)) as base_url:
        judge = tmp_path / "judge.yaml"
        example = EXAMPLE.read_text(encoding="utf-8")
        judge.write_text(example.replace("http://127.0.0.1:8765/v1", base_url), encoding="utf-8")
        result = run_cli("calibrate", "--judge", judge, "--out", tmp_path / "r.json", "--quiet")
    assert result.code == code, result.show()
    assert verdict in result.stdout
    if not defects:  # every label agreed with, in each language
        rows = [line.split() for line in result.stdout.splitlines()]
        figures = {row[0]: row[3:6] for row in rows if row and row[0] in PEERS}
        perfect = {tag: ["0", "1.000", "1.00"] for tag in PEERS}
        # Vietnamese holds the toy judge's one known misread (`KNOWN_MISREADS`): 90 of 91.
        assert figures == perfect | {"vi": ["0", "0.989", "0.98"]}


# ---------------------------------------------------------------- the command


def test_toy_serve_judge_serves_the_named_defects_as_the_judge_model(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[str, str, int, str]] = []

    def fake(host: str, port: int, toy: Any, *, on_ready: Any, model: str) -> None:
        served.append((toy.name, host, port, model))
        on_ready(4321)
        raise KeyboardInterrupt  # Ctrl-C

    monkeypatch.setattr("gauntlet.targets.toy.openai.serve_forever", fake)
    result = run_cli(
        "toy", "serve", "--api", "openai", "--port", "0", "--judge-defect", "prefers_first"
    )
    assert result.code == 0, result.show()
    assert served == [("riverbend-toy-judge+prefers_first", "127.0.0.1", 0, MODEL)]
    assert result.stderr == (
        "serving riverbend-toy-judge+prefers_first on http://127.0.0.1:4321/v1 as an "
        "OpenAI-compatible chat completions API, model riverbend-toy-judge (Ctrl-C to stop)\n"
    )
    served.clear()
    assert run_cli("toy", "serve", "--api", "openai", "--judge").code == 0
    assert served == [(MODEL, "127.0.0.1", 8765, MODEL)]  # the port the example file names


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--judge"], "--judge serves the toy judge as OpenAI's API only: add --api openai"),
        (
            ["--api", "openai", "--judge", "--toy-defect", "drop_citations"],
            "--toy-defect is the toy's; give the judge's with --judge-defect",
        ),
    ],
)
def test_toy_serve_judge_refuses_what_it_cannot_serve(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("refused flags must not serve")  # nor block the test forever

    monkeypatch.setattr("gauntlet.targets.toy.openai.serve_forever", never)
    monkeypatch.setattr("gauntlet.targets.toy.http.serve", never)
    result = run_cli("toy", "serve", *args)
    assert result.code == 2
    assert said in result.stderr


def test_toy_serve_refuses_an_unknown_judge_defect(run_cli: RunCli) -> None:
    result = run_cli("toy", "serve", "--api", "openai", "--judge-defect", "lenient")
    assert result.code == 2
    assert "'lenient' is not one of" in " ".join(result.stderr.replace("│", " ").split())


def test_the_command_serves_the_judge_until_stopped() -> None:
    command = [sys.executable, "-m", "gauntlet", "toy", "serve", "--api", "openai", "--judge"]
    server = subprocess.Popen([*command, "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()
        found = re.search(r"on (http://127\.0\.0\.1:\d+/v1) as an OpenAI-compatible", banner)
        assert found, banner
        prompt = _rubric_prompt()
        body = {"model": MODEL, "messages": [{"role": "user", "content": prompt.text}]}
        with httpx.Client(base_url=found[1], timeout=10) as http:
            reply = http.post("/chat/completions", json=body).json()
        content = reply["choices"][0]["message"]["content"]
        assert content == toy_judge_reply(prompt.text)
        result = read_rubric_reply(content, ASKED, prompt.token)
        assert isinstance(result, Judged) and result.failed == ("library-hours",)
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
        if server.stderr is not None:
            assert server.stderr.read() == ""
            server.stderr.close()
