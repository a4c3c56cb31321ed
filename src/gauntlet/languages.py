"""Language tags: the one rule for reading a BCP 47 tag's language. A leaf."""

from __future__ import annotations


def primary_language(tag: str) -> str:
    """The primary subtag of a BCP 47 tag, lowercased: `es-MX` and `ES` are both `es`."""
    return tag.split("-", 1)[0].lower()
