"""The Riverbend toy's documents: short city-service pages in each language, as data.

The pages live with the rest of each language's speech (`gauntlet.targets.toy.speech`);
this module indexes them.
"""

from __future__ import annotations

from itertools import chain

from gauntlet.targets.toy.page import Document
from gauntlet.targets.toy.speech import SPEECHES

DOCUMENTS: tuple[Document, ...] = tuple(chain.from_iterable(s.pages for s in SPEECHES.values()))
"""Every page, language by language in `SPEECHES` order (English first)."""

_BY_ID = {document.id: document for document in DOCUMENTS}
_BY_TOPIC = {(document.topic, document.language): document for document in DOCUMENTS}


def documents_in(language: str) -> tuple[Document, ...]:
    """The pages written in `language` (a primary subtag the toy speaks), in id order.

    Raises:
        KeyError: the toy has no pages in that language.
    """
    return SPEECHES[language].pages


def document(doc_id: str) -> Document:
    """The page with id `doc_id`.

    Raises:
        KeyError: no page has that id.
    """
    return _BY_ID[doc_id]


def other_language(language: str) -> str:
    """The language `wrong_language` answers `language` in.

    Spanish for English, English for every other language.
    """
    return "es" if language == "en" else "en"


def peer(doc: Document) -> Document:
    """The page on the same topic in `other_language` of the page's own."""
    return _BY_TOPIC[(doc.topic, other_language(doc.language))]


__all__ = ["DOCUMENTS", "Document", "document", "documents_in", "other_language", "peer"]
