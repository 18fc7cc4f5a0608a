"""Terminal tables for the run history and the comparison card (rich)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from mpstudio.engine.comparison.card import ComparisonCard
from mpstudio.engine.comparison.card_text import (
    PROFILE_TITLE,
    card_rows,
    profile_table,
    side_heading,
)
from mpstudio.engine.event_text import fmt, fmt_pct, summary_rows
from mpstudio.engine.history.records import RunRow, StoredRun

VERDICT_STYLE = {
    "worth_it": "bold green", "accuracy_loss": "bold red", "incomplete": "bold red",
    "slower": "bold yellow", "no_gain": "bold yellow", "too_short": "bold yellow",
    "cant_tell": "bold yellow", "differs": "bold yellow",
}
STATUS_STYLE = {"finished": "green", "stopped": "yellow", "interrupted": "yellow",
                "diverged": "red", "failed": "red", "running": "cyan"}


NARROW = 100  # columns: below this, each run's where and when share its "run" cell


def runs_table(rows: Sequence[RunRow], total: int, width: int = NARROW) -> Table:
    """The history's runs. An 80-column terminal squeezed the eight columns until the
    ids vanished (they are what a user types next): below NARROW columns the started
    time, dataset and template go under the run's label, and the ids keep their width."""
    shown = f"{len(rows)} of {total}" if len(rows) != total else f"{total}"
    table = Table(title=f"run history: {shown} runs", title_justify="left")
    narrow = width < NARROW
    names = ["#", "run", "status", "examples/s", "val acc"] if narrow else [
        "#", "started", "dataset", "template", "run", "status", "examples/s", "val acc"]
    widest_id = max((len(str(r.id)) for r in rows), default=1)
    for name in names:
        table.add_column(name, justify="right" if name in ("#", "examples/s", "val acc")
                         else "left", no_wrap=name not in ("dataset", "run"),
                         min_width=widest_id if name == "#" else None)
    for r in rows:
        where = [r.started_text, r.dataset, r.template]
        cells = [f"{r.label}\n{' · '.join(where)}"] if narrow else [*where, r.label]
        table.add_row(
            str(r.id), *cells, Text(r.status, style=STATUS_STYLE.get(r.status, "")),
            fmt(r.examples_per_sec, ",.0f"), fmt_pct(r.val_accuracy, 2),
        )
    return table


def run_detail(run: StoredRun) -> Group:
    """``mpstudio runs show``: what ran, how it ended, epoch by epoch."""
    head = Table(title=run.title(), show_header=False, title_justify="left")
    head.add_column(style="bold", no_wrap=True)
    head.add_column()
    head.add_row("status", Text(run.status, style=STATUS_STYLE.get(run.status, "")))
    head.add_row("started", run.row.started_text)
    if run.failure:
        head.add_row("reason", run.failure)
    head.add_row("data", run.dataset_summary)
    head.add_row("model", f"{run.model.get('name')}: {run.model.get('params', 0):,} parameters,"
                 f" output {run.model.get('output_dtype')}")
    spec = run.spec
    head.add_row("spec", ", ".join(f"{k}={v}" for k, v in spec.items()
                                   if not isinstance(v, dict) and v not in (None, "")))
    for key, value in run.hardware.items():
        head.add_row(key, str(value))
    for path in run.model_paths:
        head.add_row("model file", path)
    parts: list = [head]
    if run.summary is not None:
        summary = Table(show_header=False, title="summary", title_justify="left")
        summary.add_column(style="bold", no_wrap=True)
        summary.add_column()
        for name, value in summary_rows(run.summary):
            summary.add_row(name, value)
        parts.append(summary)
    if run.epochs:
        epochs = Table(title=f"{len(run.epochs)} epochs, {len(run.steps)} step samples",
                       title_justify="left")
        for name in ("epoch", "step", "loss", "accuracy", "val loss", "val acc", "time"):
            epochs.add_column(name, justify="right")
        for e in run.epochs:
            epochs.add_row(str(e.epoch), str(e.steps), fmt(e.loss, ".4f"),
                           fmt_pct(e.accuracy, 2), fmt(e.val_loss, ".4f"),
                           fmt_pct(e.val_accuracy, 2), fmt(e.epoch_time, ".2f", " s"))
        parts.append(epochs)
    return Group(*parts)


def card_table(card: ComparisonCard) -> Group:
    trials = f" (median of {card.trials} trials)" if card.trials > 1 else ""
    table = Table(title=f"{card.baseline.label} vs {card.mixed.label}{trials}",
                  title_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column(side_heading(card.baseline), justify="right")
    table.add_column(side_heading(card.mixed), justify="right")
    table.add_column("change", justify="right")
    for row in card_rows(card):
        table.add_row(row.name, row.baseline, row.mixed, row.change)
    verdict = Text(card.verdict.sentence, style=VERDICT_STYLE.get(card.verdict.kind, "bold"))
    profile = profile_table(card)
    if profile is None:
        return Group(table, verdict)
    ops = Table(title=PROFILE_TITLE, title_justify="left",
                caption=profile.note, caption_justify="left")
    for i, head in enumerate(profile.headers):
        ops.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for row in profile.rows:
        ops.add_row(*row)
    return Group(table, verdict, ops)
