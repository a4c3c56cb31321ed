"""What the site shows, gathered from what the command line uses: suites, toy runs, action.yml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import SuiteSet, load_suites, parse_suite
from gauntlet.cases.model import Case, GateName, SuiteBase
from gauntlet.cases.waivers import WaiverInfo, check_waivers, parse_waivers
from gauntlet.cases.yaml_nodes import Document, decode_source, read_document
from gauntlet.errors import ConfigError, ConfigErrors, ExitCode
from gauntlet.evidence.mapping import CALIFORNIA, CaliforniaMapping, Verification
from gauntlet.evidence.pack import CaseEvidence, EvidencePack, build_pack
from gauntlet.gates import GATE_SPECS
from gauntlet.inventory import inventory_rows, languages_of
from gauntlet.record import field_docstrings
from gauntlet.render.markdown import render_markdown
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import Outcome, TargetInfo
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings
from gauntlet.silence import SILENT_SHAPES
from gauntlet.site.docs import DocPage, find_docs_dir, read_docs
from gauntlet.site.markup import (
    attribute_docstrings,
    describe_shape,
    first_sentence,
    one_paragraph,
    visible_shape,
)
from gauntlet.targets.toy import PAIRED_GATES, ToyDefect, make_toy
from gauntlet.version import __version__

_PACKAGE = Path(__file__).resolve().parent.parent

BUNDLED_ACTION = "_action.yml"
"""Where a wheel carries the repository's `action.yml`, inside the `gauntlet` package."""

RUN_CLOCK = datetime(2026, 1, 1, tzinfo=UTC)
"""The fixed clock of the toy runs, so the same commit always renders the same pages."""

DEFECT_SHOWN = ToyDefect.DROP_CITATIONS
"""The named defect of the second evidence excerpt."""

EXCERPT_SECTIONS = ("Verdict", "Gates", "Failing cases")
"""The sections of the reporter's Markdown that the evidence page quotes."""

POLICY_DEFECT = ToyDefect.SPANISH_UNCITED
"""The named defect of the parity-and-waivers page: it fails in Spanish only."""

POLICY_SECTIONS = ("Verdict", "Parity", "Waivers")
"""The sections of the reporter's Markdown that the parity-and-waivers page quotes."""

POLICY_WAIVERS_SOURCE = "waivers.yaml"
POLICY_WAIVERS = """\
max_days: 90
waivers:
  # Applied: the case fails and the waiver is live on the run's day.
  - case: gnd-es-pool-hours
    reason: the Spanish page's citation markup is being rebuilt by the web team
    owner: maria.lopez
    ticket: https://tracker.example/GOV-123
    created: 2025-12-15
    expires: 2026-02-13
    gates: [grounding]
  # Expired: the case fails, and the failure counts again.
  - case: gnd-es-bulky-waste
    reason: waiting on the sanitation department's Spanish page
    owner: maria.lopez
    ticket: https://tracker.example/GOV-101
    created: 2025-10-01
    expires: 2025-12-01
  # No longer needed: the case passes.
  - case: gnd-en-pool-hours
    reason: the English pool page was being rewritten
    owner: sam.okafor
    ticket: https://tracker.example/GOV-099
    created: 2025-12-20
    expires: 2026-01-31
"""
"""The waivers of the parity-and-waivers page's run, one in each state a run can give, dated
against `RUN_CLOCK`; the build loads them, so they cannot drift from the format."""

EXAMPLE_SOURCE = "my-suites/library.yaml"
EXAMPLE_SUITE = """\
suite: library-grounding
gate: grounding          # grounding | adversarial | refusal | false_positive | golden | trajectory
version: 1               # bump it when the cases change
threshold: 1.0           # fraction of cases that must pass: above 0, at most 1
cases:
  - id: lib-en-hours
    language: en
    prompt: What are the opening hours of the public library?
    expect_grounded: true
    must_contain: ["library"]
  - id: lib-es-hours
    language: es
    prompt: ¿Cuál es el horario de la biblioteca pública?
    expect_grounded: true
    must_contain: ["biblioteca"]
"""
"""The quickstart's case file; the build loads it, so it cannot drift from the schema."""


@dataclass(frozen=True)
class KeyDoc:
    """One key of a case file: its name, whether it must be written, and what it means."""

    name: str
    required: bool
    description: str


@dataclass(frozen=True)
class GateDoc:
    """One gate: what it enforces and the keys its suites and cases add."""

    name: str
    enforces: str
    case_kind: str
    suite_keys: tuple[KeyDoc, ...]
    case_keys: tuple[KeyDoc, ...]


@dataclass(frozen=True)
class DefectDoc:
    """One of the toy's named defects and the gates that must fail on it."""

    name: str
    behaviour: str
    gates: tuple[str, ...]


@dataclass(frozen=True)
class ShapeDoc:
    """One silent answer, written so every character is visible."""

    literal: str
    characters: str


@dataclass(frozen=True)
class ExitDoc:
    """One exit code."""

    code: int
    name: str
    meaning: str


@dataclass(frozen=True)
class InventoryRow:
    """One suite of the inventory."""

    gate: str
    suite: str
    version: int
    threshold: str
    languages: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class Inventory:
    """Suites and cases per gate and language, counted from what was loaded."""

    languages: tuple[str, ...]
    rows: tuple[InventoryRow, ...]
    language_totals: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class Excerpt:
    """One real run against the toy, built into a pack and rendered by the reporter."""

    slug: str
    defects: tuple[str, ...]
    pack: EvidencePack
    failing: tuple[CaseEvidence, ...]
    markdown: str


@dataclass(frozen=True)
class ActionInput:
    """One input of the Action."""

    name: str
    description: str
    required: bool
    default: str | None


@dataclass(frozen=True)
class ActionOutput:
    """One output of the Action."""

    name: str
    description: str


@dataclass(frozen=True)
class ActionDoc:
    """The Action's interface as `action.yml` declares it."""

    name: str
    description: str
    inputs: tuple[ActionInput, ...]
    outputs: tuple[ActionOutput, ...]
    steps: tuple[str, ...]


@dataclass(frozen=True)
class SiteContent:
    """Everything the templates show, gathered once per build."""

    version: str
    notice: str
    inventory: Inventory
    gates: tuple[GateDoc, ...]
    suite_keys: tuple[KeyDoc, ...]
    case_keys: tuple[KeyDoc, ...]
    defects: tuple[DefectDoc, ...]
    shapes: tuple[ShapeDoc, ...]
    excerpts: tuple[Excerpt, ...]
    policy: Excerpt
    """The run of the parity-and-waivers page: `POLICY_DEFECT` with `POLICY_WAIVERS`."""
    policy_waivers: str
    exit_codes: tuple[ExitDoc, ...]
    error_tree: str
    mapping: CaliforniaMapping
    verification: tuple[tuple[str, str], ...]
    action: ActionDoc
    example_suite: str
    example_source: str
    docs: tuple[DocPage, ...]
    """The Documentation pages: `docs/*.md`, rendered."""


def gather_content(
    cases: Sequence[Path] | None = None,
    *,
    action_file: Path | None = None,
    docs_dir: Path | None = None,
) -> SiteContent:
    """Load the suites, run the toy twice, read `action.yml`, and collect the rest.

    Args:
        cases: Case directories or files, as `--cases` takes them; default the built-in suites.
        action_file: The Action's definition; default the one `find_action_file` finds.
        docs_dir: The Markdown pages to render; default the ones `find_docs_dir` finds.

    Raises:
        ConfigErrors: a case file, `action.yml` or a docs page cannot be read or is not what
            it must be.
    """
    suites = load_site_suites(cases)
    parse_suite(EXAMPLE_SUITE, EXAMPLE_SOURCE)  # the quickstart's example must load
    return SiteContent(
        version=__version__,
        notice=CALIFORNIA.alignment_notice,
        inventory=count_inventory(suites),
        gates=describe_gates(),
        suite_keys=(*_keys(SuiteBase, set()), KeyDoc("cases", True, "The cases, at least one.")),
        case_keys=_keys(Case, set()),
        defects=describe_defects(),
        shapes=tuple(
            ShapeDoc(visible_shape(shape), describe_shape(shape)) for shape in SILENT_SHAPES
        ),
        excerpts=(
            toy_excerpt(suites, "healthy", ()),
            toy_excerpt(suites, "defect", [DEFECT_SHOWN]),
        ),
        policy=policy_excerpt(),
        policy_waivers=POLICY_WAIVERS,
        exit_codes=describe_exit_codes(),
        error_tree=error_tree(),
        mapping=CALIFORNIA,
        verification=tuple((status.value, status.meaning) for status in Verification),
        action=read_action(action_file or find_action_file()),
        example_suite=EXAMPLE_SUITE,
        example_source=EXAMPLE_SOURCE,
        docs=read_docs(docs_dir or find_docs_dir()),
    )


# ---------------------------------------------------------------- suites and inventory


def load_site_suites(cases: Sequence[Path] | None) -> SuiteSet:
    """Load the suites, naming each file from its directory (`suites/...`), not the machine's.

    The built-in directory is labelled `suites`; any other directory by its own name.
    """
    roots = list(cases) if cases else [builtin_suites_dir()]
    loaded = load_suites(roots)
    label = None if cases else "suites"
    return SuiteSet(
        tuple(replace(s, source=_relative_source(s.source, roots, label)) for s in loaded.suites)
    )


def _relative_source(source: str, roots: Sequence[Path], label: str | None) -> str:
    path = Path(source)
    for root in roots:
        if path == root:
            return root.name
        if path.is_relative_to(root):
            top = label or root.resolve().name
            return str(PurePosixPath(top, *path.relative_to(root).parts))
    return path.name  # pragma: no cover - the loader names files under the roots it was given


def count_inventory(suites: SuiteSet) -> Inventory:
    """The inventory table, from `gauntlet.inventory` as `gauntlet inventory` counts it."""
    rows = inventory_rows(suites)
    languages = tuple(languages_of(suites))
    return Inventory(
        languages=languages,
        rows=tuple(
            InventoryRow(
                gate=row["gate"],
                suite=row["suite"],
                version=row["version"],
                threshold=f"{row['threshold']:g}",
                languages=tuple(row["languages"].get(lang, 0) for lang in languages),
                total=row["total"],
            )
            for row in rows
        ),
        language_totals=tuple(
            sum(row["languages"].get(lang, 0) for row in rows) for lang in languages
        ),
        total=sum(row["total"] for row in rows),
    )


# ---------------------------------------------------------------- gates, defects, codes


def describe_gates() -> tuple[GateDoc, ...]:
    """Every gate, as its spec declares it: what it enforces and the keys it adds."""
    common_case = set(Case.model_fields)
    common_suite = set(SuiteBase.model_fields)
    return tuple(
        GateDoc(
            name=spec.name.value,
            enforces=first_sentence(spec.doc),
            case_kind=first_sentence(spec.case_model.__doc__),
            suite_keys=_keys(spec.suite_model, common_suite | {"gate", "cases"}),
            case_keys=_keys(spec.case_model, common_case),
        )
        for spec in GATE_SPECS.values()
    )


def _keys(model: type[Any], skip: set[str]) -> tuple[KeyDoc, ...]:
    docs = field_docstrings(model)
    return tuple(
        KeyDoc(name, field.is_required(), one_paragraph(field.description or docs.get(name, "")))
        for name, field in model.model_fields.items()
        if name not in skip
    )


def describe_defects() -> tuple[DefectDoc, ...]:
    """Every named defect, what the toy then does, and the gates that must fail on it."""
    docs = attribute_docstrings(ToyDefect)
    return tuple(
        DefectDoc(
            name=defect.value,
            behaviour=docs.get(defect.name, ""),
            gates=tuple(gate.value for gate in GateName if gate in PAIRED_GATES[defect]),
        )
        for defect in ToyDefect
    )


def describe_exit_codes() -> tuple[ExitDoc, ...]:
    """Every exit code with the meaning its docstring gives."""
    docs = attribute_docstrings(ExitCode)
    return tuple(ExitDoc(int(code), code.name, docs.get(code.name, "")) for code in ExitCode)


_FENCE = re.compile(r"```\n(?P<tree>.*?)\n```", re.DOTALL)


def error_tree() -> str:
    """The exception tree drawn in `gauntlet.errors`' docstring."""
    import gauntlet.errors

    found = _FENCE.search(gauntlet.errors.__doc__ or "")
    return found["tree"] if found else ""


# ---------------------------------------------------------------- the toy runs


def toy_excerpt(
    suites: SuiteSet,
    slug: str,
    defects: Sequence[ToyDefect],
    *,
    waivers: Sequence[WaiverInfo] = (),
    sections: Sequence[str] = EXCERPT_SECTIONS,
) -> Excerpt:
    """Run the toy with `defects` and `waivers` on a fixed clock; build and render the pack.

    The Markdown kept is the reporter's `sections`.
    """
    toy = make_toy(defects)
    info = TargetInfo(kind="toy", name=toy.name, defects=tuple(d.value for d in defects))
    settings = RunSettings(target=info, plan=plan_of(suites), waivers=tuple(waivers))
    results = run_gauntlet(suites, toy, settings, clock=lambda: RUN_CLOCK)
    pack = build_pack(results)
    return Excerpt(
        slug=slug,
        defects=info.defects,
        pack=pack,
        failing=tuple(case for case in pack.cases if case.outcome is Outcome.FAILED),
        markdown=markdown_sections(render_markdown(pack), sections),
    )


def policy_excerpt() -> Excerpt:
    """The built-in suites against the toy with `POLICY_DEFECT`, under `POLICY_WAIVERS`.

    Always the built-in suites, whatever `--cases` documents: the waivers name their cases.
    """
    suites = load_site_suites(None)
    loaded = parse_waivers(POLICY_WAIVERS, POLICY_WAIVERS_SOURCE, today=RUN_CLOCK.date())
    return toy_excerpt(
        suites,
        "policy",
        [POLICY_DEFECT],
        waivers=check_waivers(loaded, suites),
        sections=POLICY_SECTIONS,
    )


def markdown_sections(markdown: str, titles: Sequence[str]) -> str:
    """The `## ` sections of `markdown` whose titles are in `titles`, in document order."""
    kept: list[str] = []
    keep = False
    for line in markdown.splitlines():
        if line.startswith("## "):
            keep = line[3:].strip() in titles
        elif line.startswith("# "):
            keep = False
        if keep:
            kept.append(line)
    return "\n".join(kept).strip("\n") + "\n"


# ---------------------------------------------------------------- action.yml


def find_action_file(package: Path = _PACKAGE) -> Path:
    """The Action's `action.yml`: carried in the wheel, or at the root of a source checkout."""
    bundled = package / BUNDLED_ACTION
    if bundled.is_file():
        return bundled
    return package.parent.parent / "action.yml"


def read_action(path: Path) -> ActionDoc:
    """The inputs, outputs and steps `action.yml` declares, read with the strict YAML reader.

    Raises:
        ConfigErrors: the file cannot be read, is not strict YAML, or lacks what the page shows.
    """
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigErrors(
            [
                ConfigError(
                    source,
                    f"cannot read the Action's definition: {exc.strerror or exc}",
                    hint="build the site from a source checkout, or from a wheel that carries "
                    f"action.yml as gauntlet/{BUNDLED_ACTION}",
                )
            ]
        ) from None
    document = read_document(decode_source(raw, source), source)
    top = _mapping(document, (), source)
    inputs = _mapping(document, ("inputs",), source)
    outputs = _mapping(document, ("outputs",), source)
    steps = _mapping(document, ("runs",), source).get("steps", [])
    return ActionDoc(
        name=_text(top.get("name")),
        description=one_paragraph(_text(top.get("description"))),
        inputs=tuple(
            ActionInput(
                name=name,
                description=one_paragraph(_text(spec.get("description"))),
                required=spec.get("required") is True,
                default=None if "default" not in spec else _text(spec["default"]),
            )
            for name in inputs
            for spec in [_mapping(document, ("inputs", name), source)]
        ),
        outputs=tuple(
            ActionOutput(
                name=name,
                description=one_paragraph(
                    _text(_mapping(document, ("outputs", name), source).get("description"))
                ),
            )
            for name in outputs
        ),
        steps=tuple(
            _text(step.get("name")) for step in steps if isinstance(step, dict) and "name" in step
        ),
    )


def _mapping(document: Document, where: tuple[str, ...], source: str) -> dict[str, Any]:
    value: Any = document.data
    for key in where:
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, dict):
        return value
    mark = document.mark_for(where)
    raise ConfigErrors(
        [
            ConfigError(
                source,
                f"{'.'.join(where) or 'the document'}: expected a mapping",
                line=mark.line,
                column=mark.column,
            )
        ]
    )


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
