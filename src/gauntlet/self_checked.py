"""Files that must agree with themselves, and how a reader says where one does not.

A results file and a calibration record each store values that can be derived again from
what else they hold (a run's counts from its cases' asks, a judge's kappa from its pairs). A
reader checks the format version, validates the file, derives every such value again and
refuses a file in which a stored value differs, naming each problem by its JSON path. The
checks differ; these are the parts they share, so both files are refused in the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from gauntlet.display import printable
from gauntlet.words import plural

MAX_SHOWN = 20
"""Problems listed in one error; the rest are counted."""


def checked_version(
    data: Any,
    source: str,
    *,
    newest: int,
    what: str,
    format_name: str,
    error: Callable[[str], Exception],
) -> int:
    """The `schema_version` of a file's parsed JSON, one this gauntlet reads.

    Args:
        data: The file's parsed JSON.
        source: The file, as named in messages.
        newest: The newest version this gauntlet reads.
        what: What the file is, after "not a gauntlet" (`results file`).
        format_name: The format's name, before "format version" (`results`).
        error: Makes the exception raised from a message.

    Raises:
        Exception: `error(message)` when there is no integer `schema_version`, or it is newer
            than `newest`.
    """
    version = data.get("schema_version") if isinstance(data, dict) else None
    if not isinstance(version, int) or isinstance(version, bool):
        raise error(f"{source}: not a gauntlet {what} (no schema_version)")
    if version > newest:
        raise error(
            f"{source}: {format_name} format version {version} is newer than this gauntlet "
            f"reads ({newest}); upgrade gauntlet"
        )
    return version


def validation_problems(exc: ValidationError) -> list[str]:
    """Each of pydantic's errors as `json.path: message`, printable."""
    return [
        f"{json_path(error['loc'])}: {printable(error['msg'])}"
        for error in exc.errors(include_url=False)
    ]


def differences(
    stored: object, derived: object, path: str, *, holder: str, origin: str
) -> Iterator[str]:
    """Each leaf where `stored` and `derived` differ, as `path: stored in holder, but ...`.

    Models of one type are compared field by field, and tuples of one length entry by entry;
    any other difference is a leaf, said as `path: 3 in the record, but its pairs give 2`:
    `holder` names the file (`the record`), `origin` what the derived values come from (`its
    pairs`).
    """
    if stored == derived:
        return
    if isinstance(stored, BaseModel) and type(stored) is type(derived):
        for name in type(stored).model_fields:
            yield from differences(
                getattr(stored, name),
                getattr(derived, name),
                f"{path}.{name}" if path else name,
                holder=holder,
                origin=origin,
            )
        return
    if isinstance(stored, tuple) and isinstance(derived, tuple) and len(stored) == len(derived):
        for index, (mine, theirs) in enumerate(zip(stored, derived, strict=True)):
            yield from differences(mine, theirs, f"{path}[{index}]", holder=holder, origin=origin)
        return
    yield f"{path}: {shown(stored)} in {holder}, but {origin} give {shown(derived)}"


def shown(value: object) -> str:
    """A stored or derived value as a problem shows it: short, and printable."""
    if isinstance(value, tuple):
        return plural(len(value), "entry", "entries")
    if isinstance(value, BaseModel):
        return type(value).__name__
    text = repr(value.value if hasattr(value, "value") else value)
    return printable(text if len(text) <= 80 else text[:79] + "…")


def json_path(loc: Sequence[int | str]) -> str:
    """A pydantic location as a JSON path: `cases[0].outcome`; `(top)` for the root."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return printable(text) or "(top)"


def located(source: str, what: str, problems: list[str]) -> str:
    """`source: what:` and then each problem on its own line, at most `MAX_SHOWN` of them."""
    listed = problems[:MAX_SHOWN]
    more = f"\n  ... and {len(problems) - MAX_SHOWN} more" if len(problems) > MAX_SHOWN else ""
    return f"{source}: {what}:\n" + "\n".join(f"  {source}: {p}" for p in listed) + more
