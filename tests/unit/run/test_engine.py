"""The engine: bounded concurrency, deterministic order, errors recorded and never dropped."""

from __future__ import annotations

import asyncio
import threading
import weakref
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import SuiteSet, load_suites, parse_suite
from gauntlet.cases.model import Case, GateName
from gauntlet.errors import Interrupted, TargetError, TargetUnreachableError
from gauntlet.redact import Redactor
from gauntlet.run.engine import Listeners, Pace, ask_all, run_gauntlet
from gauntlet.run.results import Outcome, TargetInfo, Verdict
from gauntlet.run.schedule import schedule
from gauntlet.run.scoring import Observation, score, scores_capability
from gauntlet.run.settings import RunSettings, RunSpan
from gauntlet.targets.contract import NATIVE, Provenance, Question, TargetResponse, Traced
from gauntlet.targets.toy import make_toy

from ...run_settings import settings_for
from ..cases.suite_text import grounding_suite

INFO = TargetInfo(kind="callable", name="scripted")
WHEN = datetime(2026, 11, 30, tzinfo=UTC)


def _cited(prompt: str) -> TargetResponse:
    return TargetResponse(
        text=f"About {prompt}.",
        citations=("D1",),
        context_ids=("D1",),
        refused=False,
        escalated=False,
    )


class Cited:
    """Answers every case at once, cited."""

    name = "cited"

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        return _cited(prompt)


def _suites(tmp_path: Path, count: int) -> SuiteSet:
    (tmp_path / "s.yaml").write_text(grounding_suite("s", *(f"c{i}" for i in range(count))))
    return load_suites([tmp_path])


class SlowFirst:
    """Answers the earliest cases last, and counts how many asks are in flight."""

    name = "slow-first"

    def __init__(self, count: int) -> None:
        self.count = count
        self.asked = 0
        self.in_flight = 0
        self.most_in_flight = 0

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        order = self.asked
        self.asked += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0.001 * (self.count - order))
        self.in_flight -= 1
        return _cited(prompt)


def test_results_keep_the_case_order_whatever_finishes_first(tmp_path: Path) -> None:
    target = SlowFirst(12)
    suites = _suites(tmp_path, 12)
    results = run_gauntlet(suites, target, settings_for(suites, INFO, concurrency=4))
    assert [case.case_id for case in results.cases] == [f"c{i}" for i in range(12)]
    assert target.most_in_flight == 4
    assert results.verdict is Verdict.PASS


def test_a_sync_target_runs_in_worker_threads(tmp_path: Path) -> None:
    threads: set[int] = set()

    class Sync:
        name = "sync"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            threads.add(threading.get_ident())
            return _cited(prompt)

    suites = _suites(tmp_path, 3)
    results = run_gauntlet(suites, Sync(), settings_for(suites, INFO))
    assert results.totals.passed == 3
    assert threading.get_ident() not in threads


def test_a_case_that_got_no_answer_is_recorded_and_withholds_the_verdict(tmp_path: Path) -> None:
    class Flaky:
        name = "flaky"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            if prompt == "c1":
                raise ConnectionError("reset by peer")
            return _cited(prompt)

    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c0", "c1", "c2", ask_ids=True))
    suites = load_suites([tmp_path])
    results = run_gauntlet(suites, Flaky(), settings_for(suites, INFO))
    [errored] = [case for case in results.cases if case.outcome is Outcome.ERRORED]
    assert errored.case_id == "c1"
    assert errored.reason == "the target raised ConnectionError: reset by peer"
    assert errored.trials[0].response is None
    assert results.totals.total == 3
    assert results.verdict is Verdict.WITHHELD


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("just text", "expected a TargetResponse (or a mapping of its fields), got str"),
        ({"text": "x"}, "target contract broken: citations: missing"),
    ],
)
def test_a_response_of_the_wrong_type_errors_the_case(
    tmp_path: Path, answer: object, reason: str
) -> None:
    class Wrong:
        name = "wrong"

        def ask(self, prompt: str, language: str) -> object:
            return answer

    # Deliberately not a Target to the type checker: the engine must check at run time.
    suites = _suites(tmp_path, 1)
    results = run_gauntlet(suites, Wrong(), settings_for(suites, INFO))  # type: ignore[arg-type]
    assert results.cases[0].outcome is Outcome.ERRORED
    assert results.cases[0].reason.startswith(reason)


def test_the_clock_is_injected(tmp_path: Path) -> None:
    suites = _suites(tmp_path, 1)
    results = run_gauntlet(suites, SlowFirst(1), settings_for(suites, INFO), clock=lambda: WHEN)
    assert (results.started_at, results.finished_at) == (WHEN, WHEN)


def test_progress_is_reported_per_case(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    suites = _suites(tmp_path, 3)
    run_gauntlet(
        suites, SlowFirst(3), settings_for(suites, INFO), progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize(
    ("text", "scores"),
    [
        (grounding_suite(), True),
        (grounding_suite().replace("expect_grounded: true", "expect_grounded: false"), False),
        (
            "suite: r\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
            "  - {id: r, language: en, prompt: p, kind: must_refuse}\n",
            False,
        ),
        (
            "suite: r\ngate: refusal\nversion: 1\nthreshold: 1\ncases:\n"
            "  - {id: r, language: en, prompt: p, kind: crisis}\n",
            True,
        ),
        (
            "suite: a\ngate: adversarial\nversion: 1\nthreshold: 1\ncases:\n"
            "  - {id: a, language: en, prompt: p, attack_type: jailbreak, must_not_contain: [x]}\n",
            False,
        ),
        (
            "suite: f\ngate: false_positive\nversion: 1\nthreshold: 1\ncases:\n"
            "  - {id: f, language: en, prompt: p}\n",
            True,
        ),
        (
            "suite: g\ngate: golden\nversion: 1\nkey_version: 1\nthreshold: 1\ncases:\n"
            "  - {id: g, language: en, prompt: p, expected: e}\n",
            True,
        ),
        (
            "suite: d\ngate: disclosure\nversion: 1\nthreshold: 1\n"
            "elements: {opt_out: {en: [a person]}}\ncases:\n"
            "  - {id: d, language: en, prompt: p}\n",
            True,
        ),
    ],
)
def test_which_suites_score_capability(text: str, scores: bool) -> None:
    assert scores_capability(parse_suite(text, "s.yaml")) is scores


def test_a_threshold_is_met_exactly_at_the_fraction(tmp_path: Path) -> None:
    # 9 of 10 at threshold 0.9 is met; float arithmetic must not make it 0.8999...
    class NineOfTen:
        name = "nine"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            cited = _cited(prompt)
            return cited if prompt != "c9" else cited.model_copy(update={"citations": ()})

    text = grounding_suite("s", *(f"c{i}" for i in range(10)), ask_ids=True)
    (tmp_path / "s.yaml").write_text(text.replace("threshold: 1.0", "threshold: 0.9"))
    suites = load_suites([tmp_path])
    results = run_gauntlet(suites, NineOfTen(), settings_for(suites, INFO))
    assert (results.suites[0].passed, results.suites[0].met) == (9, True)
    assert results.verdict is Verdict.PASS


class Probed:
    """An async target with a probe that fails, and a close that is recorded."""

    name = "probed"

    def __init__(self) -> None:
        self.closed = False
        self.asked = 0

    async def probe(self) -> TargetResponse:
        raise TargetUnreachableError("cannot connect to probed: refused")

    async def ask(self, prompt: str, language: str) -> TargetResponse:
        self.asked += 1
        return _cited(prompt)

    async def aclose(self) -> None:
        self.closed = True


def test_a_failed_pre_flight_check_stops_the_run_before_any_case(tmp_path: Path) -> None:
    target = Probed()
    with pytest.raises(TargetUnreachableError, match="^pre-flight check failed: cannot connect"):
        suites = _suites(tmp_path, 3)
        run_gauntlet(suites, target, settings_for(suites, INFO))
    assert (target.asked, target.closed) == (0, True)


def test_the_pre_flight_check_can_be_skipped(tmp_path: Path) -> None:
    target = Probed()
    suites = _suites(tmp_path, 3)
    results = run_gauntlet(suites, target, settings_for(suites, INFO, preflight=False))
    assert (target.asked, target.closed, results.verdict) == (3, True, Verdict.PASS)


def test_a_stop_request_leaves_unasked_cases_not_run(tmp_path: Path) -> None:
    class StopsAfterTwo:
        name = "stops"

        def __init__(self) -> None:
            self.stop = asyncio.Event()
            self.asked = 0

        async def ask(self, prompt: str, language: str) -> TargetResponse:
            self.asked += 1
            if self.asked == 2:
                self.stop.set()
            return _cited(prompt)

    target = StopsAfterTwo()
    run_plan = schedule(_suites(tmp_path, 6))

    async def go() -> list[list[Observation]]:
        return await ask_all(run_plan.items, target, pace=Pace(concurrency=1), stop=target.stop)

    observations = asyncio.run(go())
    assert [o.asked for [o] in observations] == [True, True, False, False, False, False]
    results = score(
        run_plan,
        observations,
        RunSettings(target=INFO, plan=run_plan.plan),
        RunSpan(started_at=WHEN, finished_at=WHEN, interrupted_by="SIGINT"),
    )
    assert (results.complete, results.totals.not_run, results.verdict) == (
        False,
        4,
        Verdict.WITHHELD,
    )
    assert results.cases[2].outcome is Outcome.NOT_RUN
    assert results.cases[2].reason == "not asked: the run was interrupted by SIGINT"


def test_cases_in_flight_past_the_grace_period_are_not_run(tmp_path: Path) -> None:
    class Hangs:
        name = "hangs"

        def __init__(self) -> None:
            self.stop = asyncio.Event()

        async def ask(self, prompt: str, language: str) -> TargetResponse:
            self.stop.set()
            await asyncio.sleep(60)
            return _cited(prompt)  # pragma: no cover - cancelled first

    target = Hangs()
    run_plan = schedule(_suites(tmp_path, 2))

    async def go() -> list[list[Observation]]:
        return await ask_all(
            run_plan.items, target, pace=Pace(concurrency=2, grace=0.01), stop=target.stop
        )

    assert [o.asked for [o] in asyncio.run(go())] == [False, False]


def test_the_redactor_masks_answers_and_reasons(tmp_path: Path) -> None:
    class Echo:
        name = "echo"

        def ask(self, prompt: str, language: str) -> TargetResponse:
            if prompt == "c1":
                raise TargetError("server said: bad token s3cret-7e21")
            return _cited("s3cret-7e21")

    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c0", "c1", ask_ids=True))
    suites = load_suites([tmp_path])
    results = run_gauntlet(
        suites, Echo(), settings_for(suites, INFO, redactor=Redactor(["s3cret-7e21"]))
    )
    assert "s3cret-7e21" not in results.model_dump_json()
    response = results.cases[0].trials[0].response
    assert response is not None
    assert response.text == "About [REDACTED]."
    assert results.cases[1].reason == "server said: bad token [REDACTED]"


def test_a_case_whose_retry_wait_a_stop_ends_is_not_run_at_once(tmp_path: Path) -> None:
    """A stop ends waits before retries at once; only requests in flight get the grace."""

    class Waits:
        """A target on the seam whose every ask waits to retry until the run stops."""

        name = "waits"
        secrets = ()
        holds_conversations = False

        def provides(self, language: str) -> Provenance:
            return NATIVE

        async def ask(self, question: Question) -> Traced:
            assert question.stop is not None
            await question.stop.wait()  # as a Retry-After of a minute would be, cut short
            raise Interrupted("interrupted while waiting to retry")

        async def probe(self) -> None:
            return None

        async def aclose(self) -> None:
            return None

    (tmp_path / "s.yaml").write_text(grounding_suite("s", "c0", "c1"))
    planned = schedule(load_suites([tmp_path])).items

    async def go() -> tuple[list[list[Observation]], float]:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, stop.set)
        started = loop.time()
        seen = await ask_all(planned, Waits(), pace=Pace(grace=60), stop=stop)
        return seen, loop.time() - started

    seen, took = asyncio.run(go())
    assert [o.asked for [o] in seen] == [False, False]
    assert took < 30, f"took {took:.1f} s: the waits were given the 60 s grace"


def test_a_case_is_given_a_task_only_when_there_is_room_for_it(tmp_path: Path) -> None:
    alive: list[int] = []

    class Counting:
        name = "counting"

        async def ask(self, prompt: str, language: str) -> TargetResponse:
            alive.append(len(asyncio.all_tasks()))
            await asyncio.sleep(0)
            return _cited(prompt)

    suites = _suites(tmp_path, 40)
    results = run_gauntlet(suites, Counting(), settings_for(suites, INFO, concurrency=3))
    assert results.totals.passed == 40
    # At most twice the bound of cases, beside the run's own few tasks and one per ask in
    # flight (a Python target's code runs in a task of its own); never one per case.
    assert max(alive) <= 2 * 3 + 3 + 4


def test_a_finished_case_lets_go_of_its_task(tmp_path: Path) -> None:
    asked: list[weakref.ref[asyncio.Task[object]]] = []
    held_at_the_end: list[int] = []

    class Remembering:
        name = "remembering"

        async def ask(self, prompt: str, language: str) -> TargetResponse:
            task = asyncio.current_task()
            assert task is not None
            asked.append(weakref.ref(task))
            if len(asked) == 40:
                held_at_the_end.append(sum(ref() is not None for ref in asked[:20]))
            return _cited(prompt)

    suites = _suites(tmp_path, 40)
    results = run_gauntlet(suites, Remembering(), settings_for(suites, INFO, concurrency=2))
    assert results.totals.passed == 40
    assert held_at_the_end == [0]


def test_a_failure_of_the_harness_for_one_case_is_raised_after_every_case_is_asked(
    tmp_path: Path,
) -> None:
    planned = schedule(_suites(tmp_path, 20)).items
    recorded: list[str] = []

    def on_case(item: object, observations: list[Observation]) -> None:
        if not recorded:
            recorded.append("first")
            raise OSError(28, "No space left on device")  # the journal on a full disk
        recorded.append("later")

    with pytest.raises(OSError, match="No space left"):
        asyncio.run(
            ask_all(
                planned, Cited(), pace=Pace(concurrency=2), listeners=Listeners(on_case=on_case)
            )
        )
    assert recorded == ["first"] + ["later"] * 19  # no case was cut off by the failure


def test_running_a_case_reads_none_of_its_keys_through_pydantics_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Trap: `getattr(case, "min_similarity", None)` and its like on a gate whose cases have no
    # such key, or a private attribute read by name: pydantic answers each through its slow
    # fallback (private attributes, extras, the class, then an AttributeError), several times
    # for every case of every run; a per-case cost in the event loop that checks nothing.
    suites = load_suites([builtin_suites_dir()])  # every gate, variants, disclosure elements
    fallback = vars(BaseModel)["__getattr__"]
    read: list[str] = []

    def counted(self: BaseModel, name: str) -> object:
        if isinstance(self, Case):
            read.append(name)
        return fallback(self, name)

    monkeypatch.setattr(BaseModel, "__getattr__", counted)
    toy = make_toy(())
    results = run_gauntlet(suites, toy, settings_for(suites, TargetInfo(kind="toy", name="toy")))
    assert results.verdict is Verdict.PASS
    assert {case.gate for case in results.cases} == set(GateName)
    assert read == [], sorted(set(read))
