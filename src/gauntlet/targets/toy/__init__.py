"""The Riverbend toy target: a deterministic grounded-RAG assistant with named defects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gauntlet.targets.toy.defects import ToyDefect

if TYPE_CHECKING:
    from gauntlet.targets.toy.assistant import PAIRED_GATES as PAIRED_GATES
    from gauntlet.targets.toy.assistant import RiverbendToy as RiverbendToy
    from gauntlet.targets.toy.assistant import make_toy as make_toy

__all__ = ["PAIRED_GATES", "RiverbendToy", "ToyDefect", "make_toy"]


def __getattr__(name: str) -> Any:
    # The assistant (its corpus, patterns and models) loads on first use, so listing the
    # defects in `gauntlet --help` costs nothing.
    if name in ("PAIRED_GATES", "RiverbendToy", "make_toy"):
        from gauntlet.targets.toy import assistant

        return getattr(assistant, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
