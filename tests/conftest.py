"""Shared test set-up: a clean environment and a deterministic hypothesis profile."""

from __future__ import annotations

import os

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


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no colour settings or terminal width from the machine that runs them."""
    for name in ("FORCE_COLOR", "NO_COLOR", "COLUMNS", "LINES", "TERM", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-golden` rewrites the golden files from the current output."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ from what the code renders now",
    )
