"""A run's stored columns read defensively: one row that another version, a disk error
or a hand edit left wrong must not hide every other run.

A list row (``list_row``) takes what it can and names the columns it could not read
(``RunRow.damaged``): the run stays in the list, and can be deleted. A whole run
(``json_column``) whose spec, hardware, model, summary or model paths do not read is a
``DamagedRun``: one sentence naming the run and the column, and how to remove it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from mpstudio.engine.history.records import RunRow
from mpstudio.engine.i18n import N_, _

# what a column is called in the sentence (marked: shown translated)
COLUMN_NAMES = {"spec": N_("spec"), "hardware": N_("hardware"), "model": N_("model"),
                "summary": N_("summary"), "model_paths": N_("model paths"),
                "created": N_("start time")}


class DamagedRun(ValueError):
    """A run whose stored column does not read; the message says which and what to do."""

    def __init__(self, run_id: int, column: str, why: str) -> None:
        self.run_id, self.column = run_id, column
        super().__init__(_(
            "run #{id}: its stored {what} is damaged ({why}); the other runs are fine, and "
            "`mpstudio runs delete {id} --yes` (or Delete in History) removes it").format(
                id=run_id, what=_(COLUMN_NAMES.get(column, column)), why=why))


def json_column(run_id: int, column: str, text: Any, kind: type, empty_ok: bool = False
                ) -> Any:
    """The JSON in a run's ``column``, which must decode to a ``kind`` (None allowed
    where ``empty_ok``); DamagedRun where it does not."""
    if text is None and empty_ok:
        return None
    if not isinstance(text, str | bytes):
        raise DamagedRun(run_id, column, _("a {type} where JSON text belongs").format(
            type=type(text).__name__))
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise DamagedRun(run_id, column, _("not JSON: {error}").format(error=exc)) from None
    if value is None and empty_ok:
        return None
    if not isinstance(value, kind):
        raise DamagedRun(run_id, column, _("JSON {found} where a {wanted} belongs").format(
            found=type(value).__name__ if value is not None else "null",
            wanted=kind.__name__))
    return value


def list_row(values: tuple[Any, ...]) -> RunRow:
    """A history list row from its columns (store._ROW_COLUMNS' order); a value of the
    wrong type is replaced and its column named in ``damaged``."""
    (run_id, created, label, status, dataset, template, precision, speed, accuracy,
     comparison, role, trial, trials) = values
    damaged: list[str] = []

    def number(value: Any, column: str, whole: bool = False) -> Any:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not math.isfinite(value)):
            damaged.append(column)
            return None
        return int(value) if whole else float(value)

    def text(value: Any, column: str) -> str:
        if isinstance(value, str):
            return value
        damaged.append(column)
        return "?"

    start = number(created, "created")
    return RunRow(
        id=int(run_id), created=start if start is not None else 0.0,
        label=text(label, "label"), status=text(status, "status"),
        dataset=text(dataset, "dataset"), template=text(template, "template"),
        precision=text(precision, "precision"),
        examples_per_sec=number(speed, "examples_per_sec"),
        val_accuracy=number(accuracy, "val_accuracy"),
        comparison=comparison if isinstance(comparison, str) else None,
        role=text(role, "role"), trial=number(trial, "trial", whole=True) or 1,
        trials=number(trials, "trials", whole=True) or 1, damaged=tuple(damaged))
