"""The run-history dashboard: a pure renderer of a History and what the statistics return."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gauntlet.evidence.trends import Family
from gauntlet.history.records import CaseRecord, FlakyCase, History, Point, RunRecord, Trend
from gauntlet.history.store import append_run
from gauntlet.site import dashboard as board
from gauntlet.site.build import (
    DASHBOARD_PAGE,
    STATIC,
    STYLESHEET,
    build_site,
    render_pages,
)
from gauntlet.site.content import SiteContent, gather_content
from gauntlet.targets.toy import ToyDefect
from tests import evidence_fixtures as fx
from tests import trend_fixtures as tf
from tests.cli_helpers import RunCli
from tests.test_wording import find_endorsement_claims
from tests.unit.site.pagecheck import LANDMARKS, Page, parse_page
from tests.unit.site.seeded_history import (
    FakeStats,
    make_run,
    seeded_dashboard,
    seeded_history,
)
from tests.unit.site.sitefiles import DOC_FILES, PAGE_FILES, SITE_FILES

NAV_ITEM = '<li><a href="dashboard.html">Run history</a></li>\n'


@pytest.fixture(scope="module")
def content() -> SiteContent:
    return gather_content()


@pytest.fixture(scope="module")
def rendered(content: SiteContent) -> dict[str, str]:
    return render_pages(content, dashboard=seeded_dashboard())


@pytest.fixture(scope="module")
def parsed(rendered: dict[str, str]) -> dict[str, Page]:
    return {name: parse_page(text) for name, text in rendered.items() if name.endswith(".html")}


def _trend(
    *, flagged: bool = False, family: Family = Family.COMPETENCE, z: float | None = None
) -> Trend:
    return Trend(
        metric="pass_rate",
        family=family,
        gate="grounding",
        language="es",
        suite=None,
        current=0.5,
        history=(1.0, 1.0, 1.0),
        mean=1.0,
        stdev=0.0,
        z=z,
        flagged=flagged,
        rule="flat history: below its mean 1",
    )


def _point(number: int, value: float | None, *, flagged: bool = False) -> Point:
    return Point(run=make_run(number), value=value, trend=_trend(flagged=flagged))


def _case(run: int, outcome: str, *, gate: str = "grounding", language: str = "en") -> CaseRecord:
    return CaseRecord(
        run_key=f"run{run:04d}",
        suite="s",
        gate=gate,
        case_id=f"c-{gate}-{language}-{outcome}",
        language=language,
        outcome=outcome,
        passes=1 if outcome == "passed" else 0,
        repeats=1,
        latency_ms=None,
        tokens=None,
    )


# ---------------------------------------------------------------- the site with and without it


def test_without_history_the_site_is_byte_identical(
    rendered: dict[str, str], built_site: Path
) -> None:
    plain = {p.name: p.read_text(encoding="utf-8") for p in built_site.iterdir()}
    assert sorted(plain) == sorted(SITE_FILES)
    for page in PAGE_FILES:
        with_history = rendered[page]
        assert with_history.count(NAV_ITEM) == 1
        # The one difference a history makes to an existing page is its navigation entry.
        assert with_history.replace(NAV_ITEM, "") == plain[page]
    assert rendered[STYLESHEET] == plain[STYLESHEET]


def test_two_builds_of_the_same_history_are_byte_identical(
    content: SiteContent, rendered: dict[str, str]
) -> None:
    again = render_pages(content, dashboard=seeded_dashboard())
    assert again == rendered
    runs = sorted(name for name in rendered if name.startswith("run-"))
    assert runs == sorted(f"run-{n}.html" for n in range(1, 15))


def test_build_site_writes_the_dashboard_and_a_page_per_run(tmp_path: Path) -> None:
    written = build_site(tmp_path, dashboard=seeded_dashboard(4))
    names = sorted(p.name for p in written)
    expected = [*SITE_FILES, DASHBOARD_PAGE.file]
    assert names == sorted([*expected, "run-1.html", "run-2.html", "run-3.html", "run-4.html"])


# ---------------------------------------------------------------- the site's own checks


def test_every_new_page_has_the_sites_structure(parsed: dict[str, Page]) -> None:
    new = [name for name in parsed if name == DASHBOARD_PAGE.file or name.startswith("run-")]
    assert len(new) == 15
    for name in new:
        page = parsed[name]
        assert page.lang == "en", name
        assert page.title.strip().endswith("| gauntlet"), name
        levels = [level for level, _ in page.headings]
        assert levels.count(1) == 1 and levels[0] == 1, name
        assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), name
        for landmark in LANDMARKS:
            assert page.landmarks.get(landmark, 0) >= 1, (name, landmark)
        assert page.first_link == f"#{page.main_id}", name
        assert page.tables, name
        for table in page.tables:
            assert table.first_child == "caption" and table.caption.strip(), name
            assert table.headers_without_scope == 0, name
        assert len(page.ids) == len(set(page.ids)), name
        assert page.scripts == 0, name
        assert find_endorsement_claims(page.text) == [], name


def test_every_section_of_a_page_is_named_apart_from_the_others(
    rendered: dict[str, str],
) -> None:
    # Trap: a gate's time-to-first-token section headed by the gate's name alone, as its
    # pass-rate section is: two landmarks named "adversarial", which a screen reader's list
    # of regions cannot tell apart (html-validate's unique-landmark, in `make pages`).
    for name, html in rendered.items():
        if not name.endswith(".html"):
            continue
        names = [
            re.sub(r"<[^>]+>", "", heading).strip()
            for label in re.findall(r'<section aria-labelledby="([^"]+)">', html)
            for heading in re.findall(rf'id="{re.escape(label)}">(.*?)</h[1-6]>', html)
        ]
        repeated = sorted({n for n in names if names.count(n) > 1})
        assert repeated == [], (name, repeated)


def test_every_link_resolves_and_every_page_links_the_dashboard(parsed: dict[str, Page]) -> None:
    broken = []
    for name, page in parsed.items():
        assert DASHBOARD_PAGE.file in page.links, name
        for href in page.links:
            if name in DOC_FILES and href.startswith("https://"):
                continue  # a docs page may cite the web, as on GitHub; never over plain http
            file, _, fragment = href.partition("#")
            target = file or name
            if target not in parsed or (fragment and fragment not in parsed[target].ids):
                broken.append(f"{name}: {href}")
    assert broken == []
    runs = parsed[DASHBOARD_PAGE.file].links
    assert [f"run-{n}.html" in runs for n in range(1, 15)] == [True] * 14


def test_every_chart_is_an_image_with_a_title_a_description_and_its_table(
    rendered: dict[str, str],
) -> None:
    html = rendered[DASHBOARD_PAGE.file]
    svgs = re.findall(r"<svg[^>]*>.*?</svg>", html, flags=re.DOTALL)
    # A chart per gate, then latency and tokens, then time to first token of the one gate
    # that streamed (the other two gates' are sentences, not images).
    assert len(svgs) == 3 + 2 + 1
    for svg in svgs:
        assert 'role="img"' in svg
        slug = re.search(r'aria-labelledby="([\w-]+)-title \1-desc"', svg)
        assert slug is not None
        assert f'<title id="{slug[1]}-title">' in svg and f'<desc id="{slug[1]}-desc">' in svg
        assert re.findall(r"#[0-9a-fA-F]{3,6}\b|rgb\(|fill=|stroke=", svg) == []  # CSS only
        after = html[html.index(svg) + len(svg) :]
        assert after.index("<table") < after.index("<svg") if "<svg" in after else True
        assert f'<caption id="{slug[1]}-data">' in after


def test_flagged_runs_get_a_shape_and_words_not_only_a_colour(rendered: dict[str, str]) -> None:
    html = rendered[DASHBOARD_PAGE.file]
    grounding = html[html.index('id="pass-grounding"') : html.index('id="pass-refusal"')]
    # Runs 9, 11, 13 (flaky) and 14 (the defect) are flagged in Spanish grounding only.
    assert grounding.count('class="flag"') == 4 + 1  # four markers and the key's triangle
    assert "flagged: es in runs 9, 11, 13, 14" in grounding
    assert grounding.count(", flagged</td>") == 4
    assert "en: solid line; es: dashed line" in grounding
    adversarial = html[html.index('id="pass-adversarial"') : html.index('id="pass-grounding"')]
    assert 'class="flag"' not in adversarial and "no run flagged" in adversarial


def test_the_chart_colours_are_palette_properties_in_both_schemes() -> None:
    css = (STATIC / STYLESHEET).read_text(encoding="utf-8")
    for style in range(1, board.STYLES + 1):
        assert f".series-{style} .line {{\n  stroke: var(--series-{style});" in css
        assert css.count(f"--series-{style}:") == 2  # light and dark


def test_the_runs_table_lists_the_newest_first_with_its_counts(rendered: dict[str, str]) -> None:
    html = rendered[DASHBOARD_PAGE.file]
    runs = html[html.index('id="runs-data"') :]
    numbers = re.findall(r'<a href="run-(\d+)\.html">', runs)
    assert numbers == [str(n) for n in range(14, 0, -1)]
    row = runs[runs.index('href="run-14.html"') :].split("</tr>")[0]
    assert 'class="status-fail">FAIL</strong>' in row
    assert "branch=main, commit=c0ffee14" in row
    assert '<td class="num">10/12</td>' in row  # both Spanish grounding cases failed


def test_a_run_page_shows_facts_counts_failing_cases_and_flagged_trends(
    rendered: dict[str, str],
) -> None:
    page = rendered["run-14.html"]
    assert "<h1>Run 14</h1>" in page
    assert "2026-03-15 09:00:00 UTC" in page
    assert '<td class="num">0/2</td>' in page  # grounding x es
    assert page.count("<td>failed</td>") == 2
    flagged = page[page.index('id="flagged-data"') :]
    metrics = re.findall(r'<th scope="row"><code>(\w+)</code></th><td>(\w+)</td>', flagged)
    assert metrics[0] == ("pass_rate", "competence")
    assert {family for _, family in metrics} == {"competence", "cost"}
    healthy = rendered["run-5.html"]
    assert "Every case passed." in healthy
    assert "Nothing flagged: 9 metrics checked against its history." in healthy


# ---------------------------------------------------------------- edge cases of the renderer


def test_an_empty_history_renders_and_says_so(content: SiteContent) -> None:
    empty = board.gather_dashboard(History(runs=(), cases=()), FakeStats())
    pages = render_pages(content, dashboard=empty)
    html = pages[DASHBOARD_PAGE.file]
    assert "holds no runs yet" in html
    assert "No case is stored." in html
    assert "No case's outcomes alternated" in html
    assert "No case passed and then failed every run since." in html
    assert [name for name in pages if name.startswith("run-")] == []


def test_a_run_without_cases_or_trends_says_so(content: SiteContent) -> None:
    run = make_run(1, verdict="withheld", labels={})
    passed = make_run(2, labels={})
    history = History(runs=(run, passed), cases=())
    view = board.run_view(history, run, ())
    dash = board.Dashboard(
        runs=(view, board.run_view(history, passed, ())),
        gates=(),
        languages=(),
        pass_rates=(),
        latency=board.ChartSpec("latency", "Latency", "ms", ()),
        tokens=board.ChartSpec("tokens", "Tokens", "tokens", ()),
        flaky=(FlakyCase("s", "grounding", "c", "en", 0, 0, 1),),
    )
    pages = render_pages(content, dashboard=dash)
    page = pages["run-1.html"]
    assert "The history holds no case of this run." in page
    assert "Not judged against its history: the run reached no verdict (withheld)" in page
    assert "No metric could be checked against its history." in pages["run-2.html"]
    assert 'class="status-withheld">WITHHELD</strong>' in page
    assert "<dd>none</dd>" in page  # no labels
    assert "no trials" in pages[DASHBOARD_PAGE.file]


def test_a_gate_not_asked_in_one_language_and_a_trend_without_z(content: SiteContent) -> None:
    run = make_run(1)
    cases = (_case(1, "passed"), _case(1, "errored", gate="refusal", language="es"))
    history = History(runs=(run,), cases=cases)
    trend = _trend(flagged=True, z=None)
    view = board.run_view(history, run, (trend,))
    dash = board.Dashboard(
        runs=(view,),
        gates=("grounding", "refusal"),
        languages=("en", "es"),
        pass_rates=(),
        latency=board.ChartSpec("latency", "Latency", "ms", ()),
        tokens=board.ChartSpec("tokens", "Tokens", "tokens", ()),
        flaky=(),
    )
    page = render_pages(content, dashboard=dash)["run-1.html"]
    assert page.count("not asked") == 2
    assert "<td>errored</td>" in page
    assert '<td class="num">none</td>' in page
    assert "1 of 1 metrics flagged" in page


def test_run_view_lists_what_did_not_pass_and_puts_safety_first() -> None:
    run = make_run(1)
    cases = (
        _case(1, "passed"),
        _case(1, "waived"),
        _case(1, "failed", gate="refusal"),
        _case(1, "not_run", gate="adversarial"),
        _case(2, "failed"),  # another run's
    )
    trends = (
        _trend(flagged=True, family=Family.COST),
        _trend(flagged=False, family=Family.SAFETY),
        _trend(flagged=True, family=Family.COMPETENCE),
        _trend(flagged=True, family=Family.SAFETY),
    )
    view = board.run_view(History(runs=(run,), cases=cases), run, trends)
    # A waived failure did not pass: it is listed, and left out of the counts as its gate
    # leaves it out of the pass rate (never counted as a pass).
    assert [c.outcome for c in view.failing] == ["not_run", "waived", "failed"]
    assert view.counts.passed == 1 and view.counts.total == 3
    assert [t.family for t in view.flagged] == [Family.SAFETY, Family.COMPETENCE, Family.COST]
    assert view.checked == 4
    assert view.file == "run-1.html"


def test_layout_places_values_and_leaves_gaps() -> None:
    spec = board.ChartSpec(
        "t",
        "T",
        "%",
        (
            board.Series(
                "en",
                (
                    _point(1, 1.0),
                    _point(2, None),
                    _point(3, 0.0, flagged=True),
                    _point(4, 0.5),
                    _point(9, 0.5),  # a run the chart is not drawn over
                ),
            ),
        ),
    )
    chart = board.layout_chart(spec, [1, 2, 3, 4])
    top, bottom = float(board.TOP), float(chart.bottom)
    [line] = chart.lines
    assert [float(m.y) for m in line.marks] == [top, bottom, (top + bottom) / 2]
    assert line.path.count("M") == 2  # the pen lifts over run 2's missing value
    assert [m.flagged for m in line.marks] == [False, True, False]
    assert [t.label for t in chart.y_ticks] == ["0%", "50%", "100%"]
    assert chart.rows[1] == (2, ("no value",))
    assert chart.flag_note == "flagged: en in run 3"
    assert "en from 100% in run 1 to 50% in run 4, flagged in run 3" in chart.description


def test_layout_of_a_single_run_and_of_a_series_with_no_values() -> None:
    spec = board.ChartSpec(
        "t",
        "T",
        "ms",
        (board.Series("p50", (_point(1, 240.0),)), board.Series("p95", (_point(1, None),))),
    )
    chart = board.layout_chart(spec, [1])
    assert chart.lines[0].marks[0].x == f"{board.LEFT:.1f}"
    assert [t.label for t in chart.y_ticks] == ["0 ms", "125 ms", "250 ms"]
    assert "p95: no values" in chart.description
    assert chart.rows == ((1, ("240 ms", "no value")),)
    missing = board.layout_chart(board.ChartSpec("m", "M", "tokens", (board.Series("a", ()),)), [1])
    assert missing.rows == ((1, ("not measured",)),)
    assert board.describe_chart(spec, []) == "T: no runs."


def test_end_labels_are_kept_apart() -> None:
    spec = board.ChartSpec(
        "t",
        "T",
        "%",
        tuple(board.Series(name, (_point(1, 0.0),)) for name in ("a", "b", "c")),
    )
    labels = [float(line.label_y) for line in board.layout_chart(spec, [1]).lines]
    assert all(b - a >= 14 for a, b in zip(labels, labels[1:], strict=False))
    assert max(labels) <= board.HEIGHT - board.BOTTOM + board.TOP
    assert [line.style for line in board.layout_chart(spec, [1]).lines] == [1, 2, 3]


@pytest.mark.parametrize(
    ("value", "ceiling"),
    [(0, 1.0), (-3, 1.0), (0.3, 0.5), (1, 1), (7, 10), (240, 250), (1200, 2000), (15, 20)],
)
def test_nice_ceiling(value: float, ceiling: float) -> None:
    assert board.nice_ceiling(value) == pytest.approx(ceiling)


@pytest.mark.parametrize(
    ("runs", "ticks"),
    [
        ([1, 2, 3], [1, 2, 3]),
        (list(range(1, 15)), [1, 4, 7, 10, 14]),
        (list(range(1, 12)), [1, 4, 7, 11]),
        (list(range(1, 14)), [1, 4, 7, 10, 13]),
        (list(range(1, 9)), [1, 3, 5, 7, 8]),
    ],
)
def test_x_ticks_always_show_the_first_and_last_run(runs: list[int], ticks: list[int]) -> None:
    assert board._x_tick_runs(runs) == ticks


def test_flag_note_names_at_most_eight_runs() -> None:
    marks = tuple(board.Mark("0", "0", n, "x", flagged=True) for n in range(1, 12))
    line = board.Line("es", 1, "", marks, "0")
    assert board.flag_note([line]) == "flagged: es in runs 1, 2, 3, 4, 5, 6, 7, 8 and 3 more"


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (None, "%", "no value"),
        (0.9375, "%", "93.8%"),
        (0.94, "%", "94%"),
        (1234.4, "ms", "1,234 ms"),
        (120.5, "tokens", "120"),
    ],
)
def test_format_value(value: float | None, unit: str, shown: str) -> None:
    assert board.format_value(value, unit) == shown


def test_filters() -> None:
    assert board.when(datetime(2026, 3, 2, 9, 0, tzinfo=UTC)) == "2026-03-02 09:00:00 UTC"
    pacific = timezone(timedelta(hours=-8))
    assert board.when(datetime(2026, 3, 2, 9, 0, tzinfo=pacific)) == "2026-03-02 09:00:00 -0800"
    assert board.when(datetime(2026, 3, 2, 9, 0)) == "2026-03-02 09:00:00 local"  # noqa: DTZ001
    assert str(board.verdict("<odd>")) == "<strong>&lt;ODD&gt;</strong>"
    assert board.labels({"z": "1", "a": "2"}) == "a=2, z=1"
    latency = Trend(**{**_trend().__dict__, "metric": "latency_p95_ms"})
    assert board.metric(latency, 1500.0) == "1,500 ms"
    assert board.metric(_trend(), 0.5) == "50%"


# ---------------------------------------------------------------- the command line


def _stored_history(path: Path) -> Path:
    """A real history file: the healthy toy three times, then the toy dropping citations."""
    for hour in (4, 3, 2):
        append_run(path, tf.earlier(fx.clean(), hour), {"commit": f"c{hour}"})
    append_run(path, fx.with_defect(ToyDefect.DROP_CITATIONS), {"commit": "c1"})
    return path


def test_site_history_builds_the_dashboard_through_the_store_and_stats(
    run_cli: RunCli, tmp_path: Path
) -> None:
    history = _stored_history(tmp_path / "history.sqlite")
    result = run_cli("site", "--out", tmp_path / "out", "--history", history)
    assert result.code == 0, result.show()
    assert f"wrote {len(SITE_FILES) + 1 + 4} files" in result.stderr
    dashboard = (tmp_path / "out" / "dashboard.html").read_text(encoding="utf-8")
    assert "flagged" in dashboard
    assert (tmp_path / "out" / "run-4.html").is_file()


def test_site_history_refuses_a_missing_file(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli("site", "--out", tmp_path / "out", "--history", tmp_path / "none.sqlite")
    assert result.code == 2
    assert "none.sqlite: no such file" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("count", "words"), [(14, "14 stored runs,"), (1, "1 stored run,")])
def test_the_lead_counts_the_stored_runs_in_words_that_agree(
    content: SiteContent, count: int, words: str
) -> None:
    html = render_pages(content, dashboard=seeded_dashboard(count))[DASHBOARD_PAGE.file]
    assert f'<p class="lead">{words} from ' in html


# ---------------------------------------------------------------- a dashboard that never misleads


def _without_verdict(history: History, numbers: dict[int, str]) -> History:
    """`history` with the runs numbered in `numbers` given that verdict, their cases errored
    but for the first of each gate and language (which passed): a run that got few answers."""
    runs = tuple(
        RunRecord(**{**run.__dict__, "verdict": numbers.get(run.number, run.verdict)})
        for run in history.runs
    )
    keys = {run.key for run in runs if run.number in numbers}
    cases = tuple(
        CaseRecord(**{**case.__dict__, "outcome": "errored", "passes": 0})
        if case.run_key in keys and not case.case_id.endswith("-1")
        else case
        for case in history.cases
    )
    return History(runs=runs, cases=cases)


def _section(html: str, slug: str) -> str:
    """The dashboard's section of one chart: from its heading to the next heading."""
    start = html.index(f'id="{slug}"')
    return html[start : html.index("<h", start + 1)]


def _x_of(chart: board.Chart, number: int) -> str:
    [tick] = [tick for tick in chart.x_ticks if tick.label == str(number)]
    return tick.at


@pytest.mark.parametrize("verdict", ["withheld", "unscoreable"])
def test_a_run_without_a_verdict_is_a_gap_with_its_word_never_a_pass_rate(
    content: SiteContent, verdict: str
) -> None:
    # Trap: plotting the passed share of a run that reached no verdict (a WITHHELD run whose
    # cases mostly got no answer plotted as 5.6%, flagged as a collapse), in any chart.
    history = _without_verdict(seeded_history(6), {4: verdict, 6: verdict})
    dash = board.gather_dashboard(history, FakeStats())
    runs = [view.run.number for view in dash.runs]
    for spec in (*dash.pass_rates, dash.latency, dash.tokens):
        chart = board.layout_chart(spec, runs)
        x4, x6 = _x_of(chart, 4), _x_of(chart, 6)
        for line in chart.lines:
            assert {mark.run for mark in line.marks}.isdisjoint({4, 6}), spec.slug
            assert f"{x4} " not in line.path and f"{x6} " not in line.path, spec.slug
        assert [(gap.run, gap.word, gap.x) for gap in chart.gaps] == [
            (4, verdict, x4),
            (6, verdict, x6),
        ]
        assert dict(chart.rows)[4] == (verdict,) * len(spec.series)
        assert f"run 4 {verdict}, run 6 {verdict}: no value drawn" in chart.description
    html = render_pages(content, dashboard=dash)[DASHBOARD_PAGE.file]
    grounding = _section(html, "pass-grounding")
    svg = grounding[grounding.index("<svg") : grounding.index("</svg>")]
    assert svg.count(f">{verdict}</text>") == 2
    assert f'cx="{_x_of(board.layout_chart(dash.pass_rates[1], runs), 4)}"' not in svg
    assert f'<td class="num">{verdict}</td>' in grounding
    assert "%, flagged</td>" not in grounding.split('href="run-4.html"')[1].split("</tr>")[0]


def test_a_chart_with_no_data_says_so_in_words_and_draws_no_axes(content: SiteContent) -> None:
    # Trap: laying out axes over nothing (an empty tokens chart ticked `0, 0, 1`), which reads
    # as a measurement of zero tokens.
    history = seeded_history(5)
    history = History(
        runs=history.runs,
        cases=tuple(CaseRecord(**{**case.__dict__, "tokens": None}) for case in history.cases),
    )
    dash = board.gather_dashboard(history, FakeStats())
    chart = board.layout_chart(dash.tokens, [view.run.number for view in dash.runs])
    assert chart.empty_note == (
        "Nothing to draw: no run reported tokens for every one of its cases."
    )
    assert chart.y_ticks == () and chart.x_ticks == () and chart.lines == ()
    html = render_pages(content, dashboard=dash)[DASHBOARD_PAGE.file]
    tokens = _section(html, "tokens")
    assert '<p class="no-data">Nothing to draw: no run reported tokens' in tokens
    assert "<svg" not in tokens and 'class="tick"' not in tokens and "<table" not in tokens
    assert "<svg" in _section(html, "latency")


def test_a_chart_whose_only_values_are_of_runs_without_a_verdict_is_empty() -> None:
    # Trap: counting a withheld run's value as data, so the chart draws axes around a gap.
    history = _without_verdict(seeded_history(2), {1: "withheld", 2: "unscoreable"})
    dash = board.gather_dashboard(history, FakeStats())
    chart = board.layout_chart(dash.pass_rates[0], [1, 2])
    assert chart.y_ticks == () and chart.gaps == ()
    assert chart.empty_note == (
        "Nothing to draw: no run has a pass rate here. Runs 1 (withheld) and 2 (unscoreable) "
        "reached no verdict."
    )


def test_the_dashboard_lists_a_steady_regression_apart_from_flaky_cases(
    content: SiteContent, rendered: dict[str, str]
) -> None:
    # Trap: listing a case that passed for thirteen runs and failed every ask of the last one
    # under "Flaky cases", beside cases whose asks really alternate.
    html = rendered[DASHBOARD_PAGE.file]
    flaky = _section(html, "flaky")
    regressions = _section(html, "regressions")
    assert "gro-es-2" in flaky and "gro-es-1" not in flaky
    assert "gro-es-1" in regressions and "gro-es-2" not in regressions
    row = regressions[regressions.index("gro-es-1") :].split("</tr>")[0]
    assert '<a href="run-13.html">13</a>' in row and '<a href="run-14.html">14</a>' in row
    assert '<li><a href="#regressions">' in html


def test_a_run_without_a_verdict_is_not_judged_against_its_history(content: SiteContent) -> None:
    # Trap: flagging the passed share of a withheld run as a collapse on its own page and in
    # the runs table ("29 of 32 metrics flagged"), as if it were a pass rate.
    history = _without_verdict(seeded_history(6), {6: "withheld"})
    dash = board.gather_dashboard(history, FakeStats())
    view = dash.runs[-1]
    assert view.flagged == () and view.checked == 0
    pages = render_pages(content, dashboard=dash)
    page = pages["run-6.html"]
    assert "Not judged against its history: the run reached no verdict (withheld)" in page
    assert "metrics flagged" not in page and "Nothing flagged" not in page
    runs = pages[DASHBOARD_PAGE.file].split('id="runs-data"')[1]
    row = runs[runs.index('href="run-6.html"') :].split("</tr>")[0]
    assert row.endswith('<td class="num">not judged</td>')


# ---------------------------------------------------------------- time to first token


def _streamed(history: History, runs: set[int]) -> History:
    """`history` with every grounding case of the runs numbered in `runs` streamed: its asks'
    times to first token are 10, 20 and 30 ms plus the run's number."""
    keys = {run.key: run.number for run in history.runs if run.number in runs}
    return History(
        runs=history.runs,
        cases=tuple(
            CaseRecord(
                **{
                    **case.__dict__,
                    "first_token_ms": tuple(
                        10.0 * ask + keys[case.run_key] for ask in range(1, case.repeats + 1)
                    ),
                }
            )
            if case.run_key in keys and case.gate == "grounding"
            else case
            for case in history.cases
        ),
    )


def test_time_to_first_token_is_charted_per_gate_median_and_p95_for_runs_that_streamed(
    content: SiteContent,
) -> None:
    # Trap: a dashboard that shows no time to first token (the pack shows it per gate), or
    # one that plots a run that did not stream as 0 ms, or mixes gates in one figure.
    from gauntlet.history import stats  # the real statistics, end to end

    history = _streamed(_without_verdict(seeded_history(5), {4: "withheld"}), {2, 3, 4, 5})
    dash = board.gather_dashboard(history, stats)
    assert [spec.slug for spec in dash.first_token] == [f"first-token-{g}" for g in dash.gates]
    grounding = next(s for s in dash.first_token if s.slug == "first-token-grounding")
    runs = [view.run.number for view in dash.runs]
    chart = board.layout_chart(grounding, runs)
    # Run 3: four grounding cases of three asks each, at 13, 23 and 33 ms: median 23 ms, and
    # p95 between the 11th and 12th of twelve: 33 ms. Run 1 did not stream; run 4 withheld.
    assert dict(chart.rows) == {
        1: ("no value", "no value"),
        2: ("22 ms", "32 ms"),
        3: ("23 ms", "33 ms"),
        4: ("withheld", "withheld"),
        5: ("25 ms, flagged", "35 ms, flagged"),  # a rise over 22, 23, 24 (and 32, 33, 34)
    }
    assert [(line.name, [mark.run for mark in line.marks]) for line in chart.lines] == [
        ("median", [2, 3, 5]),
        ("p95", [2, 3, 5]),
    ]
    assert [gap.run for gap in chart.gaps] == [4]
    refusal = board.layout_chart(
        next(s for s in dash.first_token if s.slug == "first-token-refusal"), runs
    )
    assert refusal.empty_note.startswith("Nothing to draw: no run streamed")
    html = render_pages(content, dashboard=dash)[DASHBOARD_PAGE.file]
    assert 'href="#first-token"' in html
    assert "<svg" in _section(html, "first-token-grounding")
    assert "<svg" not in _section(html, "first-token-refusal")


def test_time_to_first_token_of_a_history_that_never_streamed_is_a_sentence(
    content: SiteContent,
) -> None:
    # Trap: axes drawn over no streamed answer, reading as a time to first token of 0 ms.
    from gauntlet.history import stats  # the real statistics, end to end

    dash = board.gather_dashboard(seeded_history(4), stats)
    assert len(dash.first_token) == len(dash.gates)
    html = render_pages(content, dashboard=dash)[DASHBOARD_PAGE.file]
    for spec in dash.first_token:
        chart = board.layout_chart(spec, [1, 2, 3, 4])
        assert chart.empty_note == (
            f"Nothing to draw: no run streamed an answer of the {spec.slug[12:]} gate."
        )
        assert chart.lines == () and chart.y_ticks == ()
        section = _section(html, spec.slug)
        assert f'<p class="no-data">{chart.empty_note}' in section
        assert "<svg" not in section and "<table" not in section
