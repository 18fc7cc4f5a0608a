"""The training aids' events in the GUI: log lines, summary and banner text, the
gradient-underflow chart, an out-of-memory retry inside one job; then one real run
with early stopping and underflow sampling, clicked through the window."""

from __future__ import annotations

import dataclasses
import math

import pytest
from PySide6.QtCore import Qt

from mpstudio.engine.event_text import summary_line
from mpstudio.engine.events import (
    AidAction,
    GradientUnderflow,
    LayerUnderflow,
    NumericsDiagnosis,
    OomRetry,
    RunFailed,
    RunFinished,
    RunStarted,
    RunSummary,
    StepMetrics,
)
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.spec import TrainingAids
from mpstudio.ui.charts.live_charts import LiveCharts
from mpstudio.ui.charts.run_curves import ChartData
from mpstudio.ui.charts.underflow_chart import breakdown_html, worst_layers
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.window.run_outcome import describe_outcome

from support.gui_helpers import RUN_TIMEOUT_MS, select

LABEL = "mixed_float16"


def started(batch: int = 64, total: int = 40, every: int = 5, oom_retry: bool = True,
            role: str = "single", label: str = LABEL) -> RunStarted:
    spec = {"precision": "mixed_float16", "batch_size": batch, "template": "mlp",
            "dataset": "digits",
            "aids": dataclasses.asdict(TrainingAids(underflow_every=every, oom_retry=oom_retry))}
    return RunStarted(
        label=label, spec=spec, hardware={"device": "CPU"}, dataset="digits: 1,437 train",
        model=ModelSummary(name="mlp", policy="mixed_float16", params=1000,
                           trainable_params=1000, layers=()),
        steps_per_epoch=20, total_steps=total, log_every_steps=1, xla=False,
        loss_scaling="dynamic loss scaling", role=role,
    )


def step(n: int, loss: float = 0.5) -> StepMetrics:
    return StepMetrics(step=n, epoch=1 + (n - 1) // 20, loss=loss, accuracy=0.9,
                       loss_scale=32768.0, overflow_steps=0, examples_per_sec=1000.0,
                       step_time=0.01, warmup=False)


def underflow(n: int, unscaled: float = 0.12, scaled: float = 0.0) -> GradientUnderflow:
    layers = (
        LayerUnderflow("dense", "float16", 8000, unscaled / 2, 0.0),
        LayerUnderflow("logits", "float16", 640, unscaled, scaled),
        LayerUnderflow("dense_1", "float16", 4000, unscaled / 4, 0.0),
        LayerUnderflow("a_layer_with_a_very_long_name_indeed", "float16", 10, 0.01, 0.0),
    )
    return GradientUnderflow(step=n, epoch=1, scale=32768.0, unscaled=unscaled, scaled=scaled,
                             layers=layers, seconds=0.0042)


def summary(**changes) -> RunSummary:
    base = RunSummary(
        label=LABEL, precision="mixed_float16", status="finished", loop="fit", xla=False,
        batch_size=64, epochs_done=2, steps_done=40, warmup_steps=2, time_to_first_step=0.5,
        steady_examples_per_sec=5000.0, steady_step_time=0.01, mean_epoch_time=0.5,
        total_time=3.0, final_loss=0.3, final_accuracy=0.9, final_val_loss=0.35,
        final_val_accuracy=0.88, best_val_accuracy=0.9, overflow_steps=0,
        loss_scale_mode="dynamic", loss_scale_min=32768.0, loss_scale_max=32768.0,
        loss_scale_final=32768.0, peak_memory_bytes=None, memory_note="", device="CPU",
        params=1000,
    )
    return dataclasses.replace(base, **changes)


# ------------------------------------------------------------------ the log
def test_aid_actions_and_diagnosis_get_their_own_lines():
    progress = RunProgress()
    progress.update(started())
    stop = AidAction(40, 2, "early_stopping", "stopped after epoch 2: validation loss has "
                     "not improved for 1 epoch (best 0.35 at epoch 1)", 0.35)
    cut = AidAction(20, 1, "reduce_lr", "learning rate 0.001 -> 0.0005: ...", 5e-4)
    best = AidAction(20, 1, "best_checkpoint", "epoch 1 is the best so far", 0.35)
    assert progress.update(stop) == [("info", f"early stopping: {stop.message}")]
    assert progress.update(cut) == [("info", f"learning rate: {cut.message}")]
    assert progress.update(best) == [("info", f"best checkpoint: {best.message}")]
    diagnosis = NumericsDiagnosis(12, "logits", "float16", "forward",
                                  "the forward pass of logits (float16) overflowed first")
    assert progress.update(diagnosis) == [("error", f"diagnosis: {diagnosis.message}")]


def test_a_comparison_names_the_run_an_aid_acted_in():
    progress = RunProgress(runs_planned=2)
    progress.update(started(role="mixed"))
    lines = progress.update(AidAction(40, 2, "early_stopping", "stopped", 0.3))
    assert lines == [("info", f"early stopping ({LABEL}): stopped")]


def test_only_the_first_underflow_sample_is_logged_with_its_cost():
    progress = RunProgress()
    progress.update(started(every=5))
    first = progress.update(underflow(5))
    assert len(first) == 1 and first[0][0] == "info"
    text = first[0][1]
    assert text.startswith("gradient-underflow view: sampling every 5 steps, 4.2 ms for the "
                           "first sample")
    assert "12.0%" in text and "0.0%" in text
    assert all(progress.update(underflow(n)) == [] for n in (10, 15, 20))
    assert progress.underflow.step == 20
    progress.update(step(20))
    assert "underflow 12.0% / 0.0% scaled" in progress.status_text()


def test_an_out_of_memory_retry_is_a_warning_and_the_run_goes_on():
    progress = RunProgress()
    progress.update(started(batch=64))
    for n in (1, 2, 3):
        progress.update(step(n))
    reason = "out of memory at batch size 64 (1,000 parameters, mixed_float16)"
    failed = RunFailed(reason, "out_of_memory", 3, summary(status="failed", batch_size=64))
    assert progress.update(failed) == []  # held back until we know whether a retry follows
    retry = OomRetry(64, 32, 5e-4, "out of memory at batch size 64; trying again at batch "
                     "size 32 with learning rate 0.0005")
    lines = progress.update(retry)
    assert [level for level, _ in lines] == ["warning", "warning"]
    assert lines[0][1] == f"{LABEL}: {reason} (a retry follows)"
    assert lines[1][1] == f"retry 1: {retry.message}"
    assert progress.failure is None and progress.summaries == []

    again = progress.update(started(batch=32))
    assert again[0][1].startswith(f"{LABEL} (retry 1, batch size 32): ")
    assert progress.runs_started == 1 and progress.step == 0
    assert progress.fraction == 0.0  # progress restarts for the new attempt
    progress.update(step(20))
    assert progress.fraction == pytest.approx(0.5)
    assert "retry 1 at batch 32" in progress.status_text()
    done = summary(batch_size=32, oom_retries=1, largest_batch_fit=32)
    assert progress.update(RunFinished(done))[0][0] == "success"
    assert progress.finish() == []


def test_an_out_of_memory_failure_with_no_retry_after_it_is_an_error():
    progress = RunProgress()
    progress.update(started(batch=8))
    failed = RunFailed("out of memory at batch size 8", "out_of_memory", 1, None)
    assert progress.update(failed) == []
    assert progress.finish() == [("error", f"{LABEL}: out of memory at batch size 8")]
    assert progress.failure is failed
    # With retries off it is an error at once.
    progress = RunProgress()
    progress.update(started(oom_retry=False))
    assert progress.update(failed)[0][0] == "error"


def test_summary_line_says_what_the_aids_did():
    s = summary(aids="stopped early after epoch 2 (val_loss stopped improving); kept epoch "
                "1's weights (val_loss 0.35) of 2", kept_epoch=1, oom_retries=2,
                largest_batch_fit=16,
                underflow_unscaled=0.127, underflow_scaled=0.0,
                tensorboard_dir="/tmp/runs/7/tensorboard")
    line = summary_line(s)
    assert "stopped early after epoch 2 (val_loss stopped improving); kept epoch 1's" in line
    assert "batch 16 fit after 2 out-of-memory retries" in line
    assert "gradient underflow 12.7% without loss scaling, 0.0% at the scale" in line
    assert "TensorBoard logs in /tmp/runs/7/tensorboard" in line
    plain = summary_line(summary())
    assert "retr" not in plain and "underflow" not in plain and "TensorBoard" not in plain


class _Result:  # what describe_outcome reads of a RunResult
    def __init__(self, s: RunSummary, failure: RunFailed | None = None) -> None:
        self.summary, self.failure = s, failure


def test_banner_after_an_out_of_memory_retry_reflects_the_last_attempt():
    ok = summary(batch_size=32, oom_retries=1, largest_batch_fit=32)
    status, text, level = describe_outcome(TrainingOutcome([_Result(ok)]))
    assert (status, level) == ("finished", "success")
    assert "mixed_float16 finished" in text and "batch 32 fit after 1 out-of-memory retry" in text
    last = summary(status="failed", batch_size=8, oom_retries=3)
    failure = RunFailed("out of memory at batch size 8", "out_of_memory", 0, last)
    status, text, level = describe_outcome(TrainingOutcome([_Result(last, failure)]))
    assert (status, level) == ("failed", "error")
    assert "out of memory at batch size 8" in text and "3 out-of-memory retries" in text


# --------------------------------------------------------------- the chart
def test_chart_data_holds_underflow_in_percent_and_a_retry_replaces_curves():
    data = ChartData()
    data.add_events([started(), *[step(n) for n in range(1, 11)],
                     underflow(5, 0.1, 0.0), underflow(10, 0.2, 0.01)])
    run = data.runs[LABEL]
    x, y = run.underflow_unscaled.view()
    assert list(x) == [5.0, 10.0] and list(y) == pytest.approx([10.0, 20.0])
    assert list(run.underflow_scaled.view()[1]) == pytest.approx([0.0, 1.0])
    assert data.has_underflow() and data.latest_underflow()[1].step == 10
    # An out-of-memory retry: the same label starts again and replaces the curves.
    data.add_events([RunFailed("oom", "out_of_memory", 10, None), OomRetry(64, 32, 5e-4, "m"),
                     started(batch=32), step(1), underflow(5, 0.3, 0.0)])
    assert list(data.runs) == [LABEL] and data.runs[LABEL] is not run
    assert len(data.runs[LABEL].loss) == 1 and len(data.runs[LABEL].underflow_unscaled) == 1
    data.clear()
    assert not data.has_underflow() and data.latest_underflow() is None


def test_worst_layers_are_listed_compactly():
    sample = underflow(5, 0.127, 0.002)
    assert worst_layers(sample) == [
        "logits (float16): 12.7% / 0.2%", "dense (float16): 6.3% / 0.0%",
        "dense_1 (float16): 3.2% / 0.0%",
    ]
    long = dataclasses.replace(sample, layers=sample.layers[3:])
    assert worst_layers(long) == ["a_layer_with_a_very_l… (float16): 1.0% / 0.0%"]
    text = breakdown_html(LABEL, sample)
    assert "step 5" in text and "scale 32768" in text and "logits (float16)" in text


@pytest.fixture
def charts(qtbot):
    widget = LiveCharts(redraw_hz=50)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    yield widget
    widget.clear()


def test_the_underflow_chart_appears_with_its_first_sample(qtbot, charts):
    charts.add_events([started(), *[step(n) for n in range(1, 21)]])
    charts.finish()
    qtbot.waitUntil(charts.panel.isVisible, timeout=2000)  # the charts replace the hint
    # Qt lays the newly shown panel out over the next events: wait for it to settle
    heights = []

    def settled() -> bool:
        heights.append(charts.plots["loss"].height())
        return len(heights) > 3 and heights[-1] == heights[-4] > 100

    qtbot.waitUntil(settled, timeout=5000)
    loss_height = charts.plots["loss"].height()
    assert not charts.underflow_shown  # a run that does not sample it: no room taken
    counts = charts.point_counts()
    assert counts["underflow_unscaled"][LABEL] == 0

    charts.add_events([underflow(n, 0.05 * n / 5, 0.001) for n in (5, 10, 15, 20)])
    qtbot.waitUntil(lambda: charts.point_counts()["underflow_unscaled"][LABEL] == 4,
                    timeout=10_000)
    assert charts.underflow_shown and charts.underflow.plot.isVisible()
    assert charts.point_counts()["underflow_scaled"][LABEL] == 4
    charts.finish()
    # The grid makes room for it (Qt lays the panel out again at the next event).
    qtbot.waitUntil(lambda: charts.plots["loss"].height() < loss_height - 50, timeout=10_000)
    curves = charts._items[LABEL].curves
    x, y = curves["underflow_unscaled"].getData()
    assert list(x) == [5.0, 10.0, 15.0, 20.0]
    assert list(y) == pytest.approx([5.0, 10.0, 15.0, 20.0])
    low, high = charts.underflow.plot.getViewBox().viewRange()[1]
    assert -2.0 < low < 0.0 and 20.0 < high <= 100.0
    names = [label.text for _, label in charts.underflow.plot.legend.items]
    assert names == ["without loss scaling", "at the current scale"]
    assert "logits (float16): 20.0% / 0.1%" in charts.underflow.layers.text
    # Linked to the other charts' step axis.
    assert charts.underflow.plot.getViewBox().viewRange()[0] == pytest.approx(
        charts.plots["loss"].getViewBox().viewRange()[0])

    charts.clear()
    assert not charts.underflow_shown
    charts.add_events([started(), step(1)])  # the next run gets its room back
    qtbot.waitUntil(lambda: charts.panel.isVisible() and abs(
        charts.plots["loss"].height() - loss_height) < 1, timeout=10_000)


def test_an_out_of_memory_retry_redraws_the_underflow_chart_from_the_new_attempt(
        qtbot, charts):
    charts.add_events([started(), step(1), step(2), underflow(2, 0.5, 0.1)])
    charts.finish()
    assert charts.point_counts()["underflow_unscaled"][LABEL] == 1
    charts.add_events([RunFailed("oom", "out_of_memory", 2, None), OomRetry(64, 32, 5e-4, "m"),
                       started(batch=32), *[step(n) for n in range(1, 11)],
                       underflow(5, 0.1, 0.0), underflow(10, 0.1, 0.0)])
    charts.finish()
    assert charts.point_counts()["underflow_unscaled"] == {LABEL: 2}
    assert charts.point_counts()["loss"] == {LABEL: 10}
    assert not any(math.isnan(v) for v in charts._items[LABEL].curves["underflow_scaled"]
                   .getData()[1])


# --------------------------------------------------------- one real run
@pytest.mark.slow
def test_early_stopping_and_underflow_in_a_real_run(qtbot, window, monkeypatch):
    w = window
    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, "mlp")
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(4)
    w.setup.batch_size.setValue(64)
    w.setup.baseline.setChecked(False)
    panel_spec = w.setup.spec
    aids = TrainingAids(underflow_every=5, early_stopping=True, patience=1)
    # Nothing improves at this rate: early stopping stops after epoch 2.
    monkeypatch.setattr(w.setup, "spec", lambda: panel_spec().replace(
        aids=aids, learning_rate=1e-30))
    with qtbot.waitSignal(w.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(w.setup.run_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["finished"], w.banner.text()
    assert w.charts.underflow_shown
    counts = w.charts.point_counts()
    assert counts["underflow_unscaled"][LABEL] > 0
    assert counts["underflow_scaled"][LABEL] == counts["underflow_unscaled"][LABEL]
    info = w.log.lines("info")
    assert any(line.startswith("early stopping: stopped after epoch 2") for line in info)
    assert any(line.startswith("gradient-underflow view: sampling every 5 steps") for line in info)
    assert "stopped early after epoch 2" in w.banner.text()
    assert "gradient underflow" in w.banner.text()
    summary_ = w.runs.progress.summaries[-1]
    assert summary_.epochs_done == 2 and summary_.underflow_unscaled is not None
    w.grab().save("/tmp/underflow_gui.png")


def test_a_comparisons_banner_is_its_verdict_and_the_status_bar_its_headline():
    """Five lines of banner (each run, then the verdict the card beside it repeats) left the
    charts some 40 px at 1280x720, and the status bar cut the verdict mid-word."""
    from types import SimpleNamespace

    from mpstudio.engine.comparison.verdict import Verdict
    from mpstudio.ui.window.run_outcome import status_line

    sentence = ("Slower on this hardware: mixed_float16 ran at 0.66x the speed of float32; "
                "no native float16 arithmetic on this CPU.")
    card = SimpleNamespace(verdict=Verdict("slower", sentence))
    runs = [_Result(summary(precision="float32")), _Result(summary())]
    status, text, level = describe_outcome(TrainingOutcome(runs, card=card))
    assert (status, text, level) == ("finished", f"Verdict: {sentence}", "warning")
    assert status_line(status, text) == ("Comparison finished: Slower on this hardware. "
                                         "The Comparison card says why.")
    single = describe_outcome(TrainingOutcome([_Result(summary())]))[1]
    assert status_line("finished", single) == single  # a run's line names it already
