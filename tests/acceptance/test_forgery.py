"""Results, baselines, shards and journals that were edited by hand are refused, never trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.cases.variants import without_variants
from gauntlet.run.journal import Journal
from gauntlet.run.results import Outcome, Results
from gauntlet.run.results_file import read_results, rederive, rederive_case
from gauntlet.run.schedule import plan_of
from gauntlet.run.settings import RunSettings

from ..cli_helpers import RunCli
from ..unit.cases.suite_text import grounding_suite


def _failing_run(run_cli: RunCli, out: Path, *extra: str) -> None:
    result = run_cli(
        "run", "--no-transforms", "--quiet", "--toy-defect", "drop_citations", "--out", out, *extra
    )
    assert result.code == 1, result.show()


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _pass_by_hand(data: dict[str, Any]) -> None:
    data["verdict"] = "pass"
    data["verdict_reason"] = "every gate met its threshold"


def test_report_refuses_a_verdict_changed_by_hand(tmp_path: Path, run_cli: RunCli) -> None:
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)
    _edit(results, _pass_by_hand)
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert "verdict: 'pass' in the file, but its own cases give 'fail'" in done.stderr
    assert done.stdout == ""  # no pack, so no PASS anywhere


def test_report_refuses_a_forged_baseline(tmp_path: Path, run_cli: RunCli) -> None:
    results, baseline = tmp_path / "results.json", tmp_path / "baseline.json"
    _failing_run(run_cli, results)
    _failing_run(run_cli, baseline)
    _edit(baseline, lambda d: d["totals"].update(failed=0, passed=d["totals"]["total"]))
    done = run_cli("report", results, "--baseline", baseline)
    assert done.code == 2, done.show()
    assert f"{baseline}: totals.failed: 0 in the file" in done.stderr


def test_merge_refuses_a_forged_shard(tmp_path: Path, run_cli: RunCli) -> None:
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for number, shard in enumerate(shards, start=1):
        result = run_cli(
            "run", "--no-transforms", "--quiet", "--toy-defect", "drop_citations",
            "--shard", f"{number}/2",
            "--run-id", "4711", "--out", shard,
        )  # fmt: skip
        assert result.code in (0, 1), result.show()
    for shard in shards:
        _edit(shard, _pass_by_hand)
    merged = tmp_path / "merged.json"
    done = run_cli("merge", *shards, "--out", merged)
    assert done.code == 2, done.show()
    assert "in the file, but its own cases give" in done.stderr
    assert not merged.exists()


def test_merge_refuses_shards_of_two_different_runs(tmp_path: Path, run_cli: RunCli) -> None:
    """Two runs of the same target and suites are told apart by their CI run ids."""
    first, second = tmp_path / "a-1.json", tmp_path / "b-2.json"
    for shard, number, run_id in ((first, 1, "4711"), (second, 2, "4712")):
        result = run_cli(
            "run",
            "--no-transforms",
            "--quiet",
            "--shard",
            f"{number}/2",
            "--run-id",
            run_id,
            "--out",
            shard,
        )
        assert result.code == 0, result.show()
    done = run_cli("merge", first, second, "--out", tmp_path / "merged.json")
    assert done.code == 2, done.show()
    assert "belongs to run 4712, but" in done.stderr
    assert "to run 4711: shards of different runs are never merged" in done.stderr
    same = tmp_path / "b-2-same.json"
    result = run_cli(
        "run", "--no-transforms", "--quiet", "--shard", "2/2", "--run-id", "4711", "--out", same
    )
    assert result.code == 0, result.show()
    merged = run_cli("merge", first, same, "--out", tmp_path / "merged.json")
    assert merged.code == 0, merged.show()
    assert json.loads((tmp_path / "merged.json").read_text())["run_id"] == "4711"


def test_a_run_id_that_could_act_on_a_reader_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli(
        "run", "--no-transforms", "--run-id", "1\n::error::x", "--out", tmp_path / "r.json"
    )
    assert done.code == 2, done.show()
    assert "--run-id: expected letters, digits" in done.stderr


def test_resume_refuses_a_journal_made_before_a_case_changed(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """A journal's judgement of a case is stale once the case's markers change."""
    cases = tmp_path / "cases"
    cases.mkdir()
    suite = cases / "s.yaml"
    suite.write_text(grounding_suite("s", "c1", "c2"), encoding="utf-8")
    out = tmp_path / "results.json"
    first = run_cli("run", "--toy", "--cases", cases, "--out", out, "--quiet")
    assert first.code in (0, 1), first.show()
    # Leave the journal as a killed run would: its header and the first case, no results.
    journal = tmp_path / "results.json.journal"
    finished = read_results(out)
    writer = Journal(journal, resume=False)
    writer.start(RunSettings(plan=plan_of(load_suites([cases])), target=finished.target))
    writer.append(finished.cases[0])
    writer.close(remove=False)
    out.unlink()
    suite.write_text(
        grounding_suite("s", "c1", "c2").replace(
            "    expect_grounded: true\n",
            "    expect_grounded: true\n    must_contain: [zebra]\n",
            1,
        ),
        encoding="utf-8",
    )
    resumed = run_cli("run", "--toy", "--cases", cases, "--out", out, "--quiet", "--resume")
    assert resumed.code == 2, resumed.show()
    assert "was written for other suites, cases or options" in resumed.stderr


def _asks_flipped_to_passed(path: Path) -> None:
    """Every ask marked passed and every count derived again, so the file agrees with itself."""
    results = read_results(path)
    cases = []
    for case in results.cases:
        trials = tuple(
            trial.model_copy(update={"outcome": Outcome.PASSED, "reason": ""})
            for trial in case.trials
        )
        cases.append(case.model_copy(update={"trials": trials}))
    forged = rederive(results.model_copy(update={"cases": tuple(cases)}))
    path.write_text(forged.model_dump_json(indent=2), encoding="utf-8")


def test_an_answer_is_scored_again_by_its_gate_so_asks_flipped_to_passed_are_refused(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: the reader derived every count from the asks' outcomes but trusted the outcomes,
    # so asks flipped to passed, with the counts rewritten to match, rendered a PASS pack
    # although the stored answers still failed their gates.
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)
    _asks_flipped_to_passed(results)
    for command in (
        ("report", results, "--format", "json"),
        ("history", "add", results, "--history", tmp_path / "h.sqlite"),
    ):
        done = run_cli(*command)
        assert done.code == 2, done.show()
        assert "scored again by its gate" in done.stderr, done.show()
        assert "gnd-" in done.stderr  # the case is named
        assert "PASS" not in done.stdout


def test_a_forged_shard_is_scored_again_before_it_is_merged(
    tmp_path: Path, run_cli: RunCli
) -> None:
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for number, shard in enumerate(shards, start=1):
        result = run_cli(
            "run", "--no-transforms", "--quiet", "--toy-defect", "drop_citations",
            "--shard", f"{number}/2",
            "--run-id", "4711", "--out", shard,
        )  # fmt: skip
        assert result.code in (0, 1), result.show()
        _asks_flipped_to_passed(shard)
    merged = tmp_path / "merged.json"
    done = run_cli("merge", *shards, "--out", merged)
    assert done.code == 2, done.show()
    assert "scored again by its gate" in done.stderr
    assert not merged.exists()


def test_a_forged_journal_entry_is_scored_again_on_resume(tmp_path: Path, run_cli: RunCli) -> None:
    out = tmp_path / "results.json"
    _failing_run(run_cli, out)
    finished = read_results(out)
    failing = next(case for case in finished.cases if case.outcome is Outcome.FAILED)
    flipped = rederive_case(
        failing.model_copy(
            update={
                "trials": tuple(
                    t.model_copy(update={"outcome": Outcome.PASSED, "reason": ""})
                    for t in failing.trials
                )
            }
        )
    )
    writer = Journal(tmp_path / "results.json.journal", resume=False)
    suites = without_variants(load_suites([builtin_suites_dir()]))
    plan = plan_of(suites, no_transforms=True)
    writer.start(RunSettings(plan=plan, target=finished.target, no_transforms=True))
    writer.append(flipped)
    writer.close(remove=False)
    out.unlink()
    resumed = run_cli(
        "run",
        "--no-transforms",
        "--quiet",
        "--toy-defect",
        "drop_citations",
        "--out",
        out,
        "--resume",
    )
    assert resumed.code == 2, resumed.show()
    assert "scored again by its gate" in resumed.stderr
    assert failing.case_id in resumed.stderr


SIGNED = "correct horse battery staple"


def test_a_signed_file_whose_answer_was_edited_is_refused_when_the_key_is_set(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: what re-scoring cannot re-derive (the answer itself, a judge's verdict) could be
    # rewritten with its outcome, and nothing told the file apart from the run's.
    monkeypatch.setenv("GAUNTLET_SIGNING_KEY", SIGNED)
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)
    assert json.loads(results.read_text(encoding="utf-8"))["signature"].startswith("hmac-sha256:")
    ok = run_cli("report", results, "--format", "json")
    assert ok.code == 0, ok.show()
    _edit(results, lambda d: d["cases"][0]["trials"][0]["response"].update(text="edited"))
    for command in (
        ("report", results),
        ("history", "add", results, "--history", tmp_path / "h.sqlite"),
        ("merge", results, "--out", tmp_path / "m.json"),
    ):
        done = run_cli(*command)
        assert done.code == 2, done.show()
        assert "signature does not match" in done.stderr, done.show()


def test_an_unsigned_file_is_refused_when_the_signing_key_is_set(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)
    assert "signature" not in json.loads(results.read_text(encoding="utf-8"))
    unsigned = run_cli("report", results, "--format", "json")
    assert unsigned.code == 0, unsigned.show()  # without the key, custody is not spoken of
    monkeypatch.setenv("GAUNTLET_SIGNING_KEY", SIGNED)
    done = run_cli("report", results)
    assert done.code == 2, done.show()
    assert "carries no signature" in done.stderr
    monkeypatch.setenv("GAUNTLET_SIGNING_KEY", SIGNED + " other")
    signed_with_other = tmp_path / "other.json"
    _failing_run(run_cli, signed_with_other)
    monkeypatch.setenv("GAUNTLET_SIGNING_KEY", SIGNED)
    refused = run_cli("report", signed_with_other)
    assert refused.code == 2, refused.show()
    assert "signature does not match" in refused.stderr


def test_an_answer_whose_patterns_cannot_finish_again_is_refused_never_taken_as_stored(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: re-scoring outside the run's shared pattern limit, or letting its timeout escape
    # as an internal error (or be skipped, so the stored word stands unchecked).
    from gauntlet.patterns import PatternTimeout
    from gauntlet.run import scoring

    results = tmp_path / "results.json"
    assert run_cli("run", "--no-transforms", "--quiet", "--out", results).code == 0
    stored = read_results(results)
    case = stored.cases[0]

    def runaway(*_: object) -> None:
        raise PatternTimeout("forbid_calls[0].arguments.q", "(a+)+$", 1.0)

    monkeypatch.setattr(scoring, "_scored_again", runaway)
    problems = scoring.rescore_problems(case, "cases[0]")
    assert len(problems) == len(case.trials)
    assert (
        f"cases[0] ({case.case_id}).trials[0]: stored passed, but its answer could not"
        in (problems[0])
    )
    assert "ran past its time limit" in problems[0]


def test_a_token_count_below_zero_is_refused_never_subtracted_from_the_totals(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: token counts read as any integer, so an edited file's -5000 lowered the pack's
    # tokens row: no target can have used fewer than none.
    results = tmp_path / "results.json"
    assert run_cli("run", "--no-transforms", "--quiet", "--out", results).code == 0

    def fewer_than_none(data: dict[str, Any]) -> None:
        data["cases"][0]["trials"][0]["usage"] = {
            "prompt_tokens": -5000,
            "completion_tokens": 10,
            "total_tokens": -4990,
        }

    _edit(results, fewer_than_none)
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert "prompt_tokens" in done.stderr and "greater than or equal to 0" in done.stderr, (
        done.show()
    )
    assert "internal error" not in done.stderr
    assert done.stdout == ""


def read_results_data(data: dict[str, Any]) -> Results:
    return Results.model_validate_json(json.dumps(data))


def _flip_to_passed(data: dict[str, Any], case: dict[str, Any]) -> None:
    for trial in case["trials"]:
        trial["outcome"], trial["reason"] = "passed", ""
    case["outcome"], case["reason"] = "passed", ""


def test_a_case_whose_definition_was_removed_is_refused_not_taken_as_stored(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: re-scoring skipped for a case with no `definition`, so deleting it along with
    # flipping the asks rendered a PASS pack that said its answers were scored again.
    results = tmp_path / "results.json"
    _failing_run(run_cli, results)

    def forged(data: dict[str, Any]) -> None:
        for case in data["cases"]:
            if case["outcome"] == "failed":
                _flip_to_passed(data, case)
                del case["definition"]
        data.update(rederive(read_results_data(data)).model_dump(mode="json"))

    _edit(results, forged)
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert ".definition: missing, but a file of format 7 or later" in done.stderr, done.show()


def test_a_conversation_cut_short_is_refused_never_scored_on_its_earlier_turns(
    tmp_path: Path, run_cli: RunCli
) -> None:
    # Trap: re-scoring paired the script's turns with the stored ones up to the shorter, so a
    # conversation with its failing last turn removed was judged on the turns left: a PASS.
    results = tmp_path / "results.json"
    ran = run_cli(
        "run", "--no-transforms", "--quiet", "--toy-defect", "yields_to_pushback", "--out", results
    )
    assert ran.code == 1, ran.show()

    def forged(data: dict[str, Any]) -> None:
        for case in data["cases"]:
            if case["outcome"] == "failed":
                for trial in case["trials"]:
                    if trial["turns"]:
                        trial["turns"] = trial["turns"][:-1]
                        trial["response"] = trial["turns"][-1]["response"]
                _flip_to_passed(data, case)
        data.update(rederive(read_results_data(data)).model_dump(mode="json"))

    _edit(results, forged)
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert "for a script of 3 turns" in done.stderr, done.show()


def test_a_signature_of_any_text_is_refused_worded(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: the stored signature compared as text, which `hmac.compare_digest` refuses with a
    # TypeError for anything but ASCII: an "internal error" instead of a refused file.
    monkeypatch.setenv("GAUNTLET_SIGNING_KEY", "k-for-the-test")
    results = tmp_path / "results.json"
    assert run_cli("run", "--no-transforms", "--quiet", "--out", results).code == 0
    _edit(results, lambda d: d.update(signature="hmac-sha256:é"))
    done = run_cli("report", results, "--format", "json")
    assert done.code == 2, done.show()
    assert "the signature does not match" in done.stderr, done.show()
    assert "internal error" not in done.stderr
