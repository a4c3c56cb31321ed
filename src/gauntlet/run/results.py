"""The results file: a versioned record of what a run asked, what came back and how it scored.

`gauntlet run` writes it atomically; `gauntlet report` (and baselines) read it back strictly.
Field order is part of the format: reordering or renaming a field means a version bump.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from gauntlet.cases.model import GateName
from gauntlet.errors import ExitCode, ResultsError
from gauntlet.files import write_atomically
from gauntlet.targets.contract import TargetResponse

RESULTS_SCHEMA_VERSION = 1
"""The version of the results format this gauntlet writes and the newest it reads."""


class Outcome(StrEnum):
    """What happened to one case."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    """The case got no answer (or no usable one): never a pass, never dropped."""
    NOT_RUN = "not_run"
    """The run was interrupted before this case was answered."""


class Verdict(StrEnum):
    """The run's verdict, which decides the exit code."""

    PASS = "pass"  # noqa: S105 - a verdict, not a password
    FAIL = "fail"
    UNSCOREABLE = "unscoreable"
    WITHHELD = "withheld"
    """The run could not finish: some cases got no answer, so no verdict is given."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class TargetInfo(_Record):
    """What was asked."""

    kind: Literal["toy", "callable", "http"]
    """How gauntlet reached the target."""
    name: str
    """The target's own name (for HTTP: scheme, host, port and path only)."""
    defects: tuple[str, ...] = ()
    """The toy's injected defects, if any."""


class TurnResult(_Record):
    """One turn of a conversation: what the user said, the answer, and that turn's verdict."""

    user: str
    response: TargetResponse
    passed: bool
    reason: str
    """Why this turn failed; empty when it passed."""


class Trial(_Record):
    """One ask of a case: what came back and how the gate judged it."""

    outcome: Outcome
    reason: str
    """Why it failed or errored; empty when it passed."""
    response: TargetResponse | None
    """The full response, or `None` when there was none."""
    said_something: bool
    """Readable text, or a declared refusal or escalation (see the readability guard)."""
    latency_ms: float
    """How long the target took, retries included (not part of the results digest)."""
    attempts: int
    """Requests made: 1, plus retries (not part of the results digest)."""
    waited_s: float
    """Seconds spent waiting between attempts (not part of the results digest)."""
    turns: tuple[TurnResult, ...] = ()
    """For a multi-turn case, every turn answered, in order (the last is `response`)."""


class CaseResult(_Record):
    """One case: what was asked, every ask's answer, and the case's outcome."""

    index: int
    """The case's place in the whole plan (every suite, every case), before any sharding."""
    suite: str
    gate: GateName
    case_id: str
    language: str
    prompt: str
    source: str
    """The case file it came from."""
    line: int
    """The line of the case in `source`."""
    outcome: Outcome
    """Passed when at least `pass_k` of the asks passed; errored or not run if any ask was."""
    reason: str
    """Why it failed or errored; empty when it passed."""
    passes: int
    """How many asks passed."""
    repeats: int
    """How many times the case was asked."""
    pass_k: int
    """How many asks had to pass."""
    flaky: bool
    """Some asks passed and some failed: the target answers this case inconsistently."""
    trials: tuple[Trial, ...]
    """Every ask, in order."""


class LanguageCount(_Record):
    """Cases and passes in one language."""

    language: str
    total: int
    passed: int


class SuiteInfo(_Record):
    """What a suite asked for, as loaded: enough to re-score its cases without the file."""

    suite: str
    gate: GateName
    version: int
    key_version: int | None
    threshold: float
    source: str
    repeat: int
    """How many times each case was asked."""
    pass_k: int
    """How many asks of a case had to pass."""
    capability: bool
    """A silent target would fail this suite (see the UNSCOREABLE rule)."""


class SuiteResult(SuiteInfo):
    """One suite's score against its threshold."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    pass_rate: float
    met: bool
    """The pass rate is at least the threshold."""


class GateResult(_Record):
    """A gate across its suites: it passes when every one of its suites met its threshold."""

    gate: GateName
    suites: tuple[str, ...]
    total: int
    passed: int
    failed: int
    errored: int
    not_run: int
    pass_rate: float
    wilson_low: float
    """Lower end of the 95% Wilson interval of the pass rate: how much the count says."""
    wilson_high: float
    """Upper end of the 95% Wilson interval of the pass rate."""
    languages: tuple[LanguageCount, ...]
    met: bool


class Totals(_Record):
    """Case counts across the run."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int


class Shard(_Record):
    """Which part of a split run these results are."""

    index: int
    """1-based."""
    count: int


class Plan(_Record):
    """What the whole run covers, so shards and resumed runs can be checked against it."""

    cases: int
    """Cases in the whole plan, before sharding."""
    digest: str
    """sha256 over the plan: each suite's name, version and settings, and each case id."""
    repeat: int
    """`--repeat` as given (a suite may ask more)."""


class Results(_Record):
    """A whole run (or one shard of it), as written to the results file."""

    schema_version: int
    """The version of this format; a newer file is refused by an older gauntlet."""
    gauntlet_version: str
    started_at: datetime
    finished_at: datetime
    target: TargetInfo
    plan: Plan
    shard: Shard | None
    """Set for one shard of a split run; `None` for a whole (or merged) run."""
    complete: bool
    """Every case of this run (or shard) was asked. An interrupted run is never a pass."""
    interrupted_by: str | None
    """The signal that stopped the run early, if one did."""
    verdict: Verdict
    verdict_reason: str
    """Why the verdict is what it is, in one sentence."""
    capability_scored: bool
    """At least one loaded suite scores capability, so a silent target fails it."""
    unreadable_answers: int
    """Answers that said nothing: unreadable text without a declared refusal or escalation."""
    totals: Totals
    gates: tuple[GateResult, ...]
    suites: tuple[SuiteResult, ...]
    cases: tuple[CaseResult, ...]


def exit_code_for(verdict: Verdict) -> ExitCode:
    """The exit code of a verdict.

    The precedence 2 > 4 > 1 > 0 is applied when the verdict is decided (see
    `gauntlet.run.scoring.decide_verdict`); this is the one place a verdict becomes a code.
    """
    match verdict:
        case Verdict.WITHHELD:
            return ExitCode.HARNESS_ERROR
        case Verdict.UNSCOREABLE:
            return ExitCode.UNSCOREABLE
        case Verdict.FAIL:
            return ExitCode.GATE_FAILED
        case Verdict.PASS:
            return ExitCode.PASS


def write_results(results: Results, path: Path) -> None:
    """Write `results` to `path` atomically: a reader sees the old file or the whole new one.

    Raises:
        ResultsError: the file cannot be written.
    """
    # Serialised by pydantic straight to text: building the dict first doubled the peak
    # memory of a 20,000-case run (benchmarks/RESULTS.md).
    text = results.model_dump_json(indent=2) + "\n"
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise ResultsError(f"{path}: cannot write the results: {exc.strerror or exc}") from exc


def read_results(path: Path) -> Results:
    """Read a results file strictly, and check that it is consistent with itself.

    Raises:
        ResultsError: unreadable, not JSON, newer than this gauntlet, not a results file, or
            inconsistent (counts that do not add up, rates outside [0, 1], repeated case ids);
            every problem is located by its JSON path.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ResultsError(
            f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg} (truncated or damaged?)"
        ) from exc
    except ValueError as exc:
        raise ResultsError(f"{path}: not JSON: {exc}") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if not isinstance(version, int):
        raise ResultsError(f"{path}: not a gauntlet results file (no schema_version)")
    if version > RESULTS_SCHEMA_VERSION:
        raise ResultsError(
            f"{path}: results format version {version} is newer than this gauntlet reads "
            f"({RESULTS_SCHEMA_VERSION}); upgrade gauntlet"
        )
    try:
        results = Results.model_validate_json(raw)
    except ValidationError as exc:
        problems = [
            f"{_path(error['loc'])}: {error['msg']}" for error in exc.errors(include_url=False)
        ]
        raise ResultsError(_located(path, "not a valid results file", problems)) from None
    problems = inconsistencies(results)
    if problems:
        raise ResultsError(_located(path, "inconsistent results file", problems))
    return results


def inconsistencies(results: Results) -> list[str]:
    """Every way `results` disagrees with itself, each as `json.path: problem`."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for index, case in enumerate(results.cases):
        if case.case_id in seen:
            problems.append(
                f"cases[{index}].case_id: {case.case_id!r} repeats cases[{seen[case.case_id]}]"
            )
        seen.setdefault(case.case_id, index)
    problems += _counts("totals", results.totals, results.cases)
    for index, suite in enumerate(results.suites):
        mine = [case for case in results.cases if case.suite == suite.suite]
        problems += _counts(f"suites[{index}]", suite, mine)
        if not 0.0 <= suite.pass_rate <= 1.0:
            problems.append(f"suites[{index}].pass_rate: {suite.pass_rate} is outside [0, 1]")
        elif suite.total and abs(suite.pass_rate - suite.passed / suite.total) > 1e-9:
            problems.append(
                f"suites[{index}].pass_rate: {suite.pass_rate} is not {suite.passed}/{suite.total}"
            )
    for index, gate in enumerate(results.gates):
        mine = [case for case in results.cases if case.gate is gate.gate]
        problems += _counts(f"gates[{index}]", gate, mine)
    if results.complete != (results.totals.not_run == 0):
        problems.append(
            f"complete: {results.complete} but {results.totals.not_run} cases were not run"
        )
    return problems


def _counts(
    where: str, counted: Totals | SuiteResult | GateResult, cases: Sequence[CaseResult]
) -> list[str]:
    outcomes = [case.outcome for case in cases]
    expected = {
        "total": len(outcomes),
        "passed": outcomes.count(Outcome.PASSED),
        "failed": outcomes.count(Outcome.FAILED),
        "errored": outcomes.count(Outcome.ERRORED),
        "not_run": outcomes.count(Outcome.NOT_RUN),
    }
    return [
        f"{where}.{name}: {getattr(counted, name)}, but the cases say {value}"
        for name, value in expected.items()
        if getattr(counted, name) != value
    ]


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top)"


def _located(path: Path, what: str, problems: list[str]) -> str:
    shown = problems[:20]
    more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
    return f"{path}: {what}:\n" + "\n".join(f"  {path}: {p}" for p in shown) + more
