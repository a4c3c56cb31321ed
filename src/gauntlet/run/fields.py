"""Which contract fields each gate reads, and the fail-closed rule that no gate passes without them.

A target file may declare a field absent, or derive it from phrases in only some languages. A
gate that reads a field nobody supplies would grade a stand-in value (no citations, not
refused): `false_positive` would pass every case of a target that never reports refusals. So a
run is refused before the first ask when a loaded suite needs a field the target cannot supply
in that suite's languages, and any single answer still missing one is an error, never a pass.

The one field a suite may do without is grounding's `context_ids`, by writing
`accepts_absent: [context_ids]` (or a run's `--suite-option SUITE.accepts_absent=context_ids`,
applied as if the file said it): its cases are then checked for citing and abstaining, not for
citing only what was retrieved, and the evidence pack says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from gauntlet.cases.builtin import shown_source
from gauntlet.cases.loader import LoadedSuite, SuiteSet
from gauntlet.cases.model import GateName, GroundingSuite, case_key
from gauntlet.errors import TargetContractError, UsageError
from gauntlet.gates import GATE_SPECS
from gauntlet.languages import in_column_order
from gauntlet.targets.contract import (
    AsyncTarget,
    FieldName,
    FieldSource,
    Origin,
    Provenance,
    Traced,
)

GATE_FIELDS: Mapping[GateName, frozenset[FieldName]] = MappingProxyType(
    {name: spec.reads for name, spec in GATE_SPECS.items()}
)
"""The fields each gate reads to decide a case."""

_HOW = {
    FieldName.TEXT: "map it with `response.text: <JMESPath>`",
    FieldName.CITATIONS: (
        "map it with a JMESPath expression, or derive it: "
        "`citations: {from_text: '\\[(RB-\\d+)\\]'}`"
    ),
    FieldName.CONTEXT_IDS: (
        "map it with a JMESPath expression, or let the suite do without it: "
        "`accepts_absent: [context_ids]` in its file, or for this run "
        "`--suite-option {suite}.accepts_absent=context_ids`"
    ),
    FieldName.REFUSED: (
        "map it with a JMESPath expression, or derive it: `refused: {from_text: {{languages}}}`"
    ),
    FieldName.ESCALATED: (
        "map it with a JMESPath expression, or derive it: `escalated: {from_text: {{languages}}}`"
    ),
    FieldName.TOOL_CALLS: (
        "map it with a JMESPath expression (an `openai-chat` target reports its calls; a "
        "native one sends `tool_calls` in its answer), or leave out the suites that read "
        "tool calls with `--exclude-gate` or `--suite`, or by naming the others with --cases"
    ),
}


@dataclass(frozen=True)
class SuiteNeeds:
    """What one loaded suite reads, and what it may do without."""

    suite: str
    source: str
    gate: GateName
    fields: frozenset[FieldName]
    waived: frozenset[FieldName]
    languages: tuple[str, ...]
    lines: tuple[int, ...] = ()
    """The line of the first case in each of `languages`, in their (column) order."""


Needs = tuple[SuiteNeeds, ...]


def suite_needs(loaded: LoadedSuite) -> SuiteNeeds:
    """The fields `loaded`'s gate reads (its turns' refusal checks included).

    Worked out once per suite: scoring asks it for every case.
    """
    # Keyed by identity: hashing a suite would walk every case, which is the cost avoided.
    kept = _KNOWN.get(id(loaded))
    if kept is not None and kept[0] is loaded:
        return kept[1]
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.clear()
    need = _needs(loaded)
    _KNOWN[id(loaded)] = (loaded, need)
    return need


_KNOWN: dict[int, tuple[LoadedSuite, SuiteNeeds]] = {}
_KNOWN_MAX = 1024


def _needs(loaded: LoadedSuite) -> SuiteNeeds:
    suite = loaded.suite
    fields = set(GATE_SPECS[suite.gate].reads)
    if any(turn.expect_refused is not None for case in suite.cases for turn in case.turns or ()):
        fields.add(FieldName.REFUSED)
    if any(
        case_key(case, "forbid_calls", ()) or case_key(case, "expect_calls", ())
        for case in suite.cases
    ):
        fields.add(FieldName.TOOL_CALLS)  # an attack through a tool's output: calls are read
    waived = (
        frozenset(FieldName(name) for name in suite.accepts_absent)
        if isinstance(suite, GroundingSuite)
        else frozenset()
    )
    first: dict[str, int] = {}
    for case, mark in zip(suite.cases, loaded.case_marks, strict=False):
        first.setdefault(case.language, mark.line)
    # In column order, as every table and parity line names them, not the order a file's
    # blocks were written in.
    languages = tuple(in_column_order(case.language for case in suite.cases))
    lines = tuple(first.get(language, 1) for language in languages)
    return SuiteNeeds(
        suite.suite, loaded.source, suite.gate, frozenset(fields), waived, languages, lines
    )


def check_supplied(suites: SuiteSet, target: AsyncTarget) -> Needs:
    """Refuse the run if a loaded suite needs a field the target cannot supply.

    Returns:
        What every suite needs, for checking the pre-flight answer and each answer.

    Raises:
        UsageError: every suite, gate, field and language that nothing supplies, each with how
            to map or derive it.
    """
    needs = tuple(suite_needs(loaded) for loaded in suites.suites)
    problems = supply_problems(needs, target)
    if problems:
        raise UsageError(
            "the target cannot supply what the gates read, so no case was asked:\n  "
            + "\n  ".join(problems)
        )
    return needs


def supply_problems(needs: Needs, target: AsyncTarget) -> list[str]:
    """Each suite and field the target cannot supply, in which languages, with how to fix it."""
    problems: list[str] = []
    for need in needs:
        for field in sorted(need.fields - need.waived):
            # The languages it is missing in, grouped by why (phrases may exist for one only).
            # Each group is located at the first case in one of its languages.
            missing: dict[str, list[str]] = {}
            line: dict[str, int] = {}
            lines = need.lines or (1,) * len(need.languages)
            for language, at in zip(need.languages, lines, strict=True):
                source = target.provides(language).get(field)
                if source is None or source.origin is Origin.ABSENT:
                    why = f" ({source.rule})" if source is not None and source.rule else ""
                    missing.setdefault(why, []).append(language)
                    line[why] = min(line.get(why, at), at)
            problems.extend(
                f"{shown_source(need.source)}:{line[why]}: suite {need.suite} "
                f"({need.gate} gate) needs `{field}` in "
                f"{_and(languages)}, which {target.name} does not supply{why}: "
                f"{_how(field, need.suite, languages)}"
                for why, languages in missing.items()
            )
    return problems


def _how(field: FieldName, suite: str, languages: Sequence[str]) -> str:
    """How to supply `field`, or do without it, for `suite` (a suite's name, or a gate's).

    Phrases are asked for in the `languages` that lack them.
    """
    phrases = ", ".join(f"{language}: [...]" for language in languages)
    return _HOW[field].replace("{suite}", suite).replace("{languages}", phrases)


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def check_probe(traced: Traced, needs: Needs, expected: Provenance | None = None) -> None:
    """Refuse the run if the pre-flight answer lacks a field some suite needs.

    A field the file maps may still be missing from what the server sends (an OpenAI server
    that never writes `refusal`): better said once, before the first case, than on every case.
    A field `expected` (what the target supplies in the probe's language, known before any
    ask) already says is absent is not the server's doing: phrases given for other languages
    only cannot decide the probe's answer. `check_supplied` has refused every suite that needs
    the field in that language, and for the others the probe's answer says nothing about it.

    Raises:
        TargetContractError: naming the fields and the suites that need them.
    """
    wanting: dict[FieldName, list[SuiteNeeds]] = {}
    for need in needs:
        for field in sorted(need.fields - need.waived):
            if _lacks(traced, field, expected) is not None:
                wanting.setdefault(field, []).append(need)
    if wanting:
        said = "; ".join(
            f"`{field}` ({traced.provenance[field].rule or 'not in the answer'}), "
            f"which suites {', '.join(need.suite for need in wanted)} need: "
            + _how(
                field,
                wanted[0].suite if len(wanted) == 1 else "SUITE",
                in_column_order(language for need in wanted for language in need.languages),
            )
            for field, wanted in wanting.items()
        )
        raise TargetContractError(f"the pre-flight answer does not supply {said}")


def probe_problems(traced: Traced, needs: Needs, expected: Provenance | None = None) -> list[str]:
    """Each suite whose field one answer did not supply, as `probe` says it.

    Graded as `check_probe` grades the pre-flight answer, so that `probe` and `run` agree:
    whatever the suite's languages, and leaving to `supply_problems` a field `expected` (what
    the target supplies in the answer's language) already says is absent.
    """
    problems = []
    for need in needs:
        for field in sorted(need.fields - need.waived):
            source = _lacks(traced, field, expected)
            if source is not None:
                problems.append(
                    f"suite {need.suite} ({need.gate} gate) needs `{field}`, which this answer "
                    f"did not supply ({source.rule or 'not in the answer'}): "
                    f"{_how(field, need.suite, need.languages)}"
                )
    return problems


def _lacks(traced: Traced, field: FieldName, expected: Provenance | None) -> FieldSource | None:
    """The source of `field` when one answer lacks it and `expected` did not say it would."""
    known = expected.get(field) if expected is not None else None
    if known is not None and known.origin is Origin.ABSENT:
        return None
    source = traced.provenance.get(field)
    return source if source is not None and source.origin is Origin.ABSENT else None


def unsupplied(
    provenance: Provenance, fields: Iterable[FieldName], waived: Iterable[FieldName] = ()
) -> list[str]:
    """The fields a gate reads that one answer did not supply, each with why."""
    skip = set(waived)
    missing = []
    for field in fields:
        source = provenance.get(field)
        if field not in skip and source is not None and source.origin is Origin.ABSENT:
            missing.append(f"`{field}` ({source.rule})" if source.rule else f"`{field}`")
    return missing


def absent_fields(provenance: Provenance) -> frozenset[FieldName]:
    """The fields of one answer that nobody supplied."""
    return frozenset(
        field for field, source in provenance.items() if source.origin is Origin.ABSENT
    )


def describe_unsupplied(missing: Sequence[str]) -> str:
    """The reason an answer with unsupplied fields errors its case."""
    return (
        f"the answer does not supply {', '.join(missing)}, which this gate reads: "
        "a gate never passes on a field nobody supplied"
    )


__all__ = [
    "GATE_FIELDS",
    "Needs",
    "SuiteNeeds",
    "absent_fields",
    "check_probe",
    "check_supplied",
    "describe_unsupplied",
    "probe_problems",
    "suite_needs",
    "supply_problems",
    "unsupplied",
]
