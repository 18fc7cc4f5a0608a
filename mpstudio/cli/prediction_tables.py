"""A prediction as the terminal shows it (``mpstudio predict``, ``mpstudio hw``)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from mpstudio.engine.i18n import _
from mpstudio.engine.prediction.predict import FLOAT32, Prediction
from mpstudio.engine.prediction.prediction_text import (
    BOUND_WORDS,
    half_share_note,
    larger_batch_line,
    precision_line,
    speedup_range,
)


def prediction_table(prediction: Prediction) -> Table:
    table = Table(title=_("Predicted on {device} at batch {batch} (float32 runs as {baseline}; "
                          "rates: {source})").format(
        device=prediction.device, batch=prediction.batch_size, baseline=prediction.baseline,
        source=_(prediction.source)), title_justify="left")
    for column in (_("precision"), _("examples/s"), _("speedup"), _("range"),
                   _("peak memory"), _("half-type share"), _("bound by")):
        table.add_column(column, justify="left" if column == _("precision") else "right")
    for name, p in prediction.predictions.items():
        table.add_row(name, f"{p.examples_per_s:,.0f}",
                      "-" if p.speedup is None else f"{p.speedup:.2f}x",
                      "-" if p.speedup is None else speedup_range(p),
                      f"{p.peak_bytes / 2**20:,.1f} MiB",
                      "-" if name == FLOAT32 else f"{p.half_share:.0%}",
                      _(BOUND_WORDS.get(p.bound, p.bound)))
    return table


def layers_table(prediction: Prediction, count: int = 10) -> Table:
    """``predict --explain``: the layers that take most of the float32 step, with each
    precision's time for them and what bounds it."""
    table = Table(title=_("The {count} layers that take most of the step, forward and "
                          "backward (ms per step, and what bounds each)").format(count=count),
                  title_justify="left")
    table.add_column(_("layer"))
    table.add_column(_("kind"))
    for name in prediction.predictions:
        table.add_column(name, justify="right")
    for row in prediction.largest_layers(count):
        cells = []
        for name in prediction.predictions:
            t = row["precisions"].get(name)
            cells.append("-" if t is None else
                         f"{t['ms']:,.3f} {_(BOUND_WORDS.get(t['bound'], t['bound']))}")
        table.add_row(row["name"], row["kind"], *cells)
    return table


def print_prediction(console: Console, prediction: Prediction,
                     larger: Prediction | None = None, explain: bool = False) -> None:
    console.print(prediction_table(prediction))
    if explain:
        console.print(layers_table(prediction))
    for name in prediction.predictions:
        if name == FLOAT32:
            continue
        console.print(precision_line(prediction, name), highlight=False)
        note = half_share_note(prediction.predictions[name])
        if note:
            console.print("  " + note, highlight=False)
    line = larger_batch_line(prediction, larger)
    if line:
        console.print(line, highlight=False)
    console.print(_("A prediction from the device's rates and the model's layers, "
                    "calibrated on measured runs; the comparison measures it."),
                  style="dim", highlight=False)
