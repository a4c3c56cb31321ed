"""Drift of the trajectory scores: each gate's mean against the baseline's, a drop reported,
a baseline that never measured them said to be so, and trajectory judged as competence."""

from __future__ import annotations

from gauntlet.cases.model import GateName
from gauntlet.evidence.drift import COMPETENCE_GATES, SAFETY_GATES, Direction, ScoreChange, compare
from gauntlet.evidence.pack import build_pack
from gauntlet.gates.judgement import TrajectoryScores
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import Outcome, Results

from ... import evidence_fixtures as fx


def _scored(accuracy: float | None, faithfulness: float | None = None) -> TrajectoryScores:
    return TrajectoryScores(tool_accuracy=accuracy, faithfulness=faithfulness)


def _run(renew: float, pay: float, es: float) -> Results:
    """The trajectory run with known tool accuracies (and faithfulness 1.0 in English)."""
    return fx.rescored(
        fx.trajectory(),
        {
            "trj-en-renew-permit": [_scored(renew, 1.0)],
            "trj-en-pay-ticket": [_scored(pay, 1.0)],
            "trj-es-renovar-permiso": [_scored(es)],
            "trj-es-multa-y-permiso": [_scored(es)],
        },
    )


def _change(
    changes: tuple[ScoreChange, ...], language: str | None, score: str = "tool_accuracy"
) -> ScoreChange:
    [change] = [c for c in changes if (c.language, c.score) == (language, score)]
    return change


def test_a_drop_in_mean_tool_accuracy_is_reported() -> None:
    drift = compare(_run(1.0, 0.5, 0.5), _run(1.0, 1.0, 0.5))
    overall = _change(drift.scores, None)
    assert (overall.gate, overall.baseline, overall.current, overall.delta, overall.dropped) == (
        GateName.TRAJECTORY,
        0.75,
        0.625,
        -0.125,
        True,
    )
    assert _change(drift.scores, "en").delta == -0.25
    assert _change(drift.scores, "en").dropped
    assert not _change(drift.scores, "es").dropped  # Spanish stayed where it was
    assert _change(drift.scores, "es").delta == 0.0
    report = render_markdown(build_pack(_run(1.0, 0.5, 0.5), baseline=_run(1.0, 1.0, 0.5)))
    assert "Dropped since the baseline: trajectory tool accuracy overall; trajectory tool " in (
        report
    )
    assert "| trajectory | all | tool accuracy | 0.750 | 0.625 | **-0.125 (dropped)** |" in report


def test_a_rise_is_not_a_drop() -> None:
    drift = compare(_run(1.0, 1.0, 1.0), _run(1.0, 0.5, 0.5))
    assert [c.dropped for c in drift.scores] == [False] * len(drift.scores)
    assert _change(drift.scores, None).delta == 0.375
    report = render_markdown(build_pack(_run(1.0, 1.0, 1.0), baseline=_run(1.0, 0.5, 0.5)))
    assert "Dropped since the baseline" not in report
    assert "| trajectory | all | tool accuracy | 0.625 | 1.000 | +0.375 |" in report


def test_faithfulness_is_compared_where_both_measured_it() -> None:
    drift = compare(_run(1.0, 1.0, 1.0), _run(1.0, 1.0, 1.0))
    assert _change(drift.scores, "en", "faithfulness").delta == 0.0
    # Spanish asks were never scored for faithfulness: nothing to compare, nothing listed.
    assert [c for c in drift.scores if c.language == "es" and c.score == "faithfulness"] == []


def _without_scores(results: Results) -> Results:
    """`results` as a file before format 5 reads: no ask has scores."""
    return results.model_copy(
        update={
            "schema_version": 4,
            "cases": tuple(
                case.model_copy(
                    update={
                        "trials": tuple(t.model_copy(update={"scores": None}) for t in case.trials)
                    }
                )
                for case in results.cases
            ),
        }
    )


def test_a_baseline_without_scores_was_not_measured_never_a_drop() -> None:
    drift = compare(fx.trajectory(), _without_scores(fx.trajectory()))
    assert drift.scores
    assert all(c.baseline is None and c.delta is None and not c.dropped for c in drift.scores)
    report = render_markdown(build_pack(fx.trajectory(), baseline=_without_scores(fx.trajectory())))
    assert "| trajectory | all | tool accuracy | not measured in the baseline | 0.792 | n/a |" in (
        report
    )
    assert "Dropped since the baseline" not in report


def test_a_baseline_without_the_gate_was_not_measured() -> None:
    drift = compare(fx.trajectory(), fx.classic())
    assert {c.gate for c in drift.scores} == {GateName.TRAJECTORY}
    assert all(c.baseline is None for c in drift.scores)


def test_a_run_that_lost_its_scores_says_so() -> None:
    drift = compare(_without_scores(fx.trajectory()), fx.trajectory())
    assert all(c.current is None and not c.dropped for c in drift.scores)
    assert "| trajectory | all | tool accuracy | 0.792 | not measured | n/a |" in render_markdown(
        build_pack(_without_scores(fx.trajectory()), baseline=fx.trajectory())
    )


def test_runs_without_scores_have_no_score_drift() -> None:
    assert compare(fx.classic(), fx.classic()).scores == ()
    report = render_markdown(build_pack(fx.classic(), baseline=fx.classic()))
    assert "Tool accuracy and faithfulness" not in report


def test_trajectory_is_competence_and_adversarial_stays_safety() -> None:
    assert GateName.TRAJECTORY in COMPETENCE_GATES and GateName.TRAJECTORY not in SAFETY_GATES
    assert GateName.ADVERSARIAL in SAFETY_GATES
    assert set(GateName) == COMPETENCE_GATES | SAFETY_GATES
    assert not COMPETENCE_GATES & SAFETY_GATES


def _all_passing(results: Results) -> Results:
    return results.model_copy(
        update={
            "cases": tuple(
                case.model_copy(
                    update={
                        "outcome": Outcome.PASSED,
                        "reason": "",
                        "passes": case.repeats,
                        "trials": tuple(
                            t.model_copy(update={"outcome": Outcome.PASSED, "reason": ""})
                            for t in case.trials
                        ),
                    }
                )
                for case in results.cases
            )
        }
    )


def test_a_trajectory_case_newly_failing_is_a_competence_regression() -> None:
    # The forbidden call (adversarial) and the failed tasks (trajectory) fail the same run.
    drift = compare(fx.trajectory(), _all_passing(fx.trajectory()))
    assert {c.gate for c in drift.newly_failing} == {GateName.ADVERSARIAL, GateName.TRAJECTORY}
    assert (drift.safety, drift.competence) == (Direction.REGRESSED, Direction.REGRESSED)
    current, passing = fx.trajectory(), _all_passing(fx.trajectory())
    tasks_passed = current.model_copy(
        update={
            "cases": tuple(
                was if was.gate is GateName.TRAJECTORY else now
                for now, was in zip(current.cases, passing.cases, strict=True)
            )
        }
    )
    only_trajectory = compare(current, tasks_passed)
    assert (only_trajectory.safety, only_trajectory.competence) == (
        Direction.UNCHANGED,
        Direction.REGRESSED,
    )
    report = render_markdown(build_pack(fx.trajectory(), baseline=fx.clean()))
    assert "- **Competence** (grounding, false_positive, golden, trajectory):" in report
    assert "- **Safety** (adversarial, refusal, disclosure):" in report
