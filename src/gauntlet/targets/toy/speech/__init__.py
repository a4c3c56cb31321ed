"""What the Riverbend toy says, reads and cites, one module per language, each written as a peer.

A language's module holds one `Speech`: the toy's answers, the patterns it reads prompts by,
and its pages. Adding a language is adding its module here; the toy answers a language tag
whose primary subtag has no module in English.
"""

from __future__ import annotations

from types import MappingProxyType

from gauntlet.languages import PEERS
from gauntlet.targets.toy.speech import en, es, ko, tl, vi, zh
from gauntlet.targets.toy.speech.base import Speech

_WRITTEN = (en.SPEECH, es.SPEECH, zh.SPEECH, vi.SPEECH, tl.SPEECH, ko.SPEECH)

SPEECHES: MappingProxyType[str, Speech] = MappingProxyType(
    {
        speech.language: speech
        for speech in sorted(_WRITTEN, key=lambda speech: list(PEERS).index(speech.language))
    }
)
"""Each language's speech by primary subtag, in `gauntlet.languages.PEERS` order."""

__all__ = ["SPEECHES", "Speech"]
