"""The regular expressions a user writes, compiled and run in one place, each run bounded.

A target file's `citations.from_text` and a case file's `match: regex` arguments are patterns
their writer chose, run over text a target chose. A pattern with nested quantifiers (`(a+)+`,
`(a|aa)+`) can backtrack for centuries over a hostile answer, and it runs in the event loop,
where no signal is handled until it returns. So every run here carries a time limit: the
patterns of one answer share `TIME_LIMIT` seconds (see `shared_limit`), and a run that reaches
it raises `PatternTimeout`, which the caller makes that case's error. A pattern stopped at its
limit has found nothing either way; read as "no match", it would let a forbidden call pass.

Patterns are the `regex` package's, in its default (version 0) syntax, which is Python `re`'s:
the file is checked by the engine that runs it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

import regex

TIME_LIMIT = 1.0
"""Seconds the user's patterns may run, together, over one answer."""


class PatternError(ValueError):
    """A pattern that is not a regular expression; the message says why and where in it."""


class PatternTimeout(Exception):  # a timeout, named as the stdlib names its own
    """A user's pattern ran past its time limit: the case it was checking is in error."""

    def __init__(self, field: str, pattern: str, limit: float) -> None:
        self.field = field
        self.pattern = pattern
        self.limit = limit
        super().__init__(
            f"{field}: the pattern `{pattern}` ran past its time limit ({limit:g} s for the "
            "patterns of one answer) and was stopped; a pattern that cannot finish checks "
            "nothing, so the case is in error (rewrite it without nested quantifiers such as "
            "`(a+)+`)"
        )


_LIMIT: ContextVar[tuple[float, float] | None] = ContextVar("pattern_limit", default=None)
"""The shared limit in force: its deadline on the monotonic clock, and its length."""


@contextmanager
def shared_limit(limit: float = TIME_LIMIT) -> Iterator[None]:
    """Let every pattern run inside share `limit` seconds, so many runs cannot add up.

    A limit already in force stays (an inner one never extends an outer one). Outside any,
    each run has `TIME_LIMIT` of its own.
    """
    if _LIMIT.get() is not None:
        yield
        return
    token = _LIMIT.set((time.monotonic() + limit, limit))
    try:
        yield
    finally:
        _LIMIT.reset(token)


@dataclass(frozen=True)
class UserPattern:
    """A user's pattern, compiled, with the field it was written in (for its errors)."""

    source: str
    field: str
    compiled: regex.Pattern[str]

    @property
    def groups(self) -> int:
        """How many capturing groups the pattern has."""
        return int(self.compiled.groups)

    def finditer(self, text: str) -> list[regex.Match[str]]:
        """Every match in `text`, in order, as `re.finditer` finds them.

        Raises:
            PatternTimeout: the search ran past its limit.
        """
        timeout, limit = self._timeout()
        try:
            return list(self.compiled.finditer(text, timeout=timeout))
        except TimeoutError:
            raise PatternTimeout(self.field, self.source, limit) from None

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of `text` matches.

        Raises:
            PatternTimeout: the match ran past its limit.
        """
        timeout, limit = self._timeout()
        try:
            return self.compiled.fullmatch(text, timeout=timeout) is not None
        except TimeoutError:
            raise PatternTimeout(self.field, self.source, limit) from None

    def matches_empty(self) -> bool:
        """Whether the pattern matches the empty string at its start (as `re.match` would).

        Raises:
            PatternTimeout: the match ran past its limit.
        """
        timeout, limit = self._timeout()
        try:
            return self.compiled.match("", timeout=timeout) is not None
        except TimeoutError:
            raise PatternTimeout(self.field, self.source, limit) from None

    def _timeout(self) -> tuple[float, float]:
        """The seconds this run may take, and the limit to name if it takes them all."""
        shared = _LIMIT.get()
        if shared is None:
            return TIME_LIMIT, TIME_LIMIT
        deadline, limit = shared
        left = deadline - time.monotonic()
        if left <= 0:
            raise PatternTimeout(self.field, self.source, limit)
        return left, limit


def user_pattern(source: str, field: str) -> UserPattern:
    """`source` compiled as the user's pattern of `field` (`citations.from_text`, ...).

    Raises:
        PatternError: `source` is not a regular expression: the message says why, and at
            which position of the pattern (counted from 0), as the engine words it.
    """
    return UserPattern(source, field, _compiled(source))


MAX_REPEAT = 1000
"""The largest count a pattern's `{m,n}` may give: `a{1000000000}` costs the engine gigabytes
to compile, and no check of an answer needs more."""

_COUNTED = re.compile(r"(?<!\\)\{([0-9]+)(?:,([0-9]*))?\}")


@lru_cache(maxsize=256)
def _compiled(source: str) -> regex.Pattern[str]:
    counts = [int(n) for found in _COUNTED.finditer(source) for n in found.groups() if n]
    if any(count > MAX_REPEAT for count in counts):
        raise PatternError(
            f"a counted repeat above {MAX_REPEAT} ({max(counts)}): the pattern would cost "
            "more to compile than any check needs"
        )
    try:
        compiled = regex.compile(source)
        # Python's own syntax only: the engine's extensions (a group that calls itself,
        # fuzzy matching) can run out of memory rather than time.
        re.compile(source)
    except regex.error as exc:  # its message names the position, counted from 0
        raise PatternError(f"not a regular expression: {exc}") from None
    except re.error as exc:
        raise PatternError(
            f"not a regular expression of Python's syntax, which is the one taken: {exc}"
        ) from None
    except (RecursionError, MemoryError, OverflowError):
        raise PatternError(
            "nested too deeply, or too large, to compile: a check needs no such pattern"
        ) from None
    return compiled
