"""The build: reproducible, driven by the loaded suites, and reachable as `gauntlet site`."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.errors import ConfigErrors
from gauntlet.site.build import build_site
from gauntlet.site.content import (
    BUNDLED_ACTION,
    find_action_file,
    gather_content,
    load_site_suites,
    markdown_sections,
    read_action,
)
from tests.cli_helpers import RunCli
from tests.unit.site.sitefiles import PAGE_FILES, SITE_FILES

ROOT = Path(__file__).resolve().parents[3]

EXTRA_CASE = """\
  - id: fp-en-site-extra-case
    language: en
    pair: site-extra-case
    prompt: When is the public library open?
  - id: fp-es-site-extra-case
    language: es
    pair: site-extra-case
    prompt: ¿Cuándo abre la biblioteca pública?
  - id: fp-zh-site-extra-case
    language: zh
    pair: site-extra-case
    prompt: 公共图书馆什么时候开门？
  - id: fp-vi-site-extra-case
    language: vi
    pair: site-extra-case
    prompt: Thư viện công cộng mở cửa lúc nào?
  - id: fp-tl-site-extra-case
    language: tl
    pair: site-extra-case
    prompt: Kailan bukas ang pampublikong aklatan?
  - id: fp-ko-site-extra-case
    language: ko
    pair: site-extra-case
    prompt: 공공 도서관은 언제 문을 여나요?
"""
"""A pair: the built-in suites require parity, so a case comes with a side in each of the six
languages."""


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_two_builds_of_the_same_commit_are_byte_identical(tmp_path: Path, built_site: Path) -> None:
    again = tmp_path / "again"
    written = build_site(again)
    assert sorted(p.name for p in written) == sorted(SITE_FILES)
    assert _files(again) == _files(built_site)


def test_a_date_is_shown_only_when_given(tmp_path: Path, built_site: Path) -> None:
    build_site(tmp_path, generated=date(2026, 11, 30))
    for page in PAGE_FILES:
        assert "Generated 2026-11-30" in (tmp_path / page).read_text(encoding="utf-8")
        assert "Generated" not in (built_site / page).read_text(encoding="utf-8")


def test_adding_a_case_changes_the_inventory_page_with_no_other_edit(tmp_path: Path) -> None:
    suites = tmp_path / "suites"
    shutil.copytree(builtin_suites_dir(), suites)
    before = tmp_path / "before"
    build_site(before, cases=[suites])
    [suite_file] = [p for p in suites.glob("*.yaml") if "gate: false_positive" in p.read_text()]
    suite_file.write_text(suite_file.read_text(encoding="utf-8") + EXTRA_CASE, encoding="utf-8")
    after = tmp_path / "after"
    build_site(after, cases=[suites])

    inventory_before = (before / "inventory.html").read_text(encoding="utf-8")
    inventory_after = (after / "inventory.html").read_text(encoding="utf-8")
    assert inventory_before != inventory_after
    total_before = gather_content([suites]).inventory.total
    assert f'<td class="num">{total_before}</td></tr>\n</tfoot>' in inventory_after
    assert f'<td class="num">{total_before - 6}</td></tr>\n</tfoot>' in inventory_before
    assert (before / "action.html").read_bytes() == (after / "action.html").read_bytes()


def test_sources_are_named_from_their_directory_not_the_machine(built_site: Path) -> None:
    evidence = (built_site / "evidence.html").read_text(encoding="utf-8")
    assert "<code>suites/" in evidence
    assert str(ROOT) not in evidence
    assert str(builtin_suites_dir()) not in evidence


def test_the_evidence_page_shows_a_healthy_and_a_defective_run(built_site: Path) -> None:
    evidence = (built_site / "evidence.html").read_text(encoding="utf-8")
    assert 'class="status-pass">PASS</strong>' in evidence
    assert 'class="status-fail">FAIL</strong>' in evidence
    assert "drop_citations" in evidence
    assert "latency" not in evidence.lower()
    assert "2026-01-01" not in evidence  # the fixed clock is not shown as if it were a time


def test_the_parity_page_shows_pairs_and_every_waiver_state_from_a_real_run(
    built_site: Path,
) -> None:
    page = (built_site / "parity-waivers.html").read_text(encoding="utf-8")
    assert "spanish_uncited" in page
    assert 'class="status-fail">FAIL</strong> with 1 waived failure' in page
    # The grounding row: 8 decided, 2 agree, 6 differ, 5 fail (one is waived), 0 undecided.
    row = page[page.index("<code>grounding</code></th>") :].split("</tr>")[0]
    cells = [cell.split("</td>")[0] for cell in row.split('<td class="num">')[1:]]
    assert cells == ["8", "2", "6", "5", "0"]
    assert "no: its failing side is waived" in page
    for state in ("applied", "expired", "not needed"):
        assert f"</code> {state}</td>" in page
    assert "| no (waived) |" in page  # the reporter's own Markdown, quoted


def test_the_action_page_reads_action_yml(built_site: Path) -> None:
    action = read_action(ROOT / "action.yml")
    page = (built_site / "action.html").read_text(encoding="utf-8")
    assert action.inputs and action.outputs
    names = [i.name for i in action.inputs] + [o.name for o in action.outputs]
    for name in names:
        assert f"<code>{name}</code>" in page


def test_the_action_file_is_found_in_a_wheel_or_a_checkout(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "gauntlet"
    package.mkdir(parents=True)
    assert find_action_file(package) == tmp_path / "action.yml"
    (package / BUNDLED_ACTION).write_text("name: x\n", encoding="utf-8")
    assert find_action_file(package) == package / BUNDLED_ACTION
    assert find_action_file() == ROOT / "action.yml"


def test_a_missing_action_file_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigErrors) as caught:
        read_action(tmp_path / "action.yml")
    [problem] = caught.value.errors
    assert "cannot read the Action's definition" in problem.message
    assert problem.hint is not None and BUNDLED_ACTION in problem.hint


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("- a list\n", "the document"),
        ("name: x\ninputs: []\n", "inputs"),
        ("name: x\ninputs: {}\noutputs:\n  a: 1\nruns: {}\n", "outputs.a"),
        ("name: x\ninputs: {}\noutputs: {}\n", "runs"),
    ],
)
def test_an_action_file_of_the_wrong_shape_is_refused(
    tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "action.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigErrors) as caught:
        read_action(path)
    [problem] = caught.value.errors
    assert problem.message == f"{where}: expected a mapping"
    assert problem.line is not None


def test_an_action_file_with_yaml_tricks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "action.yml"
    path.write_text("name: &a x\ndescription: *a\n", encoding="utf-8")
    with pytest.raises(ConfigErrors):
        read_action(path)


def test_a_minimal_action_file_reads(tmp_path: Path) -> None:
    path = tmp_path / "action.yml"
    path.write_text(
        "name: x\ninputs:\n  flag:\n    default: true\n  bare: {}\noutputs: {}\n"
        "runs:\n  steps:\n    - name: one\n    - run: echo\n",
        encoding="utf-8",
    )
    action = read_action(path)
    assert action.description == ""
    assert [(i.name, i.required, i.default) for i in action.inputs] == [
        ("flag", False, "true"),
        ("bare", False, None),
    ]
    assert action.steps == ("one",)


def test_markdown_sections_keeps_the_named_sections_in_order() -> None:
    text = "# T\n\n> quote\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n\n# Other\n\n## A2\n"
    assert markdown_sections(text, ("C", "A")) == "## A\n\na\n\n## C\n\nc\n"


def test_gauntlet_site_builds_with_a_date(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_cli("site", "--out", out, "--generated", "2026-11-30")
    assert result.code == 0, result.show()
    assert f"wrote {len(SITE_FILES)} files" in result.stderr
    assert "Generated 2026-11-30" in (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("bad", ["2026-13-01", "20261130", "2026-11-30T00:00", "yesterday", ""])
def test_gauntlet_site_refuses_a_bad_date(run_cli: RunCli, tmp_path: Path, bad: str) -> None:
    result = run_cli("site", "--out", tmp_path / "out", "--generated", bad)
    assert result.code == 2
    assert "--generated" in result.stderr and "YYYY-MM-DD" in result.stderr
    assert not (tmp_path / "out").exists()


def test_gauntlet_site_reports_an_unwritable_out(run_cli: RunCli, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    result = run_cli("site", "--out", blocker / "out")
    assert result.code == 2
    assert "cannot write" in result.stderr


def test_sources_are_named_for_files_and_directories_given(tmp_path: Path) -> None:
    builtin = sorted(builtin_suites_dir().glob("*.yaml"))
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(builtin[0], folder / builtin[0].name)
    single = tmp_path / builtin[1].name
    shutil.copy(builtin[1], single)
    suites = load_site_suites([single, folder])
    assert [s.source for s in suites.suites] == [builtin[1].name, f"mine/{builtin[0].name}"]
