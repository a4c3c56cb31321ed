"""The small model as a judge: calibrated on the shipped labels, and refused if it falls short.

A 135M model is not expected to agree with people well enough to vote. Whatever it scores, the
run with it must follow from its calibration: refused, every judged case is unjudged and the
verdict withheld with the calibration's reason. What it printed is kept where
GAUNTLET_REAL_LLM_KEEP says (`make real-llm`: build/real-llm/) for the README: a record of this
model, not a claim about judges.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .conftest import (
    EXAMPLES,
    ROOT,
    materialise,
    read_results,
    requires_server,
    run_gauntlet,
)

JUDGE_TARGET = EXAMPLES / "llama-server-judge.yaml"
JUDGED_CASES = ROOT / "examples" / "judge"

pytestmark = requires_server


def test_the_small_model_is_calibrated_and_the_run_follows_its_calibration(
    base_url: str, tmp_path: Path
) -> None:
    judge = materialise(JUDGE_TARGET, tmp_path / "judge.yaml", base_url=base_url)
    record = tmp_path / "calibration.json"
    calibrated = run_gauntlet("calibrate", "--judge", judge, "--out", record)
    kept = Path(os.environ.get("GAUNTLET_REAL_LLM_KEEP") or tmp_path / "kept")
    kept.mkdir(parents=True, exist_ok=True)
    (kept / "judge-calibration.txt").write_text(calibrated.stdout, encoding="utf-8")
    assert calibrated.code in (0, 1), calibrated.show()
    assert record.is_file(), calibrated.show()
    (kept / "judge-calibration.json").write_text(record.read_text("utf-8"), encoding="utf-8")
    said = [line for line in calibrated.stdout.splitlines() if line.startswith("calibration: ")]
    expected = "calibration: ACCEPTED" if calibrated.code == 0 else "calibration: REFUSED"
    assert len(said) == 1, calibrated.show()
    assert said[0].startswith(expected), calibrated.show()

    out = tmp_path / "results.json"
    ran = run_gauntlet(
        "run", "--toy", "--cases", JUDGED_CASES, "--judge", judge, "--calibration", record,
        "--out", out,
    )  # fmt: skip
    results = read_results(out, ran)
    (kept / "judge-run.txt").write_text(ran.stdout, encoding="utf-8")
    if calibrated.code == 1:
        assert ran.code == 2, ran.show()
        assert results["verdict"] == "withheld"
        assert "the judge may not vote" in results["verdict_reason"]
        outcomes = {case["outcome"] for case in results["cases"]}
        assert outcomes == {"unjudged"}, outcomes
    else:  # pragma: no cover - a 135M judge has not been seen to pass
        assert results["judge"]["refused"] is None
    assert json.loads(record.read_text("utf-8"))["judge"]["model"] == "smollm2"
