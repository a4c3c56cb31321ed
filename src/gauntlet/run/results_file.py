"""The results file on disk: written atomically, and read back only if it agrees with itself.

A results file is what CI and a reviewer trust, so a reader re-derives everything that can be
derived (each case's outcome from its asks, every count, rate, gate and suite result from the
outcomes, the verdict from the counts) and refuses a file in which any stored value disagrees,
naming the field. Changing `"verdict": "fail"` to `"pass"` gives an error, not a PASS. The same
check guards `gauntlet report`, a `--baseline` and every shard `gauntlet merge` reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gauntlet import limits
from gauntlet.cases.model import GateName, GoldenMatch
from gauntlet.display import printable
from gauntlet.errors import ResultsError
from gauntlet.files import read_or_raise, write_atomically
from gauntlet.gates.readability import said_something
from gauntlet.languages import primary_language
from gauntlet.run.custody import custody_problem, signed, signing_key
from gauntlet.run.results import (
    KINDS_RENAMED_IN,
    OLD_TARGET_KINDS,
    RESULTS_SCHEMA_VERSION,
    SIMILARITY_SINCE,
    CaseResult,
    Outcome,
    Results,
    SuiteResult,
    Trial,
)
from gauntlet.run.scoring import rescore_problems
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.run.tally import (
    after_gate_outcome,
    conversation_outcome,
    decide_case,
    is_flaky,
    shard_of,
    summarize,
)
from gauntlet.self_checked import checked_version, differences, located, validation_problems
from gauntlet.trajectory.scoring import decode_arguments
from gauntlet.version import __version__

# Capability is a suite's own fact for these gates, whatever its cases; for grounding and
# refusal it depends on the cases' kinds, which a results file does not keep.
_CAPABILITY = {GateName.FALSE_POSITIVE: True, GateName.GOLDEN: True, GateName.ADVERSARIAL: False}


def _UNSIGNED(results: Results) -> set[str] | None:  # reads as what it leaves out
    return {"signature"} if results.signature is None else None


def write_results(results: Results, path: Path) -> None:
    """Write `results` to `path` atomically: a reader sees the old file or the whole new one.

    Raises:
        ResultsError: the file would be over `gauntlet.limits.MAX_RESULTS_BYTES` (nothing is
            written), or it cannot be written.
    """
    results = signed(results, signing_key())
    try:
        write_atomically(path, _within_limit(_results_json(results), path))
    except OSError as exc:
        raise ResultsError(f"{path}: cannot write the results: {exc.strerror or exc}") from exc


def _results_json(results: Results) -> Iterator[str]:
    """The file's text in pieces, a few cases at a time: what `model_dump_json(indent=2)` gives.

    Serialised whole, the text was held two to five times over at the run's end (copied to
    add the newline, encoded to be counted and again to be written): for 5,000 cases more
    memory than the cases themselves. Here the results are serialised with a slice of their
    cases at a time, and each slice's cases are cut out of that text: in the same place,
    at the same indent, so the pieces joined are the whole text.
    """
    # Unsigned, the key is left out: a file without a key says nothing of custody.
    unsigned = _UNSIGNED(results)
    cases = results.cases

    def dumped(some: tuple[CaseResult, ...]) -> str:
        return results.model_copy(update={"cases": some}).model_dump_json(
            indent=2, exclude=unsigned
        )

    # JSON escapes a line break inside a text, so a line break and two spaces only start a
    # key of the results themselves: the first `"cases": [` so placed is theirs.
    head, marker, tail = dumped(()).partition('\n  "cases": []')
    if len(cases) <= _CASES_AT_A_TIME or not marker:
        yield dumped(cases)
        yield "\n"
        return
    opened, closed = f'{head}\n  "cases": [\n', f"\n  ]{tail}"
    yield opened
    for start in range(0, len(cases), _CASES_AT_A_TIME):
        text = dumped(cases[start : start + _CASES_AT_A_TIME])
        if not (text.startswith(opened) and text.endswith(closed)):
            raise AssertionError("the results serialised their other keys differently")
        yield (",\n" if start else "") + text[len(opened) : len(text) - len(closed)]
    yield closed
    yield "\n"


_CASES_AT_A_TIME = 50
"""Cases serialised together when the results file is written: a slice's text is small."""


def _within_limit(pieces: Iterator[str], path: Path) -> Iterator[str]:
    """`pieces` while their UTF-8 bytes stay within `MAX_RESULTS_BYTES`.

    Raises:
        ResultsError: past the limit, once every piece has been counted (the message names
            the whole file's size); what was written is then left behind by the writer.
    """
    size = 0
    for piece in pieces:
        size += len(piece) if piece.isascii() else len(piece.encode("utf-8"))
        if size <= limits.MAX_RESULTS_BYTES:
            yield piece
    if size > limits.MAX_RESULTS_BYTES:
        raise ResultsError(
            f"{path}: the results would be {size:,} bytes, over the "
            f"{limits.MAX_RESULTS_BYTES:,} bytes a results file may hold (each answer is "
            f"stored cut at {limits.MAX_ANSWER_BYTES:,}); nothing was written: split the run "
            "with --shard, or ask fewer cases or repeats"
        )


def read_results(path: Path) -> Results:
    """Read a results file strictly, and check that it agrees with itself.

    Raises:
        ResultsError: not a regular file (a FIFO, a device), over `limits.MAX_RESULTS_BYTES`
            (refused before it is read), unreadable, not JSON, newer than this gauntlet, not
            a results file, or a file in which a stored value disagrees with what its own
            cases say; every problem is located by its JSON path.
    """
    raw = read_or_raise(
        path, limit=limits.MAX_RESULTS_BYTES, what="a results file", error=ResultsError
    )
    return parse_results(raw, str(path))


def parse_results(raw: bytes, source: str) -> Results:
    """Parse and check a results file's bytes. Pure; see `read_results`.

    Raises:
        ResultsError: as `read_results`.
    """
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ResultsError(
            f"{source}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg} (truncated or damaged?)"
        ) from None
    except RecursionError:
        raise ResultsError(f"{source}: not a results file: JSON nested too deeply") from None
    except ValueError as exc:  # not UTF-8, or a number too long to read
        raise ResultsError(f"{source}: not JSON: {printable(str(exc))}") from None
    depth = limits.nesting(data)
    if depth > limits.MAX_FILE_NESTING:
        raise ResultsError(
            f"{source}: not a results file: nested deeper than the {limits.MAX_FILE_NESTING} "
            f"levels a results file may hold ({depth})"
        )
    version = checked_version(
        data,
        source,
        newest=RESULTS_SCHEMA_VERSION,
        what="results file",
        format_name="results",
        error=ResultsError,
    )
    assert isinstance(data, dict)  # noqa: S101 - a schema_version was read from it
    written_kind = _kind_renamed(data, version)
    if written_kind is not None:
        raw = json.dumps(data).encode()
    if version < RESCORED_SINCE and _without_rescoring(data):
        raw = json.dumps(data).encode()
    if version == 1:  # version 2 added `run_id`; a version 1 file has none
        raw = json.dumps(_inserted_after(data, "shard", "run_id", None)).encode()
    if version in (3, 4):  # version 5 moved each ask's tool calls into its response
        moved = _calls_moved(data, source)
        if moved:
            raw = json.dumps(data).encode()
    try:
        results = Results.model_validate_json(raw)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise ResultsError(located(source, "not a valid results file", problems)) from None
    unknown = gates_after(results, version) + _similarity_before(results, version)
    if unknown:
        raise ResultsError(located(source, "not a valid results file", unknown))
    problems = results_problems(results)
    if problems:
        raise ResultsError(located(source, "results that disagree with themselves", problems))
    custody = custody_problem(_as_written(results, written_kind), signing_key())
    if custody is not None:
        raise ResultsError(f"{source}: {custody}")
    return results


def _kind_renamed(data: dict[str, Any], version: int) -> str | None:
    """Name an older file's target kind as today's format does; return the word it wrote.

    None when the kind is named as it always was (or the file is of today's names).
    """
    target = data.get("target")
    kind = target.get("kind") if isinstance(target, dict) else None
    if version >= KINDS_RENAMED_IN or not isinstance(kind, str) or kind not in OLD_TARGET_KINDS:
        return None
    assert isinstance(target, dict)  # noqa: S101 - its kind was read from it
    target["kind"] = OLD_TARGET_KINDS[kind]
    return kind


def _as_written(results: Results, kind: str | None) -> Results:
    """`results` with the target kind its file wrote (`kind`), as its signature covers it."""
    if kind is None:
        return results
    target = results.target.model_copy(update={"kind": kind})
    return results.model_copy(update={"target": target})


RESCORED_SINCE = 7
"""The format that carries each case as run (and cut answers, and the signature)."""


def _without_rescoring(data: dict[str, Any]) -> bool:
    """Drop what arrived with format 7 from an older file's data; True if anything was there.

    An older file is read as its format wrote it: with no case to score again, its outcomes
    are re-counted only, and the pack says so. (A file relabelled as older to escape being
    scored again says so in its pack too; a signing key refuses it, as it carries no
    signature.)
    """
    found = data.pop("signature", None) is not None
    for case in _dicts(data, "cases"):
        found |= case.pop("definition", None) is not None
        for trial in _dicts(case, "trials"):
            found |= trial.pop("cut", None) is not None
            for turn in _dicts(trial, "turns"):
                found |= turn.pop("cut", None) is not None
    return found


def _dicts(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The objects in the list at `data[key]`, for upgrading an older file's data in place.

    Anything else there (no list, a number, a string; an item that is not an object) gives
    nothing to upgrade: it is left as it was, for validation to refuse at its place.
    """
    items = data.get(key)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


GATES_SINCE: dict[GateName, int] = {GateName.DISCLOSURE: 6}
"""The results format each gate arrived with, for gates newer than the first format."""


def gates_after(results: Results, version: int) -> list[str]:
    """Each suite of `results` whose gate is newer than the format `version` it claims."""
    return [
        f"suites[{index}].gate: {suite.gate.value!r} arrived with results format "
        f"{GATES_SINCE[suite.gate]}, so a format {version} file cannot name it"
        for index, suite in enumerate(results.suites)
        if suite.gate in GATES_SINCE and GATES_SINCE[suite.gate] > version
    ]


def _similarity_before(results: Results, version: int) -> list[str]:
    """Similarity in a file of a format before `SIMILARITY_SINCE`: no such gauntlet wrote it."""
    if version >= SIMILARITY_SINCE:
        return []
    found = ["embedder"] if results.embedder is not None else []
    found += [
        f"cases[{number}].trials[{ask}].similarity"
        for number, case in enumerate(results.cases)
        for ask, trial in enumerate(case.trials)
        if trial.similarity is not None
    ]
    found += [
        f"suites[{number}].match"
        for number, suite in enumerate(results.suites)
        if suite.match is GoldenMatch.SEMANTIC
    ]
    return [
        f"{where}: similarity, which results format {version} does not hold (it came with "
        f"{SIMILARITY_SINCE})"
        for where in found
    ]


def results_problems(results: Results) -> list[str]:
    """Every way `results` disagrees with itself, each as `json.path: problem`.

    First the structure (case ids, the plan's coverage, each case's suite and asks); when that
    holds, every derived value is compared with the same value derived again.
    """
    problems = _structure(results)
    if problems:
        return problems
    for number, case in enumerate(results.cases):
        problems += rescore_problems(case, f"cases[{number}]")
    return problems or list(_differences(results, rederive(results), ""))


def rederive(results: Results) -> Results:
    """`results` with every derivable value derived again from its cases' asks.

    Whether an answer said something is graded again only for a file this version of gauntlet
    wrote: the readability rule may grow stricter between versions, and a baseline graded by
    an earlier one must stay readable (the digest covers the judgement either way).
    """
    rejudge = (
        results.gauntlet_version == __version__ and results.schema_version == RESULTS_SCHEMA_VERSION
    )
    cases = [rederive_case(case, rejudge=rejudge) for case in results.cases]
    infos = [suite.info for suite in results.suites]
    again = summarize(cases, infos, RunSettings.of(results), RunSpan.of(results))
    return again.model_copy(
        update={
            "schema_version": results.schema_version,
            "gauntlet_version": results.gauntlet_version,
            "signature": results.signature,
        }
    )


def rederive_case(case: CaseResult, *, rejudge: bool = True) -> CaseResult:
    """`case` with its outcome, reason, passes and flakiness derived again from its asks.

    With `rejudge`, also whether each answer said something (see `rederive`).
    """
    trials = tuple(_rederive_trial(trial, rejudge=rejudge) for trial in case.trials)
    outcome, reason = decide_case(trials, case.repeats, case.pass_k)
    return case.model_copy(
        update={
            "trials": trials,
            "outcome": outcome,
            "reason": reason,
            "passes": sum(1 for trial in trials if trial.outcome is Outcome.PASSED),
            "flaky": is_flaky(trials),
        }
    )


def case_problems(case: CaseResult, where: str) -> list[str]:
    """How one case breaks the rules of its asks, or disagrees with what they say."""
    problems = list(_case_structure(case, where, RESULTS_SCHEMA_VERSION))  # a journal's: today's
    if not problems:
        problems += rescore_problems(case, where)
    if not problems:
        problems += _differences(case, rederive_case(case), where)
    return problems


def _rederive_trial(trial: Trial, *, rejudge: bool) -> Trial:
    update: dict[str, Any] = {}
    if rejudge:
        update["said_something"] = trial.response is not None and said_something(trial.response)
    if trial.response is not None and trial.turns:
        update["outcome"], update["reason"] = conversation_outcome(trial.turns)
    if trial.judged or trial.similarity is not None:
        # Asked only once the gate passed: the judge's checks and the similarity decide.
        update["outcome"], update["reason"] = after_gate_outcome(
            trial.judged or None, trial.similarity
        )
    return trial.model_copy(update=update)


def _structure(results: Results) -> list[str]:
    problems = list(_suites_structure(results))
    suites = {suite.suite: suite for suite in results.suites}
    seen_ids: dict[str, int] = {}
    seen_indexes: set[int] = set()
    for number, case in enumerate(results.cases):
        where = f"cases[{number}]"
        if case.case_id in seen_ids:
            problems.append(
                f"{where}.case_id: {case.case_id!r} repeats cases[{seen_ids[case.case_id]}]"
            )
        seen_ids.setdefault(case.case_id, number)
        if case.index in seen_indexes or not 0 <= case.index < results.plan.cases:
            problems.append(
                f"{where}.index: {case.index} is repeated or outside the plan's "
                f"{results.plan.cases} cases"
            )
        seen_indexes.add(case.index)
        problems += _case_place(results, case, where, suites.get(case.suite))
        problems += _case_structure(case, where, results.schema_version)
        problems += _similarity_of_run(results, case, where)
    shard = results.shard
    if shard is not None and not 1 <= shard.index <= shard.count:
        problems.append(f"shard: {shard.index}/{shard.count} is not a shard")
    if shard is None and len(results.cases) != results.plan.cases:
        problems.append(
            f"cases: {len(results.cases)} cases, but the run planned {results.plan.cases}: a "
            "whole run holds every case it planned"
        )
    return problems


def _suites_structure(results: Results) -> Iterator[str]:
    """Each suite listed once, with the capability its gate fixes, and a case in the file."""
    if len({suite.suite for suite in results.suites}) != len(results.suites):
        yield "suites: a suite is listed twice"
    for index, suite in enumerate(results.suites):
        expected = _CAPABILITY.get(suite.gate)
        if expected is not None and suite.capability is not expected:
            yield (
                f"suites[{index}].capability: {suite.capability}, but a {suite.gate.value} "
                f"suite always has {expected}"
            )
        if not any(case.suite == suite.suite for case in results.cases):
            yield f"suites[{index}]: {suite.suite} has no case in the file"


def _case_place(
    results: Results, case: CaseResult, where: str, owner: SuiteResult | None
) -> Iterator[str]:
    """A case agrees with its suite `owner` (gate, repeats, pass_k, definition) and shard."""
    if owner is None:
        yield f"{where}.suite: {case.suite} is not among the file's suites"
    elif (case.gate, case.repeats, case.pass_k) != (owner.gate, owner.repeat, owner.pass_k):
        yield f"{where}: gate, repeats or pass_k differ from its suite {case.suite}'s"
    elif case.definition is not None and (
        case.definition.accepts_absent,
        case.definition.match,
    ) != (owner.accepts_absent, owner.match):
        yield f"{where}.definition: accepts_absent or match differ from its suite {case.suite}'s"
    shard = results.shard
    if shard is not None and (
        shard_of(case.suite, case.case_id, shard.count, case.pair) != shard.index
    ):
        yield f"{where}: {case.case_id} does not belong to shard {shard.index}/{shard.count}"


def _case_structure(case: CaseResult, where: str, version: int) -> Iterator[str]:
    try:
        case.found_by  # noqa: B018 - read to check its shape: the pack shows it
    except ValidationError as exc:
        # Checked apart from scoring again, which leaves a definition holding a mask alone.
        yield from (
            f"{where}.definition.found_by: not a frozen case's provenance: {problem}"
            for problem in validation_problems(exc)
        )
    if version >= RESCORED_SINCE and case.definition is None:
        yield (
            f"{where}.definition: missing, but a file of format {RESCORED_SINCE} or later "
            "carries every case as run, so its answers can be scored again"
        )
    if not 1 <= case.pass_k <= case.repeats or len(case.trials) != case.repeats:
        yield (
            f"{where}: {len(case.trials)} asks recorded for {case.repeats} repeats and "
            f"pass_k {case.pass_k}"
        )
    for number, trial in enumerate(case.trials):
        at = f"{where}.trials[{number}]"
        # An errored ask may hold the answer it could not judge (a field not supplied, a
        # pattern past its limit): it withholds the verdict either way, never passes.
        answered = trial.outcome in (Outcome.PASSED, Outcome.FAILED, Outcome.UNJUDGED)
        if answered and trial.response is None:
            yield f"{at}.response: a {trial.outcome.value} ask needs a response"
        elif trial.outcome is Outcome.NOT_RUN and trial.response is not None:
            yield f"{at}.response: an ask not run has no response"
        if (trial.outcome is Outcome.PASSED) == bool(trial.reason):
            yield f"{at}.reason: a {trial.outcome.value} ask " + (
                "has no reason" if trial.reason == "" else "gives a reason to fail"
            )
        if trial.outcome is Outcome.UNJUDGED and not trial.judged and trial.similarity is None:
            yield f"{at}.judged: an unjudged ask records no check of the judge's or similarity"
        if trial.similarity is not None:
            yield from _similarity_problems(trial, f"{at}.similarity")
        for check_number, check in enumerate(trial.judged):
            if (check.outcome == "passed") == bool(check.reason):
                yield (
                    f"{at}.judged[{check_number}]: a {check.outcome} check "
                    + ("gives a reason to fail" if check.reason else "has no reason")
                )
        for turn_number, turn in enumerate(trial.turns):
            if turn.passed == bool(turn.reason):
                yield (
                    f"{at}.turns[{turn_number}]: passed is {turn.passed} with the reason "
                    f"{turn.reason!r}"
                )
        if (
            trial.response is not None
            and trial.turns
            and trial.turns[-1].response != trial.response
        ):
            yield f"{at}.response: not the answer to the conversation's last turn"


def _similarity_problems(trial: Trial, at: str) -> Iterator[str]:
    """How a stored similarity check contradicts itself: it is taken as stored, not redone.

    A `passed` check needs every guard to have held and a score at its threshold or above;
    a `failed` one a failed guard or a score below its threshold; an unjudged one no guard
    failed (guards are checked first, and a failed one fails). A check that says otherwise
    would let an edited file pass an answer its embedder or its guards did not.
    """
    check = trial.similarity
    assert check is not None  # noqa: S101 - called only for an ask with one
    scored = check.score is not None and check.threshold is not None
    below = scored and check.score < check.threshold  # type: ignore[operator]
    if (check.outcome == "passed") == bool(check.reason):
        yield f"{at}: a {check.outcome} check " + (
            "gives a reason to fail" if check.reason else "has no reason"
        )
    if check.outcome == "passed" and (check.guards or not scored or below):
        yield f"{at}: passed, but a guard failed or its score is not at its threshold"
    elif check.outcome == "failed" and not check.guards and not (scored and below):
        yield f"{at}: failed, but no guard failed and its score is not below its threshold"
    elif check.outcome == "unjudged" and (check.guards or check.score is not None):
        yield f"{at}: unjudged, but it records a failed guard or a score"
    scores = trial.scores
    if scores is not None and scores.similarity != check.score:
        yield f"{at}: its score is not the similarity in the ask's scores"


def _similarity_of_run(results: Results, case: CaseResult, where: str) -> Iterator[str]:
    """How a case's similarity checks disagree with the run's embedder.

    A check needs an embedder; a passed one an embedder let gate, in a language its record
    accepted, at a threshold no lower than the one accepted (a case's `min_similarity` can
    only raise it).
    """
    embedder = results.embedder
    for number, trial in enumerate(case.trials):
        check = trial.similarity
        if check is None:
            continue
        at = f"{where}.trials[{number}].similarity"
        if embedder is None:
            yield f"{at}: a similarity check in a run that records no embedder"
            continue
        if check.outcome != "passed":
            continue
        accepted = embedder.thresholds.get(primary_language(case.language))
        if embedder.refused is not None or accepted is None:
            yield f"{at}: passed, but the run's embedder may not gate in {case.language}"
        elif check.threshold is None or check.threshold < accepted:
            yield f"{at}: passed at a threshold below the {accepted} the record accepted"
        failed = _guards_again(case, trial)
        if failed:
            yield f"{at}: passed, but its answer fails a guard read again: {failed[0]}"


def _guards_again(case: CaseResult, trial: Trial) -> tuple[str, ...]:
    """The guards, run again on a stored answer and its case's `expected` (rules, not a model).

    Empty when they hold, or when the answer is stored cut or the case's definition is not
    kept (nothing whole to read again).
    """
    expected = case.definition.case.get("expected") if case.definition is not None else None
    if not isinstance(expected, str) or trial.response is None or trial.cut is not None:
        return ()
    from gauntlet.semantic.guards import guard_problems

    return guard_problems(expected, trial.response.text, case.language)


def _differences(stored: object, derived: object, path: str) -> Iterator[str]:
    return differences(stored, derived, path, holder="the file", origin="its own cases")


def _calls_moved(data: dict[str, Any], source: str) -> bool:
    """Move a version 3 or 4 file's tool calls into each ask's response, arguments decoded.

    The calls of an ask whose provenance says they were reported become its response's
    `tool_calls`; others are dropped (a native answer never had any).

    Raises:
        ResultsError: a call's arguments are not a JSON object, so it cannot be carried over.
    """
    moved = False
    cases = data.get("cases")
    for c, case in enumerate(cases if isinstance(cases, list) else ()):
        trials = case.get("trials") if isinstance(case, dict) else None
        for t, trial in enumerate(trials if isinstance(trials, list) else ()):
            if not isinstance(trial, dict) or "tool_calls" not in trial:
                continue
            moved = True
            calls = trial.pop("tool_calls")
            response = trial.get("response")
            provenance = trial.get("provenance")
            origin = provenance.get("tool_calls") if isinstance(provenance, dict) else None
            reported = origin.get("origin") if isinstance(origin, dict) else None
            if not isinstance(response, dict) or reported in (None, "absent"):
                continue
            carried = []
            if not isinstance(calls, list):
                raise ResultsError(f"{source}: cases[{c}].trials[{t}].tool_calls: not a list")
            for n, call in enumerate(calls):
                where = f"cases[{c}].trials[{t}].tool_calls[{n}]"
                text = call.get("arguments") if isinstance(call, dict) else None
                arguments = decode_arguments(text) if isinstance(text, str) else None
                if not isinstance(arguments, dict) or not call.get("id"):
                    raise ResultsError(
                        f"{source}: {where}: a tool call without an id or whose arguments are "
                        "not a JSON object cannot be carried into this version's format"
                    )
                carried.append({"id": call["id"], "name": call.get("name"), "arguments": arguments})
            response["tool_calls"] = carried
    return moved


def _inserted_after(data: dict[str, Any], after: str, key: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, item in data.items():
        out[name] = item
        if name == after:
            out[key] = value
    out.setdefault(key, value)
    return out
