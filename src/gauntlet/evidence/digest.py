"""The results digest: sha256 over what the target did and how each answer was graded.

The run's verdict, and per case: suite, case id, language, the outcome, and for every ask the
full response, its outcome and whether it said something (with each turn's answer and
whether it passed), in canonical JSON (sorted keys, fixed separators, UTF-8), cases sorted by
suite and id. The clock, latencies, attempts, the target's label and machine facts are left
out, so two runs that behaved identically share a digest, a one-character change in one
answer changes it, and so does a verdict or an outcome changed by hand. A run given waivers
also covers each waiver as loaded (where it was read from aside) with its state and the state
of each case it covers, so the same answers under other waivers give another digest; a run
without waivers has the digest it had before waivers existed.
"""

from __future__ import annotations

import hashlib
from typing import Any

from gauntlet.canonical import canonical_json
from gauntlet.run.results import CaseResult, Results
from gauntlet.targets.contract import TargetResponse


def digest_record(case: CaseResult) -> dict[str, Any]:
    """The part of one case that the digest covers."""
    return {
        "suite": case.suite,
        "case_id": case.case_id,
        "language": case.language,
        "outcome": case.outcome.value,
        "asks": [
            {
                "response": None if trial.response is None else _response(trial.response),
                "outcome": trial.outcome.value,
                "said_something": trial.said_something,
                "turns": [
                    {"response": _response(turn.response), "passed": turn.passed}
                    for turn in trial.turns
                ],
            }
            for trial in case.trials
        ],
    }


def _response(response: TargetResponse) -> dict[str, Any]:
    """A response as the digest covers it: its trajectory too, when one was reported.

    An answer that reported no calls is written without the key, so its digest is the one the
    formats before tool calls gave it.
    """
    return response.model_dump(
        mode="json", exclude={"tool_calls"} if response.tool_calls is None else None
    )


def results_digest(results: Results) -> str:
    """`sha256:` and the hex digest of the run's observed behaviour."""
    records = sorted(
        (digest_record(case) for case in results.cases),
        key=lambda record: (record["suite"], record["case_id"]),
    )
    observed: dict[str, Any] = {"verdict": results.verdict.value, "cases": records}
    if results.waivers:
        observed["waivers"] = [
            waiver.model_dump(mode="json", exclude={"source", "line"}) for waiver in results.waivers
        ]
    return "sha256:" + hashlib.sha256(canonical_json(observed)).hexdigest()
