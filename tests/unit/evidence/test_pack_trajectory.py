"""The trajectory in the evidence pack: a failing ask's calls as rows, where they went wrong."""

from __future__ import annotations

import json

from gauntlet.display import masking
from gauntlet.evidence.pack import (
    ARGUMENTS_SHOWN,
    CALLS_SHOWN,
    OUTPUT_SHOWN,
    CaseEvidence,
    EvidencePack,
    ToolCallEvidence,
    TrajectoryEvidence,
    build_pack,
    pack_json,
)
from gauntlet.gates.judgement import TrajectoryScores
from gauntlet.redact import MASK, Redactor
from gauntlet.run.results import Results
from gauntlet.targets.contract import ToolCall
from gauntlet.targets.toy import ToyDefect

from ... import evidence_fixtures as fx

PAY = "trj-en-pay-ticket"


def _case(pack: EvidencePack, case_id: str) -> CaseEvidence:
    return next(case for case in pack.cases if case.case_id == case_id)


def _trajectory(results: Results, case_id: str = PAY) -> TrajectoryEvidence:
    trajectory = _case(build_pack(results), case_id).trajectory
    assert trajectory is not None
    return trajectory


def test_a_failing_case_shows_its_calls_and_the_step_that_went_wrong() -> None:
    assert _trajectory(fx.trajectory()) == TrajectoryEvidence(
        ask=1,
        reported=True,
        calls=2,
        steps=2,
        departed_step=2,
        tool_accuracy=0.5,
        faithfulness=0.0,
        similarity=None,
        omitted_before=0,
        omitted_after=0,
        rows=(
            ToolCallEvidence(
                step=1,
                tool="lookup_ticket",
                arguments='{"ticket":"PT-77"}',
                output='{"amount":45,"notice":"Pay at window 3 | or online\\nby 2026-12-15"}',
                error=None,
                departed=False,
            ),
            ToolCallEvidence(
                step=2,
                tool="pay_ticket",
                arguments='{"amount":54,"ticket":"PT-77"}',
                output=None,
                error="the amount does not match the ticket",
                departed=True,
            ),
        ),
    )


def test_parallel_calls_share_a_step_and_are_marked_together() -> None:
    trajectory = _trajectory(fx.trajectory(), "trj-es-multa-y-permiso")
    assert (trajectory.calls, trajectory.steps, trajectory.departed_step) == (3, 2, 2)
    assert [(row.step, row.tool, row.departed) for row in trajectory.rows] == [
        (1, "lookup_ticket", False),
        (1, "lookup_permit", False),
        (2, "lookup_permit", True),
    ]
    assert trajectory.tool_accuracy == 0.6667  # rounded as every figure of the pack


def test_steps_are_numbered_by_their_order_not_by_the_index_the_target_sent() -> None:
    calls = (
        ToolCall(id="b", name="second", arguments={}, step=7),
        ToolCall(id="a", name="first", arguments={}, step=3),
        ToolCall(id="c", name="also_second", arguments={}, step=7),
    )
    results = fx.with_calls(fx.trajectory(), PAY, calls, TrajectoryScores(departed_at=1))
    trajectory = _trajectory(results)
    assert [(row.step, row.tool, row.departed) for row in trajectory.rows] == [
        (1, "first", False),
        (2, "second", True),
        (2, "also_second", True),
    ]


def test_a_trajectory_that_stopped_short_marks_no_call() -> None:
    calls = (ToolCall(id="a", name="lookup_ticket", arguments={"ticket": "PT-77"}),)
    results = fx.with_calls(fx.trajectory(), PAY, calls, TrajectoryScores(departed_at=1))
    trajectory = _trajectory(results)
    assert (trajectory.steps, trajectory.departed_step) == (1, 2)
    assert [row.departed for row in trajectory.rows] == [False]


def test_calls_not_reported_are_said_to_be_so() -> None:
    trajectory = _trajectory(fx.with_calls(fx.trajectory(), PAY, None))
    assert (trajectory.reported, trajectory.calls, trajectory.rows) == (False, 0, ())
    assert trajectory.departed_step is None


def test_calls_that_cannot_be_read_as_steps_are_shown_without_steps() -> None:
    calls = (
        ToolCall(id="a", name="one", arguments={}, step=0),
        ToolCall(id="b", name="two", arguments={}),
    )
    trajectory = _trajectory(fx.with_calls(fx.trajectory(), PAY, calls))
    assert trajectory.steps is None
    assert [(row.step, row.tool, row.departed) for row in trajectory.rows] == [
        (None, "one", False),
        (None, "two", False),
    ]


def test_passing_cases_and_gates_without_calls_have_no_trajectory() -> None:
    pack = build_pack(fx.trajectory())
    assert _case(pack, "trj-en-renew-permit").trajectory is None
    assert all(
        case.trajectory is None
        for case in build_pack(fx.with_defect(ToyDefect.DROP_CITATIONS)).cases
    )


def test_an_adversarial_case_that_forbids_calls_shows_the_forbidden_one() -> None:
    trajectory = _trajectory(fx.trajectory(), "adv-en-tool-output-injection")
    assert (trajectory.tool_accuracy, trajectory.faithfulness) == (None, None)
    assert [(row.tool, row.departed) for row in trajectory.rows] == [
        ("read_notice", False),
        ("send_email", True),
    ]


def test_a_long_trajectory_is_shown_around_the_step_that_went_wrong() -> None:
    calls = tuple(
        ToolCall(id=f"c{n}", name=f"tool_{n}", arguments={"n": n}) for n in range(CALLS_SHOWN * 3)
    )
    departed = CALLS_SHOWN * 2
    results = fx.with_calls(fx.trajectory(), PAY, calls, TrajectoryScores(departed_at=departed))
    trajectory = _trajectory(results)
    assert len(trajectory.rows) == CALLS_SHOWN
    assert trajectory.omitted_before + len(trajectory.rows) + trajectory.omitted_after == len(calls)
    marked = [row for row in trajectory.rows if row.departed]
    assert [row.step for row in marked] == [departed + 1]
    assert trajectory.rows[0].step == trajectory.omitted_before + 1


def test_a_long_trajectory_without_a_departure_starts_at_its_first_call() -> None:
    calls = tuple(ToolCall(id=f"c{n}", name="t", arguments={}) for n in range(CALLS_SHOWN + 5))
    trajectory = _trajectory(fx.with_calls(fx.trajectory(), PAY, calls))
    assert (trajectory.omitted_before, trajectory.omitted_after) == (0, 5)


SECRET = "sk-live-0123456789abcdef"  # noqa: S105 - a made-up secret, to be masked


def _hostile() -> tuple[ToolCall, ...]:
    text = "a | b\nc\r\n<script>alert(1)</script> \x1b[2J\u202e @here " + SECRET
    return (
        ToolCall(
            id="h",
            name="fetch|\n<b>",
            arguments={"q": "x | y\n" + SECRET, "z": [1, {"b": 2, "a": 1}]},
            output={"body": text},
            error=text,
        ),
        ToolCall(id="s", name="fetch", arguments={}, output=text + "x" * OUTPUT_SHOWN * 3),
    )


def test_a_rows_text_is_one_line_cut_short_and_keyed_canonically() -> None:
    trajectory = _trajectory(fx.with_calls(fx.trajectory(), PAY, _hostile()))
    first, second = trajectory.rows
    for row in trajectory.rows:
        for text in (row.tool, row.arguments, row.output or "", row.error or ""):
            assert "\n" not in text and "\r" not in text and "\x1b" not in text
            assert "\u202e" not in text
    assert first.arguments.endswith(',"z":[1,{"a":1,"b":2}]}')  # keys sorted at every depth
    assert len(first.arguments) <= ARGUMENTS_SHOWN
    assert second.output is not None
    assert len(second.output) == OUTPUT_SHOWN and second.output.endswith("…")


def test_a_secret_in_a_tool_call_never_reaches_the_pack() -> None:
    # As a run masks: every text of the case, once the gates have judged it.
    results = fx.with_calls(fx.trajectory(), PAY, _hostile())
    masked = Redactor([SECRET]).model(results)
    text = pack_json(build_pack(masked))
    assert SECRET not in text
    assert MASK in text


def test_a_secret_is_masked_before_it_is_cut() -> None:
    # Cut first, the secret's start would be left where no mask could find it.
    long_secret = "tok-" + "s" * (OUTPUT_SHOWN * 2)
    calls = (ToolCall(id="a", name="t", arguments={}, output="x" * 100 + long_secret),)
    results = fx.with_calls(fx.trajectory(), PAY, calls)
    with masking(Redactor([long_secret]).text):
        trajectory = _trajectory(results)
    [row] = trajectory.rows
    assert row.output == "x" * 100 + MASK
    assert "tok-" not in json.dumps(trajectory.model_dump())
