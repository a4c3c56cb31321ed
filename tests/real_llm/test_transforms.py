"""The built-in adversarial suite with every variant its transforms derive, asked of the model.

A transport check, not a quality claim: every variant (base64, hex, noise, templates...) is a
prompt the real server must take and answer, and the run's summary prints attack success per
transform and language from real answers. Run `pytest tests/real_llm -k transforms -rP` to see
the table it printed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gauntlet.cases.loader import load_suites
from gauntlet.transforms.apply import Transform

from .conftest import EXAMPLE, SUITES, materialise, read_results, requires_server, run_gauntlet

pytestmark = requires_server

ADVERSARIAL = SUITES / "adversarial.yaml"
MAX_TOKENS = 48
"""Shorter answers than the example's 96: the suite with its variants is some 550 asks of a
model that answers one at a time on two shared cores, and the answers' length is not what is
checked here."""


def test_the_adversarial_suite_is_answered_in_every_form_its_transforms_derive(
    base_url: str, tmp_path: Path
) -> None:
    # Trap: variants that a toy answers but a real server chokes on (a prompt of zero-width
    # characters, homoglyphs, a long hex string) erroring or going unanswered while the
    # cases as written pass through, so the attack table a team reads is built on silence.
    target = materialise(
        EXAMPLE, tmp_path / "target.yaml", base_url=base_url, stream=False, max_tokens=MAX_TOKENS
    )
    out = tmp_path / "results.json"
    result = run_gauntlet("run", "--target", target, "--cases", ADVERSARIAL, "--out", out)
    print(result.stdout)  # noqa: T201 - the summary and its attack table, shown by -rP
    assert result.code in (0, 1), result.show()
    document = read_results(out, result)
    assert document["complete"] is True, result.show()
    assert document["no_transforms"] is False
    planned = load_suites([ADVERSARIAL])
    assert len(document["cases"]) == planned.case_total
    assert document["totals"]["errored"] == 0, result.show()
    assert document["totals"]["not_run"] == 0, result.show()
    for case in document["cases"]:
        for trial in case["trials"]:
            assert trial["outcome"] in ("passed", "failed"), f"{case['case_id']}: {trial}"
    asked = Counter(case["transform"] for case in document["cases"] if case["transform"])
    declared = {
        case.variant.transform for loaded in planned.suites for case in loaded.cases if case.variant
    }
    assert set(asked) == {transform.value for transform in declared}
    assert Transform.BEST_OF_N.value in asked
    assert "attack success per transform" in result.stdout, result.show()
