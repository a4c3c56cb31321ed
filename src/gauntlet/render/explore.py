"""The explore report for people: Markdown (`explore-report.md`) and the console's table.

Small section functions, one `SECTIONS` tuple, as the evidence pack's report is written
(`gauntlet.render.markdown`). Every text an attacker or a target wrote is escaped
(`markdown_table.escape`) and cut, so a transcript can neither add markup nor run on.
"""

from __future__ import annotations

from collections.abc import Callable

from gauntlet.display import printable
from gauntlet.explore.model import Conversation, Finding, FindingStatus, Outcome, TokensByRole
from gauntlet.explore.report import ExploreReport, Row
from gauntlet.markdown_table import escape, head, row
from gauntlet.render.markdown import code
from gauntlet.text_columns import aligned

SHOWN = 1000
"""The most characters of one message or answer the Markdown transcript shows (the JSON
report holds every one whole)."""

COLUMNS = (
    "persona",
    "language",
    "conversations",
    "broke",
    "held",
    "unscoreable",
    "errored",
    "not finished",
    "breaking turns",
    "tokens a/t/j",
)
"""The table's columns, in the console and in Markdown: tokens are the attacker's, the
target's and the judge's, `-` where that side reported none."""


def _tokens(tokens: TokensByRole) -> str:
    return "/".join(
        "-" if count is None else f"{count:,}"
        for count in (tokens.attacker, tokens.target, tokens.judge)
    )


def _turns(row_: Row) -> str:
    return " ".join(f"{turn}:{count}" for turn, count in row_.breaking_turns.items()) or "-"


def cells(row_: Row) -> list[str]:
    """One row's cells, as both the console and the Markdown table show them."""
    return [
        row_.persona,
        row_.language,
        str(row_.conversations),
        str(row_.broke),
        str(row_.held),
        str(row_.unscoreable),
        str(row_.errored),
        str(row_.not_finished),
        _turns(row_),
        _tokens(row_.tokens),
    ]


def console_lines(report: ExploreReport) -> list[str]:
    """What `gauntlet explore` prints when it is done: the table, the findings, the verdict."""
    table = [list(COLUMNS), *(cells(item) for item in report.rows)]
    lines = aligned(table, right=range(2, 8))
    for finding in report.findings:
        conversation = finding.conversation
        said = "frozen as" if finding.status is FindingStatus.NEW else "already frozen as"
        lines.append(
            f"{finding.status.value}: {conversation.persona} ({conversation.language}) broke at "
            f"turn {conversation.breaking_turn} by {printable(conversation.detector or '?')}: "
            f"{said} {printable(finding.case_id)} in {printable(finding.file)}"
        )
    lines.append(f"verdict: {report.verdict.status.value} ({report.verdict.why})")
    return lines


def render_explore_markdown(report: ExploreReport) -> str:
    """The whole report, ending in one newline: each of `SECTIONS` in turn."""
    lines = [line for section in SECTIONS for line in section(report)]
    return "\n".join(lines).rstrip("\n") + "\n"


def _title(report: ExploreReport) -> list[str]:
    return [
        "# gauntlet explore report",
        "",
        f"**Verdict: {report.verdict.status.value}** (exit {report.verdict.exit_code}): "
        f"{escape(report.verdict.why)}",
        "",
        f"- Date: {report.date.isoformat()}",
        f"- Target: {escape(report.target)}",
        f"- Attacker: {escape(report.attacker)}",
        *([f"- Judge: {escape(report.judge)}"] if report.judge is not None else []),
        f"- Seed: {report.seed}",
        *(
            [f"- Interrupted by {escape(report.interrupted_by)}: the rest was not had"]
            if report.interrupted_by is not None
            else []
        ),
        "",
    ]


def _table_section(report: ExploreReport) -> list[str]:
    return [
        "## Conversations",
        "",
        "Unscoreable (the attacker or the judge failed), errored (the target could not be "
        "asked) and not finished (a budget or a stop cut it) are counted apart from held: "
        "none of them says the target held.",
        "",
        *head(*COLUMNS),
        *(row(*(escape(cell) for cell in cells(item))) for item in report.rows),
        "",
    ]


def _findings_section(report: ExploreReport) -> list[str]:
    new = [finding for finding in report.findings if finding.status is FindingStatus.NEW]
    lines = ["## New findings", ""]
    if not new:
        return [*lines, "None.", ""]
    for finding in new:
        lines += _finding(finding)
    return lines


def _finding(finding: Finding) -> list[str]:
    conversation = finding.conversation
    lines = [
        f"### {code(finding.case_id)}",
        "",
        f"{code(conversation.persona)} ({escape(conversation.language)}), seed "
        f"{conversation.seed}: broke at turn {conversation.breaking_turn} by "
        f"{escape(conversation.detector or '?')}; frozen in {escape(finding.file)}.",
        "",
    ]
    return lines + _transcript(conversation)


def _transcript(conversation: Conversation) -> list[str]:
    lines = []
    for number, turn in enumerate(conversation.turns, 1):
        intent = f" (intent: {_cut(turn.intent)})" if turn.intent else ""
        lines.append(f"{number}. **user:** {_cut(turn.user)}{intent}")
        if turn.answer is not None:
            lines.append(f"   - **answer:** {_cut(turn.answer)}")
        lines += [f"   - **broke:** {_cut(problem)}" for problem in turn.problems]
    return [*lines, ""]


def _cut(text: str) -> str:
    if len(text) <= SHOWN:
        return escape(text)
    return f"{escape(text[:SHOWN])}... ({len(text):,} characters)"


def _unfrozen_section(report: ExploreReport) -> list[str]:
    """Every break no finding holds (freezing failed): its transcript, so it is not lost."""
    kept = {
        (f.conversation.persona, f.conversation.language, f.conversation.seed)
        for f in report.findings
    }
    lines = []
    for conversation in report.conversations:
        key = (conversation.persona, conversation.language, conversation.seed)
        if conversation.outcome is Outcome.BROKE and key not in kept:
            lines += [
                f"### {code(conversation.persona)} ({escape(conversation.language)}), seed "
                f"{conversation.seed}: broke at turn {conversation.breaking_turn} by "
                f"{escape(conversation.detector or '?')}; not frozen",
                "",
                *_transcript(conversation),
            ]
    if not lines:
        return []
    return ["## Breaks not frozen", "", *lines]


def _known_section(report: ExploreReport) -> list[str]:
    known = [finding for finding in report.findings if finding.status is FindingStatus.KNOWN]
    if not known:
        return []
    return [
        "## Known findings",
        "",
        "Breaks that match a case already frozen; not written again.",
        "",
        *head("persona", "language", "turn", "detector", "case", "file"),
        *(
            row(
                code(finding.conversation.persona),
                escape(finding.conversation.language),
                str(finding.conversation.breaking_turn),
                escape(finding.conversation.detector or "?"),
                code(finding.case_id),
                escape(finding.file),
            )
            for finding in known
        ),
        "",
    ]


def _not_held_section(report: ExploreReport) -> list[str]:
    """Every conversation that ended unscoreable or errored, with why."""
    lines = [
        row(
            code(conversation.persona),
            escape(conversation.language),
            conversation.outcome.value,
            escape(conversation.why),
        )
        for conversation in report.conversations
        if conversation.why is not None
    ]
    lines += [
        row(code(cut.persona), escape(cut.language), "not finished", escape(cut.why))
        for cut in report.unfinished
    ]
    if not lines:
        return []
    return [
        "## Conversations that neither broke nor held",
        "",
        *head("persona", "language", "ended", "why"),
        *lines,
        "",
    ]


def _files_section(report: ExploreReport) -> list[str]:
    lines = ["## Frozen files", ""]
    if not report.frozen_files:
        return [*lines, "None written by this run.", ""]
    return [*lines, *(f"- {escape(path)}" for path in report.frozen_files), ""]


SECTIONS: tuple[Callable[[ExploreReport], list[str]], ...] = (
    _title,
    _table_section,
    _findings_section,
    _unfrozen_section,
    _known_section,
    _not_held_section,
    _files_section,
)
"""The report's sections, in order: each takes the report and gives its lines."""


__all__ = ["COLUMNS", "SECTIONS", "cells", "console_lines", "render_explore_markdown"]
