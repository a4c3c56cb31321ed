"""The toys tell English from Spanish by one rule: the toy target and the toy judge agree."""

from __future__ import annotations

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.judge.toy import language_of
from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.corpus import DOCUMENTS
from gauntlet.targets.toy.openai import detect_language


def _texts() -> list[str]:
    """Every built-in message, every page of the corpus and the toy's answer to each message."""
    toy = make_toy()
    texts = [document.text for document in DOCUMENTS]
    for loaded in load_suites([builtin_suites_dir()]).suites:
        for case in loaded.cases:
            for message in case.messages:
                texts.extend((message, toy.ask(message, case.language).text))
    return texts


def test_the_toy_target_and_the_toy_judge_read_a_text_in_one_language() -> None:
    # Trap: two detectors with their own word lists, so the toy answers a message in one
    # language while the toy judge reads it as the other (or as neither), and a gate's
    # language check passes or fails on the detectors' disagreement, not the answer.
    texts = _texts()
    assert len(texts) > 100
    differing = [
        (text[:60], detect_language(text), language_of(text))
        for text in texts
        if detect_language(text) != (language_of(text) or "en")
    ]
    assert differing == []


def test_a_common_word_counts_for_one_language_only() -> None:
    # Trap: a word in two lists (`the` is English and unaccented Vietnamese) counts for both,
    # so a text in one of them ties and is read as no language.
    from itertools import combinations

    from gauntlet.targets.toy.language import WORDS

    shared = {(a, b): WORDS[a] & WORDS[b] for a, b in combinations(WORDS, 2)}
    assert not any(shared.values()), shared
