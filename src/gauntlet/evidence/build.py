"""Build the evidence pack a report asks for, from the results files it names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gauntlet.evidence.drift import MeaningMatches
    from gauntlet.evidence.pack import EvidencePack
    from gauntlet.evidence.trends import TrendsEvidence
    from gauntlet.run.results import Results

__all__ = ["BuiltPack", "build_evidence_pack"]


class BuiltPack(NamedTuple):
    """The pack, whether its baseline was missing, and the results it was built from.

    A rendering may need more than the pack holds: SARIF reads each case as the run loaded it.
    """

    pack: EvidencePack
    baseline_missing: bool
    results: Results


def build_evidence_pack(
    results_path: Path,
    *,
    baseline: Path | None = None,
    trends: Callable[[Results], TrendsEvidence | None] = lambda results: None,
    reworded: Callable[[Results, Results], MeaningMatches | None] = lambda current, old: None,
) -> BuiltPack:
    """The evidence pack of the results file at `results_path`, with drift and trends.

    Args:
        results_path: A results file written by a run.
        baseline: An earlier results file to compute drift against; a missing one is
            recorded in the pack, not an error.
        trends: Gives the Trends section for the results once read (from a run history,
            which this stage does not read itself), or None for none.
        reworded: Gives, for the results and the baseline once both are read, what matching
            the new failures with the baseline's by meaning found
            (`gauntlet.evidence.reworded`; it asks an embedder, which this stage does not
            open itself), or None when no embedder was given. Not called without a baseline.

    Raises:
        ResultsError: the results or the baseline cannot be read as a results file.
    """
    from gauntlet.evidence.pack import build_pack
    from gauntlet.run.custody import signing_key
    from gauntlet.run.results_file import read_results

    results = read_results(results_path)
    missing = baseline is not None and not baseline.exists()
    previous = read_results(baseline) if baseline is not None and not missing else None
    pack = build_pack(
        results,
        baseline=previous,
        baseline_path=str(baseline) if baseline is not None else None,
        trends=trends(results),
        signing_key=signing_key(),
        reworded=reworded(results, previous) if previous is not None else None,
    )
    return BuiltPack(pack, missing, results)
