"""`gauntlet validate`, and loading the case files and waivers every command names.

Imports nothing heavier than the loader needs: `gauntlet validate` runs from here without
typer or rich (see `gauntlet.cli.entry`), which it needs only to print an error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gauntlet.cli.state import write_line
from gauntlet.languages import in_column_order
from gauntlet.text_columns import GAP, padded
from gauntlet.words import plural

if TYPE_CHECKING:
    from gauntlet.cases.loader import SuiteSet
    from gauntlet.cases.persona import Persona
    from gauntlet.cases.waivers import WaiverInfo


class ValidateRequest(NamedTuple):
    """`gauntlet validate`'s options, parsed."""

    cases: Sequence[Path] | None
    waivers: Path | None
    personas: Sequence[Path] | None = None
    """The persona files and directories to check; with none of the others, only these."""

    @property
    def checks_cases(self) -> bool:
        """Whether the case files are loaded: named, needed by a waivers file, or the default."""
        return bool(self.cases) or self.waivers is not None or not self.personas


def parse_validate(args: Sequence[str]) -> ValidateRequest | None:
    """`validate` and its options as plainly written, else None (for the full parser).

    Only `validate` followed by `--cases PATH` and `--personas PATH` (each repeatable) and at
    most one `--waivers FILE`,
    each as `--opt VALUE` or `--opt=VALUE` with a value that is not empty and does not start
    with `-`. Anything else (help, a typo, a missing value) goes to the full parser, which
    words every usage error.
    """
    if not args or args[0] != "validate" or "_GAUNTLET_COMPLETE" in os.environ:
        return None  # shell completion, too, is the full parser's
    cases: list[Path] = []
    personas: list[Path] = []
    waivers: Path | None = None
    rest = list(args[1:])
    while rest:
        name, equals, value = rest.pop(0).partition("=")
        if name not in ("--cases", "--waivers", "--personas"):
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if not value or value.startswith("-"):
            return None
        if os.path.exists(value) and not os.access(value, os.R_OK):
            return None  # the full parser says "not readable", as it does for every command
        if name == "--cases":
            cases.append(Path(value))
        elif name == "--personas":
            personas.append(Path(value))
        elif waivers is None:
            waivers = Path(value)
        else:
            return None
    return ValidateRequest(cases or None, waivers, personas or None)


def load_cases(cases: Sequence[Path] | None) -> SuiteSet:
    """The suites of the case files and directories `cases` names, else the built-in ones."""
    from gauntlet.cases.builtin import builtin_suites_dir
    from gauntlet.cases.loader import load_suites
    from gauntlet.cli.collector import paused_while_loading

    if not cases:
        builtin = builtin_suites_dir()
        if builtin.is_relative_to(Path.cwd()):
            builtin = builtin.relative_to(Path.cwd())  # shorter locations in a checkout
        cases = [builtin]
    with paused_while_loading():
        return load_suites(cases)


def load_waivers_for(path: Path | None, suites: SuiteSet) -> tuple[WaiverInfo, ...]:
    """The waivers file checked on its own and against `suites`, judged on today's date (UTC)."""
    if path is None:
        return ()
    from datetime import UTC, datetime

    from gauntlet.cases.waivers import check_waivers, load_waivers

    return check_waivers(load_waivers(path, today=datetime.now(UTC).date()), suites)


def validate_lines(suites: SuiteSet, waived: Sequence[WaiverInfo] | None) -> list[str]:
    """The cases per gate and language, then the `OK:` line (waivers counted when checked)."""
    counts = suites.counts()
    names = padded([[gate.value] for gate in counts])
    lines = [
        GAP.join([*name, plural(count.suites, "suite"), f"{count.cases:>4} cases"])
        + GAP
        + GAP.join(f"{lang} {count.languages[lang]}" for lang in in_column_order(count.languages))
        for name, count in zip(names, counts.values(), strict=True)
    ]
    total_suites = len(suites.suites)
    lines.append(
        f"OK: {plural(total_suites, 'suite')}, "
        f"{suites.case_total} cases"
        + (f", {plural(len(waived), 'waiver')}" if waived is not None else "")
    )
    return lines


def persona_lines(personas: Sequence[Persona]) -> list[str]:
    """Each persona with its goal, languages and turns, then the `OK:` line."""
    rows = [
        [
            persona.id,
            persona.goal.gate.value,
            str(persona.goal.kind or persona.goal.attack_type),
            " ".join(in_column_order(persona.languages)),
            f"{persona.max_turns} turns",
        ]
        for persona in personas
    ]
    lines = [GAP.join(row).rstrip() for row in padded(rows)]
    languages = in_column_order(tag for persona in personas for tag in persona.languages)
    lines.append(
        f"OK: {plural(len(personas), 'persona')} "
        f"({'language' if len(languages) == 1 else 'languages'} {', '.join(languages)})"
    )
    return lines


def execute_validate(request: ValidateRequest) -> None:
    """Load every file strictly and print what loaded; raises `ConfigErrors` on any problem.

    The case files (and waivers) and the persona files are each loaded in full before either
    is refused, so one run lists the problems of both.
    """
    from gauntlet.errors import ConfigError, ConfigErrors

    errors: list[ConfigError] = []
    lines: list[str] = []
    if request.checks_cases:
        try:
            suites = load_cases(request.cases)
            waived = load_waivers_for(request.waivers, suites)
            lines += validate_lines(suites, waived if request.waivers else None)
        except ConfigErrors as exc:
            errors += exc.errors
    if request.personas:
        from gauntlet.cases.persona import load_personas

        try:
            lines += persona_lines(load_personas(request.personas))
        except ConfigErrors as exc:
            errors += exc.errors
    if errors:
        raise ConfigErrors(errors)
    for line in lines:
        write_line(line)
