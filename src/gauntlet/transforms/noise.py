"""Best-of-N character noise, seeded per (seed, case id, k): never the global generator.

As in the Best-of-N jailbreaking paper (Hughes et al., 2024), a prompt is resampled with three
augmentations, in this order: letters inside a word swapped with their neighbour (the first
and last letter kept), random capitalisation, and ASCII noise (a printable character moved one
code point up or down). Each variant draws from its own `random.Random`, seeded from text (so
`PYTHONHASHSEED` plays no part), and is therefore the same on every machine and every run.
"""

from __future__ import annotations

import random
import re

MAX_BEST_OF_N = 100
"""The most noised variants one case may get."""

SWAP_PROBABILITY = 0.6
"""The chance that a word of four or more letters gets one adjacent pair of inner letters
swapped."""
CAPITAL_PROBABILITY = 0.6
"""The chance that a letter is written in capitals."""
NOISE_PROBABILITY = 0.06
"""The chance that a printable ASCII character is moved one code point up or down."""

_WORD = re.compile(r"[^\W\d_]{4,}")
_FIRST_PRINTABLE, _LAST_PRINTABLE = 0x21, 0x7E  # space is kept, so words stay apart


def generator(seed: int, case_id: str, k: int) -> random.Random:
    """The generator of variant `k` of case `case_id` under `seed`: its own, never shared."""
    return random.Random(f"best_of_n\x00{seed}\x00{case_id}\x00{k}")  # noqa: S311 - noise, not secrets


def noised(text: str, *, seed: int, case_id: str, k: int) -> str:
    """`text` with best-of-N noise drawn for variant `k` of `case_id` under `seed`."""
    rng = generator(seed, case_id, k)

    def swap(found: re.Match[str]) -> str:
        word = found.group()
        if rng.random() >= SWAP_PROBABILITY:
            return word
        at = rng.randrange(1, len(word) - 2)  # an inner pair: the ends stay where they are
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]

    swapped = _WORD.sub(swap, text)
    capitals = "".join(
        char.upper() if char.isalpha() and rng.random() < CAPITAL_PROBABILITY else char
        for char in swapped
    )
    return "".join(_ascii_noise(char, rng) for char in capitals)


def _ascii_noise(char: str, rng: random.Random) -> str:
    code = ord(char)
    if not _FIRST_PRINTABLE <= code <= _LAST_PRINTABLE or rng.random() >= NOISE_PROBABILITY:
        return char
    moved = code + rng.choice((-1, 1))
    return chr(min(max(moved, _FIRST_PRINTABLE), _LAST_PRINTABLE))
