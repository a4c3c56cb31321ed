"""The README and docs match what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from gauntlet.cases.model import (
    CASE_MODELS,
    SUITE_MODELS,
    Case,
    GateName,
    JudgeCriterion,
    SuiteBase,
)
from gauntlet.cli import run
from gauntlet.gates import GATE_SPECS
from gauntlet.targets import spec
from gauntlet.targets.toy import PAIRED_GATES
from gauntlet.words import number_word

ROOT = Path(__file__).resolve().parents[2]
CASE_FILES_DOC = (ROOT / "docs" / "case-files.md").read_text(encoding="utf-8")
SELF_TEST_DOC = (ROOT / "docs" / "self-test.md").read_text(encoding="utf-8")
STATUS_DOC = (ROOT / "docs" / "status.md").read_text(encoding="utf-8")
TARGETS_DOC = (ROOT / "docs" / "targets.md").read_text(encoding="utf-8")
BENCHMARK_RESULTS = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")


def _documented_keys(heading: str) -> set[str]:
    section = CASE_FILES_DOC.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {
        cell.strip("` ")
        for row in rows
        for cell in row.split("|")[1:3]
        if cell.strip().startswith("`")
    }


def test_every_suite_key_is_documented_and_no_other() -> None:
    keys = {key for model in SUITE_MODELS.values() for key in model.model_fields}
    assert _documented_keys("Suite keys") == keys


def test_every_shared_case_key_is_documented_and_no_other() -> None:
    assert _documented_keys("Case keys every gate shares") == set(Case.model_fields)


def test_every_judge_criterion_key_is_documented_and_no_other() -> None:
    assert _documented_keys("Judged checks") == set(JudgeCriterion.model_fields)


def test_every_per_gate_case_key_is_documented_and_no_other() -> None:
    section = CASE_FILES_DOC.split("## Case keys per gate\n", 1)[1].split("\n## ", 1)[0]
    documented = {
        (row.split("|")[1].strip(), row.split("|")[2].strip(" `"))
        for row in section.splitlines()
        if row.startswith("| ") and not row.startswith("| gate") and "---" not in row
    }
    actual = {
        (gate.value, key)
        for gate in GateName
        for key in CASE_MODELS[gate].model_fields
        if key not in Case.model_fields
    }
    assert documented == actual


def test_the_suite_model_keys_are_the_base_keys_plus_each_gates_extras() -> None:
    extra = {
        gate: set(model.model_fields) - set(SuiteBase.model_fields)
        for gate, model in SUITE_MODELS.items()
    }
    assert extra == {
        gate: {"cases"}
        | ({"key_version", "match"} if gate is GateName.GOLDEN else set())
        | ({"accepts_absent"} if gate is GateName.GROUNDING else set())
        | ({"elements"} if gate is GateName.DISCLOSURE else set())
        | ({"tools", "max_steps"} if gate in (GateName.ADVERSARIAL, GateName.TRAJECTORY) else set())
        | (
            {"allowed_link_hosts", "transforms"}
            if gate in (GateName.ADVERSARIAL, GateName.REFUSAL)
            else set()
        )
        for gate in GateName
    }


EXPLORE_FINDS = "none in the built-in suites: `gauntlet explore` must find it"
"""The gates column of a pressure defect, which no built-in case reaches."""


def test_the_self_test_defect_table_is_the_toys_pairing() -> None:
    rows = [line.split("|") for line in SELF_TEST_DOC.splitlines() if line.startswith("| `")]
    documented = {row[1].strip(" `"): row[3].strip() for row in rows}
    everything = frozenset(GateName)
    expected = {
        defect.value: f"all {number_word(len(GATE_SPECS))}"
        if gates == everything
        else ", ".join(gate.value for gate in GateName if gate in gates) or EXPLORE_FINDS
        for defect, gates in PAIRED_GATES.items()
    }
    assert documented == expected


def test_the_error_tree_in_the_docs_is_the_one_in_the_code() -> None:
    import gauntlet.errors

    tree = (gauntlet.errors.__doc__ or "").split("```")[1]
    assert tree in (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")


# `benchmarks/bench.py` writes each target as `- TARGET: **WORD** (figures)`, WORD one of
# `met`, `NOT MET` and `not measured`, the figures starting with the headline one.
_BENCHMARK_TARGET = re.compile(
    r"^- (?P<target>.+?): \*\*(?P<word>[^*]+)\*\* \((?P<figures>.*)\)$", re.MULTILINE
)
_BENCHMARKS_ROW = "| benchmarks (`make bench`) |"
# A ratio or a size: "1.192×", "214.9 MB". The first in a target's figures is its headline.
_HEADLINE = re.compile(r"\d[\d,]*(?:\.\d+)?(?:×| MB)")
# The status row for one target: `| `make bench` target: TARGET | WORD: HEADLINE |`.
_TARGET_ROW = re.compile(
    r"^\| `make bench` target: (?P<target>.+?) \| (?P<state>.*?) \|$", re.MULTILINE
)


def _benchmark_section(results: str) -> str:
    section = results.split("\n## Targets\n", 1)[1].split("\n## ", 1)[0]
    return section.split("Not a target", 1)[0]


def _benchmark_targets(results: str) -> dict[str, str]:
    """Each target of RESULTS.md's Targets section, with the verdict word computed for it."""
    return {m["target"]: m["word"] for m in _BENCHMARK_TARGET.finditer(_benchmark_section(results))}


def _benchmark_states(results: str) -> dict[str, str]:
    """Each target of RESULTS.md, with what its status row must say: `WORD: HEADLINE`."""
    states = {}
    for m in _BENCHMARK_TARGET.finditer(_benchmark_section(results)):
        headline = _HEADLINE.search(m["figures"])
        states[m["target"]] = m["word"] + (f": {headline[0]}" if headline else "")
    return states


def _readme_target_rows(readme: str) -> dict[str, str]:
    return {m["target"]: m["state"] for m in _TARGET_ROW.finditer(readme)}


def _stale_rows(rows: dict[str, str], states: dict[str, str]) -> list[str]:
    """How the status page's target rows differ from RESULTS.md's targets (nothing: in step)."""
    problems = [
        f"RESULTS.md has {target!r}: the status page has no row for it"
        if target not in rows
        else f"RESULTS.md says {state!r} of {target!r}; the status row says {rows[target]!r}"
        for target, state in states.items()
        if rows.get(target) != state
    ]
    problems += [
        f"the status page has a row for {target!r}, which RESULTS.md does not list"
        for target in rows.keys() - states.keys()
    ]
    return problems


def _benchmarks_row(readme: str) -> str:
    [row] = [line for line in readme.splitlines() if line.startswith(_BENCHMARKS_ROW)]
    return row.removeprefix(_BENCHMARKS_ROW)


def _disagreement(row: str, targets: dict[str, str]) -> str | None:
    """Why the status row misstates the targets, or None when it states them."""
    missed = {target: word.lower() for target, word in targets.items() if word != "met"}
    if not missed:
        if "not met" in row.lower() or " met" not in row:
            return "RESULTS.md has every target met; the row must say so, and no 'not met'"
        return None
    for target, word in missed.items():
        if target not in row or word not in row.lower():
            return f"RESULTS.md has {target!r} {word}; the row must name it as {word}"
    return None


def test_the_status_row_says_what_benchmarks_results_say_of_the_targets() -> None:
    # The trap: RESULTS.md is regenerated by `make bench`, the status row is typed by hand,
    # and the row went on saying "not met" after every target was met.
    targets = _benchmark_targets(BENCHMARK_RESULTS)
    assert targets, "benchmarks/RESULTS.md lists no targets under ## Targets"
    row = _benchmarks_row(STATUS_DOC)
    problem = _disagreement(row, targets)
    assert problem is None, f"{problem}\nrow:{row}"


def test_the_status_page_has_a_row_for_each_benchmark_target_with_its_figure() -> None:
    # A new measure in RESULTS.md needs its status row, and a rerun of `make bench` that
    # moves a figure needs the row's figure moved too: the row is typed by hand.
    states = _benchmark_states(BENCHMARK_RESULTS)
    assert states, "benchmarks/RESULTS.md lists no targets under ## Targets"
    problems = _stale_rows(_readme_target_rows(STATUS_DOC), states)
    assert not problems, "\n".join(
        [*problems, "copy each target's verdict and headline figure from RESULTS.md"]
    )


_STATES = {"memory under 300 MB": "met: 214.9 MB", "stream within 1.15x": "NOT MET: 1.267×"}


@pytest.mark.parametrize(
    ("readme", "stale"),
    [
        (
            "| `make bench` target: memory under 300 MB | met: 214.9 MB |\n"
            "| `make bench` target: stream within 1.15x | NOT MET: 1.267× |\n",
            [],
        ),
        ("| `make bench` target: memory under 300 MB | met: 214.9 MB |\n", ["no row"]),
        (
            "| `make bench` target: memory under 300 MB | met: 210.0 MB |\n"
            "| `make bench` target: stream within 1.15x | NOT MET: 1.267× |\n",
            ["the status row says 'met: 210.0 MB'"],
        ),
        (
            "| `make bench` target: memory under 300 MB | met: 214.9 MB |\n"
            "| `make bench` target: stream within 1.15x | met: 1.267× |\n",
            ["the status row says 'met: 1.267×'"],
        ),
        (
            "| `make bench` target: memory under 300 MB | met: 214.9 MB |\n"
            "| `make bench` target: stream within 1.15x | NOT MET: 1.267× |\n"
            "| `make bench` target: startup under 1 s | met: 0.9× |\n",
            ["which RESULTS.md does not list"],
        ),
    ],
)
def test_the_target_rows_check_finds_a_missing_stale_or_extra_row(
    readme: str, stale: list[str]
) -> None:
    problems = _stale_rows(_readme_target_rows(readme), _STATES)
    assert len(problems) == len(stale)
    for problem, said in zip(problems, stale, strict=True):
        assert said in problem


def test_the_headline_is_the_first_ratio_or_size_of_a_targets_figures() -> None:
    results = (
        "# Benchmark results\n\n## Targets\n\n"
        "- 50 ms at C = 8, 32: **met** (at worst 1.192×: C=8 1.056×; C=32 1.192×)\n"
        "- 0 ms at C = 32: **NOT MET** (0.311×: engine 3,369 req/s, raw 6,592 req/s)\n"
        "- memory for 20,000 cases under 300 MB: **met** (214.9 MB for 20,000 cases)\n"
        "- streamed within 1.15×: **not measured** (not measured)\n"
        "\nNot a target, for context:\n\n- `gauntlet run` at 50 ms: 1.5× ideal (2.0×)\n"
    )
    assert _benchmark_states(results) == {
        "50 ms at C = 8, 32": "met: 1.192×",
        "0 ms at C = 32": "NOT MET: 0.311×",
        "memory for 20,000 cases under 300 MB": "met: 214.9 MB",
        "streamed within 1.15×": "not measured",
    }


_ALL_MET = {"memory under 300 MB": "met", "0.35x raw at C = 32": "met"}
_ONE_MISSED = {"memory under 300 MB": "met", "0.35x raw at C = 32": "NOT MET"}


@pytest.mark.parametrize(
    ("row", "targets", "agrees"),
    [
        ("done; every target is met there |", _ALL_MET, True),
        ("figures; the throughput targets are not met there |", _ALL_MET, False),
        ("figures only |", _ALL_MET, False),
        ("done; every target is met there |", _ONE_MISSED, False),
        ("figures; some targets are not met there |", _ONE_MISSED, False),
        ("not met there: 0.35x raw at C = 32 |", _ONE_MISSED, True),
        ("not measured: 0.35x raw at C = 32 |", {"0.35x raw at C = 32": "not measured"}, True),
    ],
)
def test_the_benchmarks_row_check_tells_a_true_row_from_a_false_one(
    row: str, targets: dict[str, str], agrees: bool
) -> None:
    assert (_disagreement(row, targets) is None) is agrees


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_target_file_example_loads_and_is_refused_as_the_docs_say(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The worked example is a real target file, and the refusal shown is what it gets."""
    section = _section(TARGETS_DOC, "## Point gauntlet at your feature")
    [example] = re.findall(r"```yaml[^\n]*\n(.*?)```", section, re.DOTALL)
    [refusal] = re.findall(r"```text\n(.*?)```", section, re.DOTALL)
    (tmp_path / "target.yaml").write_text(example, encoding="utf-8")
    (tmp_path / "system-prompt.txt").write_text("You answer questions.", encoding="utf-8")
    (tmp_path / "suites").symlink_to(ROOT / "suites")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSISTANT_API_KEY", "sk-example-not-a-real-key")
    # The port is never dialled: the refusal comes before the first ask.
    code = run(["run", "--target", "target.yaml", "--cases", "suites/", "--quiet"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", refusal)


def test_the_docs_quote_the_llama_cpp_example_as_shipped() -> None:
    # Trap: the docs' example is edited (or the shipped file is) and the two drift: the
    # newcomer copies a file nobody runs, while `make real-llm` runs one nobody reads.
    section = _section(TARGETS_DOC, "## Point gauntlet at your feature")
    [example] = re.findall(r"```yaml[^\n]*\n(.*?)```", section, re.DOTALL)
    shipped = ROOT / "examples" / "targets" / "llama-cpp.yaml"
    assert example == shipped.read_text(encoding="utf-8")
    assert "gauntlet example target llama-cpp > target.yaml" in section


TARGET_FILES_DOC = (ROOT / "docs" / "target-files.md").read_text(encoding="utf-8")


def _target_doc_keys(heading: str) -> set[str]:
    section = TARGET_FILES_DOC.split(f"\n{heading}\n", 1)[1]
    section = re.split(r"\n#{2,3} ", section, maxsplit=1)[0]
    first_table = section.split("\n|", 1)[1].split("\n\n", 1)[0]  # the keys, not placeholders
    return {row.split("|")[1].strip(" `") for row in first_table.splitlines() if "| `" in row}


_TARGET_DOC_TABLES: list[tuple[str, list[type[BaseModel]]]] = [
    ("## Keys every kind shares", [spec._Common]),
    ("## kind: gauntlet", [spec.GauntletSpec]),
    ("## kind: openai-chat", [spec.OpenAIChatSpec]),
    ("### openai-chat `response`", [spec.OpenAIResponse]),
    ("## kind: http", [spec.HttpSpec]),
    ("### http `response`", [spec.HttpResponse]),
    ("### session", [spec.SessionFromResponse, spec.SessionFromHeader]),
    ("## auth", [spec.BearerAuth, spec.OAuth2ClientCredentials]),
    ("## http", [spec.Http]),
]


@pytest.mark.parametrize(("heading", "models"), _TARGET_DOC_TABLES)
def test_every_target_file_key_is_documented_and_no_other(
    heading: str, models: list[type[BaseModel]]
) -> None:
    keys = {key for model in models for key in model.model_fields}
    if heading.startswith("## kind:"):  # the shared keys have their own table
        keys -= set(spec._Common.model_fields) | {"kind"}
    elif heading == "## Keys every kind shares":
        keys |= {"kind"}
    assert _target_doc_keys(heading) == keys


def test_every_placeholder_is_documented_and_no_other() -> None:
    section = TARGET_FILES_DOC.split("Placeholders, written", 1)[1].split("\n\n", 2)[1]
    documented = {row.split("|")[1].strip(" `{}") for row in section.splitlines()[2:]}
    assert documented == {placeholder.value for placeholder in spec.Placeholder}


# ------------------------------------------------------------ the README and its pages

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
_FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation but `-` and `_`
    dropped, each space a `-`."""
    headings = re.findall(r"^#+ (.+)$", _FENCED.sub("", text), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` whose file, or heading in it, does not exist."""
    text = _FENCED.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for target in (m["target"] for m in _LINK.finditer(text)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in _anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading makes #{anchor}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    # Trap: a section moved out of the README leaves `#secrets` and `docs/x.md#y` links
    # pointing at headings that are gone; GitHub renders them, and they lead nowhere.
    assert broken_links(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A page\n\n## Its part: one\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#its-part-one) [gone](c.md) [moved](a.md#secrets) [web](https://x.org/#y)\n"
        "```text\n[in code](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "c.md: no such file",
        "a.md#secrets: no heading makes #secrets",
    ]


def test_the_readme_is_a_landing_page_that_links_every_docs_page() -> None:
    # Trap: the README grows back into a manual (it reached 1,287 lines), or a page moved
    # out of it is linked from nowhere a newcomer starts.
    assert README.count("\n") <= 250
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", README))
    pages = {page.name for page in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set()
