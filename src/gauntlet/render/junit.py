"""The evidence pack as JUnit XML, for CI systems' test reports. A pure function of the pack.

One `testsuite` per suite, one `testcase` per case: `<failure>` with the reason for a failed
case, `<error>` for an errored one and for one the model judge left unjudged (never a pass, and
no failure either: nobody judged it), `<skipped>` for one an interrupted run never asked. The
element's text adds what the judge said of a judged case, beside its calibration, and for a case
of a gate that reads tool calls, the calls of the ask that failed, one per line, the step where
they went wrong marked. A waived failure is `<skipped>` too, its message naming the waiver's
owner, ticket and expiry, and its text the reason it failed.
they went wrong marked. A suite with parity pairs has one more `testcase`, `parity`: a
`<failure>` naming each differing pair's sides when its parity is required and a pair differs.
A pair of more than two sides is said grouped: the languages that failed, each with its case
and reason, then the languages that passed (`failed: ko six-ref-ko-x (...); passed: en, es,
zh, vi, tl`); and the suite carries a property `parity.<pair>` for each such differing pair,
valued `failed: ko; passed: en, es, zh, vi, tl`.

A suite with variant cases carries its attack success per transform as `<properties>` of its
`testsuite`: `attack_success.<language>.<transform>` (and `.as_written`), each valued
`3 of 4 graded got through: 75.0% [30.1%, 95.4%]`, with `; 1 not graded` when some were not,
and `attack_success.broke_first` naming the transforms that got through, highest share first.
Properties, not test cases: a share is no test, and a `testcase` per transform would change the
counts a CI system gates on (each variant already is a `testcase` that fails when it got
through); CI test views (Jenkins, GitLab, the JUnit report actions) list a suite's properties
beside it, and a script reads them by name.

A suite whose cases were compared by meaning (`match: semantic`, `min_similarity`) carries the
embedder as properties too: `similarity.embedder` (its kind, model, dimension and weights
sha256 or host), `similarity.calibration_sha256`, and `similarity.<case id> [<language>]`
for each such case, valued with the check's outcome, score and threshold (and failed guards),
e.g. `passed: 0.934 at threshold 0.800`.

A suite holding cases `gauntlet explore` froze carries each one's provenance as a property:
`found_by.<case id> [<language>]`, valued `found by persona P at turn K on DATE against
TARGET by ATTACKER (detector D)`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET  # building XML, never parsing it

from gauntlet.cases.builtin import shown_source
from gauntlet.display import printable
from gauntlet.evidence.attacks import AttackRow, attack_rows, broke_first
from gauntlet.evidence.pack import CaseEvidence, EvidencePack, PairEvidence, TrajectoryEvidence
from gauntlet.render.markdown import found_by_words
from gauntlet.run.results import Outcome, Totals, WaiverState
from gauntlet.run.tally import languages_said
from gauntlet.words import plural

_CHILD = {
    Outcome.FAILED: "failure",
    Outcome.ERRORED: "error",
    Outcome.UNJUDGED: "error",
    Outcome.NOT_RUN: "skipped",
    Outcome.WAIVED: "skipped",
}


def render_junit(pack: EvidencePack) -> str:
    """The JUnit XML document, with an XML declaration and a final newline."""
    root = ET.Element("testsuites", name="gauntlet")
    suites: dict[str, list[CaseEvidence]] = {}
    for case in pack.cases:
        suites.setdefault(case.suite, []).append(case)
    waived = {
        case.case_id: (
            f"waived by {waiver.owner} until {waiver.expires} ({waiver.ticket}): {waiver.reason}"
        )
        for waiver in pack.waivers
        for case in waiver.cases
        if case.state is WaiverState.APPLIED
    }
    for name, cases in suites.items():
        suite = ET.SubElement(root, "testsuite", name=name)
        _count(suite, cases)
        for case in cases:
            testcase = ET.SubElement(
                suite,
                "testcase",
                name=f"{case.case_id} [{case.language}]",
                classname=f"gauntlet.{case.gate.value}.{case.suite}",
                file=_clean(shown_source(case.source)),
                line=str(case.line),
            )
            child = _CHILD.get(case.outcome)
            if child is not None:
                message = waived.get(case.case_id, case.reason)
                element = ET.SubElement(testcase, child, message=_clean(message))
                element.text = "\n".join(_clean(line) for line in _details(case))
    _count(root, list(pack.cases))
    _parity_cases(root, pack)
    for suite in root.findall("testsuite"):
        _attack_properties(suite, suites.get(suite.get("name", ""), []))
        _similarity_properties(suite, suites.get(suite.get("name", ""), []), pack)
        _found_by_properties(suite, suites.get(suite.get("name", ""), []))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _parity_cases(root: ET.Element, pack: EvidencePack) -> None:
    """A `parity` testcase in each suite that has pairs, failing when its parity fails it."""
    for gate in pack.gates:
        if gate.parity is None:
            continue
        for rule in gate.parity.rules:
            suite = root.find(f"testsuite[@name='{rule.suite}']")
            if suite is None:  # pragma: no cover - a suite with pairs has cases
                continue
            testcase = ET.SubElement(
                suite,
                "testcase",
                name=f"parity [{', '.join(rule.languages) or 'pairs'}]",
                classname=f"gauntlet.{gate.gate.value}.{rule.suite}",
            )
            failing: list[PairEvidence] = [
                pair for pair in gate.parity.differing if pair.suite == rule.suite and pair.fails
            ]
            _parity_properties(suite, [p for p in gate.parity.differing if p.suite == rule.suite])
            added = {"tests": 1, "failures": 0}
            if failing:
                count = len(failing)
                element = ET.SubElement(
                    testcase,
                    "failure",
                    message=_clean(
                        f"{plural(count, 'pair differs', 'pairs differ')} "
                        f"across languages: {failing[0].reason}"
                    ),
                )
                element.text = "\n".join(_clean(pair.reason) for pair in failing)
                added["failures"] = 1
            for element in (suite, root):
                for name, more in added.items():
                    element.set(name, str(int(element.get(name, "0")) + more))


def _properties(suite: ET.Element) -> ET.Element:
    """The suite's `<properties>` element, made first among its children if it has none."""
    properties = suite.find("properties")
    if properties is None:
        properties = ET.Element("properties")
        suite.insert(0, properties)
    return properties


def _parity_properties(suite: ET.Element, differing: list[PairEvidence]) -> None:
    """`parity.<pair>` for each differing pair of more than two sides.

    Valued with which languages failed and which passed (`failed: ko; passed: en, es, zh, vi,
    tl`), for a script or a CI view that shows a suite's properties but cuts a failure's text
    short. A two-sided pair's failure text names both its sides already, and gets none.
    """
    many = [pair for pair in differing if len(pair.sides) > 2]
    if not many:
        return
    properties = _properties(suite)
    for pair in many:
        ET.SubElement(
            properties,
            "property",
            name=f"parity.{pair.pair}",
            value=_clean(languages_said(pair.sides)),
        )


def _attack_properties(suite: ET.Element, cases: list[CaseEvidence]) -> None:
    """The suite's attack success per transform, as its first child; nothing without variants."""
    rows = attack_rows(cases)
    if not rows:
        return
    properties = ET.Element("properties")
    for attack in rows:
        name = "as_written" if attack.transform is None else attack.transform.value
        ET.SubElement(
            properties,
            "property",
            name=_clean(f"attack_success.{attack.language}.{name}"),
            value=_attack_value(attack),
        )
    broke = ", ".join(
        f"{b.transform.value} {b.got_through}/{b.graded} ({b.success:.1%})"
        for b in broke_first(cases)
    )
    ET.SubElement(properties, "property", name="attack_success.broke_first", value=broke or "none")
    suite.insert(0, properties)


def _similarity_properties(
    suite: ET.Element, cases: list[CaseEvidence], pack: EvidencePack
) -> None:
    """The embedder and each compared case's similarity, as properties of the suite."""
    compared = [case for case in cases if case.similarity is not None]
    if pack.embedder is None or not compared:
        return
    properties = _properties(suite)
    fingerprint = pack.embedder.fingerprint
    named = (
        f"{fingerprint.kind} {fingerprint.model} ({fingerprint.dimension} dimensions; "
        + (
            f"weights sha256 {fingerprint.weights_sha256}"
            if fingerprint.weights_sha256
            else f"host {fingerprint.host}"
        )
        + ")"
    )
    record = pack.embedder.calibration_sha256 or "none given"
    for name, value in (
        ("similarity.embedder", named),
        ("similarity.calibration_sha256", record),
    ):
        ET.SubElement(properties, "property", name=name, value=_clean(value))
    for case in compared:
        ET.SubElement(
            properties,
            "property",
            name=_clean(f"similarity.{case.case_id} [{case.language}]"),
            value=_clean(_similarity_value(case)),
        )


def _found_by_properties(suite: ET.Element, cases: list[CaseEvidence]) -> None:
    """Each frozen case's provenance, as a property of the suite; nothing without one."""
    frozen = [case for case in cases if case.found_by is not None]
    if not frozen:
        return
    properties = _properties(suite)
    for case in frozen:
        ET.SubElement(
            properties,
            "property",
            name=_clean(f"found_by.{case.case_id} [{case.language}]"),
            value=_clean(found_by_words(case, str)),
        )


def _similarity_value(case: CaseEvidence) -> str:
    check = case.similarity
    assert check is not None  # noqa: S101 - called for compared cases only
    score = "not scored" if check.score is None else f"{check.score:.3f}"
    threshold = "no threshold" if check.threshold is None else f"threshold {check.threshold:.3f}"
    value = f"{check.outcome}: {score} at {threshold}"
    if check.guards:
        value += f"; guards failed: {'; '.join(check.guards)}"
    elif check.outcome == "unjudged":
        value += f"; {check.reason}"
    return value


def _attack_value(attack: AttackRow) -> str:
    value = f"{attack.got_through} of {attack.graded} graded got through"
    if attack.success is not None and attack.wilson_low is not None:
        value += f": {attack.success:.1%} [{attack.wilson_low:.1%}, {attack.wilson_high:.1%}]"
    if attack.not_graded:
        value += f"; {attack.not_graded} not graded"
    return value


def _count(element: ET.Element, cases: list[CaseEvidence]) -> None:
    totals = Totals.of(case.outcome for case in cases)
    element.set("tests", str(totals.total))
    element.set("failures", str(totals.failed))
    element.set("errors", str(totals.errored + totals.unjudged))
    element.set("skipped", str(totals.not_run + totals.waived))


def _details(case: CaseEvidence) -> list[str]:
    """The reason, then each judge check of the ask that decided the case, one per line."""
    lines = [case.reason]
    if case.judged and case.calibration is not None:
        row = case.calibration
        interval = (
            "n/a" if row.low is None or row.high is None else f"{row.low:.2f}, {row.high:.2f}"
        )
        kappa = "undefined" if row.kappa is None else f"{row.kappa:.2f}"
        lines.append(f"judge kappa {row.language} {kappa} [{interval}] (ask {case.judged_ask})")
    for check in case.judged:
        line = f"judge {check.kind} {check.outcome}"
        if check.position_bias:
            line += " (position bias)"
        said = ", ".join(f"{name} {verdict}" for name, verdict in check.verdicts.items())
        said = said or check.reason
        if said:
            line += f": {said}"
        if check.rationale and (check.verdicts or check.rationale not in check.reason):
            line += f"; rationale: {check.rationale}"
        lines.append(line)
        if check.outcome == "unjudged":
            lines += [f"  reply {n}: {reply}" for n, reply in enumerate(check.replies, 1)]
    if case.similarity is not None:
        lines.append(f"similarity (ask {case.similarity_ask}) {_similarity_value(case)}")
    if case.trajectory is not None:
        lines += _trajectory(case.trajectory)
    return lines


def _trajectory(trajectory: TrajectoryEvidence) -> list[str]:
    """The calls of the ask that failed: a heading line, then one line per call."""
    head = f"tool calls (ask {trajectory.ask})"
    if not trajectory.reported:
        return [f"{head}: not reported by the target"]
    figures = list(trajectory.figures)
    if trajectory.departed_step is not None:
        figures.append(f"went wrong at step {trajectory.departed_step}")
    lines = [f"{head}: {trajectory.calls} made" + "".join(f"; {f}" for f in figures)]
    if trajectory.omitted_before:
        lines.append(f"  ... {trajectory.omitted_before} earlier calls not shown")
    for row in trajectory.rows:
        line = f"  step {'?' if row.step is None else row.step}: {row.tool} {row.arguments}"
        if row.output is not None:
            line += f" -> {row.output}"
        if row.error is not None:
            line += f" error: {row.error}"
        if row.departed:
            line += "  <- went wrong here"
        lines.append(line)
    if trajectory.omitted_after:
        lines.append(f"  ... {trajectory.omitted_after} later calls not shown")
    return lines


def _clean(text: str) -> str:
    """`text` made inert and fit for XML 1.0: a target may answer with anything.

    `printable` escapes what would act on a reader, which covers every control character
    and lone surrogate XML cannot carry; the two noncharacters it forbids are dropped.
    """
    return printable(text).replace("\ufffe", "").replace("\uffff", "")
