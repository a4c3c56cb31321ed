"""The report's Trends section: the reported run judged against a stored history."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.cli.report_command import _report_trends
from gauntlet.evidence.pack import build_pack, pack_json, read_pack_json
from gauntlet.evidence.trends import Family
from gauntlet.history.records import History
from gauntlet.history.stats import TrendRule
from gauntlet.history.store import append_run
from gauntlet.history.trends import report_trends, trends_evidence, with_run
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results_file import write_results

from ... import evidence_fixtures as fx
from ... import trend_fixtures as tf
from ...cli_helpers import RunCli, run_cli  # noqa: F401 - a fixture

FAMILIES = list(Family)


def test_a_regressed_run_is_flagged_against_its_healthy_history() -> None:
    trends = report_trends(
        tf.regressed(),
        Path("history.sqlite"),
        load_history=lambda path: tf.healthy_history(),
        records_of=tf.slow_records_of,
    )
    assert trends.added
    assert trends.comparable_runs == 10
    flagged = trends.flagged
    assert {(t.metric, t.gate) for t in flagged} >= {
        ("pass_rate", "grounding"),
        ("latency_p50_ms", None),
        ("latency_p95_ms", None),
    }
    # flagged first, then safety before competence before cost within each part
    assert list(trends.trends[: len(flagged)]) == list(flagged)
    ranks = [FAMILIES.index(t.family) for t in flagged]
    assert ranks == sorted(ranks)
    grounding = next(
        t for t in flagged if (t.metric, t.gate, t.language) == ("pass_rate", "grounding", None)
    )
    assert grounding.rule.startswith("flat history: ")
    assert grounding.history == (1.0,) * 10
    # ten clean asks before: q = 0.5 / 11, so one failed ask of one has p = 0.0455 < 0.05
    assert trends.case_regressions
    assert all(found.flagged for found in trends.case_regressions)
    assert {found.p_value for found in trends.case_regressions} == {0.0454545}
    assert all(found.gate == "grounding" for found in trends.case_regressions)


def test_a_healthy_run_flags_nothing_and_says_so() -> None:
    trends = report_trends(
        fx.clean(),
        Path("history.sqlite"),
        load_history=lambda path: tf.healthy_history(),
        records_of=lambda results, labels: tf.records_of(results, labels, latency=100.0),
    )
    assert trends.flagged == ()
    assert trends.case_regressions == ()
    text = render_markdown(build_pack(fx.clean(), trends=trends))
    assert "## Trends" in text
    assert "Nothing flagged: no pass rate, latency or token figure moved past its rule" in text
    assert "### Flagged" not in text
    assert "### Not flagged" in text


def test_a_stored_run_is_judged_as_stored_and_not_added_again() -> None:
    history = tf.healthy_history()
    latest = history.runs[-1]
    same, added = with_run(history, latest, ())
    assert (same, added) == (history, False)
    trends = trends_evidence(history, latest.key, path="h.sqlite")
    assert not trends.added
    assert trends.comparable_runs == 9
    assert "added for this report" not in render_markdown(build_pack(fx.clean(), trends=trends))


def test_an_added_run_takes_its_place_by_start_time() -> None:
    history = tf.healthy_history()
    first, *rest = history.runs
    shorter = History(
        runs=tuple(rest), cases=tuple(c for c in history.cases if c.run_key != first.key)
    )
    cases = tuple(c for c in history.cases if c.run_key == first.key)
    grown, added = with_run(shorter, first, cases)
    assert added
    assert grown.runs == history.runs
    assert trends_evidence(grown, first.key, path="h").comparable_runs == 0


def test_the_window_threshold_and_label_reach_the_statistics() -> None:
    trends = report_trends(
        tf.regressed(),
        Path("h.sqlite"),
        load_history=lambda path: tf.healthy_history({"branch": "main"}),
        records_of=lambda results, labels: tf.records_of(results, {"branch": "feature"}),
        rule=TrendRule(window=5, threshold=-3.0, compare_on="branch"),
    )
    assert (trends.window, trends.threshold, trends.compare_on) == (5, -3.0, "branch")
    assert trends.comparable_runs == 0
    assert trends.flagged == ()
    assert {t.rule for t in trends.trends} == {
        "not enough history: 0 comparable runs, 3 needed",
        "no value in this run: no case counted for it",  # the toy reports no tokens
    }
    same_branch = report_trends(
        tf.regressed(),
        Path("h.sqlite"),
        load_history=lambda path: tf.healthy_history({"branch": "main"}),
        records_of=lambda results, labels: tf.records_of(results, {"branch": "main"}),
        rule=TrendRule(window=5, compare_on="branch"),
    )
    assert same_branch.comparable_runs == 5
    assert all(len(t.history) <= 5 for t in same_branch.trends)
    assert same_branch.flagged
    text = render_markdown(build_pack(tf.regressed(), trends=trends))
    assert "the same `branch` label" in text
    assert "flagged at z <= -3, latency and tokens per case at z >= 3" in text


def test_the_section_survives_the_json_round_trip() -> None:
    pack = build_pack(tf.regressed(), trends=tf.regressed_trends())
    assert read_pack_json(pack_json(pack)) == pack
    assert build_pack(fx.clean()).trends is None
    assert "## Trends" not in render_markdown(build_pack(fx.clean()))


def _stored(path: Path, hours: int = 10) -> Path:
    """A real history file: the healthy toy's run, stored `hours` times an hour apart."""
    for hour in range(hours, 0, -1):
        append_run(path, tf.earlier(fx.clean(), hour), {"branch": "main"})
    return path


def test_the_cli_glue_reads_the_store(tmp_path: Path) -> None:
    history = _stored(tmp_path / "history.sqlite")
    trends = _report_trends(tf.regressed(), history, 4, -2.0, None)
    assert trends is not None
    assert (trends.window, trends.threshold, trends.history) == (4, -2.0, str(history))
    flagged = [trend for trend in trends.flagged if trend.metric == "pass_rate"]
    assert any(trend.gate == "grounding" for trend in flagged)
    assert _report_trends(tf.regressed(), None, None, None, None) is None


@pytest.mark.parametrize(
    ("history", "window", "z", "label", "message"),
    [
        (None, 3, None, None, "--window needs --history FILE"),
        (None, None, -2.0, "branch", "--z, --compare-on needs --history FILE"),
        ("h", 0, None, None, "--window 0: must be at least 1"),
        ("h", None, 0.5, None, "--z 0.5: must be a finite number below 0"),
        ("h", None, None, " ", "--compare-on: a label name is needed"),
        ("absent", None, None, None, "no such file"),
    ],
)
def test_the_cli_glue_refuses_bad_options(  # one row of the table
    tmp_path: Path,
    history: str | None,
    window: int | None,
    z: float | None,
    label: str | None,
    message: str,
) -> None:
    (tmp_path / "h").write_bytes(b"")
    path = None if history is None else tmp_path / history
    with pytest.raises(Exception, match=message) as raised:
        _report_trends(fx.clean(), path, window, z, label)
    assert type(raised.value).__name__ == "UsageError"


def test_report_with_history_writes_the_trends_section(
    run_cli: RunCli,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    results, history = tmp_path / "results.json", _stored(tmp_path / "history.sqlite")
    write_results(tf.regressed(), results)
    done = run_cli("report", results, "--history", history, "--window", "20", "--z", "-1.5")
    assert done.code == 0, done.show()
    assert "## Trends" in done.stdout
    assert "### Flagged" in done.stdout
    assert "### Case regressions" in done.stdout
    refused = run_cli("report", results, "--history", history, "--z", "1")
    assert refused.code == 2, refused.show()
    assert "--z 1: must be a finite number below 0" in refused.stderr


def test_the_section_shows_only_the_parts_it_has() -> None:
    trends = tf.regressed_trends()
    only_flagged = trends.model_copy(update={"trends": trends.flagged})
    text = render_markdown(build_pack(tf.regressed(), trends=only_flagged))
    assert "### Flagged (10)" in text  # the gate, its six languages, the suite, p50, p95
    assert "### Not flagged" not in text
    unflagged = trends.model_copy(
        update={
            "trends": tuple(t.model_copy(update={"flagged": False}) for t in trends.trends),
            "case_regressions": tuple(
                r.model_copy(update={"flagged": False}) for r in trends.case_regressions
            ),
        }
    )
    text = render_markdown(build_pack(tf.regressed(), trends=unflagged))
    assert "### Case regressions (0 flagged)" in text
    assert "| 1/1 | 10/10 | 0.0455 | no |" in text
    assert "Nothing flagged" in text
