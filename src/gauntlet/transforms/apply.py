"""Each transform applied to a prompt, and read back (`unwrap`). Pure: no state, no clock."""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import unicodedata
from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple
from urllib.parse import quote, unquote

from gauntlet.languages import primary_language
from gauntlet.matching import LOOKALIKES
from gauntlet.transforms.noise import noised
from gauntlet.transforms.wording import FALLBACK, WORDING, Wording


class Transform(StrEnum):
    """A way to rewrite an attack. One spelling everywhere: YAML, variant ids, results."""

    BASE64 = "base64"
    HEX = "hex"
    ROT13 = "rot13"
    URL = "url"
    LEETSPEAK = "leetspeak"
    HOMOGLYPHS = "homoglyphs"
    ZERO_WIDTH = "zero_width"
    SPACED = "spaced"
    REVERSED = "reversed"
    SPLIT = "split"
    ROLEPLAY = "roleplay"
    FICTION = "fiction"
    DEVELOPER_MODE = "developer_mode"
    IMPORTANT_INSTRUCTIONS = "important_instructions"
    BEST_OF_N = "best_of_n"
    """Seeded character noise; a suite writes it `{best_of_n: N, seed: S}`."""


ENCODED_ANSWER = frozenset(
    {Transform.BASE64, Transform.HEX, Transform.ROT13, Transform.URL, Transform.REVERSED}
)
"""The transforms whose wording asks for the reply in the same encoding: a leaked marker then
arrives encoded, and `gauntlet.spellings` must read it there (it does, for markers of at least
`MIN_SPELLED_LENGTH` bytes of letters and digits; the case loader refuses shorter ones with
these)."""

_LEET = str.maketrans("aeiostAEIOST", "431057431057")
_UNLEET = str.maketrans("431057", "aeiost")


def _han_lookalikes() -> dict[str, str]:
    """Each Han character a Kangxi radical looks like (and NFKC folds to), to that radical.

    From Unicode data, not a hand list: the Kangxi Radicals block (U+2F00..U+2FD5) is drawn as
    the characters its radicals decompose to, `⼀` for `一` and `⽰` for `示`, so a Chinese
    text has look-alikes the way a Latin one has Cyrillic ones.
    """
    pairs: dict[str, str] = {}
    for code in range(0x2F00, 0x2FD6):
        radical = chr(code)
        plain = unicodedata.normalize("NFKC", radical)
        if plain != radical and len(plain) == 1:
            pairs.setdefault(plain, radical)
    return pairs


_HOMOGLYPH = str.maketrans(
    {plain: look for look, plain in reversed(tuple(LOOKALIKES.items())) if plain.islower()}
    | _han_lookalikes()
)
"""Each lowercase Latin letter with a look-alike, to its first look-alike (Cyrillic first),
and each Han character a Kangxi radical looks like, to that radical."""
_HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)


def _homoglyphs(text: str) -> str:
    """`text` drawn the same with other code points: Latin look-alikes, Hangul as its jamo.

    A Hangul syllable has no look-alike in another script, but it is drawn the same as the
    conjoining jamo it decomposes into (`한` as `ᄒ`, `ᅡ`, `ᆫ`), which a filter comparing code
    points does not match; `normalise` composes them back, as it folds the Latin look-alikes.
    """
    return "".join(
        unicodedata.normalize("NFD", char) if ord(char) in _HANGUL_SYLLABLES else char
        for char in text.translate(_HOMOGLYPH)
    )


_ZERO_WIDTH = "\u200b"
_WORD_GAP = "   "


def _spaced(text: str) -> str:
    return _WORD_GAP.join(" ".join(word) for word in text.split(" "))


def _zero_width(text: str) -> str:
    out: list[str] = []
    for char in text:
        if out and char.isalnum() and out[-1].isalnum():
            out.append(_ZERO_WIDTH)
        out.append(char)
    return "".join(out)


def _split(text: str) -> str:
    middle = len(text) // 2
    spaces = [at for at, char in enumerate(text) if char == " "]
    at = min(spaces, key=lambda space: abs(space - middle)) if spaces else middle
    at = at or 1  # two parts, each something
    first, second = text[:at], text[at:]
    return (
        f"a = {json.dumps(first, ensure_ascii=False)}\nb = {json.dumps(second, ensure_ascii=False)}"
    )


def _unsplit(body: str) -> str:
    lines = body.split("\n")
    if len(lines) != 2 or not lines[0].startswith("a = ") or not lines[1].startswith("b = "):
        raise ValueError("not two parts")
    first, second = json.loads(lines[0][4:]), json.loads(lines[1][4:])
    if not isinstance(first, str) or not isinstance(second, str):
        raise ValueError("not text")
    return first + second


def _kept(text: str) -> str:
    return text


_BODY: dict[Transform, Callable[[str], str]] = {
    Transform.BASE64: lambda text: base64.b64encode(text.encode()).decode("ascii"),
    Transform.HEX: lambda text: text.encode().hex(),
    Transform.ROT13: lambda text: str(codecs.encode(text, "rot13")),
    Transform.URL: lambda text: quote(text, safe=""),
    Transform.LEETSPEAK: lambda text: text.translate(_LEET),
    Transform.HOMOGLYPHS: _homoglyphs,
    Transform.ZERO_WIDTH: _zero_width,
    Transform.SPACED: _spaced,
    Transform.REVERSED: lambda text: text[::-1],
    Transform.SPLIT: _split,
}
"""The body each encoding or spelling makes of the payload; a template's body is the payload."""

_READ: dict[Transform, Callable[[str], str]] = {
    Transform.BASE64: lambda body: base64.b64decode(body, validate=True).decode(),
    Transform.HEX: lambda body: bytes.fromhex(body).decode(),
    Transform.ROT13: lambda body: str(codecs.decode(body, "rot13")),
    Transform.URL: unquote,
    Transform.LEETSPEAK: lambda body: body.translate(_UNLEET),
    Transform.SPACED: lambda body: " ".join(w.replace(" ", "") for w in body.split(_WORD_GAP)),
    Transform.REVERSED: lambda body: body[::-1],
    Transform.SPLIT: _unsplit,
}


def wording(language: str) -> dict[str, Wording]:
    """The wording for `language`: its own (by primary subtag), or English."""
    return dict(WORDING.get(primary_language(language), WORDING[FALLBACK]))


def transformed(
    text: str, language: str, transform: Transform, *, seed: int = 0, case_id: str = "", k: int = 0
) -> str:
    """`text` (an attack, in `language`) rewritten by `transform`.

    `seed`, `case_id` and `k` matter to `best_of_n` only: variant `k` of the case.
    """
    if transform is Transform.BEST_OF_N:
        return noised(text, seed=seed, case_id=case_id, k=k)
    body = _BODY.get(transform, _kept)(text)
    words = wording(language).get(transform.value)
    if words is None:  # homoglyphs and zero-width: the text alone, meant to read as plain
        return body
    return "\n\n".join(part for part in (words.head, body, words.tail) if part)


class Unwrapped(NamedTuple):
    """A prompt read back: the payload inside, and the transform that wrapped it."""

    payload: str
    transform: Transform


def unwrap(prompt: str) -> Unwrapped | None:
    """The payload of a prompt one of the worded transforms made (in any language), or None.

    For a target that reads through every transform, as the Riverbend toy does. Homoglyphs,
    zero-width characters and best-of-N noise carry no wording and are not read back here
    (`gauntlet.matching.normalise` folds the first two).
    """
    for by_name in WORDING.values():
        for name, words in by_name.items():
            opening = words.head + "\n\n"
            closing = "\n\n" + words.tail if words.tail else ""
            if not prompt.startswith(opening) or not prompt.endswith(closing):
                continue
            body = prompt[len(opening) : len(prompt) - len(closing)]
            transform = Transform(name)
            try:
                payload = _READ.get(transform, _kept)(body)
            except (ValueError, UnicodeDecodeError, binascii.Error):
                continue
            return Unwrapped(payload, transform)
    return None


class Variant(NamedTuple):
    """Where a variant case came from.

    Its original's id, its transform, and for best-of-N its seed and number (1..N).
    """

    of: str
    transform: Transform
    seed: int | None = None
    k: int | None = None

    @property
    def suffix(self) -> str:
        """What the variant's id adds to its original's: `base64`, `best_of_n-3`."""
        return self.transform.value + (f"-{self.k}" if self.k is not None else "")
