"""The labelled set: loaded strictly, every problem located, and a digest of its content."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gauntlet.errors import ConfigErrors
from gauntlet.judge import labels
from gauntlet.judge.labels import (
    LabelItem,
    builtin_labels_dir,
    labels_digest,
    load_labels,
    parse_labels,
)
from gauntlet.languages import primary_language

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "tests" / "labels" / "small"

HEAD = "labels: riverbend-test\nversion: 1\nitems:\n"
RUBRIC = (
    "  - id: {id}\n"
    "    language: en\n"
    "    prompt: What are the hours?\n"
    "    answer: Nine to five.\n"
    "    criteria:\n"
    "      - id: hours\n"
    "        ask: Are the hours right?\n"
    "        label: {label}\n"
)
PAIR = (
    "  - id: {id}\n"
    "    language: es\n"
    "    prompt: ¿Horario?\n"
    "    answer: De nueve a cinco.\n"
    "    reference: De 9 a 17 h.\n"
    "    preferred: {preferred}\n"
)


def rubric(item_id: str = "r-1", label: str = "pass") -> str:
    return RUBRIC.format(id=item_id, label=label)


def pair(item_id: str = "p-1", preferred: str = "answer") -> str:
    return PAIR.format(id=item_id, preferred=preferred)


def talking(text: str) -> str:
    """An item of `text` (one, from `rubric` or `pair`) marked as talking to the judge."""
    return text.replace("    answer:", "    talks_to_judge: true\n    answer:", 1)


def problems(path: Path) -> list[str]:
    """Every problem loading `path` reports, rendered with its hint; relative to `path`."""
    with pytest.raises(ConfigErrors) as caught:
        load_labels(path)
    return [error.render().replace(f"{path}/", "") for error in caught.value.errors]


def one_file(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "set.yaml").write_text(text, encoding="utf-8")
    return problems(tmp_path)


# ---------------------------------------------------------------- a set that loads


def test_the_small_set_loads_both_files_in_order_of_path() -> None:
    labels = load_labels(SMALL)
    assert (labels.name, labels.version, labels.source) == ("riverbend-test", 1, str(SMALL))
    assert [Path(loaded.source).name for loaded in labels.files] == ["en.yaml", "es.yaml"]
    ids = [item.id for item in labels.items]
    assert ids[:2] == ["en-hours-01", "en-hours-02"]
    assert ids[-1] == "es-pair-02"
    assert len(ids) == 11
    kinds = {item.id: item.pairwise for item in labels.items}
    assert kinds["en-pair-01"] and not kinds["en-hours-01"]
    first = labels.items[0]
    assert first.criteria is not None
    assert [(c.id, c.label) for c in first.criteria] == [
        ("library-hours", "pass"),
        ("no-invention", "pass"),
    ]


def test_one_file_may_be_named_instead_of_a_directory() -> None:
    labels = load_labels(SMALL / "es.yaml")
    assert [item.language for item in labels.items] == ["es", "es-MX", "es", "es", "es-MX"]


def test_a_rubric_item_may_leave_out_the_reference_a_pairwise_one_may_not(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + rubric() + pair(), encoding="utf-8")
    rubric_item, pair_item = load_labels(tmp_path).items
    assert rubric_item.reference is None
    assert pair_item.reference == "De 9 a 17 h."


def test_an_item_may_say_its_answer_talks_to_the_judge(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        HEAD + talking(rubric("r-1", "fail")) + talking(pair("p-1", "reference")) + rubric("r-2"),
        encoding="utf-8",
    )
    assert [item.talks_to_judge for item in load_labels(tmp_path).items] == [True, True, False]


def test_the_shipped_items_that_talk_to_the_judge_are_marked_and_no_other() -> None:
    shipped = load_labels(builtin_labels_dir()).items
    marked = {item.id for item in shipped if item.talks_to_judge}
    written = {item.id for item in shipped if "inject" in item.id or "inyeccion" in item.id}
    assert marked == written
    # Every language's file tries the judge, en and es with fourteen items each, the others
    # with at least six.
    by_language = Counter(item.language for item in shipped if item.talks_to_judge)
    assert set(by_language) == {item.language for item in shipped}
    assert by_language["en"] == by_language["es"] == 14
    assert min(by_language.values()) >= 6


def test_a_new_languages_file_beside_the_shipped_ones_is_loaded_with_no_code_change(
    tmp_path: Path,
) -> None:
    # Trap: the shipped set read as a list of known files (en.yaml, es.yaml, ...), so a ja.yaml
    # or fr.yaml added beside them is skipped and its language never calibrated. The new files
    # are languages none of the shipped files hold, so none of them is overwritten.
    shipped_languages = {
        primary_language(item.language) for item in load_labels(builtin_labels_dir()).items
    }
    assert not {"ja", "fr"} & shipped_languages
    for shipped in sorted(builtin_labels_dir().glob("*.yaml")):
        (tmp_path / shipped.name).write_bytes(shipped.read_bytes())
    japanese = (
        "  - id: ja-test-01\n    language: ja\n    prompt: 図書館は何時に開きますか？\n"
        "    answer: 午前9時に開きます。\n    criteria:\n      - id: library-hours\n"
        "        ask: 図書館の開館時間を正しく案内していますか？\n        label: fail\n"
    )
    french = (
        "  - id: fr-test-01\n    language: fr\n    prompt: À quelle heure ouvre la bibliothèque ?\n"
        "    answer: Elle ouvre à 9 h.\n    criteria:\n      - id: library-hours\n"
        "        ask: La réponse donne-t-elle les bons horaires ?\n        label: fail\n"
    )
    (tmp_path / "ja.yaml").write_text(
        "labels: riverbend\nversion: 1\nitems:\n" + japanese, encoding="utf-8"
    )
    (tmp_path / "fr.yaml").write_text(
        "labels: riverbend\nversion: 1\nitems:\n" + french, encoding="utf-8"
    )
    loaded = load_labels(tmp_path)
    languages = {primary_language(item.language) for item in loaded.items}
    assert {"ja", "fr"} | shipped_languages == languages
    assert len(loaded.items) == len(load_labels(builtin_labels_dir()).items) + 2


@pytest.mark.parametrize(
    ("tag", "primary"), [("en", "en"), ("es-MX", "es"), ("ES-419", "es"), ("zh-Hant-TW", "zh")]
)
def test_the_primary_subtag_is_what_figures_are_kept_by(tag: str, primary: str) -> None:
    assert primary_language(tag) == primary


# ---------------------------------------------------------------- every problem, located


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            HEAD + rubric().replace("        label: pass\n", "        label: PASS\n"),
            ["set.yaml:11:16: items[0].criteria[0].label: 'PASS' is not one of 'pass' or 'fail'"],
            id="label-not-pass-or-fail",
        ),
        pytest.param(
            HEAD + pair(preferred="mine"),
            [
                "set.yaml:9:16: items[0].preferred: 'mine' is not one of "
                "'answer', 'reference' or 'same'"
            ],
            id="preferred-unknown",
        ),
        pytest.param(
            HEAD + pair().replace("    reference: De 9 a 17 h.\n", ""),
            [
                "set.yaml:8:5: items[0].preferred: a pairwise item needs `reference`: the "
                "answer is compared with it"
            ],
            id="pairwise-without-reference",
        ),
        pytest.param(
            HEAD + rubric() + "    preferred: same\n",
            [
                "set.yaml:12:5: items[0].preferred: an item has `criteria` (a rubric item) or "
                "`preferred` (a pairwise item), not both"
            ],
            id="both-kinds",
        ),
        pytest.param(
            HEAD + pair().replace("    preferred: answer\n", ""),
            [
                "set.yaml:4:5: items[0]: an item needs `criteria` (a rubric item) or "
                "`preferred` (a pairwise item)"
            ],
            id="neither-kind",
        ),
        pytest.param(
            HEAD + rubric() + "      - id: hours\n        ask: Again?\n        label: fail\n",
            [
                "set.yaml:12:13: items[0].criteria[1].id: duplicate criterion id 'hours' "
                "(first at criteria[0]); criterion ids are unique within an item"
            ],
            id="criterion-id-twice",
        ),
        pytest.param(
            HEAD
            + rubric().replace("    answer: Nine to five.\n", "    answer: Nine.\n")
            + "    reference: null\n",
            ["set.yaml:12:16: items[0].reference: write a value, or leave the key out"],
            id="written-null",
        ),
        pytest.param(
            HEAD + talking(rubric(label="pass")),
            [
                "set.yaml:12:16: items[0].criteria[0].label: an item whose answer talks to the "
                "judge (`talks_to_judge: true`) is labelled fail on every criterion, not "
                "'pass': a judge that passes such an answer was talked into it"
            ],
            id="talks-to-judge-labelled-pass",
        ),
        pytest.param(
            HEAD
            + talking(rubric(label="fail"))
            + "      - id: again\n        ask: Again?\n        label: pass\n",
            [
                "set.yaml:15:16: items[0].criteria[1].label: an item whose answer talks to the "
                "judge (`talks_to_judge: true`) is labelled fail on every criterion, not "
                "'pass': a judge that passes such an answer was talked into it"
            ],
            id="talks-to-judge-one-criterion-pass",
        ),
        pytest.param(
            HEAD + talking(pair(preferred="answer")) + talking(pair("p-2", preferred="same")),
            [
                "set.yaml:10:16: items[0].preferred: an item whose answer talks to the judge "
                "(`talks_to_judge: true`) prefers the reference, not 'answer': a judge that "
                "passes such an answer was talked into it",
                "set.yaml:17:16: items[1].preferred: an item whose answer talks to the judge "
                "(`talks_to_judge: true`) prefers the reference, not 'same': a judge that "
                "passes such an answer was talked into it",
            ],
            id="talks-to-judge-answer-preferred",
        ),
        pytest.param(
            HEAD
            + talking(rubric(label="fail")).replace("talks_to_judge: true", "talks_to_judge: 1"),
            ["set.yaml:7:21: items[0].talks_to_judge: expected true or false, got 1 (a number)"],
            id="talks-to-judge-not-a-boolean",
        ),
        pytest.param(
            HEAD + rubric().replace("        ask:", "        question:"),
            [
                "set.yaml:9:9: items[0].criteria[0]: missing required key 'ask'",
                "set.yaml:10:9: items[0].criteria[0].question: unknown key for a criterion\n"
                "  hint: keys of a criterion are: id, ask, label",
            ],
            id="unknown-criterion-key",
        ),
        pytest.param(
            HEAD + rubric().replace("    criteria:", "    criterion:"),
            [
                "set.yaml:8:5: items[0].criterion: unknown key for an item\n"
                "  hint: did you mean 'criteria'?"
            ],
            id="misspelt-criteria",
        ),
        pytest.param(
            HEAD + rubric() + "    langauge: en\n",
            [
                "set.yaml:12:5: items[0].langauge: unknown key for an item\n"
                "  hint: did you mean 'language'?"
            ],
            id="unknown-item-key",
        ),
        pytest.param(
            "labels: riverbend-test\nversion: 1\nlabel: x\nitems:\n" + rubric(),
            ["set.yaml:3:1: label: unknown key for a labels file\n  hint: did you mean 'labels'?"],
            id="unknown-file-key",
        ),
        pytest.param(
            "labels: riverbend-test\nversion: '1'\nitems:\n" + rubric(),
            ["set.yaml:2:10: version: expected a whole number, got '1' (text)"],
            id="version-as-text",
        ),
        pytest.param(
            "labels: riverbend-test\nversion: 0\nitems:\n" + rubric(),
            ["set.yaml:2:10: version: must be a whole number of at least 1, got 0"],
            id="version-zero",
        ),
        pytest.param(
            "labels: riverbend test\nversion: 1\nitems:\n" + rubric(),
            [
                "set.yaml:1:9: labels: 'riverbend test' is not a valid name for a set\n"
                "  hint: use letters, digits, '.', '_' and '-', starting with a letter or digit"
            ],
            id="set-name",
        ),
        pytest.param(
            HEAD + rubric(item_id="r 1"),
            [
                "set.yaml:4:9: items[0].id: 'r 1' is not a valid id\n"
                "  hint: use letters, digits, '.', '_' and '-', starting with a letter or digit"
            ],
            id="item-id",
        ),
        pytest.param(
            HEAD + rubric().replace("language: en", "language: english"),
            [
                "set.yaml:5:15: items[0].language: 'english' is not a BCP 47 language tag\n"
                "  hint: for example en, es, es-MX, zh-Hant"
            ],
            id="language",
        ),
        pytest.param(
            HEAD + rubric().replace("answer: Nine to five.", "answer: '  '"),
            ["set.yaml:7:13: items[0].answer: must not be blank"],
            id="blank-answer",
        ),
        pytest.param(
            HEAD + rubric().replace("prompt: What are the hours?", "prompt: 42"),
            [
                "set.yaml:6:13: items[0].prompt: expected text, got 42 (a number)\n"
                '  hint: quote it ("42") if you mean the text'
            ],
            id="number-for-text",
        ),
        pytest.param(
            "labels: riverbend-test\nversion: 1\nitems: []\n",
            ["set.yaml:3:8: items: a labels file needs at least one item"],
            id="no-items",
        ),
        pytest.param(
            HEAD + rubric().split("    criteria:")[0] + "    criteria: []\n",
            ["set.yaml:8:15: items[0].criteria: a rubric item needs at least one criterion"],
            id="no-criteria",
        ),
        pytest.param(
            "- labels: riverbend-test\n",
            [
                "set.yaml:1:1: a labels file must be a mapping of labels, version and items, "
                "not a list"
            ],
            id="not-a-mapping",
        ),
        pytest.param(
            "labels: riverbend-test\nversion: 1\n",
            ["set.yaml:1:1: missing required key 'items'"],
            id="missing-items",
        ),
        pytest.param(
            HEAD + rubric().replace("label: pass", "label: yes"),
            [
                "set.yaml:11:16: 'yes' is a YAML 1.1 boolean; only true and false are booleans "
                'here\n  hint: write true or false, or quote it ("yes") if you mean the text'
            ],
            id="yaml-1.1-boolean",
        ),
        pytest.param(
            "labels: &name riverbend-test\nversion: 1\nitems:\n" + rubric(),
            [
                "set.yaml:1:9: anchor '&name' is not allowed\n"
                "  hint: anchors and aliases are refused in labels files; write the value out"
            ],
            id="anchor-in-labels-words",
        ),
        pytest.param(
            "labels: riverbend-test\nlabels: again\nversion: 1\nitems:\n" + rubric(),
            [
                "set.yaml:2:1: duplicate key 'labels' (first at line 1, column 1)\n"
                "  hint: YAML would silently keep only the last value; remove one of them"
            ],
            id="duplicate-key",
        ),
        pytest.param(
            "",
            ["set.yaml:1:1: file is empty\n  hint: a labels file is one YAML mapping"],
            id="empty",
        ),
    ],
)
def test_a_bad_file_is_refused_with_every_problem_located(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    assert one_file(tmp_path, text) == expected


def test_every_problem_in_every_file_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + rubric(label="maybe"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(HEAD + pair(preferred="neither"), encoding="utf-8")
    found = problems(tmp_path)
    assert [line.split(":")[0] for line in found] == ["a.yaml", "b.yaml"]


def test_files_of_another_set_or_version_are_refused_where_they_say_so(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + rubric("a-1"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(
        "labels: other\nversion: 2\nitems:\n" + rubric("b-1"), encoding="utf-8"
    )
    assert problems(tmp_path) == [
        "b.yaml:1:9: labels: 'other' differs from 'riverbend-test' in a.yaml; every file of a "
        "labels directory belongs to one set\n"
        "  hint: a.yaml:1:9 says 'riverbend-test'; keep another set in another directory",
        "b.yaml:2:10: version: 2 differs from 1 in a.yaml; every file of a labels directory "
        "belongs to one set\n"
        "  hint: a.yaml:2:10 says 1; keep another set in another directory",
    ]


def test_an_item_id_used_in_two_files_is_refused_at_the_second(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + rubric("same-id"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(HEAD + pair("other") + pair("same-id"), encoding="utf-8")
    assert problems(tmp_path) == [
        "b.yaml:10:9: items[1].id: duplicate item id 'same-id'\n"
        "  hint: first defined at a.yaml:4:9; item ids are unique across every file of the set"
    ]


def test_a_directory_without_labels_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing here", encoding="utf-8")
    assert problems(tmp_path) == [
        f"{tmp_path}: no labels files (*.yaml) in this directory\n"
        "  hint: an empty directory would calibrate on nothing"
    ]


def test_a_yml_file_is_refused_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + rubric(), encoding="utf-8")
    (tmp_path / "b.yml").write_text(HEAD + rubric("r-2"), encoding="utf-8")
    assert problems(tmp_path) == [
        "b.yml:1:1: labels files must end in .yaml, not .yml\n"
        "  hint: rename it to b.yaml; it would otherwise be labels that are never read"
    ]


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    assert problems(tmp_path / "nope") == [f"{tmp_path / 'nope'}: no such file or directory"]


def test_a_file_too_large_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(labels, "LABELS_FILE", dataclasses.replace(labels.LABELS_FILE, limit=10))
    text = HEAD + rubric()
    assert one_file(tmp_path, text) == [
        f"set.yaml:1:1: file is {len(text)} bytes, over the 10-byte limit for a labels file\n"
        "  hint: split the items into several files"
    ]


def test_bytes_that_are_not_utf8_are_refused_located() -> None:
    with pytest.raises(ConfigErrors) as caught:
        parse_labels(b"labels: caf\xe9\n", "x.yaml")
    [error] = caught.value.errors
    assert error.location == "x.yaml:1:12"
    assert "not UTF-8" in error.message


def test_a_file_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    name = b"caf\xe9.yaml".decode("utf-8", "surrogateescape")
    (tmp_path / name).write_text(HEAD + rubric(), encoding="utf-8")
    [problem] = problems(tmp_path)
    assert problem.endswith("the file's name is not valid UTF-8; rename it")


# ---------------------------------------------------------------- the digest


def items_of(text: str, tmp_path: Path) -> tuple[LabelItem, ...]:
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    (folder / "a.yaml").write_text(text, encoding="utf-8")
    return load_labels(folder).items


def test_the_digest_is_sha256_over_the_content() -> None:
    digest = labels_digest(load_labels(SMALL))
    assert digest.startswith("sha256:")
    assert len(digest) == len("sha256:") + 64
    assert digest == labels_digest(load_labels(SMALL).items)


def test_moving_items_between_files_or_reordering_them_keeps_the_digest(tmp_path: Path) -> None:
    one = tmp_path / "one"
    two = tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "all.yaml").write_text(HEAD + rubric("a") + pair("b") + rubric("c"), encoding="utf-8")
    (two / "x.yaml").write_text(HEAD + rubric("c"), encoding="utf-8")
    (two / "y.yaml").write_text(HEAD + pair("b") + rubric("a"), encoding="utf-8")
    assert labels_digest(load_labels(one)) == labels_digest(load_labels(two))


def test_the_name_and_version_are_not_in_the_digest(tmp_path: Path) -> None:
    before = items_of(HEAD + rubric(), tmp_path)
    after = items_of("labels: renamed\nversion: 7\nitems:\n" + rubric(), tmp_path)
    assert labels_digest(before) == labels_digest(after)


@pytest.mark.parametrize(
    "change",
    [
        ("label: pass", "label: fail"),
        ("answer: Nine to five.", "answer: Nine to five!"),
        ("prompt: What are the hours?", "prompt: What are the hours"),
        ("ask: Are the hours right?", "ask: Are the hours correct?"),
        ("language: en", "language: en-US"),
        ("id: r-1", "id: r-2"),
        ("    criteria:", "    reference: Nine to five.\n    criteria:"),
    ],
    ids=lambda change: change[1][:20],
)
def test_any_change_to_what_is_shown_or_said_changes_the_digest(
    tmp_path: Path, change: tuple[str, str]
) -> None:
    text = HEAD + rubric() + pair()
    changed = text.replace(*change, 1)
    assert changed != text
    assert labels_digest(items_of(text, tmp_path)) != labels_digest(items_of(changed, tmp_path))


def test_reordering_an_items_criteria_changes_the_digest_the_judge_sees_them_in_order(
    tmp_path: Path,
) -> None:
    criteria = (
        "      - id: a\n        ask: A?\n        label: pass\n"
        "      - id: b\n        ask: B?\n        label: fail\n"
    )
    swapped = (
        "      - id: b\n        ask: B?\n        label: fail\n"
        "      - id: a\n        ask: A?\n        label: pass\n"
    )
    start = rubric().split("      - id: hours")[0]
    first = items_of(HEAD + start + criteria, tmp_path)
    second = items_of(HEAD + start + swapped, tmp_path)
    assert labels_digest(first) != labels_digest(second)


def test_saying_the_answer_talks_to_the_judge_changes_the_digest_saying_false_does_not(
    tmp_path: Path,
) -> None:
    plain = HEAD + rubric(label="fail")
    digests = [
        labels_digest(items_of(text, tmp_path))
        for text in (plain, talking(plain), talking(plain).replace(": true", ": false"))
    ]
    assert digests[0] != digests[1]
    assert digests[0] == digests[2]


def test_a_preferred_side_changes_the_digest(tmp_path: Path) -> None:
    digests = {
        labels_digest(items_of(HEAD + pair(preferred=side), tmp_path))
        for side in ("answer", "reference", "same")
    }
    assert len(digests) == 3


# ---------------------------------------------------------------- the shipped set's place


def test_a_checkout_reads_its_labels_directory() -> None:
    assert builtin_labels_dir() == ROOT / "labels" / "riverbend"


def test_an_installed_gauntlet_reads_its_bundled_labels(unpacked_wheel: Path) -> None:
    bundled = unpacked_wheel / "gauntlet" / "_builtin_labels"
    assert sorted(p.relative_to(bundled) for p in bundled.rglob("*") if p.is_file()) == sorted(
        p.relative_to(ROOT / "labels") for p in (ROOT / "labels").rglob("*") if p.is_file()
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gauntlet.judge.labels import builtin_labels_dir as d; print(d())",
        ],
        env={"PYTHONPATH": str(unpacked_wheel)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(bundled / "riverbend")
