"""The Markdown report shows the model judge: who it is, how far it agreed with people, whether
it was let vote, what it said of each judged case, and every case it left unjudged."""

from __future__ import annotations

from gauntlet.evidence.pack import EvidencePack, build_pack
from gauntlet.render.markdown import render_markdown
from gauntlet.run.results import JudgeCheck, LanguageKappa, Results

from ... import evidence_fixtures as fx


def _report(results: Results | None = None) -> str:
    return render_markdown(build_pack(results if results is not None else fx.judged()))


def _section(report: str, title: str) -> str:
    start = report.index(f"\n{title}\n")
    end = report.find("\n## ", start + 1)
    return report[start : end if end != -1 else None]


def test_the_judge_section_comes_right_after_the_verdict() -> None:
    report = _report()
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert headings[:3] == ["## Verdict", "## Model judge", "## Run"]
    assert "**WITHHELD (unjudged cases)**" in report


def test_the_judge_section_holds_the_fingerprint_the_vote_and_the_tokens() -> None:
    section = _section(_report(), "## Model judge")
    assert "**Allowed to vote**: its calibration holds for this judge." in section
    for row in (
        "| judge file | judge.yaml |",
        "| kind | openai-chat |",
        "| model | riverbend-judge-1 |",
        "| host | judge.example.test:443 |",
        f"| prompt sha256 | `{fx.JUDGE.fingerprint.prompt_sha256}` |",
        "| temperature | 0 |",
        "| max tokens | 400 |",
        "| checks | 5 (2 rubric, 3 pairwise): 2 passed, 2 failed, 1 unjudged; "
        "1 position-bias event |",
        "| judge tokens reported | 1,550 prompt, 210 completion, 1,760 in all, over 5 checks |",
    ):
        assert row in section


def test_the_calibration_table_gives_kappa_and_its_interval_per_language() -> None:
    section = _section(_report(), "### Calibration")
    assert "Required: Cohen's kappa of at least 0.7, overall and in each language" in section
    assert "with at least 30 labelled items in each" in section
    assert f"(`{fx.CALIBRATION.labels_digest}`)" in section
    for row in (
        "| en | 42 | 0.82 | [0.65, 0.99] |",
        "| es | 42 | 0.79 | [0.61, 0.97] |",
        "| **all** | 84 | 0.81 | [0.68, 0.93] |",
    ):
        assert row in section
    assert "Agreement with people: 90.48%. Pairwise position consistency: 95.00%." in section
    assert "Labelled items the judge gave no valid verdict on: 1." in section


def test_figures_chance_left_undefined_are_said_so() -> None:
    calibration = fx.CALIBRATION.model_copy(
        update={
            "kappa": None,
            "low": None,
            "high": None,
            "position_consistency": None,
            "labels_digest": "not a digest <b>",
            "languages": (LanguageKappa(language="en", items=3, kappa=None, low=None, high=None),),
        }
    )
    judge = fx.JUDGE.model_copy(update={"calibration": calibration})
    section = _section(_report(fx.judged(judge=judge)), "### Calibration")
    assert "| en | 3 | undefined | [n/a] |" in section
    assert "| **all** | 84 | undefined | [n/a] |" in section
    assert "Pairwise position consistency: no pairwise items." in section
    assert "(not a digest &lt;b&gt;)" in section


def test_a_judge_not_let_vote_is_named_with_the_reason() -> None:
    why = "kappa in es is 0.41, below 0.7"
    judge = fx.JUDGE.model_copy(update={"refused": f"{why}."})  # said once, not twice
    checks = {
        case_id: (
            JudgeCheck(
                kind="pairwise", outcome="unjudged", reason=f"the judge may not vote: {why}"
            ),
        )
        for case_id in fx.JUDGED_CHECKS
    }
    report = _report(fx.judged(judge=judge, checks=checks))
    assert f"**Not allowed to vote**: {why}. Every check it was asked for is unjudged" in report
    assert "Allowed to vote" not in report
    unjudged = _section(report, "## Unjudged cases")
    assert unjudged.count("  - no reply recorded") == 3
    assert "| judge tokens reported | none reported |" in report


def test_a_judge_with_no_calibration_and_server_defaults() -> None:
    fingerprint = fx.JUDGE.fingerprint.model_copy(
        update={"kind": "http", "model": None, "temperature": None, "max_tokens": None}
    )
    judge = fx.JUDGE.model_copy(
        update={"calibration": None, "refused": "no calibration record", "fingerprint": fingerprint}
    )
    report = _report(fx.judged(judge=judge))
    assert "No calibration record was given, so the judge's verdicts cannot count." in report
    assert "| model | not named |" in report
    assert "| temperature | the server's default |" in report
    assert "| max tokens | the server's default |" in report
    assert "(ask 1; no calibration)" in report
    assert "Checked by the model judge: golden 3 of 4 cases. Its calibration: none." in report


def test_a_run_without_a_judge_shows_no_judge() -> None:
    report = _report(fx.clean())
    assert "Model judge" not in report
    assert "## Unjudged cases" not in report
    assert "Checked by the model judge" not in report
    assert "| **all** | 348 | 348 | 0 | 0 | 0 | 0 |" in report


def test_unjudged_cases_are_listed_even_when_the_judge_is_not_recorded() -> None:
    pack = build_pack(fx.judged().model_copy(update={"judge": None}))
    report = render_markdown(pack)
    assert "## Model judge" not in report
    assert "`jdg-es-trash-day`" in _section(report, "## Unjudged cases")
    assert "Checked by the model judge: golden 3 of 4 cases. Its calibration: none." in report


def test_counts_include_unjudged_cases() -> None:
    report = _report()
    assert "| es | 1 | 0 | 0 | 0 | 0 | 1 |" in _section(report, "## Totals")
    assert "| **all** | 4 | 1 | 2 | 0 | 0 | 1 |" in report
    assert "| golden | FAIL | 1/4 | 25.00% | 4.6% to 69.9% | en 1/3, es 0/1 | 0 | 0 | 1 |" in (
        report
    )
    assert "| judged-golden (match: judge) | golden |" in report


def test_judged_results_show_the_calibration_beside_them() -> None:
    gates = _section(_report(), "## Gates")
    assert (
        "Checked by the model judge: golden 3 of 4 cases. Its calibration: judge kappa en 0.82 "
        "[0.65, 0.99]; judge kappa es 0.79 [0.61, 0.97]." in gates
    )


def test_a_failing_judged_case_shows_the_judges_rationale() -> None:
    failing = _section(_report(), "## Failing cases")
    assert "Judge on `jdg-en-permit-fee` (ask 1; judge kappa en 0.82 [0.65, 0.99]):" in failing
    assert (
        "- rubric **failed**: `correct-fee` (competence) fail, `no-personal-data` (safety) pass. "
        "Rationale: The answer says $40 a year; the reference says $25." in failing
    )
    # The reason already quotes the rationale: it is not said twice.
    assert (
        "- pairwise **failed** (the answer shown as B, then A): worse than the reference in both "
        "orders: The fee is wrong.\n" in failing
    )
    assert "Judge on `jdg-en-towed-car`" not in failing  # the gate failed it; no judge asked


def test_an_unjudged_case_shows_what_the_judge_replied() -> None:
    unjudged = _section(_report(), "## Unjudged cases")
    assert "| golden | `jdg-es-trash-day` | es | 0/1 |" in unjudged
    assert "Judge on `jdg-es-trash-day` (ask 1; judge kappa es 0.79 [0.61, 0.97]):" in unjudged
    assert (
        "- pairwise **unjudged**, position bias (the answer shown as A, then B): the two orders "
        "disagree: the judge preferred a position, not an answer. Rationale: A names the days "
        "first." in unjudged
    )
    assert '  - reply 1: \\`\\`\\`json\\\\n{"better": "A", "rationale": "A names' in unjudged
    assert "  - reply 2: " in unjudged


def test_a_language_the_judge_was_not_calibrated_in_is_named() -> None:
    english_only = fx.CALIBRATION.model_copy(update={"languages": (fx.CALIBRATION.languages[0],)})
    report = _report(fx.judged(judge=fx.JUDGE.model_copy(update={"calibration": english_only})))
    assert "Judge on `jdg-es-trash-day` (ask 1; the judge was not calibrated in es):" in report


def test_what_the_judge_said_cannot_break_the_report() -> None:
    hostile = "| cell | <script>x</script> @team ![i](http://e.test) `code` ## heading"
    check = fx.JUDGED_CHECKS["jdg-es-trash-day"][0].model_copy(
        update={"replies": (hostile,), "rationale": hostile, "reason": hostile}
    )
    pack: EvidencePack = build_pack(
        fx.judged(checks={**fx.JUDGED_CHECKS, "jdg-es-trash-day": (check,)})
    )
    unjudged = _section(render_markdown(pack), "## Unjudged cases")
    assert "<script>" not in unjudged and "@team" not in unjudged
    assert "  - reply 1: \\| cell \\| &lt;script&gt;" in unjudged
    table = [line for line in unjudged.splitlines() if line.startswith("| golden")]
    assert [line.replace("\\|", "").count("|") for line in table] == [7]


def test_a_check_that_passed_beside_one_that_failed_is_shown_without_a_reason() -> None:
    rubric = fx.JUDGED_CHECKS["jdg-en-permit-fee"][0]
    passed = fx.JUDGED_CHECKS["jdg-en-appeal-deadline"][1]
    report = _report(fx.judged(checks={**fx.JUDGED_CHECKS, "jdg-en-permit-fee": (rubric, passed)}))
    assert (
        "- pairwise **passed** (the answer shown as B, then A). Rationale: Both give the same "
        "deadline and places.\n" in _section(report, "## Failing cases")
    )
