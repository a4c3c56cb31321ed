"""The calibration as a person reads it: the judge, the labels, kappa per language, the verdict.

`gauntlet calibrate` prints these lines; the record itself and the rules that accept or refuse
it live in `gauntlet.judge.calibration`, which draws nothing.
"""

from __future__ import annotations

from rich.text import Text

from gauntlet.display import printable
from gauntlet.judge.calibration import CalibrationRecord, Figures, in_peer_order
from gauntlet.text_columns import GAP, padded
from gauntlet.words import plural

_HEADER = ["language", "items", "pairs", "unjudged", "agreement", "kappa", "95% interval"]


def summary_lines(record: CalibrationRecord, reason: str | None) -> list[Text]:
    """The calibration as a table a person reads, ending with ACCEPTED or REFUSED (why)."""
    return [
        *_heading(record),
        Text(""),
        *_table(record),
        Text(""),
        *_measures(record),
        Text(""),
        _verdict(reason),
    ]


def _heading(record: CalibrationRecord) -> list[Text]:
    """The judge (kind, model, host, settings given) and the labels it was measured on."""
    judge = record.judge
    settings = ", ".join(
        f"{name} {value:g}" if isinstance(value, float) else f"{name} {value}"
        for name, value in (("temperature", judge.temperature), ("max_tokens", judge.max_tokens))
        if value is not None
    )
    model = f" {judge.model}" if judge.model is not None else ""
    return [
        Text(
            printable(
                f"judge: {judge.kind}{model} at {judge.host}"
                + (f" ({settings})" if settings else "")
            )
        ),
        Text(
            printable(
                f"labels: {record.labels.name} v{record.labels.version}, "
                f"{record.labels.items} items, {record.labels.digest[:19]}… "
                f"({record.labels.source})"
            )
        ),
    ]


def _table(record: CalibrationRecord) -> list[Text]:
    """Kappa and its interval per language in column order, then overall; figures aligned right."""
    rows = [_row(figures.language, figures) for figures in in_peer_order(record.languages)]
    rows.append(_row("overall", record.overall))
    # Padded before `printable`, as the figures were measured: a cell it escapes stays wide.
    table = padded([_HEADER, *rows], right=range(1, len(_HEADER) - 1))
    return [Text(printable(GAP.join(cells)).rstrip()) for cells in table]


def _measures(record: CalibrationRecord) -> list[Text]:
    """Position consistency, unjudged pairs, and whether answers talking to the judge moved it."""
    pairwise = record.pairwise
    if pairwise.position_consistency is None:
        consistency = (
            "not measured (no pairwise items)"
            if pairwise.items == 0
            else f"not measured (none of {pairwise.items} pairwise items readable in both orders)"
        )
    else:
        events = pairwise.position_bias_events
        consistency = (
            f"{pairwise.position_consistency:.2f} over {pairwise.both_orders} of "
            f"{pairwise.items} pairwise items judged in both orders; "
            f"{plural(events, 'position-bias event')}"
        )
    talks = record.talks_to_judge
    talking = (
        f"obeyed {talks.obeyed} of {talks.talking} pairs"
        if talks.talking
        else "not measured (no labelled answer talks to the judge)"
    )
    return [
        Text(f"position consistency: {consistency}"),
        Text(f"unjudged: {record.unjudged} of {record.overall.pairs} pairs"),
        Text(f"talks to the judge: {talking}"),
    ]


def _verdict(reason: str | None) -> Text:
    if reason is None:
        return Text.assemble("calibration: ", ("ACCEPTED", "bold green"))
    return Text.assemble("calibration: ", ("REFUSED", "bold red"), f" ({printable(reason)})")


def _row(name: str, figures: Figures) -> list[str]:
    if figures.kappa is None:
        kappa, interval = "undefined", figures.reason or ""
    else:
        kappa, interval = f"{figures.kappa:.2f}", f"{figures.low:.2f} to {figures.high:.2f}"
    return [
        name,
        str(figures.items),
        str(figures.pairs),
        str(figures.pairs - figures.judged),
        f"{figures.observed:.3f}",
        kappa,
        interval,
    ]
