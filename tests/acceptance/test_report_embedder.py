"""`gauntlet report --baseline PREV --embedder SPEC`: new failures matched by meaning."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.run.results_file import write_results
from gauntlet.semantic.check import Similarity

from .. import evidence_fixtures as fx
from ..cli_helpers import RunCli
from ..embedders import toy_embeddings

DEFLECT = "Sorry, I can only help with questions about city events. Please ask at City Hall."


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A baseline with one grounding failure, and a run with it and a new one reworded."""
    where = tmp_path_factory.mktemp("runs")
    baseline, current = where / "baseline.json", where / "current.json"
    write_results(fx.answered({"gnd-en-bulky-waste": DEFLECT}), baseline)
    reworded = "I'm only able to help with city event questions, sorry. Ask at City Hall."
    write_results(
        fx.answered({"gnd-en-bulky-waste": DEFLECT, "gnd-en-pool-hours": reworded}), current
    )
    return current, baseline


def test_an_embedder_without_a_record_matches_nothing_and_says_so(
    runs: tuple[Path, Path], run_cli: RunCli
) -> None:
    # Trap: an uncalibrated embedder let match (its threshold made up), or its refusal
    # left unsaid so that no match reads as no old failure.
    current, baseline = runs
    done = run_cli("report", current, "--baseline", baseline, "--embedder", "toy")
    assert done.code == 0, done.show()
    why = "no calibration record was given (--embedder-calibration)"
    assert f"New failures were not matched by meaning: similarity may not gate: {why}" in (
        done.stdout
    )
    assert f"note: new failures were not matched by meaning: similarity may not gate: {why}" in (
        done.stderr
    )
    assert "is `gnd-en-bulky-waste` reworded" not in done.stdout


def test_without_an_embedder_the_report_says_new_failures_were_not_matched(
    runs: tuple[Path, Path], run_cli: RunCli
) -> None:
    # Trap: a report without an embedder read as "every new failure is new".
    current, baseline = runs
    done = run_cli("report", current, "--baseline", baseline)
    assert done.code == 0, done.show()
    assert "New failures were not matched by meaning: no embedder was given." in done.stdout
    assert "matched by meaning" not in done.stderr  # the console says so only when asked


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--embedder", "toy"], "--embedder needs --baseline"),
        (["--embedder-calibration", "r.json"], "--embedder-calibration needs --embedder"),
        (
            ["--baseline", "{baseline}", "--embedder", "toy:deaf"],
            "--embedder: no toy embedder defect deaf (known: similar_everything, "
            "negation_blind, english_only)",
        ),
    ],
    ids=["no-baseline", "record-alone", "unknown-defect"],
)
def test_an_embedder_asked_wrongly_is_a_usage_error_in_the_flags_words(
    runs: tuple[Path, Path], run_cli: RunCli, flags: list[str], said: str
) -> None:
    # Trap: an embedder given where it does nothing silently ignored, or its error worded
    # with the library's parameter name instead of the flag.
    current, baseline = runs
    done = run_cli("report", current, *(flag.format(baseline=baseline) for flag in flags))
    assert done.code == 2, done.show()
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_a_matched_failure_is_named_on_the_console_and_in_the_report(
    runs: tuple[Path, Path], run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a match made but shown nowhere a reviewer looks, or shown as a pass.
    embeddings = toy_embeddings()  # opened here, outside the command's event loop

    async def calibrated(spec: str, record: Path | None, *, redactor: object) -> Similarity:
        assert (spec, record) == ("toy", Path("record.json"))
        return Similarity(
            fingerprint=embeddings.fingerprint, thresholds={"en": 0.7}, embeddings=embeddings
        )

    monkeypatch.setattr("gauntlet.evidence.reworded.open_similarity", calibrated)
    current, baseline = runs
    done = run_cli(
        "report", current, "--baseline", baseline, "--embedder", "toy",
        "--embedder-calibration", "record.json",
    )  # fmt: skip
    assert done.code == 0, done.show()
    assert "- en: `gnd-en-pool-hours` is `gnd-en-bulky-waste` reworded (grounding" in done.stdout
    assert "drift: gnd-en-pool-hours is gnd-en-bulky-waste reworded (grounding, en" in done.stderr
    assert "it still fails" in done.stderr
    assert "not matched by meaning" not in done.stdout + done.stderr
