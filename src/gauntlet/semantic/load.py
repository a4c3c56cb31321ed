"""`--embedder SPEC`: which embedder a command asks, by name or by target file.

`builtin` is USE multilingual v3 in process (the `gauntlet[semantic]` extra); `toy` is the
toy embedder over it, and `toy:DEFECT[,DEFECT...]` the toy with defects
(`gauntlet.semantic.toy.EmbedderDefect`); anything else is a target file of kind
`openai-embeddings`.
"""

from __future__ import annotations

from pathlib import Path

from gauntlet.errors import Parameter, UsageError
from gauntlet.redact import Redactor
from gauntlet.semantic.embedder import Embedder

BUILTIN = "builtin"
TOY = "toy"
EMBEDDER = Parameter("embedder")
WHAT = "--embedder takes builtin, toy[:DEFECT,...] or a target file of kind openai-embeddings"


def embedder_for(spec: str, *, redactor: Redactor) -> Embedder:
    """The embedder `spec` names, not yet opened.

    Raises:
        UsageError: `spec` names a toy defect that does not exist.
        ConfigError: `spec` is a target file that cannot be read, or is not of kind
            `openai-embeddings`.
    """
    if spec == BUILTIN:
        from gauntlet.semantic.builtin import BuiltinEmbedder

        return BuiltinEmbedder()
    if spec == TOY or spec.startswith(f"{TOY}:"):
        from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder

        named = [name.strip() for name in spec.removeprefix(TOY).removeprefix(":").split(",")]
        known = {defect.value: defect for defect in EmbedderDefect}
        unknown = [name for name in named if name and name not in known]
        if unknown:
            raise UsageError(
                EMBEDDER,
                f": no toy embedder defect {', '.join(unknown)} (known: {', '.join(known)})",
            )
        return ToyEmbedder(known[name] for name in named if name)
    return _remote(Path(spec), redactor)


def _remote(path: Path, redactor: Redactor) -> Embedder:
    """The embedder a target file of kind `openai-embeddings` describes, its secrets taught."""
    from gauntlet.semantic.remote import RemoteEmbedder
    from gauntlet.targets.target_file import load_embedder_file, load_named_file

    loaded = load_named_file(load_embedder_file, path, hint=WHAT)
    return RemoteEmbedder(loaded, redactor=redactor)


__all__ = ["BUILTIN", "EMBEDDER", "TOY", "embedder_for"]
