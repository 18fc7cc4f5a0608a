"""Every sampled metric of a comparison's runs as one CSV, for a spreadsheet or pandas.

One row per step sample and per epoch of every run, so the report's curves can be
re-plotted or checked. Cells that do not apply to a row are empty; a non-finite value
is written as ``nan``/``inf`` (what Python, pandas and spreadsheets read back).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.report.files import atomic_write_text

COLUMNS = (
    "run_id", "label", "role", "trial", "precision", "kind", "step", "epoch",
    "loss", "accuracy", "val_loss", "val_accuracy", "loss_scale", "overflow_steps",
    "examples_per_sec", "step_time", "warmup", "epoch_time",
)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)  # shortest text that reads back to the same float; "inf"
    return str(value)


def metrics_rows(runs: Sequence[StoredRun]) -> list[dict[str, str]]:
    """The rows, as strings keyed by COLUMNS: per run, ordered by step, an epoch's
    row right after the step samples it closes."""
    rows: list[dict[str, str]] = []
    for run in runs:
        ident = {"run_id": run.id, "label": run.label, "role": run.row.role,
                 "trial": run.row.trial, "precision": run.row.precision}
        keyed: list[tuple[int, int, dict[str, Any]]] = []
        for s in run.steps:
            keyed.append((s.step, 0, {
                "kind": "step", "step": s.step, "epoch": s.epoch, "loss": s.loss,
                "accuracy": s.accuracy, "loss_scale": s.loss_scale,
                "overflow_steps": s.overflow_steps, "examples_per_sec": s.examples_per_sec,
                "step_time": s.step_time, "warmup": s.warmup,
            }))
        for e in run.epochs:
            keyed.append((e.steps, 1, {
                "kind": "epoch", "step": e.steps, "epoch": e.epoch, "loss": e.loss,
                "accuracy": e.accuracy, "val_loss": e.val_loss,
                "val_accuracy": e.val_accuracy, "epoch_time": e.epoch_time,
            }))
        keyed.sort(key=lambda k: (k[0], k[1]))  # stable: samples keep their order
        for _, _, values in keyed:
            merged = {**ident, **values}
            rows.append({c: _cell(merged.get(c)) for c in COLUMNS})
    return rows


def metrics_csv_text(runs: Sequence[StoredRun]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(metrics_rows(runs))
    return buffer.getvalue()


def write_metrics_csv(runs: Sequence[StoredRun], path: Path | str) -> Path:
    """Write the CSV all at once (see files.atomic_write_text); ReportError on failure."""
    # newline="": the csv module already chose the line ends; no translation on Windows.
    return atomic_write_text(path, metrics_csv_text(runs), newline="")
