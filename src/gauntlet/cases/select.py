"""Which suites a run loads, and the suite options given for the run.

A run loads the built-in suites, or the case files `--cases` names; `--suite` chooses among
them (and among the built-in ones, by `builtin:NAME` or the file's stem, whatever `--cases`
says) or names a case file, `--gate` keeps only some gates and `--exclude-gate` leaves some
out. Nothing is copied: a wheel user chooses built-in suites by name. A name that chooses
nothing is refused, with the closest name it may have meant, and so is a choice that leaves no
suite: a run of nothing would read PASS.

`--suite-option SUITE.OPTION=VALUE` sets one of a suite's keys for the run, as if its file said
it, and only keys its model lists in `run_options` (what a target can do without, such as
grounding's `accepts_absent`; never a threshold or a marker, which would lower the bar). The
suite is validated again whole, so a value its file could not hold is refused too. Each option
applied is kept in the `SuiteSet`, for the results, the evidence pack and the plan digest.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import ValidationError

from gauntlet.cases.builtin import BUILTIN_PREFIX, builtin_suites_dir
from gauntlet.cases.file_words import did_you_mean
from gauntlet.cases.loader import (
    CASE_FILE_SUFFIX,
    LoadedSuite,
    SuiteSet,
    load_suites,
)
from gauntlet.cases.model import SUITE_ADAPTER, GateName, SuiteOption
from gauntlet.display import printable
from gauntlet.errors import Parameter, UsageError

_SUITES = Parameter("suites")
_GATES = Parameter("gates")
_EXCLUDED = Parameter("excluded")
_OPTIONS = Parameter("options")
_GATE_NAMES = [gate.value for gate in GateName]


def builtin_location() -> Path:
    """The built-in suites' directory, relative to the working directory when inside it."""
    builtin = builtin_suites_dir()
    if builtin.is_relative_to(Path.cwd()):
        return builtin.relative_to(Path.cwd())  # shorter locations in a checkout
    return builtin


def builtin_files() -> dict[str, Path]:
    """Each built-in suite's file by its stem (`refusal`), in name order."""
    location = builtin_location()
    return {path.stem: path for path in sorted(location.glob(f"*{CASE_FILE_SUFFIX}"))}


def select_suites(
    cases: Sequence[Path] | None,
    *,
    suites: Sequence[str] = (),
    gates: Sequence[str] = (),
    excluded: Sequence[str] = (),
    load: Callable[[Sequence[Path] | None], SuiteSet] | None = None,
) -> SuiteSet:
    """The suites `suites` names (else `cases`, else the built-in ones), of the gates chosen.

    Only the `gates` named are kept (else every gate), and the `excluded` ones left out.
    `load` loads `cases` when `suites` names none (by default: `cases`, else the built-in
    directory).

    Raises:
        UsageError: an unknown gate or suite name (with the closest known one), a gate both
            kept and excluded, a kept gate no chosen suite has, or nothing left to run.
        ConfigErrors: a case file named or found does not load.
    """
    kept = _gate_names(gates, _GATES)
    dropped = _gate_names(excluded, _EXCLUDED)
    both = [gate.value for gate in GateName if gate in kept and gate in dropped]
    if both:
        raise UsageError(
            _GATES, " and ", _EXCLUDED, f": {', '.join(both)} is both kept and excluded"
        )
    if suites:
        chosen = _chosen(cases, suites)
    elif load is not None:
        chosen = load(cases)
    else:
        chosen = load_suites(list(cases) if cases else [builtin_location()])
    for gate in kept:
        if not any(loaded.suite.gate is gate for loaded in chosen.suites):
            have = sorted({loaded.suite.gate.value for loaded in chosen.suites})
            raise UsageError(
                _GATES,
                f" {gate.value}: no chosen suite is of gate {gate.value} (the chosen suites' "
                f"gates: {', '.join(have)})",
            )
    left = tuple(
        loaded
        for loaded in chosen.suites
        if (not kept or loaded.suite.gate in kept) and loaded.suite.gate not in dropped
    )
    if not left:
        raise UsageError(
            "no suite is left to run: ",
            _GATES,
            ", ",
            _EXCLUDED,
            " and ",
            _SUITES,
            " together choose none, and a run of nothing is never a pass",
        )
    return SuiteSet(left, chosen.options)


def _gate_names(names: Iterable[str], parameter: Parameter) -> frozenset[GateName]:
    gates = set()
    for name in names:
        if name not in _GATE_NAMES:
            hint = did_you_mean(name, _GATE_NAMES)
            raise UsageError(
                parameter,
                f" {printable(repr(name))}: not a gate"
                + (f"; {hint}" if hint else "")
                + f" (gates: {', '.join(_GATE_NAMES)})",
            )
        gates.add(GateName(name))
    return frozenset(gates)


def _is_path(name: str) -> bool:
    """Whether `name` is written as a path: a bare word is a suite's name first."""
    return "/" in name or "\\" in name or name.endswith((".yaml", ".yml"))


def _chosen(cases: Sequence[Path] | None, names: Sequence[str]) -> SuiteSet:
    """The suites `names` choose, in the order named, loaded together (so names stay unique)."""
    pool = load_suites(list(cases)) if cases else SuiteSet(())
    builtin = builtin_files()
    builtin_named: dict[str, Path] | None = None
    paths: list[Path] = []
    for name in names:
        if name.startswith(BUILTIN_PREFIX):
            stem = name.removeprefix(BUILTIN_PREFIX)
            if stem not in builtin:
                _unknown(name, [BUILTIN_PREFIX + known for known in builtin], "built-in suite")
            paths.append(builtin[stem])
            continue
        if _is_path(name):
            paths.append(Path(name))
            continue
        mine = [
            Path(loaded.source)
            for loaded in pool.suites
            if name in (loaded.suite.suite, Path(loaded.source).stem)
        ]
        if mine:
            paths.extend(mine)
        elif name in builtin:
            paths.append(builtin[name])
        else:
            if builtin_named is None:
                builtin_named = {
                    loaded.suite.suite: Path(loaded.source)
                    for loaded in load_suites(list(builtin.values())).suites
                }
            if name in builtin_named:
                paths.append(builtin_named[name])
                continue
            if Path(name).exists():  # names no suite: the path it is (`./NAME` says so)
                paths.append(Path(name))
                continue
            known = [
                *(loaded.suite.suite for loaded in pool.suites),
                *(Path(loaded.source).stem for loaded in pool.suites),
                *builtin,
                *builtin_named,
            ]
            _unknown(name, list(dict.fromkeys(known)), "suite")
    return load_suites(paths)


def _unknown(name: str, known: Sequence[str], what: str) -> None:
    hint = did_you_mean(name, known)
    raise UsageError(
        _SUITES,
        f" {printable(repr(name))}: no {what} of that name"
        + (f"; {hint}" if hint else "")
        + f" (a path, `{BUILTIN_PREFIX}NAME`, or the name of a suite; built-in: "
        + ", ".join(BUILTIN_PREFIX + stem for stem in builtin_files())
        + ")",
    )


_OPTION_FORM = "expected SUITE.OPTION=VALUE, e.g. grounding.accepts_absent=context_ids"


def apply_suite_options(suites: SuiteSet, options: Sequence[str]) -> SuiteSet:
    """`suites` with each of `options` (`SUITE.OPTION=VALUE`) applied as if the file said it.

    SUITE is a gate (every chosen suite of that gate), a suite's name or its file's stem;
    a list's VALUE is comma-separated (empty: none).

    Raises:
        UsageError: an option not of that form, naming no chosen suite, a key the suite does
            not take for a run, a value its file could not hold, or one key given twice.
    """
    current = list(suites.suites)
    applied: list[SuiteOption] = list(suites.options)
    for text in options:
        name, key, value = _parse_option(text)
        where = [
            index
            for index, loaded in enumerate(current)
            if name in (loaded.suite.gate.value, loaded.suite.suite, Path(loaded.source).stem)
        ]
        if not where:
            known = [
                *dict.fromkeys(loaded.suite.gate.value for loaded in current),
                *(loaded.suite.suite for loaded in current),
            ]
            hint = did_you_mean(name, known)
            raise UsageError(
                _OPTIONS,
                f" {printable(repr(text))}: no chosen suite is {printable(repr(name))}"
                + (f"; {hint}" if hint else "")
                + f" (name a gate or a suite: {', '.join(known)})",
            )
        for index in where:
            loaded = current[index]
            if any(o.suite == loaded.suite.suite and o.option == key for o in applied):
                raise UsageError(
                    _OPTIONS,
                    f" {printable(repr(text))}: {key} of suite {loaded.suite.suite} is given twice",
                )
            current[index], option = _applied(loaded, key, value, text)
            applied.append(option)
    return SuiteSet(tuple(current), tuple(applied))


def _parse_option(text: str) -> tuple[str, str, str]:
    left, equals, value = text.partition("=")
    name, dot, key = left.rpartition(".")
    if not (equals and dot and name and key):
        raise UsageError(_OPTIONS, f" {printable(repr(text))}: {_OPTION_FORM}")
    return name, key, value


def _applied(
    loaded: LoadedSuite, key: str, value: str, text: str
) -> tuple[LoadedSuite, SuiteOption]:
    suite = loaded.suite
    model = type(suite)
    gate = suite.gate.value
    said = f" {printable(repr(text))}: "
    if key not in model.run_options:
        takes = (
            f"{gate} suites take only {', '.join(model.run_options)} for a run"
            if model.run_options
            else f"{gate} suites take no option for a run"
        )
        hint = did_you_mean(key, model.run_options)
        raise UsageError(
            _OPTIONS,
            said + takes + (f"; {hint}" if hint else "") + " (a run may set what the target "
            "does without, never what lowers the bar; edit a copy of the suite for that)",
        )
    annotation = model.model_fields[key].annotation
    parsed: Any = value
    if get_origin(annotation) is tuple:
        parsed = [item.strip() for item in value.split(",") if item.strip()]
        _check_items(parsed, get_args(annotation)[0], said, key)
    data = suite.model_dump(mode="json", exclude_unset=True)
    data[key] = parsed
    try:
        again = SUITE_ADAPTER.validate_json(json.dumps(data), strict=True)
    except ValidationError as exc:
        problem = next(iter(exc.errors(include_url=False)))
        raise UsageError(_OPTIONS, said + f"{key}: {problem['msg']}") from None
    option = SuiteOption(
        suite=suite.suite,
        option=key,
        value=again.model_dump(mode="json", include={key})[key],
        file_value=suite.model_dump(mode="json", include={key})[key],
    )
    return dataclasses.replace(loaded, suite=again), option


def _check_items(items: list[str], item_type: Any, said: str, key: str) -> None:
    """Refuse an item a list of literals cannot hold, with the closest one it may have meant."""
    if get_origin(item_type) is not Literal:
        return
    allowed = [str(choice) for choice in get_args(item_type)]
    for item in items:
        if item not in allowed:
            hint = did_you_mean(item, allowed)
            raise UsageError(
                _OPTIONS,
                said
                + f"{key} holds only {', '.join(allowed)}, not {printable(repr(item))}"
                + (f"; {hint}" if hint else ""),
            )
