"""The Riverbend toy target: a deterministic grounded-RAG assistant with named defects."""

from gauntlet.targets.toy.assistant import PAIRED_GATES, RiverbendToy, ToyDefect, make_toy

__all__ = ["PAIRED_GATES", "RiverbendToy", "ToyDefect", "make_toy"]
