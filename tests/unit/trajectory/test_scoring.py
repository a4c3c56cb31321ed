"""Trajectory scoring: the edge cases peers get wrong, as properties and as worked examples.

Issue 16's "Must show": extra calls penalised, duplicates never push a score above 1, nested
argument key order irrelevant, parallel calls (same step) in any order.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.canonical import canonical_text
from gauntlet.patterns import TIME_LIMIT, PatternTimeout
from gauntlet.trajectory import scoring
from gauntlet.trajectory.scoring import (
    ArgumentsError,
    Call,
    CallPattern,
    Exact,
    Order,
    Regex,
    Subset,
    TrajectorySpec,
    decode_arguments,
    group_steps,
    judge,
    levenshtein,
    show,
    tool_accuracy,
)

A = Call("lookup_hours", {"facility": "pool", "day": "mon"})
B = Call("permit_status", {"permit": {"id": 7, "kind": "event"}})
C = Call("report_problem", {"what": "pothole", "where": ["Main", "3rd"]})
X = Call("issue_refund", {"account": 7})


def one_per_step(*calls: Call) -> list[list[Call]]:
    return [[call] for call in calls]


def exactly(call: Call) -> CallPattern:
    return CallPattern(call.name, Exact(call.arguments))


def reordered(value: Any) -> Any:
    """`value` with every object's keys in reverse order, at every depth."""
    if isinstance(value, dict):
        return {key: reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reordered(item) for item in value]
    return value


# ---------------------------------------------------------------- strategies

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
arguments = st.dictionaries(st.sampled_from("abcd"), json_values, max_size=4)
calls = st.builds(Call, st.sampled_from(["lookup", "permit", "report"]), arguments)
steps = st.lists(st.lists(calls, min_size=1, max_size=3), max_size=5)


@st.composite
def patterns_for(draw: st.DrawFn, pool: list[Call]) -> CallPattern:
    """A pattern likely to match one of `pool` (or a fresh call), with any kind of matcher."""
    from_pool: bool = bool(pool) and draw(st.booleans())
    call = draw(st.sampled_from(pool)) if from_pool else draw(calls)
    kind = draw(st.sampled_from(["exact", "subset", "regex", "any"]))
    if kind == "exact":
        return CallPattern(call.name, Exact(call.arguments))
    if kind == "subset":
        keys = draw(st.lists(st.sampled_from(sorted(call.arguments) or ["a"]), max_size=2))
        return CallPattern(
            call.name, Subset({k: call.arguments[k] for k in keys if k in call.arguments})
        )
    if kind == "regex":
        return CallPattern(call.name, Regex(dict.fromkeys(sorted(call.arguments)[:1], ".*")))
    return CallPattern(call.name)


@st.composite
def cases(draw: st.DrawFn) -> tuple[TrajectorySpec, list[list[Call]]]:
    observed = draw(steps)
    pool = [call for step in observed for call in step]
    spec = TrajectorySpec(
        expect_calls=tuple(draw(st.lists(patterns_for(pool), max_size=4))),
        order=draw(st.sampled_from(list(Order))),
        forbid_calls=tuple(draw(st.lists(patterns_for(pool), max_size=1))),
        max_calls=draw(st.none() | st.integers(0, 6)),
        min_tool_accuracy=draw(st.none() | st.floats(0, 1)),
    )
    return spec, observed


# ---------------------------------------------------------------- properties


@given(steps, steps)
def test_accuracy_stays_within_zero_and_one(expected, observed) -> None:
    assert 0.0 <= tool_accuracy(expected, observed) <= 1.0


@given(steps)
def test_identical_trajectories_score_one(trajectory) -> None:
    assert tool_accuracy(trajectory, trajectory) == 1.0


@given(steps, st.data())
def test_duplicates_never_push_accuracy_above_one_and_cost(expected, data) -> None:
    flat = [call for step in expected for call in step]
    repeated = data.draw(st.lists(st.sampled_from(flat), min_size=1, max_size=3)) if flat else []
    observed = [*expected, *([call] for call in repeated)]
    accuracy = tool_accuracy(expected, observed)
    assert accuracy <= 1.0
    if repeated:
        assert accuracy < 1.0


@given(steps, calls, st.data())
def test_an_extra_call_lowers_accuracy_below_one(expected, extra, data) -> None:
    at = data.draw(st.integers(0, len(expected)))
    observed = [*expected[:at], [extra], *expected[at:]]
    assert tool_accuracy(expected, observed) < 1.0


@given(cases())
def test_key_order_never_changes_any_result(case) -> None:
    spec, observed = case
    shuffled = [[Call(call.name, reordered(call.arguments)) for call in step] for step in observed]
    assert judge(spec, shuffled) == judge(spec, observed)
    assert tool_accuracy(observed, shuffled) == 1.0
    respec = TrajectorySpec(
        expect_calls=tuple(_reorder_pattern(p) for p in spec.expect_calls),
        order=spec.order,
        forbid_calls=tuple(_reorder_pattern(p) for p in spec.forbid_calls),
        max_calls=spec.max_calls,
        min_tool_accuracy=spec.min_tool_accuracy,
    )
    assert judge(respec, observed) == judge(spec, observed)


def _reorder_pattern(pattern: CallPattern) -> CallPattern:
    match pattern.arguments:
        case Exact(arguments):
            return CallPattern(pattern.name, Exact(reordered(arguments)))
        case Subset(arguments):
            return CallPattern(pattern.name, Subset(reordered(arguments)))
        case _:
            return pattern


@given(cases(), st.data())
def test_permuting_calls_within_a_step_never_changes_any_result(case, data) -> None:
    spec, observed = case
    permuted = [data.draw(st.permutations(step)) for step in observed]
    assert judge(spec, permuted) == judge(spec, observed)
    assert tool_accuracy(observed, permuted) == 1.0
    assert tool_accuracy(permuted, observed) == 1.0


@given(cases())
def test_a_verdict_passes_exactly_when_it_gives_no_reason(case) -> None:
    verdict = judge(*case)
    assert verdict.passed == (not verdict.reasons) == (verdict.departed_at is None)
    assert 0.0 <= verdict.tool_accuracy <= 1.0


@given(steps)
def test_a_trajectory_checked_against_itself_passes_every_order(observed) -> None:
    expected = tuple(exactly(call) for step in observed for call in step)
    for order in Order:
        verdict = judge(TrajectorySpec(expected, order, min_tool_accuracy=1.0), observed)
        assert verdict == scoring.TrajectoryVerdict(True, (), 1.0, None)


# ---------------------------------------------------------------- tool accuracy, worked


@pytest.mark.parametrize(
    ("expected", "observed", "score"),
    [
        (one_per_step(A, B, C), one_per_step(A, B, B, C), 0.75),  # an extra call
        (one_per_step(A, B, C), one_per_step(A, C), 2 / 3),  # a missing call
        (one_per_step(A), one_per_step(A, A, A), 1 / 3),  # duplicates, never above 1
        (one_per_step(A, B, C), one_per_step(A, X, C), 2 / 3),  # a wrong call
        (one_per_step(A, B), [[B, A]], 1.0),  # parallel calls in any order
        ([], [], 1.0),
        ([], one_per_step(A), 0.0),
        (one_per_step(A), [], 0.0),
    ],
)
def test_tool_accuracy_worked_examples(expected, observed, score) -> None:
    assert tool_accuracy(expected, observed) == pytest.approx(score)


def test_nested_key_order_is_irrelevant_to_accuracy() -> None:
    shuffled = Call(B.name, {"permit": {"kind": "event", "id": 7}})
    assert tool_accuracy(one_per_step(B), one_per_step(shuffled)) == 1.0


def test_an_argument_that_differs_costs_a_substitution() -> None:
    other = Call(A.name, {**A.arguments, "day": "tue"})
    assert tool_accuracy(one_per_step(A, B), one_per_step(other, B)) == 0.5


@pytest.mark.parametrize(
    ("first", "second", "distance"),
    [("", "", 0), ("abc", "", 3), ("", "ab", 2), ("kitten", "sitting", 3), ("flaw", "lawn", 2)],
)
def test_levenshtein(first, second, distance) -> None:
    assert levenshtein(first, second) == distance
    assert levenshtein(second, first) == distance


# ---------------------------------------------------------------- decoding and canonical form


def test_decode_arguments_reads_an_object() -> None:
    assert decode_arguments('{"b": [1, {"y": 2, "x": 1}], "a": "é"}') == {
        "b": [1, {"y": 2, "x": 1}],
        "a": "é",
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[1, 2]", "arguments are a JSON array, not an object"),
        ('"day"', "arguments are a JSON string, not an object"),
        ('{"a": 1, "a": 2}', "arguments has the key 'a' twice"),
        ('{"a": NaN}', "arguments holds NaN, which JSON does not allow"),
        ('{"a": ', "arguments is not JSON"),
    ],
)
def test_decode_arguments_refuses(text, why) -> None:
    result = decode_arguments(text)
    assert isinstance(result, ArgumentsError)
    assert result.why.startswith(why)


def test_canonical_sorts_keys_at_every_depth_without_whitespace() -> None:
    assert canonical_text({"b": {"d": 1, "c": [True, None]}, "a": "ñ"}) == (
        '{"a":"ñ","b":{"c":[true,null],"d":1}}'
    )


def test_group_steps() -> None:
    assert group_steps([A, B]) == [[A], [B]]
    first, second, third = Call("a", step=1), Call("b", step=0), Call("c", step=1)
    assert group_steps([first, second, third]) == [[second], [first, third]]
    assert group_steps([]) == []
    with pytest.raises(ValueError, match="every call carries a step index or none"):
        group_steps([first, Call("d")])


# ---------------------------------------------------------------- matchers


def test_exact_ignores_key_order_but_not_values() -> None:
    matcher = Exact({"permit": {"kind": "event", "id": 7}})
    assert matcher.matches(B.arguments)
    assert not matcher.matches({"permit": {"kind": "event", "id": 7}, "extra": 1})
    assert not matcher.matches({"permit": {"kind": "event", "id": 7.0}})  # JSON text differs
    assert str(matcher) == 'exact {"permit":{"id":7,"kind":"event"}}'


def test_subset_recurses_into_objects_and_compares_lists_whole() -> None:
    assert Subset({"permit": {"id": 7}}).matches(B.arguments)
    assert Subset({}).matches(B.arguments)
    assert not Subset({"permit": {"id": 8}}).matches(B.arguments)
    assert not Subset({"permit": {"owner": "x"}}).matches(B.arguments)
    assert not Subset({"missing": 1}).matches(B.arguments)
    assert not Subset({"permit": 7}).matches(B.arguments)  # an object is not a number
    assert Subset({"where": ["Main", "3rd"]}).matches(C.arguments)
    assert not Subset({"where": ["Main"]}).matches(C.arguments)  # lists compare whole
    assert not Subset({"where": ["3rd", "Main"]}).matches(C.arguments)
    assert not Subset({"n": 1}).matches({"n": True})
    assert str(Subset({"b": 1, "a": 2})) == 'subset {"a":2,"b":1}'


def test_regex_fullmatches_strings_as_they_are_and_other_values_as_canonical_text() -> None:
    assert Regex({"day": "mon|tue"}).matches(A.arguments)
    assert not Regex({"day": "mo"}).matches(A.arguments)  # a full match, not a search
    assert Regex({"permit": r'\{"id":7,.*\}'}).matches(B.arguments)
    assert not Regex({"absent": ".*"}).matches(A.arguments)
    assert Regex({}).matches({})
    assert str(Regex({"day": "mon"})) == 'regex {"day":"mon"}'


def test_a_regex_that_runs_out_of_time_raises_and_never_reads_as_no_match() -> None:
    # Trap: a pattern stopped at its limit and read as "no match" passes a forbidden call.
    matcher = Regex({"q": "(a|aa)+b"}, "forbid_calls[2]")
    with pytest.raises(PatternTimeout) as caught:
        matcher.matches({"q": "a" * 80})
    assert caught.value.field == "forbid_calls[2].arguments.q"
    assert caught.value.pattern == "(a|aa)+b"
    assert caught.value.limit == TIME_LIMIT


def test_regex_refuses_a_pattern_that_is_not_one() -> None:
    with pytest.raises(ValueError, match="argument 'day' is not a regular expression"):
        Regex({"day": "(mon"})


def test_call_pattern_without_a_matcher_takes_any_arguments() -> None:
    assert CallPattern("lookup_hours").matches(A)
    assert not CallPattern("lookup_hours").matches(B)
    assert not CallPattern("lookup_hours", Subset({"day": "tue"})).matches(A)
    assert str(CallPattern("lookup_hours")) == "lookup_hours"
    assert str(CallPattern("x", Subset({"a": 1}))) == 'x(subset {"a":1})'


def test_show_numbers_steps_and_joins_parallel_calls() -> None:
    assert show([]) == "no calls"
    assert show([[], []]) == "no calls"
    assert (
        show([[Call("a")], [Call("b", {"x": 1}), Call("c")]]) == '1: a({}) | 2: b({"x":1}) & c({})'
    )


# ---------------------------------------------------------------- order


def test_exact_order_accepts_parallel_calls_in_any_order() -> None:
    spec = TrajectorySpec((exactly(A), exactly(B), exactly(C)), Order.EXACT)
    assert judge(spec, [[B, A], [C]]).passed
    assert judge(spec, [[A], [C, B]]).passed


@pytest.mark.parametrize(
    ("observed", "departed_at", "reason"),
    [
        (one_per_step(A, C, B), 1, "order exact: step 2 made report_problem("),
        (one_per_step(A, B, X, C), 2, "order exact: step 3 made issue_refund("),
        (
            one_per_step(A, B, C, X),
            3,
            'order exact: step 4 made issue_refund({"account":7}) where no call',
        ),
        (one_per_step(A, B), 2, "order exact: the calls ended before report_problem("),
        ([[A, B, C, X]], 0, "order exact: step 1 made "),
        ([], 0, "order exact: the calls ended before lookup_hours("),
    ],
)
def test_exact_order_failures(observed, departed_at, reason) -> None:
    verdict = judge(TrajectorySpec((exactly(A), exactly(B), exactly(C)), Order.EXACT), observed)
    assert not verdict.passed
    assert verdict.departed_at == departed_at
    (only,) = verdict.reasons
    assert only.startswith(reason)
    assert f"calls: {show(scoring.normalised(observed))}" in only


def test_in_order_allows_other_calls_between() -> None:
    spec = TrajectorySpec((exactly(A), exactly(C)), Order.IN_ORDER)
    assert judge(spec, one_per_step(X, A, B, C, X)).passed
    assert judge(spec, [[C, A]]).passed  # one step: the order within it does not count
    verdict = judge(spec, one_per_step(C, A))
    assert not verdict.passed
    assert verdict.departed_at == 2
    assert verdict.reasons[0].startswith("order in_order: report_problem(exact ")
    assert "was not called after step 2;" in verdict.reasons[0]


def test_in_order_with_nothing_matched_departs_at_the_start() -> None:
    verdict = judge(TrajectorySpec((exactly(A),)), one_per_step(B))
    assert verdict.departed_at == 0
    assert verdict.reasons == (
        "order in_order: lookup_hours(exact "
        + str(Exact(A.arguments))[6:]
        + ") was not called; calls: "
        + show([[B]]),
    )


def test_in_order_takes_the_longest_run_a_step_can_match() -> None:
    # One step fits both expected calls only if the wider pattern is not spent on the first.
    wide = CallPattern("lookup_hours", Subset({}))
    narrow = exactly(A)
    other = Call("lookup_hours", {"facility": "gym"})
    spec = TrajectorySpec((wide, narrow), Order.IN_ORDER)
    assert judge(spec, [[A, other]]).passed


def test_any_order_is_a_matching_not_a_greedy_pick() -> None:
    # Greedy would give the loose pattern the first call and leave the exact one nothing.
    loose = CallPattern("lookup_hours", Subset({"facility": "pool"}))
    spec = TrajectorySpec((loose, exactly(A)), Order.ANY_ORDER, min_tool_accuracy=1.0)
    pool_only = Call("lookup_hours", {"facility": "pool"})
    assert judge(spec, one_per_step(A, pool_only)).passed
    assert judge(spec, one_per_step(pool_only, A)).passed
    verdict = judge(spec, one_per_step(A))
    assert verdict.departed_at == 1
    assert verdict.reasons[0].startswith("order any_order: no distinct call matched lookup_hours(")


def test_empty_expectations_pass_unless_the_order_is_exact() -> None:
    assert judge(TrajectorySpec(order=Order.IN_ORDER), one_per_step(A)).passed
    assert judge(TrajectorySpec(order=Order.ANY_ORDER), one_per_step(A)).passed
    assert not judge(TrajectorySpec(order=Order.EXACT), one_per_step(A)).passed
    assert judge(TrajectorySpec(order=Order.EXACT), []).passed


# ---------------------------------------------------------------- forbid, max, accuracy


def test_forbid_calls_by_name_or_by_arguments() -> None:
    spec = TrajectorySpec(
        forbid_calls=(CallPattern("issue_refund", Subset({"account": 7})), CallPattern("escalate"))
    )
    verdict = judge(spec, one_per_step(A, X, Call("escalate")))
    assert verdict.departed_at == 1
    assert verdict.reasons == (
        'forbid_calls: step 2 called issue_refund({"account":7}), which '
        'issue_refund(subset {"account":7}) forbids; calls: '
        + show(one_per_step(A, X, Call("escalate"))),
        "forbid_calls: step 3 called escalate({}), which escalate forbids; calls: "
        + show(one_per_step(A, X, Call("escalate"))),
    )
    assert judge(spec, one_per_step(A, Call("issue_refund", {"account": 8}))).passed


def test_max_calls_counts_parallel_calls_and_departs_at_the_first_too_many() -> None:
    spec = TrajectorySpec(max_calls=2)
    assert judge(spec, [[A, B]]).passed
    verdict = judge(spec, [[A], [B, C], [X]])
    assert verdict.departed_at == 1
    assert verdict.reasons[0].startswith(
        "max_calls: 4 calls made where at most 2 may be; calls: 1:"
    )
    assert judge(TrajectorySpec(max_calls=0), [[A]]).departed_at == 0


def test_min_tool_accuracy_penalises_an_extra_call_and_marks_it() -> None:
    spec = TrajectorySpec((exactly(A), exactly(B)), min_tool_accuracy=0.8)
    verdict = judge(spec, one_per_step(A, A, B))
    assert verdict.tool_accuracy == pytest.approx(2 / 3)
    assert verdict.departed_at == 1
    assert verdict.reasons == (
        "min_tool_accuracy: 0.667 is below 0.800; calls: " + show(one_per_step(A, A, B)),
    )


def test_min_tool_accuracy_marks_the_end_when_calls_are_missing() -> None:
    spec = TrajectorySpec((exactly(A), CallPattern("escalate")), min_tool_accuracy=0.9)
    verdict = judge(spec, one_per_step(A))
    assert verdict.tool_accuracy == 0.5
    assert verdict.departed_at == 1
    assert [reason.split(":")[0] for reason in verdict.reasons] == [
        "order in_order",
        "min_tool_accuracy",
    ]


def test_accuracy_of_a_matched_pattern_counts_the_call_it_matched() -> None:
    # A subset or regex pattern that matched stands as the call, so it costs nothing.
    spec = TrajectorySpec(
        (CallPattern(A.name, Subset({"day": "mon"})), CallPattern(B.name, Regex({"permit": ".*"}))),
        Order.EXACT,
    )
    assert judge(spec, [[B, A]]).tool_accuracy == 1.0
    assert judge(spec, one_per_step(A, B)).tool_accuracy == 1.0
    assert judge(spec, one_per_step(A, B, B)).tool_accuracy == pytest.approx(2 / 3)


def test_accuracy_under_any_order_does_not_count_the_order() -> None:
    spec = TrajectorySpec((exactly(A), exactly(B), CallPattern("escalate")), Order.ANY_ORDER)
    assert judge(spec, one_per_step(B, A)).tool_accuracy == pytest.approx(2 / 3)
    in_order = TrajectorySpec((exactly(A), exactly(B)), Order.IN_ORDER)
    assert judge(in_order, one_per_step(B, A)).tool_accuracy == 0.0  # a swap is two edits


def test_an_unmatched_exact_pattern_stands_as_its_own_call() -> None:
    assert exactly(A).reference == A.token
    assert CallPattern("x", Subset({"a": 1})).reference == ("x", '~subset {"a":1}')
    assert CallPattern("x").reference == ("x", "~None")
