"""A short explore with the small model as both attacker and target: the transport, end to end.

Two built-in personas, in English, one conversation each, at most three turns. A 135M model
makes a poor attacker (it may refuse, ramble or answer prose) and a poor target; what is
checked is that every conversation ends as one of the three outcomes that are about the
conversation (broke, held, unscoreable), none errored and none cut short: the attacker's
prompt and reply, the target's turns with their history, and the report all went through.
The report's table is printed as the test runs and kept where GAUNTLET_REAL_LLM_KEEP says.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from gauntlet.cases.persona import builtin_personas

from .conftest import EXAMPLE, EXAMPLES, materialise, requires_server, run_gauntlet

ATTACKER = EXAMPLES / "llama-server-attacker.yaml"
"""A chat-model target file with no system prompt of its own (the attacker's prompt is
gauntlet's), and the phrases the model declines in, which explore requires."""

pytestmark = requires_server


def test_a_short_explore_ends_every_conversation_broke_held_or_unscoreable(
    base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = materialise(EXAMPLE, tmp_path / "target.yaml", base_url=base_url, stream=False)
    attacker = materialise(ATTACKER, tmp_path / "attacker.yaml", base_url=base_url)
    personas = tmp_path / "personas"
    personas.mkdir()
    chosen = [persona for persona in builtin_personas() if "en" in persona.languages][:2]
    assert len(chosen) == 2, "the built-in library has fewer than two English personas"
    for persona in chosen:
        written = persona.model_dump(mode="json", exclude_none=True)
        (personas / f"{persona.id}.yaml").write_text(
            yaml.safe_dump(written, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
    out = tmp_path / "findings"
    explored = run_gauntlet(
        "explore", "--target", target, "--attacker", attacker, "--personas", personas,
        "--language", "en", "--conversations", "1", "--max-turns", "3", "--out", out,
    )  # fmt: skip
    with capsys.disabled():  # the report's table, in `make real-llm`'s log as it runs
        sys.stdout.write(f"\n{explored.stdout}")
    kept = Path(os.environ.get("GAUNTLET_REAL_LLM_KEEP") or tmp_path / "kept")
    kept.mkdir(parents=True, exist_ok=True)
    (kept / "explore.txt").write_text(explored.stdout, encoding="utf-8")
    assert explored.code in (0, 1, 4), explored.show()
    report_path = out / "explore-report.json"
    assert report_path.is_file(), explored.show()
    report = json.loads(report_path.read_text(encoding="utf-8"))
    outcomes = [conversation["outcome"] for conversation in report["conversations"]]
    assert len(outcomes) == 2, explored.show()
    assert set(outcomes) <= {"broke", "held", "unscoreable"}, report["conversations"]
    assert report["unfinished"] == [], report["unfinished"]
    assert [row["errored"] for row in report["rows"]] == [0, 0]
    assert explored.stdout.startswith("persona "), explored.show()
