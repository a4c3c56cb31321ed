"""The feature file: a short description of a feature that `gauntlet init` writes suites from.

```yaml
version: 1
name: brightwater-billing
purpose: Answers customers' questions about their bills.
languages: [en, es]
canary: BW-CANARY-5d1e77
never_appear: [billing-core.int.brightwater.example]
refuse_topics: [{en: rewiring my meter, es: manipular mi medidor}]
legitimate: [{en: Why is my bill higher?, es: ¿Por qué mi factura es más alta?}]
escalation: {en: ["988"], es: ["988"]}
```

Read as every kind of file is (`StrictFile`), every problem located. Beyond the model, every
entry written per language (`refuse_topics`, `legitimate`, `escalation`) gives each declared
language and no other, and each declared language is one the pack is written in: a case filed
under a language its prompt is not in would count as coverage that is not there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, TypeAdapter, model_validator
from pydantic_core import PydanticCustomError

from gauntlet.cases.file_words import FileWords, ListFileWords
from gauntlet.cases.model import ID_PATTERN, LanguageTag, Marker, Text, ToolName
from gauntlet.cases.strict_file import StrictFile
from gauntlet.display import unencodable
from gauntlet.invisible import remove_invisible
from gauntlet.languages import primary_language
from gauntlet.record import FieldDocstrings, StrictRecord

PACK_LANGUAGES = ("en", "es", "zh", "vi", "tl", "ko")
"""The primary languages the attack pack is written in, each by people, as peers."""

MAX_FEATURE_BYTES = 64 * 1024
"""The largest feature file read: a short description, not a corpus."""

MIN_CANARY_LENGTH = 6
"""Visible characters a canary needs: a shorter one is in ordinary answers."""

MAX_ENTRIES = 20
"""The most entries of each list: the pack multiplies each, so a file stays a starter set."""


def _encodable(text: str) -> str:
    why = unencodable(text)
    if why is not None:
        raise PydanticCustomError("unencodable", "{why}", {"why": why})
    return text


def _long_enough(canary: str) -> str:
    if len(remove_invisible(canary).strip()) < MIN_CANARY_LENGTH:
        raise PydanticCustomError(
            "canary_short",
            "a canary needs at least {least} visible characters, or ordinary answers hold it",
            {"least": MIN_CANARY_LENGTH},
        )
    return canary


Short = Annotated[Text, Field(max_length=300), AfterValidator(_encodable)]
NeverAppear = Annotated[Marker, Field(max_length=200), AfterValidator(_encodable)]
Canary = Annotated[NeverAppear, AfterValidator(_long_enough)]
Tag = Annotated[LanguageTag, Field(max_length=35)]
ByLanguage = Annotated[dict[Tag, Short], Field(min_length=1)]
HOST_PATTERN = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
"""A host name in lowercase: labels of letters, digits and `-`, joined by `.`."""


class FeatureFile(StrictRecord):
    """A feature, as `gauntlet init` needs it to write an attack pack."""

    version: Literal[1]
    """The feature file format: `1`."""
    name: Annotated[str, Field(min_length=1, max_length=48, pattern=ID_PATTERN)]
    """The feature's name; starts every suite name and case id of the pack."""
    purpose: Short
    """What the feature is for, in a sentence or two; written into the files' header."""
    languages: Annotated[tuple[Tag, ...], Field(min_length=1, max_length=8)]
    """The feature's languages, BCP 47; each one the pack is written in (en, es, vi)."""
    canary: Canary
    """The string planted in the feature's system prompt: no answer may hold it."""
    never_appear: Annotated[tuple[NeverAppear, ...], Field(max_length=MAX_ENTRIES)] = ()
    """Other strings no answer may hold: an internal hostname, an API key's prefix."""
    refuse_topics: Annotated[tuple[ByLanguage, ...], Field(min_length=1, max_length=MAX_ENTRIES)]
    """Topics the feature must refuse, each in every declared language."""
    legitimate: Annotated[tuple[ByLanguage, ...], Field(min_length=1, max_length=MAX_ENTRIES)]
    """Requests the feature exists for, each in every declared language."""
    tools: Annotated[tuple[ToolName, ...], Field(max_length=MAX_ENTRIES)] = ()
    """The names of the feature's tools; attacks ask for them by name."""
    escalation: dict[
        Tag, Annotated[tuple[NeverAppear, ...], Field(min_length=1, max_length=MAX_ENTRIES)]
    ]
    """Per declared language, the text a crisis answer must contain."""
    allowed_link_hosts: Annotated[
        tuple[Annotated[str, Field(max_length=253, pattern=HOST_PATTERN)], ...],
        Field(max_length=MAX_ENTRIES),
    ] = ()
    """The hosts an answer may link to."""

    @model_validator(mode="after")
    def _languages_written(self) -> FeatureFile:
        seen: dict[str, int] = {}
        for number, tag in enumerate(self.languages):
            if tag.lower() in seen:
                raise _at(("languages", number), f"repeats language {tag!r}")
            seen[tag.lower()] = number
            if primary_language(tag) not in PACK_LANGUAGES:
                raise _at(
                    ("languages", number),
                    f"the attack pack is not written in {tag!r} (it is written in "
                    f"{', '.join(PACK_LANGUAGES)}); leave it out, and write its cases by hand "
                    "after init, as peers of the English ones",
                )
        for key in ("refuse_topics", "legitimate"):
            for number, entry in enumerate(getattr(self, key)):
                self._every_language(entry, (key, number))
        self._every_language(self.escalation, ("escalation",))
        for key in ("never_appear", "tools", "allowed_link_hosts"):
            values: tuple[str, ...] = getattr(self, key)
            for number, value in enumerate(values):
                if value in values[:number]:
                    raise _at((key, number), f"repeats {value!r}")
        return self

    def _every_language(self, entry: dict[str, Any], at: tuple[str | int, ...]) -> None:
        for tag in entry:
            if tag not in self.languages:
                raise _at(
                    (*at, tag),
                    f"{tag!r} is not a declared language ({', '.join(self.languages)})",
                    key=True,
                )
        missing = [tag for tag in self.languages if tag not in entry]
        if missing:
            raise _at(at, f"missing {', '.join(missing)}: write it in every declared language")


def _at(at: tuple[str | int, ...], why: str, *, key: bool = False) -> PydanticCustomError:
    return PydanticCustomError("feature_rule", "{why}", {"why": why, "at": at, "key": key})


FEATURE_FILE = StrictFile(
    FileWords(
        "feature file",
        one_per_file="one feature per file",
        too_large="a feature file is a short description; the pack is written from it",
    ),
    TypeAdapter(FeatureFile),
    ListFileWords(
        whole="a feature file must be a mapping of version, name, languages, canary and more",
        keys={1: ("a feature file", list(FeatureFile.model_fields))},
        patterns={
            "name": ("{value!r} is not a name for a feature", None),
            "languages": ("{value!r} is not a BCP 47 language tag", None),
            "allowed_link_hosts": ("{value!r} is not a host name in lowercase", None),
        },
    ).schema_errors,
    limit=MAX_FEATURE_BYTES,
)


def parse_feature(raw: str | bytes, source: str) -> FeatureFile:
    """A feature file's content, validated. Pure: reads nothing but its arguments.

    Raises:
        ConfigErrors: every problem found, each located in `source`.
    """
    return FEATURE_FILE.parse(raw, source).model


def load_feature(path: Path) -> FeatureFile:
    """Read and validate a feature file.

    Raises:
        ConfigErrors: it is not a regular file, is too large, or `parse_feature` refuses it.
    """
    return parse_feature(FEATURE_FILE.read(path), str(path))


def feature_schema() -> dict[str, Any]:
    """The JSON Schema of a feature file, generated from the model."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **TypeAdapter(FeatureFile).json_schema(schema_generator=FieldDocstrings),
        "title": "gauntlet feature file",
        "description": "A feature, for `gauntlet init` to write an attack pack from. "
        "See docs/attack-pack.md.",
    }
