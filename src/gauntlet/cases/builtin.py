"""Where the built-in suites live: inside the wheel, or in `suites/` of a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def builtin_suites_dir() -> Path:
    """The directory of the built-in bilingual suites.

    A wheel carries them as `gauntlet/_builtin_suites` (see `pyproject.toml`); an editable
    install reads the checkout's `suites/` directly, so an edit there is seen at once.
    """
    bundled = _PACKAGE / "_builtin_suites"
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent.parent / "suites"


BUILTIN_PREFIX = "builtin:"
"""How a built-in suite is named and shown: `builtin:grounding`, not a site-packages path;
`gauntlet run --suite builtin:grounding` chooses it by the same name."""


def shown_source(source: str) -> str:
    """A case file's path as gauntlet shows it: `builtin:NAME` for a built-in suite.

    A built-in suite is one under `builtin_suites_dir()` (named by an absolute path), or under
    any wheel's `gauntlet/_builtin_suites` (a results file from another machine). Any other
    path, and a relative one (what the user, or a checkout's short form, named), is shown as
    given: this only shortens what is shown, never the path a results file keeps.
    """
    path = Path(source)
    if not path.is_absolute() or path.suffix != ".yaml":
        return source
    if path.parent.name == "_builtin_suites" and path.parent.parent.name == _PACKAGE.name:
        return f"{BUILTIN_PREFIX}{path.stem}"
    builtin = builtin_suites_dir()
    if path.is_relative_to(builtin):
        return BUILTIN_PREFIX + path.relative_to(builtin).with_suffix("").as_posix()
    return source
