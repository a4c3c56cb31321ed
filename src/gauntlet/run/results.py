"""The results file: a versioned record of what a run asked, what came back and how it scored.

`gauntlet run` writes it atomically; `gauntlet report` (and baselines) read it back strictly.
Field order is part of the format: reordering or renaming a field means a version bump.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from gauntlet.cases.model import GateName
from gauntlet.errors import ExitCode, ResultsError
from gauntlet.targets.contract import TargetResponse

RESULTS_SCHEMA_VERSION = 1
"""The version of the results format this gauntlet writes and the newest it reads."""


class Outcome(StrEnum):
    """What happened to one case."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    """The case got no answer (or no usable one): never a pass, never dropped."""


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


class CaseResult(_Record):
    """One case: what was asked, what came back, and how the gate judged it."""

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
    reason: str
    """Why it failed or errored; empty when it passed."""
    response: TargetResponse | None
    """The full response, or `None` when the case errored."""
    said_something: bool
    """Readable text, or a declared refusal or escalation (see the readability guard)."""
    latency_ms: float
    """How long the target took (not part of the results digest)."""


class LanguageCount(_Record):
    """Cases and passes in one language."""

    language: str
    total: int
    passed: int


class SuiteResult(_Record):
    """One suite's score against its threshold."""

    suite: str
    gate: GateName
    version: int
    key_version: int | None
    threshold: float
    source: str
    total: int
    passed: int
    failed: int
    errored: int
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
    languages: tuple[LanguageCount, ...]
    met: bool


class Totals(_Record):
    """Case counts across the run."""

    total: int
    passed: int
    failed: int
    errored: int


class Results(_Record):
    """A whole run, as written to the results file."""

    schema_version: int
    """The version of this format; a newer file is refused by an older gauntlet."""
    gauntlet_version: str
    started_at: datetime
    finished_at: datetime
    target: TargetInfo
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
    `gauntlet.run.engine.decide_verdict`); this is the one place a verdict becomes a code.
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
    text = json.dumps(results.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ResultsError(f"{path}: cannot write the results: {exc.strerror or exc}") from exc


def read_results(path: Path) -> Results:
    """Read a results file strictly.

    Raises:
        ResultsError: unreadable, not JSON, newer than this gauntlet, or not a results file.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
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
        return Results.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ResultsError(
            f"{path}: not a valid results file: {where}: {first['msg']} "
            f"({exc.error_count()} problem{'s' if exc.error_count() > 1 else ''})"
        ) from None
