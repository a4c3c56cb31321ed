"""Trajectories in the renderings: a table per failing case that hostile tool output cannot
break, the distributions per gate, the JUnit failure text and the console's one line."""

from __future__ import annotations

import re

from junitparser import JUnitXml

from gauntlet.display import printable
from gauntlet.evidence.pack import build_pack
from gauntlet.gates.judgement import TrajectoryScores
from gauntlet.redact import MASK, Redactor
from gauntlet.render.console import summary_lines
from gauntlet.render.junit import render_junit
from gauntlet.render.markdown import render_markdown
from gauntlet.targets.contract import ToolCall

from ... import evidence_fixtures as fx

PAY = "trj-en-pay-ticket"


def _table(report: str, case_id: str) -> list[str]:
    """The lines of the trajectory table under `case_id`'s heading."""
    lines = report.split("\n")
    start = next(n for n, line in enumerate(lines) if line.startswith(f"Tool calls of `{case_id}`"))
    end = lines.index("", start + 2)
    return lines[start + 2 : end]


def test_the_table_under_a_failing_case_marks_the_step_that_went_wrong() -> None:
    report = render_markdown(build_pack(fx.trajectory()))
    assert (
        "Tool calls of `trj-en-pay-ticket` (ask 1): 2 calls; tool accuracy 0.500; "
        "faithfulness 0.000; went wrong at step 2."
    ) in report
    assert _table(report, PAY) == [
        "| step | tool | arguments | output | error |",
        "|---|---|---|---|---|",
        '| 1 | lookup\\_ticket | {"ticket":"PT-77"} '
        '| {"amount":45,"notice":"Pay at window 3 \\| or online\\\\nby 2026-12-15"} |  |',
        '| **2 ← went wrong** | pay\\_ticket | {"amount":54,"ticket":"PT-77"} '
        "|  | the amount does not match the ticket |",
    ]


def test_parallel_calls_are_counted_in_steps() -> None:
    report = render_markdown(build_pack(fx.trajectory()))
    assert (
        "Tool calls of `trj-es-multa-y-permiso` (ask 1): 3 calls in 2 steps; tool accuracy "
        "0.667; faithfulness 0.500; went wrong at step 2."
    ) in report
    steps = [row.split(" | ")[0] for row in _table(report, "trj-es-multa-y-permiso")[2:]]
    assert steps == ["| 1", "| 1", "| **2 ← went wrong**"]


def test_a_trajectory_that_stopped_short_or_was_not_reported_says_so() -> None:
    short = fx.with_calls(
        fx.trajectory(),
        PAY,
        (ToolCall(id="a", name="lookup_ticket", arguments={}),),
        TrajectoryScores(tool_accuracy=0.5, departed_at=1),
    )
    assert "it stopped after step 1, before making the calls expected" in render_markdown(
        build_pack(short)
    )
    unreported = render_markdown(build_pack(fx.with_calls(fx.trajectory(), PAY, None)))
    assert (
        "Tool calls of `trj-en-pay-ticket` (ask 1): the target did not report its tool calls."
        in (unreported)
    )


SECRET = "sk-live-0123456789abcdef"  # noqa: S105 - a made-up secret, to be masked
HOSTILE = (
    "ok |---|---|\n| forged | row |\r\n back\\|slash <img src=x onerror=alert(1)> <b>bold</b> "
    "\x1b[2J\x07\u202eevil\u2066 ![x](http://e.test) `code` @everyone *em* " + SECRET
)


def _hostile_pack() -> str:
    calls = (
        ToolCall(
            id="h",
            name="fetch |\n<i>",
            arguments={"q": HOSTILE},
            output={"body": HOSTILE},
            error=HOSTILE,
        ),
        ToolCall(id="t", name="fetch", arguments={}, output=HOSTILE, step=None),
    )
    # A run masks every text of a case once the gates have judged it.
    results = Redactor([SECRET]).model(fx.with_calls(fx.trajectory(), PAY, calls))
    return render_markdown(build_pack(results))


def test_hostile_tool_output_cannot_break_the_table() -> None:
    report = _hostile_pack()
    rows = _table(report, PAY)
    assert len(rows) == 4  # header, rule, two calls: no forged row, no line break
    for row in rows[2:]:
        # Exactly the table's six pipes: every other one escaped (a backslash escapes the
        # character after it, itself included, as GitHub reads a table row).
        assert re.sub(r"\\.", "", row).count("|") == 6, row
        assert "<img" not in row and "<b>" not in row and "<i>" not in row
        assert "@everyone" not in row
        assert "![x]" not in row and "`code`" not in row
        assert printable(row) == row  # no control, separator or bidi character


def test_a_secret_in_a_tool_call_is_masked_in_every_rendering() -> None:
    calls = (ToolCall(id="h", name="fetch", arguments={"key": SECRET}, output=SECRET),)
    results = Redactor([SECRET]).model(fx.with_calls(fx.trajectory(), PAY, calls))
    pack = build_pack(results)
    report, junit = render_markdown(pack), render_junit(pack)
    assert SECRET not in report and SECRET not in junit
    assert '| fetch | {"key":"\\[REDACTED\\]"} | \\[REDACTED\\] |  |' in report
    assert f'  step 1: fetch {{"key":"{MASK}"}} -&gt; {MASK}' in junit


def test_the_distributions_are_rendered_per_gate_and_language() -> None:
    report = render_markdown(build_pack(fx.trajectory()))
    assert "## Tool accuracy and faithfulness" in report
    assert (
        "| trajectory | **all** | tool accuracy | 4 of 4 asks | 0.500 | 0.833 | 0.792 | 50% |"
        in (report)
    )
    assert (
        "| trajectory | es | faithfulness | 2 of 2 asks | 0.500 | 0.750 | 0.750 | 50% |" in report
    )
    assert (
        "| adversarial |"
        not in report.split("## Tool accuracy and faithfulness")[1].split("## Suites")[0]
    )


def test_a_report_without_scores_has_no_distribution_section() -> None:
    assert "Tool accuracy and faithfulness" not in render_markdown(build_pack(fx.classic()))


def test_junit_failure_text_carries_the_trajectory() -> None:
    xml = render_junit(build_pack(fx.trajectory()))
    JUnitXml.fromstring(xml)
    assert (
        "tool calls (ask 1): 2 made; tool accuracy 0.500; faithfulness 0.000; "
        "went wrong at step 2\n"
        '  step 1: lookup_ticket {"ticket":"PT-77"} -&gt; {"amount":45,"notice":"Pay at window 3 '
        '| or online\\nby 2026-12-15"}\n'
        '  step 2: pay_ticket {"amount":54,"ticket":"PT-77"} error: the amount does not match '
        "the ticket  &lt;- went wrong here</failure>"
    ) in xml


def test_junit_survives_hostile_tool_output() -> None:
    calls = (ToolCall(id="h", name="fetch", arguments={"q": HOSTILE}, output=HOSTILE),)
    xml = render_junit(build_pack(fx.with_calls(fx.trajectory(), PAY, calls)))
    JUnitXml.fromstring(xml)
    assert all(printable(line) == line for line in xml.split("\n"))


def test_the_console_shows_tool_accuracy_in_one_line() -> None:
    lines = [line.plain for line in summary_lines(fx.trajectory())]
    assert (
        "trajectory tool accuracy: mean 0.79, min 0.50, 2 of 4 asks at 1.0 (en 0.75, es 0.83)"
    ) in lines
    assert not any(
        "tool accuracy" in line for line in [x.plain for x in summary_lines(fx.classic())]
    )


def test_a_long_trajectory_says_how_many_calls_each_side_are_not_shown() -> None:
    calls = tuple(ToolCall(id=f"c{n}", name=f"tool_{n}", arguments={}) for n in range(100))
    results = fx.with_calls(fx.trajectory(), PAY, calls, TrajectoryScores(departed_at=60))
    pack = build_pack(results)
    rows = _table(render_markdown(pack), PAY)
    assert rows[2] == "| … | 40 earlier calls not shown |  |  |  |"
    assert rows[-1] == "| … | 20 later calls not shown |  |  |  |"
    assert "| **61 ← went wrong** | tool\\_60 | {} | *(not reported)* |  |" in rows
    junit = render_junit(pack)
    assert "  ... 40 earlier calls not shown\n  step 41: tool_40 {}\n" in junit
    assert "  step 61: tool_60 {}  &lt;- went wrong here\n" in junit
    assert "  ... 20 later calls not shown</failure>" in junit


def test_calls_without_steps_or_without_a_departure_are_described_as_they_are() -> None:
    mixed = (
        ToolCall(id="a", name="one", arguments={}, step=0),
        ToolCall(id="b", name="two", arguments={}),
    )
    report = render_markdown(build_pack(fx.with_calls(fx.trajectory(), PAY, mixed)))
    assert "(ask 1): 2 calls, which cannot be read as steps." in report
    assert _table(report, PAY)[2].startswith("| ? | one |")
    one = (ToolCall(id="a", name="one", arguments={}),)
    scored = TrajectoryScores(tool_accuracy=1.0)
    report = render_markdown(build_pack(fx.with_calls(fx.trajectory(), PAY, one, scored)))
    assert (
        "(ask 1): 1 call; tool accuracy 1.000; no check of the calls failed: the answer did."
    ) in report
    none = render_markdown(build_pack(fx.with_calls(fx.trajectory(), PAY, ())))
    assert "Tool calls of `trj-en-pay-ticket` (ask 1): 0 calls; no check of the calls " in none
    # No table: the next case's trajectory follows at once.
    after = none.split("Tool calls of `trj-en-pay-ticket`")[1].split("\n")
    assert after[1:3] == ["", after[2]]
    assert after[2].startswith("Tool calls of `trj-es-multa-y-permiso`")


def test_junit_says_when_the_calls_were_not_reported() -> None:
    junit = render_junit(build_pack(fx.with_calls(fx.trajectory(), PAY, None)))
    assert "tool calls (ask 1): not reported by the target</failure>" in junit
