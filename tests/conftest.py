"""Shared test set-up: a clean environment and a deterministic hypothesis profile."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from .cli_helpers import run_cli, run_process

__all__ = ["run_cli", "run_process"]  # fixtures, shared by every test module

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
"""What the HTTP client reads from the environment, each in upper and in lower case."""


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no colour settings, terminal width or proxy from the machine that runs them.

    A proxy set where the tests run would stand between the client and every server the
    tests start on 127.0.0.1; a test that wants one sets it.
    """
    for name in ("FORCE_COLOR", "NO_COLOR", "COLUMNS", "LINES", "TERM", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-golden` rewrites the golden files from the current output."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ from what the code renders now",
    )


@pytest.fixture(scope="session")
def unpacked_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once per session and unpacked: what users install."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", out],
        cwd=Path(__file__).resolve().parents[1],
        check=True,
        capture_output=True,
    )
    [wheel] = out.glob("gauntlet_gate-*.whl")
    unpacked = out / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    return unpacked


@pytest.fixture(scope="session")
def opened_toy_embedder() -> tuple[Any, Any]:
    """The healthy toy embedder, opened once a session (the builtin model loads in ~1.5 s).

    Returns the embedder and its fingerprint; a test makes its own `Embeddings` over them,
    so each run's cache starts empty as a real run's does.
    """
    import asyncio

    from gauntlet.semantic.toy import ToyEmbedder

    embedder = ToyEmbedder()
    fingerprint = asyncio.run(embedder.open())
    return embedder, fingerprint
