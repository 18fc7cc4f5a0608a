"""Terminal tables for the run history and the comparison card (rich)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from mpstudio.engine.comparison.card import ComparisonCard, Side
from mpstudio.engine.comparison.card_text import (
    PROFILE_TITLE,
    card_notes,
    card_rows,
    profile_table,
)
from mpstudio.engine.event_text import fmt, fmt_pct, summary_rows
from mpstudio.engine.hardware.verdict_rules import verdict_text
from mpstudio.engine.history.records import RunRow, StoredRun
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.run_labels import shown_label
from mpstudio.engine.run_labels import status_text as shown_status
from mpstudio.engine.said import render

VERDICT_STYLE = {
    "worth_it": "bold green", "accuracy_loss": "bold red", "incomplete": "bold red",
    "slower": "bold yellow", "no_gain": "bold yellow", "too_short": "bold yellow",
    "cant_tell": "bold yellow", "differs": "bold yellow",
}
STATUS_STYLE = {"finished": "green", "stopped": "yellow", "interrupted": "yellow",
                "diverged": "red", "failed": "red", "running": "cyan"}


# The hardware a run recorded, by key, as ``runs show`` names it
HARDWARE_NAMES = {
    "device": N_("device"), "machine": N_("machine"), "float32_math": N_("float32_math"),
    "tensorflow": N_("tensorflow"),
    "keras": N_("keras"), "python": N_("python"), "cuda": N_("cuda"), "cudnn": N_("cudnn"),
    "advisor_device": N_("advisor_device"), "advisor_verdict": N_("advisor_verdict"),
    "advisor_reason": N_("advisor_reason"),
}


def status_text(status: str) -> Text:
    return Text(shown_status(status), style=STATUS_STYLE.get(status, ""))


def run_title(run: StoredRun) -> str:
    """"#12 mixed_float16 (digits / mlp)", as StoredRun.title() with its label shown."""
    return row_title(run.row)


def row_title(row: RunRow) -> str:
    """A list row's title, as run_title (a damaged run's too: its row reads)."""
    return _("#{id} {label} ({dataset} / {template})").format(
        id=row.id, label=shown_label(row.label), dataset=row.dataset, template=row.template)


NARROW = 100  # columns: below this, each run's where and when share its "run" cell


def runs_table(rows: Sequence[RunRow], total: int, width: int = NARROW) -> Table:
    """The history's runs. An 80-column terminal squeezed the eight columns until the
    ids vanished (they are what a user types next): below NARROW columns the started
    time, dataset and template go under the run's label, and the ids keep their width."""
    title = (_("run history: {shown} of {total} runs").format(shown=len(rows), total=total)
             if len(rows) != total else _("run history: {total} runs").format(total=total))
    table = Table(title=title, title_justify="left")
    narrow = width < NARROW
    keys = ["#", "run", "status", "examples/s", "val acc"] if narrow else [
        "#", "started", "dataset", "template", "run", "status", "examples/s", "val acc"]
    names = {"#": "#", "run": _("run"), "status": _("status"), "examples/s": _("examples/s"),
             "val acc": _("val acc"), "started": _("started"), "dataset": _("dataset"),
             "template": _("template")}
    widest_id = max((len(str(r.id)) for r in rows), default=1)
    for key in keys:
        table.add_column(names[key], justify="right" if key in ("#", "examples/s", "val acc")
                         else "left", no_wrap=key not in ("dataset", "run"),
                         min_width=widest_id if key == "#" else None)
    for r in rows:
        where = [r.started_text, r.dataset, r.template]
        label = shown_label(r.label)
        cells = [f"{label}\n{' · '.join(where)}"] if narrow else [*where, label]
        table.add_row(
            str(r.id), *cells, status_text(r.status),
            fmt(r.examples_per_sec, ",.0f"), fmt_pct(r.val_accuracy, 2),
        )
    return table


def run_detail(run: StoredRun) -> Group:
    """``mpstudio runs show``: what ran, how it ended, epoch by epoch."""
    head = Table(title=run_title(run), show_header=False, title_justify="left")
    head.add_column(style="bold", no_wrap=True)
    head.add_column()
    head.add_row(_("status"), status_text(run.status))
    head.add_row(_("started"), run.row.started_text)
    if run.failure:
        head.add_row(_("reason"), render(run.failure))
    head.add_row(_("data"), render(run.dataset_summary))
    head.add_row(_("model"), _("{name}: {params:,} parameters, output {dtype}").format(
        name=run.model.get("name"), params=run.model.get("params", 0),
        dtype=run.model.get("output_dtype")))
    spec = run.spec
    head.add_row(_("spec"), ", ".join(f"{k}={v}" for k, v in spec.items()
                                      if not isinstance(v, dict) and v not in (None, "")))
    for key, value in run.hardware.items():
        shown = verdict_text(str(value)) if key == "advisor_verdict" else render(value)
        head.add_row(_(HARDWARE_NAMES[key]) if key in HARDWARE_NAMES else key, shown)
    for path in run.model_paths:
        head.add_row(_("model file"), path)
    parts: list = [head]
    if run.summary is not None:
        summary = Table(show_header=False, title=_("summary"), title_justify="left")
        summary.add_column(style="bold", no_wrap=True)
        summary.add_column()
        for name, value in summary_rows(run.summary):
            summary.add_row(name, value)
        parts.append(summary)
    if run.epochs:
        epochs = Table(title=_("{epochs} epochs, {steps} step samples").format(
            epochs=len(run.epochs), steps=len(run.steps)), title_justify="left")
        for name in (_("epoch"), _("step"), _("loss"), _("accuracy"), _("val loss"),
                     _("val acc"), _("time")):
            epochs.add_column(name, justify="right")
        for e in run.epochs:
            epochs.add_row(str(e.epoch), str(e.steps), fmt(e.loss, ".4f"),
                           fmt_pct(e.accuracy, 2), fmt(e.val_loss, ".4f"),
                           fmt_pct(e.val_accuracy, 2), fmt(e.epoch_time, ".2f", " s"))
        parts.append(epochs)
    return Group(*parts)


def side_title(side: Side) -> str:
    """"float32 baseline (#3, #5, #7)", its label shown in the language in force."""
    return _("{label} ({ids})").format(label=shown_label(side.label),
                                       ids=", ".join(f"#{i}" for i in side.run_ids))


def card_table(card: ComparisonCard) -> Group:
    names = {"baseline": shown_label(card.baseline.label), "mixed": shown_label(card.mixed.label)}
    title = (_("{baseline} vs {mixed} (median of {trials} trials)").format(
        trials=card.trials, **names) if card.trials > 1
        else _("{baseline} vs {mixed}").format(**names))
    table = Table(title=title, title_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column(side_title(card.baseline), justify="right")
    table.add_column(side_title(card.mixed), justify="right")
    table.add_column(_("change"), justify="right")
    for row in card_rows(card):
        table.add_row(row.name, row.baseline, row.mixed, row.change)
    verdict = Text(card.verdict.sentence, style=VERDICT_STYLE.get(card.verdict.kind, "bold"))
    notes = [Text(note, style="dim") for note in card_notes(card)]
    profile = profile_table(card)
    if profile is None:
        return Group(table, verdict, *notes)
    ops = Table(title=_(PROFILE_TITLE), title_justify="left",
                caption=profile.note, caption_justify="left")
    for i, head in enumerate(profile.headers):
        ops.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for cells in profile.rows:
        ops.add_row(*cells)
    return Group(table, verdict, *notes, ops)
