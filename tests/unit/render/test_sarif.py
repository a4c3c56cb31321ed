"""SARIF for GitHub code scanning: valid 2.1.0, findings that keep their identity, safe text.

Every file is validated against the OASIS SARIF 2.1.0 schema vendored in `tests/sarif/`, and
compared with its golden file in `tests/golden/<scenario>/gauntlet.sarif`
(`--update-golden` rewrites them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
import pytest

from gauntlet.display import masking
from gauntlet.errors import UsageError
from gauntlet.evidence.pack import EvidencePack, build_pack
from gauntlet.render.sarif import FINGERPRINT, MESSAGE_LIMIT, attack_types, render_sarif
from gauntlet.run.results import Outcome, Results
from gauntlet.targets.toy import ToyDefect

from ... import evidence_fixtures as fx

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
SCHEMA = json.loads((ROOT / "tests" / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
REPO = PurePosixPath("/work/repo")
"""Where the golden runs are taken to have run: their case files are `suites/...` under it."""

SCENARIOS: dict[str, Callable[[], Results]] = {
    "clean": fx.clean,
    "failing": lambda: fx.with_defect(ToyDefect.DROP_CITATIONS),
    "unscoreable": fx.unscoreable,
    "incomplete": fx.incomplete,
    "pushback": lambda: fx.with_defect(ToyDefect.YIELDS_TO_PUSHBACK),
    "flaky-vs-clean": fx.flaky,
    "judged": fx.judged,
    "trajectory": fx.trajectory,
    "waived-vs-clean": fx.waived,
}
"""The golden scenarios' results (a baseline changes nothing SARIF holds)."""


def _sarif(results: Results, pack: EvidencePack | None = None, **where: PurePosixPath) -> Any:
    text = render_sarif(
        build_pack(results) if pack is None else pack,
        attack_types=attack_types(results),
        root=where.get("root", REPO),
        cwd=where.get("cwd", REPO),
    )
    return json.loads(text)


def _results_of(document: Any) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = document["runs"][0]["results"]
    return results


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_golden_sarif(scenario: str, request: pytest.FixtureRequest) -> None:
    results = SCENARIOS[scenario]()
    rendered = render_sarif(
        build_pack(results), attack_types=attack_types(results), root=REPO, cwd=REPO
    )
    path = GOLDEN / scenario / "gauntlet.sarif"
    if request.config.getoption("--update-golden"):
        path.write_text(rendered, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == rendered, "refresh with --update-golden"


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_sarif_file_validates_against_the_sarif_2_1_0_schema(scenario: str) -> None:
    # Trap: a SARIF file GitHub refuses at upload (a misspelt key, a level it does not know,
    # a region line of 0), which no golden file notices because the golden was made from it.
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA).validate(_sarif(SCENARIOS[scenario]()))


def test_the_schema_check_refuses_what_code_scanning_would() -> None:
    # Trap: a validation that passes anything (a schema that failed to load as one, or
    # validated in a way that ignores its constraints).
    document = _sarif(fx.with_defect(ToyDefect.DROP_CITATIONS))
    _results_of(document)[0]["level"] = "critical"
    with pytest.raises(jsonschema.ValidationError, match="critical"):
        jsonschema.Draft4Validator(SCHEMA).validate(document)


def test_every_case_that_did_not_pass_is_a_finding_at_the_level_of_its_outcome() -> None:
    # Trap: an errored, unjudged or unasked case dropped from the findings (a case that got no
    # answer must never look like a pass), or reported as loudly as a failure.
    for results in (fx.incomplete(), fx.judged(), fx.with_defect(ToyDefect.DROP_CITATIONS)):
        findings = _results_of(_sarif(results))
        not_passed = [case for case in results.cases if case.outcome is not Outcome.PASSED]
        assert [f["properties"]["caseId"] for f in findings] == [c.case_id for c in not_passed]
        levels = {
            Outcome.FAILED: "error",
            Outcome.WAIVED: "error",
            Outcome.ERRORED: "warning",
            Outcome.UNJUDGED: "warning",
            Outcome.NOT_RUN: "note",
        }
        assert [f["level"] for f in findings] == [levels[c.outcome] for c in not_passed]
    assert {f["level"] for f in _results_of(_sarif(fx.judged()))} == {"error", "warning"}
    assert {f["level"] for f in _results_of(_sarif(fx.incomplete()))} == {"note"}
    assert _results_of(_sarif(fx.clean())) == []


def test_a_finding_is_located_at_its_case_line_relative_to_the_repository_root() -> None:
    # Trap: an absolute path (code scanning matches findings to files by their path in the
    # repository) or a line that is not the case's.
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    failed = [case for case in results.cases if case.outcome is Outcome.FAILED]
    document = _sarif(results, root=REPO.parent, cwd=REPO)
    for case, finding in zip(failed, _results_of(document), strict=True):
        physical = finding["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {
            "uri": f"repo/{case.source}",
            "uriBaseId": "%SRCROOT%",
        }
        assert physical["region"] == {"startLine": case.line}
    assert "%SRCROOT%" in document["runs"][0]["originalUriBaseIds"]


@pytest.mark.parametrize(
    ("source", "uri"),
    [
        ("suites/a.yaml", "suites/a.yaml"),
        ("./suites/../suites/a.yaml", "suites/a.yaml"),
        ("/work/repo/suites/a.yaml", "suites/a.yaml"),
        ("suites/a b#c?d%.yaml", "suites/a%20b%23c%3Fd%25.yaml"),
        ("suites/\x1b[31m\n.yaml", "suites/%1B%5B31m%0A.yaml"),
    ],
)
def test_a_case_file_inside_the_root_is_named_by_a_relative_uri(source: str, uri: str) -> None:
    # Trap: `..` or `.` left in a path, or a character that ends or changes a URI (a space,
    # `#`, `?`, `%`, a control) written as it is.
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    case = next(case for case in results.cases if case.outcome is Outcome.FAILED)
    moved = case.model_copy(update={"source": source})
    results = results.model_copy(update={"cases": (moved,)})
    finding = _results_of(_sarif(results))[0]
    assert finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri


@pytest.mark.parametrize(
    "source",
    [
        "/etc/gauntlet/suites/a.yaml",
        "../elsewhere/a.yaml",
        "suites/../../elsewhere/a.yaml",
        "/work/repository/a.yaml",
        "/work/repo",
        str(ROOT / "suites" / "adversarial.yaml"),
    ],
)
def test_a_case_file_outside_the_repository_root_is_refused(source: str) -> None:
    # Trap: an absolute path from the runner's disk written into a file uploaded to GitHub,
    # or `../` climbing out of the repository (`/work/repository` only shares a prefix with
    # `/work/repo`); refused with a message naming the file and the option, not dropped.
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    case = next(case for case in results.cases if case.outcome is Outcome.FAILED)
    moved = case.model_copy(update={"source": source})
    results = results.model_copy(update={"cases": (moved,)})
    with pytest.raises(UsageError, match="source_root") as raised:
        _sarif(results)
    assert case.case_id in str(raised.value)


def test_a_sarif_finding_keeps_its_fingerprint_when_its_answer_changes() -> None:
    # Trap: a fingerprint taken over the reason (which quotes the answer, different on every
    # run), so code scanning closes the finding and opens a new one each time.
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    pack = build_pack(results)
    first = next(case for case in pack.cases if case.outcome is Outcome.FAILED)
    reworded = first.model_copy(update={"reason": "uncited answer: 'something else', line 2"})
    moved = first.model_copy(update={"line": first.line + 40, "suite": "elsewhere"})
    errored = first.model_copy(update={"outcome": Outcome.ERRORED})
    renamed = first.model_copy(update={"case_id": first.case_id + "-2"})

    def fingerprint(case: Any) -> str:
        findings = _results_of(_sarif(results, pack.model_copy(update={"cases": (case,)})))
        value: str = findings[0]["partialFingerprints"][FINGERPRINT]
        return value

    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint(first))
    assert fingerprint(reworded) == fingerprint(moved) == fingerprint(first)
    assert fingerprint(errored) != fingerprint(first)
    assert fingerprint(renamed) != fingerprint(first)
    findings = _results_of(_sarif(results))
    assert len({f["partialFingerprints"][FINGERPRINT] for f in findings}) == len(findings)


def test_a_waived_failure_keeps_its_fingerprint_and_is_suppressed_with_its_justification() -> None:
    # Trap: a waived failure left out (code scanning would close the alert and reopen it when
    # the waiver expires) or shown as an open alert with no word of the waiver.
    waived = _results_of(_sarif(fx.waived()))
    failing = _results_of(_sarif(fx.with_defect(ToyDefect.DROP_CITATIONS)))
    assert [f["partialFingerprints"] for f in waived] == [f["partialFingerprints"] for f in failing]
    waiver = fx.waived().waivers[0]
    for finding in waived:
        (suppression,) = finding["suppressions"]
        assert suppression["kind"] == "external"
        assert suppression["status"] == "accepted"
        assert waiver.owner in suppression["justification"]
        assert waiver.ticket in suppression["justification"]
        assert str(waiver.expires) in suppression["justification"]
    assert all("suppressions" not in finding for finding in failing)


def test_a_finding_message_is_masked_one_line_and_bounded() -> None:
    # Trap: a reason quoting the answer carries a secret the target echoed, a terminal escape
    # or a line break into a file GitHub shows, or a megabyte of answer into every alert.
    results = fx.with_defect(ToyDefect.DROP_CITATIONS)
    pack = build_pack(results)
    case = next(case for case in pack.cases if case.outcome is Outcome.FAILED)
    reason = "says 'sk-live-0123456789' \x1b[2J\n::error::forged\u202e " + "x" * 50_000
    hostile = pack.model_copy(update={"cases": (case.model_copy(update={"reason": reason}),)})
    with masking(lambda text: text.replace("sk-live-0123456789", "[REDACTED]")):
        text = _results_of(_sarif(results, hostile))[0]["message"]["text"]
    assert "sk-live-0123456789" not in text
    assert "[REDACTED]" in text
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e]", text)
    assert "\\x1b[2J\\n::error::forged\\u202e" in text
    assert len(text) <= MESSAGE_LIMIT
    assert text.endswith("…")


def test_every_gate_is_a_rule_and_each_attack_type_a_rule_within_the_adversarial_one() -> None:
    # Trap: a finding whose rule is not in the driver's rules (code scanning refuses it), or
    # every attack reported under one rule so a team cannot tell a leak from a jailbreak.
    results = fx.unscoreable()
    document = _sarif(results)
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert {f"gauntlet/{gate.gate.value}" for gate in build_pack(results).gates} <= set(ids)
    named = {str(kind) for kind in attack_types(results).values()}
    assert {f"gauntlet/adversarial/{kind}" for kind in named} <= set(ids)
    for rule in rules:
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert rule["help"]["text"]
        if rule["id"].startswith("gauntlet/adversarial/"):
            (relation,) = rule["relationships"]
            assert relation["target"]["id"] == "gauntlet/adversarial"
            assert ids[relation["target"]["index"]] == "gauntlet/adversarial"
    findings = _results_of(document)
    assert findings
    for finding in findings:
        assert ids[finding["ruleIndex"]] == finding["ruleId"]
        kind = finding["properties"]["attackType"]
        assert finding["ruleId"] == f"gauntlet/adversarial/{kind}"


def test_the_run_carries_its_verdict_digest_and_version() -> None:
    # Trap: findings with no verdict beside them: an empty SARIF file from a withheld run
    # reads as a clean one.
    results = fx.incomplete()
    pack = build_pack(results)
    run = _sarif(results)["runs"][0]
    assert run["properties"]["verdict"] == pack.verdict.status.value
    assert run["properties"]["withheldBecause"] == "incomplete"
    assert run["properties"]["exitCode"] == pack.verdict.exit_code
    assert run["properties"]["resultsDigest"] == pack.results_digest
    assert run["properties"]["runGauntletVersion"] == pack.run.run_gauntlet_version
    assert run["tool"]["driver"]["name"] == "gauntlet"
    assert run["tool"]["driver"]["version"] == pack.built_by


def test_an_attack_type_a_results_file_does_not_know_is_not_a_rule() -> None:
    # Trap: a hand-edited results file naming any text as an attack type, which would become
    # a rule id and a description in the uploaded file.
    results = fx.unscoreable()
    case = next(c for c in results.cases if c.definition and "attack_type" in c.definition.case)
    assert case.definition is not None
    forged = case.definition.model_copy(
        update={"case": {**case.definition.case, "attack_type": "x/../\n::error::"}}
    )
    changed = results.model_copy(
        update={"cases": (case.model_copy(update={"definition": forged}),)}
    )
    assert attack_types(changed) == {}
