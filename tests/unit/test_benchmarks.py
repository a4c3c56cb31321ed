"""The benchmarks' pure helpers: entry points, environments, the goals' verdicts, RESULTS.md."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from gauntlet.cases.loader import load_suites  # noqa: E402
from gauntlet.cases.model import GoldenCase, GoldenMatch, GoldenSuite  # noqa: E402
from gauntlet.semantic.check import Similarity, similarity_of  # noqa: E402
from gauntlet.semantic.guards import guard_problems  # noqa: E402
from gauntlet_bench import goals, semantic  # noqa: E402 - found through the line above
from gauntlet_bench.markdown import command_line, read_section, splice_section  # noqa: E402
from gauntlet_bench.plan import baseline_problem, parse_plan  # noqa: E402
from gauntlet_bench.stub import Stub  # noqa: E402

BIG, SMALL = goals.SIZES


def _figures(**changes: object) -> goals.Figures:
    figures = goals.Figures(
        process_ratio={
            BIG: {goals.BASELINE: 0.75, goals.WORKING: 0.90},
            SMALL: {goals.BASELINE: 0.70, goals.WORKING: 0.86},
        },
        loop_ratio={
            BIG: {goals.BASELINE: 0.80, goals.WORKING: 0.95},
            SMALL: {goals.BASELINE: 0.78, goals.WORKING: 0.93},
        },
        first_ask={
            BIG: {goals.BASELINE: 0.60, goals.WORKING: 0.30},
            SMALL: {goals.BASELINE: 0.55, goals.WORKING: 0.28},
        },
        version_ratio={goals.BASELINE: 9.0, goals.WORKING: 2.5},
        validate_ratio={goals.BASELINE: 20.0, goals.WORKING: 2.9},
        load_seconds={goals.BASELINE: 0.8, goals.WORKING: 0.25},
        mb_per_thousand={goals.BASELINE: 21.0, goals.WORKING: 21.0},
        mb_spread=0.05,
    )
    return _replace(figures, changes)


def _with_working(figures: goals.Figures, name: str, value: float) -> goals.Figures:
    """`figures` with the working tree's figure `name` (a per-size one: at SMALL) set."""
    current = getattr(figures, name)
    if SMALL in current:
        changed: object = {**current, SMALL: {**current[SMALL], goals.WORKING: value}}
    else:
        changed = {**current, goals.WORKING: value}
    return _replace(figures, {name: changed})


def _replace(figures: goals.Figures, changes: dict[str, object]) -> goals.Figures:
    return dataclasses.replace(figures, **changes)  # type: ignore[arg-type]


def _pyproject(tmp_path: Path, scripts: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "gauntlet"\n{scripts}', encoding="utf-8")
    return path


def test_the_entry_point_is_read_from_the_trees_own_pyproject(tmp_path: Path) -> None:
    # The trap: assuming gauntlet.cli:main while another tree has moved its entry point.
    path = _pyproject(tmp_path, '[project.scripts]\ngauntlet = "gauntlet.entry:main"\n')
    assert goals.entry_point(path) == "gauntlet.entry:main"
    assert goals.entry_point(ROOT / "pyproject.toml").endswith(":main")


@pytest.mark.parametrize(
    "scripts",
    [
        "",
        '[project.scripts]\nother = "gauntlet.cli:main"\n',
        '[project.scripts]\ngauntlet = "gauntlet.cli"\n',
        '[project.scripts]\ngauntlet = "gauntlet.cli:main; rm -rf /"\n',
        "[project.scripts]\ngauntlet = 3\n",
        "[project.scripts\n",
    ],
)
def test_a_missing_or_malformed_entry_point_is_refused(tmp_path: Path, scripts: str) -> None:
    with pytest.raises(ValueError, match="pyproject.toml"):
        goals.entry_point(_pyproject(tmp_path, scripts))


def test_the_console_script_runs_the_entry_point_and_exits_with_its_value(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "entry.py").write_text(
        "import sys\nclass App:\n    @staticmethod\n    def run():\n"
        "        print(sys.argv[1:])\n        return 3\n"
    )
    script = tmp_path / "gauntlet"
    script.write_text(goals.console_script("pkg.entry:App.run"))
    completed = subprocess.run(  # our interpreter, a script written above
        [sys.executable, str(script), "--version"],
        env=goals.tree_env({}, tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (completed.returncode, completed.stdout) == (3, "['--version']\n")
    with pytest.raises(ValueError, match="module:attr"):
        goals.console_script("pkg.entry")


def test_the_tree_comes_first_on_pythonpath() -> None:
    tree = Path("/trees/base/src")
    assert goals.tree_env({}, tree)["PYTHONPATH"] == str(tree)
    env = goals.tree_env({"PYTHONPATH": "/elsewhere", "HOME": "/h"}, tree)
    assert env == {"PYTHONPATH": f"{tree}{os.pathsep}/elsewhere", "HOME": "/h"}


def test_under_tells_a_path_inside_a_tree_from_one_beside_it(tmp_path: Path) -> None:
    (tmp_path / "src" / "gauntlet").mkdir(parents=True)
    (tmp_path / "src-other").mkdir()
    assert goals.under(tmp_path / "src" / "gauntlet" / "__init__.py", tmp_path / "src")
    assert not goals.under(tmp_path / "src-other" / "gauntlet.py", tmp_path / "src")


def test_every_goal_met_when_the_working_trees_figures_meet_them() -> None:
    verdicts = goals.judge(_figures())
    assert [goal.met for goal in verdicts] == [True, None, None] * 2 + [True] * 4
    assert [goal.cells()[1:] for goal in verdicts] == [
        ["0.750×", "0.900×", "1.20×", "met"],
        ["0.800×", "0.950×", "1.19×", "context"],
        ["600 ms", "300 ms", "0.50×", "context"],
        ["0.700×", "0.860×", "1.23×", "met"],
        ["0.780×", "0.930×", "1.19×", "context"],
        ["550 ms", "280 ms", "0.51×", "context"],
        ["9.00×", "2.50×", "0.28×", "met"],
        ["20.00×", "2.90×", "0.14×", "met"],
        ["0.800 s", "0.250 s", "0.31×", "met"],
        ["21.00 MB", "21.00 MB", "1.00×", "met"],
    ]
    assert "5,000 cases, C = 64" in verdicts[0].title
    assert "2,000 cases, C = 32" in verdicts[3].title


@pytest.mark.parametrize(
    ("figure", "value", "failed"),
    [
        ("process_ratio", 0.849, 3),
        ("version_ratio", 3.01, 6),
        ("validate_ratio", 3.01, 7),
        ("load_seconds", 0.3, 8),
        ("mb_per_thousand", 21.051, 9),
    ],
)
def test_a_goal_the_working_tree_misses_says_not_met(
    figure: str, value: float, failed: int
) -> None:
    # Only the working tree's figure decides: the baseline misses most goals today.
    verdicts = goals.judge(_with_working(_figures(), figure, value))
    assert [goal.met is False for goal in verdicts] == [i == failed for i in range(10)]
    assert verdicts[failed].cells()[-1] == "**NOT MET**"
    assert verdicts[failed].verdict == "NOT MET"


def test_the_run_goal_holds_at_every_size_against_raw_aiohttp_run_as_a_process() -> None:
    # Trap: judging the throughput goal at one size only, or against the raw loop timed in the
    # driver: the smaller run, where gauntlet's start-up weighs most, then passes unseen.
    small_miss = goals.judge(_with_working(_figures(), "process_ratio", 0.84))
    assert [goal.verdict for goal in small_miss][:6:3] == ["met", "NOT MET"]
    in_loop_low = goals.judge(_with_working(_figures(), "loop_ratio", 0.10))
    assert [goal.met for goal in in_loop_low][:6] == [True, None, None, True, None, None]
    assert "as a process (process vs process)" in small_miss[3].title


def test_memory_within_the_baselines_own_spread_is_met_and_beyond_it_is_not() -> None:
    # The trap: two identical trees differ by a few KB of ru_maxrss; strictly compared, one
    # of them is "higher" half of the time.
    same = {goals.BASELINE: 22.76, goals.WORKING: 22.77}
    within = goals.judge(_figures(mb_per_thousand=same, mb_spread=0.02))[-1]
    assert within.met
    assert "(0.02 MB)" in within.title
    strict = goals.judge(_figures(mb_per_thousand=same, mb_spread=0.0))[-1]
    assert not strict.met


def test_the_raw_process_and_gauntlet_run_report_the_time_to_their_first_ask(
    tmp_path: Path,
) -> None:
    # Trap: a start-up figure taken from a clock the stub and the launcher do not share, or
    # a first ask left over from an earlier run, giving a start-up of zero or below.
    prompts = tmp_path / "prompts.json"
    prompts.write_text('["one", "two", "three"]')
    with Stub(0.0) as stub:
        stub.first_ask()
        first = goals.measure_raw_process(stub, goals.Size(3, 2), prompts)
        assert stub.first_ask() is None  # read once, then counted anew
    assert first.status == 0
    assert first.first_ask is not None
    assert 0 < first.first_ask < first.seconds


def test_a_section_is_read_and_spliced_in_place_keeping_the_others(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    path.write_text("# R\n\n## A\n\na1\n\n## B\n\nb1\n\n\n## C\n\nc1\n")
    assert read_section(path, "## B") == ["## B", "", "b1"]
    assert read_section(path, "## D") == []
    assert read_section(tmp_path / "absent.md", "## B") == []
    splice_section(path, "## B", ["## B", "", "b2"])
    assert path.read_text() == "# R\n\n## A\n\na1\n\n## C\n\nc1\n\n## B\n\nb2\n"
    splice_section(path, "## C", ["## C", "", "c2"])
    assert read_section(path, "## C") == ["## C", "", "c2"]
    assert read_section(path, "## A") == ["## A", "", "a1"]


def test_a_baseline_must_be_a_checkouts_src_directory(tmp_path: Path) -> None:
    assert baseline_problem(ROOT / "src") is None
    assert "gauntlet/__init__.py" in (baseline_problem(tmp_path) or "")
    (tmp_path / "src" / "gauntlet").mkdir(parents=True)
    (tmp_path / "src" / "gauntlet" / "__init__.py").write_text("")
    assert "pyproject.toml" in (baseline_problem(tmp_path / "src") or "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--goals-only"], "--goals-only needs --baseline-src"),
        (["--goals-only", "--scale-only", "--baseline-src", "src"], "neither --profile"),
        (["--baseline-src", "nowhere"], "--baseline-src nowhere: no gauntlet/__init__.py"),
        (["--baseline-src", "src", "--goals-repeats", "0"], "must be positive"),
        (["--baseline-src", "src", "--goals-sizes", "5000x0"], "expected CASESxCONCURRENCY"),
        (["--baseline-src", "src", "--goals-sizes", "5000"], "expected CASESxCONCURRENCY"),
    ],
)
def test_the_goals_options_are_checked(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    places = {"src": str(ROOT / "src"), "nowhere": str(tmp_path / "nowhere")}
    with pytest.raises(SystemExit) as raised:
        parse_plan([places.get(part, part) for part in argv])
    assert raised.value.code == 2
    assert message.replace("nowhere", places["nowhere"]) in capsys.readouterr().err


def test_the_goals_plan_defaults_and_quick() -> None:
    plan = parse_plan(["--goals-only", "--baseline-src", str(ROOT / "src")])
    assert (plan.goals_only, plan.baseline_src) == (True, ROOT / "src")
    assert plan.goals_sizes == (goals.Size(5000, 64), goals.Size(2000, 32))
    assert (plan.goals_repeats, plan.goals_startup_runs, plan.goals_load_runs) == (5, 21, 5)
    quick = parse_plan(["--quick", "--baseline-src", str(ROOT / "src")])
    assert (quick.goals_repeats, quick.goals_startup_runs, quick.goals_load_runs) == (1, 3, 1)
    assert parse_plan([]).baseline_src is None


def test_the_semantic_cases_are_golden_and_each_answer_reaches_the_embedder(
    tmp_path: Path,
) -> None:
    # Trap: answers a guard fails (a number dropped, a negation added), which skip the
    # embedder, so the section would time the guards and call it the cost of meaning.
    suites = load_suites([semantic.write_golden_files(tmp_path, 1200)])
    cases = [case for loaded in suites.suites for case in loaded.cases]
    assert len(cases) == 1200 and len(suites.suites) == 3
    assert all(isinstance(case, GoldenCase) for case in cases)
    exact = load_suites([semantic.write_golden_files(tmp_path / "exact", 1200, "exact")])
    for loaded_set, match in ((suites, GoldenMatch.SEMANTIC), (exact, GoldenMatch.EXACT)):
        golden = [loaded.suite for loaded in loaded_set.suites]
        assert all(isinstance(suite, GoldenSuite) and suite.match is match for suite in golden)
    # Every case its own expected answer; the answers from a smaller pool, for the cache.
    assert len({semantic.expected_of(i) for i in range(1200)}) == 1200
    assert len({semantic.answer_of(i) for i in range(1200)}) == semantic.POOL
    for index in range(1200):
        expected, answer = semantic.expected_of(index), semantic.answer_of(index)
        assert answer != expected
        assert guard_problems(expected, answer, "en") == ()


def test_a_semantic_run_whose_checks_skipped_the_embedder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a figure reported from checks that failed their guards before any embedding.
    monkeypatch.setattr(semantic, "reworded_of", lambda index: "The library is not open.")
    with pytest.raises(RuntimeError, match="the checks came to"):
        semantic.run_semantic(tmp_path, 4, 1)


def test_a_semantic_run_whose_checks_were_unjudged_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: a record the run refuses leaves every check unjudged, the embedder never asked,
    # and the run would look as cheap as `match: exact`.
    real = similarity_of

    def refused(*args: Any, **kwargs: Any) -> Similarity:
        return dataclasses.replace(real(*args, **kwargs), refused="refused for the test")

    monkeypatch.setattr(semantic, "similarity_of", refused)
    with pytest.raises(RuntimeError, match=r"the checks came to \{'unjudged unscored': 4\}"):
        semantic.run_semantic(tmp_path, 4, 1)


def test_the_semantic_section_says_its_ratio_and_the_caches_figure() -> None:
    measured = semantic.Semantic(
        cases=2000,
        load_seconds=1.5,
        started_at=datetime(2026, 12, 5, 11, 0, tzinfo=UTC),
        load_before=0.5,
        calibration_seconds=2.0,
        threshold=0.65508,
        labels=360,
        elapsed=60.0,
        load_after=0.7,
        exact=[0.3, 0.2, 0.25],
        semantic=[5.0, 4.0, 4.5],
        asked=2500,
        wanted=4000,
        outcomes={"passed": 2000},
    )
    assert measured.ratio == pytest.approx(18.0)
    section = semantic.semantic_markdown(measured)
    assert section[0] == semantic.SEMANTIC_HEADING
    assert "| `match: semantic` | 4.500 | 2.25 | 18.00× |" in section
    assert any("2,500 texts asked of the embedder, of 4,000 looked up" in line for line in section)
    assert any("pool of 500" in line for line in section)
    assert any("threshold in en: 0.6551" in line for line in section)
    assert not any("taken while other work" in line for line in section)


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"MAKELEVEL": "1", "GAUNTLET_BENCH_TARGET": "bench-semantic"}, "make bench-semantic  #"),
        ({"MAKELEVEL": "1", "GAUNTLET_BENCH_TARGET": "bench"}, "make bench  #"),
        ({"MAKELEVEL": "1"}, ".py --semantic-only"),  # no target named: none guessed
        ({"GAUNTLET_BENCH_TARGET": "bench-goals"}, ".py --semantic-only"),  # not under make
    ],
)
def test_the_command_line_names_the_make_target_that_ran(
    environment: dict[str, str], named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: `make bench` written for `make bench-semantic` (any target under make).
    for name in ("MAKELEVEL", "GAUNTLET_BENCH_TARGET"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench.py", "--semantic-only"])
    line = command_line()
    assert line.startswith(named) if named.startswith("make") else line.endswith(named)
    assert "make" not in line or line.startswith(named)


def test_every_make_target_running_the_bench_names_itself() -> None:
    makefile = (ROOT / "Makefile").read_text().splitlines()
    recipes = [line for line in makefile if "benchmarks/bench.py" in line]
    assert len(recipes) == 3
    assert all(line.startswith("\tGAUNTLET_BENCH_TARGET=$@ ") for line in recipes)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--semantic-only", "--scale-only"], "--semantic-only goes with none of"),
        (["--semantic-only", "--semantic-cases", "0"], "not with --semantic-only"),
        (["--semantic-cases", "-1"], "--semantic-cases must be positive"),
    ],
)
def test_the_semantic_options_are_checked(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        parse_plan(argv)
    assert raised.value.code == 2
    assert message in capsys.readouterr().err
    assert parse_plan([]).semantic_cases == 2000
