"""One wording for the terminal and the window: the engine's run events as plain text.

The CLI (mpstudio/cli/console.py, rich) and the workbench's log (mpstudio/ui/models/run_progress.py)
both tell the user what a run is doing. Each used to word the events on its own and
they drifted apart (1 or 2 decimals, "val_acc" here and "val accuracy" there, lines only
one of them had). Every event is put into words once, here; a front end adds only what
is its own: colours and progress bars in the terminal, log levels and the status bar in
the window. Plain Python: no Qt, no rich, no TensorFlow. The words are in the language in
force (``i18n``); the numbers keep their own format.
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
from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.i18n import N_, _, ngettext
from mpstudio.engine.memory_estimate import MemoryEstimate, estimate_line, mib, versus_measured
from mpstudio.engine.run_labels import shown_label, status_text
from mpstudio.engine.said import render

# ------------------------------------------------------------------ numbers


def fmt(value: float | None, spec: str = ".4g", unit: str = "") -> str:
    return _("n/a") if value is None else f"{value:{spec}}{unit}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: 1 decimal in log lines, 2 in the tables that set
    runs side by side."""
    if value is None or not math.isfinite(value):
        return _("n/a")
    return f"{100 * value:.{digits}f}%"


def fmt_duration(seconds: float) -> str:
    """"1:05", or "1:02:05" past an hour."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def fmt_rate(value: float | None) -> str:
    return _("{rate:,.0f} examples/s").format(rate=value) if value else _("n/a")


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
    finished = e.total is not None and e.done >= e.total
    if e.total:
        line = (_("{source}: {task} ({size}) done") if finished
                else _("{source}: {task} ({size}) ..."))
    else:
        line = _("{source}: {task} done") if finished else _("{source}: {task} ...")
    return line.format(source=e.source, task=e.task, size=amount(e.total, e.unit))


# ------------------------------------------------------------- a run starts

# The run-start topics (keys: the front ends look for "scaling" and "spread") as shown.
TOPIC_TEXT = {"data": N_("data"), "model": N_("model"), "steps": N_("steps"),
              "device": N_("device"), "scaling": N_("scaling"), "spread": N_("spread"),
              "memory": N_("memory estimate")}


def topic_text(topic: str) -> str:
    """A ``started_lines`` topic in the language in force."""
    return _(TOPIC_TEXT[topic]) if topic in TOPIC_TEXT else topic


def _xla_loop(xla: bool, loop: str | None) -> str:
    """"XLA on, custom loop" (the loop left out when unknown)."""
    if loop:
        return (_("XLA on, {loop} loop") if xla else _("XLA off, {loop} loop")).format(
            loop=loop)
    return _("XLA on") if xla else _("XLA off")


def _steps_text(e: RunStarted, spec: dict) -> str:
    sized = spec.get("sized_from")
    if isinstance(sized, dict) and isinstance(sized.get("steps"), int):
        return _("{steps:,} ({per_epoch:,} per epoch; sized by mpstudio to time its speed, "
                 "you set {user:,})").format(steps=e.total_steps, per_epoch=e.steps_per_epoch,
                                             user=sized["steps"])
    return _("{steps:,} ({per_epoch:,} per epoch)").format(steps=e.total_steps,
                                                         per_epoch=e.steps_per_epoch)


def started_lines(e: RunStarted) -> list[tuple[str, str]]:
    """What the run is, as (topic, text) pairs in order: data, model, steps, device,
    scaling and, for a distributed run, spread. The topics scaling and spread head
    sentences that name themselves. Topics are keys: ``topic_text`` shows one."""
    spec = e.spec if isinstance(e.spec, dict) else {}
    device = device_text(e.hardware.get("device") or "") or _("unknown")
    model = e.model
    lines = [
        ("data", e.dataset),
        ("model", _("{name}: {params:,} parameters under {policy}, output {output}").format(
            name=model.name, params=model.params, policy=model.policy,
            output=model.output_dtype)),
        ("steps", _steps_text(e, spec)),
        ("device", _("{device}, {xla}").format(device=device,
                                                xla=_xla_loop(e.xla, spec.get("loop")))),
        ("scaling", e.loss_scaling),
        ("spread", e.distribution),
        ("memory", estimate_line(model.memory[0]) if model.memory else ""),
    ]
    return [(topic, text) for topic, text in lines if text]


# ------------------------------------------------------------- as it trains


def epoch_text(e: EpochMetrics) -> str:
    """"loss 0.5000, accuracy 90.0%, val loss 0.6000, val accuracy 85.0% (2.0 s)"."""
    if e.val_loss is not None:
        return _("loss {loss:.4f}, accuracy {accuracy}, val loss {val_loss:.4f}, val accuracy "
                 "{val_accuracy} ({seconds:.1f} s)").format(
            loss=e.loss, accuracy=fmt_pct(e.accuracy), val_loss=e.val_loss,
            val_accuracy=fmt_pct(e.val_accuracy), seconds=e.epoch_time)
    return _("loss {loss:.4f}, accuracy {accuracy} ({seconds:.1f} s)").format(
        loss=e.loss, accuracy=fmt_pct(e.accuracy), seconds=e.epoch_time)


def epoch_line(label: str, e: EpochMetrics) -> str:
    return _("{label} epoch {epoch}: {text}").format(label=shown_label(label), epoch=e.epoch,
                                                     text=epoch_text(e))


def loss_scale_line(e: LossScaleChanged) -> str:
    """A drop of the dynamic loss scale; "" when it grew (every growth_steps finite
    steps, expected and not worth a line)."""
    if e.new >= e.old:
        return ""
    if e.overflow_steps:
        return _("step {step}: loss scale {old:g} -> {new:g} (gradients overflowed, "
                 "{skipped} step(s) skipped)").format(step=e.step, old=e.old, new=e.new,
                                                      skipped=e.overflow_steps)
    return _("step {step}: loss scale {old:g} -> {new:g} (gradients overflowed)").format(
        step=e.step, old=e.old, new=e.new)


def underflow_text(e: GradientUnderflow) -> str:
    """One gradient-underflow sample in a sentence, with its worst layer."""
    worst = max(e.layers, key=lambda layer: layer.unscaled, default=None)
    values = {"step": e.step, "unscaled": fmt_pct(e.unscaled), "scaled": fmt_pct(e.scaled),
              "scale": e.scale}
    if worst:
        return _("at step {step}: {unscaled} of the nonzero gradient values round to 0 in "
                 "float16 without loss scaling, {scaled} at scale {scale:g}; worst layer "
                 "{layer} {worst}").format(layer=worst.layer, worst=fmt_pct(worst.unscaled),
                                           **values)
    return _("at step {step}: {unscaled} of the nonzero gradient values round to 0 in "
             "float16 without loss scaling, {scaled} at scale {scale:g}").format(**values)


def underflow_line(e: GradientUnderflow) -> str:
    """A sample on a line of its own, with what it cost."""
    return _("underflow {text} ({ms:.1f} ms)").format(text=underflow_text(e),
                                                      ms=1000 * e.seconds)


def first_underflow_line(e: GradientUnderflow, every: int) -> str:
    """The first sample of a run: how often it samples and what the first cost."""
    values = {"ms": 1000 * e.seconds, "text": underflow_text(e)}
    if every:
        return _("gradient-underflow view: sampling every {every} steps, {ms:.1f} ms for the "
                 "first sample (tracing included); {text}").format(every=every, **values)
    return _("gradient-underflow view: sampling periodically, {ms:.1f} ms for the first "
             "sample (tracing included); {text}").format(**values)


def underflow_brief(e: GradientUnderflow) -> str:
    """For a progress bar or a status bar: "underflow 12.0% / 0.0% scaled"."""
    return _("underflow {unscaled} / {scaled} scaled").format(unscaled=fmt_pct(e.unscaled),
                                                              scaled=fmt_pct(e.scaled))


AID_NAMES = {"early_stopping": N_("early stopping"), "reduce_lr": N_("learning rate"),
             "best_checkpoint": N_("best checkpoint")}


def aid_line(e: AidAction, label: str = "") -> str:
    """"early stopping: stopped after epoch 2 ..."; ``label`` names the run of a
    comparison."""
    name = _(AID_NAMES[e.aid]) if e.aid in AID_NAMES else e.aid.replace("_", " ")
    if label:
        return _("{aid} ({label}): {message}").format(aid=name, label=shown_label(label),
                                                      message=render(e.message))
    return _("{aid}: {message}").format(aid=name, message=render(e.message))


def diagnosis_line(e: NumericsDiagnosis) -> str:
    return _("diagnosis: {message}").format(message=render(e.message))


def retry_line(attempt: int, e: OomRetry) -> str:
    """An out-of-memory retry; ``attempt`` counts the run's retries from 1."""
    return _("retry {attempt}: {message}").format(attempt=attempt, message=render(e.message))


def failed_line(label: str, e: RunFailed, retry_follows: bool = False) -> str:
    reason = render(e.reason)
    if retry_follows:
        reason = _("{reason} (a retry follows)").format(reason=reason)
    return (_("{label}: {reason}").format(label=shown_label(label), reason=reason) if label
            else reason)


# ---------------------------------------------------------------- the end


def summary_line(s: RunSummary) -> str:
    """One line a user scans: status, speed, accuracy, loss scaling, and what the
    training aids did."""
    parts = [ngettext("{label} {status}: {steps} step in {duration}",
                      "{label} {status}: {steps} steps in {duration}", s.steps_done).format(
                 label=shown_label(s.label), status=status_text(s.status), steps=s.steps_done,
                 duration=fmt_duration(s.total_time)),
             _("steady {rate}").format(rate=fmt_rate(s.steady_examples_per_sec))]
    if s.final_val_accuracy is not None:
        parts.append(_("val accuracy {accuracy}").format(accuracy=fmt_pct(s.final_val_accuracy)))
    if s.test_accuracy is not None:
        parts.append(_("test accuracy {accuracy}").format(accuracy=fmt_pct(s.test_accuracy)))
    if s.loss_scale_mode == "dynamic":
        parts.append(ngettext("{count} overflow step skipped", "{count} overflow steps skipped",
                              s.overflow_steps).format(count=s.overflow_steps))
    where = distribution_text(s)
    if where:
        parts.insert(1, where)
    return " · ".join(parts + aid_notes(s))


def aid_notes(s: RunSummary) -> list[str]:
    """The training aids' part of a summary line: what they did, out-of-memory retries,
    the last gradient-underflow sample, where the TensorBoard logs went."""
    notes = [render(s.aids)] if s.aids else []
    if s.oom_retries:
        notes.append(oom_note(s))
    if s.underflow_unscaled is not None:
        notes.append(_("gradient underflow {note}").format(note=underflow_note(s)))
    if s.tensorboard_dir:
        notes.append(_("TensorBoard logs in {folder}").format(folder=s.tensorboard_dir))
    return notes


def oom_note(s: RunSummary) -> str:
    """"batch 16 fit after 2 out-of-memory retries" (or, none fitting, how far down)."""
    retries = ngettext("{count} out-of-memory retry", "{count} out-of-memory retries",
                       s.oom_retries).format(count=s.oom_retries)
    if s.largest_batch_fit:
        return _("batch {batch:,} fit after {retries}").format(batch=s.largest_batch_fit,
                                                               retries=retries)
    return _("{retries}, down to batch {batch:,}").format(retries=retries, batch=s.batch_size)


def underflow_note(s: RunSummary) -> str:
    return _("{unscaled} without loss scaling, {scaled} at the scale (last sample)").format(
        unscaled=fmt_pct(s.underflow_unscaled), scaled=fmt_pct(s.underflow_scaled or 0.0))


def distribution_text(s: RunSummary) -> str:
    """"mirrored, 2 replicas, global batch 256" for a distributed run; "" for the
    default strategy (one device), whose lines stay as they were."""
    if s.strategy == "default":
        return ""
    replicas = s.replicas or 1
    text = ngettext("{strategy}, {replicas} replica", "{strategy}, {replicas} replicas",
                    replicas).format(strategy=s.strategy, replicas=replicas)
    if s.global_batch_size:
        text = _("{text}, global batch {batch:,}").format(text=text, batch=s.global_batch_size)
    return text


def peak_memory_text(s: RunSummary) -> str:
    """The run's own peak: on one device, or the largest of its replicas' devices and
    their sum; the reason where the device keeps no statistics."""
    if s.peak_memory_bytes is None:
        return render(s.memory_note)
    if s.peak_memory_total_bytes and s.peak_memory_total_bytes != s.peak_memory_bytes:
        return _("{largest} on the fullest device, {total} over all ({note})").format(
            largest=mib(s.peak_memory_bytes), total=mib(s.peak_memory_total_bytes),
            note=render(s.memory_note))
    return mib(s.peak_memory_bytes)


def estimate_versus_text(s: RunSummary) -> str:
    """The run's memory estimate against its measured peak (the reason where the device
    keeps none); "" for a run stored without an estimate."""
    estimate = MemoryEstimate.from_dict(s.memory_estimate)
    if estimate is None:
        return ""
    return versus_measured(estimate.total, s.peak_memory_bytes, render(s.memory_note))


def scale_range(s: RunSummary) -> str:
    return scale_range_text(s.loss_scale_mode, s.loss_scale_min, s.loss_scale_max)


def _examples_per_sec(s: RunSummary) -> str:
    rate = fmt(s.steady_examples_per_sec, ",.0f")
    if s.replicas > 1 and s.steady_examples_per_sec:
        return _("{rate} across {replicas} replicas ({per_replica} per replica)").format(
            rate=rate, replicas=s.replicas,
            per_replica=fmt(s.examples_per_sec_per_replica, ",.0f"))
    return rate


def summary_rows(s: RunSummary) -> list[tuple[str, str]]:
    """The summary as (name, value) rows for a table (percentages to 2 decimals)."""
    return [
        (_("steps / epochs"), f"{s.steps_done} / {s.epochs_done}"),
        (_("time to first step"), fmt(s.time_to_first_step, ".2f", " s")),
        (_("steady examples/s"), _examples_per_sec(s)),
        (_("steady step time"), fmt(None if s.steady_step_time is None
                                    else 1000 * s.steady_step_time, ".2f", " ms")),
        (_("mean epoch time"), fmt(s.mean_epoch_time, ".2f", " s")),
        (_("final loss / accuracy"), f"{fmt(s.final_loss)} / {fmt_pct(s.final_accuracy, 2)}"),
        (_("val loss / accuracy"),
         f"{fmt(s.final_val_loss)} / {fmt_pct(s.final_val_accuracy, 2)}"),
        (_("best val accuracy"), fmt_pct(s.best_val_accuracy, 2)),
        *([(_("test loss / accuracy"), f"{fmt(s.test_loss)} / {fmt_pct(s.test_accuracy, 2)}")]
          if s.test_accuracy is not None else []),
        (_("loss scale"), scale_range(s)),
        (_("overflow (skipped) steps"), str(s.overflow_steps)),
        (_("peak device memory"), peak_memory_text(s)),
        *([(_("memory estimate"), estimate_versus_text(s))] if s.memory_estimate else []),
        (_("device"), _("{device}, {xla}").format(device=device_text(s.device),
                                                  xla=_xla_loop(s.xla, s.loop))),
        *([(_("distribution"), render(s.distribution))] if s.distribution else []),
        *([(_("training aids"), render(s.aids))] if s.aids else []),
        *([(_("out of memory"), oom_note(s))] if s.oom_retries else []),
        *([(_("gradient underflow"), underflow_note(s))]
          if s.underflow_unscaled is not None else []),
        *([(_("TensorBoard logs"), s.tensorboard_dir)] if s.tensorboard_dir else []),
    ]
