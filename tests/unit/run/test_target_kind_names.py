"""A results file names its target's kind as the target file does; older files are read so."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from gauntlet.canonical import canonical_json
from gauntlet.errors import ResultsError
from gauntlet.run.custody import PREFIX, SIGNING_KEY
from gauntlet.run.results import RESULTS_SCHEMA_VERSION
from gauntlet.run.results_file import read_results

from ...evidence_fixtures import before_disclosure, clean

LAST_OLD_NAMES = 8
"""The last results format whose `http` meant the native contract."""


def _file(tmp_path: Path, version: int, kind: str, key: str | None = None) -> Path:
    """A run as a format-`version` file recording `kind`, signed under `key` if given."""
    run = clean() if version >= 6 else before_disclosure()
    data: dict[str, Any] = run.model_dump(mode="json", exclude={"signature"})
    data["schema_version"] = version
    data["target"]["kind"] = kind
    if key is not None:  # signed as the gauntlet that wrote the format did: over its words
        mac = hmac.new(key.encode(), canonical_json(data), hashlib.sha256).hexdigest()
        data["signature"] = PREFIX + mac
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("http", "gauntlet"),
        ("http-template", "http"),
        ("openai-chat", "openai-chat"),
        ("toy", "toy"),
        ("callable", "callable"),
    ],
)
@pytest.mark.parametrize("version", [5, 7, LAST_OLD_NAMES])
def test_an_old_results_file_reads_its_target_kind_under_todays_name(
    tmp_path: Path, version: int, written: str, read: str
) -> None:
    # Trap: an old file's "http" (the native contract) read as today's "http" (a target file
    # of kind http, any JSON API): the same run would say it reached a different target.
    results = read_results(_file(tmp_path, version, written))
    assert (results.schema_version, results.target.kind) == (version, read)


def test_todays_format_refuses_the_retired_kind_name(tmp_path: Path) -> None:
    # Trap: "http-template" still taken in the format that no longer writes it.
    with pytest.raises(ResultsError, match=r"target\.kind"):
        read_results(_file(tmp_path, RESULTS_SCHEMA_VERSION, "http-template"))


def test_the_format_that_renamed_the_kinds_is_the_one_after_the_last_old_one() -> None:
    # 9 renamed the kinds; 10 (variant cases) kept today's names.
    assert LAST_OLD_NAMES + 1 == 9 <= RESULTS_SCHEMA_VERSION


def test_an_old_signed_file_keeps_its_custody_when_its_kind_is_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the signature checked over the renamed kind, so every signed file an older
    # gauntlet wrote for a native or http target reads as tampered with.
    monkeypatch.setenv(SIGNING_KEY, "k-for-the-test")
    results = read_results(_file(tmp_path, LAST_OLD_NAMES, "http", key="k-for-the-test"))
    assert results.target.kind == "gauntlet"
    # ...and an edit is still caught: the file signed as "http-template", then relabelled.
    path = _file(tmp_path, LAST_OLD_NAMES, "http-template", key="k-for-the-test")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["target"]["kind"] = "http"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultsError, match="signature does not match"):
        read_results(path)
