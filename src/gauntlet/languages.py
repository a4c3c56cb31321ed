"""Language tags: the one rule for reading a BCP 47 tag's language, and the peers. A leaf."""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

PEERS: MappingProxyType[str, str] = MappingProxyType(
    {
        "en": "English",
        "es": "Spanish",
        "zh": "Chinese",
        "vi": "Vietnamese",
        "tl": "Tagalog",
        "ko": "Korean",
    }
)
"""The languages gauntlet's own suites, toy, judge labels, attack pack and personas speak, by
primary subtag, in the order their columns are drawn. A suite may declare any BCP 47 tag; these
are the ones the built-in material is written in, as peers (none translated from another)."""


def primary_language(tag: str) -> str:
    """The primary subtag of a BCP 47 tag, lowercased: `es-MX` and `ES` are both `es`."""
    return tag.split("-", 1)[0].lower()


def peer_of(tag: str) -> str | None:
    """The peer language `tag` is written in (`zh-Hant`: `zh`), or None when it is not one."""
    primary = primary_language(tag.replace("_", "-"))
    return primary if primary in PEERS else None


def in_column_order(tags: Iterable[str]) -> list[str]:
    """`tags` once each, in the order language columns are drawn.

    The peers first, in `PEERS` order (a regional tag after its language's own: `es`,
    `es-MX`), then any other tag sorted.

    Two languages of English and Spanish come out as sorting would put them, so a two-language
    table reads as it always has.
    """
    order = {peer: index for index, peer in enumerate(PEERS)}
    return sorted(set(tags), key=lambda tag: (order.get(primary_language(tag), len(order)), tag))
