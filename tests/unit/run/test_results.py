"""The results file: written atomically, read back strictly, refused when newer or forged."""

from __future__ import annotations

import json
import re
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gauntlet import limits
from gauntlet.errors import ResultsError
from gauntlet.evidence.digest import digest_record, results_digest
from gauntlet.run import results_file
from gauntlet.run.custody import SIGNING_KEY, signed, signing_key
from gauntlet.run.results import (
    RESULTS_SCHEMA_VERSION,
    Outcome,
    Plan,
    Results,
    TargetInfo,
    Totals,
    Verdict,
)
from gauntlet.run.results_file import read_results, rederive, write_results
from gauntlet.targets.contract import ToolCall
from gauntlet.targets.toy import ToyDefect

from ...evidence_fixtures import before_disclosure, clean, flaky, judged, unscoreable, with_defect
from ...run_settings import settings_for

WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _results() -> Results:
    return Results(
        schema_version=RESULTS_SCHEMA_VERSION,
        gauntlet_version="0.0.0",
        started_at=WHEN,
        finished_at=WHEN,
        target=TargetInfo(kind="toy", name="toy"),
        plan=Plan(cases=0, digest="sha256:0", repeat=1),
        shard=None,
        run_id=None,
        complete=True,
        interrupted_by=None,
        verdict=Verdict.PASS,
        verdict_reason="every gate met its threshold",
        capability_scored=False,
        unreadable_answers=0,
        totals=Totals(total=0, passed=0, failed=0, errored=0, not_run=0),
        gates=(),
        suites=(),
        cases=(),
    )


def test_schema_version_is_the_first_field(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_results(_results(), path)
    assert next(iter(json.loads(path.read_text()))) == "schema_version"


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_results(_results(), path)
    assert read_results(path) == _results()
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left behind


def test_a_failed_write_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "r.json"

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("gauntlet.files.os.replace", broken)
    with pytest.raises(ResultsError, match="No space left on device"):
        write_results(_results(), path)
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_place_is_a_results_error(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot write the results"):
        write_results(_results(), tmp_path / "missing-dir" / "r.json")


def test_a_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = _results().model_dump(mode="json")
    data["schema_version"] = RESULTS_SCHEMA_VERSION + 1
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="newer than this gauntlet reads"):
        read_results(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "1:2: not JSON"),
        ("[]", "no schema_version"),
        (
            '{"schema_version": 1}',
            "not a valid results file(.|\\n)*r.json: gauntlet_version: Field",
        ),
    ],
)
def test_what_is_not_a_results_file_is_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ResultsError, match=message):
        read_results(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot read"):
        read_results(tmp_path / "nope.json")


def test_an_inconsistent_file_is_refused_with_every_problem_located(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = _results().model_dump(mode="json")
    data["totals"]["passed"] = 3
    data["complete"] = False
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert str(caught.value) == (
        f"{path}: results that disagree with themselves:\n"
        f"  {path}: complete: False in the file, but its own cases give True\n"
        f"  {path}: totals.passed: 3 in the file, but its own cases give 0"
    )


def _forged(tmp_path: Path, results: Results, change: object) -> Path:
    data = results.model_dump(mode="json")
    change(data)  # type: ignore[operator]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    return path


def _first(data: dict[str, object], outcome: str) -> dict[str, object]:
    cases = data["cases"]
    assert isinstance(cases, list)
    found: dict[str, object] = next(c for c in cases if c["outcome"] == outcome)
    return found


def test_a_verdict_changed_by_hand_is_refused_and_named(tmp_path: Path) -> None:
    """The observed attack: fail changed to pass rendered a PASS pack with the same digest."""
    failing = with_defect(ToyDefect.DROP_CITATIONS)
    path = _forged(tmp_path, failing, lambda d: d.update(verdict="pass"))
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert f"{path}: verdict: 'pass' in the file, but its own cases give 'fail'" in str(
        caught.value
    )


def _unmet(data: dict[str, object], key: str) -> dict[str, Any]:
    """The first gate or suite that missed its threshold."""
    entries = data[key]
    assert isinstance(entries, list)
    found: dict[str, Any] = next(entry for entry in entries if not entry["met"])
    return found


def _trial_passes(data: dict[str, object]) -> None:
    case = _first(data, "failed")
    trials = case["trials"]
    assert isinstance(trials, list)
    trials[0].update(outcome="passed", reason="")


def _failing_case_removed(data: dict[str, object]) -> None:
    cases = data["cases"]
    assert isinstance(cases, list)
    cases.remove(_first(data, "failed"))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.update(verdict_reason="every gate met its threshold"), "verdict_reason"),
        (lambda d: _first(d, "failed").update(outcome="passed", reason=""), ".outcome"),
        (lambda d: _first(d, "failed").update(passes=1), ".passes"),
        (lambda d: _first(d, "failed").update(flaky=True), ".flaky"),
        (lambda d: _first(d, "failed").update(reason="fine"), ".reason"),
        (_trial_passes, "scored again by its gate"),
        (lambda d: _unmet(d, "gates").update(met=True), "].met"),
        (lambda d: _unmet(d, "gates").update(pass_rate=1.0), "].pass_rate"),
        (lambda d: _unmet(d, "gates").update(wilson_low=0.9), "].wilson_low"),
        (lambda d: _unmet(d, "gates")["languages"][0].update(passed=8), "languages[0].passed"),
        (lambda d: _unmet(d, "suites").update(met=True), "].met"),
        (lambda d: _unmet(d, "suites").update(passed=16), "].passed"),
        (lambda d: d["totals"].update(failed=0), "totals.failed"),
        (lambda d: d.update(unreadable_answers=3), "unreadable_answers"),
        (lambda d: d.update(complete=False), "complete"),
        (_failing_case_removed, "a whole run holds every case it planned"),
        (lambda d: d["cases"][0]["trials"][0].update(said_something=False), "said_something"),
        (lambda d: d["cases"][0].update(reason="x\n::error::forged"), "one line"),
        (lambda d: d["cases"][0].update(case_id="x\n# Heading @everyone"), "case_id"),
        (lambda d: d["cases"][0].update(language="<img src=x>"), "language"),
        (lambda d: d.update(interrupted_by="SIG\u001b[2J"), "interrupted_by"),
        (lambda d: d.update(run_id="1\n::error::x"), "run_id"),
    ],
)
def test_every_derived_value_is_derived_again_and_a_forgery_named(
    tmp_path: Path, change: object, named: str
) -> None:
    failing = with_defect(ToyDefect.DROP_CITATIONS)
    read_results(_forged(tmp_path, failing, lambda d: None))  # the file as written is sound
    with pytest.raises(ResultsError, match=re.escape(named)):
        read_results(_forged(tmp_path, failing, change))


@pytest.mark.parametrize("fixture", [clean, flaky, unscoreable])
def test_what_gauntlet_writes_reads_back_as_written(tmp_path: Path, fixture: object) -> None:
    results = fixture()  # type: ignore[operator]
    path = tmp_path / "r.json"
    write_results(results, path)
    assert read_results(path) == results
    assert rederive(results) == results


def test_capability_cannot_be_claimed_for_an_adversarial_suite(tmp_path: Path) -> None:
    # Claiming capability would turn UNSCOREABLE (exit 4) into a verdict that can pass.
    def claim(data: dict[str, object]) -> None:
        data["suites"][0]["capability"] = True  # type: ignore[index]
        data["capability_scored"] = True

    with pytest.raises(ResultsError, match=re.escape("suites[0].capability: True")):
        read_results(_forged(tmp_path, unscoreable(), claim))


def test_the_digest_covers_the_verdict_and_every_outcome() -> None:
    failing = with_defect(ToyDefect.DROP_CITATIONS)
    assert results_digest(failing.model_copy(update={"verdict": Verdict.PASS})) != results_digest(
        failing
    )
    case = next(c for c in failing.cases if c.outcome.value == "failed")
    trial = case.trials[0].model_copy(update={"outcome": case.trials[0].outcome.PASSED})
    edited = case.model_copy(update={"trials": (trial,)})
    cases = tuple(edited if c is case else c for c in failing.cases)
    assert results_digest(failing.model_copy(update={"cases": cases})) != results_digest(failing)


def test_a_version_1_file_is_read_as_one_without_a_run_id(tmp_path: Path) -> None:
    data = before_disclosure().model_dump(mode="json")
    del data["run_id"]
    data["schema_version"] = 1
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(data))
    results = read_results(path)
    assert results.run_id is None
    assert results.schema_version == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"schema_version": true}', "no schema_version"),
        ('{"schema_version": 2, "cases": [' + "[" * 50_000 + "]" * 50_000 + "]}", "not a"),
    ],
)
def test_a_hostile_file_is_refused_not_crashed_on(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ResultsError, match=message):
        read_results(path)


def test_an_earlier_versions_readability_judgement_is_kept_not_redone(tmp_path: Path) -> None:
    """A stricter readability rule must not make last month's baseline unreadable."""
    written = before_disclosure()
    data = written.model_dump(mode="json")
    trial = data["cases"][0]["trials"][0]
    assert trial["said_something"] is True
    trial["said_something"] = False  # as a rule that judged this answer silent would have
    data["unreadable_answers"] += 1
    path = tmp_path / "judged.json"
    earlier = {"gauntlet_version": "0.0.9"}
    older_format = {"schema_version": 1}
    for change, accepted in ((earlier, True), (older_format, True), ({}, False)):
        written_by = {**data, **change}
        if written_by["schema_version"] == 1:
            del written_by["run_id"]
        path.write_text(json.dumps(written_by))
        if accepted:
            read_results(path)  # its own judgement stands; its counts must still agree with it
        else:
            with pytest.raises(ResultsError, match="said_something"):
                read_results(path)


def test_a_results_file_the_first_format_wrote_still_reads(tmp_path: Path) -> None:
    """Last month's baseline: written by gauntlet 0.1.0 in format 1, before `run_id`."""
    path = Path(__file__).parents[2] / "corpus" / "results" / "v1-golden-answer-drift.json"
    results = read_results(path)
    assert (results.schema_version, results.run_id) == (1, None)
    assert results.verdict is Verdict.FAIL
    assert {case.outcome.value for case in results.cases} == {"failed"}


def test_a_suite_with_no_case_is_refused_not_crashed_on(tmp_path: Path) -> None:
    # The trap: a gate of zero cases has no pass rate (0 / 0), and the report divided by it.
    data = clean().model_dump(mode="json")
    first = data["suites"][0]["suite"]
    kept = [case for case in data["cases"] if case["suite"] != first]
    # Otherwise whole: the plan counts the cases that are left, indexed from 0.
    data["cases"] = [{**case, "index": index} for index, case in enumerate(kept)]
    data["plan"]["cases"] = len(kept)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert str(caught.value) == (
        f"{path}: results that disagree with themselves:\n"
        f"  {path}: suites[0]: {first} has no case in the file"
    )


def _version_4(calls: list[dict[str, Any]], provenance: dict[str, Any] | None) -> dict[str, Any]:
    """`before_disclosure()` as format 4 wrote it: each ask's tool calls beside its response,
    as JSON text."""
    data = before_disclosure().model_dump(mode="json")
    data["schema_version"] = 4
    for case in data["cases"]:
        for trial in case["trials"]:
            trial["tool_calls"] = []
            del trial["scores"]
            # The toy did not report calls then: none in a response, none in a provenance.
            for ask in (trial, *(trial.get("turns") or ())):
                for key in ("response", "provenance"):
                    if ask.get(key) is not None:
                        ask[key].pop("tool_calls", None)
    trial = data["cases"][0]["trials"][0]
    trial["tool_calls"] = calls
    if provenance is not None:
        trial["provenance"] = {**(trial["provenance"] or {}), "tool_calls": provenance}
    return data


def test_a_version_4_files_tool_calls_move_into_the_response_decoded(tmp_path: Path) -> None:
    calls = [{"name": "lookup_hours", "arguments": '{"facility": "central"}', "id": "call_1"}]
    path = tmp_path / "v4.json"
    path.write_text(json.dumps(_version_4(calls, {"origin": "declared", "rule": "`x`"})))
    results = read_results(path)
    response = results.cases[0].trials[0].response
    assert response is not None and response.tool_calls is not None
    (call,) = response.tool_calls
    assert (call.id, call.name, call.arguments) == (
        "call_1",
        "lookup_hours",
        {"facility": "central"},
    )
    # Every other ask reported nothing: its calls stay unreported, not "none made".
    others = [t.response for c in results.cases for t in c.trials][1:]
    assert all(r is None or r.tool_calls is None for r in others)


def test_a_version_4_call_whose_arguments_are_not_an_object_is_refused_by_name(
    tmp_path: Path,
) -> None:
    calls = [{"name": "lookup_hours", "arguments": "[1, 2]", "id": "call_1"}]
    path = tmp_path / "v4.json"
    path.write_text(json.dumps(_version_4(calls, {"origin": "declared"})))
    with pytest.raises(ResultsError, match=r"cases\[0\]\.trials\[0\]\.tool_calls\[0\]"):
        read_results(path)


def _with_calls(results: Results, calls: tuple[ToolCall, ...] | None) -> Results:
    case = results.cases[0]
    trial = case.trials[0]
    assert trial.response is not None
    response = trial.response.model_copy(update={"tool_calls": calls})
    edited = case.model_copy(
        update={"trials": (trial.model_copy(update={"response": response}), *case.trials[1:])}
    )
    return results.model_copy(update={"cases": (edited, *results.cases[1:])})


def test_the_digest_covers_the_trajectory_and_keeps_an_unreported_ones_digest() -> None:
    results = clean()
    call = ToolCall(id="call_1", name="lookup_hours", arguments={"facility": "central"})
    reported = _with_calls(results, (call,))
    other = _with_calls(results, (call.model_copy(update={"arguments": {"facility": "branch"}}),))
    assert len({results_digest(r) for r in (results, reported, other)}) == 3
    # No call reported: the record the formats before tool calls covered, digest unchanged.
    record = digest_record(_with_calls(results, None).cases[0])
    assert "tool_calls" not in record["asks"][0]["response"]
    unreported = results_digest(_with_calls(results, None))
    assert results_digest(_with_calls(results, ())) != unreported


@pytest.mark.parametrize(
    ("calls", "where"),
    [
        ("not a list", r"cases\[0\]\.trials\[0\]\.tool_calls: not a list"),
        (["a call"], r"cases\[0\]\.trials\[0\]\.tool_calls\[0\]"),
        ([{"id": "c", "name": "x", "arguments": 7}], r"cases\[0\]\.trials\[0\]\.tool_calls\[0\]"),
        ([{"name": "x", "arguments": "{}"}], r"cases\[0\]\.trials\[0\]\.tool_calls\[0\]"),
    ],
)
def test_a_hostile_version_4_call_is_refused_by_its_place(
    tmp_path: Path, calls: Any, where: str
) -> None:
    data = _version_4([], {"origin": "declared"})
    data["cases"][0]["trials"][0]["tool_calls"] = calls
    path = tmp_path / "v4.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=where):
        read_results(path)


def _disclosure_run() -> Any:
    from gauntlet.cases.builtin import builtin_suites_dir
    from gauntlet.cases.loader import load_suites
    from gauntlet.run.engine import run_gauntlet
    from gauntlet.run.results import TargetInfo
    from gauntlet.targets.toy import make_toy

    suites = load_suites([builtin_suites_dir() / "disclosure.yaml"])
    toy = make_toy([ToyDefect.NO_DISCLOSURE])
    return run_gauntlet(suites, toy, settings_for(suites, TargetInfo(kind="toy", name=toy.name)))


def test_a_disclosure_run_is_written_in_the_current_format_and_reads_back(tmp_path: Path) -> None:
    written = _disclosure_run()
    path = tmp_path / "r.json"
    write_results(written, path)
    results = read_results(path)
    assert (results.schema_version, RESULTS_SCHEMA_VERSION) == (11, 11)
    assert [suite.gate.value for suite in results.suites] == ["disclosure"]
    assert results.verdict is Verdict.FAIL


def test_a_format_5_file_naming_the_disclosure_gate_is_refused(tmp_path: Path) -> None:
    # Trap: a file claiming a format that had no disclosure gate, read as if it had one.
    data = _disclosure_run().model_dump(mode="json")
    data["schema_version"] = 5
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert str(caught.value) == (
        f"{path}: not a valid results file:\n"
        f"  {path}: suites[0].gate: 'disclosure' arrived with results format 6, so a format 5 "
        "file cannot name it"
    )


def test_a_format_5_file_without_the_disclosure_gate_still_reads(tmp_path: Path) -> None:
    data = before_disclosure().model_dump(mode="json")
    data["schema_version"] = 5
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert read_results(path).schema_version == 5


# ------------------------------------------------------------------ writing, byte for byte


def _as_pydantic_writes_it(results: Results) -> bytes:
    """The file gauntlet has always written: pydantic's JSON of the signed results, a newline."""
    signed_results = signed(results, signing_key())
    unsigned = {"signature"} if signed_results.signature is None else None
    return (signed_results.model_dump_json(indent=2, exclude=unsigned) + "\n").encode("utf-8")


def _non_ascii() -> Results:
    results = clean()
    first = results.cases[0]
    trial = first.trials[0]
    assert trial.response is not None
    answer = trial.response.model_copy(update={"text": 'Öffnungszeiten: 9–17 Uhr 😀\n"quoted"'})
    trials = (trial.model_copy(update={"response": answer}), *first.trials[1:])
    return results.model_copy(
        update={"cases": (first.model_copy(update={"trials": trials}), *results.cases[1:])}
    )


@pytest.mark.parametrize("at_a_time", [1, 7, 500])
@pytest.mark.parametrize("signing", ["", "a key"])
@pytest.mark.parametrize(
    "fixture", [_results, clean, flaky, unscoreable, before_disclosure, _non_ascii]
)
def test_the_results_file_is_pydantics_json_of_the_results_byte_for_byte(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fixture: object,
    signing: str,
    at_a_time: int,
) -> None:
    # Trap: a writer that puts the file together piece by piece can drift from the one
    # serialisation every reader, digest and golden file assumes (a comma between two
    # slices of cases, an indent, the signature's place, a character escaped differently).
    monkeypatch.setenv(SIGNING_KEY, signing)
    monkeypatch.setattr(results_file, "_CASES_AT_A_TIME", at_a_time)
    results = fixture()  # type: ignore[operator]
    path = tmp_path / "r.json"
    write_results(results, path)
    assert path.read_bytes() == _as_pydantic_writes_it(results)


def test_a_file_over_the_limit_names_its_whole_size_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a writer that stops counting where the limit is passed names a size that is not
    # the file's, or leaves the start of a file (or its temporary) behind.
    results = _many_cases(20)
    size = len(_as_pydantic_writes_it(results))
    monkeypatch.setattr(limits, "MAX_RESULTS_BYTES", size // 2)
    path = tmp_path / "r.json"
    with pytest.raises(ResultsError, match=f"the results would be {size:,} bytes, over the"):
        write_results(results, path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(limits, "MAX_RESULTS_BYTES", size)
    write_results(results, path)  # exactly at the limit is written
    assert path.stat().st_size == size


def _many_cases(copies: int) -> Results:
    results = clean()
    return results.model_copy(update={"cases": results.cases * copies})


def test_writing_the_results_holds_no_whole_copy_of_the_file_in_memory(tmp_path: Path) -> None:
    # Trap: the whole file serialised as one text, copied to add its newline, encoded to count
    # its bytes and encoded again to be written, held two copies of it at the run's end: the
    # peak memory of a 5,000-case run grew by twice the file (about 22 MB).
    results = _many_cases(32)  # 3,584 cases, 11 MB
    path = tmp_path / "r.json"
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        write_results(results, path)
        held = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert size > 10_000_000
    assert held < size / 4, f"{held:,} bytes held while writing a {size:,}-byte file"


@pytest.mark.parametrize("version", range(1, results_file.RESCORED_SINCE))
@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("cases", 7),
        ("cases", "abc"),
        ("trials", 7),
        ("trials", {"a": 1}),
        ("turns", 7),
        ("provenance", ["tool_calls"]),
        ("provenance", {"tool_calls": "declared"}),
    ],
)
def test_an_older_file_of_any_shape_is_refused_as_invalid_never_an_internal_error(
    tmp_path: Path, version: int, where: str, value: Any
) -> None:
    # Trap: upgrading an older file's data walked `cases`, `trials`, `turns` and a trial's
    # `provenance` as if each were the list or object its format writes; a number there (a
    # hostile or damaged file) ended the read in TypeError, "internal error", not exit 2.
    data = json.loads(clean().model_dump_json())
    data["schema_version"] = version
    trial = data["cases"][0]["trials"][0]
    trial["tool_calls"] = []
    if where == "cases":
        data["cases"] = value
    elif where == "trials":
        data["cases"][0]["trials"] = value
    elif where == "turns":
        trial["turns"] = value
    else:
        trial["provenance"] = value
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError):
        read_results(path)


def test_a_judged_ask_whose_judge_checks_were_removed_is_refused(tmp_path: Path) -> None:
    # Trap: the judge's checks taken as optional: an edited file that deletes the judge's
    # failing checks of an answer the gate passed, calls the ask passed and derives every
    # count again (so the file agrees with itself), read as a pass.
    results = judged()
    cases = []
    for case in results.cases:
        if case.case_id == "jdg-en-permit-fee":
            (trial,) = case.trials
            assert {check.outcome for check in trial.judged} == {"failed"}
            trial = trial.model_copy(update={"judged": (), "outcome": Outcome.PASSED, "reason": ""})
            case = case.model_copy(update={"trials": (trial,)})
        cases.append(case)
    forged = rederive(results.model_copy(update={"cases": tuple(cases)}))
    path = tmp_path / "judged.json"
    path.write_text(forged.model_dump_json(), encoding="utf-8")
    with pytest.raises(ResultsError) as caught:
        read_results(path)
    assert "records no judge check, which its case needs" in str(caught.value)
