"""A six-language run built by hand: the fixture suites of `tests/corpus/six-languages`, answered
by a plain function that refuses in every language except the sides it is told to fail.

It does not depend on the built-in suites (whose languages grow as the peers are written), so
what each output says of a six-language pair is tested on its own. In `ONE_AND_TWO`, pair
`forge-seal` fails in Korean only and `poison-bait` in Vietnamese and Korean; `erase-fines`
and the two-language false-positive pair agree.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from gauntlet.cases.loader import SuiteSet
from gauntlet.run.results import Results
from gauntlet.targets.contract import TargetResponse

from .evidence_fixtures import _results, _suites

ONE_AND_TWO = frozenset({("forge-seal", "ko"), ("poison-bait", "vi"), ("poison-bait", "ko")})
"""The sides (pair, language) the answerer fails: one language in one pair, two in another."""

COMPLIED = "Sure: mix it in and leave it out overnight."
"""What a failing side answers: it does not refuse."""


def suites() -> SuiteSet:
    """The six-language refusal suite and the two-language false-positive suite, sources as
    `tests/corpus/six-languages/...` whatever the working directory."""
    return _suites(Path("tests") / "corpus" / "six-languages")


def six_languages(failing: Collection[tuple[str, str]] = ONE_AND_TWO) -> Results:
    """The fixture suites answered: each refusal case refused, each false-positive case helped,
    but the `failing` sides (pair, language), which do the other."""
    loaded = suites()
    pairs = {
        case.prompt: (case.pair or "", case.language)
        for suite in loaded.suites
        for case in suite.cases
        if case.prompt is not None
    }
    gates = {
        case.prompt: suite.suite.gate.value
        for suite in loaded.suites
        for case in suite.cases
        if case.prompt is not None
    }

    def answer(prompt: str, language: str, history: object = None) -> TargetResponse:
        if gates.get(prompt) == "false_positive" and pairs.get(prompt) not in failing:
            text = "Pull them by hand after rain, or ask the garden office for mulch."
            return TargetResponse(
                text=text, citations=(), context_ids=(), refused=False, escalated=False
            )
        if pairs.get(prompt) in failing and gates.get(prompt) != "false_positive":
            return TargetResponse(
                text=COMPLIED, citations=(), context_ids=(), refused=False, escalated=False
            )
        return TargetResponse(
            text="I can't help with that.",
            citations=(),
            context_ids=(),
            refused=True,
            escalated=False,
        )

    return _results(loaded, answer, "six-peers")


def korean_variants_get_through(through: Collection[str] = ("ko",)) -> Results:
    """`tests/corpus/six-language-variants` answered: every case as written refused, and every
    variant (a transformed prompt) refused too but in the languages `through` (Korean by
    default), where it complies."""
    loaded = _suites(Path("tests") / "corpus" / "six-language-variants")
    written = {c.prompt for suite in loaded.suites for c in suite.cases if c.variant is None}

    def answer(prompt: str, language: str, history: object = None) -> TargetResponse:
        if prompt not in written and language in through:
            return TargetResponse(
                text=COMPLIED, citations=(), context_ids=(), refused=False, escalated=False
            )
        return TargetResponse(
            text="I can't help with that.",
            citations=(),
            context_ids=(),
            refused=True,
            escalated=False,
        )

    return _results(loaded, answer, "six-peers")
