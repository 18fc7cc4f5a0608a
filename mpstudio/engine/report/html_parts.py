"""The pieces of the HTML report: the card table, the charts, the spec and
hardware tables, the run list. Every piece is XHTML (well-formed XML) with all text
escaped, so the page stays one valid document whatever labels or reasons hold."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from mpstudio.engine.charts.chart_specs import REPORT_CHARTS, ChartSpec
from mpstudio.engine.charts.series_points import columns, points
from mpstudio.engine.comparison.card import ComparisonCard
from mpstudio.engine.comparison.card_text import (
    card_rows,
    profile_table,
    profile_title,
    side_heading,
)
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.history.run_models import model_file
from mpstudio.engine.i18n import N_, _, language
from mpstudio.engine.report.svg_chart import (
    BASELINE_COLOR,
    MIXED_COLOR,
    ChartSeries,
    attr,
    lighten,
    line_chart,
)
from mpstudio.engine.said import render

DASH = "\u2014"  # a missing value in a table

# The page every mpstudio HTML report shares (comparison report, doctor report); each
# adds its own rules. Only characters XML allows in text: no "&" or "<".
PAGE_STYLE = """
:root { color-scheme: light; }
body { margin: 0; background: #f4f5f7; color: #1f2933;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  sans-serif; }
.page { max-width: 980px; margin: 24px auto; padding: 28px 36px; background: #fff;
  border: 1px solid #e4e7eb; border-radius: 8px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; padding-bottom: 4px;
  border-bottom: 1px solid #e4e7eb; }
.meta { color: #616e7c; margin: 0 0 18px; }
.verdict { font-size: 17px; font-weight: 600; padding: 14px 18px; border-radius: 6px;
  border-left: 6px solid; margin: 0 0 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 6px 10px; border-bottom: 1px solid #e4e7eb; text-align: left;
  vertical-align: top; }
thead th { background: #f4f5f7; font-weight: 600; color: #323f4b; }
.kv td, .kv th { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; }
footer { margin-top: 28px; font-size: 11px; color: #9aa5b1; }
@media print { body { background: #fff; } .page { border: none; margin: 0; } }
"""


def esc(value: Any) -> str:
    return escape(str(value))


def page_head(title: str, style: str, meta: str) -> list[str]:
    """The opening of an mpstudio report page (polyglot XHTML, no external references)
    up to its header: ``meta`` is the line under the title, as text."""
    return [
        "<!DOCTYPE html>",
        f'<html xmlns="http://www.w3.org/1999/xhtml" lang="{language().replace("_", "-")}">',
        '<head><meta charset="utf-8"/>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
        f'<meta name="generator" content="mpstudio"/><title>{esc(title)}</title>'
        f"<style>{style}</style></head>",
        '<body><div class="page">',
        f'<header><h1>{esc(title)}</h1><p class="meta">{esc(meta)}</p></header>',
    ]


def card_table(card: ComparisonCard) -> str:
    """The card's own text (card_rows), so the page shows the very numbers the
    window and the terminal show."""
    figure, change = _("figure"), _("change")  # outside the f-string: Babel reads them
    head = (f'<tr><th scope="col">{esc(figure)}</th>'
            f'<th scope="col" class="num base">{esc(side_heading(card.baseline))}</th>'
            f'<th scope="col" class="num mixed">{esc(side_heading(card.mixed))}</th>'
            f'<th scope="col" class="num">{esc(change)}</th></tr>')
    body = []
    for row in card_rows(card):
        tip = f'<span class="tip">{esc(row.tip)}</span>' if row.tip else ""
        body.append(f'<tr><th scope="row">{esc(row.name)}{tip}</th>'
                    f'<td class="num">{esc(row.baseline)}</td>'
                    f'<td class="num">{esc(row.mixed)}</td>'
                    f'<td class="num change">{esc(row.change)}</td></tr>')
    note = ""
    if max(len(card.baseline.run_ids), len(card.mixed.run_ids)) > 1:
        note = '<p class="note">{}</p>'.format(esc(_(
            "With several trials a figure is the median, followed by the lowest and "
            "highest trial in brackets; the speedup pairs trial i of one side with trial i "
            "of the other.")))
    return (f'<table class="card"><thead>{head}</thead><tbody>{"".join(body)}</tbody>'
            f"</table>{note}{_profile_html(card)}")


def _profile_html(card: ComparisonCard) -> str:
    """The op-by-op table of a profiled comparison; "" without a profile."""
    table = profile_table(card)
    if table is None:
        return ""
    head = "".join(f'<th scope="col"{"" if i == 0 else " class=num"}>{esc(h)}</th>'
                   for i, h in enumerate(table.headers))
    rows = "".join(
        "<tr>" + "".join(f'<td{"" if i == 0 else " class=num"}>{esc(c)}</td>'
                         for i, c in enumerate(row)) + "</tr>" for row in table.rows)
    return (f"<h2>{esc(profile_title())}</h2><p class=\"note\">{esc(table.note)}</p>"
            f'<table class="card"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>')


# ----------------------------------------------------------------------- charts

def _styled(runs: Sequence[StoredRun], color: str) -> Iterable[tuple[StoredRun, str, str, float]]:
    """(run, legend name, color, line width): the first trial bold, the others lighter."""
    for i, run in enumerate(runs):
        name = run.label  # one legend entry per side: trials differ by weight only
        yield run, name, (color if i == 0 else lighten(color, 0.45)), (2.0 if i == 0 else 1.2)


def _sides(baseline: Sequence[StoredRun], mixed: Sequence[StoredRun]):
    yield from _styled(baseline, BASELINE_COLOR)
    yield from _styled(mixed, MIXED_COLOR)


def _chart(chart: ChartSpec, sides: list[tuple[StoredRun, str, str, float]]) -> str:
    """One chart of the table as SVG: each side's series the report draws, a series
    with no point left out (a float32 run has no loss scale)."""
    look = chart.report
    assert look is not None
    lines: list[ChartSeries] = []
    for run, name, color, width in sides:
        tables = {"step": columns(run.steps, "step"), "epoch": columns(run.epochs, "epoch")}
        for spec in chart.series:
            table = tables.get(spec.feed.event)
            if not spec.in_report or table is None:
                continue
            x, y = points(spec.feed, table)
            if not len(x):
                continue
            validation = spec.style == "validation"  # dashed, a marker at each epoch's end
            lines.append(ChartSeries(
                _("{name} (val)").format(name=name) if validation else name,
                x.tolist(), (y * look.scale).tolist(), color, dashed=validation,
                markers=validation, width=width))
    return line_chart(_(look.title), lines, y_label=_(look.y_label),
                      log2_y=chart.axis == "log2", empty_text=look.empty)


def charts(baseline: Sequence[StoredRun], mixed: Sequence[StoredRun]) -> list[str]:
    """The report's charts (``REPORT_CHARTS`` of the chart table), in its order."""
    sides = list(_sides(baseline, mixed))
    return [_chart(chart, sides) for chart in REPORT_CHARTS]


# ------------------------------------------------------------------------ tables

def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"loss_scaling": {"mode": "auto"}} -> {"loss_scaling.mode": "auto"}."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def value_text(value: Any) -> str:
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


def side_by_side(left_head: str, right_head: str | None, left: dict[str, Any],
                 right: dict[str, Any] | None, key_head: str = N_("setting")) -> str:
    """Two dicts as one table, keys in first-seen order, rows that differ marked; with
    no right-hand dict, a plain key/value table."""
    flat_l, flat_r = flatten(left), flatten(right or {})
    keys = list(dict.fromkeys([*flat_l, *flat_r]))
    if not keys:
        return '<p class="note">{}</p>'.format(esc(_("nothing recorded")))
    rows = []
    for key in keys:
        a = value_text(flat_l[key]) if key in flat_l else DASH
        b = value_text(flat_r[key]) if key in flat_r else DASH
        second = "" if right is None else f"<td>{esc(b)}</td>"
        cls = ' class="diff"' if right is not None and a != b else ""
        rows.append(f'<tr{cls}><th scope="row">{esc(key)}</th><td>{esc(a)}</td>{second}</tr>')
    heads = [left_head] if right_head is None else [left_head, right_head]
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in heads)
    return (f'<table class="kv"><thead><tr><th scope="col">{esc(_(key_head))}</th>{head}'
            "</tr></thead>"
            f'<tbody>{"".join(rows)}</tbody></table>')


def _time_text(stamp: float | None) -> str:
    if stamp is None:
        return DASH
    return dt.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S")


def runs_table(baseline: Sequence[StoredRun], mixed: Sequence[StoredRun],
               history: Path | str | None = None) -> str:
    """Each run of both sides; "saved model": the model the run kept in the history's
    folder (when ``history`` is given and it is there) and every export of it."""
    heads = (_("run"), _("side"), _("label"), _("trial"), _("status"), _("started"),
             _("finished at"), _("steps"), _("failure"), _("saved model"))
    rows = []
    for side, runs in ((_("baseline"), baseline), (_("mixed"), mixed)):
        for run in runs:
            kept = model_file(run.id, history) if history is not None else None
            saved = ([str(kept)] if kept else []) + [p for p in run.model_paths
                                                     if p != str(kept)]
            paths = "".join(f'<div class="path">{esc(p)}</div>' for p in saved)
            cells = [
                f"#{run.id}", side, run.label, f"{run.row.trial}/{run.row.trials}",
                _(run.status), _time_text(run.row.created), _time_text(run.finished),
                f"{run.summary.steps_done if run.summary else len(run.steps)}",
            ]
            status_cls = "" if run.status == "finished" else ' class="bad"'
            rows.append(
                "<tr>" + "".join(
                    f"<td{status_cls if i == 4 else ''}>{esc(c)}</td>"
                    for i, c in enumerate(cells))
                + f'<td class="reason">{esc(render(run.failure))}</td>'
                + f"<td>{paths or esc(DASH)}</td></tr>")
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in heads)
    return (f'<table class="runs"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def swatch(color: str) -> str:
    return f'<span class="swatch" style="background:{attr(color)}"></span>'
