"""`--judge-labels` (the judge's labelled sets) and `--label` (a history label) cannot be confused.

`--labels` was the judge's flag once, one letter from `--label`; it is refused by name, so a
command written for it never runs with its directory read as something else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..cli_helpers import RunCli


@pytest.mark.parametrize("command", [["run"], ["calibrate", "--judge", "judge.yaml"]])
def test_the_old_judge_labels_flag_is_refused_naming_the_new_one(
    tmp_path: Path, run_cli: RunCli, command: list[str]
) -> None:
    # Trap: `--labels` dropped, so click suggested (or a later version matched) `--label`, the
    # history's flag; or kept as the judge's, so `--label` and `--labels` stay one letter apart.
    result = run_cli(*command, "--labels", tmp_path, "--out", tmp_path / "r.json")
    assert result.code == 2, result.show()
    assert "--labels is now --judge-labels" in result.stderr, result.show()
    assert "--label " not in result.stderr and "Did you mean" not in result.stderr, result.show()
    assert not (tmp_path / "r.json").exists()


def test_judge_labels_without_a_judge_are_refused_by_their_own_name(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: the refusal still naming the old flag, which is itself refused.
    result = run_cli("run", "--judge-labels", tmp_path, "--out", tmp_path / "r.json")
    assert result.code == 2, result.show()
    assert "--calibration and --judge-labels are for a model judge" in result.stderr, result.show()
