"""The comparison report: one self-contained HTML page (plus the metrics as CSV).

The page has no external references at all (inline style, inline SVG charts), so it
can be mailed, archived or opened offline years later. It is polyglot XHTML: valid
HTML5 that is also well-formed XML, which lets tests (and tools) parse it strictly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mpstudio.engine.comparison.card import build_card
from mpstudio.engine.comparison.card_text import card_notes
from mpstudio.engine.comparison.differences import ADVISOR_KEYS, hardware_differences
from mpstudio.engine.comparison.verdict import rule_text
from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.report.files import ReportError, atomic_write_text
from mpstudio.engine.report.html_parts import (
    PAGE_STYLE,
    card_table,
    charts,
    esc,
    page_head,
    runs_table,
    side_by_side,
    swatch,
)
from mpstudio.engine.report.metrics_csv import metrics_csv_text
from mpstudio.engine.report.svg_chart import BASELINE_COLOR, MIXED_COLOR

__all__ = ["ReportError", "ReportFiles", "render_html", "write_report"]

_STYLE = PAGE_STYLE + """
.verdict-worth_it { background: #e6f4ea; border-color: #1e8e3e; color: #0d5323; }
.verdict-accuracy_loss, .verdict-incomplete { background: #fdecea; border-color: #c5221f;
  color: #8c1d18; }
.verdict-slower { background: #fff4e0; border-color: #e07b00; color: #7a4100; }
.verdict-no_gain, .verdict-too_short, .verdict-cant_tell, .verdict-differs,
.verdict-other { background: #eef1f5;
  border-color: #5b6b7f; color: #323f4b; }
.rule { font-size: 12px; color: #7b8794; margin: 0 0 8px; }
tbody th { font-weight: 500; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.change { font-weight: 600; }
.tip { display: block; font-size: 11px; font-weight: 400; color: #7b8794; }
th.base { border-top: 3px solid #5b6b7f; }
th.mixed { border-top: 3px solid #e07b00; }
.note { font-size: 12px; color: #616e7c; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; justify-content: space-between; }
.charts svg { border: 1px solid #e4e7eb; border-radius: 6px; background: #fff;
  max-width: 100%; height: auto; }
tr.diff td, tr.diff th { background: #fff4e0; }
tr.diff th::after { content: " \\2260"; color: #e07b00; }
.runs td { font-size: 12px; }
.bad { color: #c5221f; font-weight: 600; }
.reason { max-width: 260px; }
.path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 11px; word-break: break-all; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px;
  margin-right: 6px; vertical-align: -1px; }
"""

_KINDS = ("worth_it", "accuracy_loss", "slower", "no_gain", "too_short", "incomplete",
          "cant_tell", "differs")


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    csv: Path | None


def _names(runs: Sequence[StoredRun]) -> str:
    return " / ".join(dict.fromkeys(f"{r.row.dataset} / {r.row.template}" for r in runs))


def _machine(hardware: dict[str, str]) -> dict[str, str]:
    """The hardware without the advisor's word on each side's own precision; the
    device label in the language in force."""
    return {k: device_text(v) if k == "device" and isinstance(v, str) else v
            for k, v in hardware.items() if k not in ADVISOR_KEYS}


def render_html(
    baseline: Sequence[StoredRun],
    mixed: Sequence[StoredRun],
    *,
    generated: dt.datetime | None = None,
    history: Path | str | None = None,
) -> str:
    """The whole page as text. ``baseline``/``mixed``: the trials of each side, in order."""
    if not baseline or not mixed:
        raise ValueError("a comparison report needs at least one run on each side")
    card = build_card(baseline, mixed)
    base_name, mixed_name = card.baseline.label, card.mixed.label
    title = _("mpstudio comparison: {mixed} vs {baseline}").format(mixed=mixed_name,
                                                                    baseline=base_name)
    when = (generated or dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    data = _names(baseline)
    if _names(mixed) != data:
        data = f"{data} vs {_names(mixed)}"
    kind = card.verdict.kind if card.verdict.kind in _KINDS else "other"
    trials = max(len(baseline), len(mixed))
    if len(baseline) == len(mixed):
        trial_text = _(" · {trials} trials per side").format(trials=trials) if trials > 1 else ""
    else:
        trial_text = _(" · {baseline} float32 and {mixed} mixed trials").format(
            baseline=len(baseline), mixed=len(mixed))
    first_b, first_m = baseline[0], mixed[0]
    differing = hardware_differences(first_b.hardware, first_m.hardware)
    if not differing:  # one machine: one column is enough
        hardware = side_by_side(_("both sides"), None, _machine(first_b.hardware), None,
                                N_("item"))
    else:
        note = _("The two sides report different hardware or software ({differences}): "
                 "compare their speeds with care.").format(differences="; ".join(differing))
        hardware = (f'<p class="note">{esc(note)}</p>'
                    + side_by_side(base_name, mixed_name, _machine(first_b.hardware),
                                   _machine(first_m.hardware), N_("item")))
    thinner = _(" · extra trials drawn thinner and lighter") if trials > 1 else ""
    parts = [
        *page_head(title, _STYLE, _("{data}{trials} · generated {when}").format(
            data=data, trials=trial_text, when=when)),
        f'<p class="verdict verdict-{kind}">{esc(card.verdict.sentence)}</p>',
        f'<p class="rule">{esc(rule_text())}</p>',
        _heading(_("Comparison card")),
        card_table(card),
        *(f'<p class="note">{esc(note)}</p>' for note in card_notes(card)),
        _heading(_("Curves")),
        f'<p class="note">{swatch(BASELINE_COLOR)}{esc(base_name)} '
        f'&#160;&#160;{swatch(MIXED_COLOR)}{esc(mixed_name)}{esc(thinner)}</p>',
        f'<div class="charts">{"".join(charts(baseline, mixed))}</div>',
        _heading(_("Run specs")),
        '<p class="note">{}</p>'.format(esc(_(
            "Rows that differ are highlighted; the first trial of each side is shown."))),
        side_by_side(f"{base_name} (#{first_b.id})", f"{mixed_name} (#{first_m.id})",
                     first_b.spec, first_m.spec),
        _heading(_("Hardware")),
        hardware,
        _heading(_("Runs")),
        runs_table(baseline, mixed, history),
        "<footer>{}</footer>".format(esc(_(
            "Written by mpstudio on {when}. The metrics of every run are in the CSV file "
            "saved beside this page.").format(when=when))),
        "</div></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def _heading(text: str) -> str:
    return f"<h2>{esc(text)}</h2>"


def write_report(
    baseline: Sequence[StoredRun],
    mixed: Sequence[StoredRun],
    html_path: Path | str,
    csv_path: Path | str | None = None,
    history: Path | str | None = None,
) -> ReportFiles:
    """Write the page and the metrics CSV (beside the page, same name, ``.csv``, unless
    ``csv_path`` says where); ``history``: the history file the runs are from (their
    kept models are listed). Both are rendered before anything touches the disk, and
    each is replaced whole, so a failure leaves any earlier report as it was.
    Raises ReportError when a file cannot be written."""
    html_path = Path(html_path)
    csv_target = Path(csv_path) if csv_path is not None else html_path.with_suffix(".csv")
    if csv_target.resolve() == html_path.resolve():
        raise ReportError(_("The CSV would overwrite the report itself ({path}); give the "
                            "report an .html name.").format(path=html_path))
    page = render_html(baseline, mixed, history=history)
    table = metrics_csv_text([*baseline, *mixed])
    atomic_write_text(html_path, page)
    atomic_write_text(csv_target, table, newline="")
    return ReportFiles(html=html_path, csv=csv_target)
