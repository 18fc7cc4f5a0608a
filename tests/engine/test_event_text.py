"""The terminal and the window word each engine event alike: the same events go through
the CLI's ConsoleReporter and the GUI's RunProgress, and both must show event_text's line."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from mpstudio.cli.console import ConsoleReporter, summary_table
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.event_text import (
    aid_line,
    aid_notes,
    amount,
    data_progress_line,
    data_progress_text,
    diagnosis_line,
    epoch_line,
    epoch_text,
    failed_line,
    first_underflow_line,
    fmt_duration,
    fmt_pct,
    loss_scale_line,
    oom_note,
    retry_line,
    started_lines,
    summary_line,
    summary_rows,
    underflow_brief,
    underflow_line,
    underflow_text,
)
from mpstudio.engine.events import (
    AidAction,
    EpochMetrics,
    GradientUnderflow,
    LayerUnderflow,
    LossScaleChanged,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunStarted,
    RunSummary,
)
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.ui.models.run_progress import RunProgress

LABEL = "mixed_float16"


def started(distribution: str = "mirrored over 2 replicas (CPU:0, CPU:1): global batch 128",
            oom_retry: bool = False) -> RunStarted:
    spec = {"template": "mlp", "dataset": "digits", "loop": "custom", "batch_size": 64,
            "aids": {"underflow_every": 5, "oom_retry": oom_retry}}
    return RunStarted(
        label=LABEL, spec=spec, hardware={"device": "CPU (x86_64, 4 cores)"},
        model=ModelSummary("mlp", "mixed_float16", 76_810, 76_810, ()),
        dataset="digits: 1,437 train, 360 validation", steps_per_epoch=23, total_steps=46,
        log_every_steps=1, xla=True, role="single", distribution=distribution,
        loss_scaling="dynamic loss scaling from 32768, doubled after 2000 finite steps, "
                     "halved and step skipped on overflow",
    )


def underflow(step: int = 5) -> GradientUnderflow:
    layers = (LayerUnderflow("dense", "float16", 8000, 0.05, 0.0),
              LayerUnderflow("logits", "float16", 640, 0.2, 0.001))
    return GradientUnderflow(step=step, epoch=1, scale=32768.0, unscaled=0.127, scaled=0.0004,
                             layers=layers, seconds=0.0042)


def summary(**changes) -> RunSummary:
    values = dict(
        label=LABEL, precision="mixed_float16", status="finished", loop="fit", xla=False,
        batch_size=32, epochs_done=2, steps_done=46, warmup_steps=2, time_to_first_step=0.5,
        steady_examples_per_sec=5000.0, steady_step_time=0.0064, mean_epoch_time=0.4,
        total_time=3.0, final_loss=0.3, final_accuracy=0.91, final_val_loss=0.35,
        final_val_accuracy=0.8834, best_val_accuracy=0.9, overflow_steps=2,
        loss_scale_mode="dynamic", loss_scale_min=16384.0, loss_scale_max=32768.0,
        loss_scale_final=16384.0, peak_memory_bytes=None, memory_note="not reported",
        device="CPU", params=76_810,
    )
    values.update(changes)
    return RunSummary(**values)


def both(*events: object) -> tuple[str, list[str]]:
    """What the terminal printed (a log file: no live bars) and the window's log lines."""
    out = io.StringIO()
    reporter = ConsoleReporter(Console(file=out, width=200, color_system=None))
    progress = RunProgress()
    window: list[str] = []
    for event in events:
        reporter.emit(event)  # type: ignore[arg-type]
        window += [text for _, text in progress.update(event, now=0.0)]
    window += [text for _, text in progress.finish()]
    return out.getvalue(), window


def test_a_run_start_reads_the_same_in_the_terminal_and_the_window():
    event = started()
    terminal, window = both(event)
    lines = dict(started_lines(event))
    assert list(lines) == ["data", "model", "steps", "device", "scaling", "spread"]
    assert lines["model"] == "mlp: 76,810 parameters under mixed_float16, output float32"
    assert lines["device"] == "CPU (x86_64, 4 cores), XLA on, custom loop"
    assert lines["steps"] == "46 (23 per epoch)"
    for topic, text in lines.items():
        assert f"{topic:<8} {text}" in terminal.splitlines()
        assert any(line.endswith(text) for line in window), (topic, window)
    assert window[0] == f"{LABEL}: {lines['data']}"
    assert window[-1] == f"  {lines['spread']}"  # a sentence that names itself
    assert f"{LABEL} · mlp on digits" in terminal  # the terminal's rule
    # One device: no spread line on either side.
    terminal, window = both(started(distribution=""))
    assert "spread" not in terminal and len(window) == len(lines) - 1


def test_training_lines_are_shared_word_for_word():
    epoch = EpochMetrics(1, 23, 0.5, 0.9, 0.6, 0.8512, 2.04, 1.5)
    drop = LossScaleChanged(step=7, old=32768.0, new=16384.0, overflow_steps=1)
    grew = LossScaleChanged(step=9, old=16384.0, new=32768.0, overflow_steps=0)
    sample = underflow()
    aid = AidAction(46, 2, "early_stopping", "stopped after epoch 2: val_loss flat", 0.35)
    diagnosis = NumericsDiagnosis(8, "logits", "float16", "forward",
                                  "the forward pass of logits (float16) overflowed first")
    terminal, window = both(started(), epoch, drop, grew, sample, underflow(10), aid, diagnosis)

    body = epoch_text(epoch)
    assert body == ("loss 0.5000, accuracy 90.0%, val loss 0.6000, val accuracy 85.1% "
                    "(2.0 s)")
    assert f"epoch 1/2  {body}" in terminal and epoch_line(LABEL, epoch) in window

    line = loss_scale_line(drop)
    assert line == "step 7: loss scale 32768 -> 16384 (gradients overflowed, 1 step(s) skipped)"
    assert line in terminal and line in window
    assert loss_scale_line(grew) == "" and "step 9" not in terminal + "".join(window)

    shared = underflow_text(sample)
    assert shared == ("at step 5: 12.7% of the nonzero gradient values round to 0 in float16 "
                      "without loss scaling, 0.0% at scale 32768; worst layer logits 20.0%")
    assert underflow_line(sample) in terminal  # a log file gets every sample...
    assert underflow_line(underflow(10)) in terminal
    assert first_underflow_line(sample, 5) in window  # ...the window's log the first one
    assert shared in first_underflow_line(sample, 5) and "at step 10" not in "".join(window)

    for text in (aid_line(aid), diagnosis_line(diagnosis)):
        assert text in terminal and text in window


def test_failure_and_retry_lines_are_shared():
    failed = RunFailed("the loss diverged at step 12 [loss scale 1e+30]", "diverged", 12, None)
    terminal, window = both(started(), failed)
    line = failed_line(LABEL, failed)
    assert line == f"{LABEL}: the loss diverged at step 12 [loss scale 1e+30]"
    assert f"run failed: {line}" in terminal  # brackets in a reason are not rich markup
    assert window[-1] == line

    oom = RunFailed("out of memory at batch size 64", "out_of_memory", 3, None)
    retry = OomRetry(64, 32, 5e-4, "trying again at batch size 32 with learning rate 0.0005")
    terminal, window = both(started(oom_retry=True), oom, retry, started(oom_retry=True))
    assert retry_line(1, retry) in terminal and retry_line(1, retry) in window
    assert failed_line(LABEL, oom, retry_follows=True) in window
    assert any(line.startswith(f"{LABEL} (retry 1, batch size 64): ") for line in window)


def test_data_progress_reads_alike():
    start = DataProgress("mnist", "downloading mnist.npz", 0, 11_490_434, "B")
    done = DataProgress("mnist", "downloading mnist.npz", 11_490_434, 11_490_434, "B")
    terminal, _ = both(start, done)
    assert data_progress_line(start) == "mnist: downloading mnist.npz (11.5 MB) ..."
    assert data_progress_line(done) in terminal and data_progress_line(start) in terminal
    progress = RunProgress()
    progress.update(start)
    assert progress.status_text() == data_progress_text(start) == (
        "downloading mnist.npz 0.0 MB/11.5 MB")
    assert amount(None, "") == "?" and amount(12_345, "") == "12,345"


def test_the_summary_line_and_table_tell_the_same_story():
    s = summary(oom_retries=2, largest_batch_fit=16, underflow_unscaled=0.127,
                underflow_scaled=0.0, strategy="mirrored", replicas=2, global_batch_size=64)
    notes = aid_notes(s)
    assert oom_note(s) == "batch 16 fit after 2 out-of-memory retries" and oom_note(s) in notes
    rows = dict(summary_rows(s))
    assert rows["out of memory"] == oom_note(s)
    assert f"gradient underflow {rows['gradient underflow']}" in notes
    assert rows["val loss / accuracy"] == "0.35 / 88.34%"  # tables: 2 decimals
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(summary_table(s))
    assert oom_note(s) in out.getvalue()


def test_one_step_is_one_step():
    """A run stopped at its first step read "stopped: 1 steps"."""
    line = summary_line(summary(status="stopped", steps_done=1, overflow_steps=1))
    assert ": 1 step in " in line and "1 overflow step skipped" in line
    line = summary_line(summary(steps_done=2, overflow_steps=0))
    assert ": 2 steps in " in line and "0 overflow steps skipped" in line


@pytest.mark.parametrize(("value", "digits", "text"), [
    (0.8834, 1, "88.3%"), (0.8834, 2, "88.34%"), (None, 1, "n/a"), (float("nan"), 2, "n/a"),
])
def test_percentages(value, digits, text):
    assert fmt_pct(value, digits) == text


def test_durations_and_the_brief_underflow():
    assert fmt_duration(3725) == "1:02:05" and fmt_duration(65) == "1:05"
    assert underflow_brief(underflow()) == "underflow 12.7% / 0.0% scaled"
    progress = RunProgress()
    progress.update(started())
    progress.update(underflow())
    assert underflow_brief(underflow()) in progress.status_text()
