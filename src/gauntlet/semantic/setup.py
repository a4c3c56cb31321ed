"""A command's similarity, from `--embedder SPEC` and `--embedder-calibration RECORD`.

The embedder is opened (its pre-flight ask), and its fingerprint is checked against the
record's: similarity gates nothing without a record accepted for this very embedder, and
the languages it accepted. Without a record, every similarity check is unjudged.
"""

from __future__ import annotations

from pathlib import Path

from gauntlet.errors import Parameter, UsageError
from gauntlet.redact import Redactor
from gauntlet.semantic.check import Similarity
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.load import embedder_for


async def open_similarity(spec: str, record: Path | None, *, redactor: Redactor) -> Similarity:
    """The similarity `spec` and `record` give, its embedder opened; close `embeddings.embedder`.

    Raises:
        UsageError, ConfigError: as `embedder_for`, or the record cannot be read.
        EmbedderError: the embedder cannot be loaded or reached.
    """
    embedder = embedder_for(spec, redactor=redactor)
    fingerprint = await embedder.open()
    embeddings = Embeddings(embedder, fingerprint)
    if record is None:
        return Similarity(
            fingerprint=fingerprint,
            refused="no calibration record was given (--embedder-calibration)",
            embeddings=embeddings,
        )
    await embedder.aclose()
    raise UsageError(
        Parameter("embedder_calibration"), ": similarity calibration records are not read yet"
    )


__all__ = ["open_similarity"]
