"""One page of the Riverbend toy's corpus, in a module each language's speech can import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Document:
    """One city-service page the toy can retrieve and cite.

    Pages on the same `topic` in different languages are peers: each written for its readers,
    not translated word for word. Ids run by language: English `RB-001`.., Spanish `RB-101`..,
    Chinese `RB-201`.., Vietnamese `RB-301`.., Tagalog `RB-401`.., Korean `RB-501`...
    """

    id: str
    """The id the toy cites, e.g. `RB-001`."""
    language: str
    """The page's language, a primary subtag of `gauntlet.languages.PEERS` (`en`, `zh`)."""
    topic: str
    """What the page is about; shared by the page's peers in the other languages."""
    text: str
    """The page, one to three sentences; the toy answers with it verbatim."""
    keywords: tuple[str, ...]
    """Words and phrases in the page's language that retrieve it, as the toy folds prompts
    (lowercase, without accents, Chinese in Simplified characters; see `gauntlet.segment`).

    A word of five letters or more also matches words that start with it (`firework`
    matches `fireworks`); a phrase matches its words in a row (in Chinese and Korean, its
    character pairs in a row).
    """
    intake: bool = False
    """A service-intake page: where a resident's first contact with the city lands (who they
    are talking to, where to start). The toy opens an answer from it with the disclosure."""
