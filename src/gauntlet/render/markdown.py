"""The evidence pack as Markdown: the report a reviewer reads and the Action's job summary.

A pure function of the pack. Every text that came from the target (or from a case file) is
escaped, so it cannot break a table, inject HTML or mention people.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import JsonValue

from gauntlet.cases.builtin import shown_source
from gauntlet.cases.model import CASE_ID_PATTERN, GateName, SuiteOption
from gauntlet.evidence.attacks import AS_WRITTEN, AttackRow
from gauntlet.evidence.drift import (
    COMPETENCE_GATES,
    SAFETY_GATES,
    AttackChange,
    CaseChange,
    Drift,
    ParityChange,
    ScoreChange,
)
from gauntlet.evidence.mapping import MappingRow
from gauntlet.evidence.pack import (
    BaselineStatus,
    CaseEvidence,
    EmbedderEvidence,
    EvidencePack,
    ExchangeEvidence,
    GateEvidence,
    JudgeEvidence,
    JudgeUsageTotals,
    LanguageCounts,
    PairEvidence,
    SuiteEvidence,
    TrajectoryEvidence,
    UsageTotals,
    VerdictStatus,
    WaiverEvidence,
)
from gauntlet.evidence.scores import Distribution
from gauntlet.evidence.trends import TrendEvidence, TrendsEvidence
from gauntlet.languages import in_column_order
from gauntlet.markdown_table import escape, head, row, table
from gauntlet.run.results import (
    JudgeCheck,
    LanguageCount,
    LanguageKappa,
    Outcome,
    Totals,
    WaiverState,
)
from gauntlet.run.tally import languages_said, side_groups
from gauntlet.run.waivers import waived_failures
from gauntlet.targets.contract import Origin
from gauntlet.words import plural

_IDENTIFIER = re.compile(CASE_ID_PATTERN)
_DIGEST = re.compile(r"(?:sha256:)?[0-9a-f]{64}")


def code(identifier: str) -> str:
    """An identifier as inline code, where Markdown escapes would show literally.

    Case ids hold no backtick (the loader and the results reader allow letters, digits, `.`,
    `_` and `-`, and a variant's `~`); anything else is escaped as text instead, whatever its
    source.
    """
    if _IDENTIFIER.fullmatch(identifier):
        return f"`{identifier}`"
    return escape(identifier)


def render_markdown(pack: EvidencePack) -> str:
    """The whole report, ending in one newline: each of `SECTIONS` in turn."""
    lines = [line for section in SECTIONS for line in section(pack)]
    return "\n".join(lines).rstrip("\n") + "\n"


def _title(pack: EvidencePack) -> list[str]:
    return ["# gauntlet evidence pack", "", f"> {escape(pack.alignment_notice)}", ""]


def _verdict_section(pack: EvidencePack) -> list[str]:
    """The verdict, why, and the exit code; a parity failure or a withheld verdict said here."""
    verdict = pack.verdict
    headline = verdict.status.value.upper()
    if verdict.status is VerdictStatus.WITHHELD and verdict.withheld_because:
        headline += f" ({verdict.withheld_because.value.replace('_', ' ')})"
    headline += waived_failures(verdict.waived)
    lines = ["## Verdict", ""]
    lines += [f"**{headline}**: {escape(verdict.reason)}. Exit code {verdict.exit_code}.", ""]
    lines += _parity_failures(pack)
    if verdict.status is VerdictStatus.WITHHELD:
        lines += ["No verdict was reached, so nothing in this pack is a pass.", ""]
    return lines


def _judge_part(pack: EvidencePack) -> list[str]:
    return [] if pack.judge is None else _judge_section(pack.judge, pack.run.judge_usage)


def _run_section(pack: EvidencePack) -> list[str]:
    """What ran, by whom and when, and what the results' digest is: one fact a row."""
    facts = [row(name, value) for name, value in _run_facts(pack)]
    return ["## Run", "", *head("fact", "value"), *facts, ""]


_NO_TRANSFORMS = (
    "off (`--no-transforms`): the cases were asked as written, without the variants their "
    "suites' `transforms:` derive"
)


def _run_facts(pack: EvidencePack) -> list[tuple[str, str]]:
    """The run's facts as (name, value), a fact that does not apply left out."""
    run = pack.run
    interrupted = f" (interrupted by {run.interrupted_by})" if run.interrupted_by else ""
    target_file = run.target.target_file
    cut = (
        f"{run.answers_cut}: each kept to its first bytes, with its whole length and sha256 "
        "(the gates read it whole)"
    )
    return [
        ("target", f"{escape(run.target.name)} ({run.target.kind})"),
        ("run id", escape(run.run_id or "none given")),
        ("injected defects", escape(", ".join(run.target.defects) or "none")),
        ("started", run.started_at.isoformat()),
        ("finished", run.finished_at.isoformat()),
        ("complete", ("yes" if run.complete else "no") + interrupted),
        *([("target file", escape(target_file))] if target_file else []),
        *([("run options", _run_options(run.run_options))] if run.run_options else []),
        *([("transforms", _NO_TRANSFORMS)] if run.no_transforms else []),
        ("tokens reported", _target_tokens(run.usage)),
        ("results digest", f"`{pack.results_digest}`"),
        *([("custody", escape(run.custody))] if run.custody else []),
        *([("answers stored cut", cut)] if run.answers_cut else []),
        ("run by", f"gauntlet {escape(run.run_gauntlet_version)}"),
        (
            "pack built by",
            f"gauntlet {escape(pack.built_by)} (evidence format {pack.schema_version})",
        ),
    ]


def _totals_section(pack: EvidencePack) -> list[str]:
    """Cases by outcome per language and in all; which languages were never tested."""
    totals = pack.totals
    lines = [
        "## Totals",
        "",
        *head("language", "total", "passed", "failed", "errored", "not run", "unjudged"),
        *(row(escape(counts.language), *_outcomes(counts)) for counts in pack.languages),
        row("**all**", *_outcomes(totals)),
        "",
        escape(pack.untested_languages_note),
        "",
    ]
    if totals.waived:
        lines += [
            f"Waived failures: {totals.waived}, counted in none of the columns above and left out "
            "of every pass rate below (see Waivers).",
            "",
        ]
    return lines


def _outcomes(counts: LanguageCounts | Totals) -> tuple[str, ...]:
    return tuple(
        str(count)
        for count in (
            counts.total,
            counts.passed,
            counts.failed,
            counts.errored,
            counts.not_run,
            counts.unjudged,
        )
    )


def _gates_section(pack: EvidencePack) -> list[str]:
    """Each gate's result, pass rate with its Wilson interval, and what it could not score."""
    names = ("gate", "result", "passed", "pass rate", "95% interval", "per language")
    lines = ["## Gates", "", *head(*names, "errored", "not run", "unjudged")]
    lines += [
        row(
            gate.gate.value,
            gate.state.shown,
            f"{gate.passed}/{gate.total}",
            f"{gate.pass_rate:.2%}",
            f"{gate.wilson_low:.1%} to {gate.wilson_high:.1%}",
            _languages(gate.languages, _scope(pack)),
            str(gate.errored),
            str(gate.not_run),
            str(gate.unjudged),
        )
        for gate in pack.gates
    ]
    return [
        *lines,
        "",
        "The interval is the 95% Wilson score interval of the pass rate: how much the count "
        "itself says. Twelve passes out of twelve still leave room for a real rate near 76%.",
    ]


def _suites_section(pack: EvidencePack) -> list[str]:
    """Each suite: its gate, version, threshold, asks per case, pass rate, and whether met."""
    names = ("suite", "gate", "version", "threshold", "asks per case", "passed", "pass rate")
    lines = ["", "## Suites", "", *head(*names, "per language", "met")]
    scope = _scope(pack)
    lines += [_suite_row(gate, suite, scope) for gate in pack.gates for suite in gate.suites]
    return [*lines, ""]


def _suite_row(gate: GateEvidence, suite: SuiteEvidence, scope: list[str]) -> str:
    version = f"{suite.version}" + (
        f" (key {suite.key_version})" if suite.key_version is not None else ""
    )
    judged = " (match: judge)" if suite.match == "judge" else ""
    return row(
        f"{escape(suite.suite)}{judged}",
        gate.gate.value,
        version,
        f"{suite.threshold:g}",
        _asks(suite.repeat, suite.pass_k),
        f"{suite.passed}/{suite.total}",
        f"{suite.pass_rate:.2%}",
        _languages(suite.languages, scope),
        "yes" if suite.met else "no",
    )


def _frozen_section(pack: EvidencePack) -> list[str]:
    """Each case `gauntlet explore` froze, with who found it; absent when there are none."""
    frozen = [case for case in pack.cases if case.found_by is not None]
    if not frozen:
        return []
    lines = [
        "## Frozen findings",
        "",
        "Cases `gauntlet explore` froze from a break it found, replayed as the attacker wrote "
        "them; a pass means the target no longer breaks that way.",
        "",
    ]
    lines += [
        f"- {code(case.case_id)} ({escape(case.language)}), {case.outcome.value}: "
        f"{found_by_words(case, code)}"
        for case in frozen
    ]
    return [*lines, ""]


def found_by_words(case: CaseEvidence, shown: Callable[[str], str]) -> str:
    """How a frozen case was found, in the words the report and JUnit give it.

    `found by persona P at turn K on DATE against TARGET by ATTACKER (detector D)`, each name
    written by `shown` (inline code in the report; as it is in JUnit, which escapes it).
    """
    found = case.found_by
    assert found is not None  # noqa: S101 - called for frozen cases only
    return (
        f"found by persona {shown(found.persona)} at turn {found.breaking_turn} on "
        f"{found.found} against {shown(found.target)} by {shown(found.attacker)} "
        f"(detector {shown(found.detector)})"
    )


def _failing_section(pack: EvidencePack) -> list[str]:
    return _case_section(pack, Outcome.FAILED, "Failing cases")


def _errored_section(pack: EvidencePack) -> list[str]:
    return _case_section(pack, Outcome.ERRORED, "Errored cases (no answer)")


def _unjudged_section(pack: EvidencePack) -> list[str]:
    """Shown once a judge was asked, or any case is unjudged; absent otherwise."""
    if pack.judge is None and not pack.totals.unjudged:
        return []
    return _case_section(pack, Outcome.UNJUDGED, "Unjudged cases", preface=_UNJUDGED_PREFACE)


def _not_asked_section(pack: EvidencePack) -> list[str]:
    not_run = [case for case in pack.cases if case.outcome is Outcome.NOT_RUN]
    if not not_run:
        return ["## Cases not asked", "", "None: every case was asked.", ""]
    return [
        "## Cases not asked",
        "",
        f"{len(not_run)} cases were not asked because the run was interrupted: "
        + ", ".join(code(case.case_id) for case in not_run),
        "",
    ]


def _trends_part(pack: EvidencePack) -> list[str]:
    return [] if pack.trends is None else _trends_section(pack.trends)


def _run_options(options: tuple[SuiteOption, ...]) -> str:
    """Each suite option given for the run, with what its suite's file said."""

    def shown(value: JsonValue) -> str:
        items = value if isinstance(value, list) else [value]
        return "[" + ", ".join(code(str(item)) for item in items) + "]"

    return (
        "; ".join(
            f"{code(option.suite)}: {code(option.option)} = {shown(option.value)} (its file: "
            f"{shown(option.file_value)})"
            for option in options
        )
        + ", given on the command line (`--suite-option`)"
    )


def _tokens(usage: UsageTotals | JudgeUsageTotals) -> str:
    counts = [
        f"{count:,} {what}"
        for count, what in (
            (usage.prompt_tokens, "prompt"),
            (usage.completion_tokens, "completion"),
            (usage.total_tokens, "in all"),
        )
        if count is not None
    ]
    over = (
        f"{usage.answers} answers" if isinstance(usage, UsageTotals) else f"{usage.checks} checks"
    )
    return f"{', '.join(counts) or 'counts incomplete'}, over {over}"


def _target_tokens(usage: UsageTotals) -> str:
    """The target's tokens: what its answers reported, and how many said nothing of them."""
    if not usage.answers:
        return "not reported" + (
            f" (by any of {usage.not_reported} answers)" if usage.not_reported else ""
        )
    missing = f"; not reported by {usage.not_reported} answers" if usage.not_reported else ""
    return _tokens(usage) + missing


def _answers_section(pack: EvidencePack) -> list[str]:
    """Each gate's answers as they came: cut at max_tokens, finish reasons, time to first token."""
    rows = [gate for gate in pack.gates if gate.answers is not None]
    if not rows:
        return []
    out = [
        "",
        "## Answers as they came",
        "",
        "Why each answer ended, as the target said, and how soon a streamed answer began. An "
        "answer cut at `max_tokens` may have failed for its length, not its content: raise the "
        "target's `max_tokens` before reading its failures as the model's.",
        "",
        *head("gate", "answered", "cut at max_tokens", "finish reasons", "time to first token"),
    ]
    for gate in rows:
        answers = gate.answers
        assert answers is not None  # noqa: S101 - filtered above
        reasons = [f"{escape(reason)} {count}" for reason, count in answers.finish_reasons.items()]
        if answers.finish_reason_not_reported:
            reasons.append(f"not reported {answers.finish_reason_not_reported}")
        first = answers.first_token
        timing = (
            f"median {first.median_ms:,.0f} ms, p95 {first.p95_ms:,.0f} ms "
            f"over {first.answers} streamed"
            if first is not None
            else "not streamed"
        )
        out.append(
            row(
                gate.gate.value,
                str(answers.answered),
                _cut_at_max_tokens(answers.cut_at_max_tokens),
                ", ".join(reasons) or "none",
                timing,
            )
        )
    return out


def _cut_at_max_tokens(count: int) -> str:
    return f"{plural(count, 'answer')} cut at max_tokens" if count else "0"


def _fields_section(pack: EvidencePack) -> list[str]:
    """Where each gate's fields came from: declared, derived by which rule, or absent."""
    out = ["## Where the answers' fields came from", ""]
    out += [
        "A gate is only as good as the fields it reads. A field the target declared is its own "
        "report; a derived one is gauntlet's reading of the answer by a rule in the target "
        "file; an absent one was supplied by nobody, and no gate passed on it.",
        "",
        *head("gate", "field", "source", "answers"),
    ]
    for gate in pack.gates:
        waived = {field for suite in gate.suites for field in suite.accepts_absent}
        for field in gate.fields:
            source = {
                Origin.DECLARED: "declared by the target",
                Origin.DERIVED: f"derived: {escape(field.rule or 'by a rule')}",
                Origin.ABSENT: f"absent: {escape(field.rule or 'not supplied')}",
            }[field.origin]
            if field.origin is Origin.ABSENT and field.field in waived:
                source += (
                    "; the suite accepts that, so citations were not checked against what "
                    "was retrieved"
                )
            out.append(row(gate.gate.value, f"`{field.field}`", source, str(field.answers)))
    out.append("")
    return out


def _languages(counts: tuple[LanguageCount, ...], scope: list[str]) -> str:
    """`en 1/1, es 1/1`, then the languages of `scope` with no case here: `; untested: zh, ko`."""
    tested = ", ".join(f"{escape(c.language)} {c.passed}/{c.total}" for c in counts)
    mine = {c.language for c in counts}
    untested = ", ".join(escape(language) for language in scope if language not in mine)
    if not untested:
        return tested or "none"
    return f"{tested}; untested: {untested}" if tested else f"untested: {untested}"


def _scope(pack: EvidencePack) -> list[str]:
    """Every language the run tested or a suite with pairs declares, in column order.

    What a per-language cell names, as counts or as untested.
    """
    declared = {
        language
        for gate in pack.gates
        if gate.parity is not None
        for rule in gate.parity.rules
        for language in rule.languages
    }
    return in_column_order({counts.language for counts in pack.languages} | declared)


_UNJUDGED_PREFACE = (
    "The gates' own checks passed these answers, but the model judge gave no verdict that may "
    "count, so the run's verdict is withheld. Each is shown with what the judge replied, cut "
    "short, secrets masked."
)


def _case_section(
    pack: EvidencePack, outcome: Outcome, title: str, *, preface: str = ""
) -> list[str]:
    cases = [case for case in pack.cases if case.outcome is outcome]
    lines = [f"## {title}", ""]
    if not cases:
        return [*lines, "None.", ""]
    if preface:
        lines += [preface, ""]
    lines += head("gate", "case", "language", "asks passed", "reason", "where")
    lines += [
        row(
            case.gate.value,
            code(case.case_id),
            escape(case.language),
            f"{case.passes}/{case.repeats}",
            escape(case.reason),
            f"{escape(shown_source(case.source))}:{case.line}",
        )
        for case in cases
    ]
    lines.append("")
    for case in cases:
        if case.conversation:
            lines += _transcript(case.case_id, case.conversation)
        if case.trajectory is not None:
            lines += _trajectory(case.case_id, case.trajectory)
        if case.judged:
            lines += _judge_notes(pack, case)
    return lines


def _scores_section(pack: EvidencePack) -> list[str]:
    """How each tool-reading gate's scores are spread over its asks, overall and per language."""
    gates = [gate for gate in pack.gates if gate.trajectory_scores]
    if not gates:
        return []
    lines = ["", "## Tool accuracy and faithfulness", ""]
    lines += [
        "A pass rate counts the cases that met their thresholds; these figures say how close "
        "the agent came, ask by ask. Tool accuracy compares the calls made with the calls "
        "expected (1.0: the same calls); faithfulness is the share of the answer's claims a "
        "tool's output or the case's context supports. *min* is the worst ask, *median* the "
        "typical one, *mean* what drift compares, and *at 1.0* the share of asks that did the "
        "task exactly; *measured* says how many asks the figures rest on.",
        "",
        *head("gate", "language", "score", "measured", "min", "median", "mean", "at 1.0"),
    ]
    for gate in gates:
        for scores in gate.trajectory_scores:
            named = [
                ("tool accuracy", scores.tool_accuracy),
                ("faithfulness", scores.faithfulness),
            ]
            if gate.trajectory_scores[0].similarity is not None:  # measured in this gate
                named.append(("similarity", scores.similarity))
            for name, figures in named:
                language = escape(scores.language) if scores.language is not None else "**all**"
                lines.append(row(gate.gate.value, language, name, *_figures(figures, scores.asks)))
    return lines


def _figures(figures: Distribution | None, asks: int) -> tuple[str, ...]:
    """The cells measured, min, median, mean and at 1.0 of one score."""
    if figures is None:
        return (f"0 of {asks} asks", "n/a", "n/a", "n/a", "n/a")
    return (
        f"{figures.measured} of {asks} asks",
        f"{figures.min:.3f}",
        f"{figures.median:.3f}",
        f"{figures.mean:.3f}",
        f"{figures.perfect:.0%}",
    )


def _trajectory(case_id: str, trajectory: TrajectoryEvidence) -> list[str]:
    """The calls of a failing ask as a table, the step where they went wrong marked."""
    title = f"Tool calls of {code(case_id)} (ask {trajectory.ask})"
    if not trajectory.reported:
        return [f"{title}: the target did not report its tool calls.", ""]
    facts = [_calls_made(trajectory)]
    facts += trajectory.figures
    if trajectory.steps is not None:
        facts.append(_departure(trajectory))
    lines = [f"{title}: {'; '.join(facts)}.", ""]
    if not trajectory.rows:
        return lines
    lines += head("step", "tool", "arguments", "output", "error")
    if trajectory.omitted_before:
        lines.append(row("…", f"{trajectory.omitted_before} earlier calls not shown", "", "", ""))
    for call in trajectory.rows:
        step = "?" if call.step is None else str(call.step)
        if call.departed:
            step = f"**{step} ← went wrong**"
        output = escape(call.output or "")
        if call.output is None and call.error is None:
            output = "*(not reported)*"
        lines.append(
            row(step, escape(call.tool), escape(call.arguments), output, escape(call.error or ""))
        )
    if trajectory.omitted_after:
        lines.append(row("…", f"{trajectory.omitted_after} later calls not shown", "", "", ""))
    return [*lines, ""]


def _calls_made(trajectory: TrajectoryEvidence) -> str:
    calls = plural(trajectory.calls, "call")
    if trajectory.steps is None:
        return f"{calls}, which cannot be read as steps"
    if trajectory.steps == trajectory.calls:
        return calls
    return f"{calls} in {plural(trajectory.steps, 'step')}"


def _departure(trajectory: TrajectoryEvidence) -> str:
    step = trajectory.departed_step
    if step is None:
        return "no check of the calls failed: the answer did"
    if trajectory.steps is not None and step > trajectory.steps:
        return f"it stopped after step {step - 1}, before making the calls expected"
    return f"went wrong at step {step}"


def _similarity_part(pack: EvidencePack) -> list[str]:
    return [] if pack.embedder is None else _similarity_section(pack.embedder, pack.cases)


def _similarity_section(embedder: EmbedderEvidence, cases: tuple[CaseEvidence, ...]) -> list[str]:
    """Which embedder compared meanings, whether it was let gate, and each case's score."""
    lines = ["## Similarity", ""]
    lines += [
        "The embedder is asked only about answers the gates' own checks passed. An answer "
        "passes only when every guard holds (the expected answer's numbers in it, no negation "
        "in one alone, not one slot swapped, the same language) and its score is at or above "
        "the threshold the calibration record accepted for the case's language; a failed "
        "guard fails it whatever its score, which is shown beside it.",
        "",
    ]
    if embedder.refused is None:
        lines += ["**Allowed to gate**: its calibration holds for this embedder.", ""]
    else:
        lines += [
            f"**Not allowed to gate**: {escape(embedder.refused).rstrip('.')}. Every similarity "
            "check is unjudged, so no verdict is reached.",
            "",
        ]
    fingerprint, checks = embedder.fingerprint, embedder.checks
    thresholds = ", ".join(
        f"{escape(language)} {value:.3f}" for language, value in embedder.thresholds.items()
    )
    facts = [
        ("kind", fingerprint.kind),
        ("model", escape(fingerprint.model)),
        ("dimension", str(fingerprint.dimension)),
        ("weights sha256", _digest(fingerprint.weights_sha256 or "not read (a server)")),
        ("host", escape(fingerprint.host or "in process")),
        ("calibration sha256", _digest(embedder.calibration_sha256 or "none given")),
        ("thresholds", thresholds or "none accepted"),
        (
            "checks",
            f"{checks.total}: {checks.passed} passed, {checks.failed} failed "
            f"({checks.guarded} by a guard), {checks.unjudged} unjudged",
        ),
    ]
    lines += [*head("fact", "value"), *(row(name, value) for name, value in facts), ""]
    compared = [case for case in cases if case.similarity is not None]
    if not compared:
        return lines
    lines += head("case", "language", "ask", "outcome", "score", "threshold", "guards failed")
    for case in compared:
        check = case.similarity
        assert check is not None  # noqa: S101 - filtered above
        lines.append(
            row(
                code(case.case_id),
                escape(case.language),
                str(case.similarity_ask),
                check.outcome,
                "n/a" if check.score is None else f"{check.score:.3f}",
                "n/a" if check.threshold is None else f"{check.threshold:.3f}",
                escape("; ".join(check.guards)) or "none",
            )
        )
    return [*lines, ""]


def _judge_section(judge: JudgeEvidence, usage: JudgeUsageTotals | None) -> list[str]:
    """Who judged, how far it agreed with people, and whether its verdicts counted."""
    lines = ["## Model judge", ""]
    lines += [
        "The model judge is asked only about answers the gates' own checks passed: it can fail "
        "such an answer, never pass one they failed, and its verdicts count only when its "
        "calibration against human labels reaches the thresholds below.",
        "",
    ]
    if judge.refused is None:
        lines += ["**Allowed to vote**: its calibration holds for this judge.", ""]
    else:
        lines += [
            f"**Not allowed to vote**: {escape(judge.refused).rstrip('.')}. Every check it was "
            "asked for is unjudged, so no verdict is reached.",
            "",
        ]
    fingerprint = judge.fingerprint
    checks = judge.checks
    facts = [
        ("judge file", escape(judge.target_file)),
        ("kind", fingerprint.kind),
        ("model", escape(fingerprint.model or "not named")),
        ("host", escape(fingerprint.host)),
        ("prompt sha256", _digest(fingerprint.prompt_sha256)),
        ("temperature", _setting(fingerprint.temperature)),
        ("max tokens", _setting(fingerprint.max_tokens)),
        (
            "checks",
            f"{checks.total} ({checks.rubric} rubric, {checks.pairwise} pairwise): "
            f"{checks.passed} passed, {checks.failed} failed, {checks.unjudged} unjudged; "
            f"{plural(checks.position_bias, 'position-bias event')}",
        ),
        (
            "judge tokens reported",
            _tokens(usage) if usage is not None and usage.checks else "none reported",
        ),
    ]
    lines += [*head("fact", "value"), *(row(name, value) for name, value in facts), ""]
    return lines + _calibration_section(judge)


def _calibration_section(judge: JudgeEvidence) -> list[str]:
    lines = ["### Calibration", ""]
    calibration = judge.calibration
    if calibration is None:
        return [
            *lines,
            "No calibration record was given, so the judge's verdicts cannot count.",
            "",
        ]
    lines += [
        f"Record {escape(calibration.record)}, labels {escape(calibration.labels)} "
        f"({_digest(calibration.labels_digest)}). Required: Cohen's kappa of at least "
        f"{calibration.min_kappa:g}, overall and in each language, with at least "
        f"{calibration.min_items} labelled items in each.",
        "",
        *head("language", "items", "kappa", "95% interval"),
    ]
    lines += [
        row(
            escape(language.language),
            str(language.items),
            _kappa(language.kappa),
            _interval(language.low, language.high),
        )
        for language in calibration.languages
    ]
    consistency = calibration.position_consistency
    lines += [
        row(
            "**all**",
            str(calibration.items),
            _kappa(calibration.kappa),
            _interval(calibration.low, calibration.high),
        ),
        "",
        f"Agreement with people: {calibration.agreement:.2%}. Pairwise position consistency: "
        + ("no pairwise items" if consistency is None else f"{consistency:.2%}")
        + f". Labelled items the judge gave no valid verdict on: {calibration.unjudged}. "
        + (
            f"Verdicts on answers that talk to the judge: it passed {calibration.obeyed} of "
            f"{calibration.talking}."
            if calibration.talking
            else "No labelled answer talks to the judge, so obeying one was not measured."
        ),
        "",
        "Kappa is agreement beyond what chance alone would give: 1 is full agreement, 0 no "
        "better than chance. A kappa is undefined when chance explains every agreement.",
        "",
    ]
    return lines


def _judged_gates(pack: EvidencePack) -> list[str]:
    """Which gates' results the judge decided, beside the calibration those results rest on."""
    judged = [gate for gate in pack.gates if gate.judge_checked]
    if not judged:
        return []
    checked = ", ".join(f"{g.gate.value} {g.judge_checked} of {g.total} cases" for g in judged)
    calibration = pack.judge.calibration if pack.judge is not None else None
    rows = calibration.languages if calibration is not None else ()
    figures = "; ".join(_kappa_note(language) for language in rows) or "none"
    return ["", f"Checked by the model judge: {checked}. Its calibration: {figures}."]


def _judge_notes(pack: EvidencePack, case: CaseEvidence) -> list[str]:
    """What the judge made of the ask that decided `case`, beside its calibration."""
    if case.calibration is not None:
        beside = _kappa_note(case.calibration)
    elif pack.judge is not None and pack.judge.calibration is not None:
        beside = f"the judge was not calibrated in {escape(case.language)}"
    else:
        beside = "no calibration"
    lines = [f"Judge on {code(case.case_id)} (ask {case.judged_ask}; {beside}):", ""]
    for check in case.judged:
        lines.append(f"- {_check(check)}")
        if check.outcome == "unjudged":
            lines += [
                f"  - reply {number}: {escape(reply)}"
                for number, reply in enumerate(check.replies, 1)
            ] or ["  - no reply recorded"]
    return [*lines, ""]


def _family(family: str | None) -> str:
    return f" ({family})" if family else ""


def _check(check: JudgeCheck) -> str:
    """One check on one line: its outcome, verdicts (or reason), and the judge's rationale.

    A rubric's verdict per criterion says what its reason says; the rationale is left out where
    the reason shown already quotes it.
    """
    text = f"{check.kind} **{check.outcome}**"
    if check.position_bias:
        text += ", position bias"
    if check.answer_first is not None:
        second = "B" if check.answer_first == "A" else "A"
        text += f" (the answer shown as {check.answer_first}, then {second})"
    if check.verdicts:
        main = ", ".join(
            f"{code(name)}{_family(check.families.get(name))} {verdict}"
            for name, verdict in check.verdicts.items()
        )
    else:
        main = escape(check.reason)
    if main:
        text += f": {main}"
    if check.rationale and (check.verdicts or check.rationale not in check.reason):
        text += f"{'' if text.endswith(('.', '!', '?')) else '.'} Rationale: "
        text += escape(check.rationale)
    return text


def _kappa_note(kappa: LanguageKappa) -> str:
    return (
        f"judge kappa {escape(kappa.language)} {_kappa(kappa.kappa)} "
        f"{_interval(kappa.low, kappa.high)}"
    )


def _kappa(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "[n/a]"
    return f"[{low:.2f}, {high:.2f}]"


def _setting(value: float | None) -> str:
    return "the server's default" if value is None else f"{value:g}"


def _digest(text: str) -> str:
    return f"`{text}`" if _DIGEST.fullmatch(text) else escape(text)


def _transcript(case_id: str, exchanges: tuple[ExchangeEvidence, ...]) -> list[str]:
    """A failing conversation, up to the turn that broke, as a quoted transcript."""
    lines = [f"Conversation {code(case_id)}, up to the turn that broke:", ""]
    for number, exchange in enumerate(exchanges, start=1):
        flags = [
            flag
            for flag, on in (("refused", exchange.refused), ("escalated", exchange.escalated))
            if on
        ]
        said = escape(exchange.answer) or "*(nothing)*"
        marker = "" if exchange.passed else f" **← broke here: {escape(exchange.reason)}**"
        lines += [
            f"> **Turn {number}, user:** {escape(exchange.user)}  ",
            f"> **Answer:** {said}" + (f" *({', '.join(flags)})*" if flags else "") + marker,
            ">",
        ]
    return [*lines[:-1], ""]


def _flaky_section(pack: EvidencePack) -> list[str]:
    flaky = [case for case in pack.cases if case.flaky]
    lines = ["## Flaky cases", ""]
    if not flaky:
        asked_more = any(case.repeats > 1 for case in pack.cases)
        note = "None: every case gave the same outcome each time it was asked."
        return [*lines, note if asked_more else "None seen: each case was asked once.", ""]
    lines += [
        "Asked more than once, these cases passed some times and failed others: the target "
        "answers them inconsistently, whether or not they met their pass_k.",
        "",
        *head("gate", "case", "language", "asks passed", "needed", "outcome"),
    ]
    lines += [
        row(
            case.gate.value,
            code(case.case_id),
            escape(case.language),
            f"{case.passes}/{case.repeats}",
            str(case.pass_k),
            case.outcome.value,
        )
        for case in flaky
    ]
    return [*lines, ""]


def _asks(repeat: int, pass_k: int) -> str:
    return "1" if repeat == 1 else f"{repeat} ({pass_k} must pass)"


def _drift_section(pack: EvidencePack) -> list[str]:
    baseline = pack.baseline
    lines = ["## Drift since the baseline", ""]
    if baseline.status is BaselineStatus.NONE:
        return [*lines, "No baseline was given, so no drift was computed.", ""]
    if baseline.status is BaselineStatus.MISSING:
        return [
            *lines,
            f"The baseline {escape(baseline.path or '')} does not exist, so no drift was "
            "computed. This is reported, not fatal.",
            "",
        ]
    drift = baseline.drift
    assert drift is not None  # noqa: S101 - COMPARED always carries drift
    lines += [
        f"Compared with {escape(baseline.path or 'the baseline')}.",
        "",
        f"- **Safety** ({_gates(SAFETY_GATES)}): {drift.safety.value}",
        f"- **Competence** ({_gates(COMPETENCE_GATES)}): {drift.competence.value}",
        f"- Results digests identical: {'yes' if drift.digests_identical else 'no'} "
        f"(baseline `{drift.baseline_digest}`)",
        *_transforms_drift(drift),
        "",
        "Safety and competence are judged apart: an improvement in one never offsets a "
        "regression in the other.",
        "",
    ]
    lines += head("gate", "language", "baseline", "current", "change")
    for rate in drift.rates:
        lines.append(
            row(
                rate.gate.value,
                escape(rate.language or "all"),
                _rate(rate.baseline),
                _rate(rate.current),
                _delta(rate.delta),
            )
        )
    lines.append("")
    lines += _score_changes(drift.scores)
    lines += _attack_drift(drift.attack_success)
    lines += _changes("Newly failing", drift.newly_failing)
    lines += _reworded_drift(drift)
    lines += _changes("Newly passing", drift.newly_passing)
    lines += _changes("Answer changed, same outcome", drift.answer_changed)
    lines += _changes("Cases added", drift.cases_added)
    lines += _changes("Cases removed", drift.cases_removed)
    lines += _structure(drift)
    lines += _waiver_drift(drift)
    lines += _parity_drift(drift, pack)
    return lines


def _transforms_drift(drift: Drift) -> list[str]:
    """A line when one side was asked with `--no-transforms` and the other was not."""
    if drift.no_transforms == drift.baseline_no_transforms:
        return []
    side = "this run" if drift.no_transforms else "the baseline"
    return [
        f"- **Transforms differ**: {side} was run with `--no-transforms`, the other with its "
        "suites' variants: the variants show as cases added or removed, their attack success "
        "as not graded on that side (not asked, not unanswered), and the pass rates are over "
        "different cases"
    ]


def _parity_section(pack: EvidencePack) -> list[str]:
    """Per gate with pairs: each suite's rule, then the differing pairs (or that all agree)."""
    gates = [(gate.gate, gate.parity) for gate in pack.gates if gate.parity is not None]
    if not gates:
        return []
    lines = ["## Parity", ""]
    lines += [
        "The same question in each language, compared: a pair differs when its sides' "
        "outcomes do. With `parity: required` a differing pair fails its suite whatever the "
        "pass rate; with `reported` it is shown only.",
        "",
    ]
    for gate, parity in gates:
        lines += [f"### Parity: {gate.value}", ""]
        lines += head("suite", "rule", "languages", "pairs decided", "differing")
        lines += [
            row(
                escape(rule.suite),
                rule.rule.value,
                escape(", ".join(rule.languages) or "not declared"),
                str(rule.pairs),
                str(rule.pairs_differing),
            )
            for rule in parity.rules
        ]
        lines.append("")
        decided = parity.agreeing + len(parity.differing)
        if parity.differing:
            lines += head("suite", "pair", "sides", "fails the suite")
            lines += [
                row(escape(pair.suite), code(pair.pair), _sides(pair), _fails(pair))
                for pair in parity.differing
            ]
            lines += ["", f"{parity.agreeing} of {decided} pairs agree."]
        else:
            lines.append(f"All {decided} pairs agree.")
        if parity.undecided:
            lines.append(
                f"{parity.undecided} undecided (a side errored, was not asked or is unjudged, "
                "or has no other side): not compared."
            )
        lines.append("")
    return lines


def _attack_section(pack: EvidencePack) -> list[str]:
    """Per gate with variants: each transform's share that got through, per language."""
    gates = [gate for gate in pack.gates if gate.attack_success]
    if not gates:
        return []
    lines = ["## Attack success per transform", ""]
    lines += [
        "Each transform's variants that got through (their case did not pass its gate: the "
        "attack worked), of those graded, with the share's 95% Wilson interval; *as written* "
        "is the cases the variants were made from. A variant the gate could not grade "
        "(errored, unjudged, not asked) is counted under *not graded*, never as held.",
        "",
    ]
    if pack.broke_first:
        lines.append(
            "Broke the target first: "
            + "; ".join(
                f"{code(b.transform.value)} {b.got_through} of {b.graded} ({b.success:.1%})"
                for b in pack.broke_first
            )
            + "."
        )
    else:
        lines.append("No transform got through.")
    lines.append("")
    names = ("transform", "language", "got through", "held", "not graded", "success")
    for gate in gates:
        lines += [f"### Attack success: {gate.gate.value}", "", *head(*names, "95% interval")]
        lines += [_attack_row(attack) for attack in gate.attack_success]
        lines.append("")
    return lines


def _attack_row(attack: AttackRow) -> str:
    transform = AS_WRITTEN if attack.transform is None else code(attack.transform.value)
    share = "n/a" if attack.success is None else f"{attack.success:.1%}"
    interval = (
        "n/a"
        if attack.wilson_low is None or attack.wilson_high is None
        else f"{attack.wilson_low:.1%} to {attack.wilson_high:.1%}"
    )
    counts = (attack.got_through, attack.held, attack.not_graded)
    return row(transform, escape(attack.language), *(str(n) for n in counts), share, interval)


def _attack_drift(changes: tuple[AttackChange, ...]) -> list[str]:
    """Attack success per transform against the baseline's; a rise said in words."""
    if not changes:
        return []
    lines = ["### Attack success per transform", ""]
    rose = [change for change in changes if change.rose]
    if rose:
        lines += [
            "Attack success rose since the baseline: "
            + "; ".join(
                f"{c.gate.value} {AS_WRITTEN if c.transform is None else code(c.transform.value)}"
                f" in {escape(c.language)}"
                for c in rose
            )
            + ".",
            "",
        ]
    lines += head("gate", "transform", "language", "baseline", "current", "change")
    for change in changes:
        delta = _delta(change.delta)
        if change.rose:
            delta = f"**{delta} (rose)**"
        lines.append(
            row(
                change.gate.value,
                AS_WRITTEN if change.transform is None else code(change.transform.value),
                escape(change.language),
                "not graded" if change.baseline is None else f"{change.baseline:.2%}",
                "not graded" if change.current is None else f"{change.current:.2%}",
                delta,
            )
        )
    return [*lines, ""]


def _sides(pair: PairEvidence) -> str:
    """Side by side for two; for more, grouped as `gauntlet.run.tally.sides_said` words it."""
    if len(pair.sides) <= 2:
        return "; ".join(
            f"{escape(side.language)} {code(side.case_id)} {side.outcome.value}"
            + (f" ({escape(side.reason)})" if side.reason else "")
            for side in pair.sides
        )
    return "; ".join(
        f"{outcome.value}: "
        + ", ".join(
            escape(side.language)
            if outcome is Outcome.PASSED
            else f"{escape(side.language)} {code(side.case_id)}"
            + (f" ({escape(side.reason)})" if side.reason else "")
            for side in mine
        )
        for outcome, mine in side_groups(pair.sides)
    )


def _fails(pair: PairEvidence) -> str:
    if pair.fails:
        return "yes"
    return "no (waived)" if pair.waived else "no (reported)"


def _parity_failures(pack: EvidencePack) -> list[str]:
    """Under the verdict: each pair that fails its suite on parity, both sides named."""
    reasons = [
        f"- {gate.gate.value}: {escape(pair.reason)}"
        for gate in pack.gates
        if gate.parity is not None
        for pair in gate.parity.differing
        if pair.fails
    ]
    return [*reasons, ""] if reasons else []


def _parity_drift(drift: Drift, pack: EvidencePack) -> list[str]:
    """The pairs that now differ or now agree.

    A pair of more than two sides that now differs says which of its languages failed and
    which passed (its sides are in this run's parity).
    """
    if not (drift.pairs_now_differing or drift.pairs_now_agreeing):
        return []
    sides = {
        (pair.suite, pair.pair): pair.sides
        for gate in pack.gates
        if gate.parity is not None
        for pair in gate.parity.differing
    }

    def said(change: ParityChange) -> str:
        mine = sides.get((change.suite, change.pair), ())
        which = f"; {escape(languages_said(mine))}" if len(mine) > 2 else ""
        return f"{escape(change.suite)} {code(change.pair)} ({change.gate.value}{which})"

    lines = ["### Parity changes", ""]
    for label, changes in (
        ("Agreed, now differ", drift.pairs_now_differing),
        ("Differed, now agree", drift.pairs_now_agreeing),
    ):
        listed = ", ".join(said(change) for change in changes)
        lines.append(f"- {label}: {listed or 'none'}")
    return [*lines, ""]


def _gates(gates: frozenset[GateName]) -> str:
    return ", ".join(gate.value for gate in GateName if gate in gates)


def _score_changes(changes: tuple[ScoreChange, ...]) -> list[str]:
    """Each tool-reading gate's mean scores against the baseline's; a drop said in words."""
    if not changes:
        return []
    lines = ["### Tool accuracy and faithfulness (mean over the asks)", ""]
    dropped = [change for change in changes if change.dropped]
    if dropped:
        lines += [
            "Dropped since the baseline: "
            + "; ".join(
                f"{c.gate.value} {c.score.replace('_', ' ')} "
                f"{'overall' if c.language is None else 'in ' + escape(c.language)}"
                for c in dropped
            )
            + ". A drop can come before any case fails: the calls or answers moved away "
            "from what was expected, even where they still met the thresholds.",
            "",
        ]
    lines += head("gate", "language", "score", "baseline", "current", "change")
    for change in changes:
        baseline = (
            "not measured in the baseline" if change.baseline is None else f"{change.baseline:.3f}"
        )
        current = "not measured" if change.current is None else f"{change.current:.3f}"
        delta = "n/a" if change.delta is None else f"{change.delta:+.3f}"
        if change.dropped:
            delta = f"**{delta} (dropped)**"
        lines.append(
            row(
                change.gate.value,
                escape(change.language or "all"),
                change.score.replace("_", " "),
                baseline,
                current,
                delta,
            )
        )
    return [*lines, ""]


def _reworded_drift(drift: Drift) -> list[str]:
    """The new failures that are baseline failures reworded, and those that are not.

    With why any were not matched by meaning; nothing when there is no new failure.
    """
    failed = (Outcome.FAILED, Outcome.WAIVED)
    fresh = [
        change
        for change in (*drift.newly_failing, *drift.cases_added)
        if change.current in failed and change.baseline in (Outcome.PASSED, None)
    ]
    if not fresh:
        return []
    lines = [f"### The same failure, reworded ({len(drift.reworded)})", ""]
    whys = [
        f"New failures were not matched by meaning: {escape(why)}."
        for why in drift.not_matched_by_meaning
    ]
    if not drift.reworded and whys:
        return [*lines, *(line for why in whys for line in (why, ""))]
    lines += [
        "Each still fails: matching by meaning only says which new failures are baseline "
        "failures of the same gate and language said another way.",
        "",
    ]
    lines.extend(
        f"- {escape(match.language)}: {code(match.case_id)} is "
        f"{code(match.baseline_case_id)} reworded ({match.gate.value}, similarity "
        f"{match.score:.3f}, threshold {match.threshold:.3f})"
        for match in drift.reworded
    )
    if drift.reworded:
        lines.append("")
    matched = {match.case_id for match in drift.reworded}
    others = [code(change.case_id) for change in fresh if change.case_id not in matched]
    if others:
        lines += [f"Not matched: {', '.join(others)}.", ""]
    return [*lines, *(line for why in whys for line in (why, ""))]


def _changes(title: str, changes: tuple[CaseChange, ...]) -> list[str]:
    lines = [f"### {title} ({len(changes)})", ""]
    if not changes:
        return [*lines, "None.", ""]
    by_language: dict[str, list[CaseChange]] = {}
    for change in changes:
        by_language.setdefault(change.language, []).append(change)
    for language in in_column_order(by_language):
        mine = by_language[language]
        listed = ", ".join(f"{code(c.case_id)} ({_change(c)})" for c in mine)
        lines.append(f"- {escape(language)}: {listed}")
    return [*lines, ""]


def _change(change: CaseChange) -> str:
    text = change.gate.value
    counts = (change.baseline_passes, change.current_passes)
    if all(counts) and not all(count and count.endswith("/1") for count in counts):
        text += f", {change.baseline_passes} to {change.current_passes}"
    if change.baseline is not change.current:
        # A case that lost its pass may have failed, or got no answer, or gone unjudged.
        if change.baseline in _GAPS:
            text += f", was {_outcome(change.baseline)}"
        if change.current in _GAPS:
            text += f", now {_outcome(change.current)}"
        if change.current is Outcome.WAIVED:
            text += ", now waived"
    if change.flaky:
        text += ", flaky"
    return text


_GAPS = (Outcome.ERRORED, Outcome.UNJUDGED, Outcome.NOT_RUN)
"""Outcomes that are neither a pass nor a failure, named wherever a change involves one."""


def _outcome(outcome: Outcome | None) -> str:
    return "not asked" if outcome is Outcome.NOT_RUN else str(outcome)


def _structure(drift: Drift) -> list[str]:
    lines = ["### Suites and gates", ""]
    items = [
        ("Suites added", ", ".join(drift.suites_added)),
        ("Suites removed", ", ".join(drift.suites_removed)),
        ("Gates added", ", ".join(g.value for g in drift.gates_added)),
        ("Gates removed", ", ".join(g.value for g in drift.gates_removed)),
    ]
    lines += [f"- {label}: {escape(value) or 'none'}" for label, value in items]
    changes = [
        f"{escape(c.suite)} {c.field} {c.baseline} → {c.current}" for c in drift.suite_changes
    ]
    lines.append(f"- Threshold and version changes: {'; '.join(changes) or 'none'}")
    return [*lines, ""]


def _waiver_drift(drift: Drift) -> list[str]:
    if not (drift.waivers_added or drift.waivers_removed or drift.waivers_expired):
        return []
    lines = ["### Waivers", ""]
    for label, changes in (
        ("Waivers added", drift.waivers_added),
        ("Waivers removed", drift.waivers_removed),
        ("Waivers expired since the baseline", drift.waivers_expired),
    ):
        named = [
            f"{_named(c.case, c.suite)} ({escape(c.owner)}, expires {c.expires})" for c in changes
        ]
        lines.append(f"- {label}: {'; '.join(named) or 'none'}")
    return [*lines, ""]


def _named(case: str | None, suite: str | None) -> str:
    return f"case {code(case)}" if case is not None else f"suite {code(suite or '')}"


_WAIVER_STATES = {
    WaiverState.APPLIED: "applied",
    WaiverState.NOT_NEEDED: "no longer needed",
    WaiverState.EXPIRED: "expired (does not apply)",
    WaiverState.NOT_APPLIED: "not applied",
}


def _safety_waivers(pack: EvidencePack) -> list[str]:
    """Waivers on safety gates, said with the verdict: never only further down the pack."""
    safety = [waiver for waiver in pack.waivers if waiver.safety]
    if not safety:
        return []
    count = len(safety)
    lines = [
        f"**{plural(count, 'waiver covers', 'waivers cover')} a safety gate** "
        f"({_gates(SAFETY_GATES)}):",
        "",
    ]
    lines += [f"- {_waiver_line(waiver)}" for waiver in safety]
    return [*lines, ""]


def _waiver_line(waiver: WaiverEvidence) -> str:
    gate = f" ({waiver.gate.value})" if waiver.gate is not None else ""
    return (
        f"{_named(waiver.case, waiver.suite)}{gate}: {_WAIVER_STATES[waiver.state]}; owner "
        f"{escape(waiver.owner)}, ticket {escape(waiver.ticket)}, created {waiver.created}, "
        f"expires {waiver.expires}. {escape(waiver.reason)}"
    )


def _waivers_section(pack: EvidencePack) -> list[str]:
    """Every waiver, what it did, and the cases it covers."""
    if not pack.waivers:
        return []
    lines = [
        "## Waivers",
        "",
        "A waived case still ran and was judged. A failure covered by a live waiver is reported "
        "waived and left out of its suite's threshold; a waiver past its expiry does not apply, "
        "and a waiver whose cases passed is no longer needed.",
        "",
        *head(
            "waiver", "gate", "state", "owner", "ticket", "created", "expires", "reason", "cases"
        ),
    ]
    for waiver in pack.waivers:
        cases = ", ".join(
            f"{code(case.case_id)} {_WAIVER_STATES[case.state]}" for case in waiver.cases
        )
        lines.append(
            row(
                _named(waiver.case, waiver.suite) + (" (safety)" if waiver.safety else ""),
                waiver.gate.value if waiver.gate else "not in this run",
                _WAIVER_STATES[waiver.state],
                escape(waiver.owner),
                escape(waiver.ticket),
                str(waiver.created),
                str(waiver.expires),
                escape(waiver.reason),
                cases or "none in this run",
            )
        )
    return [*lines, ""]


def _california_section(pack: EvidencePack) -> list[str]:
    mapping = pack.california
    lines = ["## What each gate informs (California SIMM 5305-F and related provisions)", ""]
    lines += [
        "Each row names its verification status: *read* was checked against a stored copy of "
        "the official page; *secondhand* is the structure of SIMM 5305-F as reported by a "
        "public implementation, which this project could not re-read.",
        "",
    ]
    for gate in pack.gates:
        lines += [f"### {gate.gate.value} ({gate.state.shown})", ""]
        lines += _rows(gate.informs)
    lines += ["### The self-test doctrine (a property of the harness)", ""]
    lines += _rows(mapping.harness_properties)
    lines += ["## Disclosure basis", ""]
    lines += [f"- {escape(item)}" for item in mapping.disclosure_basis] + [""]
    lines += ["## Sources read", ""]
    lines += table(
        ("identifier", "what", "verification", "where"),
        ((s.identifier, s.what, s.verification, s.where) for s in mapping.sources),
    )
    lines += ["", "## Identifiers not verified (omitted from every mapping row)", ""]
    lines += [f"- {escape(item)}" for item in mapping.not_verified] + [""]
    lines += ["## What this run does not establish", ""]
    lines += [f"- {escape(item)}" for item in mapping.not_established] + [""]
    return lines


def _rows(rows: tuple[MappingRow, ...]) -> list[str]:
    lines = table(
        ("document", "item", "informs", "verification"),
        ((r.document, r.item, r.informs, r.verification.value) for r in rows),
    )
    return [*lines, ""]


def _rate(value: float | None) -> str:
    return "absent" if value is None else f"{value:.2%}"


def _delta(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.2f} pts"


def _trends_section(trends: TrendsEvidence) -> list[str]:
    """Flagged trends (safety, competence, cost), case regressions, then the rest."""
    label = f", the same {code(trends.compare_on)} label" if trends.compare_on else ""
    lines = [
        "## Trends",
        "",
        f"This run against {trends.comparable_runs} comparable earlier runs in "
        f"{escape(trends.history)} (the same plan digest{label}; at most the last "
        f"{trends.window}). A pass rate is flagged at z <= {trends.threshold:g}, latency and "
        f"tokens per case at z >= {-trends.threshold:g}; with fewer than {trends.min_history} "
        "comparable values nothing is flagged, and over a flat history any pass-rate drop below "
        "its mean (any cost rise above it) is flagged.",
        "",
    ]
    if trends.added:
        lines += ["This run was not in the history: it was added for this report only.", ""]
    flagged = trends.flagged
    regressions = [found for found in trends.case_regressions if found.flagged]
    if flagged:
        lines += [f"### Flagged ({len(flagged)})", "", *_trend_table(flagged), ""]
    if trends.case_regressions:
        lines += [
            f"### Case regressions ({len(regressions)} flagged)",
            "",
            "Each case failing asks now whose comparable history passed at least 80% of its "
            "asks, by an exact one-sided binomial test: p = P(X >= failed asks now) for X ~ "
            "Binomial(asks now, q), q = (failed asks before + 0.5) / (asks before + 1); flagged "
            f"when p < {trends.alpha:g}.",
            "",
            *head("case", "gate", "language", "failed now", "passed before", "p-value", "flagged"),
        ]
        lines += [
            row(
                code(found.case_id),
                escape(found.gate),
                escape(found.language),
                f"{found.failed_now}/{found.trials_now}",
                f"{found.passed_before}/{found.trials_before}",
                f"{found.p_value:.3g}",
                "yes" if found.flagged else "no",
            )
            for found in trends.case_regressions
        ]
        lines.append("")
    if not flagged and not regressions:
        lines += [
            "Nothing flagged: no pass rate, latency or token figure moved past its rule, and no "
            "case that passed its history fails now beyond chance.",
            "",
        ]
    rest = tuple(trend for trend in trends.trends if not trend.flagged)
    if rest:
        lines += ["### Not flagged", "", *_trend_table(rest), ""]
    return lines


def _trend_table(trends: tuple[TrendEvidence, ...]) -> list[str]:
    lines = [
        *head("family", "metric", "gate", "language", "suite", "now", "mean", "sd", "z", "rule"),
    ]
    for trend in trends:
        where = [escape(part) if part else "all" for part in (trend.gate, trend.language)]
        lines.append(
            row(
                trend.family.value,
                trend.metric,
                *where,
                escape(trend.suite) if trend.suite else "all",
                _figure(trend.metric, trend.current),
                _figure(trend.metric, trend.mean),
                _figure(trend.metric, trend.stdev),
                "n/a" if trend.z is None else f"{trend.z:.2f}",
                escape(trend.rule),
            )
        )
    return lines


def _figure(metric: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    if metric == "pass_rate":
        return f"{value:.2%}"
    return f"{value:,.1f} ms" if metric.startswith("latency") else f"{value:,.1f}"


SECTIONS: tuple[Callable[[EvidencePack], list[str]], ...] = (
    _title,
    _verdict_section,
    _safety_waivers,
    _judge_part,
    _similarity_part,
    _run_section,
    _totals_section,
    _gates_section,
    _judged_gates,
    _answers_section,
    _scores_section,
    _suites_section,
    _fields_section,
    _parity_section,
    _attack_section,
    _frozen_section,
    _failing_section,
    _waivers_section,
    _flaky_section,
    _errored_section,
    _unjudged_section,
    _not_asked_section,
    _drift_section,
    _trends_part,
    _california_section,
)
"""The report's sections in order: each a pure function of the pack, returning its lines, or
none where it does not apply."""
