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
