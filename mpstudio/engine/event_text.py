"""One wording for the terminal and the window: the engine's run events as plain text.

The CLI (mpstudio/cli/console.py, rich) and the workbench's log (mpstudio/ui/models/run_progress.py)
both tell the user what a run is doing. Each used to word the events on its own and
they drifted apart (1 or 2 decimals, "val_acc" here and "val accuracy" there, lines only
one of them had). Every event is put into words once, here; a front end adds only what
is its own: colours and progress bars in the terminal, log levels and the status bar in
the window. Plain Python: no Qt, no rich, no TensorFlow.
"""

from __future__ import annotations

import math

from mpstudio.engine.comparison.card_text import scale_range_text
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    GradientUnderflow,
    LossScaleChanged,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunStarted,
    RunSummary,
)

# ------------------------------------------------------------------ numbers


def fmt(value: float | None, spec: str = ".4g", unit: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{unit}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: 1 decimal in log lines, 2 in the tables that set
    runs side by side."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{100 * value:.{digits}f}%"


def fmt_bytes(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.1f} MiB"


def fmt_duration(seconds: float) -> str:
    """"1:05", or "1:02:05" past an hour."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def fmt_rate(value: float | None) -> str:
    return f"{value:,.0f} examples/s" if value else "n/a"


def amount(value: int | None, unit: str) -> str:
    """A DataProgress count: megabytes for a download (unit "B"), else a plain count."""
    if value is None:
        return "?"
    return f"{value / 1e6:,.1f} MB" if unit == "B" else f"{value:,}"


# ------------------------------------------------------------ data loading


def data_progress_text(e: DataProgress) -> str:
    """Where the work is: "downloading mnist.npz 4.1 MB/11.5 MB"."""
    total = f"/{amount(e.total, e.unit)}" if e.total else ""
    return f"{e.task} {amount(e.done, e.unit)}{total}"


def data_progress_line(e: DataProgress) -> str:
    """A line as the work starts ("...") or ends ("done"): "mnist: downloading mnist.npz
    (11.5 MB) done"."""
    size = f" ({amount(e.total, e.unit)})" if e.total else ""
    state = "done" if e.total is not None and e.done >= e.total else "..."
    return f"{e.source}: {e.task}{size} {state}"


# ------------------------------------------------------------- a run starts


def started_lines(e: RunStarted) -> list[tuple[str, str]]:
    """What the run is, as (topic, text) pairs in order: data, model, steps, device,
    scaling and, for a distributed run, spread. The topics scaling and spread head
    sentences that name themselves."""
    spec = e.spec if isinstance(e.spec, dict) else {}
    loop = f", {spec['loop']} loop" if spec.get("loop") else ""
    device = e.hardware.get("device") or "unknown"
    model = e.model
    lines = [
        ("data", e.dataset),
        ("model", f"{model.name}: {model.params:,} parameters under {model.policy}, "
                  f"output {model.output_dtype}"),
        ("steps", f"{e.total_steps:,} ({e.steps_per_epoch:,} per epoch)"),
        ("device", f"{device}, XLA {'on' if e.xla else 'off'}{loop}"),
        ("scaling", e.loss_scaling),
        ("spread", e.distribution),
    ]
    return [(topic, text) for topic, text in lines if text]


# ------------------------------------------------------------- as it trains


def epoch_text(e: EpochMetrics) -> str:
    """"loss 0.5000, accuracy 90.0%, val loss 0.6000, val accuracy 85.0% (2.0 s)"."""
    val = ""
    if e.val_loss is not None:
        val = f", val loss {e.val_loss:.4f}, val accuracy {fmt_pct(e.val_accuracy)}"
    return f"loss {e.loss:.4f}, accuracy {fmt_pct(e.accuracy)}{val} ({e.epoch_time:.1f} s)"


def epoch_line(label: str, e: EpochMetrics) -> str:
    return f"{label} epoch {e.epoch}: {epoch_text(e)}"


def loss_scale_line(e: LossScaleChanged) -> str:
    """A drop of the dynamic loss scale; "" when it grew (every growth_steps finite
    steps, expected and not worth a line)."""
    if e.new >= e.old:
        return ""
    skipped = f", {e.overflow_steps} step(s) skipped" if e.overflow_steps else ""
    return (f"step {e.step}: loss scale {e.old:g} -> {e.new:g} "
            f"(gradients overflowed{skipped})")


def underflow_text(e: GradientUnderflow) -> str:
    """One gradient-underflow sample in a sentence, with its worst layer."""
    worst = max(e.layers, key=lambda layer: layer.unscaled, default=None)
    layer = f"; worst layer {worst.layer} {fmt_pct(worst.unscaled)}" if worst else ""
    return (f"at step {e.step}: {fmt_pct(e.unscaled)} of the nonzero gradient values round "
            f"to 0 in float16 without loss scaling, {fmt_pct(e.scaled)} at scale "
            f"{e.scale:g}{layer}")


def underflow_line(e: GradientUnderflow) -> str:
    """A sample on a line of its own, with what it cost."""
    return f"underflow {underflow_text(e)} ({1000 * e.seconds:.1f} ms)"


def first_underflow_line(e: GradientUnderflow, every: int) -> str:
    """The first sample of a run: how often it samples and what the first cost."""
    how = f"every {every} steps" if every else "periodically"
    return (f"gradient-underflow view: sampling {how}, {1000 * e.seconds:.1f} ms for the "
            f"first sample (tracing included); {underflow_text(e)}")


def underflow_brief(e: GradientUnderflow) -> str:
    """For a progress bar or a status bar: "underflow 12.0% / 0.0% scaled"."""
    return f"underflow {fmt_pct(e.unscaled)} / {fmt_pct(e.scaled)} scaled"


AID_NAMES = {"early_stopping": "early stopping", "reduce_lr": "learning rate",
             "best_checkpoint": "best checkpoint"}


def aid_line(e: AidAction, label: str = "") -> str:
    """"early stopping: stopped after epoch 2 ..."; ``label`` names the run of a
    comparison."""
    name = AID_NAMES.get(e.aid, e.aid.replace("_", " "))
    run = f" ({label})" if label else ""
    return f"{name}{run}: {e.message}"


def diagnosis_line(e: NumericsDiagnosis) -> str:
    return f"diagnosis: {e.message}"


def retry_line(attempt: int, e: OomRetry) -> str:
    """An out-of-memory retry; ``attempt`` counts the run's retries from 1."""
    return f"retry {attempt}: {e.message}"


def failed_line(label: str, e: RunFailed, retry_follows: bool = False) -> str:
    head = f"{label}: " if label else ""
    return f"{head}{e.reason}{' (a retry follows)' if retry_follows else ''}"


# ---------------------------------------------------------------- the end


def summary_line(s: RunSummary) -> str:
    """One line a user scans: status, speed, accuracy, loss scaling, and what the
    training aids did."""
    parts = [f"{s.label} {s.status}: {s.steps_done} steps in {fmt_duration(s.total_time)}",
             f"steady {fmt_rate(s.steady_examples_per_sec)}"]
    if s.final_val_accuracy is not None:
        parts.append(f"val accuracy {fmt_pct(s.final_val_accuracy)}")
    if s.test_accuracy is not None:
        parts.append(f"test accuracy {fmt_pct(s.test_accuracy)}")
    if s.loss_scale_mode == "dynamic":
        parts.append(f"{s.overflow_steps} overflow steps skipped")
    where = distribution_text(s)
    if where:
        parts.insert(1, where)
    return " · ".join(parts + aid_notes(s))


def aid_notes(s: RunSummary) -> list[str]:
    """The training aids' part of a summary line: what they did, out-of-memory retries,
    the last gradient-underflow sample, where the TensorBoard logs went."""
    notes = [s.aids] if s.aids else []
    if s.oom_retries:
        notes.append(oom_note(s))
    if s.underflow_unscaled is not None:
        notes.append(f"gradient underflow {underflow_note(s)}")
    if s.tensorboard_dir:
        notes.append(f"TensorBoard logs in {s.tensorboard_dir}")
    return notes


def oom_note(s: RunSummary) -> str:
    """"batch 16 fit after 2 out-of-memory retries" (or, none fitting, how far down)."""
    retries = f"{s.oom_retries} out-of-memory retr{'y' if s.oom_retries == 1 else 'ies'}"
    if s.largest_batch_fit:
        return f"batch {s.largest_batch_fit:,} fit after {retries}"
    return f"{retries}, down to batch {s.batch_size:,}"


def underflow_note(s: RunSummary) -> str:
    return (f"{fmt_pct(s.underflow_unscaled)} without loss scaling, "
            f"{fmt_pct(s.underflow_scaled or 0.0)} at the scale (last sample)")


def distribution_text(s: RunSummary) -> str:
    """"mirrored, 2 replicas, global batch 256" for a distributed run; "" for the
    default strategy (one device), whose lines stay as they were."""
    if s.strategy == "default":
        return ""
    replicas = s.replicas or 1
    text = f"{s.strategy}, {replicas} replica{'' if replicas == 1 else 's'}"
    if s.global_batch_size:
        text += f", global batch {s.global_batch_size:,}"
    return text


def peak_memory_text(s: RunSummary) -> str:
    """The run's own peak: on one device, or the largest of its replicas' devices and
    their sum; the reason where the device keeps no statistics."""
    if s.peak_memory_bytes is None:
        return s.memory_note
    if s.peak_memory_total_bytes and s.peak_memory_total_bytes != s.peak_memory_bytes:
        return (f"{fmt_bytes(s.peak_memory_bytes)} on the fullest device, "
                f"{fmt_bytes(s.peak_memory_total_bytes)} over all ({s.memory_note})")
    return fmt_bytes(s.peak_memory_bytes)


def scale_range(s: RunSummary) -> str:
    return scale_range_text(s.loss_scale_mode, s.loss_scale_min, s.loss_scale_max)


def summary_rows(s: RunSummary) -> list[tuple[str, str]]:
    """The summary as (name, value) rows for a table (percentages to 2 decimals)."""
    return [
        ("steps / epochs", f"{s.steps_done} / {s.epochs_done}"),
        ("time to first step", fmt(s.time_to_first_step, ".2f", " s")),
        ("steady examples/s", fmt(s.steady_examples_per_sec, ",.0f") + (
            f" across {s.replicas} replicas ({fmt(s.examples_per_sec_per_replica, ',.0f')} "
            "per replica)" if s.replicas > 1 and s.steady_examples_per_sec else "")),
        ("steady step time", fmt(None if s.steady_step_time is None
                                 else 1000 * s.steady_step_time, ".2f", " ms")),
        ("mean epoch time", fmt(s.mean_epoch_time, ".2f", " s")),
        ("final loss / accuracy", f"{fmt(s.final_loss)} / {fmt_pct(s.final_accuracy, 2)}"),
        ("val loss / accuracy",
         f"{fmt(s.final_val_loss)} / {fmt_pct(s.final_val_accuracy, 2)}"),
        ("best val accuracy", fmt_pct(s.best_val_accuracy, 2)),
        *([("test loss / accuracy", f"{fmt(s.test_loss)} / {fmt_pct(s.test_accuracy, 2)}")]
          if s.test_accuracy is not None else []),
        ("loss scale", scale_range(s)),
        ("overflow (skipped) steps", str(s.overflow_steps)),
        ("peak device memory", peak_memory_text(s)),
        ("device", f"{s.device}, XLA {'on' if s.xla else 'off'}, {s.loop} loop"),
        *([("distribution", s.distribution)] if s.distribution else []),
        *([("training aids", s.aids)] if s.aids else []),
        *([("out of memory", oom_note(s))] if s.oom_retries else []),
        *([("gradient underflow", underflow_note(s))]
          if s.underflow_unscaled is not None else []),
        *([("TensorBoard logs", s.tensorboard_dir)] if s.tensorboard_dir else []),
    ]
