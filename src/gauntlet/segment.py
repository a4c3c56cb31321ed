"""Words for comparing texts by overlap, in scripts spaced into words and scripts that are not.

Marker matching needs no words: it looks for one normalised text inside another. What counts
words (faithfulness's overlap, the toy's retrieval) reads them here, by one character-level
rule rather than a dictionary segmenter:

- a run of letters and digits in a spaced script (Latin, with Vietnamese's and Tagalog's
  letters once `normalise` has folded their marks) is one word;
- a run of Han or kana characters (Chinese, Japanese), or of Hangul (Korean, whose spaces
  `normalise` removes between syllables, since writers leave them out) is read as its
  overlapping character pairs, `图书馆` as `图书` and `书馆`; a run of one character is itself.

Overlapping pairs are what search engines index unsegmented text by: a shared two-character
word is a shared pair, and no dictionary decides where a word ends, so a Traditional, a
Simplified and an unspaced Korean spelling of the same words give the same pairs. The cost is
pairs that straddle two words, which only add to both sides alike. A dictionary segmenter
(jieba for Chinese, Kiwi for Korean) splits more exactly but ships a dictionary per language,
starts slowly and splits a marker and the same words inside an answer differently when their
neighbours differ.
"""

from __future__ import annotations

import regex

from gauntlet.matching import normalise

_UNSPACED = r"\p{Han}\p{Hangul}\p{Hiragana}\p{Katakana}"
_RUN = regex.compile(rf"[{_UNSPACED}]+|[[\p{{L}}\p{{N}}]--[{_UNSPACED}]]+", regex.V1)
_UNSPACED_RUN = regex.compile(rf"[{_UNSPACED}]+")


def words(text: str) -> list[str]:
    """The words of `text` once normalised (see `normalise`), in order.

    Spaced runs are whole words, unspaced runs overlapping character pairs (see the module).
    """
    found: list[str] = []
    for run in _RUN.findall(normalise(text)):
        if len(run) > 1 and _UNSPACED_RUN.fullmatch(run):
            found.extend(run[start : start + 2] for start in range(len(run) - 1))
        else:
            found.append(run)
    return found
