"""The doctor's report as files to attach to a bug report: JSON (the data) and one
self-contained HTML page (the table, versions, devices and plan; no external
references), both written all at once. The text is already scrubbed of the home
folder, user and host names (run_doctor does that for every line)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from mpstudio.engine.doctor.checks import STATUS_COLOR, DoctorReport
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


def report_json(report: DoctorReport) -> str:
    return json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"


def _checks_table(report: DoctorReport) -> str:
    rows = []
    for check in report.checks:
        color = STATUS_COLOR.get(check.status, "#1f2933")
        rows.append(f"<tr><td>{esc(check.section)}</td><td>{esc(check.name)}</td>"
                    f'<td class="status" style="color:{color}">{esc(check.status)}</td>'
                    f"<td>{esc(check.reason)}</td></tr>")
    head = "".join(f'<th scope="col">{h}</th>' for h in ("section", "check", "status", "why"))
    return (f'<table class="checks"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _devices_table(devices: tuple[dict[str, Any], ...]) -> str:
    keys = list(dict.fromkeys(k for d in devices for k in d))
    head = "".join(f'<th scope="col">{esc(k)}</th>' for k in keys)
    rows = "".join("<tr>" + "".join(f"<td>{esc(value_text(d.get(k)))}</td>" for k in keys)
                   + "</tr>" for d in devices)
    return f'<table class="devices"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def render_html(report: DoctorReport, generated: dt.datetime | None = None) -> str:
    when = (generated or dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    counts = report.counts()
    kind = "fail" if counts["fail"] else "warn" if counts["warn"] else "pass"
    which = "quick set" if report.plan.get("quick") else "full set"
    title = "mpstudio doctor: training on this machine"
    parts = [
        *page_head(title, _STYLE, f"{which} on the {report.plan.get('device', '?')} · "
                                  f"{report.seconds:.0f} s · generated {when}"),
        f'<p class="verdict verdict-{kind}">{esc(report.summary())}</p>',
        "<h2>Checks</h2>",
        _checks_table(report),
        "<h2>Versions</h2>",
        side_by_side("version", None, dict(report.versions), None, "software"),
        "<h2>Devices</h2>",
        _devices_table(report.devices),
        "<h2>What was trained</h2>",
        side_by_side("value", None, dict(report.plan), None, "setting"),
        f"<footer>Written by mpstudio doctor on {esc(when)}. No user, host or home folder "
        "names are included; attach this page (or the JSON) to a bug report.</footer>",
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
