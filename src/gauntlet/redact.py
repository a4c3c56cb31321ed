"""Redaction: secrets given to gauntlet (header values, URL credentials) never reach an output.

Secrets are masked in what gauntlet writes and prints, never in what the gates grade: a canary
that is also a header value and leaks into an answer must still fail the case. A target that
echoes its `Authorization` header must not put the token into the results file, the evidence
pack or a CI log, so the mask applies to what the target said as much as to gauntlet's own
messages.

What counts as a secret is decided by name, not by guessing at values: `Authorization`,
`Cookie` and any header or query parameter named like a credential (`key`, `token`, `secret`,
`sig`, `password`, `session`, ...), every value read from the environment with `${VAR}`, and
the URL's password (not its user name, which names an account). A value shorter than
`MIN_SECRET_LENGTH` is not masked (masking `1` would rewrite every `1` in every answer), and
`on_unmasked` is told which, when it is learned; a value that is a credential by what it is
(a fetched access token) is masked whatever its length.

Each secret is learned in the forms it travels and comes back in: the caller gives the forms
it sends (see `gauntlet.targets.http.request_secrets`), and every value is also masked as a
JSON string writes it, since raw answers and error bodies quoted in messages are JSON.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:  # only for the type: the command line imports this module at start-up
    from pydantic import BaseModel

MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 8
"""Shorter values are sent but never masked; the command line says which ones."""

_CREDENTIAL_NAME = re.compile(
    r"auth|cookie|key|token|secret|sig|passw|pwd|credential|session", re.IGNORECASE
)
_CREDENTIAL_QUERY_NAMES = frozenset({"code"})
"""Query names that mean a credential only as a whole name (`code`: Azure Functions keys)."""

Model = TypeVar("Model", bound="BaseModel")


class Secret(NamedTuple):
    """A value never to be shown, and what it is (for a note that names it, not its value)."""

    value: str
    what: str
    """E.g. `the value of header Authorization`."""
    always: bool = False
    """Masked whatever its length: a credential by what it is (a fetched access token)."""


def is_credential_name(name: str) -> bool:
    """Whether a header or query parameter called `name` carries a credential."""
    return bool(_CREDENTIAL_NAME.search(name)) or name.lower() in _CREDENTIAL_QUERY_NAMES


class Redactor:
    """Replaces every known secret in a text with `MASK`, longest secret first.

    Args:
        secrets: The values to mask, bare or as `Secret`s; blanks are ignored, and values
            shorter than `MIN_SECRET_LENGTH` (unless `always`) are kept aside in `unmasked`.
        on_unmasked: Told what each secret too short to mask is, once, as soon as it is
            learned (a token fetched in the middle of a run, too): the command line prints
            a note.
    """

    def __init__(
        self,
        secrets: Iterable[str | Secret] = (),
        *,
        on_unmasked: Callable[[str], None] | None = None,
    ) -> None:
        self._values: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        self.unmasked: tuple[str, ...] = ()
        """What each secret too short to mask is, in the order given, each once."""
        self._pattern: re.Pattern[str] | None = None
        self.on_unmasked = on_unmasked
        self.learn(*secrets)

    def learn(self, *secrets: str | Secret) -> None:
        """Mask `secrets` too from now on: a token fetched during the run, say.

        Safe to call from any task or thread while others mask: the new pattern replaces the
        old in one assignment, and a text masked at that moment is masked by one or the other.
        Values already known cost nothing.
        """
        given = [s if isinstance(s, Secret) else Secret(s, "a secret") for s in secrets]
        masked = {s.value for s in given if s.value and (s.always or _long_enough(s.value))}
        short = [s.what for s in given if s.value and not (s.always or _long_enough(s.value))]
        with self._lock:
            values = self._values | {form for value in masked for form in _forms(value)}
            told = [what for what in dict.fromkeys(short) if what not in self.unmasked]
            self.unmasked = (*self.unmasked, *told)
            if values != self._values:
                ordered = sorted(values, key=lambda value: (-len(value), value))
                self._pattern = re.compile("|".join(map(re.escape, ordered)))
                self._values = values
        if self.on_unmasked is not None:
            for what in told:
                self.on_unmasked(what)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        """`value` with every secret masked."""
        pattern = self._pattern  # read once: `learn` may replace it meanwhile
        if pattern is None:
            return value
        return pattern.sub(MASK, value)

    def model(self, record: Model) -> Model:
        """`record` with every secret masked in every text it holds, however deep.

        The same object comes back when no secret occurs in it, so a run with secrets that
        are never echoed pays for a search and nothing more.
        """
        pattern = self._pattern
        if pattern is None:
            return record
        data = record.model_dump()
        if not _holds(data, pattern):
            return record
        return type(record).model_validate(_masked(data, pattern))


def _long_enough(value: str) -> bool:
    return len(value) >= MIN_SECRET_LENGTH


def _forms(value: str) -> set[str]:
    """`value`, and as a JSON string writes it (with and without escapes for non-ASCII)."""
    return {value, *(json.dumps(value, ensure_ascii=ascii)[1:-1] for ascii in (True, False))}


def _holds(value: Any, pattern: re.Pattern[str]) -> bool:
    if isinstance(value, str):
        return pattern.search(value) is not None
    if isinstance(value, dict):  # keys too: a tool call's arguments are a target's JSON
        return any(_holds(key, pattern) or _holds(item, pattern) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(_holds(item, pattern) for item in value)
    return False


def _masked(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(MASK, value)
    if isinstance(value, dict):
        return {_masked(key, pattern): _masked(item, pattern) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_masked(item, pattern) for item in value)
    return value
