"""The waivers file: failures a team has decided to ship with for now, each owned and dated.

```yaml
max_days: 90            # optional: the longest a waiver may run, at most 180
waivers:
  - case: gnd-es-library-hours      # or `suite: riverbend-grounding`, for all its cases
    reason: Spanish page not yet reviewed by the translator
    owner: maria.lopez
    ticket: https://tracker.example/GOV-123
    created: 2026-11-20
    expires: 2027-01-15
    gates: [grounding]              # optional: the gates it may apply to
```

Read with the case files' YAML reader (no anchors, aliases, tags, duplicate keys or YAML 1.1
booleans) and validated as strictly, in two phases, every problem located as
`path:line:column`: the file on its own (`parse_waivers`), then against the loaded suites
(`check_waivers`): a case or suite that does not exist, a waiver whose `gates` leave out the
gate of what it names, two waivers on one case. What a waiver does in a run is
`gauntlet.run.waivers`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path as FsPath
from typing import Annotated, Any

from pydantic import AfterValidator, Field, TypeAdapter, model_validator
from pydantic_core import PydanticCustomError

from gauntlet.cases.file_words import (
    IDENTIFIER_HINT,
    FileWords,
    ListFileWords,
    by_position,
    did_you_mean,
    kind_of,
)
from gauntlet.cases.loader import SuiteSet
from gauntlet.cases.model import CaseId, GateName, Identifier, Text
from gauntlet.cases.strict_file import StrictFile
from gauntlet.cases.yaml_nodes import Document, Mark, NodePath
from gauntlet.display import printable
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError
from gauntlet.record import Reason, Record, StrictRecord

DEFAULT_MAX_DAYS = 90
"""How long a waiver may run, from `created` to `expires`, when the file does not say."""
MAX_DAYS_LIMIT = 180
"""The most a file may allow: a failure tolerated longer is a decision, not a waiver."""
MAX_WAIVERS_BYTES = 1024 * 1024
"""The largest waivers file read (1 MiB), checked before reading."""

ISO_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
TICKET_PATTERN = r"^https?://[^\s/?#]+[^\s]*$"


def _one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks among it) folded to one space.

    A reason written over several lines (YAML's `|` or `>`) is read as the sentence it is;
    results and reports hold reasons on one line. A control or bidi character that is not
    whitespace is refused here, where it can be located, rather than on the way out.
    """
    folded = " ".join(text.split())
    if printable(folded) != folded:
        found = next(char for char in folded if printable(char) != char)
        raise PydanticCustomError(
            "control_character",
            "holds U+{code}, a control or bidi character; write it as plain text",
            {"code": f"{ord(found):04X}"},
        )
    return folded


OneLine = Annotated[Text, AfterValidator(_one_line)]
"""Free text of a waiver, read onto one line: its whitespace folded, its controls refused."""


class Waiver(StrictRecord):
    """One waiver: a case (or a suite's cases) whose failure is tolerated until `expires`."""

    case: CaseId | None = None
    """The case id it covers. Exactly one of `case` and `suite`."""
    suite: Identifier | None = None
    """The suite all of whose cases it covers. Exactly one of `case` and `suite`."""
    reason: OneLine
    """Why the failure is tolerated, in a sentence a reviewer can check; it may be written over
    several lines (`reason: |`), and is read as one, its whitespace folded."""
    owner: OneLine
    """Who decided."""
    ticket: Annotated[str, Field(pattern=TICKET_PATTERN, max_length=2048)]
    """Where the decision is tracked: an http(s) URL."""
    created: Annotated[str, Field(pattern=ISO_DATE_PATTERN)]
    """The day it was decided, `YYYY-MM-DD`; not after the day of the run."""
    expires: Annotated[str, Field(pattern=ISO_DATE_PATTERN)]
    """Its last day, `YYYY-MM-DD` (live through the end of it, UTC); not before `created`, and
    at most the file's `max_days` after it."""
    gates: tuple[GateName, ...] | None = Field(default=None, min_length=1)
    """The gates it may apply to; a waiver naming a case or suite of another gate is refused."""

    @model_validator(mode="after")
    def _one_target(self) -> Waiver:
        for name in ("case", "suite", "gates"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise PydanticCustomError(
                    "null", "write a value, or leave the key out", {"at": (name,)}
                )
        if (self.case is None) == (self.suite is None):
            raise PydanticCustomError(
                "one_target",
                "a waiver names exactly one of `case` (one case) and `suite` (all its cases)",
                {"at": ("suite",) if self.suite is not None else (), "key": True},
            )
        return self

    @property
    def created_day(self) -> date:
        """`created` as a date (checked a real day when the file was loaded)."""
        return date.fromisoformat(self.created)

    @property
    def expires_day(self) -> date:
        """`expires` as a date (checked a real day when the file was loaded)."""
        return date.fromisoformat(self.expires)


class WaiversFile(StrictRecord):
    """A waivers file."""

    max_days: Annotated[int, Field(ge=1, le=MAX_DAYS_LIMIT)] = DEFAULT_MAX_DAYS
    """The longest a waiver of this file may run, from `created` to `expires`, in days."""
    waivers: tuple[Waiver, ...]
    """The waivers; an empty list waives nothing."""


WAIVERS_ADAPTER: TypeAdapter[WaiversFile] = TypeAdapter(WaiversFile)


@dataclass(frozen=True)
class LoadedWaivers:
    """A waivers file as validated, and where each waiver is."""

    file: WaiversFile
    source: str
    """The file, as named on the command line."""
    marks: tuple[Mark, ...]
    """Where each waiver starts, in the order of `file.waivers`."""
    document: Document

    def infos(self) -> tuple[WaiverInfo, ...]:
        """Each waiver as the results record it."""
        return tuple(
            WaiverInfo(
                case=waiver.case,
                suite=waiver.suite,
                reason=waiver.reason,
                owner=waiver.owner,
                ticket=waiver.ticket,
                created=waiver.created_day,
                expires=waiver.expires_day,
                gates=waiver.gates,
                source=self.source,
                line=mark.line,
            )
            for waiver, mark in zip(self.file.waivers, self.marks, strict=True)
        )


def parse_waivers(raw: str | bytes, source: str, *, today: date) -> LoadedWaivers:
    """Parse and validate a waivers file on its own. Pure: reads nothing but its arguments.

    Args:
        raw: The file's bytes or text.
        source: The name to put in every error location.
        today: The day of the run (UTC): no waiver may be created after it.

    Raises:
        ConfigErrors: every problem found, each located.
    """
    file, document = WAIVERS_FILE.parse(raw, source)
    loaded = LoadedWaivers(
        file=file,
        source=source,
        marks=tuple(document.mark_for(("waivers", n)) for n in range(len(file.waivers))),
        document=document,
    )
    errors = _date_problems(loaded, today) + _repeated(loaded)
    if errors:
        raise ConfigErrors(sorted(errors, key=by_position))
    return loaded


def load_waivers(path: FsPath, *, today: date) -> LoadedWaivers:
    """Read and parse a waivers file (see `parse_waivers`).

    Raises:
        ConfigErrors: the file is not a regular file, is too large, cannot be read, or
            `parse_waivers` refuses it.
    """
    return parse_waivers(WAIVERS_FILE.read(path), str(path), today=today)


def check_waivers(loaded: LoadedWaivers, suites: SuiteSet) -> tuple[WaiverInfo, ...]:
    """The waivers checked against the loaded suites, as the results record them.

    Raises:
        ConfigErrors: a waiver names a case or suite not loaded, its `gates` leave out the gate
            of what it names, or it covers a case another waiver covers through its suite.
    """
    case_suite = {
        case.id: loaded_suite.suite.suite
        for loaded_suite in suites.suites
        for case in loaded_suite.cases
    }
    suite_gate = {
        loaded_suite.suite.suite: loaded_suite.suite.gate for loaded_suite in suites.suites
    }
    suite_waivers: dict[str, int] = {
        waiver.suite: n for n, waiver in enumerate(loaded.file.waivers) if waiver.suite is not None
    }
    errors = [
        error
        for n in range(len(loaded.file.waivers))
        for error in _waiver_errors(loaded, n, case_suite, suite_gate, suite_waivers)
    ]
    if errors:
        raise ConfigErrors(sorted(errors, key=by_position))
    return loaded.infos()


def _waiver_errors(
    loaded: LoadedWaivers,
    n: int,
    case_suite: Mapping[str, str],
    suite_gate: Mapping[str, GateName],
    suite_waivers: Mapping[str, int],
) -> Iterator[ConfigError]:
    """What is wrong with waiver `n` against the loaded suites (see `check_waivers`).

    `case_suite` maps each loaded case to its suite, `suite_gate` each suite to its gate, and
    `suite_waivers` each waived suite to the index of its waiver.
    """
    waiver = loaded.file.waivers[n]
    key = "case" if waiver.case is not None else "suite"
    name = waiver.case if waiver.case is not None else waiver.suite
    assert name is not None  # noqa: S101 - exactly one is set
    known = case_suite if waiver.case is not None else suite_gate
    if name not in known:
        yield _at(
            loaded,
            ("waivers", n, key),
            f"no {key} {name!r} in the loaded suites",
            did_you_mean(name, list(known))
            or "a waiver names a case id or suite name of the suites this run loads",
        )
        return
    suite = case_suite[name] if waiver.case is not None else name
    gate = suite_gate[suite]
    if waiver.gates is not None and gate not in waiver.gates:
        allowed = ", ".join(g.value for g in waiver.gates)
        yield _at(
            loaded,
            ("waivers", n, "gates"),
            f"waivers[{n}].gates: the {key} {name!r} is scored by the {gate.value} "
            f"gate, which [{allowed}] leaves out",
            "add the gate, or waive what you meant",
        )
    other = suite_waivers.get(suite)
    if waiver.case is not None and other is not None:
        first = loaded.marks[other]
        yield _at(
            loaded,
            ("waivers", n, "case"),
            f"waivers[{n}]: the case {name!r} is already waived through its suite "
            f"{suite!r} (line {first.line})",
            "one case, one waiver: remove one of them",
        )


def waivers_schema() -> dict[str, Any]:
    """The JSON Schema of a waivers file, for editors."""
    schema = WaiversFile.model_json_schema()
    schema["title"] = "gauntlet waivers file"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _at(loaded: LoadedWaivers, loc: NodePath, message: str, hint: str | None) -> ConfigSchemaError:
    mark = loaded.document.mark_for(loc)
    return ConfigSchemaError(loaded.source, message, line=mark.line, column=mark.column, hint=hint)


def _date_problems(loaded: LoadedWaivers, today: date) -> list[ConfigError]:
    errors: list[ConfigError] = []
    limit = loaded.file.max_days
    for n, waiver in enumerate(loaded.file.waivers):
        days: dict[str, date] = {}
        for key in ("created", "expires"):
            try:
                days[key] = date.fromisoformat(getattr(waiver, key))
            except ValueError:
                errors.append(
                    _at(
                        loaded,
                        ("waivers", n, key),
                        f"waivers[{n}].{key}: {getattr(waiver, key)!r} is not a day of the "
                        "calendar",
                        None,
                    )
                )
        if len(days) < 2:
            continue
        created, expires = days["created"], days["expires"]
        if created > today:
            errors.append(
                _at(
                    loaded,
                    ("waivers", n, "created"),
                    f"waivers[{n}].created: {created} is after today ({today}, UTC)",
                    "a waiver records a decision already made; write the day it was made",
                )
            )
        if expires < created:
            errors.append(
                _at(
                    loaded,
                    ("waivers", n, "expires"),
                    f"waivers[{n}].expires: {expires} is before created ({created})",
                    None,
                )
            )
        elif expires - created > timedelta(days=limit):
            errors.append(
                _at(
                    loaded,
                    ("waivers", n, "expires"),
                    f"waivers[{n}].expires: {expires} is {(expires - created).days} days after "
                    f"created ({created}); at most {limit} are allowed",
                    f"expire it by {created + timedelta(days=limit)}, or raise max_days (at "
                    f"most {MAX_DAYS_LIMIT})"
                    if limit < MAX_DAYS_LIMIT
                    else f"expire it by {created + timedelta(days=limit)}",
                )
            )
    return errors


def _repeated(loaded: LoadedWaivers) -> list[ConfigError]:
    """Two waivers naming the same case, or the same suite."""
    errors: list[ConfigError] = []
    seen: dict[tuple[str, str], int] = {}
    for n, waiver in enumerate(loaded.file.waivers):
        key = ("case", waiver.case) if waiver.case is not None else ("suite", waiver.suite or "")
        if key in seen:
            first = loaded.marks[seen[key]]
            errors.append(
                _at(
                    loaded,
                    ("waivers", n, key[0]),
                    f"waivers[{n}].{key[0]}: {key[1]!r} is already waived at line {first.line} "
                    f"(waivers[{seen[key]}])",
                    "one case, one waiver: remove one of them",
                )
            )
        else:
            seen[key] = n
    return errors


_KEYS: dict[int, tuple[str, list[str]]] = {
    1: ("a waivers file", list(WaiversFile.model_fields)),
    3: ("a waiver", list(Waiver.model_fields)),
}

_PATTERN_MESSAGES: dict[str, tuple[str, str | None]] = {
    "case": (
        "{value!r} is not a valid case id",
        IDENTIFIER_HINT,
    ),
    "suite": (
        "{value!r} is not a valid suite name",
        IDENTIFIER_HINT,
    ),
    "ticket": (
        "{value!r} is not an http(s) URL",
        "link the ticket where the decision is tracked, such as https://tracker.example/GOV-123",
    ),
    "created": ("{value!r} is not a date written YYYY-MM-DD", "for example 2026-11-20"),
    "expires": ("{value!r} is not a date written YYYY-MM-DD", "for example 2027-01-15"),
}


def _own_rules(
    kind: str, field: str, where: str, value: Any, written: str | None
) -> tuple[str, str | None] | None:
    if field == "max_days" and kind in ("greater_than_equal", "less_than_equal"):
        return (
            f"{where}: must be a whole number from 1 to {MAX_DAYS_LIMIT}, got {value!r}",
            "a failure tolerated longer is a decision to change the suite, not a waiver",
        )
    if field in ("created", "expires") and kind == "string_type":
        return f"{where}: expected a date written YYYY-MM-DD, got {kind_of(value, written)}", None
    return None


WAIVERS_FILE = StrictFile(
    FileWords(
        "waivers file",
        one_per_file="one waivers document per file",
        too_large="a waivers file this large is a list of decisions nobody reviews",
    ),
    WAIVERS_ADAPTER,
    ListFileWords(
        whole="a waivers file must be a mapping of max_days and waivers",
        keys=_KEYS,
        patterns=_PATTERN_MESSAGES,
        first=_own_rules,
    ).schema_errors,
    limit=MAX_WAIVERS_BYTES,
)
"""The waivers file: one list of waivers, up to `MAX_WAIVERS_BYTES`."""


__all__ = [
    "DEFAULT_MAX_DAYS",
    "MAX_DAYS_LIMIT",
    "WAIVERS_ADAPTER",
    "LoadedWaivers",
    "Waiver",
    "WaiversFile",
    "check_waivers",
    "load_waivers",
    "parse_waivers",
    "waivers_schema",
]


class WaiverInfo(Record):
    """A waiver as loaded from the waivers file: enough to apply it again without the file."""

    case: CaseId | None
    """The case it covers; None when it covers a whole suite."""
    suite: Identifier | None
    """The suite all of whose cases it covers; None when it covers one case."""
    reason: Reason
    owner: Reason
    """Who decided to ship with the failure."""
    ticket: Reason
    """Where the decision is tracked: an http(s) URL."""
    created: date
    expires: date
    """The last day the waiver is live (through the end of that day, UTC)."""
    gates: tuple[GateName, ...] | None
    """The gates it may apply to; None for any."""
    source: str
    """The waivers file, as named on the command line."""
    line: int
    """The line of the waiver in `source`."""
