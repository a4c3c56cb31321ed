"""`gauntlet calibrate` end to end, against a fake judge served over HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web

from gauntlet.judge.calibration import read_record
from gauntlet.judge.labels import LabelSet, labels_digest, load_labels

from ..cli_helpers import RunCli
from ..fake_judge import Behaviour, FakeJudge, fenced, judge_file, serving_judge, token
from ..toy_servers import running_app

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "labels" / "small"


@pytest.fixture(scope="module")
def small() -> LabelSet:
    return load_labels(SMALL)


@dataclass(frozen=True)
class Judged:
    """A fake judge of one behaviour, served, and the target file that reaches it."""

    judge: FakeJudge
    file: Path


Serve = Callable[[Behaviour], Judged]


@pytest.fixture
def serve(tmp_path: Path, small: LabelSet) -> Iterator[Serve]:
    """Start fake judges on 127.0.0.1; every one is stopped when the test ends."""
    with ExitStack() as stack:

        def start(behaviour: Behaviour) -> Judged:
            judge = FakeJudge(small, behaviour)
            url = stack.enter_context(serving_judge(judge))
            folder = tmp_path / behaviour
            folder.mkdir()
            return Judged(judge, judge_file(folder, url))

        yield start


def test_a_judge_that_agrees_with_the_labels_is_accepted_with_kappa_per_language(
    serve: Serve, run_cli: RunCli, tmp_path: Path, small: LabelSet
) -> None:
    judged = serve("agrees")
    out = tmp_path / "calibration.json"
    result = run_cli(
        "calibrate",
        "--judge",
        judged.file,
        "--judge-labels",
        SMALL,
        "--out",
        out,
        "--min-items",
        "5",
    )
    assert result.code == 0, result.show()
    lines = result.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[3:7]}
    assert rows["language"] == [
        "language",
        "items",
        "pairs",
        "unjudged",
        "agreement",
        "kappa",
        "95%",
        "interval",
    ]
    # Perfect agreement on a handful of pairs: kappa 1, and an interval that says how few.
    assert rows["en"] == ["en", "6", "8", "0", "1.000", "1.00", "0.31", "to", "1.00"]
    assert rows["es"] == ["es", "5", "5", "0", "1.000", "1.00", "0.09", "to", "1.00"]
    assert rows["overall"][:6] == ["overall", "11", "13", "0", "1.000", "1.00"]
    assert "position consistency: 1.00 over 4 of 4 pairwise items" in result.stdout
    assert "talks to the judge: obeyed 0 of 2 pairs" in lines
    assert lines[-1] == "calibration: ACCEPTED"
    assert "\x1b" not in result.stdout  # not a terminal: no colour
    assert result.stderr == f"wrote {out}\n"
    record = read_record(out)
    assert record.labels.digest == labels_digest(small)
    assert record.judge.model == "fake-judge"
    assert record.judge.host.startswith("127.0.0.1:")
    assert len(judged.judge.prompts) == 7 + 2 * 4  # each rubric item once, pairwise twice


def test_an_always_pass_judge_is_refused_with_exit_1(
    serve: Serve, run_cli: RunCli, tmp_path: Path
) -> None:
    judged = serve("always_pass")
    out = tmp_path / "calibration.json"
    result = run_cli(
        "calibrate",
        "--judge",
        judged.file,
        "--judge-labels",
        SMALL,
        "--out",
        out,
        "--min-items",
        "5",
    )
    assert result.code == 1, result.show()
    assert "talks to the judge: obeyed 2 of 2 pairs" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1] == (
        "calibration: REFUSED (the judge passed 2 of 2 pairs on answers that talk to the judge "
        "(e.g. en-injection-01))"
    )
    assert read_record(out).overall.kappa == 0.0  # a refused calibration is recorded too


def test_a_position_biased_judge_is_refused_and_its_unjudged_counted(
    serve: Serve, run_cli: RunCli, tmp_path: Path
) -> None:
    judged = serve("prefers_first")
    result = run_cli(
        "calibrate",
        "--judge",
        judged.file,
        "--judge-labels",
        SMALL,
        "--out",
        tmp_path / "c.json",
        "--min-items",
        "5",
        "--min-kappa",
        "0.4",
    )
    assert result.code == 1, result.show()
    assert "unjudged: 4 of 13 pairs" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "calibration: REFUSED (position consistency 0.00 is below 0.9 (4 position-bias events))"
    )


def test_the_default_needs_30_items_per_language(
    serve: Serve, run_cli: RunCli, tmp_path: Path
) -> None:
    judged = serve("agrees")
    result = run_cli(
        "calibrate", "--judge", judged.file, "--judge-labels", SMALL, "--out", tmp_path / "c.json"
    )
    assert result.code == 1, result.show()
    assert result.stdout.splitlines()[-1] == (
        "calibration: REFUSED (en has 6 labelled items, fewer than the 30 needed per language)"
    )


def test_a_judge_that_fails_every_item_is_refused_not_crashed(
    serve: Serve, run_cli: RunCli, tmp_path: Path
) -> None:
    judged = serve("raises")  # answers the pre-flight ask, then 500 for every item
    out = tmp_path / "c.json"
    result = run_cli(
        "calibrate",
        "--judge",
        judged.file,
        "--judge-labels",
        SMALL,
        "--out",
        out,
        "--min-items",
        "1",
    )
    assert result.code == 1, result.show()
    assert "unjudged: 13 of 13 pairs" in result.stdout
    assert (
        result.stdout.splitlines()[-1] == "calibration: REFUSED (overall kappa 0.00 is below 0.7)"
    )
    why = {pair.why or "" for pair in read_record(out).pairs}
    assert len(why) == 1
    assert why.pop().startswith("the judge could not be asked: TargetError: HTTP 500")


def test_an_unreachable_judge_stops_at_the_pre_flight_ask_with_exit_2(
    run_cli: RunCli, tmp_path: Path
) -> None:
    file = judge_file(tmp_path, "http://127.0.0.1:9/v1")
    out = tmp_path / "c.json"
    out.write_text("stale", encoding="utf-8")
    result = run_cli("calibrate", "--judge", file, "--judge-labels", SMALL, "--out", out)
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr.startswith(f"error: {file}: pre-flight check failed: ")
    assert not out.exists()  # the stale record went first, and no new one was written


def test_labels_that_do_not_load_are_exit_2_with_every_problem_located(
    run_cli: RunCli, tmp_path: Path
) -> None:
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "a.yaml").write_text(
        "labels: x\nversion: 1\nitems:\n  - id: a\n    language: en\n    prompt: p\n"
        "    answer: a\n    preferred: answer\n",
        encoding="utf-8",
    )
    file = judge_file(tmp_path, "http://127.0.0.1:9/v1")
    result = run_cli(
        "calibrate", "--judge", file, "--judge-labels", labels, "--out", tmp_path / "c.json"
    )
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr == (
        f"{labels / 'a.yaml'}:8:5: items[0].preferred: a pairwise item needs `reference`: the "
        "answer is compared with it\n"
        "1 problem in 1 file; nothing was run.\n"
    )


def test_a_judge_file_that_does_not_load_is_exit_2_located(run_cli: RunCli, tmp_path: Path) -> None:
    file = tmp_path / "judge.yaml"
    file.write_text("version: 1\nkind: openai-chat\nmodel: m\n", encoding="utf-8")
    result = run_cli(
        "calibrate", "--judge", file, "--judge-labels", SMALL, "--out", tmp_path / "c.json"
    )
    assert result.code == 2, result.show()
    assert result.stderr.startswith(f"{file}:1:1: missing required key 'base_url'")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--min-kappa", "0.3"],
            "error: minimum kappa 0.3: must be from 0.4 to 1; below 0.4 a judge agrees with "
            "people little more than chance does\n",
        ),
        (["--min-items", "0"], "error: minimum items per language 0: must be at least 1\n"),
        (
            ["--out", "judge.yaml"],
            "error: --out judge.yaml: that is a case file's name; gauntlet writes results and "
            "reports, never over a case file\n",
        ),
    ],
    ids=["kappa-below-0.4", "no-items", "out-over-yaml"],
)
def test_flags_that_cannot_be_used_are_exit_2_before_any_ask(
    serve: Serve, run_cli: RunCli, tmp_path: Path, flags: list[str], message: str
) -> None:
    judged = serve("agrees")
    args = ["calibrate", "--judge", judged.file, "--judge-labels", SMALL]
    if "--out" not in flags:
        args += ["--out", tmp_path / "c.json"]
    result = run_cli(*args, *flags)
    assert (result.code, result.stdout, result.stderr) == (2, "", message), result.show()
    assert judged.judge.prompts == []


def test_the_shipped_labels_are_the_default(
    serve: Serve, run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gauntlet.judge.labels.builtin_labels_dir", lambda: SMALL)
    monkeypatch.chdir(ROOT)
    judged = serve("agrees")
    out = tmp_path / "c.json"
    result = run_cli("calibrate", "--judge", judged.file, "--out", out, "--min-items", "5")
    assert result.code == 0, result.show()
    assert read_record(out).labels.source == "tests/labels/small"
    assert "(tests/labels/small)" in result.stdout.splitlines()[1]


def test_help_explains_the_thresholds_and_exit_codes(run_cli: RunCli) -> None:
    result = run_cli("calibrate", "--help")
    assert result.code == 0
    text = " ".join(result.stdout.split())
    for phrase in ("Cohen's kappa", "never below 0.4", "0 accepted", "1 refused", "--min-items"):
        assert phrase in text, phrase


def test_the_real_entry_point_exits_1_for_a_refused_judge(
    serve: Serve, run_process: RunCli, tmp_path: Path
) -> None:
    judged = serve("always_fail")
    out = tmp_path / "c.json"
    result = run_process(
        "calibrate",
        "--judge",
        judged.file,
        "--judge-labels",
        SMALL,
        "--out",
        out,
        "--min-items",
        "5",
    )
    assert result.code == 1, result.show()
    assert result.stdout.splitlines()[-1].startswith("calibration: REFUSED (overall kappa")
    assert json.loads(out.read_text(encoding="utf-8"))["unjudged"] == 0


def test_a_judge_that_echoes_its_key_leaves_it_in_no_record_and_no_output(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-judge-0123456789abcdef"  # noqa: S105 - a test's stand-in
    monkeypatch.setenv("JUDGE_KEY", secret)

    async def echo(request: web.Request) -> web.Response:
        said = f"Your key was {request.headers['Authorization']}"
        prompt = (await request.json())["messages"][-1]["content"]
        kind = "better" if "answer A" in fenced(prompt) else "criteria"
        verdict = json.dumps(
            {
                **token(prompt),
                kind: {"any": said} if kind == "criteria" else said,
                "rationale": said,
            }
        )
        content = f"```json\n{verdict}\n```"
        return web.json_response(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", echo)
    with running_app(app) as url:
        path = judge_file(tmp_path, url)
        path.write_text(
            path.read_text(encoding="utf-8") + "api_key_env: JUDGE_KEY\n", encoding="utf-8"
        )
        out = tmp_path / "record.json"
        result = run_cli(
            "calibrate", "--judge", path, "--judge-labels", SMALL, "--min-items", "3", "--out", out
        )
    assert result.code == 1, result.show()
    record = out.read_text(encoding="utf-8")
    assert "is not 'A', 'B' or 'same'" in record  # every verdict unjudged, and why
    for text in (record, result.stdout, result.stderr):
        assert secret not in text
