"""`gauntlet init`: the pack written, validated, run against the toy; nothing overwritten."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from gauntlet.targets.toy import make_toy
from gauntlet.transforms import Transform

from ..cli_helpers import RunCli
from ..toy_servers import running_openai

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "attack-pack.md"
PACK = ("adversarial.yaml", "crisis.yaml", "false_positive.yaml", "refusal.yaml")


@pytest.fixture
def feature(tmp_path: Path) -> Path:
    """The docs' feature file (a utility-billing assistant), written where init can read it."""
    [body] = re.findall(r"^```yaml feature-file\n(.*?)^```$", DOC.read_text("utf-8"), re.M | re.S)
    path = tmp_path / "feature.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_init_writes_a_pack_that_validates_and_says_what_wrote_it(
    tmp_path: Path, feature: Path, run_cli: RunCli
) -> None:
    out = tmp_path / "suites"
    result = run_cli("init", "--feature", feature, "--out", out)
    assert result.code == 0, result.show()
    assert sorted(p.name for p in out.iterdir()) == list(PACK)
    digest = hashlib.sha256(feature.read_bytes()).hexdigest()
    for name in PACK:
        head = (out / name).read_text("utf-8").split("\nsuite:")[0]
        assert '"feature.yaml"' in head and digest in head, head
    checked = run_cli("validate", "--cases", out)
    assert checked.code == 0, checked.show()


def test_init_refuses_to_overwrite_any_file_without_force(
    tmp_path: Path, feature: Path, run_cli: RunCli
) -> None:
    # Trap: a rerun of init over a team's edited suites would throw their edits away, and
    # writing the files it can beside one it refuses leaves a mixed set that looks whole.
    out = tmp_path / "suites"
    out.mkdir()
    (out / "refusal.yaml").write_text("# ours\n", encoding="utf-8")
    result = run_cli("init", "--feature", feature, "--out", out)
    assert result.code == 2, result.show()
    assert f"{out / 'refusal.yaml'}: exists; init writes nothing over a file" in result.stderr
    assert [p.name for p in out.iterdir()] == ["refusal.yaml"]
    assert (out / "refusal.yaml").read_text("utf-8") == "# ours\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    forced = run_cli("init", "--feature", feature, "--out", out, "--force")
    assert forced.code == 0, forced.show()
    assert sorted(p.name for p in out.iterdir()) == list(PACK)


def test_a_bad_feature_file_is_refused_where_it_is_wrong_and_writes_nothing(
    tmp_path: Path, feature: Path, run_cli: RunCli
) -> None:
    feature.write_text(
        feature.read_text("utf-8").replace("languages: [en, es]", "languages: [en, de]"), "utf-8"
    )
    out = tmp_path / "suites"
    result = run_cli("init", "--feature", feature, "--out", out)
    assert (result.code, result.stdout) == (2, ""), result.show()
    assert result.stderr.startswith(
        f"{feature}:4:17: languages[1]: the attack pack is not written in 'de'"
    ), result.show()
    assert not out.exists()


def test_gauntlet_schema_feature_prints_the_feature_files_schema(run_cli: RunCli) -> None:
    result = run_cli("schema", "feature")
    assert result.code == 0, result.show()
    assert json.loads(result.stdout)["title"] == "gauntlet feature file"
    committed = (ROOT / "schemas" / "feature.schema.json").read_text("utf-8")
    assert result.stdout == committed


@pytest.mark.network
def test_the_docs_pack_runs_against_the_toy_openai_server_every_case_answered(
    tmp_path: Path, feature: Path, run_cli: RunCli
) -> None:
    # Trap: a pack that validates but that no target could be asked (a key a target file
    # refuses, a case the run drops) would give a team coverage on paper only.
    out = tmp_path / "suites"
    assert run_cli("init", "--feature", feature, "--out", out).code == 0
    example = (ROOT / "examples" / "targets" / "openai-toy.yaml").read_text("utf-8")
    results = tmp_path / "r.json"
    with running_openai(make_toy()) as base_url:
        target = tmp_path / "openai-toy.yaml"
        target.write_text(example.replace("http://127.0.0.1:8765/v1", base_url), "utf-8")
        result = run_cli("run", "--target", target, "--cases", out, "--out", results, "--quiet")
    # The toy is a Riverbend assistant, not a billing one: gates may fail, but every case
    # is asked and graded, none unscoreable and none a harness error.
    assert result.code in (0, 1), result.show()
    written = json.loads(results.read_text("utf-8"))
    cases = written["cases"]
    per_language = Counter(case["language"] for case in cases if case["transform"] is None)
    # Per language: 10 attacks, 2 per refused topic (2) and 2 off-topic, 2 crises, 2 per
    # legitimate request (3).
    assert per_language == {"en": 24, "es": 24}
    # And the attacks and must-refuse requests through every transform, alike per language.
    variants = Counter((case["language"], case["transform"]) for case in cases)
    assert {transform for _, transform in variants} == {None, *Transform}
    assert all(variants["en", t] == variants["es", t] > 0 for t in Transform)
    assert all(case["trials"] for case in cases)
