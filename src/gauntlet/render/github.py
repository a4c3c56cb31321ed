"""GitHub-native output: step outputs, the job summary and annotations. Pure functions.

Nothing a target said reaches a workflow command unescaped: annotation messages and
properties are escaped as GitHub's runner expects, so an answer holding `::add-mask::` or
`::stop-commands::` (or a newline followed by one) is shown, never obeyed. Step outputs hold
only computed numbers and fixed words, so a case id or an answer cannot forge one.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from gauntlet.display import printable
from gauntlet.evidence.pack import BaselineStatus, EvidencePack, VerdictStatus
from gauntlet.run.results import GateState, Outcome

SUMMARY_LIMIT = 1_000_000
"""Bytes of Markdown written to the job summary; GitHub refuses a step summary over 1 MiB."""

TRUNCATED_NOTE = (
    "\n\n---\n\n**This summary was truncated** to fit GitHub's step-summary limit. The full "
    "report is in the evidence pack the step wrote (see the `report-path` output).\n"
)


def github_outputs(pack: EvidencePack) -> str:
    """`name=value` lines for `$GITHUB_OUTPUT`: computed numbers and fixed words only."""
    drift = pack.baseline.drift
    values: dict[str, str] = {
        "passed": _bool(pack.verdict.status is VerdictStatus.PASS),
        "verdict": pack.verdict.status.value
        if pack.verdict.withheld_because is None
        else f"{pack.verdict.status.value}-{pack.verdict.withheld_because.value}",
        "results-digest": pack.results_digest,
        "gates-total": str(len(pack.gates)),
        "gates-passed": str(sum(1 for gate in pack.gates if gate.state is GateState.PASS)),
        "gates-failed": str(sum(1 for gate in pack.gates if gate.state is GateState.FAIL)),
        "gates-not-run": str(sum(1 for gate in pack.gates if gate.state is GateState.NOT_RUN)),
        "cases-total": str(pack.totals.total),
        "cases-passed": str(pack.totals.passed),
        "cases-failed": str(pack.totals.failed),
        "cases-errored": str(pack.totals.errored),
        "cases-not-run": str(pack.totals.not_run),
        "cases-unjudged": str(pack.totals.unjudged),
        "cases-waived": str(pack.totals.waived),
        "drift-computed": _bool(pack.baseline.status is BaselineStatus.COMPARED),
        "drift-newly-failing": str(len(drift.newly_failing)) if drift else "0",
        "drift-newly-passing": str(len(drift.newly_passing)) if drift else "0",
    }
    return "".join(f"{name}={value}\n" for name, value in values.items())


def job_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown report, cut at a line boundary with a visible note if it is too long."""
    if len(markdown.encode("utf-8")) <= limit:
        return markdown
    budget = limit - len(TRUNCATED_NOTE.encode("utf-8"))
    cut = markdown.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
    return cut[: cut.rfind("\n") + 1] + TRUNCATED_NOTE


def annotation_commands(pack: EvidencePack, *, relative_to: Path | None = None) -> str:
    """One `::error` workflow command per failing, errored or unjudged case, at its line.

    Args:
        pack: The evidence pack.
        relative_to: The repository root (`$GITHUB_WORKSPACE`): GitHub places annotations by
            paths relative to it, whatever directory the run was started in.
    """
    lines = []
    for case in pack.cases:
        if case.outcome not in (Outcome.FAILED, Outcome.ERRORED, Outcome.UNJUDGED):
            continue
        title = f"gauntlet {case.gate.value}: {case.case_id} [{case.language}] {case.outcome.value}"
        # The source is the one free text here (a results file may be edited by hand):
        # shown escaped, like every text that could act on a reader.
        source = printable(_workspace_path(case.source, relative_to))
        properties = ",".join(
            f"{key}={_property(value)}"
            for key, value in (("file", source), ("line", str(case.line)), ("title", title))
        )
        lines.append(f"::error {properties}::{_data(case.reason)}\n")
    return "".join(lines)


def _workspace_path(source: str, root: Path | None) -> str:
    if root is None:
        return source
    try:
        path, workspace = Path(source).resolve(), root.resolve()
    except (OSError, RuntimeError, ValueError):  # no path here: a NUL byte, a link loop
        return source
    return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else source


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _data(text: str) -> str:
    """Escape a workflow command's message (the runner's own rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


class GithubFile(NamedTuple):
    """Text to append to one of the files GitHub's runner reads after a step."""

    path: Path
    text: str


def build_github_files(
    pack: EvidencePack, *, output: Path | None, summary: Path | None
) -> list[GithubFile]:
    """What to append to the step-outputs file and to the job-summary file, each when named.

    Pure: the caller appends them (normally to `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY`).
    """
    from gauntlet.render.markdown import render_markdown

    files = []
    if output is not None:
        files.append(GithubFile(output, github_outputs(pack)))
    if summary is not None:
        files.append(GithubFile(summary, job_summary(render_markdown(pack))))
    return files
