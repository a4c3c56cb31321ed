"""The built-in trajectory suite through the scripted tool loop, against the small real model.

gauntlet plays the suite's tools for the model: it offers them, answers each call from the
case's `tool_results`, and asks again until a final answer. SmolLM2-135M answers from memory
when it may choose (asked by hand, it did), and llama.cpp's server ignores `tool_choice:
required`, so each case is asked with its first expected tool forced by name on the first turn
(the target file's `tool_choice`), grouped by that tool; a case that expects no call is asked
unforced. Later turns are free, so the model can answer.

What is tested is the loop and the transport, not the model: every case completes, every
answer reports its calls, and a forced first call is the tool named. What the model scored is
kept where GAUNTLET_REAL_LLM_KEEP says (`make real-llm`: build/real-llm/) for the README: a
record of this model, not a claim about agents.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from statistics import mean
from typing import Any

import yaml

from gauntlet.cases.yaml_nodes import decode_source, read_document

from .conftest import (
    EXAMPLE,
    SUITES,
    materialise,
    read_results,
    requires_server,
    run_gauntlet,
)

pytestmark = requires_server

TRAJECTORY_SUITE = SUITES / "trajectory.yaml"


def _groups() -> dict[str | None, dict[str, Any]]:
    """The built-in trajectory suite split by the tool its cases expect first."""
    raw = TRAJECTORY_SUITE.read_bytes()
    suite: dict[str, Any] = read_document(decode_source(raw, str(TRAJECTORY_SUITE)), "").data
    groups: dict[str | None, dict[str, Any]] = {}
    for case in suite["cases"]:
        expected = case.get("expect_calls") or []
        tool = expected[0]["name"] if expected else None
        group = groups.setdefault(
            tool, {**suite, "suite": f"{suite['suite']}-{tool or 'no-call'}", "cases": []}
        )
        group["cases"].append(case)
    return groups


def _forcing(target: Path, tool: str | None) -> Path:
    """The target file, forcing `tool` on the loop's first turn (unchanged for None)."""
    if tool is None:
        return target
    text, found = re.subn(
        r"(?m)^model: (.*)$",
        rf"model: \1\ntool_choice: {{type: function, function: {{name: {tool}}}}}",
        target.read_text(encoding="utf-8"),
    )
    assert found == 1, f"{target}: expected one top-level model line"
    forced = target.with_name(f"{target.stem}-{tool}.yaml")
    forced.write_text(text, encoding="utf-8")
    return forced


def test_the_trajectory_suite_runs_through_the_scripted_loop(base_url: str, tmp_path: Path) -> None:
    kept = Path(os.environ.get("GAUNTLET_REAL_LLM_KEEP") or tmp_path / "kept")
    kept.mkdir(parents=True, exist_ok=True)
    target = materialise(EXAMPLE, tmp_path / "target.yaml", base_url=base_url, stream=False)
    summary: list[str] = []
    for tool, suite in _groups().items():
        name = tool or "no-call"
        cases = tmp_path / f"cases-{name}"
        cases.mkdir()
        (cases / "trajectory.yaml").write_text(
            yaml.safe_dump(suite, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
        out = tmp_path / f"{name}.json"
        ran = run_gauntlet(
            "run", "--target", _forcing(target, tool), "--cases", cases, "--out", out
        )  # fmt: skip
        (kept / f"trajectory-{name}.txt").write_text(ran.stdout, encoding="utf-8")
        # Cases fail (a 135M model); the run must not error: 0 or 1, never 2.
        assert ran.code in (0, 1), ran.show()
        document = read_results(out, ran)
        (kept / f"trajectory-{name}.json").write_text(json.dumps(document), encoding="utf-8")
        trials = [(case, trial) for case in document["cases"] for trial in case["trials"]]
        assert len(document["cases"]) == len(suite["cases"])
        for case, trial in trials:
            where = f"{case['case_id']}: {trial['reason']}"
            assert trial["outcome"] in ("passed", "failed"), where
            calls = trial["response"]["tool_calls"]
            assert isinstance(calls, list), where
            if tool is not None:
                assert calls and calls[0]["name"] == tool, f"{where}: {calls}"
                assert all(call["step"] is not None for call in calls), where
        scores = [trial["scores"] for _, trial in trials if trial["scores"] is not None]
        accuracy = [s["tool_accuracy"] for s in scores if s["tool_accuracy"] is not None]
        faithful = [s["faithfulness"] for s in scores if s["faithfulness"] is not None]
        passed = sum(case["outcome"] == "passed" for case in document["cases"])
        summary.append(
            f"{name}: {passed} of {len(document['cases'])} cases passed; "
            f"calls made {sum(len(t['response']['tool_calls']) for _, t in trials)}; "
            f"mean tool accuracy {mean(accuracy):.3f} over {len(accuracy)} asks; "
            + (
                f"mean faithfulness {mean(faithful):.3f} over {len(faithful)} asks"
                if faithful
                else "faithfulness not asked"
            )
        )
    (kept / "trajectory-summary.txt").write_text("\n".join(summary) + "\n", encoding="utf-8")
