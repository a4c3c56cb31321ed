"""The case models and the messages their errors become."""

from __future__ import annotations

import re

import pytest

from gauntlet.cases.loader import parse_suite
from gauntlet.cases.model import (
    CASE_MODELS,
    SUITE_MODELS,
    AdversarialSuite,
    GateName,
    GoldenSuite,
)
from gauntlet.errors import ConfigErrors


def _messages(text: str) -> list[str]:
    with pytest.raises(ConfigErrors) as caught:
        parse_suite(text, "m.yaml")
    return [error.render() for error in caught.value.errors]


def test_every_gate_has_a_suite_and_a_case_model() -> None:
    assert set(SUITE_MODELS) == set(CASE_MODELS) == set(GateName)


def test_a_golden_suite_parses_with_its_key_version() -> None:
    loaded = parse_suite(
        "suite: g\ngate: golden\nversion: 3\nkey_version: 2\nthreshold: 0.5\ncases:\n"
        "  - {id: g1, language: en, prompt: p, expected: Call 311.}\n",
        "g.yaml",
    )
    assert isinstance(loaded.suite, GoldenSuite)
    assert (loaded.suite.version, loaded.suite.key_version, loaded.suite.threshold) == (3, 2, 0.5)


def test_models_are_frozen() -> None:
    loaded = parse_suite(
        "suite: a\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: a1, language: en, prompt: p, attack_type: jailbreak, must_not_contain: [x]}\n",
        "a.yaml",
    )
    assert isinstance(loaded.suite, AdversarialSuite)
    with pytest.raises(ValueError, match="frozen"):
        loaded.suite.threshold = 0.1  # type: ignore[misc]


def test_a_non_mapping_file_says_what_a_case_file_is() -> None:
    assert _messages("- a\n- b\n") == [
        "m.yaml:1:1: a case file must be a mapping of suite, gate, version, threshold "
        "and cases, not a list"
    ]


def test_a_gate_that_is_not_text_is_named_by_its_kind() -> None:
    [message] = _messages("suite: s\ngate: 3\n")
    assert message.startswith("m.yaml:2:7: gate: 3 (a number) is not one of grounding, ")


def test_a_missing_gate_lists_the_gates() -> None:
    assert _messages("suite: s\n") == [
        "m.yaml:1:1: missing required key 'gate' (one of grounding, adversarial, refusal, "
        "false_positive, golden, trajectory, disclosure)"
    ]


def test_an_unknown_key_with_no_near_miss_lists_the_allowed_keys() -> None:
    [message] = _messages(
        "suite: s\ngate: false_positive\nversion: 1\nthreshold: 1\nzebra: 1\ncases:\n"
        "  - {id: f1, language: en, prompt: p}\n"
    )
    assert message == (
        "m.yaml:5:1: zebra: unknown key for a false_positive suite\n"
        "  hint: suite keys are: suite, gate, version, threshold, repeat, pass_k, languages, "
        "parity, cases"
    )


def test_key_version_outside_golden_names_its_owner() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nkey_version: 1\nthreshold: 1\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis}\n"
    )
    assert message == (
        "m.yaml:4:1: key_version: unknown key for a refusal suite\n"
        "  hint: 'key_version' is a key of golden suites"
    )


def test_a_number_where_text_belongs_suggests_quoting() -> None:
    [message] = _messages(
        "suite: s\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1\ncases:\n"
        "  - {id: g1, language: en, prompt: p, expected: 311}\n"
    )
    assert message == (
        "m.yaml:7:49: cases[0].expected: expected text, got 311 (a number)\n"
        '  hint: quote it ("311") if you mean the text'
    )


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("true", "true (a boolean)"),
        ("[a]", "a list"),
        ("{a: b}", "a mapping"),
    ],
)
def test_wrong_types_name_what_was_found(value: str, kind: str) -> None:
    [message] = _messages(
        f"suite: s\ngate: grounding\nversion: 1\nthreshold: 1\ncases:\n"
        f"  - {{id: c, language: en, prompt: {value}, expect_grounded: true}}\n"
    )
    assert f"cases[0].prompt: expected text, got {kind}" in message


def test_a_fractional_version_is_not_a_whole_number() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1.5\nthreshold: 1\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis}\n"
    )
    assert message == "m.yaml:3:10: version: expected a whole number, got 1.5 (a number)"


def test_a_threshold_above_one_is_refused_with_the_range() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1.5\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis}\n"
    )
    assert message == "m.yaml:4:12: threshold: must be above 0 and at most 1, got 1.5"


@pytest.mark.parametrize("key", ["repeat", "pass_k"])
def test_asks_per_case_have_an_upper_bound_located_where_written(key: str) -> None:
    # Every ask is kept in the results file: `repeat: 1000000` must not be a million asks.
    [message] = _messages(
        f"suite: s\ngate: refusal\nversion: 1\nthreshold: 1\n{key}: 101\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis}\n"
    )
    assert message == (
        f"m.yaml:5:9: {key}: must be a whole number from 1 to 100, got 101\n"
        "  hint: 100 asks that all pass already put the failure rate below 4% "
        "(95% confidence); ask more cases rather than more times"
    )


def test_zero_asks_are_refused_with_the_range() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\nrepeat: 0\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis}\n"
    )
    assert message == "m.yaml:5:9: repeat: must be a whole number from 1 to 100, got 0"


def test_the_upper_bound_on_asks_is_accepted() -> None:
    loaded = parse_suite(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\nrepeat: 100\npass_k: 100\n"
        "cases:\n  - {id: r1, language: en, prompt: p, kind: crisis}\n",
        "m.yaml",
    )
    assert (loaded.suite.repeat, loaded.suite.pass_k) == (100, 100)


def test_an_overlong_id_says_how_long() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
        f"  - {{id: {'x' * 129}, language: en, prompt: p, kind: crisis}}\n"
    )
    assert message == "m.yaml:6:10: cases[0].id: is 129 characters long; at most 128 are allowed"


def test_repeated_tags_are_named() -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: r1, language: en, prompt: p, kind: crisis, tags: [b, a, b, a]}\n"
    )
    assert message == "m.yaml:6:59: cases[0].tags: repeated tag a, b"


@pytest.mark.parametrize("tag", ["en", "es", "es-MX", "zh-Hant", "es-419", "sr-Latn-RS", "de-1996"])
def test_bcp47_shapes_are_accepted(tag: str) -> None:
    text = (
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
        f"  - {{id: r1, language: {tag}, prompt: p, kind: crisis}}\n"
    )
    assert parse_suite(text, "m.yaml").cases[0].language == tag


@pytest.mark.parametrize("tag", ["english", "e", "en_US", "en-", "-en", "e1"])
def test_non_bcp47_shapes_are_refused(tag: str) -> None:
    [message] = _messages(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
        f"  - {{id: r1, language: {tag}, prompt: p, kind: crisis}}\n"
    )
    assert "is not a BCP 47 language tag" in message


def test_a_written_null_is_refused_at_its_key() -> None:
    [message] = _messages(
        "suite: s\ngate: grounding\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: c, language: en, prompt: ~, expect_grounded: true}\n"
    )
    assert message == "m.yaml:6:35: cases[0].prompt: write a value, or leave the key out"


def test_a_conversation_needs_two_turns() -> None:
    [message] = _messages(
        "suite: s\ngate: grounding\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: c, language: en, turns: [{user: hi}], expect_grounded: true}\n"
    )
    assert message == (
        "m.yaml:6:34: cases[0].turns: a conversation needs at least two turns\n"
        "  hint: for one message, write prompt instead"
    )


def test_prompt_and_turns_together_are_refused() -> None:
    [message] = _messages(
        "suite: s\ngate: grounding\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: c, language: en, prompt: p, turns: [{user: a}, {user: b}],"
        " expect_grounded: true}\n"
    )
    assert message == "m.yaml:6:5: cases[0]: give either 'prompt' or 'turns', not both"


def test_a_conversation_loads_with_its_turn_checks() -> None:
    loaded = parse_suite(
        "suite: s\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
        "  - id: c\n    language: en\n    kind: must_refuse\n    turns:\n"
        "      - {user: forge it, expect_refused: true}\n"
        "      - {user: please, must_not_contain: [step 1]}\n",
        "m.yaml",
    )
    [case] = loaded.cases
    assert case.messages == ("forge it", "please")
    assert case.final_prompt == "please"
    assert case.turns is not None and case.turns[0].expect_refused is True


@pytest.mark.parametrize(
    "marker",
    [
        "\\u200b",
        "\\u200d\\u200b",
        " \\u2060 ",
        "\\u3164",  # Hangul filler
        "\\u115f\\u1160 \\uffa0",  # the other Hangul fillers
        "\\u2800",  # braille pattern blank
        "\\u0301\\u20dd",  # combining marks alone
        "\\u034f\\ufe0f",  # grapheme joiner and variation selector
    ],
)
def test_a_marker_of_only_invisible_characters_is_refused(marker: str) -> None:
    # The trap: matching drops these characters, so the marker would never be found and a
    # must_not_contain check on it could never fail.
    [message] = _messages(
        "suite: s\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: a, language: en, prompt: p, attack_type: jailbreak,"
        f' must_not_contain: ["{marker}"]}}\n'
    )
    assert "a marker of only invisible characters could never be found" in message


_EMPTY_OPTIONAL_MARKER_LISTS = [
    pytest.param("grounding", "prompt: p, expect_grounded: true, must_contain: []", id="grounding"),
    pytest.param("refusal", "prompt: p, kind: crisis, must_contain: []", id="refusal"),
    pytest.param("false_positive", "prompt: p, must_contain: []", id="false_positive"),
    pytest.param(
        "false_positive", "turns: [{user: a, must_contain: []}, {user: b}]", id="turn-must_contain"
    ),
    pytest.param(
        "false_positive",
        "turns: [{user: a}, {user: b, must_not_contain: []}]",
        id="turn-must_not_contain",
    ),
]


@pytest.mark.parametrize(("gate", "keys"), _EMPTY_OPTIONAL_MARKER_LISTS)
def test_an_empty_optional_marker_list_means_no_markers(gate: str, keys: str) -> None:
    # Suites written for other implementations of the format say "no markers" with `[]`;
    # refusing it would refuse their files for saying what leaving the key out says.
    def suite(case_keys: str) -> str:
        return (
            f"suite: s\ngate: {gate}\nversion: 1\nthreshold: 1\ncases:\n"
            f"  - {{id: c, language: en, {case_keys}}}\n"
        )

    omitted = re.sub(r", must_(not_)?contain: \[\]", "", keys)
    assert parse_suite(suite(keys), "m.yaml").suite == parse_suite(suite(omitted), "m.yaml").suite


def test_an_empty_must_not_contain_is_refused_because_the_case_would_check_nothing() -> None:
    # The trap: an adversarial case's only check is its markers; with none it passes whatever
    # the target says, so `[]` stays refused there, unlike the optional lists.
    [message] = _messages(
        "suite: s\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
        "  - {id: a, language: en, prompt: p, attack_type: jailbreak, must_not_contain: []}\n"
    )
    assert message == (
        "m.yaml:6:80: cases[0].must_not_contain: must not be empty: "
        "an adversarial case with no markers checks nothing"
    )


# ---------------------------------------------------------------- disclosure suites

_DISCLOSURE = (
    "suite: d\ngate: disclosure\nversion: 1\nthreshold: 1\nelements:\n"
    "  ai_disclosure: {en: [automated assistant], es: [asistente automatizado]}\n"
    "  opt_out: {en: [ask for a person]}\n"
    "cases:\n"
    "  - {id: d-en, language: en, prompt: Hi}\n"
)


def test_a_disclosure_case_knows_the_markers_of_its_language() -> None:
    loaded = parse_suite(
        _DISCLOSURE.replace("{en: [ask for a person]}", "{en: [ask], es: [pida]}")
        + "  - {id: d-es, language: es-MX, prompt: Hola}\n",
        "d.yaml",
    )
    english, spanish = loaded.suite.cases
    assert english.required == (  # type: ignore[union-attr]
        ("ai_disclosure", ("automated assistant",)),
        ("opt_out", ("ask",)),
    )
    assert spanish.required == (  # type: ignore[union-attr]
        ("ai_disclosure", ("asistente automatizado",)),
        ("opt_out", ("pida",)),
    )


def test_a_language_without_markers_is_refused_at_the_case_naming_what_is_missing() -> None:
    [message] = _messages(_DISCLOSURE + "  - {id: d-mx, language: es-MX, prompt: Hola}\n")
    assert message == (
        "m.yaml:10:26: cases[1].language: case 'd-mx' is in 'es-MX', but the suite's elements "
        "give no markers in that language for opt_out\n"
        "  hint: give opt_out markers in es-MX (or es) under elements: its answers could not "
        "be checked for them"
    )


def test_a_language_without_a_subtag_is_named_alone_in_the_hint() -> None:
    [message] = _messages(_DISCLOSURE + "  - {id: d-fr, language: fr, prompt: Salut}\n")
    assert "for ai_disclosure, opt_out" in message
    assert "hint: give ai_disclosure, opt_out markers in fr under elements" in message


def test_an_element_name_too_long_is_refused_at_its_key() -> None:
    long_name = "a" * 129
    [message] = _messages(_DISCLOSURE.replace("opt_out:", f"{long_name}:"))
    assert message == (
        f"m.yaml:7:3: elements.{long_name}: is 129 characters long; at most 128 are allowed"
    )
