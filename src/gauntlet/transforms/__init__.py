"""Transforms: a case's prompt rewritten so the same attack arrives in another form. A leaf.

Each transform is a pure function of (text, language, transform, seed, case id): the same
suite gives the same prompts byte for byte. `gauntlet.cases.variants` turns a case into its
variant cases with these; `unwrap` reads a variant back, for a target that sees through them
(the Riverbend toy). The wording of every instruction and template is in `wording`.
"""

from gauntlet.transforms.apply import (
    ENCODED_ANSWER,
    Transform,
    Unwrapped,
    Variant,
    transformed,
    unwrap,
)
from gauntlet.transforms.noise import MAX_BEST_OF_N, noised

__all__ = [
    "ENCODED_ANSWER",
    "MAX_BEST_OF_N",
    "Transform",
    "Unwrapped",
    "Variant",
    "noised",
    "transformed",
    "unwrap",
]
