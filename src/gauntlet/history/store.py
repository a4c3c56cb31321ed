"""The run history on disk: one SQLite file, appended to by runs and imports, read back whole.

Only the standard library's `sqlite3`. The file is marked as a gauntlet history by SQLite's
own `application_id` header field and versioned by its `user_version`; opening a file an
older gauntlet wrote upgrades it in place through `MIGRATIONS`, in one transaction, and a file
from a newer gauntlet, or any other SQLite database, is refused unread. The journal is WAL and
every connection waits up to `BUSY_TIMEOUT_MS` for a lock, so two CI jobs appending at once
both land: each append is one `BEGIN IMMEDIATE` transaction. A run's key is a digest of what
it observed and when (see `run_key`), so importing one results file twice stores one run.

The schema, table by table and column by column, is in docs/history.md.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import sqlite3
import stat
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gauntlet.canonical import canonical_json
from gauntlet.cases.model import ParityRule
from gauntlet.display import printable
from gauntlet.errors import HistoryError, Parameter, UsageError
from gauntlet.evidence.digest import results_digest
from gauntlet.files import describe_kind
from gauntlet.history.numbers import (
    MAX_REPEAT,
    first_token_problem,
    integer_problem,
    latency_problem,
    time_problem,
    tokens_or_none,
    tokens_problem,
)
from gauntlet.history.records import CaseRecord, History, RunRecord
from gauntlet.history.rederive import (
    StoredAsk,
    StoredRun,
    StoredSuite,
    case_problems,
    name_problem,
    verdict_problem,
)
from gauntlet.run.results import OLD_TARGET_KINDS, Outcome, Results, Trial, Verdict
from gauntlet.self_checked import located
from gauntlet.targets.contract import Usage

APPLICATION_ID = 0x47544C54
"""`PRAGMA application_id` of a gauntlet history ("GTLT"): how a history is told apart from
any other SQLite database."""
BUSY_TIMEOUT_MS = 30_000
"""How long a connection waits for another's lock before giving up (30 s)."""
MIN_SQLITE = (3, 35, 0)
"""The oldest SQLite the store runs on: migration 2 drops a column (3.35, March 2021)."""
SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
LABEL_KEY = r"^[a-z][a-z0-9_.-]{0,63}$"
"""What a label's key may be: `branch`, `commit`, `ci.job`."""
MAX_LABEL_VALUE = 200
"""The longest label value, in characters."""

_OUTCOMES = ", ".join(f"'{outcome.value}'" for outcome in Outcome)
_VERDICTS = ", ".join(f"'{verdict.value}'" for verdict in Verdict)
_PARITY = ", ".join(f"'{rule.value}'" for rule in ParityRule)
_DIGIT = "[0-9]"
_TIMESTAMP = (
    f"{_DIGIT * 4}-{_DIGIT * 2}-{_DIGIT * 2}T{_DIGIT * 2}:{_DIGIT * 2}:{_DIGIT * 2}.{_DIGIT * 6}Z"
)
"""A GLOB for the one way times are written: UTC, microseconds, `Z`, so text order is time
order."""
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_DIGEST = "sha256:" + "[0-9a-f]" * 64

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: runs (labels as a JSON object), their suites, cases and every ask of each case.
    (
        f"PRAGMA application_id = {APPLICATION_ID}",
        f"""CREATE TABLE runs (
            key TEXT PRIMARY KEY NOT NULL CHECK (key GLOB '{_DIGEST}'),
            started_at TEXT NOT NULL CHECK (started_at GLOB '{_TIMESTAMP}'),
            finished_at TEXT NOT NULL CHECK (finished_at GLOB '{_TIMESTAMP}'),
            gauntlet_version TEXT NOT NULL,
            target_kind TEXT NOT NULL,
            target_name TEXT NOT NULL,
            target_fingerprint TEXT NOT NULL CHECK (target_fingerprint GLOB '{_DIGEST}'),
            plan_digest TEXT NOT NULL,
            results_digest TEXT NOT NULL CHECK (results_digest GLOB '{_DIGEST}'),
            verdict TEXT NOT NULL CHECK (verdict IN ({_VERDICTS})),
            complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
            interrupted_by TEXT,
            run_id TEXT,
            shard_index INTEGER CHECK (shard_index IS NULL OR shard_index >= 1),
            shard_count INTEGER CHECK (shard_count IS NULL OR shard_count >= shard_index),
            labels TEXT NOT NULL DEFAULT '{{}}' CHECK (json_valid(labels))
        )""",
        """CREATE TABLE suites (
            run_key TEXT NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (typeof(position) = 'integer' AND position >= 0),
            name TEXT NOT NULL,
            version INTEGER NOT NULL CHECK (typeof(version) = 'integer' AND version >= 1),
            PRIMARY KEY (run_key, name)
        )""",
        f"""CREATE TABLE cases (
            run_key TEXT NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (typeof(position) = 'integer' AND position >= 0),
            suite TEXT NOT NULL,
            gate TEXT NOT NULL,
            case_id TEXT NOT NULL,
            language TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ({_OUTCOMES})),
            passes INTEGER NOT NULL CHECK (typeof(passes) = 'integer' AND passes >= 0),
            repeats INTEGER NOT NULL
                CHECK (typeof(repeats) = 'integer' AND repeats >= 1 AND passes <= repeats),
            latency_ms REAL CHECK (latency_ms IS NULL OR latency_ms >= 0),
            tokens INTEGER CHECK (tokens IS NULL OR (typeof(tokens) = 'integer' AND tokens >= 0)),
            PRIMARY KEY (run_key, suite, case_id)
        )""",
        f"""CREATE TABLE trials (
            run_key TEXT NOT NULL,
            suite TEXT NOT NULL,
            case_id TEXT NOT NULL,
            trial INTEGER NOT NULL CHECK (typeof(trial) = 'integer' AND trial >= 1),
            outcome TEXT NOT NULL CHECK (outcome IN ({_OUTCOMES})),
            latency_ms REAL NOT NULL CHECK (latency_ms >= 0),
            tokens INTEGER CHECK (tokens IS NULL OR (typeof(tokens) = 'integer' AND tokens >= 0)),
            PRIMARY KEY (run_key, suite, case_id, trial),
            FOREIGN KEY (run_key, suite, case_id)
                REFERENCES cases (run_key, suite, case_id) ON DELETE CASCADE
        )""",
    ),
    # 2: labels move to their own table (one row per label, queryable), runs get an index
    # in the order they are numbered.
    (
        f"""CREATE TABLE labels (
            run_key TEXT NOT NULL REFERENCES runs (key) ON DELETE CASCADE,
            key TEXT NOT NULL CHECK (
                length(key) BETWEEN 1 AND 64 AND key GLOB '[a-z]*'
                AND key NOT GLOB '*[^a-z0-9_.-]*'
            ),
            value TEXT NOT NULL
                CHECK (typeof(value) = 'text' AND length(value) <= {MAX_LABEL_VALUE}),
            PRIMARY KEY (run_key, key)
        )""",
        """INSERT INTO labels (run_key, key, value)
            SELECT runs.key, label.key, label.value FROM runs, json_each(runs.labels) AS label""",
        "ALTER TABLE runs DROP COLUMN labels",
        "CREATE INDEX runs_in_order ON runs (started_at, key)",
    ),
    # 3: what a run's verdict is derived from on reading: each suite's threshold, asks that
    # must pass and parity rule, and each case's parity pair (NULL in runs stored before).
    (
        "ALTER TABLE suites ADD COLUMN threshold REAL"
        " CHECK (threshold IS NULL OR (threshold > 0 AND threshold <= 1))",
        "ALTER TABLE suites ADD COLUMN pass_k INTEGER"
        " CHECK (pass_k IS NULL OR (typeof(pass_k) = 'integer' AND pass_k >= 1))",
        "ALTER TABLE suites ADD COLUMN parity TEXT"
        f" CHECK (parity IS NULL OR parity IN ({_PARITY}))",
        "ALTER TABLE cases ADD COLUMN pair TEXT",
    ),
    # 4: each answered ask's time to its first streamed piece (NULL: it did not stream, got
    # no answer, or was stored before: not reported).
    (
        "ALTER TABLE trials ADD COLUMN first_token_ms REAL"
        " CHECK (first_token_ms IS NULL OR first_token_ms >= 0)",
    ),
    # 5: each target kind named as its target file names it (results format 9): the native
    # contract `gauntlet`, not `http`; a target file of kind `http`, not `http-template`.
    (
        "UPDATE runs SET target_kind = CASE target_kind"
        " WHEN 'http' THEN 'gauntlet' WHEN 'http-template' THEN 'http' END"
        " WHERE target_kind IN ('http', 'http-template')",
    ),
)
"""Every schema change, oldest first: applying steps `MIGRATIONS[v:]` to a version-`v` file
brings it to `HISTORY_SCHEMA_VERSION`. A change is a new entry here, never an edit of one."""
HISTORY_SCHEMA_VERSION = len(MIGRATIONS)
"""The version of the history schema this gauntlet writes and the newest it opens."""


@dataclass(frozen=True)
class Appended:
    """What appending one run did."""

    number: int
    """The run's number in the history (oldest first) right after the append."""
    added: bool
    """False when the history already held this run (same key): nothing was written."""


_LABELS = Parameter("labels")
"""The parameter `parse_labels`'s errors are about; the command line words it as `--label`."""


def parse_labels(labels: Sequence[str]) -> dict[str, str]:
    """Labels written `key=value` (the command line's `--label`s) as a mapping, each checked.

    Raises:
        UsageError: a label without `=`, a key that is not `[a-z][a-z0-9_.-]*` (at most 64),
            a value with a line break or control character or over `MAX_LABEL_VALUE`
            characters, or a key given twice; about the parameter `labels`.
    """
    parsed: dict[str, str] = {}
    for spec in labels:
        shown = printable(spec if len(spec) <= 80 else spec[:80] + "...")
        key, sep, value = spec.partition("=")
        if not sep:
            raise UsageError(_LABELS, f" '{shown}': expected key=value, e.g. commit=3f2a9c1")
        broken = _label_problem(key, value)
        if broken is not None:
            raise UsageError(_LABELS, f" '{shown}': {broken}")
        if key in parsed:
            raise UsageError(_LABELS, f" {key}: given twice; a run has one value per label")
        parsed[key] = value
    return parsed


def _label_problem(key: object, value: object) -> str | None:
    """Why a label breaks the rules (`--label`'s, and a stored row's); None when it keeps them."""
    if not isinstance(key, str) or not re.fullmatch(LABEL_KEY, key):
        return (
            "the key must be a lowercase letter, then lowercase letters, digits, '_', '.' or "
            "'-' (at most 64), e.g. branch or ci.job"
        )
    if not isinstance(value, str) or printable(value) != value:
        return "the value holds a line break or control character; a label is one line of text"
    if len(value) > MAX_LABEL_VALUE:
        return f"the value is {len(value)} characters, over the {MAX_LABEL_VALUE} a label may hold"
    return None


def timestamp(moment: datetime) -> str:
    """`moment` as the history writes times: UTC with microseconds, `2026-12-01T09:00:00.000000Z`.

    A naive time is taken to be UTC already.
    """
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime(_TIME_FORMAT)


def _parse_timestamp(text: str) -> datetime:
    return datetime.strptime(text, _TIME_FORMAT).replace(tzinfo=UTC)


def _sha256(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def run_key(results: Results) -> str:
    """The run's identity in a history: sha256 over its results digest, start, run id, shard.

    The same results file imported twice has one key; two runs that answered identically
    (the same results digest) started at different times, so they are two runs.
    """
    shard = None if results.shard is None else f"{results.shard.index}/{results.shard.count}"
    return _sha256(
        {
            "results_digest": results_digest(results),
            "started_at": timestamp(results.started_at),
            "run_id": results.run_id,
            "shard": shard,
        }
    )


_FINGERPRINTED_AS = {new: old for old, new in OLD_TARGET_KINDS.items()}
"""Each target kind renamed by results format 9, as fingerprints spell it: the word the
fingerprint was first computed over, so runs of one target keep sharing one across it."""


def target_fingerprint(results: Results) -> str:
    """sha256 over the target's kind, name, defects and target file: runs of one target."""
    target = results.target
    return _sha256(
        {
            "kind": _FINGERPRINTED_AS.get(target.kind, target.kind),
            "name": target.name,
            "defects": sorted(target.defects),
            "target_file": target.target_file,
        }
    )


def _tokens(usage: Usage | None) -> int | None:
    """An ask's tokens as the history keeps them: not reported (None) when out of range.

    A target's own count is its word: 2**63 tokens, or fewer than none, says nothing about
    cost, and the run it came with is kept (see `gauntlet.history.numbers`).
    """
    if usage is None:
        return None
    if usage.total_tokens is not None:
        return tokens_or_none(usage.total_tokens)
    if usage.prompt_tokens is not None and usage.completion_tokens is not None:
        return tokens_or_none(usage.prompt_tokens + usage.completion_tokens)
    return None


def _case_latency(trials: Sequence[Trial]) -> float | None:
    answered = [trial.latency_ms for trial in trials if trial.response is not None]
    return statistics.median(answered) if answered else None


def _first_token(trial: Trial) -> float | None:
    """An ask's time to first token as the history keeps it: only an answered ask's."""
    return trial.first_token_ms if trial.response is not None else None


def _case_first_tokens(trials: Sequence[Trial]) -> tuple[float, ...]:
    return tuple(first for trial in trials if (first := _first_token(trial)) is not None)


def _case_tokens(trials: Sequence[Trial]) -> int | None:
    counts = [_tokens(trial.usage) for trial in trials]
    if not counts or any(count is None for count in counts):
        return None
    return tokens_or_none(sum(count for count in counts if count is not None))


def records_of(
    results: Results, labels: Mapping[str, str]
) -> tuple[RunRecord, tuple[CaseRecord, ...]]:
    """The run and its cases as the history keeps them. Pure.

    The run's `number` is 0: a number is its place among the stored runs, given on reading.

    Raises:
        HistoryError: a number no history holds (see `gauntlet.history.numbers`): a latency
            that is not a finite week or less, a time outside 1970 to 9999, an index, version
            or shard past the integers kept. A token count out of range is kept as not
            reported instead.
    """
    problems = number_problems(results)
    if problems:
        shown = "\n".join(f"  {problem}" for problem in problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise HistoryError(
            f"a run with numbers no history holds (was the results file edited?):\n{shown}{more}"
        )
    key = run_key(results)
    run = RunRecord(
        key=key,
        number=0,
        started_at=results.started_at,
        finished_at=results.finished_at,
        gauntlet_version=results.gauntlet_version,
        target_kind=results.target.kind,
        target_name=results.target.name,
        target_fingerprint=target_fingerprint(results),
        plan_digest=results.plan.digest,
        suites=tuple((suite.suite, suite.version) for suite in results.suites),
        results_digest=results_digest(results),
        verdict=results.verdict.value,
        labels=dict(sorted(labels.items())),
    )
    cases = tuple(
        CaseRecord(
            run_key=key,
            suite=case.suite,
            gate=case.gate.value,
            case_id=case.case_id,
            language=case.language,
            outcome=case.outcome.value,
            passes=case.passes,
            repeats=case.repeats,
            latency_ms=_case_latency(case.trials),
            tokens=_case_tokens(case.trials),
            first_token_ms=_case_first_tokens(case.trials),
        )
        for case in results.cases
    )
    return run, cases


def number_problems(results: Results) -> list[str]:
    """Every number of `results` the history would store that is out of its range. Pure."""
    problems = [
        f"{name}: {problem}"
        for name, moment in (
            ("started_at", results.started_at),
            ("finished_at", results.finished_at),
        )
        if (problem := time_problem(moment)) is not None
    ]
    for index, suite in enumerate(results.suites):
        problem = integer_problem(suite.version, 1)
        if problem is not None:
            problems.append(f"suites[{index}] ({suite.suite}).version: {problem}")
    if results.shard is not None:
        for name, value in (("index", results.shard.index), ("count", results.shard.count)):
            problem = integer_problem(value, 1)
            if problem is not None:
                problems.append(f"shard.{name}: {problem}")
    for number, case in enumerate(results.cases):
        where = f"cases[{number}] ({printable(case.case_id)})"
        for name, value, low, high in (
            ("index", case.index, 0, None),
            ("repeats", case.repeats, 1, MAX_REPEAT),
            ("passes", case.passes, 0, MAX_REPEAT),
        ):
            problem = (
                integer_problem(value, low) if high is None else integer_problem(value, low, high)
            )
            if problem is not None:
                problems.append(f"{where}.{name}: {problem}")
        for ask, trial in enumerate(case.trials, start=1):
            for name, problem in (
                ("latency_ms", latency_problem(trial.latency_ms)),
                ("first_token_ms", first_token_problem(_first_token(trial))),
            ):
                if problem is not None:
                    problems.append(f"{where}, ask {ask}: {name}: {problem}")
    return problems


# --- opening a file -------------------------------------------------------------------------


def _check_path(path: Path, *, create: bool) -> None:
    """Refuse a path that is not a regular file (or, to create, a free name in a directory)."""
    for place in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            mode = place.lstat().st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise HistoryError(f"{place}: cannot open the history: {exc.strerror or exc}") from None
        if stat.S_ISLNK(mode):
            raise HistoryError(
                f"{place}: is a symlink; gauntlet opens a history only as a regular file, "
                "never through a link that could point it at any file"
            )
        if not stat.S_ISREG(mode):
            raise HistoryError(
                f"{place}: is {describe_kind(mode)}, not a history file; name a file"
            )
    if not path.exists():
        if not create:
            raise HistoryError(
                f"{path}: no history there; `gauntlet run --history` or `gauntlet history add` "
                "creates one"
            )
        if not path.parent.is_dir():
            raise HistoryError(f"{path}: the directory {path.parent} does not exist")
        return
    if not os.access(path, os.R_OK | os.W_OK):
        raise HistoryError(
            f"{path}: cannot open the history: permission denied (it must be readable and "
            "writable: opening it may upgrade its schema)"
        )
    with path.open("rb") as handle:
        head = handle.read(len(SQLITE_MAGIC))
    # Empty, or zeros: another writer may be creating the file this instant (its first page
    # is being copied in). SQLite, under its locks, refuses the file if it stays that way.
    if head.strip(b"\0") and head != SQLITE_MAGIC:
        raise HistoryError(
            f"{path}: not a gauntlet history: not a SQLite database (its first bytes are "
            f"{printable(repr(head[:8]))})"
        )


@contextmanager
def _immediate(connection: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once (`BEGIN IMMEDIATE`): committed, or rolled back."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _prepare(connection: sqlite3.Connection, path: Path) -> None:
    """Check the file is a gauntlet history this gauntlet reads, and bring it up to date."""
    with _immediate(connection):
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        fresh = application_id == 0 and version == 0 and tables == 0
        if not fresh and application_id != APPLICATION_ID:
            raise HistoryError(
                f"{path}: not a gauntlet history: a SQLite database of something else "
                f"(application_id {application_id}, not {APPLICATION_ID}); gauntlet writes "
                "runs only into a file it made"
            )
        if version > HISTORY_SCHEMA_VERSION:
            raise HistoryError(
                f"{path}: history schema version {version} is newer than this gauntlet reads "
                f"(at most {HISTORY_SCHEMA_VERSION}); upgrade gauntlet to read it"
            )
        if version < 1 and not fresh:
            raise HistoryError(f"{path}: not a gauntlet history: it has no schema version")
        for number, steps in enumerate(MIGRATIONS[version:], start=version + 1):
            for step in steps:
                connection.execute(step)
            connection.execute(f"PRAGMA user_version = {number}")


def _use_wal(connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode (a no-op once it is), waiting for the other writers.

    The switch takes the whole file, and when other connections are switching it at the same
    moment SQLite may answer "database is locked" at once instead of calling its busy handler
    (seen with twelve processes creating one history together). So a busy switch is tried
    again, after a short random pause, until `BUSY_TIMEOUT_MS` has passed.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(random.uniform(0.005, 0.05))  # noqa: S311 - a pause, not a secret


@contextmanager
def open_history(path: Path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection to the history at `path`, checked and upgraded to this schema.

    Args:
        path: The history file.
        create: Make the file when there is none (to append); else a missing file is refused.

    Raises:
        HistoryError: the path is a symlink, a directory or other non-file, is missing (and
            not to be created), cannot be read and written, is not SQLite, is another
            program's database, is from a newer gauntlet, or SQLite fails on it.
    """
    if sqlite3.sqlite_version_info < MIN_SQLITE:  # pragma: no cover - the machine's SQLite
        raise HistoryError(
            f"{path}: this Python's SQLite is {sqlite3.sqlite_version}; the run history needs "
            f"{'.'.join(map(str, MIN_SQLITE))} or newer"
        )
    _check_path(path, create=create)
    try:
        with closing(
            sqlite3.connect(
                path.resolve().as_uri() + ("?mode=rwc" if create else "?mode=rw"),
                uri=True,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
            )
        ) as connection:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA foreign_keys = ON")
            _prepare(connection, path)
            _use_wal(connection)
            yield connection
    except sqlite3.Error as exc:
        raise HistoryError(f"{path}: the history cannot be used: {printable(str(exc))}") from None


def check_history(path: Path) -> None:
    """Refuse, before a run asks anything, a history it could not append to.

    A file that is there is opened (and upgraded); a missing one needs only its directory.

    Raises:
        HistoryError: as `open_history`.
    """
    _check_path(path, create=True)
    if path.exists():
        with open_history(path):
            pass


# --- writing --------------------------------------------------------------------------------


def append_run(path: Path, results: Results, labels: Mapping[str, str]) -> Appended:
    """Store one run (its suites, labels, cases and asks) in one transaction, once.

    A run already stored (the same key) is left as it is, its labels too.

    Raises:
        HistoryError: as `open_history`, or the write fails.
    """
    run, cases = records_of(results, labels)
    with open_history(path, create=True) as connection, _immediate(connection):
        stored = connection.execute("SELECT 1 FROM runs WHERE key = ?", (run.key,)).fetchone()
        if stored is None:
            _insert(connection, run, cases, results)
        number = connection.execute(
            "SELECT count(*) FROM runs WHERE (started_at, key) <= (?, ?)",
            (timestamp(run.started_at), run.key),
        ).fetchone()[0]
    return Appended(number=number, added=stored is None)


def _insert(
    connection: sqlite3.Connection,
    run: RunRecord,
    cases: Sequence[CaseRecord],
    results: Results,
) -> None:
    """Store a run's row, then its suites, labels, cases and asks, each table in turn."""
    _insert_run(connection, run, results)
    _insert_suites(connection, run, results)
    connection.executemany(
        "INSERT INTO labels (run_key, key, value) VALUES (?, ?, ?)",
        [(run.key, key, value) for key, value in run.labels.items()],
    )
    _insert_cases(connection, run, cases, results)
    _insert_trials(connection, run, results)


def _insert_run(connection: sqlite3.Connection, run: RunRecord, results: Results) -> None:
    shard = results.shard
    connection.execute(
        "INSERT INTO runs (key, started_at, finished_at, gauntlet_version, target_kind, "
        "target_name, target_fingerprint, plan_digest, results_digest, verdict, complete, "
        "interrupted_by, run_id, shard_index, shard_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.key,
            timestamp(run.started_at),
            timestamp(run.finished_at),
            run.gauntlet_version,
            run.target_kind,
            run.target_name,
            run.target_fingerprint,
            run.plan_digest,
            run.results_digest,
            run.verdict,
            int(results.complete),
            results.interrupted_by,
            results.run_id,
            None if shard is None else shard.index,
            None if shard is None else shard.count,
        ),
    )


def _insert_suites(connection: sqlite3.Connection, run: RunRecord, results: Results) -> None:
    connection.executemany(
        "INSERT INTO suites (run_key, position, name, version, threshold, pass_k, parity) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run.key,
                position,
                suite.suite,
                suite.version,
                suite.threshold,
                suite.pass_k,
                suite.parity.value,
            )
            for position, suite in enumerate(results.suites)
        ],
    )


def _insert_cases(
    connection: sqlite3.Connection,
    run: RunRecord,
    cases: Sequence[CaseRecord],
    results: Results,
) -> None:
    connection.executemany(
        "INSERT INTO cases (run_key, position, suite, gate, case_id, language, outcome, passes, "
        "repeats, latency_ms, tokens, pair) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run.key,
                result.index,
                case.suite,
                case.gate,
                case.case_id,
                case.language,
                case.outcome,
                case.passes,
                case.repeats,
                case.latency_ms,
                case.tokens,
                result.pair,
            )
            for case, result in zip(cases, results.cases, strict=True)
        ],
    )


def _insert_trials(connection: sqlite3.Connection, run: RunRecord, results: Results) -> None:
    connection.executemany(
        "INSERT INTO trials (run_key, suite, case_id, trial, outcome, latency_ms, tokens, "
        "first_token_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run.key,
                result.suite,
                result.case_id,
                number,
                trial.outcome.value,
                trial.latency_ms,
                _tokens(trial.usage),
                _first_token(trial),
            )
            for result in results.cases
            for number, trial in enumerate(result.trials, start=1)
        ],
    )


# --- reading --------------------------------------------------------------------------------

_RUN_COLUMNS = (
    "key, started_at, finished_at, gauntlet_version, target_kind, target_name, "
    "target_fingerprint, plan_digest, results_digest, verdict, complete, interrupted_by, "
    "shard_index"
)
_CASE_COLUMNS = (
    "cases.run_key, suite, gate, case_id, language, outcome, passes, repeats, latency_ms, tokens, "
    "pair"
)


@dataclass
class _Rows:
    """A history's rows as read, by run key: what its records are built and checked from."""

    runs: list[tuple[Any, ...]]
    labels: dict[str, dict[str, str]]
    suites: dict[str, list[tuple[Any, ...]]]
    cases: list[tuple[Any, ...]]
    asks: dict[tuple[str, str, str], list[tuple[Any, ...]]]


def load_history(path: Path) -> History:
    """Every stored run, oldest first (numbered 1, 2, ...), and their cases in run order.

    Each row is checked as it is read, and the file's foreign keys and pages as a whole; then
    each case is derived again from its asks and each run's verdict from its cases
    (`gauntlet.history.rederive`). A row edited by hand into something gauntlet never writes,
    or into a claim its own rows do not make, is refused, located by table and run.

    Raises:
        HistoryError: as `open_history`, or a row that breaks the schema's rules, holds a
            number out of its range (`gauntlet.history.numbers`), or disagrees with its rows.
    """
    with open_history(path) as connection:
        rows = _Rows(
            runs=connection.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY started_at, key"  # noqa: S608
            ).fetchall(),
            labels={},
            suites={},
            cases=connection.execute(
                f"SELECT {_CASE_COLUMNS} FROM cases JOIN runs ON runs.key = cases.run_key "  # noqa: S608
                "ORDER BY runs.started_at, runs.key, cases.position"
            ).fetchall(),
            asks={},
        )
        for run_key_, key, value in connection.execute(
            "SELECT run_key, key, value FROM labels ORDER BY run_key, key"
        ):
            rows.labels.setdefault(run_key_, {})[key] = value
        for row in connection.execute(
            "SELECT run_key, name, version, threshold, pass_k, parity FROM suites "
            "ORDER BY run_key, position"
        ):
            rows.suites.setdefault(row[0], []).append(row[1:])
        # In the runs' order (a run's number is its place), so a damaged history is said run 1
        # first, not in the order of the run keys' hashes; a trial of no run comes last.
        for row in connection.execute(
            "SELECT trials.run_key, trials.suite, trials.case_id, trials.trial, "
            "trials.outcome, trials.latency_ms, trials.tokens, trials.first_token_ms "
            "FROM trials LEFT JOIN runs ON runs.key = trials.run_key "
            "ORDER BY runs.key IS NULL, runs.started_at, trials.run_key, trials.suite, "
            "trials.case_id, trials.trial"
        ):
            rows.asks.setdefault(row[:3], []).append(row[3:])
        # Rows first, each named; then what only SQLite sees (pages, other rules, links); then
        # what the rows say of each other.
        history, problems = _records(rows)
        if not problems:
            problems = _file_problems(connection)
        if not problems:
            problems = _derived_problems(history, rows)
    if problems:
        raise HistoryError(located(str(path), "a damaged history", problems))
    return history


def _records(rows: _Rows) -> tuple[History, list[str]]:
    problems: list[str] = []
    records = []
    for number, row in enumerate(rows.runs, start=1):
        suites = [(name, version) for name, version, *_ in rows.suites.get(row[0], [])]
        record = _run_record(row[:10], number, rows.labels.get(row[0], {}), suites)
        if isinstance(record, str):
            problems.append(f"table runs, run {number}: {record}")
        else:
            records.append(record)
    numbers = {row[0]: number for number, row in enumerate(rows.runs, start=1)}
    for (run_key_, suite, case_id), asks in rows.asks.items():
        for ask in asks:
            broken = _ask_problem(ask)
            if broken is not None:
                problems.append(
                    f"table trials, run {numbers.get(run_key_, '?')}, case "
                    f"{printable(str(case_id))} of {printable(str(suite))}, ask {ask[0]}: {broken}"
                )
    case_records = []
    for row in rows.cases:
        case = _case_record(row[:10])
        if isinstance(case, str):
            problems.append(
                f"table cases, run {numbers[row[0]]}, case {printable(str(row[3]))}: {case}"
            )
        else:
            firsts = tuple(ask[4] for ask in rows.asks.get((row[0], row[1], row[3]), []))
            timed = tuple(float(first) for first in firsts if isinstance(first, int | float))
            case_records.append(replace(case, first_token_ms=timed))
    return History(runs=tuple(records), cases=tuple(case_records)), problems


def _ask_problem(ask: tuple[Any, ...]) -> str | None:
    """Why one row of `trials` breaks its rules (numbers in range, a known outcome)."""
    _, outcome, latency, tokens, first = ask
    if outcome not in {member.value for member in Outcome}:
        return f"outcome: {printable(str(outcome))!r} is not one of {_OUTCOMES}"
    if outcome == Outcome.WAIVED.value:  # as the run's tally holds an ask to it
        return "outcome: 'waived' is a case's outcome, never an ask's"
    for column, problem in (
        ("latency_ms", latency_problem(latency)),
        ("tokens", tokens_problem(tokens)),
        ("first_token_ms", first_token_problem(first)),
    ):
        if problem is not None:
            return f"{column}: {problem}"
    return None


def _derived_problems(history: History, rows: _Rows) -> list[str]:
    """Each case against its asks, each run's verdict against its cases, located."""
    problems: list[str] = []
    by_run: dict[str, list[CaseRecord]] = {}
    for case in history.cases:
        by_run.setdefault(case.run_key, []).append(case)
    runs = {row[0]: row for row in rows.runs}
    pairs: dict[str, dict[tuple[str, str], str | None]] = {}
    for row in rows.cases:
        pair = row[10] if isinstance(row[10], str) else None
        pairs.setdefault(row[0], {})[(row[1], row[3])] = pair
    for run in history.runs:
        suites = [
            StoredSuite(name=name, threshold=threshold, pass_k=pass_k, parity=parity)
            for name, _, threshold, pass_k, parity in rows.suites.get(run.key, [])
        ]
        named = {suite.name: suite for suite in suites}
        cases = by_run.get(run.key, [])
        broken = False
        for case in cases:
            asks = [
                StoredAsk(number=number, outcome=outcome, latency_ms=latency, tokens=tokens)
                for number, outcome, latency, tokens, _ in rows.asks.get(
                    (run.key, case.suite, case.case_id), []
                )
            ]
            found = case_problems(case, asks, named.get(case.suite))
            broken = broken or bool(found)
            problems += [
                f"table cases, run {run.number}, case {printable(case.case_id)}: {problem}"
                for problem in found
            ]
        if broken:
            continue  # a verdict is derived only from cases that agree with their asks
        row = runs[run.key]
        stored = StoredRun(
            complete=bool(row[10]), interrupted_by=row[11], sharded=row[12] is not None
        )
        problem = verdict_problem(run, stored, suites, cases, pairs.get(run.key, {}))
        if problem is not None:
            problems.append(f"table runs, run {run.number}: {problem}")
    return problems


def _file_problems(connection: sqlite3.Connection) -> list[str]:
    checked = [row[0] for row in connection.execute("PRAGMA quick_check")]
    if checked != ["ok"]:
        return [f"SQLite's check: {printable(line)}" for line in checked]
    return [
        f"table {table}, row {rowid}: refers to a missing row of {parent}"
        for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check")
    ]


def _run_record(
    row: tuple[Any, ...], number: int, labels: dict[str, str], suites: list[tuple[str, int]]
) -> RunRecord | str:
    (key, started, finished, version, kind, name, fingerprint, plan, digest, verdict) = row
    texts = {
        "key": key,
        "started_at": started,
        "finished_at": finished,
        "gauntlet_version": version,
        "target_kind": kind,
        "target_name": name,
        "target_fingerprint": fingerprint,
        "plan_digest": plan,
        "results_digest": digest,
        "verdict": verdict,
    }
    for column, value in texts.items():
        if not isinstance(value, str):
            return f"{column}: {type(value).__name__} where text belongs"
    try:
        started_at, finished_at = _parse_timestamp(started), _parse_timestamp(finished)
    except ValueError:
        return "started_at or finished_at: not a time as gauntlet writes one (UTC, ...Z)"
    if verdict not in {member.value for member in Verdict}:
        return f"verdict: {printable(verdict)!r} is not one of {_VERDICTS}"
    for label, value in labels.items():
        broken = _label_problem(label, value)
        if broken is not None:
            return f"label {printable(str(label))!r}: {broken}"
    return RunRecord(
        key=key,
        number=number,
        started_at=started_at,
        finished_at=finished_at,
        gauntlet_version=version,
        target_kind=kind,
        target_name=name,
        target_fingerprint=fingerprint,
        plan_digest=plan,
        suites=tuple(suites),
        results_digest=digest,
        verdict=verdict,
        labels=labels,
    )


def _case_record(row: tuple[Any, ...]) -> CaseRecord | str:
    (key, suite, gate, case_id, language, outcome, passes, repeats, latency, tokens) = row
    if not all(isinstance(text, str) for text in (suite, gate, case_id, language)):
        return "suite, gate, case_id and language: text belongs in each"
    if outcome not in {member.value for member in Outcome}:
        return f"outcome: {printable(str(outcome))!r} is not one of {_OUTCOMES}"
    if not (isinstance(passes, int) and isinstance(repeats, int) and 0 <= passes <= repeats):
        return f"passes {passes!r} of repeats {repeats!r}: not 0 <= passes <= repeats"
    if latency is not None and (problem := latency_problem(latency)) is not None:
        return f"latency_ms: {problem}"
    if (problem := tokens_problem(tokens)) is not None:
        return f"tokens: {problem}"
    record = CaseRecord(
        run_key=key,
        suite=suite,
        gate=gate,
        case_id=case_id,
        language=language,
        outcome=outcome,
        passes=passes,
        repeats=repeats,
        latency_ms=latency,
        tokens=tokens,
    )
    return name_problem(record) or record
