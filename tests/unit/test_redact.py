"""Redaction: a secret given to gauntlet never reaches an output, even when echoed back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.errors import UsageError
from gauntlet.redact import MASK, MIN_SECRET_LENGTH, Redactor, Secret, is_credential_name
from gauntlet.targets.contract import TargetResponse, ToolCall
from gauntlet.targets.http import GauntletTarget, Header, parse_header, shown_url


def _values(target: GauntletTarget) -> set[str]:
    values = {secret.value for secret in target.secrets}
    target_close(target)
    return values


def target_close(target: GauntletTarget) -> None:
    import asyncio

    asyncio.run(target.aclose())


def test_every_secret_is_masked_longest_first() -> None:
    redactor = Redactor(["abcdefgh", "abcdefgh-ijkl", ""])
    assert redactor.text("x abcdefgh-ijkl y abcdefgh") == f"x {MASK} y {MASK}"
    assert bool(redactor) and not Redactor()


def test_values_shorter_than_the_minimum_are_never_masked_but_named() -> None:
    # Masking `1` would rewrite every 1 in every answer, and fail golden cases.
    short = "x" * (MIN_SECRET_LENGTH - 1)
    redactor = Redactor([Secret(short, "the value of header X-Key"), Secret("", "nothing")])
    assert redactor.text(f"a {short} b") == f"a {short} b"
    assert redactor.unmasked == ("the value of header X-Key",)
    assert not redactor


def test_a_record_is_masked_in_every_text_it_holds() -> None:
    response = TargetResponse(
        text="your token is t0k3n-5e9a",
        citations=("t0k3n-5e9a",),
        context_ids=("a", "t0k3n-5e9a-b"),
        refused=False,
        escalated=False,
    )
    masked = Redactor(["t0k3n-5e9a"]).model(response)
    assert masked.text == f"your token is {MASK}"
    assert masked.citations == (MASK,)
    assert masked.context_ids == ("a", f"{MASK}-b")
    assert Redactor().model(response) is response
    assert Redactor(["not-in-it-at-all"]).model(response) is response


def test_a_tool_call_is_masked_in_its_arguments_keys_values_and_output() -> None:
    # A target's tool calls are its own JSON: a secret may come back as a key as well.
    call = ToolCall(
        id="call_t0k3n-5e9a",
        name="lookup",
        arguments={"t0k3n-5e9a": ["x t0k3n-5e9a"], "n": 1},
        output={"echo": "t0k3n-5e9a"},
        error="bad t0k3n-5e9a",
    )
    response = TargetResponse(
        text="ok", citations=(), context_ids=(), refused=False, escalated=False, tool_calls=(call,)
    )
    masked = Redactor(["t0k3n-5e9a"]).model(response)
    assert masked.tool_calls is not None
    (kept,) = masked.tool_calls
    assert kept.id == f"call_{MASK}"
    assert kept.arguments == {MASK: [f"x {MASK}"], "n": 1}
    assert kept.output == {"echo": MASK}
    assert kept.error == f"bad {MASK}"
    assert "t0k3n-5e9a" not in masked.model_dump_json()


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("Authorization", True),
        ("Proxy-Authorization", True),
        ("Cookie", True),
        ("X-Api-Key", True),
        ("X-Auth-Token", True),
        ("X-Client-Secret", True),
        ("X-Amz-Signature", True),
        ("X-Password", True),
        ("X-Session-Id", True),
        ("code", True),  # Azure Functions' key, as a query parameter
        ("apikey", True),
        ("api-key", True),
        ("X-Api-Version", False),
        ("Accept-Language", False),
        ("X-Team", False),
        ("zipcode", False),
    ],
)
def test_which_names_carry_credentials(name: str, secret: bool) -> None:
    assert is_credential_name(name) is secret


def test_only_credential_headers_and_environment_values_are_secrets() -> None:
    target = GauntletTarget(
        "https://example.test/ask",
        headers=[
            Header("X-Api-Key", "Key t0k3n-91ab"),
            Header("X-Api-Version", "1"),
            Header("X-Team", "team-blue-7"),
            Header("X-Trace", "run-4411-0077", from_environment=("4411-0077",)),
        ],
    )
    assert _values(target) == {"Key t0k3n-91ab", "t0k3n-91ab", "run-4411-0077", "4411-0077"}


def test_an_http_target_names_its_secrets_in_every_form() -> None:
    target = GauntletTarget(
        "https://me:pa%40ss-word@example.test/ask?api_key=k3y&lang=en&sig=s1g&code=az%2Bkey"
    )
    basic = "bWU6cGFAc3Mtd29yZA=="  # base64 of me:pa@ss-word, sent as Basic auth
    assert _values(target) == {
        f"Basic {basic}", basic, "me:pa@ss-word", "pa@ss-word", "pa%40ss-word",
        "k3y", "s1g", "az%2Bkey", "az+key",
    }  # fmt: skip
    assert target.name == "https://example.test/ask"
    assert "pa%40ss" not in target.url


def test_url_credentials_and_an_authorization_header_are_refused_together() -> None:
    with pytest.raises(UsageError, match="choose one"):
        GauntletTarget("https://me:pa55@example.test/", headers={"authorization": "Bearer x"})


@pytest.mark.parametrize(
    "spec",
    [
        "Authorization Bearer tok-5f1c9e27b3d84a60",
        "Authorization=tok-5f1c9e27b3d84a60",
        " Authorization;tok-5f1c9e27b3d84a60",
        "tok-5f1c9e27b3d84a60",
    ],
)
def test_a_malformed_header_is_refused_without_its_value(spec: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_header(spec, {})
    assert "5f1c9e27b3d84a60" not in str(refused.value)
    assert "expected 'Name: value'" in str(refused.value)


def test_a_header_records_the_values_it_read_from_the_environment() -> None:
    header = parse_header("Authorization: Bearer ${A}-${B}", {"A": "first", "B": "second"})
    assert header == Header("Authorization", "Bearer first-second", ("first", "second"))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://u:p4ss@h.test/cb?token=t0k&x=1", "https://h.test/cb?token=[REDACTED]&x=1"),
        ("/relative?sig=abc&code=z", "/relative?sig=[REDACTED]&code=[REDACTED]"),
        ("https://h.test/plain?a=1", "https://h.test/plain?a=1"),
        ("http://[::1/", "(a malformed URL)"),
    ],
)
def test_a_url_gauntlet_did_not_choose_is_shown_without_credentials(url: str, shown: str) -> None:
    assert shown_url(url) == shown


@given(st.text(min_size=MIN_SECRET_LENGTH), st.text(), st.text())
def test_a_masked_text_never_holds_the_secret(secret: str, before: str, after: str) -> None:
    masked = Redactor([secret]).text(before + secret + after)
    # The mask may join with the text around it into the secret's own spelling only if the
    # secret is made of the mask; otherwise it is gone.
    assert secret not in masked or MASK in secret or secret in MASK


def test_a_secret_learned_at_run_time_is_masked_from_then_on() -> None:
    redactor = Redactor(["first-secret"])
    mask = redactor.text  # held by a `masking` block before the token arrived
    assert mask("at-0001-token") == "at-0001-token"
    redactor.learn(Secret("at-0001-token", "an OAuth access token"), "short")
    assert mask("first-secret at-0001-token") == f"{MASK} {MASK}"
    assert list(redactor.unmasked) == ["a secret"]
    redactor.learn("at-0001-token", Secret("tiny", "the OAuth client id"))  # known: kept as is
    assert list(redactor.unmasked) == ["a secret", "the OAuth client id"]
    assert redactor.text("at-0001-token-longer") == f"{MASK}-longer"


def test_an_empty_redactor_that_learns_starts_masking() -> None:
    redactor = Redactor()
    assert not redactor
    redactor.learn(Secret("", "nothing"))
    assert not redactor
    redactor.learn("a-long-enough-value")
    assert redactor
    response = TargetResponse(
        text="a-long-enough-value", citations=(), context_ids=(), refused=False, escalated=False
    )
    assert redactor.model(response).text == MASK


def test_a_header_value_read_with_a_line_break_is_refused_without_it() -> None:
    with pytest.raises(UsageError) as refused:
        parse_header("X-Token: ${T}", {"T": "t0k3n-1\r\nX-Evil: 1"})
    assert str(refused.value) == "header X-Token: a header value cannot hold a line break"
    assert refused.value.worded({"header": "--header"}) == (
        "--header X-Token: a header value cannot hold a line break"
    )


def test_a_secret_is_masked_as_a_json_string_writes_it() -> None:
    # Trap: a raw answer or an error body quoted as JSON spells `"` as `\"` and `é` as
    # `\u00e9`, so the secret as given is nowhere in it.
    secret = 'pa"ss\\wörd-1'  # noqa: S105 - a test value
    redactor = Redactor([secret])
    for spelled in ('pa\\"ss\\\\wörd-1', 'pa\\"ss\\\\w\\u00f6rd-1'):
        assert redactor.text(f"body: {spelled}.") == f"body: {MASK}."


def test_a_secret_too_short_to_mask_is_told_once_when_it_is_learned() -> None:
    # Trap: the note printed once after the target is built, so a secret learned later (a
    # judge's target file, a token fetched mid-run, `probe`) is neither masked nor named.
    told: list[str] = []
    redactor = Redactor([Secret("tiny", "the URL's password")], on_unmasked=told.append)
    redactor.learn(Secret("tiny", "the URL's password"), Secret("t0k", "the value of X-Id"))
    assert told == ["the URL's password", "the value of X-Id"]


def test_a_credential_by_what_it_is_is_masked_whatever_its_length() -> None:
    # Trap: an access token under 8 characters treated as a header value might be: neither
    # masked nor named, though the docs say every token fetched is masked.
    told: list[str] = []
    redactor = Redactor(on_unmasked=told.append)
    redactor.learn(Secret("t0k-9", "an OAuth access token", always=True))
    assert (redactor.text("Bearer t0k-9"), told) == (f"Bearer {MASK}", [])


def test_a_padded_environment_value_is_learned_as_it_travels() -> None:
    # Trap: the value registered with its spaces while the header goes out trimmed, so the
    # target's echo of it (and its trimmed form) is never masked.
    header = parse_header("X-Tenant: ${PADDED}", {"PADDED": "  padded-4f0d2a91  "})
    assert header.value == "padded-4f0d2a91"
    target = GauntletTarget("http://api.test/ask", headers=[header])
    assert "padded-4f0d2a91" in _values(target)


def test_a_query_credential_is_learned_as_aiohttp_sends_it() -> None:
    # Trap: the value learned as written and decoded, while yarl re-quotes the query on the
    # wire (`%2F` goes out as `/`), the form a server that echoes its request line says back.
    target = GauntletTarget("http://api.test/ask?api-key=q-key%2B5e%2F91c%3D7b")
    assert {"q-key%2B5e%2F91c%3D7b", "q-key%2B5e/91c%3D7b", "q-key+5e/91c=7b"} <= _values(target)
