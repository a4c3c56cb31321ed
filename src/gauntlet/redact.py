"""Redaction: secrets given to gauntlet (header values, URL credentials) never reach an output.

A target that echoes its `Authorization` header back in an answer must not put the token into
the results file, the evidence pack or a CI log, so redaction applies to what the target said
as much as to gauntlet's own messages.
"""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.targets.contract import TargetResponse

MASK = "[REDACTED]"


class Redactor:
    """Replaces every known secret in a text with `MASK`, longest secret first."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, value: str) -> str:
        """`value` with every secret masked."""
        for secret in self._secrets:
            value = value.replace(secret, MASK)
        return value

    def response(self, response: TargetResponse) -> TargetResponse:
        """`response` with every secret masked in every text field."""
        if not self._secrets:
            return response
        return response.model_copy(
            update={
                "text": self.text(response.text),
                "citations": tuple(self.text(c) for c in response.citations),
                "context_ids": tuple(self.text(c) for c in response.context_ids),
            }
        )
