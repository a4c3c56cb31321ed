"""Progress: a bar on a terminal, periodic plain lines in a CI log, nothing when quiet."""

from __future__ import annotations

import io

from rich.console import Console

from gauntlet.render.console import ProgressDisplay


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _plain() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=80), out


def test_a_ci_log_gets_a_line_every_period_and_no_more() -> None:
    console, out = _plain()
    clock = Clock()
    with ProgressDisplay(console, every=10, clock=clock) as progress:
        for done in range(1, 101):
            clock.now = done * 0.5  # 50 s in all
            progress(done, 100)
    assert out.getvalue().splitlines() == [
        "asked 20/100 cases",
        "asked 40/100 cases",
        "asked 60/100 cases",
        "asked 80/100 cases",
        "asked 100/100 cases",
    ]


def test_a_short_run_prints_nothing() -> None:
    console, out = _plain()
    with ProgressDisplay(console, clock=Clock()) as progress:
        progress(1, 2)
        progress(2, 2)
    assert out.getvalue() == ""


def test_quiet_prints_nothing_even_on_a_terminal() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    with ProgressDisplay(console, quiet=True, clock=Clock()) as progress:
        progress(1, 1)
    assert out.getvalue() == ""


def test_a_terminal_gets_a_bar_that_leaves_no_trace() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    with ProgressDisplay(console, clock=Clock()) as progress:
        progress(1, 2)
        progress(2, 2)
    assert "asking" in out.getvalue()  # the bar was drawn
    assert "asked 2/2 cases" not in out.getvalue()  # and no plain line
