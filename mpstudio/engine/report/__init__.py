"""The comparison report: a self-contained HTML page and a metrics CSV (no Qt here)."""

from mpstudio.engine.report.files import ReportError
from mpstudio.engine.report.html_report import ReportFiles, render_html, write_report
from mpstudio.engine.report.metrics_csv import metrics_rows, write_metrics_csv

__all__ = [
    "ReportError", "ReportFiles", "metrics_rows", "render_html", "write_metrics_csv",
    "write_report",
]
