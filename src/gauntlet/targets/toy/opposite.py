"""How the toy gets a curated answer wrong while keeping its words: two defects' rewrites.

`states_opposite` turns the answer round: a negation it has is dropped, or else one is put
in (`is` becomes `is not`, `abre` becomes `no abre`, or the answer is said not to be true).
`wrong_number` says another figure: the answer's first number, everywhere it appears, one
higher (`311` becomes `312`). Both stay close in wording, which is why an embedder scores
them near the original, and why the similarity guards exist (`gauntlet.semantic.guards`).

The toy's own word lists, on purpose apart from the guards': a test of the guards against
rewrites made from their own lists could not fail.
"""

from __future__ import annotations

import re

_NEGATION = {
    "en": re.compile(r"\s*\b(?:not|never|no)\b", re.IGNORECASE),
    "es": re.compile(r"\s*\b(?:no|nunca)\b", re.IGNORECASE),
    "zh": re.compile(r"不|没有|无需"),
    "vi": re.compile(r"\s*\b(?:không|chưa|chẳng)\b", re.IGNORECASE),
    "tl": re.compile(r"\s*\b(?:hindi|huwag|kailanman)\b", re.IGNORECASE),
}
"""A negation the toy's answers may hold, with the space before it."""
_VERB = {
    "en": re.compile(r"\b(is|are|can|will|must)\b"),
    "es": re.compile(r"\b(es|son|abre|cierra|se|puede|necesita|cuesta|atiende)\b"),
    "zh": re.compile(r"(开放|须|收费|可以|可在|允许|出租|接听|会)"),
    "vi": re.compile(r"\b(mở cửa|đóng cửa|được|cần|là|có|trả lời)\b"),
    "tl": re.compile(r"\b(bukas|sarado|kailangan|may|maaari|puwede|nagkakahalaga)\b"),
}
"""Where a negation goes: before (es, zh, vi, tl) or after (en) the first of these."""
_NEGATED = {"en": "{} not", "es": "no {}", "zh": "不{}", "vi": "không {}", "tl": "hindi {}"}
"""The verb negated."""
_NOT_TRUE = {
    "en": "It is not true that ",
    "es": "No es cierto que ",
    "zh": "以下说法并不属实：",
    "vi": "Không đúng là ",
    "tl": "Hindi totoo na ",
    "ko": "다음은 사실이 아닙니다: ",
}
"""How an answer is said not to be true: the only rewrite for a language without word lists
above (Korean negates in a verb's ending, which no word list reaches)."""
_NUMBER = re.compile(r"\d+")


def states_opposite(text: str, language: str) -> str:
    """`text` saying the opposite: its first negation dropped, or else one put in."""
    negation = _NEGATION.get(language)
    if negation is not None and negation.search(text):
        dropped = negation.sub("", text, count=1).lstrip()
        return dropped[:1].upper() + dropped[1:]
    verb = _VERB[language].search(text) if language in _VERB else None
    if verb is not None:
        word = verb.group(1)
        negated = _NEGATED[language].format(word)
        return text[: verb.start()] + negated + text[verb.end() :]
    return _NOT_TRUE[language] + text[:1].lower() + text[1:]


def one_number_wrong(text: str) -> str:
    """`text` with its first number one higher wherever it appears; unchanged without one."""
    found = _NUMBER.search(text)
    if found is None:
        return text
    digits = found.group(0)
    wrong = str(int(digits) + 1)
    return re.sub(rf"(?<![\d.,:]){digits}(?![\d])", wrong, text)


__all__ = ["one_number_wrong", "states_opposite"]
