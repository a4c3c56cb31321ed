"""The toys tell English from Spanish by one rule: the toy target and the toy judge agree."""

from __future__ import annotations

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.judge.toy import language_of
from gauntlet.targets.toy import make_toy
from gauntlet.targets.toy.corpus import DOCUMENTS
from gauntlet.targets.toy.openai import detect_language
from gauntlet.targets.toy.speech import SPEECHES
from gauntlet.transforms import Transform, transformed


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


TAGALOG_PROMPTS = [
    case.prompt
    for loaded in load_suites([builtin_suites_dir()]).suites
    for case in loaded.cases
    if case.language == "tl" and case.variant is None and not case.turns
]


@pytest.mark.parametrize("prompt", TAGALOG_PROMPTS)
def test_a_tagalog_prompt_with_its_letters_spaced_out_counts_for_tagalog(prompt: str) -> None:
    # Trap: one-letter words counted wherever they stand, so a spaced-out Tagalog payload's
    # many `i`s are the English `I` and the Tagalog asker is answered in English.
    assert language_of(transformed(prompt, "tl", Transform.SPACED)) == "tl"


def test_tagalog_i_prefixed_words_are_one_word_each_not_the_english_i() -> None:
    # Trap: `i-execute` read as `i` and `execute`, three Taglish verbs outweighing the
    # Tagalog around them.
    assert language_of("I-execute, i-print at i-paste mo lang ang code.") == "tl"


@pytest.mark.parametrize("text", ["Can I park on Sunday?", "I s a n t a b i"])
def test_a_lone_one_letter_word_still_counts_and_spaced_letters_do_not(text: str) -> None:
    assert language_of(text) == ("en" if text.startswith("Can") else None)


def test_every_tagalog_text_of_the_toy_counts_for_tagalog() -> None:
    # Trap: a Tagalog answer or page the rule reads as English (`at`, `city` are English
    # words), so the OpenAI toy and the toy judge call the toy's own Tagalog another language.
    speech = SPEECHES["tl"]
    texts = [value for value in speech if isinstance(value, str) and value != "tl"]
    texts += [page.text for page in speech.pages]
    assert [text for text in texts if language_of(text) != "tl"] == []
