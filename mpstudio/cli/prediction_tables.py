"""A prediction as the terminal shows it (``mpstudio predict``, ``mpstudio hw``), and
beside it what ``mpstudio predict --measure`` timed."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.i18n import _
from mpstudio.engine.prediction.measurement import (
    ModelMeasurement,
    measured_line,
    prediction_error,
)
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


def measurement_table(prediction: Prediction, measurement: ModelMeasurement) -> Table:
    """Each precision as timed, beside its prediction: examples/s with the spread of the
    timed windows, the speedup over float32 with its range, and how far off the
    prediction was."""
    table = Table(title=_("Measured on {device} at batch {batch}: {seconds:g} s a precision "
                          "after a {warmup}-step warm-up").format(
        device=device_text(measurement.device_name), batch=measurement.batch_size,
        seconds=measurement.seconds_per_precision, warmup=measurement.warmup_steps),
        title_justify="left")
    for column in (_("precision"), _("examples/s"), _("spread"), _("speedup"), _("range"),
                   _("predicted"), _("prediction off by"), _("steps timed")):
        table.add_column(column, justify="left" if column == _("precision") else "right")
    for m in measurement.precisions:
        predicted = prediction.predictions.get(m.precision)
        if not m.ok:
            table.add_row(m.precision, _("failed: {reason}").format(reason=m.failure),
                          *["-"] * 6)
            continue
        error = prediction_error(predicted.examples_per_s, m.examples_per_s) \
            if predicted is not None else None
        table.add_row(
            m.precision, f"{m.examples_per_s or 0.0:,.0f}", f"{m.spread or 0.0:.0%}",
            "-" if m.speedup is None else f"{m.speedup:.2f}x",
            "-" if m.speedup is None else f"{m.speedup_low:.2f}-{m.speedup_high:.2f}x",
            "-" if predicted is None or predicted.speedup is None
            else f"{predicted.speedup:.2f}x",
            "-" if error is None else f"{error:+.0%}",
            f"{m.steps:,}")
    return table


def print_prediction(console: Console, prediction: Prediction,
                     larger: Prediction | None = None,
                     measurement: ModelMeasurement | None = None,
                     explain: bool = False) -> None:
    console.print(prediction_table(prediction))
    if explain:
        console.print(layers_table(prediction))
    if measurement is not None:
        console.print(measurement_table(prediction, measurement))
        if measurement.stopped:
            console.print(_("The measurement was stopped: the precisions after it were not "
                            "timed."), highlight=False)
    for name in prediction.predictions:
        if name == FLOAT32:
            continue
        console.print(precision_line(prediction, name), highlight=False)
        note = half_share_note(prediction.predictions[name])
        if note:
            console.print("  " + note, highlight=False)
        if measurement is not None and measurement.get(name) is not None:
            console.print(measured_line(measurement, name), highlight=False, markup=False)
    line = memory_line(prediction) or larger_batch_line(prediction, larger)
    if line:
        console.print(line, highlight=False, style="yellow" if memory_line(prediction)
                      else "")
    if measurement is not None:
        console.print(_("Measured through the run path a comparison takes, on {data}; "
                        "spread: the middle half of the timed windows, as a share of their "
                        "median; prediction off by: the predicted examples/s against the "
                        "measured.").format(data=measurement.timed_on()),
                      style="dim", highlight=False)
    console.print(_("A prediction from the device's rates and the model's layers, "
                    "calibrated on measured runs; the comparison measures it."),
                  style="dim", highlight=False)


def memory_line(prediction: Prediction) -> str:
    """Where the batch asked for does not fit the device's memory: by how much, and the
    largest batch that does, per precision ("": it fits, or the memory is not known)."""
    over = {name: p for name, p in prediction.predictions.items()
            if p.largest_batch is not None}
    if not over:
        return ""
    needs = ", ".join(_("{precision} {size:,.1f} GiB").format(
        precision=name, size=p.peak_bytes / 2**30) for name, p in over.items())
    largest = ", ".join(_("{batch:,} under {precision}").format(
        batch=p.largest_batch, precision=name) for name, p in over.items())
    return _("At batch {batch:,} the step needs more memory than {device} has ({needs}): a "
             "run would run out of memory. The largest batch that fits: {largest}; the "
             "speeds above are for a device that would hold it.").format(
                 batch=prediction.batch_size, device=prediction.device, needs=needs,
                 largest=largest)


def prediction_json(prediction: Prediction, larger: Prediction | None,
                    measurement: ModelMeasurement | None, input_shape: tuple[int, ...],
                    classes: int, inputs_from: str) -> dict[str, Any]:
    """``mpstudio predict --json``: the prediction, the inputs it is for, and with
    --measure a "measured" object beside each precision's prediction."""
    out = prediction.to_dict()
    out.update(input_shape=list(input_shape), classes=classes, inputs_from=inputs_from)
    if larger is not None:
        out["larger_batch"] = larger.to_dict()
    if measurement is None:
        return out
    out["measurement"] = {k: v for k, v in measurement.to_dict().items() if k != "precisions"}
    for name, row in out["predictions"].items():
        m = measurement.get(name)
        if m is None:
            continue
        measured = m.to_dict()
        predicted = prediction.predictions[name]
        error = prediction_error(predicted.examples_per_s, m.examples_per_s)
        if error is not None:
            measured["prediction_error"] = round(error, 4)
        if predicted.speedup is not None and m.speedup is not None:
            measured["speedup_error"] = round(predicted.speedup - m.speedup, 4)
        row["measured"] = measured
    return out
