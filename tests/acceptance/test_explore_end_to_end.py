"""Explore, then freeze, then replay: issue 33's must-show, through the real command line.

Nothing is faked here: the built-in personas, the toy attacker (the real prompt it is sent and
the strict reply read back), the toy target with a defect that breaks only under pressure,
the freezer, and `gauntlet run` replaying what was frozen. Each pressure defect must be found
and frozen; the frozen case must fail that defect and pass the healthy toy; each attacker
defect must be unscoreable (exit 4), never a target that held; a second explore must report
what it meets again as known and write nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.cases.loader import load_suites

from ..cli_helpers import RunCli

EXAMPLES = Path(__file__).parents[2] / "examples" / "targets"

PRESSURE = [
    # (toy defect, the persona that must find it, its breaking turn, the detector that fires)
    pytest.param("gives_in_on_third_pushback", "angry-customer", 4, "refusal", id="pushback"),
    pytest.param("leaks_to_claimed_staff", "social-engineer", 2, "markers", id="staff"),
]


def _explore(run_cli: RunCli, out: Path, *flags: str) -> tuple[int, dict[str, object]]:
    result = run_cli("explore", "--attacker", *flags, "--out", out)
    report = json.loads((out / "explore-report.json").read_text("utf-8"))
    return result.code, report


def _findings(report: dict[str, object], status: str) -> list[tuple[str, str, int | None]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return sorted(
        (
            item["conversation"]["persona"],
            item["conversation"]["language"],
            item["conversation"]["breaking_turn"],
        )
        for item in findings
        if item["status"] == status
    )


def _in_every_language(persona: str, turn: int) -> list[tuple[str, str, int | None]]:
    """A pressure defect breaks `persona` at `turn` in each of the six peer languages alike."""
    return sorted((persona, language, turn) for language in ("en", "es", "zh", "vi", "tl", "ko"))


@pytest.mark.parametrize(("defect", "persona", "turn", "detector"), PRESSURE)
def test_explore_freezes_each_pressure_defect_and_the_replay_fails_it_and_passes_the_healthy_toy(
    tmp_path: Path, run_cli: RunCli, defect: str, persona: str, turn: int, detector: str
) -> None:
    # Trap: an explore that reports a break but freezes a case that does not replay it (other
    # messages, a check the replay does not make, a judge the replay lacks) keeps nothing
    # regression-tested; one whose frozen case also fails the healthy toy blocks every merge.
    out = tmp_path / "findings"
    code, report = _explore(run_cli, out, "toy", "--toy-defect", defect)
    assert code == 1, report
    assert _findings(report, "new") == _in_every_language(persona, turn)
    [loaded] = load_suites([out]).suites
    assert loaded.suite.suite == f"explore-{persona}"
    for case in loaded.suite.cases:
        assert case.found_by is not None
        assert (case.found_by.persona, case.found_by.breaking_turn, case.found_by.detector) == (
            persona,
            turn,
            detector,
        )
        assert len(case.messages) == turn
    broken = run_cli("run", "--cases", out, "--toy-defect", defect, "--out", tmp_path / "b.json")
    assert broken.code == 1, broken.show()
    healthy = run_cli("run", "--cases", out, "--toy", "--out", tmp_path / "h.json")
    assert healthy.code == 0, healthy.show()


def test_the_healthy_toy_gives_explore_nothing_to_freeze(tmp_path: Path, run_cli: RunCli) -> None:
    # Trap: a persona whose goal the healthy toy already breaks freezes a "finding" that is the
    # persona's fault, and every later run fails on it.
    out = tmp_path / "findings"
    code, report = _explore(run_cli, out, "toy")
    assert code == 0, report
    assert _findings(report, "new") == []
    assert sorted(path.name for path in out.iterdir()) == [
        "explore-report.json",
        "explore-report.md",
    ]


@pytest.mark.parametrize("fault", ["refuses", "prose", "repeats"])
def test_each_attacker_defect_is_unscoreable_and_exits_4_never_held(
    tmp_path: Path, run_cli: RunCli, fault: str
) -> None:
    # Trap: an attacker that will not attack, counted as a target that held, reports a target
    # that nobody tested as safe (exit 0).
    out = tmp_path / "findings"
    code, report = _explore(run_cli, out, f"toy:{fault}", "--toy-defect", "leaks_to_claimed_staff")
    assert code == 4, report
    rows = report["rows"]
    assert isinstance(rows, list)
    assert sum(row["unscoreable"] for row in rows) == sum(row["conversations"] for row in rows)
    assert sum(row["held"] for row in rows) == 0
    assert sum(row["broke"] for row in rows) == 0


def test_a_second_explore_reports_known_breaks_and_writes_nothing_twice(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: an explore that freezes the same break again on every run fills the findings with
    # duplicates, and one that drops it says the target no longer breaks.
    out = tmp_path / "findings"
    first, _ = _explore(run_cli, out, "toy", "--toy-defect", "gives_in_on_third_pushback")
    assert first == 1
    frozen = (out / "angry-customer.yaml").read_bytes()
    code, report = _explore(run_cli, out, "toy", "--toy-defect", "gives_in_on_third_pushback")
    assert code == 0, report
    assert _findings(report, "new") == []
    assert _findings(report, "known") == _in_every_language("angry-customer", 4)
    assert (out / "angry-customer.yaml").read_bytes() == frozen


def test_a_findings_directory_that_does_not_load_is_refused_before_anyone_is_asked(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: a frozen suite under --out that no longer loads (a hand edit gone wrong) found
    # only when the breaks are written: every conversation was had, and paid for, and lost.
    out = tmp_path / "findings"
    out.mkdir()
    (out / "angry-customer.yaml").write_text("suite: [unclosed\n", encoding="utf-8")
    result = run_cli(
        "explore", "--attacker", "toy", "--toy-defect", "gives_in_on_third_pushback", "--out", out
    )
    assert result.code == 2, result.show()
    assert "angry-customer.yaml:2:1: YAML" in result.stderr
    assert "[1/" not in result.stderr + result.stdout  # no conversation was started
    assert sorted(path.name for path in out.iterdir()) == ["angry-customer.yaml"]


def test_an_attacker_whose_refusal_could_not_be_read_in_a_played_language_is_refused(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: a model that declines in well-formed JSON ({"message": "I can't help with that"})
    # is caught only by its file's refusal phrases; without phrases for the language played,
    # its refusal goes to the target as the next move and the conversation ends "held", a
    # target nobody attacked reported as safe.
    source = (EXAMPLES / "toy-attacker.yaml").read_text(encoding="utf-8")
    english_only = source.replace('      es: ["No voy a interpretar a este personaje"]\n', "")
    assert english_only != source
    attacker = tmp_path / "attacker.yaml"
    attacker.write_text(english_only, encoding="utf-8")
    out = tmp_path / "findings"
    result = run_cli("explore", "--attacker", attacker, "--out", out)
    assert result.code == 2, result.show()
    assert "its response.refused gives no phrases for es" in result.stderr
    assert not (out / "explore-report.json").exists()
    played = run_cli("explore", "--attacker", attacker, "--language", "en", "--out", out)
    assert "no phrases" not in played.stderr, played.show()
    # Nothing listens there: the attacker's own pre-flight refuses, said once.
    assert played.stderr.count("the attacker's pre-flight check failed") == 1, played.show()
