"""The garbage collector's tunings live at the command line's edge, in one module.

The library (loading, the engine) leaves the collector as its caller set it; the CLI pauses
it while cases load, keeps it off what was loaded during a run, and leaves the rest to the
operating system at exit.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases import strict_file, yaml_nodes
from gauntlet.cases.file_words import FileWords
from gauntlet.cases.loader import load_suites
from gauntlet.cli import collector
from gauntlet.run import engine
from gauntlet.run.engine import run_gauntlet
from gauntlet.run.results import TargetInfo
from gauntlet.targets.contract import TargetResponse

from ..cli_helpers import RunCli
from ..run_settings import settings_for

SUITE = (
    "suite: s\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1.0\ncases:\n"
    "  - {id: a, language: en, prompt: p, expected: x}\n"
)


@pytest.fixture
def collector_as_found() -> Iterator[tuple[int, int, int]]:
    """The collector's thresholds before the test; after it, enabled and nothing frozen."""
    before = gc.get_threshold()
    yield before
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def _watch_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    seen: list[bool] = []
    read = yaml_nodes.read_document

    def watched(text: str, source: str, words: FileWords) -> Any:
        seen.append(gc.isenabled())
        return read(text, source, words)

    monkeypatch.setattr(strict_file, "read_document", watched)
    return seen


class _Exact:
    name = "exact"

    def __init__(self, seen: list[tuple[int, int]]) -> None:
        self.seen = seen

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        self.seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))
        return TargetResponse(
            text="x", citations=(), context_ids=(), refused=False, escalated=False
        )


def test_the_library_leaves_the_collector_as_its_caller_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collector_as_found: tuple[int, int, int]
) -> None:
    # Trap: the loader and the engine each tuning the process's collector for themselves,
    # so a host that embeds gauntlet finds it paused or frozen under it, and the tunings
    # are scattered over three packages instead of set once by the command that owns the
    # process.
    (tmp_path / "s.yaml").write_text(SUITE, encoding="utf-8")
    reads = _watch_reads(monkeypatch)
    suites = load_suites([tmp_path])
    asks: list[tuple[int, int]] = []
    info = TargetInfo(kind="callable", name="exact")
    assert run_gauntlet(suites, _Exact(asks), settings_for(suites, info)).totals.passed == 1
    assert reads == [True]
    assert asks == [(0, collector_as_found[0])]


def test_the_command_line_pauses_the_collector_while_cases_load(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, collector_as_found: tuple[int, int, int]
) -> None:
    """The paired control: `validate` and `run` still read their cases with it paused."""
    reads = _watch_reads(monkeypatch)
    monkeypatch.setattr(engine, "run_gauntlet", _refusing)
    assert run_cli("validate").code == 0
    assert reads and not any(reads)
    reads.clear()
    assert run_cli("run", "--no-transforms", "--out", Path("r.json").absolute()).code == 2
    assert reads and not any(reads)


def _refusing(*args: object, **kwargs: object) -> object:
    from gauntlet.errors import UsageError

    raise UsageError("stopped before the run: only the loading is watched here")


def test_the_command_line_runs_with_the_collector_off_what_was_loaded(
    run_cli: RunCli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    collector_as_found: tuple[int, int, int],
) -> None:
    seen: list[tuple[int, int]] = []
    original = engine.run_gauntlet

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "run_gauntlet", watched)
    result = run_cli("run", "--no-transforms", "--out", tmp_path / "r.json", "--quiet")
    assert result.code == 0, result.show()
    [(frozen, young)] = seen
    assert frozen > 0
    assert young >= collector.YOUNG_THRESHOLD


def test_a_pause_inside_a_pause_leaves_the_collector_paused() -> None:
    gc.disable()
    try:
        with collector.paused_while_loading():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_comes_back_when_loading_fails(
    collector_as_found: tuple[int, int, int],
) -> None:
    with pytest.raises(KeyError), collector.paused_while_loading():
        assert not gc.isenabled()
        raise KeyError("a refused file")


def test_the_collector_is_put_back_when_a_run_fails(
    collector_as_found: tuple[int, int, int],
) -> None:
    with pytest.raises(KeyError), collector.young_only_while_running():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] >= collector.YOUNG_THRESHOLD
        raise KeyError("a target error")


def test_runs_that_overlap_put_the_collector_back_as_it_was_before_the_first(
    collector_as_found: tuple[int, int, int],
) -> None:
    # Trap: the first run to end thawing the heap and the thresholds of a run still going
    # (in another thread), or the last putting back the first's setting, not the host's.
    first, second = collector.young_only_while_running(), collector.young_only_while_running()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first ends while the second runs
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] >= collector.YOUNG_THRESHOLD
    second.__exit__(None, None, None)


def test_what_the_host_froze_stays_frozen(collector_as_found: tuple[int, int, int]) -> None:
    gc.freeze()
    try:
        with collector.young_only_while_running():
            pass
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
