"""A command's similarity, from `--embedder SPEC` and `--embedder-calibration RECORD`.

The embedder is opened (its pre-flight ask), and its fingerprint is checked against the
record's: similarity gates nothing without a record accepted for this very embedder, and
the languages it accepted. Without a record, every similarity check is unjudged.

The record is read before the embedder is opened, so a record that cannot be read costs no
model load; its sha256 (of the bytes read, once) is what the results name it by.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from gauntlet.files import read_or_raise
from gauntlet.redact import Redactor
from gauntlet.semantic.calibration import (
    MAX_RECORD_BYTES,
    SimilarityRecordError,
    parse_similarity_record,
)
from gauntlet.semantic.check import Similarity, similarity_of
from gauntlet.semantic.embedder import Embeddings
from gauntlet.semantic.load import embedder_for


async def open_similarity(spec: str, record: Path | None, *, redactor: Redactor) -> Similarity:
    """The similarity `spec` and `record` give, its embedder opened; close `embeddings.embedder`.

    Raises:
        UsageError, ConfigError: as `embedder_for`.
        SimilarityRecordError: the record cannot be read, or disagrees with itself.
        EmbedderError: the embedder cannot be loaded or reached.
    """
    read = None
    if record is not None:
        raw = read_or_raise(
            record,
            limit=MAX_RECORD_BYTES,
            what="a similarity calibration record",
            error=SimilarityRecordError,
        )
        read = (parse_similarity_record(raw, str(record)), hashlib.sha256(raw).hexdigest())
    embedder = embedder_for(spec, redactor=redactor)
    fingerprint = await embedder.open()
    embeddings = Embeddings(embedder, fingerprint)
    if read is None:
        return Similarity(
            fingerprint=fingerprint,
            refused="no calibration record was given (--embedder-calibration)",
            embeddings=embeddings,
        )
    calibration, sha256 = read
    return similarity_of(calibration, fingerprint, embeddings, record_sha256=sha256)


__all__ = ["open_similarity"]
