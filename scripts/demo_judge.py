"""`make demo`, last part: a model judge that earns its vote, against the toy judge.

Serves the deterministic toy judge (`gauntlet toy serve --api openai --judge`) on a free port,
points a copy of examples/targets/toy-judge.yaml at it, then:

1. `gauntlet calibrate` on the shipped labels: the healthy judge is ACCEPTED (exit 0);
2. `gauntlet run` of examples/judge/ against the toy with `answer_drift` (its answers gain a
   closing sentence, so exact golden matching would fail them), judged by that calibrated
   judge: reworded but right, they pass (exit 0); the evidence pack is written;
3. `gauntlet calibrate` of a judge with the `always_pass` defect: REFUSED (exit 1).

Exits 0 only when all three came out as described. Run with the project's Python
(`.venv/bin/python scripts/demo_judge.py`).
"""

from __future__ import annotations

import sys

from demo_target import BUILD, ROOT, NotServing, gauntlet, served

JUDGE = ROOT / "examples" / "targets" / "toy-judge.yaml"
RECORD = BUILD / "calibration.json"


def main() -> int:
    """Calibrate, run judged, and show a defective judge refused; 0 when each did as told."""
    record = str(RECORD.relative_to(ROOT))
    try:
        with served(JUDGE, "--judge") as judge:
            calibrated = gauntlet("calibrate", "--judge", str(judge), "--out", record)
            ran = gauntlet(
                "run", "--toy-defect", "answer_drift", "--cases", "examples/judge/",
                "--judge", str(judge), "--calibration", record, "--quiet",
                "--out", "results-judged.json",
            )  # fmt: skip
            reported = gauntlet("report", "results-judged.json", "--out", "evidence-judged.md")
        with served(JUDGE, "--judge", "--judge-defect", "always_pass") as judge:
            refused = gauntlet(
                "calibrate",
                "--judge",
                str(judge),
                "--out",
                str(BUILD.relative_to(ROOT) / "calibration-always-pass.json"),
            )
    except NotServing as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"calibrate (healthy): exit {calibrated}, expected 0", flush=True)
    print(f"run, judged:         exit {ran}, expected 0", flush=True)
    print(f"calibrate (always_pass): exit {refused}, expected 1", flush=True)
    return 0 if (calibrated, ran, reported, refused) == (0, 0, 0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
