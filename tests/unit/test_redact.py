"""Redaction: a secret given to gauntlet never reaches an output, even when echoed back."""

from __future__ import annotations

import pytest

from gauntlet.errors import UsageError
from gauntlet.redact import MASK, Redactor
from gauntlet.targets.contract import TargetResponse
from gauntlet.targets.http import HttpTarget


def test_every_secret_is_masked_longest_first() -> None:
    redactor = Redactor(["abc", "abcdef", ""])
    assert redactor.text("x abcdef y abc") == f"x {MASK} y {MASK}"
    assert bool(redactor) and not Redactor()


def test_a_response_is_masked_in_every_text_field() -> None:
    response = TargetResponse(
        text="your token is t0k3n",
        citations=("t0k3n",),
        context_ids=("a", "t0k3n-b"),
        refused=False,
        escalated=False,
    )
    masked = Redactor(["t0k3n"]).response(response)
    assert masked.text == f"your token is {MASK}"
    assert masked.citations == (MASK,)
    assert masked.context_ids == ("a", f"{MASK}-b")
    assert Redactor().response(response) is response


def test_an_http_target_names_its_secrets() -> None:
    target = HttpTarget(
        "https://me:pa55@example.test/ask?api_key=k3y&lang=en&sig=s1g",
        headers={"X-Api-Key": "Key t0k3n", "X-Team": "blue"},
    )
    basic = "bWU6cGE1NQ=="  # base64 of me:pa55, sent as Basic auth
    assert set(target.secrets) == {
        "Key t0k3n", "t0k3n", "blue", f"Basic {basic}", basic, "me", "pa55", "k3y", "s1g"
    }  # fmt: skip
    assert target.name == "https://example.test/ask"
    assert "pa55" not in target.url


def test_url_credentials_and_an_authorization_header_are_refused_together() -> None:
    with pytest.raises(UsageError, match="choose one"):
        HttpTarget("https://me:pa55@example.test/", headers={"authorization": "Bearer x"})
