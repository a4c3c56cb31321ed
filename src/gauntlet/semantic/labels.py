"""The similarity labels: answer pairs people marked as the same meaning or not, read strictly.

A labels directory holds `*.yaml` files of one set (the same `version` in each). Each item
pairs an `expected` (gold) answer with an `answer`, says whether they mean the same (`same`),
and names the kind of pair (`kind`): `reworded` (the same meaning in other words) is the only
kind that is `same: true`; `negation`, `number`, `entity`, `template` (the same template with
another fact) and `other_language` (the right meaning in another language, which a golden
answer must not pass) are all `same: false`, and a `kind` that contradicts `same` is refused.
Each language needs `MIN_ITEMS` items, at least `MIN_CLASS` of each class, or calibration
could not accept it whatever the embedder did. Every problem in every file, and across them,
is reported at once, each as `path:line:column`.

`similarity_labels_digest` covers the items' content in order of id, as the judge's labels
digest does, so moving an item to another file keeps it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator
from pydantic_core import PydanticCustomError

from gauntlet.cases.file_words import (
    IDENTIFIER_HINT,
    DirectoryWords,
    FileWords,
    ListFileWords,
    repeated_ids,
)
from gauntlet.cases.model import Identifier, LanguageTag, Text
from gauntlet.cases.strict_file import StrictFile
from gauntlet.cases.yaml_nodes import MAX_FILE_BYTES, Mark
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError
from gauntlet.judge.labels import labels_root
from gauntlet.languages import primary_language
from gauntlet.record import StrictRecord
from gauntlet.words import plural

PairKind = Literal["reworded", "negation", "number", "entity", "template", "other_language"]
"""What a labelled pair is: the same meaning reworded, or how its meaning differs."""
SAME_KIND: PairKind = "reworded"
"""The one kind of pair that means the same."""
MIN_ITEMS = 60
"""Items needed per language: fewer, and precision's 95% interval spans more than ±0.1."""
MIN_CLASS = 20
"""Items needed of each class (same, different) per language."""


class SimilarityLabel(StrictRecord):
    """One labelled pair: a gold answer, an answer, and whether they mean the same."""

    id: Identifier
    """Unique across every file of the set."""
    language: LanguageTag
    """BCP 47 tag of the expected answer's language; figures are kept per primary subtag."""
    expected: Text
    """The gold answer."""
    answer: Text
    """The answer compared with it."""
    same: bool
    """Whether a person reads `answer` as saying what `expected` says, in its language."""
    kind: PairKind
    """`reworded` (same: true), or how the meaning differs (same: false)."""
    note: Text | None = None
    """Why the pair is hard, or anything a reader should know."""

    @model_validator(mode="after")
    def _kind_agrees(self) -> SimilarityLabel:
        if self.same != (self.kind == SAME_KIND):
            raise PydanticCustomError(
                "kind_contradicts_same",
                "kind '{kind}' contradicts same: {same}; only a reworded pair means the same",
                {"at": ("kind",), "kind": self.kind, "same": str(self.same).lower()},
            )
        return self


class SimilarityLabelsFile(StrictRecord):
    """One similarity labels file."""

    version: Annotated[int, Field(ge=1)]
    """The set's version, the same in every file of the set; bump it when the items change."""
    items: tuple[SimilarityLabel, ...] = Field(min_length=1)
    """The labelled pairs."""


@dataclass(frozen=True)
class LoadedSimilarityLabels:
    """One labels file as validated, and where its items' ids and languages are."""

    file: SimilarityLabelsFile
    source: str
    id_marks: tuple[Mark, ...]
    language_marks: tuple[Mark, ...]
    version_mark: Mark


@dataclass(frozen=True)
class SimilarityLabelSet:
    """Every file of one set of similarity labels, in order of path."""

    files: tuple[LoadedSimilarityLabels, ...]
    source: str
    """The directory (or file) the user named."""

    @property
    def version(self) -> int:
        """The set's version."""
        return self.files[0].file.version

    @property
    def items(self) -> tuple[SimilarityLabel, ...]:
        """Every item, file by file, each file's in its order."""
        return tuple(item for loaded in self.files for item in loaded.file.items)


def builtin_similarity_labels_dir() -> Path:
    """The similarity labels gauntlet ships: 60 pairs in each of en, es, zh, ko, vi and tl."""
    return labels_root() / "similarity"


def similarity_labels_digest(labels: SimilarityLabelSet | Iterable[SimilarityLabel]) -> str:
    """`sha256:` over the items' content, in order of id (see the module's doc)."""
    items = labels.items if isinstance(labels, SimilarityLabelSet) else tuple(labels)
    canonical = [item.model_dump(mode="json") for item in sorted(items, key=lambda i: i.id)]
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def similarity_labels_schema() -> dict[str, Any]:
    """The JSON Schema of a similarity labels file, for editors."""
    schema = SimilarityLabelsFile.model_json_schema()
    schema["title"] = "gauntlet similarity labels file"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


# ------------------------------------------------------------------ loading


def parse_similarity_labels(raw: str | bytes, source: str) -> LoadedSimilarityLabels:
    """Parse and validate one labels file's content. Pure: reads nothing but its arguments.

    Raises:
        ConfigErrors: every problem found, each located.
    """
    file, document = SIMILARITY_LABELS_FILE.parse(raw, source)
    count = range(len(file.items))
    return LoadedSimilarityLabels(
        file=file,
        source=source,
        id_marks=tuple(document.mark_for(("items", index, "id")) for index in count),
        language_marks=tuple(document.mark_for(("items", index, "language")) for index in count),
        version_mark=document.mark_for(("version",)),
    )


def load_similarity_labels(path: str | os.PathLike[str]) -> SimilarityLabelSet:
    """Load every `*.yaml` file at or under `path` as one set of similarity labels.

    Raises:
        ConfigErrors: every problem in every file and across files, each located: a file
            that does not load, files of different versions, an item id used twice, a
            language with too few items of a class.
    """
    root = Path(path)
    errors: list[ConfigError] = []
    loaded: list[LoadedSimilarityLabels] = []
    for file in SIMILARITY_LABELS_FILE.find([root], errors):
        try:
            loaded.append(parse_similarity_labels(SIMILARITY_LABELS_FILE.read(file), str(file)))
        except ConfigErrors as exc:
            errors.extend(exc.errors)
    if not errors:
        errors.extend(_across_files(loaded))
    if errors:
        raise ConfigErrors(errors)
    return SimilarityLabelSet(tuple(loaded), str(root))


def _across_files(loaded: Sequence[LoadedSimilarityLabels]) -> list[ConfigError]:
    """One version, ids unique across files, and enough items of each class per language."""
    errors: list[ConfigError] = []
    first = loaded[0]
    ids: dict[str, tuple[str, Mark]] = {}
    counts: dict[str, list[int]] = {}
    where: dict[str, tuple[str, Mark]] = {}
    for labels in loaded:
        if labels.file.version != first.file.version:
            errors.append(
                ConfigSchemaError(
                    labels.source,
                    f"version: {labels.file.version} differs from {first.file.version} in "
                    f"{first.source}; every file of a labels directory belongs to one set",
                    line=labels.version_mark.line,
                    column=labels.version_mark.column,
                    hint="keep another set in another directory",
                )
            )
        errors += repeated_ids(
            labels.source,
            zip([item.id for item in labels.file.items], labels.id_marks, strict=True),
            ids,
            key="items",
            noun="item",
            rule="item ids are unique across every file of the set",
        )
        for item, mark in zip(labels.file.items, labels.language_marks, strict=True):
            language = primary_language(item.language)
            where.setdefault(language, (labels.source, mark))
            counts.setdefault(language, [0, 0])[0 if item.same else 1] += 1
    for language, (same, different) in sorted(counts.items()):
        if same + different >= MIN_ITEMS and min(same, different) >= MIN_CLASS:
            continue
        source, mark = where[language]
        errors.append(
            ConfigSchemaError(
                source,
                f"language {language!r} has {plural(same, 'same-meaning item')} and "
                f"{plural(different, 'different-meaning item')}; calibration needs at least "
                f"{MIN_ITEMS} items per language, {MIN_CLASS} of each",
                line=mark.line,
                column=mark.column,
                hint="write more items in this language, or leave it out of the set",
            )
        )
    return errors


# ------------------------------------------------------------------ schema error messages


def _own_rules(
    kind: str, field: str, where: str, value: Any, written: str | None
) -> tuple[str, str | None] | None:
    if kind == "too_short" and field == "items":
        return f"{where}: a labels file needs at least one item", None
    return None


def _what_is_left(
    kind: str, field: str, where: str, value: Any, written: str | None
) -> tuple[str, str | None] | None:
    if kind == "greater_than_equal":
        return f"{where}: must be a whole number of at least 1, got {value!r}", None
    return None


SIMILARITY_LABELS_FILE = StrictFile(
    FileWords(
        "similarity labels file",
        one_per_file="one labels document per file",
        too_large="split the items into several files",
        directory=DirectoryWords(
            never_read="labels that are never read",
            reads_nothing="calibrate on nothing",
            directory="labels directory",
            elsewhere="with its own --labels",
        ),
    ),
    TypeAdapter(SimilarityLabelsFile),
    ListFileWords(
        whole="a similarity labels file must be a mapping of version and items",
        keys={
            1: ("a similarity labels file", list(SimilarityLabelsFile.model_fields)),
            3: ("an item", list(SimilarityLabel.model_fields)),
        },
        patterns={
            "id": ("{value!r} is not a valid id", IDENTIFIER_HINT),
            "language": (
                "{value!r} is not a BCP 47 language tag",
                "for example en, es, es-MX, zh-Hant",
            ),
        },
        first=_own_rules,
        last=_what_is_left,
    ).schema_errors,
    limit=MAX_FILE_BYTES,
)
"""A similarity labels file: pairs of one set, read from the directory `--labels` names."""


__all__ = [
    "MIN_CLASS",
    "MIN_ITEMS",
    "SAME_KIND",
    "SIMILARITY_LABELS_FILE",
    "LoadedSimilarityLabels",
    "PairKind",
    "SimilarityLabel",
    "SimilarityLabelSet",
    "SimilarityLabelsFile",
    "builtin_similarity_labels_dir",
    "load_similarity_labels",
    "parse_similarity_labels",
    "similarity_labels_digest",
    "similarity_labels_schema",
]
