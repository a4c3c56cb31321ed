"""The similarity labels: loaded strictly, every problem located, and the shipped set's shape."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gauntlet.errors import ConfigErrors
from gauntlet.languages import primary_language
from gauntlet.semantic.labels import (
    MIN_CLASS,
    MIN_ITEMS,
    builtin_similarity_labels_dir,
    load_similarity_labels,
    similarity_labels_digest,
)


def item(index: int, *, language: str = "en", same: bool = True, kind: str = "") -> str:
    kind = kind or ("reworded" if same else "entity")
    return (
        f"  - id: {language}-{index:03d}\n"
        f"    language: {language}\n"
        f"    expected: The pool opens at {index} a.m.\n"
        f"    answer: At {index} a.m. the pool opens.\n"
        f"    same: {'true' if same else 'false'}\n"
        f"    kind: {kind}\n"
    )


def enough(language: str = "en", start: int = 0) -> str:
    """A language's worth of items: 30 same, 30 different."""
    return "".join(item(start + n, language=language, same=n < 30) for n in range(MIN_ITEMS))


def problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "set.yaml").write_text("version: 1\nitems:\n" + text, encoding="utf-8")
    with pytest.raises(ConfigErrors) as caught:
        load_similarity_labels(tmp_path)
    return [error.render().replace(f"{tmp_path}/", "") for error in caught.value.errors]


def test_a_well_made_set_loads(tmp_path: Path) -> None:
    (tmp_path / "set.yaml").write_text("version: 1\nitems:\n" + enough(), encoding="utf-8")
    labels = load_similarity_labels(tmp_path)
    assert len(labels.items) == MIN_ITEMS
    assert similarity_labels_digest(labels).startswith("sha256:")


def test_an_item_id_used_twice_is_a_located_error(tmp_path: Path) -> None:
    # Trap: keeping the last of two items of one id, so a record's pairs name the wrong one.
    found = problems(tmp_path, enough() + item(0, same=False))
    assert any("duplicate item id 'en-000'" in p and p.startswith("set.yaml:") for p in found), (
        found
    )


def test_an_unknown_key_is_a_located_error_with_the_nearest_key(tmp_path: Path) -> None:
    # Trap: ignoring a misspelt key, so `sam: false` leaves the item with no label at all.
    text = enough().replace("    same: true\n", "    same: true\n    expectd: x\n", 1)
    (found,) = problems(tmp_path, text)
    assert "unknown key for an item" in found and "did you mean 'expected'?" in found
    assert found.startswith("set.yaml:8:")


def test_a_language_that_is_not_a_tag_is_a_located_error(tmp_path: Path) -> None:
    # Trap: taking any text as a language, so figures are kept for 'English' beside 'en'.
    text = enough().replace("language: en", "language: English", 1)
    (found,) = problems(tmp_path, text)
    assert "'English' is not a BCP 47 language tag" in found and found.startswith("set.yaml:4:")


def test_a_kind_that_contradicts_same_is_a_located_error(tmp_path: Path) -> None:
    # Trap: believing `same` alone, so a negation marked same: true teaches the threshold
    # that a negated answer is a rewording.
    for wrong in ("negation", "number", "entity", "template", "other_language"):
        text = enough().replace("kind: reworded", f"kind: {wrong}", 1)
        (found,) = problems(tmp_path, text)
        assert f"kind '{wrong}' contradicts same: true" in found and found.startswith(
            "set.yaml:"
        ), found
    text = enough().replace("kind: entity", "kind: reworded", 1)
    (found,) = problems(tmp_path, text)
    assert "kind 'reworded' contradicts same: false" in found


def test_a_language_with_too_few_items_of_a_class_is_a_located_error(tmp_path: Path) -> None:
    # Trap: loading a language calibration can never accept, which then reads as the
    # embedder's failure rather than the labels'.
    few = "".join(item(n, same=n < 10) for n in range(MIN_ITEMS))
    (found,) = problems(tmp_path, few)
    assert "language 'en' has 10 same-meaning items and 50 different-meaning items" in found
    assert f"{MIN_CLASS} of each" in found
    (found,) = problems(tmp_path, enough() + item(900, language="fr"))
    assert "language 'fr' has 1 same-meaning item" in found


def test_the_shipped_labels_have_both_classes_and_every_kind_in_each_language() -> None:
    # Trap: shipping labels too thin to tell a negation-blind embedder from a healthy one.
    items = load_similarity_labels(builtin_similarity_labels_dir()).items
    by_language = Counter(primary_language(i.language) for i in items)
    assert set(by_language) >= {"en", "es", "zh", "ko"}
    for language in by_language:
        mine = [i for i in items if primary_language(i.language) == language]
        assert len(mine) >= MIN_ITEMS, language
        share = sum(i.same for i in mine) / len(mine)
        assert 0.35 <= share <= 0.45, (language, share)
        kinds = Counter(i.kind for i in mine if not i.same)
        for kind in ("negation", "number", "entity", "template", "other_language"):
            assert kinds[kind] >= 6, (language, kind)
