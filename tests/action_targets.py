"""Python targets for running the GitHub Action on itself: a pass, a fail and a mute target.

CI's self-test (`.github/workflows/ci.yml`) names them as `tests.action_targets:FACTORY`, and
tests/acceptance/test_action.py copies this file next to the cases it runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from gauntlet.targets.contract import Message, TargetResponse
from gauntlet.targets.toy import RiverbendToy, make_toy


def passing() -> RiverbendToy:
    """The Riverbend toy as shipped: every built-in gate passes."""
    return make_toy()


def failing() -> RiverbendToy:
    """The toy with `drop_citations`: the grounding gate fails."""
    return make_toy(["drop_citations"])


class Mute:
    """A target that answers every prompt with an ellipsis: silence, never a pass."""

    name = "mute"

    def ask(
        self, prompt: str, language: str, history: Sequence[Message] | None = None
    ) -> TargetResponse:
        """Say nothing readable, whatever was asked, in any conversation."""
        return TargetResponse(
            text="…", citations=(), context_ids=(), refused=False, escalated=False
        )


def mute() -> Mute:
    """The mute target: on suites that only check absences, the run is UNSCOREABLE."""
    return Mute()
