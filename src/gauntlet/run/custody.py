"""The custody of a results file: an optional HMAC-SHA256 over its canonical JSON.

A reader scores every stored answer again through its gate (`gauntlet.run.results_file`), but
the answers themselves, and a model judge's verdicts, cannot be derived again: whoever can
edit the file can edit them. With `GAUNTLET_SIGNING_KEY` in the environment, `gauntlet run`
(and `merge`) sign the file, and `report`, `merge` and `history add` refuse one whose signature
is missing or does not match. Without the key nothing is signed and nothing is said of custody.

The signed bytes: the results as JSON values (`model_dump(mode="json")`) without `signature`,
in canonical JSON (`gauntlet.canonical`: keys sorted, no spaces, UTF-8), keyed by the key's
UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from gauntlet.canonical import canonical_json
from gauntlet.run.results import Results

SIGNING_KEY = "GAUNTLET_SIGNING_KEY"
"""The environment variable holding the key; unset or empty, files are neither signed nor
verified."""

PREFIX = "hmac-sha256:"


def signing_key() -> bytes | None:
    """The key from the environment, or None when it is unset or empty."""
    key = os.environ.get(SIGNING_KEY, "")
    return key.encode("utf-8", "surrogateescape") if key else None


def signed_bytes(results: Results) -> bytes:
    """Exactly what the signature covers: the results without `signature`, canonical JSON."""
    return canonical_json(results.model_dump(mode="json", exclude={"signature"}))


def signature_of(results: Results, key: bytes) -> str:
    """`hmac-sha256:` and the hex HMAC-SHA256 of `signed_bytes(results)` under `key`."""
    return PREFIX + hmac.new(key, signed_bytes(results), hashlib.sha256).hexdigest()


def signed(results: Results, key: bytes | None) -> Results:
    """`results` signed under `key`, or without a signature when there is no key."""
    update = {"signature": None if key is None else signature_of(results, key)}
    return results.model_copy(update=update)


def custody_problem(results: Results, key: bytes | None) -> str | None:
    """Why `results` fails custody under `key`, or None (always None without a key)."""
    if key is None:
        return None
    if results.signature is None:
        return (
            f"signature: the file carries no signature, but {SIGNING_KEY} is set: it was "
            "written without the key, or its signature was removed"
        )
    stored = results.signature.encode("utf-8", "surrogateescape")  # any text, compared as bytes
    if not hmac.compare_digest(stored, signature_of(results, key).encode("ascii")):
        return (
            f"signature: the signature does not match the file under {SIGNING_KEY}: the file "
            "was changed after it was signed, or signed with another key"
        )
    return None


def custody_statement(results: Results, key: bytes | None) -> str:
    """One line saying what `results` proves, as read with `key` (see the README).

    Read with the key, a file has passed `custody_problem` already: its signature matched.
    """
    rescored = (
        "every stored answer kept whole and unmasked was scored again through its gate and agreed"
        if results.schema_version >= 7  # the format that carries the cases
        else "this file's format predates re-scoring: its outcomes were only re-counted"
    )
    if results.signature is not None and key is not None:
        return (
            f"{rescored}; the answers and the judge's verdicts are as the run wrote them: "
            f"the signature matched {SIGNING_KEY}"
        )
    if results.signature is not None:
        return (
            f"{rescored}; the file is signed, but {SIGNING_KEY} was not set here, so the "
            "answers and the judge's verdicts rest on whoever kept the file"
        )
    return (
        f"{rescored}; unsigned: the answers and the judge's verdicts rest on whoever kept the file"
    )
