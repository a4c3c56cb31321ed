"""Every break written as a case the gate replays; a break already frozen reported as known.

A break freezes as the case its conversation would (`gauntlet.explore.goal.candidate_case`):
the attacker's messages up to and including the breaking turn, verbatim, with its provenance
(`found_by`). The cases go into one suite file per gate and persona under `out`
(`<persona>.yaml`, suite `explore-<persona>`), appended to what is there (its `version`
bumped) and written atomically: a crash mid-write leaves the old file whole. Every suite file
under `out` is read with the case loader first; one that does not load is refused, never
overwritten.

A break is KNOWN, and written nowhere, when a case frozen under `out` (or earlier in the same
call) has its gate, language, persona and detector, checks what the break's case checks (its
markers, routing, link hosts, refusal kind, judge criterion: `checks_of`), and has a breaking
message that `matcher` calls the same (by default: equal once normalised,
`gauntlet.matching.normalise`), or is the very conversation (the same messages, the same
checks). A frozen case that checks anything else (the goal's canary rotated since, a routing
line added) would pass a target that breaks the goal as it is now: the break is NEW, and when
its messages are that case's, its id gets a digest of its checks so the two never collide.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from gauntlet.cases.loader import CASE_FILE, load_suites, parse_suite
from gauntlet.cases.model import MAX_ID_LENGTH, AdversarialCase, Case, FoundBy, GateName
from gauntlet.cases.persona import Persona
from gauntlet.cases.strict_file import YAML_SUFFIX
from gauntlet.cases.yaml_nodes import Document, decode_source, read_document
from gauntlet.cases.yaml_text import yaml_text
from gauntlet.errors import ConfigError, ConfigErrors
from gauntlet.explore.goal import FrozenCase, candidate_case, case_id
from gauntlet.explore.model import Conversation, Finding, FindingStatus, Outcome
from gauntlet.files import write_atomically
from gauntlet.matching import normalise
from gauntlet.version import __version__

SUITE_PREFIX = "explore"
"""A frozen suite's name is `explore-<persona>`, as its cases' ids begin `explore-`."""

Matcher = Callable[[str, str, str], bool]
"""Whether two breaking messages are the same break: `(frozen, new, language)`."""


def same_text(frozen: str, new: str, language: str) -> bool:
    """The default matcher: the two messages are equal once normalised (case, spaces, width)."""
    return normalise(frozen) == normalise(new)


def header() -> str:
    """The comment a frozen suite file starts with."""
    return (
        f"# Written by gauntlet explore {__version__}: each case is a conversation in which an\n"
        "# attacker persona broke the target, replayed as the attacker wrote it. You may edit\n"
        "# this file by hand; gauntlet explore appends the new breaks it finds and bumps version.\n"
    )


class Break(NamedTuple):
    """A conversation that broke its persona's goal, with what its provenance records."""

    persona: Persona
    conversation: Conversation
    """Its outcome is BROKE, with `breaking_turn` and `detector` set."""
    attacker: str
    """The attacker's fingerprint (`AttackerInfo.fingerprint`)."""
    target: str
    """The target's name, as the results name it."""
    found: datetime.date


class _Frozen(NamedTuple):
    """A case already frozen, as a new break is matched against it."""

    message: str
    case_id: str
    file: str
    checks: str
    """`checks_of` the case: a break is known only to a case that checks what its goal does."""


@dataclass
class _Suite:
    """One frozen suite file: what it holds as written, and the cases to add to it."""

    path: Path
    written: _Written | None
    """The file as the strict reader read it, with its text; None for a file not yet written."""
    added: list[FrozenCase] = field(default_factory=list)


def freeze(
    out: Path, breaks: Sequence[Break], *, matcher: Matcher = same_text
) -> tuple[Finding, ...]:
    """Write each new break as a case in a suite file under `out`, atomically; match the rest.

    A break that matches a case already frozen under `out` (same gate, language, persona and
    detector, its breaking turn matched by `matcher`, by default text normalised) is KNOWN and
    written nowhere.

    Raises:
        ValueError: a break is not one (its conversation did not break, or names another
            persona, or a language its persona does not speak); nothing is written.
        ConfigErrors: a suite file under `out` cannot be read (never overwritten).
        OSError: `out` cannot be written (nothing half-written is left behind).
    """
    cases = [_frozen_case(item) for item in breaks]
    out.mkdir(parents=True, exist_ok=True)
    loaded = load_suites([out]).suites if _any_suite_file(out) else ()
    known: dict[tuple[str, str, str, str], list[_Frozen]] = {}
    ids: dict[str, _Frozen] = {}
    names: dict[str, tuple[GateName, Path]] = {}
    for each in loaded:
        file = _relative(out, Path(each.source))
        names[each.suite.suite] = (each.suite.gate, Path(each.source))
        for case in each.cases:
            if case.variant is not None:
                continue
            held = _Frozen(case.final_prompt, case.id, file, checks_of(case))
            ids[case.id] = held
            if case.found_by is not None:
                key = (
                    each.suite.gate.value,
                    case.language,
                    case.found_by.persona,
                    case.found_by.detector,
                )
                known.setdefault(key, []).append(held)
    suites: dict[str, _Suite] = {}
    findings: list[Finding] = []
    for item, case in zip(breaks, cases, strict=True):
        conversation = item.conversation
        detector = conversation.detector or ""
        key = (item.persona.goal.gate.value, case.language, item.persona.id, detector)
        checks = checks_of(case)
        same_checks = [held for held in known.get(key, []) if held.checks == checks]
        match = _match(same_checks, case.final_prompt, case.language, matcher)
        if case.id in ids and ids[case.id].checks != checks:  # the same messages, other checks
            case = case.model_copy(update={"id": _checked_id(case.id, checks)})
        if case.id in ids:
            match = ids[case.id]
        if match is not None:
            findings.append(
                Finding(
                    conversation=conversation,
                    status=FindingStatus.KNOWN,
                    case_id=match.case_id,
                    file=match.file,
                )
            )
            continue
        name, suite = _suite_for(out, item.persona, names, suites)
        suite.added.append(case)
        file = _relative(out, suite.path)
        ids[case.id] = _Frozen(case.final_prompt, case.id, file, checks)
        known.setdefault(key, []).append(ids[case.id])
        findings.append(
            Finding(conversation=conversation, status=FindingStatus.NEW, case_id=case.id, file=file)
        )
    texts = [(written.path, _suite_text(name, written)) for name, written in suites.items()]
    for path, text in texts:
        write_atomically(path, text, mode=0o666)
    return tuple(findings)


_NOT_CHECKS = frozenset({"id", "language", "prompt", "turns", "tags", "pair", "found_by"})
"""A frozen case's keys that say what is sent or who found it, not what an answer must do."""


def checks_of(case: Case) -> str:
    """What `case` requires of an answer, as one canonical text.

    Every key but the messages, the id, the tags and the provenance, and each turn's checks
    without its message. Two cases with the same `checks_of` grade an answer the same way; a
    hand edit that changes a check (a marker added) makes another text, so a break is then
    frozen again rather than matched to a case that checks something else.
    """
    data = case.model_dump(mode="json", exclude=set(_NOT_CHECKS), exclude_defaults=True)
    turns = case.turns or ()
    data["turns"] = [
        turn.model_dump(mode="json", exclude={"user"}, exclude_defaults=True) for turn in turns
    ]
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def _checked_id(base: str, checks: str) -> str:
    """`base` told apart by a digest of `checks`: the same messages frozen with other checks."""
    return f"{base}-{hashlib.sha256(checks.encode()).hexdigest()[:6]}"


def check_frozen(out: Path) -> None:
    """Read every suite already under `out` as `freeze` will, before anything is explored.

    Raises:
        ConfigErrors: a suite file under `out` cannot be read: said before an attacker or a
            target is asked, so no conversation is spent on findings that could not be kept.
    """
    if out.is_dir() and _any_suite_file(out):
        load_suites([out])


def _frozen_case(item: Break) -> FrozenCase:
    """The case `item` freezes as, or ValueError when it is not a break of its persona."""
    conversation, persona = item.conversation, item.persona
    turn, detector = conversation.breaking_turn, conversation.detector
    if (
        conversation.outcome is not Outcome.BROKE
        or turn is None
        or not detector
        or turn > len(conversation.turns)
    ):
        raise ValueError(
            f"the {conversation.outcome.value} conversation of {conversation.persona} "
            f"({conversation.language}) is not a break: only a conversation that broke, with "
            "its breaking turn and detector, is frozen"
        )
    if conversation.persona != persona.id:
        raise ValueError(
            f"a conversation of persona {conversation.persona!r} given with persona "
            f"{persona.id!r}: its case would be checked by another goal than the one it broke"
        )
    if conversation.language not in persona.languages:
        raise ValueError(
            f"persona {persona.id!r} does not speak {conversation.language!r}: it has no "
            "goal in that language to freeze the break against"
        )
    longest = max(
        len(_checked_id(case_id(persona.id, conversation.language, ()), "")),
        len(_suite_name(persona)),
    )
    if longest > MAX_ID_LENGTH:
        room = MAX_ID_LENGTH - (longest - len(persona.id))
        raise ValueError(
            f"persona id {persona.id[:40]!r}... is too long to name its frozen cases and suite: "
            f"with language {conversation.language!r}, at most {room} characters"
        )
    messages = [exchange.user for exchange in conversation.turns[:turn]]
    found_by = FoundBy(
        persona=persona.id,
        attacker=item.attacker,
        seed=conversation.seed,
        breaking_turn=turn,
        found=item.found.isoformat(),
        target=item.target,
        detector=detector,
    )
    return candidate_case(persona, conversation.language, messages, found_by=found_by)


def _match(frozen: list[_Frozen], message: str, language: str, matcher: Matcher) -> _Frozen | None:
    return next((case for case in frozen if matcher(case.message, message, language)), None)


def _any_suite_file(out: Path) -> bool:
    """Whether `out` holds anything the case loader would read (or refuse to read)."""
    return any(path.suffix.lower() in (".yaml", ".yml") for path in out.rglob("*"))


def _relative(out: Path, path: Path) -> str:
    return path.relative_to(out).as_posix() if path.is_relative_to(out) else str(path)


def _suite_name(persona: Persona) -> str:
    """The suite named with its gate, for a persona whose goal changed gate: its longest name."""
    return f"{SUITE_PREFIX}-{persona.id}-{persona.goal.gate.value}"


def _suite_for(
    out: Path,
    persona: Persona,
    names: dict[str, tuple[GateName, Path]],
    suites: dict[str, _Suite],
) -> tuple[str, _Suite]:
    """The suite a new case of `persona` goes into: its frozen suite, or a new file."""
    gate = persona.goal.gate
    name = f"{SUITE_PREFIX}-{persona.id}"
    if name in names and names[name][0] is not gate:  # the persona's goal changed its gate
        name = _suite_name(persona)
    if name in suites:
        return name, suites[name]
    if name in names:
        path = names[name][1]
        text = decode_source(CASE_FILE.read(path), str(path))
        suites[name] = _Suite(path, _Written(text, CASE_FILE.document(text, str(path))))
        return name, suites[name]
    stem = name.removeprefix(f"{SUITE_PREFIX}-")
    path = out / f"{stem}{YAML_SUFFIX}"
    taken = {suite.path for suite in suites.values()} | {where for _, where in names.values()}
    number = 1
    while path.exists() or path in taken:  # a file holding another suite is never replaced
        number += 1
        path = out / f"{stem}-{number}{YAML_SUFFIX}"
    suites[name] = _Suite(path, None)
    return name, suites[name]


class _Written(NamedTuple):
    """A suite file's text, and what the strict reader read of it."""

    text: str
    read: Document


def _appended(
    written: _Written, data: dict[str, Any], cases: list[dict[str, Any]], source: str
) -> str | None:
    """The file's own text with its version bumped and `cases` added at its end.

    So what a person wrote in it (comments, layout) stays. None when that text would not read
    back as `data` (its cases are not its last key, or are laid out so that text added at the
    end would land elsewhere): the file is then written from its data.
    """
    text, read = written
    version = read.value_marks[("version",)]
    lines = text.splitlines(keepends=True)
    line = lines[version.line - 1]
    at = version.column - 1
    digits = len(line[at:]) - len(line[at:].lstrip("0123456789"))
    if not digits:
        return None
    lines[version.line - 1] = f"{line[:at]}{data['version']}{line[at + digits :]}"
    indent = " " * max(read.value_marks[("cases", 0)].column - 3, 0)
    items = "".join(f"{indent}{row}\n" for row in yaml_text(cases, source).splitlines())
    body = "".join(lines)
    candidate = body + ("" if body.endswith("\n") else "\n") + items
    try:
        same = read_document(candidate, source).data == data
    except ConfigErrors:
        same = False
    return candidate if same else None


def _suite_text(name: str, suite: _Suite) -> str:
    """The suite file's new text, checked to load with the cases added."""
    written = [case.model_dump(mode="json", exclude_unset=True) for case in suite.added]
    source = str(suite.path)
    if suite.written is None:
        adversarial = isinstance(suite.added[0], AdversarialCase)
        data: dict[str, Any] = {
            "suite": name,
            "gate": (GateName.ADVERSARIAL if adversarial else GateName.REFUSAL).value,
            "version": 1,
            "threshold": 1.0,
            "cases": written,
        }
        text = header() + yaml_text(data, source)
    else:
        data = {**suite.written.read.data, "version": suite.written.read.data["version"] + 1}
        data["cases"] = [*data["cases"], *written]
        text = _appended(suite.written, data, written, source) or (
            header() + yaml_text(data, source)
        )
    try:
        loaded = parse_suite(text, source)
    except ConfigErrors as exc:
        first = exc.errors[0]
        raise ConfigErrors(
            [
                ConfigError(
                    source,
                    f"the frozen cases cannot be added to this suite: {first.message}",
                    hint="its own rules refuse them; move the suite out of the findings "
                    "directory, or freeze into another",
                )
            ]
        ) from None
    wanted = {case.id for case in suite.added}
    if not wanted <= {case.id for case in loaded.cases}:  # pragma: no cover - a writer's bug
        raise ValueError(f"{source}: the frozen cases did not read back")
    return text
