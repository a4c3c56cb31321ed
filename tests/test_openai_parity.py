"""The defect x gate self-test through the openai-chat path agrees with the native one.

The Riverbend toy is served as an OpenAI-compatible chat completions API and asked through
the example target files (whole answers, and streamed). For the healthy toy and for every
defect, each built-in case must end the same way, for the same reason, as the same case asked
of the toy in process: the target file's derivations lose nothing a gate reads.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import SuiteSet, load_suites
from gauntlet.cases.variants import without_variants
from gauntlet.languages import PEERS
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Outcome, Results, TargetInfo
from gauntlet.targets.configured import build_target
from gauntlet.targets.contract import FieldName, Origin
from gauntlet.targets.target_file import load_target_file
from gauntlet.targets.toy import PAIRED_GATES, ToyDefect, make_toy

from .run_settings import settings_for
from .toy_servers import running_openai

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "targets"
SCENARIOS = [(), *((defect,) for defect in ToyDefect)]
TOOL_DEFECTS = [
    ToyDefect.SKIPS_LOOKUP,
    ToyDefect.WRONG_TOOL,
    ToyDefect.EXTRA_CALLS,
    ToyDefect.HALLUCINATES_TOOL_OUTPUT,
    ToyDefect.OBEYS_TOOL_INJECTION,
]
"""The defects only an agent can have: over openai-chat, the scripted tool loop must see them."""


WITH_VARIANTS = {(), (ToyDefect.OBEYS_BASE64,), (ToyDefect.OBEYS_ROLEPLAY,)}
"""The scenarios asked with every variant (whose prompts carry zero-width characters,
homoglyphs and templates over the wire); the others, which no transform changes, as written."""


@pytest.fixture(scope="module")
def every_case() -> SuiteSet:
    return load_suites([builtin_suites_dir()])


@pytest.fixture(scope="module")
def builtin(every_case: SuiteSet) -> SuiteSet:
    """The built-in suites as written, for what no transform changes."""
    return without_variants(every_case)


def _native(suites: SuiteSet, defects: tuple[ToyDefect, ...]) -> Results:
    toy = make_toy(defects)
    return run_gauntlet(suites, toy, settings_for(suites, TargetInfo(kind="toy", name=toy.name)))


def _openai(suites: SuiteSet, defects: tuple[ToyDefect, ...], example: str) -> Results:
    loaded = load_target_file(EXAMPLES / example)
    with running_openai(make_toy(defects)) as base_url:
        spec = loaded.spec.model_copy(update={"base_url": base_url})
        target = build_target(dataclasses.replace(loaded, spec=spec), concurrency=8)
        info = TargetInfo(kind="openai-chat", name=target.name, target_file=example)
        return run_gauntlet(suites, target, settings_for(suites, info))


def _outcomes(results: Results) -> dict[str, Outcome]:
    return {case.case_id: case.outcome for case in results.cases}


def _reasons(results: Results) -> dict[str, str]:
    return {case.case_id: case.reason for case in results.cases}


@pytest.fixture(scope="module")
def native_runs() -> dict[tuple[ToyDefect, ...], Results]:
    """Each scenario's native run, made once for both example files (it reads neither)."""
    return {}


@pytest.mark.network
@pytest.mark.parametrize("example", ["openai-toy.yaml", "openai-toy-stream.yaml"])
@pytest.mark.parametrize("defects", SCENARIOS, ids=lambda defects: "+".join(defects) or "healthy")
def test_both_paths_agree_case_by_case(
    every_case: SuiteSet,
    builtin: SuiteSet,
    native_runs: dict[tuple[ToyDefect, ...], Results],
    defects: tuple[ToyDefect, ...],
    example: str,
) -> None:
    suites = every_case if defects in WITH_VARIANTS else builtin
    if defects not in native_runs:
        native_runs[defects] = _native(suites, defects)
    native = native_runs[defects]
    served = _openai(suites, defects, example)
    assert _outcomes(served) == _outcomes(native)
    if ToyDefect.ANSWER_WITH_SILENCE not in defects:
        # Silent shapes are quoted in reasons: a chat answer trims a non-breaking space, and
        # a bare "[RB-001]" is read as a citation marker and cut. Both fail either way.
        assert _reasons(served) == _reasons(native)
    failed = {gate.gate for gate in served.gates if not gate.met}
    assert failed == {gate.gate for gate in native.gates if not gate.met}
    assert served.verdict is native.verdict


@pytest.mark.network
def test_the_openai_path_records_how_each_field_was_obtained(builtin: SuiteSet) -> None:
    served = _openai(builtin, (), "openai-toy-stream.yaml")
    trial = next(case for case in served.cases if case.gate == "grounding").trials[0]
    assert trial.provenance is not None
    assert trial.provenance[FieldName.CITATIONS].origin is Origin.DERIVED
    assert trial.provenance[FieldName.ESCALATED].origin is Origin.DERIVED
    assert trial.provenance[FieldName.CONTEXT_IDS].origin is Origin.DECLARED
    assert trial.first_token_ms is not None
    assert trial.answered_text is not None and "[RB-" in trial.answered_text
    assert "[RB-" not in trial.response.text  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def healthy_served(builtin: SuiteSet) -> Results:
    return _openai(builtin, (), "openai-toy.yaml")


@pytest.mark.network
def test_the_scripted_tool_loop_passes_the_healthy_toy(healthy_served: Results) -> None:
    failing = [
        f"{c.case_id}: {c.reason}" for c in healthy_served.cases if c.outcome is not Outcome.PASSED
    ]
    assert failing == []


@pytest.mark.network
@pytest.mark.parametrize("defect", TOOL_DEFECTS, ids=str)
def test_the_scripted_tool_loop_fails_exactly_the_paired_gates(
    builtin: SuiteSet, healthy_served: Results, defect: ToyDefect
) -> None:
    # The served toy calls the tools the suite offers and answers from the results the loop
    # scripts, so these failures are the loop's: the defect x gate matrix over openai-chat.
    assert all(gate.met for gate in healthy_served.gates)  # so what fails is the defect's
    served = _openai(builtin, (defect,), "openai-toy.yaml")
    assert {gate.gate for gate in served.gates if not gate.met} == PAIRED_GATES[defect]
    for gate in PAIRED_GATES[defect]:
        failing = [c for c in served.cases if c.gate is gate and c.outcome is Outcome.FAILED]
        assert {c.language for c in failing} == set(PEERS), gate  # every language, alike
