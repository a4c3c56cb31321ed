"""Writing YAML that the strict reader (`gauntlet.cases.yaml_nodes`) reads back as written.

PyYAML's safe dumper quotes a string only when YAML 1.1 would read it as something else; the
strict reader resolves plain scalars by the YAML 1.2 core schema and refuses some of them, so
text such as `0o17` (an octal number there) or `no` (refused there) must be quoted as well.
A string is double-quoted when the strict reader would not read it back plain as itself, or
when it holds a character other than a space that is a control, format or separator (a plain
or single-quoted scalar folds line breaks and reads NEL and the Unicode separators as breaks;
double quotes escape them all). No anchors or aliases are ever written: case files refuse them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import yaml

from gauntlet.cases.file_words import CASE_FILE_WORDS, FileWords
from gauntlet.cases.yaml_nodes import read_document, resolve_plain
from gauntlet.errors import ConfigErrors


class _Dumper(yaml.SafeDumper):
    """The safe dumper, writing a value used twice out twice: strict files refuse aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    quoted = resolve_plain(text) != text or any(
        unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in text
    )
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"' if quoted else None)


_Dumper.add_representer(str, _text)


def yaml_text(data: Any, source: str, *, words: FileWords = CASE_FILE_WORDS) -> str:
    """`data` (JSON-shaped: dicts, lists, text, numbers, booleans, None) as block YAML.

    Keys keep their order. The text is read back by the strict reader before it is returned.

    Raises:
        ValueError: the text would not read back as `data` (a value YAML cannot hold as
            written, such as a NaN); nothing is returned that a reader would see otherwise.
    """
    text = yaml.dump(
        data,
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        width=100,
        default_flow_style=False,
    )
    try:
        same = read_document(text, source, words).data == data
    except ConfigErrors:
        same = False
    if not same:
        raise ValueError(f"{source}: the YAML written would not read back as written")
    return text
