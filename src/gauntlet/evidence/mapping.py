"""Which California GenAI risk-assessment items each gate informs, with how each was verified.

The data is transcribed from the project's fact sheet on California sources. Every row names its
verification status, and no row may cite an identifier this project could not verify:
`CaliforniaMapping` refuses such a row, using `find_unverified_citations`, the same check the
tests run. `docs/california-mapping.md` is `render_mapping_markdown()` written out, and a test
fails when the two drift apart. A gate's rows are declared in its spec (`informs`, see
`gauntlet.gates.spec.GateSpec`); the rest of the mapping is here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import NamedTuple, Self

from pydantic import model_validator

from gauntlet.cases.model import GateName
from gauntlet.gates import GATE_SPECS
from gauntlet.gates.california import (
    SAM_4986_10,
    SAM_4986_12,
    SCM_2305_3,
    SIMM_5305_F,
    MappingRow,
    Text,
    Verification,
    simm,
)
from gauntlet.markdown_table import table
from gauntlet.record import Record

__all__ = [
    "CALIFORNIA",
    "SAM_4986_10",
    "SAM_4986_12",
    "SCM_2305_3",
    "SIMM_5305_F",
    "CaliforniaMapping",
    "MappingRow",
    "PlacedRow",
    "Source",
    "Verification",
    "california_mapping",
    "find_unverified_citations",
    "iter_rows",
    "render_mapping_markdown",
    "row_text",
]


class Source(Record):
    """A document the mapping rests on, and how far this project verified it."""

    identifier: Text
    """The document's name as cited, e.g. `SAM 4986.9`."""
    what: Text
    """What the document is and says, as far as it was verified."""
    verification: Text
    """How it was checked, with its scope, e.g. `read`, `read (title, role)`, `secondhand`."""
    where: Text
    """Where it was read: the official page's name, or who reported it."""


class CaliforniaMapping(Record):
    """The cross-reference from gate outcomes to California's GenAI risk framework."""

    alignment_notice: Text
    """What the mapping is and is not: aligned to and informing, never a compliance finding."""
    gates: dict[GateName, tuple[MappingRow, ...]]
    """For every gate, the items its outcome informs."""
    harness_properties: tuple[MappingRow, ...]
    """Items informed by how the harness itself is built and tested (the self-test doctrine)."""
    disclosure_basis: tuple[Text, ...]
    """The disclosure content a run supports, each fact with its verification status."""
    sources: tuple[Source, ...]
    """Every document the mapping rests on, with how it was verified."""
    not_verified: tuple[Text, ...]
    """Identifiers that could not be verified and so are never cited in a row, one per entry."""
    not_established: tuple[Text, ...]
    """What a run does not establish."""

    @model_validator(mode="after")
    def _rows_are_complete_and_verified(self) -> Self:
        missing = [gate.value for gate in GateName if not self.gates.get(gate)]
        if missing:
            raise ValueError(f"gates without a mapping row: {', '.join(missing)}")
        for place, row in iter_rows(self):
            cited = find_unverified_citations(row_text(row), self.not_verified)
            if cited:
                raise ValueError(
                    f"{place} row {row.document}, {row.item!r} cites what was not verified: "
                    + "; ".join(cited)
                )
        return self


class PlacedRow(NamedTuple):
    """A mapping row and where it sits: a gate's name, or `harness`."""

    place: str
    """The gate's name, or `harness` for a harness property."""
    row: MappingRow
    """The row."""


def iter_rows(mapping: CaliforniaMapping) -> Iterator[PlacedRow]:
    """Every row of the mapping, gates in registry order, then the harness properties."""
    for gate in (*GATE_SPECS, *(gate for gate in mapping.gates if gate not in GATE_SPECS)):
        for row in mapping.gates.get(gate, ()):
            yield PlacedRow(gate.value, row)
    for row in mapping.harness_properties:
        yield PlacedRow("harness", row)


def row_text(row: MappingRow) -> str:
    """All the text a row shows (document, item and what it informs), for citation checks."""
    return f"{row.document}. {row.item}. {row.informs}"


# ---------------------------------------------------------------- not-verified citations

_NOTE = re.compile(r"\s*\([^()]{4,}\)")
"""An explanatory parenthetical, e.g. `(the confidentiality sections ...)`; not `(c)`."""

_ITEMS = r"\(\w\)(?:(?: and| or| to)?\(\w\))*"
"""Item locators after `_normalise`: `(a)`, `(a)(c)(d)`, `(a) to(d)`, `(a) and(d)`."""

_SECTION_ITEMS = re.compile(rf"^(?P<section>.+?) item(?P<items>{_ITEMS})$")
_FOLLOWING_ITEMS = re.compile(rf"(?: item)?(?P<items>{_ITEMS})")
_FULL_LIST = re.compile(r"^full list of (?P<section>.+)$")
_DEFINITION_TEXT = re.compile(r"^text of (?:the )?(?P<document>.+) definitions$")
_WHOLE_DOCUMENT = re.compile(r"^(?P<document>.+) (?:clause numbers|series)$")
_CODE_SECTION = re.compile(r"^government code (?P<number>\S+)$")


def _normalise(text: str) -> str:
    """Fold case and separators so one locator has one spelling: `part 2 x item(a)(c)`."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("§", " ")
    text = re.sub(r"[,;:]", " ", text)
    text = re.sub(r"\bitems\b", "item", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text.replace(" (", "(")


def _bounded(phrase: str) -> str:
    return rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])"


def _item_letters(items: str) -> set[str]:
    letters: list[str] = []
    for joiner, letter in re.findall(r"( to)?\((\w)\)", items):
        if joiner and letters:
            letters.extend(chr(code) for code in range(ord(letters[-1]) + 1, ord(letter) + 1))
        else:
            letters.append(letter)
    return set(letters)


def _cites_section_items(text: str, section: str, unverified: set[str]) -> bool:
    # A section named without an item locator cites all its items, the unverified ones too.
    for found in re.finditer(_bounded(section), text):
        items = _FOLLOWING_ITEMS.match(text, found.end())
        if items is None or _item_letters(items["items"]) & unverified:
            return True
    return False


def _cites(text: str, identifier: str) -> bool:
    key = _normalise(_NOTE.sub("", identifier)).removeprefix("the ")
    if match := _SECTION_ITEMS.match(key):
        return _cites_section_items(text, match["section"], _item_letters(match["items"]))
    if match := _FULL_LIST.match(key):
        # Rows of the list may be cited one by one (`..., row: avoiding illicit content`).
        pattern = _bounded(match["section"]) + r"(?! row\b)"
        return re.search(pattern, text) is not None
    if match := _DEFINITION_TEXT.match(key) or _WHOLE_DOCUMENT.match(key):
        # Nothing in these was verified that a row could point at, so the name alone is out.
        key = match["document"]
    phrases = [key]
    if match := _CODE_SECTION.match(key):
        phrases.append(match["number"])
    return any(re.search(_bounded(phrase), text) for phrase in phrases)


def find_unverified_citations(text: str, not_verified: Iterable[str]) -> list[str]:
    """The not-verified identifiers that `text` cites, in the order given.

    Comparison ignores case, commas and spacing, so `Part 2, Details of Transparency, items (a)
    and (c)` cites `Details of Transparency items (a), (c), (d)`. A section named with no item
    locator cites every item in it; `the full list of X` is cited by `X` unless a row of it is
    named (`X, row: ...`); `X clause numbers`, `X series` and `the text of the X definitions`
    are cited by `X` itself; `Government Code N` is also cited by `N` alone.

    Args:
        text: What a row shows, see `row_text`.
        not_verified: Identifiers as written in `CaliforniaMapping.not_verified`.

    Returns:
        Each identifier that `text` cites.
    """
    normalised = _normalise(text)
    return [identifier for identifier in not_verified if _cites(normalised, identifier)]


# ---------------------------------------------------------------- the data


def _gate_rows() -> dict[GateName, tuple[MappingRow, ...]]:
    """Every registered gate's rows, as its spec declares them."""
    return {name: spec.informs for name, spec in GATE_SPECS.items()}


CALIFORNIA = CaliforniaMapping(
    alignment_notice=(
        "gauntlet's output is aligned to and informs California's GenAI risk framework. It is "
        "not a compliance determination, and it is not certified, approved or endorsed by "
        "anyone. The State of California has not reviewed this project or anything it emits."
    ),
    gates=_gate_rows(),
    harness_properties=(
        simm(
            "Part 1, Safeguard Level scale (Not Identified, Partially, Mostly, Fully Identified, "
            "Not Applicable)",
            "Every gate is shown failing on the defect it exists to catch and on silence, which "
            "informs how fully identified the testing safeguard is.",
        ),
        simm(
            "Part 2, Details of Transparency, item (b)",
            "The self-tests audit the harness itself: they show that each gate can fail.",
        ),
    ),
    disclosure_basis=(
        "SAM 4986.9 (read): a vendor's written GenAI disclosure notice can attach a run as the "
        "testing evidence behind it.",
        '"Materially impacts" takes its meaning from SAM 4986.2 (read for scope only); the '
        "definition text was not verified and is not restated here.",
        "SAM 4986.10 Privacy Disclosures (read): content created or substantially altered by "
        "GenAI carries a disclosure; communications about government services carry a "
        "disclaimer before use, how to contact a state employee, and a way to opt out and speak "
        "to a real person.",
        "The disclosure gate informs SAM 4986.10 Privacy Disclosures (read): it checks, in the "
        "cases run and by the markers the suite declares, that answers carry the disclaimer, "
        "how to reach a person and the opt-out; whether the wording suffices is the agency's "
        "judgement.",
    ),
    sources=(
        Source(
            identifier=SIMM_5305_F,
            what="Generative Artificial Intelligence Risk Assessment, California Department of "
            "Technology (CDT). Completed for GenAI procurements and internally developed "
            "systems; signed by the CIO and CISO; risk level Low / Moderate / High; submitted "
            "to CDT for all risk levels",
            verification="read (title, role)",
            where="dgs.ca.gov SAM 4986.9 page; genai.cdt.ca.gov CDT consultation page; "
            "genai.ca.gov risk-assessment workflow pages",
        ),
        Source(
            identifier="SIMM 5305-F structure (August 2025 revision, 28 pages)",
            what="Its sections, parts and items as cited in the mapping rows; it has no "
            "numbered control ids",
            verification="secondhand",
            where="reported by a public implementation that says it read the PDF page by page "
            "on 2026-08-07; not re-read by this project",
        ),
        Source(
            identifier="SAM 4986.2",
            what='Definitions for GenAI (defines "materially impacts")',
            verification="read (scope); definition text not verified",
            where="CDT summary of changes to the SAM, Feb 2025",
        ),
        Source(
            identifier="SAM 4986.9",
            what="GenAI Procurement: GenAI disclosure notification language in all IT and "
            "telecom solicitations and contracts; complete SIMM 5305-F prior to award; consult "
            "CDT at Moderate/High",
            verification="read (stored copy marked New 02/2025)",
            where="dgs.ca.gov/Resources/SAM/TOC/4900/4986-9",
        ),
        Source(
            identifier="SAM 4986.10",
            what='Privacy for GenAI. Its "Privacy Disclosures": content created or '
            "substantially altered by GenAI carries a disclosure; communications about "
            "government services carry a disclaimer before use, how to contact a state "
            "employee, and a way to opt out and speak to a real person",
            verification="read",
            where="dgs.ca.gov/Resources/SAM/TOC/4900/4986-10",
        ),
        Source(
            identifier="SAM 4986.11",
            what="Security for GenAI: incident reporting, NIST AI RMF, risk register",
            verification="read",
            where="dgs.ca.gov/Resources/SAM/TOC/4900/4986-11",
        ),
        Source(
            identifier=SAM_4986_12,
            what="Acceptable use; prohibits GenAI for illicit, controversial or biased content",
            verification="read (scope)",
            where="CDT summary of changes to the SAM, Feb 2025",
        ),
        Source(
            identifier="Government Code 11549.64",
            what="Statutory definition of GenAI (subdivision (b))",
            verification="read (as quoted in SCM 2300, 02/2025)",
            where="dgs.ca.gov SCM chapter 23",
        ),
        Source(
            identifier="SCM Vol. 2, 2302.2",
            what="Evaluation of bids, award, and GenAI disclosure; restates the disclosure trigger",
            verification="read",
            where="dgs.ca.gov/PD/Resources/SCM/TOC/23/2302-2",
        ),
        Source(
            identifier=SCM_2305_3,
            what="Contract managers continuously monitor and validate GenAI deliverables for "
            "inaccuracies, fabricated content, hallucinations and bias",
            verification="read",
            where="dgs.ca.gov/PD/Resources/SCM/TOC/23/23-05-3",
        ),
        Source(
            identifier="genai.ca.gov disclosure and special provisions page",
            what="every solicitation carries a GenAI notification clause; STD 1000 GenAI "
            "Reporting and Factsheet required",
            verification="read",
            where='genai.ca.gov procurement toolkit, "disclosure-special-provisions"',
        ),
    ),
    not_verified=(
        "IT General Provisions clause numbers",
        "GenAI Special Provisions clause numbers",
        "Government Code 11549.65(c)",
        "Government Code 7929.210 (a confidentiality section a completed SIMM 5305-F cites in "
        "its footer)",
        "Government Code 8592.45 (a confidentiality section a completed SIMM 5305-F cites in "
        "its footer)",
        "SAM 5300 series",
        "SAM 5300.4",
        "SIMM 5300-A",
        "SIMM 5305-A",
        "SIMM 5310-C",
        "SIMM 5360-A",
        "SIMM 140",
        "SAM 4983.1",
        "SAM 4819.2",
        "the text of the SAM 4986.2 definitions",
        "Ensuring Equity items (a) to (d)",
        "Human Oversight and Monitoring item (d)",
        "Details of Transparency items (a), (c), (d)",
        "the full list of Mandatory Minimum Safeguards",
    ),
    not_established=(
        "That the feature is safe, accurate or fair beyond the cases run.",
        "Anything about a model in the abstract: a run evaluates one feature in its context.",
        "Behaviour after the run: a change to the feature, its model, prompts or sources needs "
        "a new run.",
        "Behaviour in languages the suites do not test.",
        "A risk level: the agency assigns Low, Moderate or High in its SIMM 5305-F.",
        "Completion of the SIMM 5305-F: the assessment is the agency's, signed by its CIO and "
        "CISO, and a run is evidence it can attach.",
        "That the feature meets any law, policy or contract term: no compliance determination "
        "is made.",
        "That the State of California reviewed anything: it has not reviewed this project or "
        "anything it emits.",
        "That the secondhand SIMM 5305-F structure matches the current PDF: it was reported by a "
        "public implementation and not re-read by this project.",
        "Anything about a completed SIMM 5305-F, which is confidential: the mapping is built "
        "from the published blank template's structure only.",
    ),
)
"""The mapping every evidence pack carries."""


def california_mapping() -> CaliforniaMapping:
    """`CALIFORNIA` with the rows of the gates registered now (see `gauntlet.gates.registered`)."""
    return CaliforniaMapping(**{**dict(CALIFORNIA), "gates": _gate_rows()})


# ---------------------------------------------------------------- rendering

GENERATED_FROM = (
    "each gate's `SPEC.informs` (`src/gauntlet/gates/`) and `src/gauntlet/evidence/mapping.py`"
)


def _row_table(rows: Iterable[MappingRow]) -> list[str]:
    return table(
        ("Document", "Item", "Informs", "Verification"),
        ((row.document, row.item, row.informs, row.verification.value) for row in rows),
    )


def render_mapping_markdown(mapping: CaliforniaMapping = CALIFORNIA) -> str:
    """The California mapping as a Markdown page, the one in `docs/california-mapping.md`.

    Args:
        mapping: The mapping to render.

    Returns:
        The page, ending in one newline.
    """
    lines = [
        "# California mapping",
        "",
        f"This page is generated by `gauntlet` from {GENERATED_FROM}; "
        "edit the data there, not this page.",
        "",
        mapping.alignment_notice,
        "",
        "Every row names how its locator was verified:",
        "",
        *(f"- **{status.value}**: {status.meaning}" for status in Verification),
        "",
        "Identifiers that could not be verified are never cited in a row; they are listed below.",
        "",
        "## What each gate informs",
    ]
    for gate in GateName:
        lines += ["", f"### `{gate.value}`", "", *_row_table(mapping.gates[gate])]
    lines += [
        "",
        "## Harness properties",
        "",
        "The self-test doctrine: a check that has never failed is not evidence.",
        "",
        *_row_table(mapping.harness_properties),
        "",
        "## Disclosure basis",
        "",
        *(f"- {fact}" for fact in mapping.disclosure_basis),
        "",
        "## Sources",
        "",
        *table(
            ("Identifier", "What it is", "Verification", "Where"),
            ((s.identifier, s.what, s.verification, s.where) for s in mapping.sources),
        ),
        "",
        "## Identifiers not verified",
        "",
        "None of these is cited in a mapping row.",
        "",
        *(f"- {identifier}" for identifier in mapping.not_verified),
        "",
        "## What a run does not establish",
        "",
        *(f"- {limit}" for limit in mapping.not_established),
    ]
    return "\n".join(lines) + "\n"
