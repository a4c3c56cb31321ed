"""The evidence pack as SARIF 2.1.0, for GitHub code scanning. A pure function of the pack.

**Rules.** One per gate the run had, `gauntlet/<gate>`; under the adversarial gate, one per
attack type its cases name, `gauntlet/adversarial/<attack_type>`, related to the gate's rule
as a subset of it. A finding of an adversarial case is reported under its attack type's rule;
every other finding under its gate's. A refusal case's `kind` is not a rule of its own: it says
what the answer must do, not what was tried.

**Findings.** One result per case that did not pass, at the case's line in its YAML file, at a
level set by what happened to it:

| outcome | level | why |
|---|---|---|
| failed | `error` | the target did what the gate forbids |
| waived | `error`, suppressed | a failure a team ships with: `suppressions` carries the waiver |
| errored, unjudged | `warning` | no answer, or no verdict on one: never a pass, not a failure |
| not run | `note` | an interrupted run never asked it |

**Identity.** `partialFingerprints["gauntlet/v1"]` is the sha256 of the gate, the case id and
the finding's kind (`failed`, which a waived case keeps so its waiver suppresses the same
alert; `errored`; `unjudged`; `not_run`): never the reason, which quotes an answer that differs
on every run, nor the line or the suite, so a case moved within its file or to another file
keeps its finding.

**Paths.** Code scanning matches a finding to a file by its path in the repository, so each
case file is named relative to the repository root (`%SRCROOT%`): a relative source is taken
from the directory the report is made in, `.` and `..` are resolved without touching the disk,
and a file outside the root (a built-in suite, an absolute path elsewhere, `../` out of it) is
refused with `UsageError`, never written as a path on the runner's disk.

**Text.** Every message is the reason made safe as in the other reports: secrets masked, then
on one line with every control character escaped, then cut at `MESSAGE_LIMIT` characters.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, assert_never
from urllib.parse import quote

from gauntlet.canonical import canonical_text
from gauntlet.cases.builtin import BUILTIN_PREFIX
from gauntlet.cases.model import AttackType, GateName
from gauntlet.display import clipped, masked, printable
from gauntlet.errors import Parameter, UsageError
from gauntlet.evidence.drift import SAFETY_GATES
from gauntlet.evidence.pack import CaseEvidence, EvidencePack
from gauntlet.run.results import Outcome, Results, WaiverState

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
"""The OASIS schema a SARIF 2.1.0 file names as its `$schema`."""

FINGERPRINT = "gauntlet/v1"
"""The key of each finding's `partialFingerprints`: bump its version if what it hashes changes."""

ROOT_BASE = "%SRCROOT%"
"""The base every case file's URI is relative to: the repository root."""

MESSAGE_LIMIT = 1000
"""Characters of a finding's message, its reason cut to fit (with `…`)."""

JUSTIFICATION_LIMIT = 500
"""Characters of a waiver's justification."""

RULE_PREFIX = "gauntlet"

_GATE_TEXT: Mapping[GateName, tuple[str, str, str]] = {
    GateName.GROUNDING: (
        "An answer cites sources it was not given, or none.",
        "A grounding case gives the target its sources; the answer must cite only those, "
        "say what the case requires, and abstain when the sources do not hold the answer.",
        "Read the case's sources and the answer in the evidence pack: make the feature cite "
        "what it was given, and abstain rather than guess.",
    ),
    GateName.ADVERSARIAL: (
        "The target gave in to an attack.",
        "An adversarial case attacks the target (through its prompt or a tool's output); the "
        "answer must not show the attack worked: no leaked canary, rule or forbidden call.",
        "Find the marker the reason names in the answer, and harden the feature's prompt, "
        "tools or filters against this kind of attack; then run the case again.",
    ),
    GateName.REFUSAL: (
        "The target answered what it must refuse, or refused what it must answer.",
        "A refusal case says whether the target must refuse, or route a person in crisis to "
        "help; the answer must do that, in the case's language.",
        "Compare the answer with the case's kind in the evidence pack, and fix the feature's "
        "refusal or escalation behaviour for that kind of request.",
    ),
    GateName.FALSE_POSITIVE: (
        "The target refused a legitimate request.",
        "A false-positive case is a legitimate request that looks like one to refuse; the "
        "answer must help, not refuse.",
        "Loosen the rule or filter that refused this request, without letting through the "
        "requests the refusal suites say must be refused.",
    ),
    GateName.GOLDEN: (
        "An answer does not match its expected answer.",
        "A golden case gives the answer expected; the target's answer must match it as the "
        "suite's `match` says (exactly, by its facts, or as the model judge finds).",
        "Compare the answer with the expected one in the evidence pack: fix the feature, or "
        "the expected answer when it is the one that is wrong.",
    ),
    GateName.TRAJECTORY: (
        "The target's tool calls went wrong.",
        "A trajectory case scripts the tools; the calls the target makes must be the ones "
        "the case expects, in order, with the arguments it expects, and the answer faithful "
        "to what the tools returned.",
        "Read the calls in the evidence pack, from the step marked where they went wrong.",
    ),
    GateName.DISCLOSURE: (
        "An answer lacks a disclosure it must make.",
        "A disclosure case names the elements an answer must show (that the person talks with "
        "an AI, where to reach a person); the answer must show each.",
        "Add the missing disclosure to the feature's answers in the case's language.",
    ),
}
"""Each gate's rule: a short description, a full one, and what to do about a finding."""

_ATTACK_TEXT: Mapping[AttackType, str] = {
    AttackType.SYSTEM_PROMPT_OVERRIDE: "instructions that try to replace the system prompt",
    AttackType.ROLE_MANIPULATION: "a role the target is talked into that drops its rules",
    AttackType.JAILBREAK: "a jailbreak template that asks the target to ignore its rules",
    AttackType.PROMPT_LEAK: "a request for the system prompt or its secrets",
    AttackType.CODE_EXECUTION: "a request to run code or commands",
    AttackType.OBFUSCATION: "an attack hidden in an encoding or a spelling",
    AttackType.DETERMINATION: "an attack repeated and pressed over several turns",
    AttackType.INDIRECT_INJECTION: "an instruction hidden in a tool's output",
}
"""What each attack type tries, for its rule's descriptions."""

_LEVEL = {
    Outcome.FAILED: "error",
    Outcome.WAIVED: "error",
    Outcome.ERRORED: "warning",
    Outcome.UNJUDGED: "warning",
    Outcome.NOT_RUN: "note",
}


def attack_types(results: Results) -> dict[str, AttackType]:
    """Each adversarial case's attack type, by case id, as the run loaded the case.

    Only a value `AttackType` knows is taken: a results file may be edited by hand, and what
    it names becomes a rule id.
    """
    known = {kind.value: kind for kind in AttackType}
    found: dict[str, AttackType] = {}
    for case in results.cases:
        if case.gate is not GateName.ADVERSARIAL or case.definition is None:
            continue
        named = case.definition.case.get("attack_type")
        if isinstance(named, str) and named in known:
            found[case.case_id] = known[named]
    return found


def render_sarif(
    pack: EvidencePack,
    *,
    attack_types: Mapping[str, AttackType],
    root: PurePosixPath,
    cwd: PurePosixPath,
) -> str:
    """The SARIF 2.1.0 log of `pack`: one run, its rules and findings. Ends with a newline.

    Args:
        pack: The evidence pack.
        attack_types: Each adversarial case's attack type, by case id (see `attack_types`).
        root: The repository root, absolute: every case file is named relative to it.
        cwd: The absolute directory a relative case file is taken from (where the run was).

    Raises:
        UsageError: a case that did not pass is written in a file outside `root`.
    """
    rules = _rules(pack, attack_types)
    index = {rule["id"]: n for n, rule in enumerate(rules)}
    waivers = _justifications(pack)
    findings = []
    for case in pack.cases:
        if case.outcome is Outcome.PASSED:
            continue
        rule_id = _rule_id(case, attack_types)
        findings.append(
            _finding(
                case,
                rule_id=rule_id,
                rule_index=index[rule_id],
                uri=_artifact_uri(case, root=root, cwd=cwd),
                attack=attack_types.get(case.case_id),
                waiver=waivers.get(case.case_id),
            )
        )
    verdict = pack.verdict
    run: dict[str, Any] = {
        "tool": {"driver": {"name": RULE_PREFIX, "version": pack.built_by, "rules": rules}},
        "originalUriBaseIds": {
            ROOT_BASE: {
                "description": {"text": "The repository root: case files are named from it."}
            }
        },
        "results": findings,
        "properties": {
            "verdict": verdict.status.value,
            "withheldBecause": None
            if verdict.withheld_because is None
            else verdict.withheld_because.value,
            "exitCode": verdict.exit_code,
            "resultsDigest": pack.results_digest,
            "runGauntletVersion": printable(pack.run.run_gauntlet_version),
            "complete": pack.run.complete,
        },
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _rules(pack: EvidencePack, attack_types: Mapping[str, AttackType]) -> list[dict[str, Any]]:
    """Each gate's rule, in the pack's order, the attack types' rules after the adversarial one."""
    rules: list[dict[str, Any]] = []
    named = set(attack_types.values())
    for gate in pack.gates:
        short, full, help_text = _GATE_TEXT[gate.gate]
        parent = f"{RULE_PREFIX}/{gate.gate.value}"
        rules.append(_rule(parent, gate.gate, short, full, help_text))
        if gate.gate is not GateName.ADVERSARIAL:
            continue
        parent_index = len(rules) - 1
        for kind in AttackType:
            if kind not in named:
                continue
            tried = _ATTACK_TEXT[kind]
            rule = _rule(
                f"{parent}/{kind.value}",
                gate.gate,
                f"The target gave in to {tried}.",
                f"Attack type `{kind.value}`: {tried}. {full}",
                help_text,
            )
            rule["relationships"] = [
                {"target": {"id": parent, "index": parent_index}, "kinds": ["subset"]}
            ]
            rules.append(rule)
    return rules


def _rule(rule_id: str, gate: GateName, short: str, full: str, help_text: str) -> dict[str, Any]:
    family = "security" if gate in SAFETY_GATES else "correctness"
    return {
        "id": rule_id,
        "name": rule_id.removeprefix(f"{RULE_PREFIX}/").replace("/", ": "),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": [RULE_PREFIX, family, gate.value]},
    }


def _rule_id(case: CaseEvidence, attack_types: Mapping[str, AttackType]) -> str:
    attack = attack_types.get(case.case_id)
    if case.gate is GateName.ADVERSARIAL and attack is not None:
        return f"{RULE_PREFIX}/{case.gate.value}/{attack.value}"
    return f"{RULE_PREFIX}/{case.gate.value}"


def _finding(
    case: CaseEvidence,
    *,
    rule_id: str,
    rule_index: int,
    uri: str,
    attack: AttackType | None,
    waiver: str | None,
) -> dict[str, Any]:
    where: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": ROOT_BASE}}
    if case.line >= 1:
        where["region"] = {"startLine": case.line}
    properties: dict[str, Any] = {
        "gate": case.gate.value,
        "suite": printable(case.suite),
        "caseId": printable(case.case_id),
        "language": printable(case.language),
        "outcome": case.outcome.value,
    }
    if attack is not None:
        properties["attackType"] = attack.value
    finding: dict[str, Any] = {
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": _LEVEL[case.outcome],
        "message": {"text": _message(case)},
        "locations": [{"physicalLocation": where}],
        "partialFingerprints": {FINGERPRINT: _fingerprint(case)},
        "properties": properties,
    }
    if waiver is not None:
        finding["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": waiver}
        ]
    return finding


def _kind(outcome: Outcome) -> str:
    """What a finding is, for its identity: a waived failure is still the failure."""
    match outcome:
        case Outcome.FAILED | Outcome.WAIVED:
            return Outcome.FAILED.value
        case Outcome.ERRORED | Outcome.UNJUDGED | Outcome.NOT_RUN | Outcome.PASSED:
            return outcome.value
        case _:  # pragma: no cover - every outcome is matched above
            assert_never(outcome)


def _fingerprint(case: CaseEvidence) -> str:
    identity = [case.gate.value, case.case_id, _kind(case.outcome)]
    return hashlib.sha256(canonical_text(identity).encode("utf-8")).hexdigest()


def _message(case: CaseEvidence) -> str:
    head = f"{case.gate.value} case {case.case_id} [{case.language}] {case.outcome.value}: "
    return _safe(head + case.reason, MESSAGE_LIMIT)


def _safe(text: str, limit: int) -> str:
    """Untrusted text for a SARIF string: masked, then on one line, then cut to `limit`."""
    return clipped(printable(masked(text)), limit)


def _justifications(pack: EvidencePack) -> dict[str, str]:
    """Each waived case's justification: the waiver's owner, expiry, ticket and reason."""
    return {
        case.case_id: _safe(
            f"waived by {waiver.owner} until {waiver.expires} ({waiver.ticket}): {waiver.reason}",
            JUSTIFICATION_LIMIT,
        )
        for waiver in pack.waivers
        for case in waiver.cases
        if case.state is WaiverState.APPLIED
    }


def _artifact_uri(case: CaseEvidence, *, root: PurePosixPath, cwd: PurePosixPath) -> str:
    """The case file's URI relative to `root`, percent-encoded; refused outside `root`."""
    path = PurePosixPath(case.source)
    if not path.is_absolute():
        path = cwd / path
    normal = PurePosixPath(posixpath.normpath(path.as_posix()))
    top = PurePosixPath(posixpath.normpath(root.as_posix()))
    # The pack names a built-in suite `builtin:NAME`: a suite shipped with gauntlet, in no
    # repository.
    builtin = case.source.startswith(BUILTIN_PREFIX)
    if builtin or normal == top or not normal.is_relative_to(top):
        where = (
            "is a built-in suite, in no repository"
            if builtin
            else f"is not under the repository root {printable(str(top))}"
        )
        raise UsageError(
            f"case {printable(case.case_id)}: its file {printable(case.source)} {where}, and "
            "SARIF names every finding's file from that root; give the root of the "
            "repository that holds the case files as ",
            Parameter("source_root"),
        )
    return quote(normal.relative_to(top).as_posix(), safe="/")
