"""Property tests: whatever the input, the loader returns suites or raises its own error."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.cases.loader import parse_suite
from gauntlet.cases.model import AttackType, GateName, RefusalKind
from gauntlet.errors import ConfigErrors

KEYS = [
    "suite", "gate", "version", "threshold", "key_version", "cases", "id", "language",
    "prompt", "tags", "expect_grounded", "must_contain", "must_not_contain", "attack_type",
    "kind", "expected", "<<", "treshold",
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(
        [g.value for g in GateName]
        + [a.value for a in AttackType]
        + [k.value for k in RefusalKind]
        + ["en", "es", "es-MX", "yes", "no", "on", ".nan", "0", "1.0", "~", ""]
    ),
)

documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), children, max_size=6
        ),
    ),
    max_leaves=40,
)

suite_shaped = st.fixed_dictionaries(
    {
        "suite": st.one_of(st.just("s"), scalars),
        "gate": st.one_of(st.sampled_from([g.value for g in GateName]), scalars),
        "version": st.one_of(st.just(1), scalars),
        "threshold": st.one_of(st.just(1.0), scalars),
        "cases": st.lists(st.dictionaries(st.sampled_from(KEYS), scalars, max_size=8), max_size=3),
    },
    optional={"key_version": scalars, "tags": documents},
)


def _check(text: str) -> None:
    try:
        parse_suite(text, "h.yaml")
    except ConfigErrors as exc:
        for error in exc.errors:
            assert error.path == "h.yaml"
            assert error.line is not None and error.line >= 1
            assert error.column is not None and error.column >= 1
            assert error.message


@given(st.text(max_size=400))
def test_arbitrary_text_loads_or_raises_only_the_loaders_error(text: str) -> None:
    _check(text)


@given(st.binary(max_size=200))
def test_arbitrary_bytes_load_or_raise_only_the_loaders_error(raw: bytes) -> None:
    try:
        parse_suite(raw, "h.yaml")
    except ConfigErrors as exc:
        assert all(error.line is not None for error in exc.errors)


@given(st.one_of(documents, suite_shaped), st.sampled_from([None, True, False]))
def test_arbitrary_yaml_structures_load_or_raise_only_the_loaders_error(
    data: Any, flow: bool | None
) -> None:
    _check(yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True))
