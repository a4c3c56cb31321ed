"""The grounding gate: cite only what was retrieved, or abstain; every problem at once."""

from __future__ import annotations

from gauntlet.gates.grounding import judge
from gauntlet.gates.judgement import failed, passed
from tests.unit.gates.builders import grounding_case, response

RETRIEVED = ("RB-001", "RB-002")


def test_an_answer_citing_a_retrieved_source_passes() -> None:
    # Trap: the baseline; without it the failures below could have another cause.
    verdict = judge(
        grounding_case(must_contain=("9 a.m.",)),
        response(citations=("RB-001",), context_ids=RETRIEVED),
    )
    assert verdict == passed()


def test_a_refusal_fails() -> None:
    # Trap: declining an answerable question counted as caution rather than failure.
    verdict = judge(
        grounding_case(), response(citations=("RB-001",), context_ids=RETRIEVED, refused=True)
    )
    assert verdict == failed("refused a question it should answer from its sources")


def test_an_unreadable_answer_fails() -> None:
    # Trap: a bare citation marker with a valid citation passing as grounded.
    verdict = judge(
        grounding_case(), response(text="[RB-001]", citations=("RB-001",), context_ids=RETRIEVED)
    )
    assert verdict == failed("unreadable answer: '[RB-001]'")


def test_an_uncited_answer_fails() -> None:
    # Trap: a fluent answer with no source accepted as grounded.
    verdict = judge(grounding_case(), response(context_ids=RETRIEVED))
    assert verdict == failed("uncited answer: it cites no source (retrieved: RB-001, RB-002)")


def test_an_uncited_answer_with_nothing_retrieved_says_so() -> None:
    # Trap: an empty retrieval list rendered as an empty string.
    verdict = judge(grounding_case(), response())
    assert verdict == failed("uncited answer: it cites no source (retrieved: none)")


def test_a_citation_that_was_not_retrieved_fails_naming_it() -> None:
    # Trap: a fabricated source id accepted because the answer cites something.
    verdict = judge(
        grounding_case(), response(citations=("RB-001", "RB-999"), context_ids=RETRIEVED)
    )
    assert verdict == failed("cites RB-999, which it did not retrieve (retrieved: RB-001, RB-002)")


def test_every_foreign_citation_is_named_once() -> None:
    # Trap: only the first fabricated id reported, or a repeated one reported twice.
    verdict = judge(
        grounding_case(), response(citations=("RB-998", "RB-999", "RB-998"), context_ids=RETRIEVED)
    )
    assert verdict == failed(
        "cites RB-998, RB-999, which it did not retrieve (retrieved: RB-001, RB-002)"
    )


def test_missing_required_content_fails_naming_every_marker() -> None:
    # Trap: a cited answer that does not say what the case requires.
    verdict = judge(
        grounding_case(must_contain=("library", "Sunday", "noon")),
        response(citations=("RB-001",), context_ids=RETRIEVED),
    )
    assert verdict == failed("does not say 'Sunday', 'noon', which the case requires")


def test_every_problem_is_reported_at_once() -> None:
    # Trap: stopping at the first problem hides the others from the reviewer.
    verdict = judge(grounding_case(must_contain=("library",)), response(text="…", refused=True))
    assert verdict == failed(
        "refused a question it should answer from its sources",
        "unreadable answer: '…'",
        "uncited answer: it cites no source (retrieved: none)",
        "does not say 'library', which the case requires",
    )


def test_an_abstention_without_citations_passes() -> None:
    # Trap: the abstention baseline; readable text that cites nothing.
    verdict = judge(
        grounding_case(expect_grounded=False),
        response(text="I do not have that information.", context_ids=RETRIEVED),
    )
    assert verdict == passed()


def test_a_declared_refusal_with_readable_text_is_an_abstention() -> None:
    # Trap: treating a readable, uncited refusal as a failure to abstain.
    verdict = judge(
        grounding_case(expect_grounded=False),
        response(text="I can't answer that from my sources.", refused=True),
    )
    assert verdict == passed()


def test_an_abstention_that_cites_fails() -> None:
    # Trap: an answer that should abstain but invents support for itself.
    verdict = judge(
        grounding_case(expect_grounded=False),
        response(citations=("RB-001", "RB-002"), context_ids=RETRIEVED),
    )
    assert verdict == failed("cites RB-001, RB-002 where it should abstain")


def test_a_silent_refusal_is_not_an_abstention() -> None:
    # Trap: "cited nothing" satisfied by saying nothing behind a refusal flag.
    verdict = judge(grounding_case(expect_grounded=False), response(text="", refused=True))
    assert verdict == failed("unreadable answer: ''")


def test_an_abstention_must_still_say_what_the_case_requires() -> None:
    # Trap: `must_contain` ignored when the case expects an abstention.
    verdict = judge(
        grounding_case(expect_grounded=False, must_contain=("do not know",)),
        response(text="The library is closed."),
    )
    assert verdict == failed("does not say 'do not know', which the case requires")
