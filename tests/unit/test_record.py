"""The record bases: every layer's records derive from `Record` or `StrictRecord`."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pydantic
import pytest
from pydantic import ValidationError

import gauntlet
from gauntlet.record import Record, StrictRecord


class _Loose(Record):
    count: int
    """How many."""


class _Strict(StrictRecord):
    count: int
    """How many."""


def test_a_record_is_frozen_refuses_unknown_keys_and_describes_its_fields() -> None:
    record = _Loose(count=1)
    with pytest.raises(ValidationError, match="frozen"):
        record.count = 2  # type: ignore[misc]
    with pytest.raises(ValidationError, match="extra"):
        _Loose.model_validate({"count": 1, "other": 2})
    assert _Loose.model_json_schema()["properties"]["count"]["description"] == "How many."


def test_a_record_converts_what_a_strict_record_refuses() -> None:
    assert _Loose.model_validate({"count": "1"}).count == 1
    with pytest.raises(ValidationError, match="int_type"):
        _Strict.model_validate({"count": "1"})


def test_a_strict_record_is_still_a_frozen_record_with_described_fields() -> None:
    with pytest.raises(ValidationError, match="extra"):
        _Strict.model_validate({"count": 1, "other": 2})
    with pytest.raises(ValidationError, match="frozen"):
        _Strict(count=1).count = 2  # type: ignore[misc]
    assert _Strict.model_json_schema()["properties"]["count"]["description"] == "How many."


def _frozen_forbidding_bases() -> list[str]:
    """Classes in src/ that write out the record base's settings instead of deriving from it."""
    found = []
    for module in _modules():
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, pydantic.BaseModel)
                and value.__module__ == module.__name__
                and not issubclass(value, Record)
                and value.model_config.get("frozen")
                and value.model_config.get("extra") == "forbid"
                and value.model_config.get("use_attribute_docstrings")
                and set(value.model_config) - {"strict"}
                == {"frozen", "extra", "use_attribute_docstrings"}
            ):
                found.append(f"{module.__name__}.{name}")
    return found


def _modules() -> list[ModuleType]:
    return [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(gauntlet.__path__, "gauntlet.")
        if not info.name.endswith(".__main__")  # runs the command line when imported
    ]


def test_no_model_writes_out_the_record_base_instead_of_deriving_from_it() -> None:
    assert _frozen_forbidding_bases() == []
