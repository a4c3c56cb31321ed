"""The run journal: every finished case appended as one JSON line, so a killed run resumes.

The first line says which run the journal belongs to (plan digest, shard, target); `--resume`
refuses a journal from other suites, options or target. A line cut short by a kill is the
last one and is ignored: that case is simply asked again.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from gauntlet import limits
from gauntlet.cases.waivers import WaiverInfo
from gauntlet.errors import ResultsError, UsageError
from gauntlet.files import (
    RefusedFileError,
    check_writable_in_place,
    open_for_writing,
    read_regular_file,
)
from gauntlet.run.results import CaseResult, EmbedderInfo, JudgeInfo, Plan, Shard
from gauntlet.run.results_file import case_problems
from gauntlet.run.settings import RunSettings

JOURNAL_SUFFIX = ".journal"


class JournalHeader(BaseModel):
    """The journal's first line: the run it belongs to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["gauntlet-journal"] = "gauntlet-journal"
    plan: Plan
    shard: Shard | None
    target: str
    run_id: str | None = None
    judge: JudgeInfo | None = None
    """The judge and its calibration: a resumed run is judged by the same judge, or not at all."""
    embedder: EmbedderInfo | None = None
    """The embedder and its calibration: a resumed run compares meanings with the same one."""
    waivers: tuple[WaiverInfo, ...] = ()
    """The run's waivers: a resumed run keeps them (and is refused with others)."""
    strict_waivers: bool = False

    @classmethod
    def of(cls, settings: RunSettings) -> JournalHeader:
        """The header of a run with `settings`: the target by name, the judge as recorded."""
        return cls(
            plan=settings.plan,
            shard=settings.shard,
            target=settings.target.name,
            run_id=settings.run_id,
            judge=settings.judge_info,
            embedder=settings.embedder_info,
            waivers=settings.waivers,
            strict_waivers=settings.strict_waivers,
        )


def journal_path(results_path: Path) -> Path:
    """Where the journal of a run writing `results_path` lives: beside it."""
    return results_path.with_name(results_path.name + JOURNAL_SUFFIX)


class Journal:
    """Appends finished cases to a file, flushed line by line; reads them back to resume.

    The file is made when the first case finishes (or `keep` is called), never before: a run
    whose pre-flight check fails leaves no journal behind. It is opened without following a
    symbolic link at its path, so a link planted there cannot redirect the writes.
    """

    def __init__(self, path: Path, *, resume: bool) -> None:
        self.path = path
        self.resume = resume
        self._handle: TextIO | None = None
        self._header: JournalHeader | None = None
        self._broken = False
        """A write failed: nothing more is written, and what was stays for `--resume`."""

    def start(self, settings: RunSettings) -> dict[int, CaseResult]:
        """Say which run this is; return the cases an earlier, interrupted attempt finished.

        Raises:
            UsageError: `--resume` found no journal, or one written for another run, or one
                whose entries disagree with themselves.
        """
        self._header = JournalHeader.of(settings)
        if not self.resume:
            try:  # now, before anything is asked: the journal is opened only later
                check_writable_in_place(self.path)
            except RefusedFileError as exc:
                raise UsageError(str(exc)) from None
            return {}
        done = self._read(self._header)
        self._handle = self._open(append=True)
        return done

    def append(self, case: CaseResult) -> None:
        """Record one finished case, durably enough to survive a kill.

        Each line is handed to the operating system at once, which keeps it whatever becomes
        of this process. It is not forced to the disk line by line: a sync per case held the
        event loop for the disk's latency every time, and losing a machine loses the run too.
        """
        self.keep()
        self._write(case.model_dump_json())

    def keep(self) -> None:
        """Make sure the journal exists, so `--resume` can continue this run."""
        if self._handle is None:
            assert self._header is not None  # noqa: S101 - start() comes first
            self._handle = self._open(append=False)
            self._write(self._header.model_dump_json())

    def close(self, *, remove: bool) -> None:
        """Close the file, synced to disk; remove it when the results file holds everything.

        Raises:
            ResultsError: the journal could not be synced (the disk filled, say); never
                raised again for a journal whose write already failed.
        """
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                if not remove:
                    handle.flush()
                    os.fsync(handle.fileno())
                handle.close()
            except OSError as exc:
                with contextlib.suppress(OSError):  # what it could not write, it cannot now
                    handle.close()
                if not self._broken:
                    raise self._failed(exc) from None
        if remove:
            self.path.unlink(missing_ok=True)

    def _open(self, *, append: bool) -> TextIO:
        try:
            return open_for_writing(self.path, append=append)
        except RefusedFileError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(
                f"{self.path}: cannot write the journal: {exc.strerror or exc}"
            ) from None

    def _write(self, line: str) -> None:
        """Write one line at once; a failure (a full disk, a file-size limit) is said once.

        Every line before the failed one stays, and a line cut short is the last one, which
        `--resume` asks again: the run continues from what the journal holds.

        Raises:
            ResultsError: the line could not be written.
        """
        assert self._handle is not None  # noqa: S101 - keep() opens it
        if self._broken:
            return  # already said: the run ends with that error
        try:
            self._handle.write(line + "\n")
            self._handle.flush()
        except OSError as exc:
            self._broken = True
            raise self._failed(exc) from None

    def _failed(self, error: OSError) -> ResultsError:
        why = error.strerror or type(error).__name__
        return ResultsError(
            f"{self.path}: cannot write the journal: {why}; the cases it holds are kept, and "
            "`gauntlet run` with the same options and --resume continues from them once "
            "there is room"
        )

    def _read(self, expected: JournalHeader) -> dict[int, CaseResult]:
        try:
            raw = read_regular_file(self.path, limit=limits.MAX_RESULTS_BYTES, what="a journal")
        except FileNotFoundError:
            raise UsageError(f"--resume: no journal at {self.path} to resume from") from None
        except RefusedFileError as exc:
            raise UsageError(f"--resume: {exc}") from None
        except OSError as exc:
            raise UsageError(f"--resume: cannot read {self.path}: {exc.strerror}") from exc
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise UsageError(f"--resume: {self.path} is not a gauntlet journal") from None
        try:
            header = JournalHeader.model_validate_json(lines[0] if lines else "")
        except ValidationError:
            raise UsageError(f"--resume: {self.path} is not a gauntlet journal") from None
        for field, what in (
            ("plan", "suites, cases or options"),
            ("shard", "shard"),
            ("target", "target"),
            ("run_id", "run id"),
            ("judge", "judge or calibration"),
            ("embedder", "embedder or embedder calibration"),
            ("waivers", "waivers"),
            ("strict_waivers", "--strict-waivers"),
        ):
            if getattr(header, field) != getattr(expected, field):
                raise UsageError(
                    f"--resume: {self.path} was written for other {what}; refusing to mix "
                    "its answers into this run (run without --resume to start afresh)"
                )
        done: dict[int, CaseResult] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                case = CaseResult.model_validate_json(line)
            except ValidationError:
                if number == len(lines):
                    break  # cut short by the kill: that case is asked again
                raise UsageError(f"--resume: {self.path}:{number}: not a journal entry") from None
            problems = case_problems(case, "entry")
            if problems:
                raise UsageError(
                    f"--resume: {self.path}:{number}: an entry that disagrees with itself: "
                    f"{problems[0]}"
                )
            done[case.index] = case
        return done
