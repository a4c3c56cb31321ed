"""`embedder_for`: `--embedder SPEC` names the builtin, the toy (with defects) or a file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gauntlet.errors import ConfigErrors, UsageError
from gauntlet.redact import Redactor
from gauntlet.semantic.builtin import BuiltinEmbedder
from gauntlet.semantic.load import embedder_for
from gauntlet.semantic.remote import RemoteEmbedder
from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder

EMBEDDER_FILE = (
    "version: 1\nkind: openai-embeddings\nurl: http://127.0.0.1:9/v1\nmodel: m\n"
    "api_key_env: GAUNTLET_TEST_EMBED_KEY\n"
)
KEY = "sk-load-test-7c1d"


def test_builtin_names_the_builtin() -> None:
    # Trap: `builtin` read as a file name.
    assert type(embedder_for("builtin", redactor=Redactor())) is BuiltinEmbedder


@pytest.mark.parametrize(
    ("spec", "defects"),
    [
        ("toy", set()),
        ("toy:negation_blind", {EmbedderDefect.NEGATION_BLIND}),
        ("toy:english_only, similar_everything", {"english_only", "similar_everything"}),
        ("toy:negation_blind,negation_blind", {EmbedderDefect.NEGATION_BLIND}),
    ],
)
def test_toy_names_the_toy_with_its_defects(spec: str, defects: set[str]) -> None:
    # Trap: defects after the first dropped, or a space after a comma read as part of a name.
    embedder = embedder_for(spec, redactor=Redactor())
    assert isinstance(embedder, ToyEmbedder)
    assert embedder.defects == defects


@pytest.mark.parametrize("spec", ["toy:negation-blind", "toy:bogus", "toy:english_only,loud"])
def test_an_unknown_toy_defect_is_a_usage_error_naming_the_known_ones(spec: str) -> None:
    # Trap: an unknown defect ignored, so "the toy with a defect" ran healthy and passed.
    with pytest.raises(UsageError) as raised:
        embedder_for(spec, redactor=Redactor())
    said = str(raised.value)
    assert "no toy embedder defect" in said
    assert all(defect.value in said for defect in EmbedderDefect)


def test_a_file_of_kind_openai_embeddings_is_a_remote_embedder_its_secrets_taught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the file's key read but not taught to the redactor, so an error body echoing it
    # printed it.
    path = tmp_path / "embedder.yaml"
    path.write_text(EMBEDDER_FILE, encoding="utf-8")
    monkeypatch.setenv("GAUNTLET_TEST_EMBED_KEY", KEY)
    redactor = Redactor()
    embedder = embedder_for(str(path), redactor=redactor)
    assert isinstance(embedder, RemoteEmbedder)
    assert KEY not in redactor.text(f"the server said {KEY}")
    asyncio.run(embedder.aclose())


def test_a_target_file_of_another_kind_is_a_located_config_error(tmp_path: Path) -> None:
    # Trap: a chat target's file accepted as an embedder and asked for vectors.
    path = tmp_path / "chat.yaml"
    path.write_text("version: 1\nkind: gauntlet\nurl: http://127.0.0.1:9/ask\n", encoding="utf-8")
    with pytest.raises(ConfigErrors) as raised:
        embedder_for(str(path), redactor=Redactor())
    (error,) = raised.value.errors
    assert (error.path, error.line) == (str(path), 2)
    assert "not an embedder" in str(error)


@pytest.mark.parametrize("name", ["missing.yaml", "a-directory", "builtin.yaml"])
def test_a_file_that_cannot_be_read_is_a_located_config_error(tmp_path: Path, name: str) -> None:
    # Trap: a FileNotFoundError or IsADirectoryError traceback, or a typo of `builtin`
    # silently falling back to some embedder.
    (tmp_path / "a-directory").mkdir()
    path = tmp_path / name
    with pytest.raises(ConfigErrors) as raised:
        embedder_for(str(path), redactor=Redactor())
    (error,) = raised.value.errors
    assert error.path == str(path)


def test_an_unreadable_file_names_builtin_and_toy_in_its_hint(tmp_path: Path) -> None:
    # Trap: `--embedder biultin` told only "no such file", not what else it could have said.
    path = tmp_path / "biultin"
    with pytest.raises(ConfigErrors) as raised:
        embedder_for(str(path), redactor=Redactor())
    (error,) = raised.value.errors
    assert "builtin" in str(error.hint)
