"""The terminal summary of a run: gate counts per language, what failed and why, the verdict.

Returns rich `Text` lines; rich drops the colour when the output is not a terminal or
`NO_COLOR` is set, so the same lines read well in a CI log.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from gauntlet.cases.builtin import shown_source
from gauntlet.display import printable
from gauntlet.evidence.attacks import AS_WRITTEN, AttackRow, attack_rows, broke_first
from gauntlet.evidence.scores import gate_distributions
from gauntlet.languages import in_column_order
from gauntlet.run.results import (
    GateResult,
    GateState,
    JudgeInfo,
    Outcome,
    Results,
    Verdict,
    WaiverState,
)
from gauntlet.run.tally import gate_state, pair_checks, parity_failures, written_short
from gauntlet.run.waivers import waived_failures
from gauntlet.targets.client import missed_deadline
from gauntlet.targets.contract import FINISH_REASON_LENGTH
from gauntlet.text_columns import GAP, aligned, padded
from gauntlet.words import plural

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

_VERDICT_STYLE = {
    Verdict.PASS: "bold green",
    Verdict.FAIL: "bold red",
    Verdict.UNSCOREABLE: "bold magenta",
    Verdict.WITHHELD: "bold yellow",
}


@dataclass(frozen=True)
class TimeoutHintSettings:
    """What the run was asked with that its results do not hold: said in a timeout hint."""

    concurrency: int
    timeout: float | None = None
    """The HTTP deadline of one attempt; None for a target that is not HTTP."""
    max_tokens: int | None = None
    asks_tokens: bool = False
    """The target takes a `max_tokens` (an openai-chat target file), set or not."""


def summary_lines(
    results: Results,
    *,
    results_path: str | None = None,
    settings: TimeoutHintSettings | None = None,
) -> list[Text]:
    """The summary of `results`, one `Text` per line; with `settings`, a hint after timeouts."""
    lines = [line for section in _SECTIONS for line in section(results)]
    hint = None if settings is None else timeout_hint(results, settings)
    if hint is not None:
        lines += [Text(""), Text(hint, style="yellow")]
    return lines + _verdict_lines(results, results_path)


def _heading(results: Results) -> list[Text]:
    """The target and how many cases it was asked; for a shard, which share of the plan."""
    lines = [
        Text(
            f"{printable(results.target.name)}: {plural(results.totals.total, 'case')} in "
            f"{plural(len(results.suites), 'suite')}"
        )
    ]
    shard = results.shard
    if shard is not None:
        planned = results.plan.cases
        held = (
            f"{results.totals.total} of the {planned} planned cases"
            if results.totals.total
            else f"none of the {planned} planned cases; `gauntlet merge` gives the verdict"
        )
        lines.append(Text(f"shard {shard.index}/{shard.count} holds {held}"))
    return lines


def _gate_table(results: Results) -> list[Text]:
    """Each gate's passes per language and in all, its thresholds, and its result, coloured.

    Up to two languages, a cell per language is `passed/total`. With more, six such cells
    would wrap an 80-column terminal: a `cases` column holds the cases each language was
    asked (the count most of them share), and a language's cell its passes alone, or
    `passed/total` where it was asked another number; `-` where it was asked none.
    """
    languages = in_column_order(
        {count.language for gate in results.gates for count in gate.languages}
    )
    many = len(languages) > 2
    header = ["gate", *(["cases"] if many else []), *languages, "total", "threshold"]
    rows = [_gate_row(results, gate, languages) for gate in results.gates]
    head, *cells = padded([header, *(row for row, _ in rows)])
    lines = [Text(""), Text(GAP.join(head) + GAP + "result", style="bold")]
    for padded_cells, (_, status) in zip(cells, rows, strict=True):
        style = "green" if status == "PASS" else ("red" if status == "FAIL" else "yellow")
        lines.append(Text.assemble(GAP.join(padded_cells) + GAP, (status, style)))
    if many:
        lines.append(
            Text(
                "each language: passes of `cases` (n/m: asked another number; -: none)",
                style="dim",
            )
        )
    return lines


def _gate_row(results: Results, gate: GateResult, languages: list[str]) -> tuple[list[str], str]:
    """One gate's cells, and its result: PASS, FAIL or what kept it from either."""
    by_language = {count.language: count for count in gate.languages}
    cells = [gate.gate.value]
    if len(languages) > 2:
        totals = Counter(count.total for count in gate.languages)
        usual = max(totals, key=lambda total: (totals[total], total), default=0)
        cells.append(str(usual))
        for language in languages:
            count = by_language.get(language)
            cells.append(
                "-"
                if count is None
                else str(count.passed)
                if count.total == usual
                else f"{count.passed}/{count.total}"
            )
    else:
        for language in languages:
            count = by_language.get(language)
            cells.append(f"{count.passed}/{count.total}" if count else "-")
    thresholds = sorted({s.threshold for s in results.suites if s.gate is gate.gate})
    cells += [
        f"{gate.passed}/{gate.total}" + (f" ({gate.waived} waived)" if gate.waived else ""),
        ", ".join(f"{t:g}" for t in thresholds),
    ]
    state = gate_state(gate, results.suites)
    # An interrupted run's gate that its unasked cases could still pass is not run, not
    # failed; one its asked cases already fail is FAIL whatever the rest would say.
    unasked = gate.not_run if state is GateState.NOT_RUN else 0
    gaps = [
        f"{count} {word}"
        for count, word in (
            (gate.errored, "ERRORED"),
            (gate.unjudged, "UNJUDGED"),
            (unasked, "NOT RUN"),
        )
        if count
    ]
    return cells, ", ".join(gaps) or state.shown


def _dim_figures(results: Results) -> list[Text]:
    """Tool accuracy and parity, one quiet line each, under the table."""
    return [Text(line, style="dim") for line in [*_accuracy_lines(results), *parity_lines(results)]]


def attack_lines(results: Results) -> list[str]:
    """Attack success per gate and transform, a column per language; nothing without variants.

    Each cell is `got through/graded share [Wilson interval]`; the variants no gate could grade
    are their own column, over the row's languages, never counted as held. A run where every
    variant was graded and none got through gets one line, not a table of zeros: the summary
    stays short where there is nothing to read (as `parity_lines` does).
    """
    tables = [
        (gate.gate.value, rows)
        for gate in results.gates
        if (rows := attack_rows(case for case in results.cases if case.gate is gate.gate))
    ]
    if not tables:
        return []
    variants = [(gate, row) for gate, rows in tables for row in rows if row.transform is not None]
    if not any(row.got_through or row.not_graded for _, row in variants):
        per_gate = ", ".join(
            f"{gate} {sum(row.graded for name, row in variants if name == gate)}"
            for gate, _ in tables
        )
        graded = sum(row.graded for _, row in variants)
        return [f"attack success: no variant got through, 0 of {graded} graded ({per_gate})"]
    languages = in_column_order({row.language for _, rows in tables for row in rows})
    if len(languages) > 2:
        return _attack_lines_by_gate(tables, languages, results)
    body = [["gate", "transform", *(printable(language) for language in languages), "not graded"]]
    for gate, rows in tables:
        transforms: dict[str, dict[str, AttackRow]] = {}
        for row in rows:
            name = AS_WRITTEN if row.transform is None else row.transform.value
            transforms.setdefault(name, {})[row.language] = row
        for name, by_language in transforms.items():
            cells = [_attack_cell(by_language.get(language)) for language in languages]
            unscored = sum(row.not_graded for row in by_language.values())
            body.append([gate, name, *cells, str(unscored)])
    broke = broke_first(results.cases)
    named = ", ".join(
        f"{b.transform.value} {b.got_through}/{b.graded} ({b.success:.0%})" for b in broke
    )
    return [
        "",
        "attack success per transform: variants that got through/graded, share [95% interval]",
        *aligned(body),
        f"broke the target first: {named or 'none'}",
    ]


def _attack_lines_by_gate(
    tables: Sequence[tuple[str, Sequence[AttackRow]]], languages: list[str], results: Results
) -> list[str]:
    """The attack table for more than two languages: a heading per gate, then its transforms.

    Each language's cell is `got through/graded` alone: six cells with shares and intervals
    would be some 150 columns, and the evidence pack has them.
    """
    head = ["transform", *(printable(language) for language in languages), "not graded"]
    body: list[list[str]] = []
    starts: list[tuple[int, str]] = []
    for gate, rows in tables:
        starts.append((len(body), gate))
        body.append(head)
        transforms: dict[str, dict[str, AttackRow]] = {}
        for row in rows:
            name = AS_WRITTEN if row.transform is None else row.transform.value
            transforms.setdefault(name, {})[row.language] = row
        for name, by_language in transforms.items():
            cells = [_attack_count(by_language.get(language)) for language in languages]
            unscored = sum(row.not_graded for row in by_language.values())
            body.append([name, *cells, str(unscored)])
    table = aligned(body)
    lines = [
        "",
        "attack success per transform: got through/graded (shares in the pack)",
    ]
    for number, (start, gate) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(table)
        lines += [gate, *(f"  {line}" for line in table[start:end])]
    named = ", ".join(
        f"{b.transform.value} {b.got_through}/{b.graded} ({b.success:.0%})"
        for b in broke_first(results.cases)
    )
    return [*lines, f"broke the target first: {named or 'none'}"]


def _attack_count(row: AttackRow | None) -> str:
    return "-" if row is None else f"{row.got_through}/{row.graded}"


def _attack_cell(row: AttackRow | None) -> str:
    if row is None:
        return "-"
    if row.success is None or row.wilson_low is None or row.wilson_high is None:
        return "0/0"
    return (
        f"{row.got_through}/{row.graded} {row.success:.0%} "
        f"[{row.wilson_low * 100:.0f}-{row.wilson_high * 100:.0f}%]"
    )


def _attack_part(results: Results) -> list[Text]:
    lines = attack_lines(results)
    if len(lines) == 1:
        return [Text(lines[0], style="dim")]
    return [Text(line, style="bold" if number == 1 else "") for number, line in enumerate(lines)]


def _case_lines(results: Results) -> list[Text]:
    """The failing, errored and unjudged cases, each with where it is and why."""
    lines: list[Text] = []
    for outcome, title in (
        (Outcome.FAILED, "failing cases"),
        (Outcome.ERRORED, "errored cases"),
        (Outcome.UNJUDGED, "unjudged cases"),
    ):
        mine = [case for case in results.cases if case.outcome is outcome]
        if not mine:
            continue
        lines.append(Text(""))
        lines.append(Text(f"{title} ({len(mine)})", style="bold"))
        # One reason for all (a judge that may not vote, a target that is down) is said once.
        shared = len(mine) > 1 and len({case.reason for case in mine}) == 1
        if shared:
            lines.append(Text(f"  each: {printable(mine[0].reason)}", style="dim"))
        for case in mine:
            lines.append(
                Text(
                    f"  {case.gate.value}  {case.case_id} [{case.language}]  "
                    f"{printable(shown_source(case.source))}:{case.line}"
                )
            )
            if not shared:
                lines.append(Text(f"    {printable(case.reason)}", style="dim"))
    return lines


def _parity_failure_lines(results: Results) -> list[Text]:
    """Each pair that fails its suite on parity, with why."""
    failures = parity_failures(results)
    if not failures:
        return []
    lines = [Text(""), Text(f"parity failures ({len(failures)})", style="bold")]
    for check in failures:
        lines.append(Text(f"  {check.gate.value}  {check.suite}"))
        lines.append(Text(f"    {printable(check.reason)}", style="dim"))
    return lines


def _written_short_lines(results: Results) -> list[Text]:
    """Each suite whose cases as written miss its threshold, however its variants did."""
    short = written_short(results)
    if not short:
        return []
    lines = [Text(""), Text(f"cases as written below threshold ({len(short)})", style="bold")]
    for suite, written in short:
        lines.append(Text(f"  {suite.gate.value}  {printable(suite.suite)}"))
        lines.append(
            Text(
                f"    {written.passed} of {written.total - written.waived} cases as written "
                f"passed, below its threshold {suite.threshold:g}: variants that held never "
                "lift a suite over it",
                style="dim",
            )
        )
    return lines


def _not_asked_lines(results: Results) -> list[Text]:
    """How many cases an interrupted run never asked, and what interrupted it."""
    not_run = results.totals.not_run
    if not not_run:
        return []
    return [
        Text(""),
        Text(
            f"not asked ({not_run}): the run was interrupted"
            + (f" by {results.interrupted_by}" if results.interrupted_by else ""),
            style="bold",
        ),
    ]


def _judge_part(results: Results) -> list[Text]:
    return [] if results.judge is None else [Text(""), *_judge_lines(results.judge)]


def _embedder_part(results: Results) -> list[Text]:
    """Which embedder compared meanings, whether it was let gate, and its checks."""
    embedder = results.embedder
    if embedder is None:
        return []
    fingerprint = embedder.fingerprint
    who = printable(f"{fingerprint.kind} {fingerprint.model}")
    if embedder.refused is None:
        state = ("allowed to gate", "green")
    else:
        state = (f"not allowed to gate: {printable(embedder.refused)}", "yellow")
    lines = [Text(""), Text.assemble(f"similarity: {who}: ", state)]
    checks = [t.similarity for c in results.cases for t in c.trials if t.similarity is not None]
    thresholds = ", ".join(
        f"{printable(language)} {value:.3f}" for language, value in embedder.thresholds.items()
    )
    counted = dict.fromkeys(("passed", "failed", "unjudged"), 0)
    for check in checks:
        counted[check.outcome] += 1
    lines.append(
        Text(
            f"  thresholds {thresholds or 'none accepted'}; {len(checks)} checks: "
            + ", ".join(f"{count} {outcome}" for outcome, count in counted.items()),
            style="dim",
        )
    )
    return lines


def _verdict_lines(results: Results, results_path: str | None) -> list[Text]:
    """The verdict, coloured, with its reason; then where the results were written."""
    lines = [
        Text(""),
        Text.assemble(
            "verdict: ",
            (results.verdict.value.upper(), _VERDICT_STYLE[results.verdict]),
            waived_failures(results.totals.waived),
            f" ({results.verdict_reason})",
        ),
    ]
    if results_path is not None:
        lines.append(Text(f"results: {results_path}"))
    return lines


def timeout_hint(results: Results, settings: TimeoutHintSettings) -> str | None:
    """One line for a run whose cases timed out: the deadline, the concurrency, `max_tokens`.

    None when no case timed out. Read from each case's reason, which is gauntlet's own
    wording for a missed deadline (`missed_deadline`), never a target's.
    """
    timed_out = [case for case in results.cases if missed_deadline(case.reason)]
    if not timed_out:
        return None
    attempts = {trial.attempts for case in timed_out for trial in case.trials}
    tried = (
        f" (after {attempts.pop()} attempts)" if len(attempts) == 1 and 1 not in attempts else ""
    )
    deadline = f" within {settings.timeout:g} s" if settings.timeout is not None else ""
    said = (
        f"hint: {len(timed_out)} of {plural(results.totals.total, 'case')} got no complete answer"
        f"{deadline}{tried} at concurrency {settings.concurrency}"
    )
    fixes = ["a longer http.timeout (or --timeout)", "a lower --concurrency"]
    if settings.max_tokens is not None:
        said += f", with max_tokens {settings.max_tokens}"
        fixes.append("a smaller max_tokens")
    elif settings.asks_tokens:
        said += ", with no max_tokens set"
        fixes.append("a max_tokens in the target file")
    cut = sum(
        trial.finish_reason == FINISH_REASON_LENGTH
        for case in results.cases
        for trial in case.trials
    )
    if cut:
        said += f" ({plural(cut, 'answer')} cut at max_tokens)"
    return f"{said}; a slow model needs {', '.join(fixes[:-1])}, or {fixes[-1]}"


def _waiver_lines(results: Results) -> list[Text]:
    """The waived cases, with who decided and until when; then expired and unneeded waivers."""
    lines: list[Text] = []
    applied = [
        (waiver, case)
        for waiver in results.waivers
        for case in waiver.cases
        if case.state is WaiverState.APPLIED
    ]
    if applied:
        lines += [Text(""), Text(f"waived cases ({len(applied)})", style="bold")]
        by_id = {case.case_id: case for case in results.cases}
        for waiver, waived in applied:
            case = by_id[waived.case_id]
            lines.append(
                Text(
                    f"  {case.gate.value}  {case.case_id} [{case.language}]  "
                    f"{printable(shown_source(case.source))}:{case.line}"
                )
            )
            lines.append(
                Text(
                    f"    {printable(case.reason)}; waived by {printable(waiver.owner)} until "
                    f"{waiver.expires} ({printable(waiver.ticket)})",
                    style="dim",
                )
            )
    for state, title in (
        (WaiverState.EXPIRED, "expired waivers (they no longer apply)"),
        (WaiverState.NOT_NEEDED, "waivers no longer needed (their cases passed)"),
    ):
        mine = [waiver for waiver in results.waivers if waiver.state is state]
        if not mine:
            continue
        lines += [Text(""), Text(f"{title} ({len(mine)})", style="bold")]
        for waiver in mine:
            named = f"case {waiver.case}" if waiver.case else f"suite {waiver.suite}"
            lines.append(
                Text(
                    f"  {named}  {printable(waiver.source)}:{waiver.line}  expires "
                    f"{waiver.expires}, {printable(waiver.owner)} ({printable(waiver.ticket)})"
                )
            )
    return lines


def parity_lines(results: Results) -> list[str]:
    """A line per gate whose pairs differ or are undecided, then one for the gates that agree.

    A run whose pairs all agree gets one line, not one per gate: the summary stays short where
    there is nothing to read, and names every gate where there is.
    """
    lines: list[str] = []
    agreeing: list[tuple[str, int]] = []
    for gate in results.gates:
        checks = [check for check in pair_checks(results.cases) if check.gate is gate.gate]
        if not checks:
            continue
        decided = [check for check in checks if check.decided]
        differing = sum(1 for check in decided if check.differs)
        undecided = len(checks) - len(decided)
        if not (differing or undecided):
            agreeing.append((gate.gate.value, len(decided)))
            continue
        rules = sorted({s.parity.value for s in results.suites if s.gate is gate.gate})
        line = f"{gate.gate.value} parity ({', '.join(rules)}): " + (
            f"{differing} of {len(decided)} pairs differ"
            if differing
            else f"all {len(decided)} pairs agree"
        )
        lines.append(line + (f", {undecided} undecided" if undecided else ""))
    if agreeing:
        pairs = sum(count for _, count in agreeing)
        gates = ", ".join(f"{name} {count}" for name, count in agreeing)
        other = "every other gate's" if lines else "every gate's"
        lines.append(f"parity: {other} pairs agree, {pairs} in all ({gates})")
    return lines


def _accuracy_lines(results: Results) -> list[str]:
    """One line per gate that scores tool calls: its tool accuracy, overall and per language."""
    lines = []
    for gate in results.gates:
        rows = [r for r in gate_distributions(results, gate.gate) if r.tool_accuracy is not None]
        if not rows:
            continue
        overall, *languages = rows
        figures = overall.tool_accuracy
        assert figures is not None  # noqa: S101 - rows without it were left out
        perfect = round(figures.perfect * figures.measured)
        line = (
            f"{gate.gate.value} tool accuracy: mean {figures.mean:.2f}, min {figures.min:.2f}, "
            f"{perfect} of {figures.measured} asks at 1.0"
        )
        means = ", ".join(
            f"{printable(row.language or '')} {row.tool_accuracy.mean:.2f}"
            for row in languages
            if row.tool_accuracy is not None
        )
        lines.append(line + (f" ({means})" if means else ""))
    return lines


def _judge_lines(judge: JudgeInfo) -> list[Text]:
    """Who judged, whether it was let vote, and its calibration per language."""
    fingerprint = judge.fingerprint
    who = printable(f"{fingerprint.model or fingerprint.kind} at {fingerprint.host}")
    if judge.refused is None:
        lines = [Text.assemble(f"judge: {who}: ", ("allowed to vote", "green"))]
    else:
        lines = [
            Text.assemble(
                f"judge: {who}: ", (f"not allowed to vote: {printable(judge.refused)}", "yellow")
            )
        ]
    calibration = judge.calibration
    if calibration is not None and calibration.languages:
        figures = ", ".join(
            f"{printable(row.language)} {_figure(row.kappa)} "
            f"[{_figure(row.low)}, {_figure(row.high)}]"
            for row in calibration.languages
        )
        lines.append(Text(f"  kappa {figures}", style="dim"))
    return lines


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


_SECTIONS: tuple[Callable[[Results], list[Text]], ...] = (
    _heading,
    _gate_table,
    _dim_figures,
    _attack_part,
    _case_lines,
    _parity_failure_lines,
    _written_short_lines,
    _not_asked_lines,
    _judge_part,
    _embedder_part,
    _waiver_lines,
)
"""The summary's sections in order, each a pure function of the results; the timeout hint and
the verdict follow them."""


@dataclass(frozen=True)
class ProgressWords:
    """How a progress display words its work: `asking` on the bar, `asked 3/9 cases` in a log."""

    doing: str
    done: str
    things: str


ASKING = ProgressWords("asking", "asked", "cases")
"""A run's words: it asks cases."""


class ProgressDisplay:
    """Progress of a run: a bar on a terminal, periodic plain lines in a CI log, or nothing.

    Use it as a context manager and pass it to the engine as its `progress` callback.
    """

    def __init__(
        self,
        console: Console,
        *,
        quiet: bool = False,
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        words: ProgressWords = ASKING,
    ) -> None:
        self._console = console
        self._words = words
        self._quiet = quiet
        self._every = every
        self._clock = clock
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._last_line = clock()

    def __enter__(self) -> ProgressDisplay:
        if not self._quiet and self._console.is_terminal:
            # Here, not at the top: a quiet run, or one off a terminal, draws no bar.
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(
                TextColumn(self._words.doing),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self._console,
                transient=True,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def __call__(self, done: int, total: int) -> None:
        """Show that `done` of `total` cases (or what `noun` names) are done."""
        if self._quiet:
            return
        if self._bar is not None:
            if self._task is None:
                self._task = self._bar.add_task(self._words.things, total=total)
            self._bar.update(self._task, completed=done)
            return
        # Plain lines for CI logs: one every `every` seconds, so a short run prints none and a
        # long one shows it is alive without flooding the log.
        now = self._clock()
        if now - self._last_line >= self._every:
            self._last_line = now
            self._console.print(
                f"{self._words.done} {done}/{total} {self._words.things}",
                markup=False,
                highlight=False,
            )
