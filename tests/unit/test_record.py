"""The record bases: every layer's records derive from `Record` or `StrictRecord`."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
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


START_UP = """\
import json
import gauntlet.cli.app, gauntlet.render.console, gauntlet.run.engine, gauntlet.targets.client
from gauntlet.cases.waivers import WaiversFile
from gauntlet.record import Record

def records(base):
    for sub in base.__subclasses__():
        yield sub
        yield from records(sub)

built = sorted(
    f"{r.__module__}.{r.__qualname__}" for r in records(Record) if r.__pydantic_complete__
)
before = WaiversFile.__pydantic_complete__
WaiversFile.model_json_schema()
print(json.dumps([built, before, WaiversFile.__pydantic_complete__]))
"""


def test_a_record_is_built_on_first_use_not_when_its_module_is_imported() -> None:
    # Trap: every record's validator built at import, so `gauntlet run` pays for the judge's,
    # the history's, the waivers' and the labels' models it never uses before its first ask.
    completed = subprocess.run(  # our interpreter, a fixed script
        [sys.executable, "-c", START_UP], capture_output=True, text=True, check=True
    )
    built, before, after = json.loads(completed.stdout)
    unused = ("gauntlet.judge.", "gauntlet.history.", "gauntlet.cases.waivers.", "gauntlet.site.")
    assert [name for name in built if name.startswith(unused)] == []
    assert (before, after) == (False, True)


ADAPTERS = """\
import json
import gauntlet.cli.app, gauntlet.render.console, gauntlet.run.engine, gauntlet.targets.build
from gauntlet.cases.model import SUITE_ADAPTER
from gauntlet.targets.spec import TARGET_FILE_ADAPTER

adapters = (SUITE_ADAPTER, TARGET_FILE_ADAPTER)
before = [adapter.pydantic_complete for adapter in adapters]
TARGET_FILE_ADAPTER.json_schema()
SUITE_ADAPTER.json_schema()
print(json.dumps([before, [adapter.pydantic_complete for adapter in adapters]]))
"""


def test_a_file_adapter_is_built_on_first_use_not_when_its_module_is_imported() -> None:
    # Trap: a module-level TypeAdapter over a union of records builds every member's
    # validator at import, undoing the records' deferred build for a run that never reads
    # a target file (and paying for it before the first ask of every run).
    completed = subprocess.run(
        [sys.executable, "-c", ADAPTERS], capture_output=True, text=True, check=True
    )
    before, after = json.loads(completed.stdout)
    assert before == [False, False]
    assert after == [True, True]
