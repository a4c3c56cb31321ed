"""The verdict precedence, 2 > 4 > 1 > 0, decided in one place and tested as a table."""

from __future__ import annotations

import itertools

import pytest

from gauntlet.cases.model import GateName
from gauntlet.errors import ExitCode
from gauntlet.run.results import Verdict, exit_code_for
from gauntlet.run.tally import VerdictGrounds, decide_verdict

# (errored cases, unreadable answers without a capability suite, a gate failed) -> exit code
TABLE = {
    (False, False, False): ExitCode.PASS,
    (False, False, True): ExitCode.GATE_FAILED,
    (False, True, False): ExitCode.UNSCOREABLE,
    (False, True, True): ExitCode.UNSCOREABLE,
    (True, False, False): ExitCode.HARNESS_ERROR,
    (True, False, True): ExitCode.HARNESS_ERROR,
    (True, True, False): ExitCode.HARNESS_ERROR,
    (True, True, True): ExitCode.HARNESS_ERROR,
}


def test_the_table_covers_every_combination() -> None:
    assert set(TABLE) == set(itertools.product([False, True], repeat=3))


@pytest.mark.parametrize(("condition", "code"), sorted(TABLE.items()))
def test_precedence(condition: tuple[bool, bool, bool], code: ExitCode) -> None:
    errored, unscoreable, failed = condition
    verdict, reason = decide_verdict(
        VerdictGrounds(
            errored=3 if errored else 0,
            unreadable=2 if unscoreable else 0,
            capability_scored=False,
            failed_gates=[GateName.ADVERSARIAL] if failed else [],
        )
    )
    assert exit_code_for(verdict) is code
    assert reason


def test_unreadable_answers_are_scoreable_when_a_capability_suite_ran() -> None:
    # The trap: silence must fail a capability suite (exit 1), not make the run unscoreable.
    verdict, _ = decide_verdict(
        VerdictGrounds(
            errored=0, unreadable=5, capability_scored=True, failed_gates=[GateName.FALSE_POSITIVE]
        )
    )
    assert verdict is Verdict.FAIL


def test_reasons_say_why() -> None:
    assert decide_verdict(
        VerdictGrounds(errored=1, unreadable=0, capability_scored=True, failed_gates=[])
    ) == (
        Verdict.WITHHELD,
        "1 case got no answer, so no verdict",
    )
    assert decide_verdict(
        VerdictGrounds(
            errored=0, unreadable=0, capability_scored=True, failed_gates=[GateName.GOLDEN]
        )
    ) == (Verdict.FAIL, "1 gate failed: golden")


@pytest.mark.parametrize("verdict", list(Verdict))
def test_every_verdict_has_an_exit_code(verdict: Verdict) -> None:
    assert exit_code_for(verdict) in set(ExitCode)
