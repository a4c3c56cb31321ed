"""Scoring an agent's tool-call trajectory: argument matchers, order, tool accuracy, a verdict.

A *call* is a tool name and its arguments, a JSON object already decoded (`decode_arguments`
reads the contract's JSON text strictly). A *trajectory* is a sequence of *steps*: a step holds
the calls an agent issued together (parallel calls), whose order among themselves means
nothing. Everything here is pure: no I/O, no clock, no randomness.

Every comparison of arguments goes through `canonical` (keys sorted at every depth, no
whitespace), so the order of keys never changes a result, nested objects included. Numbers
compare as JSON text: `1` and `1.0` differ, and `true` is not `1`.

Matchers on one expected call's arguments:

- `Exact`: the canonical texts are equal.
- `Subset`: every expected key is present with an equal value; two objects compare by the same
  rule recursively, anything else (lists included) compares whole.
- `Regex`: each named argument is present and fully matches its pattern: a string value as
  it is, any other value as its canonical text. Patterns are compiled and run by
  `gauntlet.patterns` (the syntax of Python's `re`), bounded in time: one that runs past its
  limit raises `PatternTimeout`, never "no match", which would let a forbidden call pass.

Order of the expected calls (`Order`): `exact` (the observed calls are the expected ones, call
for call, nothing else), `in_order` (the expected calls appear as a subsequence, others allowed
between), `any_order` (each expected call is matched by a distinct observed call: a maximum
bipartite matching, so a call that fits two expectations is never spent on the wrong one).
Under every order, the calls within one observed step may be matched in any order.

Tool accuracy is `1 - d / max(len(expected), len(observed))`, `d` the Levenshtein distance
between the two sequences of `(name, canonical arguments)` tokens, each step's calls sorted
by token first; two empty sequences score 1.0. The distance never exceeds the longer length,
so the score stays within 0..1: extra calls and duplicates cost, and never raise it. Worked
examples, one call per step (A, B, C distinct calls):

- expected A B C, observed A B B C: one insertion, `1 - 1/4 = 0.75`.
- expected A B C, observed A C: one deletion, `1 - 1/3 ≈ 0.667`.
- expected A, observed A A A: two insertions, `1 - 2/3 ≈ 0.333` (never above 1).
- expected A B C, observed A X C: one substitution, `1 - 1/3 ≈ 0.667`.
- expected A then B, observed A and B in one step, written B, A: `1.0` (sorted in the step).

`judge` applies a `TrajectorySpec` to an observed trajectory and returns a
`TrajectoryVerdict`; its docstring says how the expected side of the accuracy is formed
when the expected calls are matchers rather than calls.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gauntlet.canonical import canonical_text
from gauntlet.display import clipped
from gauntlet.errors import TargetContractError
from gauntlet.patterns import PatternError, UserPattern, user_pattern
from gauntlet.strict_json import json_kind, loads

SHOWN = 80
"""The most characters of one call's arguments a reason quotes."""

Token = tuple[str, str]
"""A call as tool accuracy compares it: its name and its canonical arguments."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class ArgumentsError:
    """Why a call's arguments text is not a JSON object."""

    why: str


def decode_arguments(text: str) -> dict[str, Any] | ArgumentsError:
    """Read a call's arguments, as the target contract keeps them (JSON text), strictly.

    The project's strict reader refuses duplicate keys, `NaN` and `Infinity`, numbers out of
    range and documents nested too deeply; anything but an object is refused here.

    Returns:
        The arguments, or an `ArgumentsError` saying why they cannot be read.
    """
    try:
        value = loads(text, "arguments")
    except TargetContractError as exc:
        return ArgumentsError(str(exc))
    if not isinstance(value, dict):
        return ArgumentsError(f"arguments are a JSON {json_kind(value)}, not an object")
    return value


@dataclass(frozen=True)
class Call:
    """One tool call as observed: a name, decoded arguments and, optionally, its step index."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    step: int | None = None
    """The step the call belongs to, when calls arrive as one list (see `group_steps`)."""

    @property
    def token(self) -> Token:
        """What tool accuracy compares: the name and the canonical arguments."""
        return (self.name, canonical_text(self.arguments))

    def __str__(self) -> str:
        return f"{self.name}({clipped(canonical_text(self.arguments), SHOWN)})"


Steps = Sequence[Sequence[Call]]
"""A trajectory: its steps in order, each the calls issued together."""


def group_steps(calls: Sequence[Call]) -> list[list[Call]]:
    """Steps from one list of calls: by their step indexes, or one call a step when none has one.

    Calls sharing a step index form one step, steps in ascending index, calls within a step
    in the order given.

    Raises:
        ValueError: some calls carry a step index and others do not.
    """
    indexes = [call.step for call in calls if call.step is not None]
    if not indexes:
        return [[call] for call in calls]
    if len(indexes) < len(calls):
        raise ValueError("either every call carries a step index or none does")
    steps: dict[int, list[Call]] = {}
    for index, call in zip(indexes, calls, strict=True):
        steps.setdefault(index, []).append(call)
    return [steps[index] for index in sorted(steps)]


def normalised(steps: Steps) -> list[list[Call]]:
    """Each step's calls sorted by token, so the order within a step no longer shows."""
    return [sorted(step, key=lambda call: call.token) for step in steps]


# ---------------------------------------------------------------- argument matchers


@dataclass(frozen=True)
class Exact:
    """The arguments are exactly these, compared as canonical JSON."""

    arguments: dict[str, Any]

    def matches(self, arguments: Mapping[str, Any]) -> bool:
        """Whether `arguments` equal the expected ones, key order aside."""
        return canonical_text(arguments) == canonical_text(self.arguments)

    def __str__(self) -> str:
        return f"exact {clipped(canonical_text(self.arguments), SHOWN)}"


@dataclass(frozen=True)
class Subset:
    """The arguments hold at least these keys with equal values, recursively into objects."""

    arguments: dict[str, Any]

    def matches(self, arguments: Mapping[str, Any]) -> bool:
        """Whether every expected key is in `arguments` with an equal (or containing) value."""
        return _contains(arguments, self.arguments)

    def __str__(self) -> str:
        return f"subset {clipped(canonical_text(self.arguments), SHOWN)}"


def _contains(observed: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    return all(
        key in observed and _value_contains(observed[key], value) for key, value in expected.items()
    )


def _value_contains(observed: Any, expected: Any) -> bool:
    if isinstance(observed, dict) and isinstance(expected, dict):
        return _contains(observed, expected)
    return canonical_text(observed) == canonical_text(expected)


@dataclass(frozen=True)
class Regex:
    """Each named argument is present and its text fully matches the pattern given for it.

    `where` names the matcher in its file (`forbid_calls[0]`), so a pattern that runs past
    its time limit is named as `forbid_calls[0].arguments.<name>`.

    Raises:
        ValueError: a pattern is not a regular expression (when the matcher is made).
    """

    patterns: dict[str, str]
    where: str = field(default="", compare=False)
    _compiled: dict[str, UserPattern] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled: dict[str, UserPattern] = {}
        for name, pattern in self.patterns.items():
            try:
                where = f"{self.where}.arguments.{name}" if self.where else f"arguments.{name}"
                compiled[name] = user_pattern(pattern, where)
            except PatternError as exc:
                raise ValueError(f"the pattern for argument {name!r} is {exc}") from None
        object.__setattr__(self, "_compiled", compiled)

    def matches(self, arguments: Mapping[str, Any]) -> bool:
        """Whether every named argument is present and fully matches its pattern.

        Raises:
            PatternTimeout: a pattern ran past its time limit: whether it matches is unknown.
        """
        return all(
            name in arguments and pattern.fullmatch(_text(arguments[name]))
            for name, pattern in self._compiled.items()
        )

    def __str__(self) -> str:
        return f"regex {clipped(canonical_text(self.patterns), SHOWN)}"


def _text(value: Any) -> str:
    """An argument as a pattern reads it: a string as it is, anything else as canonical JSON."""
    return value if isinstance(value, str) else canonical_text(value)


Matcher = Exact | Subset | Regex


@dataclass(frozen=True)
class CallPattern:
    """An expected or forbidden call: a tool name and, optionally, a matcher of its arguments."""

    name: str
    arguments: Matcher | None = None
    """`None` accepts any arguments."""

    def matches(self, call: Call) -> bool:
        """Whether `call` has this name and arguments the matcher accepts."""
        return call.name == self.name and (
            self.arguments is None or self.arguments.matches(call.arguments)
        )

    @property
    def reference(self) -> Token:
        """The token that stands for this call in tool accuracy when no observed call matched.

        An exact matcher's token is the call's own; any other's cannot equal an observed
        token (canonical arguments always start with `{`).
        """
        if isinstance(self.arguments, Exact):
            return (self.name, canonical_text(self.arguments.arguments))
        return (self.name, f"~{self.arguments}")

    def __str__(self) -> str:
        return self.name if self.arguments is None else f"{self.name}({self.arguments})"


# ---------------------------------------------------------------- tool accuracy


def levenshtein(first: Sequence[_T], second: Sequence[_T]) -> int:
    """The edit distance: fewest insertions, deletions and substitutions turning one into the other.

    The textbook dynamic programme, O(n·m) time and O(m) memory, over any items that compare
    with `==`: trajectories are a few dozen calls at most.
    """
    previous = list(range(len(second) + 1))
    for row, item in enumerate(first, start=1):
        current = [row]
        for column, other in enumerate(second, start=1):
            current.append(
                min(
                    previous[column] + 1,  # delete `item`
                    current[column - 1] + 1,  # insert `other`
                    previous[column - 1] + (item != other),  # keep or substitute
                )
            )
        previous = current
    return previous[-1]


def _flat_tokens(steps: Sequence[Sequence[Token]]) -> list[Token]:
    return [token for step in steps for token in sorted(step)]


def _accuracy(expected: Sequence[Sequence[Token]], observed: Sequence[Sequence[Token]]) -> float:
    want, got = _flat_tokens(expected), _flat_tokens(observed)
    longest = max(len(want), len(got))
    if longest == 0:
        return 1.0
    return 1 - levenshtein(want, got) / longest


def tool_accuracy(expected: Steps, observed: Steps) -> float:
    """`1 - Levenshtein distance / longer length` over the `(name, canonical arguments)` tokens.

    Each step's calls are sorted by token before the sequences are compared, so the order of
    parallel calls does not count; the step boundaries themselves do not either (the tokens
    are compared as one sequence). Two empty trajectories score 1.0; the score is always
    within 0..1. See the module's docstring for worked examples.
    """
    return _accuracy(_tokens(expected), _tokens(observed))


def _tokens(steps: Steps) -> list[list[Token]]:
    return [[call.token for call in step] for step in steps]


# ---------------------------------------------------------------- order


class Order(enum.StrEnum):
    """How the expected calls must be ordered among the observed ones."""

    EXACT = "exact"
    IN_ORDER = "in_order"
    ANY_ORDER = "any_order"


Place = tuple[int, int]
"""Where an observed call is: its step's index and its index within the step."""


def _max_matching(left: int, right: int, fits: Callable[[int, int], bool]) -> dict[int, int]:
    """A maximum bipartite matching, left vertex to right vertex (Kuhn's augmenting paths).

    Each left vertex in turn looks for a free right vertex it fits, or one whose owner can
    move to another: O(left · edges). Recursion is as deep as the longest augmenting path,
    at most `left`: far below Python's limit for trajectories.
    """
    edges = [[other for other in range(right) if fits(one, other)] for one in range(left)]
    owner: dict[int, int] = {}

    def augment(one: int, seen: set[int]) -> bool:
        for other in edges[one]:
            if other not in seen:
                seen.add(other)
                if other not in owner or augment(owner[other], seen):
                    owner[other] = one
                    return True
        return False

    for one in range(left):
        augment(one, set())
    return {one: other for other, one in owner.items()}


def _all_matched(patterns: Sequence[CallPattern], calls: Sequence[Call]) -> dict[int, int] | None:
    """Each pattern paired with a distinct call it matches, or `None` when that is impossible."""
    found = _max_matching(len(patterns), len(calls), lambda p, c: patterns[p].matches(calls[c]))
    return found if len(found) == len(patterns) else None


@dataclass(frozen=True)
class _Outcome:
    """What an order check found: which observed call each expected call took, and any failure."""

    assignment: dict[int, Place]
    failure: tuple[int, str] | None = None
    """The step where the order departed and the reason, when it failed."""


def _in_order(expected: Sequence[CallPattern], steps: Steps) -> _Outcome:
    """The expected calls as a subsequence: each step takes the longest run it can match.

    Taking the longest run is never worse than a shorter one: a later step can match anything
    a shorter run would have left to it, since the remaining expected calls are a suffix.
    """
    assignment: dict[int, Place] = {}
    cursor = 0
    last_step = -1
    for index, step in enumerate(steps):
        taken: dict[int, int] = {}
        while cursor + len(taken) < len(expected):
            wider = _all_matched(expected[cursor : cursor + len(taken) + 1], step)
            if wider is None:
                break
            taken = wider
        if taken:
            assignment.update({cursor + p: (index, c) for p, c in taken.items()})
            cursor += len(taken)
            last_step = index
    if cursor == len(expected):
        return _Outcome(assignment)
    reason = (
        f"order in_order: {expected[cursor]} was not called"
        + (f" after step {last_step + 1}" if last_step >= 0 else "")
        + f"; calls: {show(steps)}"
    )
    return _Outcome(assignment, (last_step + 1, reason))


def _exact(expected: Sequence[CallPattern], steps: Steps) -> _Outcome:
    """Call for call: step k's calls are the next `len(step k)` expected ones, in any order."""
    cursor = 0
    for index, step in enumerate(steps):
        wanted = expected[cursor : cursor + len(step)]
        if len(wanted) < len(step) or _all_matched(wanted, step) is None:
            shown = ", ".join(str(pattern) for pattern in wanted) or "no call"
            reason = (
                f"order exact: step {index + 1} made "
                f"{', '.join(str(call) for call in step)} where {shown} was expected; "
                f"calls: {show(steps)}"
            )
            return _Outcome({}, (index, reason))
        cursor += len(step)
    if cursor < len(expected):
        missing = ", ".join(str(pattern) for pattern in expected[cursor:])
        reason = f"order exact: the calls ended before {missing}; calls: {show(steps)}"
        return _Outcome({}, (len(steps), reason))
    return _Outcome({})


def _any_order(expected: Sequence[CallPattern], steps: Steps) -> _Outcome:
    places = [
        (index, position) for index, step in enumerate(steps) for position in range(len(step))
    ]
    found = _max_matching(
        len(expected),
        len(places),
        lambda p, c: expected[p].matches(steps[places[c][0]][places[c][1]]),
    )
    assignment = {pattern: places[call] for pattern, call in found.items()}
    if len(found) == len(expected):
        return _Outcome(assignment)
    missing = ", ".join(str(expected[p]) for p in range(len(expected)) if p not in found)
    reason = f"order any_order: no distinct call matched {missing}; calls: {show(steps)}"
    return _Outcome(assignment, (len(steps), reason))


# ---------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class TrajectorySpec:
    """What one case expects of the trajectory; a check left at its default is not made."""

    expect_calls: tuple[CallPattern, ...] = ()
    order: Order = Order.IN_ORDER
    forbid_calls: tuple[CallPattern, ...] = ()
    max_calls: int | None = None
    min_tool_accuracy: float | None = None


@dataclass(frozen=True)
class TrajectoryVerdict:
    """Whether a trajectory met its spec, why not, its tool accuracy and where it went wrong."""

    passed: bool
    reasons: tuple[str, ...]
    """One per failed check, each naming the check and showing the calls as observed."""
    tool_accuracy: float
    departed_at: int | None
    """The index (from 0) of the first step where a failed check places the departure;
    `len(steps)` when the trajectory ended before what was expected; `None` when it passed."""


def show(steps: Steps) -> str:
    """The calls compactly, each step numbered from 1, parallel calls joined by ` & `."""
    if not any(steps):
        return "no calls"
    return " | ".join(
        f"{index}: " + " & ".join(str(call) for call in step)
        for index, step in enumerate(steps, start=1)
        if step
    )


def judge(spec: TrajectorySpec, observed: Steps) -> TrajectoryVerdict:
    """Apply every check `spec` states to `observed`; the verdict names each that failed.

    The observed steps are normalised first (each step's calls sorted by token), so the order
    of parallel calls changes nothing: not the verdict, the reasons, the accuracy or the
    departure.

    Tool accuracy needs expected *calls*, and the spec holds matchers: each expected call
    that the order check paired with an observed call stands as that call, each unpaired one
    as its `CallPattern.reference`. They keep the expected order (under `any_order`, the
    order of the calls they matched, unpaired ones last), and consecutive ones paired within
    one observed step form one step, so a correct parallel step scores as a correct one.
    Under `exact` the pairing is `in_order`'s, which is defined even when `exact` fails.
    """
    steps = normalised(observed)
    expected = spec.expect_calls
    pairing = (
        _any_order(expected, steps) if spec.order is Order.ANY_ORDER else _in_order(expected, steps)
    )
    order_check = _exact(expected, steps) if spec.order is Order.EXACT else pairing
    failures: list[tuple[int, str]] = []
    if order_check.failure is not None:
        failures.append(order_check.failure)

    failures += _forbidden(spec, steps)
    places = [index for index, step in enumerate(steps) for _ in step]
    if spec.max_calls is not None and len(places) > spec.max_calls:
        failures.append(
            (
                places[spec.max_calls],
                f"max_calls: {len(places)} calls made where at most {spec.max_calls} may be; "
                f"calls: {show(steps)}",
            )
        )

    resolved = _resolved(expected, steps, pairing.assignment, spec.order)
    observed_tokens = _tokens(steps)
    accuracy = _accuracy(resolved, observed_tokens)
    if spec.min_tool_accuracy is not None and accuracy < spec.min_tool_accuracy:
        want, got = _flat_tokens(resolved), _flat_tokens(observed_tokens)
        same = next(
            (n for n, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
            min(len(want), len(got)),
        )
        departed = places[same] if same < len(places) else len(steps)
        failures.append(
            (
                departed,
                f"min_tool_accuracy: {accuracy:.3f} is below {spec.min_tool_accuracy:.3f}; "
                f"calls: {show(steps)}",
            )
        )

    return TrajectoryVerdict(
        passed=not failures,
        reasons=tuple(reason for _, reason in failures),
        tool_accuracy=accuracy,
        departed_at=min((index for index, _ in failures), default=None),
    )


def _forbidden(spec: TrajectorySpec, steps: Steps) -> list[tuple[int, str]]:
    """Each call of `steps` that a `forbid_calls` pattern matches, with its step's index."""
    return [
        (
            index,
            f"forbid_calls: step {index + 1} called {call}, which {pattern} forbids; "
            f"calls: {show(steps)}",
        )
        for index, step in enumerate(steps)
        for call in step
        for pattern in spec.forbid_calls
        if pattern.matches(call)
    ]


def _resolved(
    expected: Sequence[CallPattern], steps: Steps, assignment: dict[int, Place], order: Order
) -> list[list[Token]]:
    """The expected side of tool accuracy, as `judge`'s docstring defines it."""
    indexes = list(range(len(expected)))
    if order is Order.ANY_ORDER:
        indexes.sort(key=lambda p: assignment.get(p, (len(steps), p)))
    groups: list[list[Token]] = []
    previous: int | None = None
    for pattern in indexes:
        place = assignment.get(pattern)
        if place is None:
            groups.append([expected[pattern].reference])
            previous = None
            continue
        token = steps[place[0]][place[1]].token
        if previous == place[0]:
            groups[-1].append(token)
        else:
            groups.append([token])
        previous = place[0]
    return groups
