"""Nothing gauntlet ships or emits claims compliance, certification, approval or endorsement.

gauntlet's output is "aligned to" and "informs" California's GenAI risk framework. A claim word
may appear only where its own sentence denies it. Other tests import `find_endorsement_claims`
to check what they render, e.g. the evidence pack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gauntlet.evidence.mapping import render_mapping_markdown

ROOT = Path(__file__).resolve().parents[1]

SCANNED = ("README.md", "docs/**/*.md", "src/**/*.py", "suites/*.yaml")
"""Glob patterns, relative to the repository root, of the files the wording rule covers."""

CLAIM = re.compile(
    r"\b(?:compliant|compliance|certified|certifications?|approved\s+by|endorsed|endorsements?)\b",
    re.IGNORECASE,
)
"""The claim words and phrases, as whole words, in any case."""

DENIAL = re.compile(r"\b(?:not|never|no|nor)\b", re.IGNORECASE)
"""A word that denies a claim word it comes before in the same sentence."""

SENTENCE_BREAK = re.compile(
    r"[.!?](?=\s|$)"  # the end of a sentence
    r"|\n[ \t]*\n"  # a blank line
    r"|\|"  # a Markdown table cell
    r"|\n(?=[ \t]*(?:[-*+>]|\d+\.)[ \t])"  # a new list item or quote
    r"|(?<=[^\w,\s])[ \t]*\n"  # a line ending in neither a word nor a comma (code, headings)
)
"""Where a sentence ends. Lines ending in a word or a comma are prose wrapped over lines."""

EXCERPT = 70
"""Characters of the sentence shown on each side of a claim word."""


def _breaks(text: str) -> tuple[list[int], list[int]]:
    found = list(SENTENCE_BREAK.finditer(text))
    return [m.start() for m in found], [m.end() for m in found]


def find_endorsement_claims(text: str) -> list[str]:
    """Each claim word in `text` that its sentence does not deny, as `line: excerpt`.

    A claim word (`compliant`, `compliance`, `certified`, `certification`, `approved by`,
    `endorsed`, `endorsement`, in any case, as whole words) is denied when a denial word (`not`,
    `never`, `no`, `nor`, as whole words) comes before it in the same sentence. A sentence ends
    at `.`, `!` or `?` before whitespace, at a blank line, at a `|`, before a list item, and at a
    line break unless the line ends in a word or a comma. So "gauntlet is compliant, not slow"
    is a claim, and "It is not compliant,\\ncertified or endorsed" is not.

    Args:
        text: Any text: Markdown, Python source, YAML.

    Returns:
        One `line: excerpt` per undenied claim word, in order; empty when there is none.
    """
    starts, ends = _breaks(text)
    claims = []
    for claim in CLAIM.finditer(text):
        begin = max((end for end in ends if end <= claim.start()), default=0)
        finish = min((start for start in starts if start >= claim.end()), default=len(text))
        if DENIAL.search(text, begin, claim.start()):
            continue
        excerpt = text[max(begin, claim.start() - EXCERPT) : min(finish, claim.end() + EXCERPT)]
        line = text.count("\n", 0, claim.start()) + 1
        claims.append(f"{line}: {' '.join(excerpt.split())}")
    return claims


def _scanned_files() -> Iterator[Path]:
    this_file = Path(__file__).resolve()
    for pattern in SCANNED:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file() and path.resolve() != this_file:
                yield path


def test_no_shipped_file_claims_endorsement() -> None:
    files = list(_scanned_files())
    assert any(path.name == "README.md" for path in files), "the scan found no README"
    offending = [
        f"{path.relative_to(ROOT)}:{claim}"
        for path in files
        for claim in find_endorsement_claims(path.read_text(encoding="utf-8"))
    ]
    if offending:
        pytest.fail(
            "claim words outside a sentence that denies them (say 'aligned to' or 'informs'):\n"
            + "\n".join(offending),
            pytrace=False,
        )


def test_the_rendered_mapping_claims_no_endorsement() -> None:
    assert find_endorsement_claims(render_mapping_markdown()) == []


def test_a_claim_is_caught() -> None:
    assert find_endorsement_claims("gauntlet is compliant with SIMM 5305-F") == [
        "1: gauntlet is compliant with SIMM 5305-F"
    ]


def test_a_denied_claim_passes() -> None:
    assert find_endorsement_claims("gauntlet never claims to be compliant") == []


@pytest.mark.parametrize(
    "text",
    [
        "It is not compliant,\ncertified, approved or endorsed by anyone: the State has not",
        "No gauntlet output is a compliance determination.",
        "It is neither approved nor endorsed by anyone.",
        "Not a certification, and never an endorsement.",
        "Noncompliant, uncertified and compliance_level are other words.",
        "It is approved, by design, for nothing.",
    ],
)
def test_denied_or_other_words_pass(text: str) -> None:
    assert find_endorsement_claims(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "gauntlet is COMPLIANT.",
        "Approved  by the State.",
        "gauntlet is compliant, not slow.",  # the denial comes after the claim
        "This is not a toy. gauntlet is certified.",  # the denial is in another sentence
        "| `not_a_defect` | the answers are compliant |",  # the denial is in another cell
        "- not this one\n- gauntlet is endorsed",  # the denial is in another list item
        'if not ready:\n    status = "compliant"',  # the denial is on another line of code
        "Ready for SIMM 5305-F certifications and endorsements.",
    ],
)
def test_undenied_claims_are_caught(text: str) -> None:
    assert len(find_endorsement_claims(text)) >= 1


def test_a_claim_names_its_line() -> None:
    text = "First line.\n\nThen gauntlet is endorsed by the State of California."
    assert find_endorsement_claims(text) == [
        "3: Then gauntlet is endorsed by the State of California"
    ]


def test_a_long_sentence_is_shown_around_the_claim() -> None:
    text = "a " * 100 + "compliant" + " b" * 100
    [claim] = find_endorsement_claims(text)
    assert claim == "1: " + " ".join(["a"] * 35 + ["compliant"] + ["b"] * 35)
