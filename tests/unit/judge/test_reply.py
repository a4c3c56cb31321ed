"""A judge's reply gives a verdict for exactly the criteria asked, or the check is unjudged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.judge.reply import QUOTED, CriterionVerdict, Judged, Unjudged, read_rubric_reply

ASKED = ("deadline", "tone")
NOT_A_VERDICT = "`criteria.deadline` is not 'pass' or 'fail'"


def _reply(criteria: object, rationale: object = "It gives the deadline.", **more: object) -> str:
    return json.dumps({"criteria": criteria, "rationale": rationale, **more})


def _fenced(body: str) -> str:
    return f"Here is my verdict.\n```json\n{body}\n```\n"


def test_a_fenced_reply_judging_every_criterion_is_read() -> None:
    result = read_rubric_reply(_fenced(_reply({"deadline": "pass", "tone": "fail"})), ASKED)
    assert result == Judged(
        {"deadline": CriterionVerdict.PASS, "tone": CriterionVerdict.FAIL}, "It gives the deadline."
    )
    assert isinstance(result, Judged) and result.failed == ("tone",)


def test_a_bare_object_with_no_fence_is_read_too() -> None:
    result = read_rubric_reply(_reply({"deadline": "pass", "tone": "pass"}), ASKED)
    assert isinstance(result, Judged) and result.failed == ()


def test_the_last_fenced_block_is_the_reply() -> None:
    first = _fenced(_reply({"deadline": "fail", "tone": "fail"}, "first thoughts"))
    last = "```\n" + _reply({"deadline": "pass", "tone": "pass"}, "on reflection") + "\n```"
    result = read_rubric_reply(first + "Let me reconsider.\n" + last, ASKED)
    assert isinstance(result, Judged) and result.rationale == "on reflection"


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("PASS", "the reply holds no JSON object (no fenced block, no bare object)"),
        ("The answer passes every criterion.", "the reply holds no JSON object"),
        ('{"criteria": {"deadline": "pass", "tone": "pa', "the reply's JSON is not JSON"),
        (_fenced('{"criteria": {"deadline": "pass"'), "the reply's JSON is not JSON"),
        (_fenced("[1, 2]"), "the reply's JSON is array, not an object"),
        (_reply({"deadline": "PASS", "tone": "pass"}), NOT_A_VERDICT),
        (_reply({"deadline": True, "tone": "pass"}), NOT_A_VERDICT),
        (_reply({"deadline": "pass"}), "the reply does not judge 'tone'"),
        (
            _reply({"deadline": "pass", "tone": "pass", "bonus": "pass"}),
            "the reply judges 'bonus', which nobody asked",
        ),
        (json.dumps({"criteria": {"deadline": "pass", "tone": "pass"}}), "no `rationale`"),
        (_reply({"deadline": "pass", "tone": "pass"}, "  "), "`rationale`"),
        (_reply({"deadline": "pass", "tone": "pass"}, score=1), "the reply has `score`"),
        (_reply([], "x"), "`criteria`"),
        (
            '{"criteria": {"deadline": "fail", "deadline": "pass", "tone": "pass"}, '
            '"rationale": "x"}',
            "has the key 'deadline' twice",
        ),
    ],
    ids=[
        "prose-verdict", "prose", "truncated-bare", "truncated-fenced", "array", "upper-case",
        "boolean", "missing", "extra", "no-rationale", "blank-rationale", "extra-key",
        "criteria-not-object", "duplicate-key",
    ],
)  # fmt: skip
def test_anything_else_is_unjudged_saying_why(reply: str, why: str) -> None:
    result = read_rubric_reply(reply, ASKED)
    assert isinstance(result, Unjudged), result
    assert why in result.why


def test_an_unjudged_reply_keeps_its_start_on_one_line() -> None:
    result = read_rubric_reply("I refuse.\n" + "x" * 1000, ASKED)
    assert isinstance(result, Unjudged)
    assert result.reply.startswith("I refuse.\\nxxx") and len(result.reply) <= QUOTED + 2


@given(st.text())
def test_no_reply_raises_and_a_judged_one_judges_exactly_what_was_asked(reply: str) -> None:
    result = read_rubric_reply(reply, ASKED)
    if isinstance(result, Judged):
        assert set(result.verdicts) == set(ASKED)


@given(
    st.fixed_dictionaries(
        {name: st.sampled_from(["pass", "fail"]) for name in ASKED},
        optional={"extra": st.sampled_from(["pass", "fail"])},
    ),
    st.text(),
)
def test_a_verdict_is_read_only_when_the_criteria_are_exactly_those_asked(
    criteria: dict[str, str], prose: str
) -> None:
    result = read_rubric_reply(prose.replace("```", "") + "\n" + _fenced(_reply(criteria)), ASKED)
    if "extra" in criteria:
        assert isinstance(result, Unjudged)
    else:
        assert isinstance(result, Judged)
        assert {name: verdict.value for name, verdict in result.verdicts.items()} == criteria


def test_a_megabyte_of_fences_that_never_close_is_unjudged_in_one_pass() -> None:
    """A regular expression over these took 4 s for 80 KB and grew with the square."""
    result = read_rubric_reply("```json\n{\n" * 100_000, ASKED)
    assert isinstance(result, Unjudged) and "no JSON object" in result.why


def test_fences_with_windows_line_ends_are_read() -> None:
    body = _reply({"deadline": "pass", "tone": "pass"})
    result = read_rubric_reply(f"CriterionVerdict:\r\n```json\r\n{body}\r\n```\r\n", ASKED)
    assert isinstance(result, Judged)
