"""What an embedder is, as results, packs and similarity calibration records hold it.

A record alone, apart from any embedder's code, so a results file can hold (and read back)
an embedder's fingerprint without loading the embedder.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gauntlet.record import Record

EmbedderKind = Literal["builtin", "openai-embeddings", "toy"]
"""How an embedder is reached: in process (`builtin`, the toy's), or a target file of kind
`openai-embeddings`."""


class EmbedderFingerprint(Record):
    """What an embedder is: what a similarity calibration record holds for.

    Two fingerprints that differ are two embedders: a record made with one never lets the
    other gate, and results made with one are never compared with the other's.
    """

    kind: EmbedderKind
    model: str = Field(min_length=1, max_length=200)
    """The model: the builtin's package and version, or the model name the server answered
    with (not the one asked for, which a server may ignore)."""
    dimension: int = Field(ge=1, le=65536)
    """How many numbers each vector has."""
    weights_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """sha256 over the weights' files, for an embedder whose weights gauntlet can read (the
    builtin); None for a server, which is known by its model name and host."""
    host: str | None = None
    """`host:port` of an `openai-embeddings` server; never a path or credentials."""
    defects: tuple[str, ...] = ()
    """The toy embedder's injected defects, if any."""


__all__ = ["EmbedderFingerprint", "EmbedderKind"]
