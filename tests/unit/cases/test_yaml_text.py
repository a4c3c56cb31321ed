"""Writing YAML the strict reader reads back as written."""

from __future__ import annotations

import pytest

from gauntlet.cases.yaml_nodes import read_document
from gauntlet.cases.yaml_text import yaml_text


@pytest.mark.parametrize(
    "text", ["0o17", "no", "Off", "1.0", "+1", ".inf", "007", "null", "", "x\u2028y", "a\x85b"]
)
def test_text_the_strict_reader_would_read_otherwise_is_quoted(text: str) -> None:
    # Trap: PyYAML quotes only what YAML 1.1 reads otherwise; `0o17` is an octal number to
    # the YAML 1.2 reader and `no` is refused there, so written plain they come back changed.
    written = yaml_text({"prompt": text}, "t.yaml")
    assert read_document(written, "t.yaml").data == {"prompt": text}


def test_a_value_yaml_cannot_hold_as_written_is_refused_not_written() -> None:
    # Trap: a writer that returns whatever it dumped hands back a file that reads otherwise.
    with pytest.raises(ValueError, match="read back"):
        yaml_text({"threshold": float("nan")}, "t.yaml")
