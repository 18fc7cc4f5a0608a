"""The doctor's report as files to attach to a bug report: JSON (the data) and one
self-contained HTML page (the table, versions, devices and plan; no external
references), both written all at once. The text is already scrubbed of the home
folder, user and host names (run_doctor does that for every line). The page is in
the language in force; the JSON is English, with English keys."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from mpstudio.engine.doctor.checks import COLUMNS, STATUS_COLOR, DoctorReport
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.report.files import atomic_write_text
from mpstudio.engine.report.html_parts import (
    PAGE_STYLE,
    esc,
    page_head,
    side_by_side,
    value_text,
)

_STYLE = PAGE_STYLE + """
.page { max-width: 1080px; }
.verdict { font-size: 16px; }
.verdict-pass { background: #e6f4ea; border-color: #1e8e3e; }
.verdict-warn { background: #fff4e0; border-color: #e07b00; }
.verdict-fail { background: #fdecea; border-color: #c5221f; }
.status { font-weight: 700; white-space: nowrap; }
"""
# How the page names the keys of the versions, devices and plan (the JSON keeps them).
KEY_TEXT = {
    "OS": N_("OS"), "CUDA (build)": N_("CUDA (build)"), "cuDNN (build)": N_("cuDNN (build)"),
    "NVIDIA driver": N_("NVIDIA driver"),
    "device": N_("device"), "name": N_("name"), "compute_capability": N_("compute capability"),
    "architecture": N_("architecture"), "memory_gib": N_("memory (GiB)"),
    "used_by_tensorflow": N_("used by TensorFlow"), "cores": N_("cores"),
    "logical_cores": N_("logical cores"),
    "quick": N_("quick set"), "templates": N_("templates"),
    "steps": N_("training steps per template and policy"), "batch_size": N_("batch size"),
    "shape": N_("input shape"), "classes": N_("classes"),
    "timing_template": N_("timing template"), "timing_steps": N_("timing steps"),
    "timing_batch_size": N_("timing batch size"), "timing_shape": N_("timing input shape"),
    "timing_repeats": N_("timing trials per side"), "learning_rate": N_("learning rate"),
}


def key_text(key: str) -> str:
    return _(KEY_TEXT[key]) if key in KEY_TEXT else key


def _shown_values(values: dict[str, Any]) -> dict[str, Any]:
    """Keys as the page names them, yes/no for booleans."""
    return {key_text(k): (_("yes") if v else _("no")) if isinstance(v, bool) else v
            for k, v in values.items()}


def report_json(report: DoctorReport) -> str:
    return json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"


def _checks_table(report: DoctorReport) -> str:
    rows = []
    for check in report.checks:
        color = STATUS_COLOR.get(check.status, "#1f2933")
        rows.append(f"<tr><td>{esc(check.section_text)}</td><td>{esc(check.name_text)}</td>"
                    f'<td class="status" style="color:{color}">{esc(check.status_text)}</td>'
                    f"<td>{esc(check.reason_text)}</td></tr>")
    head = "".join(f'<th scope="col">{esc(_(h))}</th>' for h in COLUMNS)
    return (f'<table class="checks"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _devices_table(devices: tuple[dict[str, Any], ...]) -> str:
    keys = list(dict.fromkeys(k for d in devices for k in d))
    head = "".join(f'<th scope="col">{esc(key_text(k))}</th>' for k in keys)
    shown = [_shown_values(d) for d in devices]
    rows = "".join("<tr>" + "".join(f"<td>{esc(value_text(d.get(key_text(k))))}</td>"
                                    for k in keys) + "</tr>" for d in shown)
    return f'<table class="devices"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def render_html(report: DoctorReport, generated: dt.datetime | None = None) -> str:
    when = (generated or dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    counts = report.counts()
    kind = "fail" if counts["fail"] else "warn" if counts["warn"] else "pass"
    which = (_("quick set on the {device} · {seconds:.0f} s · generated {when}")
             if report.plan.get("quick")
             else _("full set on the {device} · {seconds:.0f} s · generated {when}"))
    title = _("mpstudio doctor: training on this machine")
    footer = _("Written by mpstudio doctor on {when}. No user, host or home folder names are "
               "included; attach this page (or the JSON) to a bug report.").format(when=when)
    parts = [
        *page_head(title, _STYLE, which.format(device=report.plan.get("device", "?"),
                                               seconds=report.seconds, when=when)),
        f'<p class="verdict verdict-{kind}">{esc(report.summary())}</p>',
        "<h2>{}</h2>".format(esc(_("Checks"))),
        _checks_table(report),
        "<h2>{}</h2>".format(esc(_("Versions"))),
        side_by_side(_("version"), None, _shown_values(report.versions), None,
                     N_("software")),
        "<h2>{}</h2>".format(esc(_("Devices"))),
        _devices_table(report.devices),
        "<h2>{}</h2>".format(esc(_("What was trained"))),
        side_by_side(_("value"), None, _shown_values(report.plan), None, N_("setting")),
        f"<footer>{esc(footer)}</footer>",
        "</div></body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_reports(report: DoctorReport, html: Path | str | None = None,
                  json_path: Path | str | None = None) -> list[Path]:
    """Write the HTML page and/or the JSON, each all at once; ReportError names a file
    that cannot be written and what to do."""
    written = []
    if html is not None:
        written.append(atomic_write_text(html, render_html(report)))
    if json_path is not None:
        written.append(atomic_write_text(json_path, report_json(report)))
    return written
