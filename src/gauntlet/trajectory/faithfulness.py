"""Faithfulness: the share of an answer's claims that a tool's output or the context supports.

The rule, deterministic and the same in every language:

1. The answer is split into *claims*, one per sentence: a sentence ends at a sentence
   terminal of any script (`.`, `!`, `?`, `।`, ...; Unicode's Sentence_Terminal) or a line
   break followed by space, where the next word does not start with a lowercase letter (so
   `9 a.m. to 5 p.m.` stays one sentence, and so does `4.5`), and right after a wide one
   (`。`, `！`, `？`), which Chinese and Japanese follow with no space.
2. A claim's *content words* are its words (`gauntlet.segment.words`: runs of letters or
   digits after the gates' normalisation, which folds case, accents, width, look-alike letters,
   Traditional Chinese and invisible characters; a run of Han, Hangul or kana read as its
   overlapping character pairs) that are not in the language's list of function words (`the`,
   `is`, `el`, `de`, `po`, `ang`, `của`, ...), and not one letter long. A sentence with no
   content word ("Sure!"), or one that ends in a question mark of any width (a question
   asserts nothing), is not a claim.
3. A claim is *supported* by a source when every number in it appears among the source's
   words, and at least `overlap` of its content words do.
4. Faithfulness is the share of claims supported by at least one source.

Its limits, which the docs repeat: it measures overlap of words, not meaning. A claim that
reuses a source's words to say the opposite ("the library is not open Sunday" against "the
library is open Sunday") is supported, since `not` is a function word; a paraphrase with
other words is not. Numbers are held to a stricter rule because they are where a made-up
answer most often shows (hours, fees, dates); a number glued to Han or Hangul characters
(`上午9点`, `오전9시`) is a word of its own. Chinese and Korean, read as character pairs, have
no function-word list: every pair counts, and pairs that straddle two words are on both sides
alike. A language without a list is read with no function words, so more of its words count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from gauntlet.matching import normalise
from gauntlet.segment import words

# A sentence ends after a sentence terminal (Unicode's Sentence_Terminal: `.!?`, `。！？`,
# `।`, `؟` ...) or `…`, at the whitespace that follows it; after a wide one (`。！？`, which
# Chinese and Japanese follow with no space), right there; and at a line break.
_SENTENCE_END = regex.compile(
    r"(?<=[\p{Sentence_Terminal}…])\s+(?!\p{Ll})"
    r"|(?<=[\p{Sentence_Terminal}&&[\p{ea=W}\p{ea=F}\p{ea=H}]])\s*(?=\S)"
    r"|\n\s*",
    regex.V1,
)
_NUMBER = regex.compile(r"^\p{N}+$")


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": _listed(
        """a an the and or but if then so of to in on at by for from with without about as
        into over under is are was were be been being am do does did has have had will would
        can could may might must shall should it its this that these those there here what
        which who whom whose when where why how i you he she we they me him her us them my
        your his our their yours mine not no yes all any some each every more most other such
        only own same than too very just also up out off again once both few nor per via
        please thank thanks sure okay ok"""
    ),
    "es": _listed(
        """el la los las un una unos unas y e o u pero si entonces de del al a en con sin por
        para sobre bajo entre hasta desde como que cual cuales quien quienes cuyo cuando donde
        por que porque es son era eran ser sido estar esta estan esta este estos estas ese esa
        esos esas eso esto aquello hay ha han habia he lo le les se su sus mi mis tu tus nos
        nuestro nuestra usted ustedes ello ella ellas ellos yo no ni mas muy tambien solo ya
        todo toda todos todas otro otra otros otras cada mismo misma gracias claro puede
        pueden favor"""
    ),
    "vi": _listed(
        """va voi la co khong cac nhung trong tren duoi duoc bi nay kia ay neu nen hoac hay
        da se rat hon ong em ta xin vui long nhe roi den vao ra len"""
    ),
    "tl": _listed(
        """ang ng mga sa si ni kay sina nina kina at ay na nang ng ako ko ikaw ka mo siya niya
        kami namin tayo natin kayo ninyo sila nila ito iyan iyon dito diyan doon po opo ho oho
        lang lamang din rin ba pa naman nga man daw raw kung kapag dahil para pero o hindi oo
        may mayroon meron wala yung yun salamat sige"""
    ),
}
"""Words that carry no claim, per language, as `normalise` leaves them (accents folded).

Vietnamese lists only function words that no common content word folds to: without its
marks `của` (of) is `cửa` (door), `đây` (here) is `dây` (line), `tôi` (I) is `tối` (evening),
`từ` (from) is `tự` (self), so those stay content words. A word kept counts on both sides."""


def sentences(text: str) -> list[str]:
    """`text` cut into sentences, as rule 1 says; blank pieces dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(text) if piece.strip()]


def content_words(text: str, language: str) -> frozenset[str]:
    """The words of `text` that may carry a claim in `language` (rule 2)."""
    skip = FUNCTION_WORDS.get(language.split("-")[0].casefold(), frozenset())
    return frozenset(
        word for word in words(text) if word not in skip and (len(word) > 1 or word.isdigit())
    )


def source_text(value: object) -> str:
    """A tool output as text: a string as it is, any other JSON value as its JSON text."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Claim:
    """One sentence of the answer and whether a source supports it."""

    text: str
    supported: bool


@dataclass(frozen=True)
class Faithfulness:
    """The claims of one answer, each supported or not, and their share."""

    claims: tuple[Claim, ...]

    @property
    def score(self) -> float:
        """Supported claims over claims; 1.0 when there are none (see `claims`)."""
        if not self.claims:
            return 1.0
        return sum(claim.supported for claim in self.claims) / len(self.claims)

    @property
    def unsupported(self) -> tuple[str, ...]:
        """The claims no source supports, as written."""
        return tuple(claim.text for claim in self.claims if not claim.supported)


def supports(claim: frozenset[str], source: frozenset[str], overlap: float) -> bool:
    """Rule 3: every number of the claim in the source, and `overlap` of its words."""
    numbers = {word for word in claim if _NUMBER.match(word)}
    if not numbers <= source:
        return False
    return len(claim & source) >= overlap * len(claim)


def faithfulness(
    answer: str, sources: Iterable[str], language: str, overlap: float
) -> Faithfulness:
    """Each claim of `answer` checked against every source (rules 1 to 4)."""
    known: Sequence[frozenset[str]] = [frozenset(words(source)) for source in sources]
    claims = []
    for sentence in sentences(answer):
        claim = content_words(sentence, language)
        if claim and not normalise(sentence).endswith("?"):
            claims.append(Claim(sentence, any(supports(claim, s, overlap) for s in known)))
    return Faithfulness(tuple(claims))
