"""Scoring repeated asks: pass_k, flakiness, and the Wilson interval of a gate's pass rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.cases.loader import load_suites
from gauntlet.errors import UsageError
from gauntlet.proportions import wilson_interval
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Outcome, Results, TargetInfo
from gauntlet.run.schedule import schedule
from gauntlet.targets.contract import TargetResponse

from ...run_settings import settings_for
from ..cases.suite_text import grounding_suite

INFO = TargetInfo(kind="callable", name="test")


def _score_test_bounds(
    passed: int, total: int, z: float = 1.959963984540054
) -> tuple[float, float]:
    """A reference computed another way: the Wilson interval is every p the score test
    accepts, |p_hat - p| <= z * sqrt(p (1 - p) / n); find its two ends by bisection."""
    p_hat = passed / total

    def accepts(p: float) -> bool:
        return (p_hat - p) ** 2 <= z * z * p * (1 - p) / total

    def edge(inside: float, outside: float) -> float:
        for _ in range(200):
            middle = (inside + outside) / 2
            inside, outside = (middle, outside) if accepts(middle) else (inside, middle)
        return inside

    low = 0.0 if accepts(0.0) else edge(p_hat, 0.0)
    high = 1.0 if accepts(1.0) else edge(p_hat, 1.0)
    return low, high


@pytest.mark.parametrize(
    "counts", [(12, 12), (0, 10), (5, 10), (4, 5), (1, 1), (37, 40), (199, 200), (3, 1000)]
)
def test_wilson_matches_a_reference_computation(counts: tuple[int, int]) -> None:
    low, high = wilson_interval(*counts)
    reference = _score_test_bounds(*counts)
    assert low == pytest.approx(reference[0], abs=2e-6)
    assert high == pytest.approx(reference[1], abs=2e-6)


def test_twelve_of_twelve_still_leaves_room() -> None:
    # The point of reporting it: 12/12 says the true rate is likely above about 76%, not 100%.
    low, high = wilson_interval(12, 12)
    assert (round(low, 2), high) == (0.76, 1.0)


def test_wilson_of_nothing_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


class EveryThird:
    """Gives an uncited answer on every third ask of the same prompt."""

    name = "every-third"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def ask(self, prompt: str, language: str) -> TargetResponse:
        self.calls[prompt] = self.calls.get(prompt, 0) + 1
        cited = () if self.calls[prompt] % 3 == 0 else ("D1",)
        return TargetResponse(
            text="About it.", citations=cited, context_ids=("D1",), refused=False, escalated=False
        )


def _run(tmp_path: Path, repeat: int, extra: str = "") -> Results:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c1", "c2", extra=extra, ask_ids=True))
    suites = load_suites([tmp_path])
    return run_gauntlet(
        suites,
        EveryThird(),
        settings_for(
            suites, TargetInfo(kind="callable", name="every-third"), repeat=repeat, concurrency=1
        ),
    )


def test_one_ask_misses_what_five_asks_catch(tmp_path: Path) -> None:
    once = _run(tmp_path, 1)
    assert [case.outcome for case in once.cases] == [Outcome.PASSED, Outcome.PASSED]
    five = _run(tmp_path, 5)
    case = five.cases[0]
    assert (case.outcome, case.passes, case.repeats, case.flaky) == (Outcome.FAILED, 4, 5, True)
    assert case.reason.startswith("passed 4/5 asks, needs 5; ask 3: uncited answer")
    assert len(case.trials) == 5
    assert [t.outcome for t in case.trials].count(Outcome.FAILED) == 1


def test_pass_k_lets_a_suite_accept_m_of_k(tmp_path: Path) -> None:
    results = _run(tmp_path, 1, extra="repeat: 5\npass_k: 4\n")
    case = results.cases[0]
    assert (case.outcome, case.passes, case.repeats, case.pass_k, case.flaky) == (
        Outcome.PASSED,
        4,
        5,
        4,
        True,
    )


def test_a_suite_repeat_raises_the_command_lines_never_lowers_it(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite(extra="repeat: 2\n"))
    suites = load_suites([tmp_path])
    assert schedule(suites, repeat=1).items[0].info.repeat == 2
    assert schedule(suites, repeat=3).items[0].info.repeat == 3


def test_pass_k_above_the_asks_is_refused_at_plan_time(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(grounding_suite(extra="pass_k: 3\n"))
    with pytest.raises(UsageError, match="pass_k 3 is more than the 1 asks"):
        schedule(load_suites([tmp_path]), repeat=1)
    assert schedule(load_suites([tmp_path]), repeat=3).items[0].info.pass_k == 3


def test_the_gate_carries_its_wilson_interval(tmp_path: Path) -> None:
    results = _run(tmp_path, 1)
    [gate] = results.gates
    assert (gate.wilson_low, gate.wilson_high) == wilson_interval(2, 2)


def test_a_quoted_answer_is_masked_before_it_is_cut(tmp_path: Path) -> None:
    """A secret straddling the 200-character cut of a quoted answer leaves no part behind."""
    secret = "tok-5f1c9e27b3d84a60"  # noqa: S105 - a test value

    class Leaky:
        name = "leaky"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            return TargetResponse(
                text="x" * 190 + secret, citations=(), context_ids=(), refused=False,
                escalated=False,
            )  # fmt: skip

    (tmp_path / "s.yaml").write_text(
        "suite: s\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1.0\ncases:\n"
        "  - id: g1\n    language: en\n    prompt: Hi\n    expected: Hello\n"
    )
    from gauntlet.redact import Redactor

    suites = load_suites([tmp_path])
    results = run_gauntlet(suites, Leaky(), settings_for(suites, INFO, redactor=Redactor([secret])))
    [case] = results.cases
    assert case.outcome is Outcome.FAILED
    assert "tok-5f" not in case.reason and "[REDACTED]" in case.reason
