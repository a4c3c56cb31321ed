"""One name per target kind: the target file's `kind`, its spec class, its target class and
the kind the results record are one word, so `http` never means two things."""

from __future__ import annotations

import asyncio
import typing
from pathlib import Path

import pytest

from gauntlet.redact import Redactor
from gauntlet.run.results import TargetInfo
from gauntlet.targets.build import (
    BuiltTarget,
    build_callable_target,
    build_file_target,
    build_gauntlet_target,
    build_toy_target,
)
from gauntlet.targets.spec import GauntletSpec, TargetSpec
from gauntlet.targets.target_file import load_target_file

_RESPONSE = "  citations: {absent: true}\n  context_ids: {absent: true}\n"
FILES = {
    "gauntlet": "version: 1\nkind: gauntlet\nurl: http://native.test/ask\n",
    "http": (
        "version: 1\nkind: http\nurl: http://rag.test/answer\nbody: {q: '{{ prompt }}'}\n"
        f"response:\n  text: answer\n{_RESPONSE}  refused: {{absent: true}}\n"
        "  escalated: {absent: true}\n"
    ),
    "openai-chat": (
        "version: 1\nkind: openai-chat\nbase_url: http://llm.test/v1\nmodel: m\n"
        f"response:\n{_RESPONSE}  escalated: {{absent: true}}\n"
    ),
}
"""A smallest file of each kind a target file may have."""


def _closed(built: BuiltTarget) -> BuiltTarget:
    asyncio.run(built.target.aclose())
    return built


def test_every_kind_of_target_file_is_checked_here() -> None:
    # Trap: a new kind added to the union without a name checked below.
    kinds = {
        typing.get_args(spec.model_fields["kind"].annotation)[0] for spec in TargetSpec.__args__
    }
    assert kinds == set(FILES)


@pytest.mark.parametrize("kind", sorted(FILES))
def test_each_target_file_kind_has_one_name_from_file_to_class_to_results(
    kind: str, tmp_path: Path
) -> None:
    # Trap: `kind: http` built a `TemplateTarget` recorded as "http-template", while the
    # native `kind: gauntlet` built an `HttpTarget` recorded as "http": one word, two things.
    path = tmp_path / "target.yaml"
    path.write_text(FILES[kind], encoding="utf-8")
    spec = load_target_file(path, environ={}).spec
    built = _closed(
        build_file_target(path, timeout=None, retries=None, concurrency=1, redactor=Redactor())
    )
    recorded = TargetInfo(kind=built.kind, name=built.name, target_file=str(path))
    assert (spec.kind, recorded.kind) == (kind, kind)
    stem = type(spec).__name__.removesuffix("Spec")
    assert type(built.target).__name__ == f"{stem}Target"


def test_a_url_target_speaks_the_native_contract_and_is_named_so() -> None:
    # Trap: `--http-url` recorded as "http", the word a target file uses for any JSON API.
    built = _closed(
        build_gauntlet_target(
            "http://native.test/ask",
            (),
            timeout=None,
            retries=None,
            concurrency=1,
            redactor=Redactor(),
        )
    )
    native = typing.get_args(GauntletSpec.model_fields["kind"].annotation)[0]
    assert TargetInfo(kind=built.kind, name=built.name).kind == native
    assert type(built.target).__name__ == "GauntletTarget"


def test_targets_named_by_a_flag_record_the_flags_word() -> None:
    toy = _closed(build_toy_target([], concurrency=1))
    assert TargetInfo(kind=toy.kind, name=toy.name).kind == "toy"
    python = build_callable_target("gauntlet.targets.toy:make_toy", concurrency=1)
    assert TargetInfo(kind=python.kind, name=python.name).kind == "callable"
