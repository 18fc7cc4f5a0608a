"""The live charts: bounded buffers, events turned into points, and the widget's
timer-driven redraws, export and hover readout."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QTimer

from devtools.chart_demo import comparison_events, synthetic_run
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.events import EpochMetrics, LossScaleChanged, RunWarning, StepMetrics
from mpstudio.ui.charts.chart_axes import Log2Axis, nice_ceil, scale_text, step_label
from mpstudio.ui.charts.chart_buffer import ChartBuffer, MarkerList
from mpstudio.ui.charts.chart_panel import follow_span
from mpstudio.ui.charts.hover_readout import HINT, nearest_index
from mpstudio.ui.charts.live_charts import NO_SCALING_ONE, LiveCharts
from mpstudio.ui.charts.run_curves import ChartData, RunCurves, is_baseline

from support.chart_events import started
from support.legend_layout import assert_apart, narrowest_charts, texts_inside_their_charts


def step(n: int, *, loss: float = 0.5, scale: float | None = 1024.0, overflows: int = 0,
         speed: float | None = 1000.0, step_time: float = 0.1, warmup: bool = False):
    return StepMetrics(step=n, epoch=1, loss=loss, accuracy=0.9, loss_scale=scale,
                       overflow_steps=overflows, examples_per_sec=speed, step_time=step_time,
                       warmup=warmup)


# ----------------------------------------------------------------- buffers
def test_buffer_views_the_filled_part_without_copying():
    buffer = ChartBuffer("mean", cap=100)
    for i in range(10):
        buffer.append(i, i * 2)
    x, y = buffer.view()
    assert list(x) == list(range(10)) and list(y) == [i * 2 for i in range(10)]
    assert np.shares_memory(x, buffer._x)  # a view into the preallocated array


@pytest.mark.parametrize("mode", ["mean", "last"])
def test_buffer_memory_stays_bounded_and_combined_points_are_exact(mode):
    cap, n = 64, 10_000
    buffer = ChartBuffer(mode, cap=cap)
    xs = np.arange(1, n + 1, dtype=float)
    for start in range(0, n, 37):  # uneven batches, as events arrive
        buffer.extend(xs[start:start + 37], xs[start:start + 37] * 10)
    x, y = buffer.view()
    stride = buffer.stride
    assert len(x) <= cap and stride > 1 and stride & (stride - 1) == 0
    assert buffer.raw_count == n
    full = n // stride
    members = xs[: full * stride].reshape(full, stride)
    assert np.array_equal(x[:full], members[:, -1])  # x of the last member
    expected = members.mean(axis=1) if mode == "mean" else members[:, -1]
    assert np.allclose(y[:full], expected * 10)
    if n % stride:  # the group still filling shows its running value, at the newest x
        assert x[-1] == n


def test_nan_survives_combining():
    buffer = ChartBuffer("mean", cap=8)
    ys = np.ones(100)
    ys[41] = np.nan  # a diverged loss
    buffer.extend(np.arange(100, dtype=float), ys)
    x, y = buffer.view()
    nan_at = np.flatnonzero(np.isnan(y))
    assert len(nan_at) == 1  # exactly the combined point that holds step 41
    group = buffer.stride
    assert x[nan_at[0]] == (41 // group + 1) * group - 1
    assert np.all(y[~np.isnan(y)] == 1.0)


def test_last_mode_never_invents_values():
    buffer = ChartBuffer("last", cap=4)
    scales = [32768, 16384, 16384, 32768, 65536, 32768, 32768, 16384, 16384]
    buffer.extend(np.arange(len(scales), dtype=float), np.array(scales, dtype=float))
    assert set(buffer.view()[1]) <= set(scales)


def test_buffer_bounds_cover_the_finite_points_held():
    buffer = ChartBuffer("mean", cap=8)
    assert buffer.bounds() is None
    buffer.extend(np.arange(5, dtype=float), np.array([3.0, np.nan, -1.0, np.inf, 7.0]))
    assert buffer.bounds() == (-1.0, 7.0)  # NaN and inf are gaps, not extremes
    buffer.extend(np.arange(5, 40, dtype=float), np.zeros(35))  # halves: means now
    y = buffer.view()[1]
    finite = y[np.isfinite(y)]
    assert buffer.bounds() == (finite.min(), finite.max())


def test_marker_list_is_bounded_and_counts_everything():
    markers = MarkerList(cap=16)
    for i in range(1000):
        markers.append(i, 2.0**10)
    assert len(markers) <= 16 and markers.total == 1000
    assert markers.view()[0][-1] == 999  # the newest marker is kept


# -------------------------------------------------------------- run curves
def test_warmup_throughput_is_computed_and_kept_apart():
    data = ChartData()
    data.add_events([
        started(batch=32),
        step(1, speed=None, step_time=2.0, warmup=True),
        step(2, speed=None, step_time=0.5, warmup=True),
        step(3, speed=900.0),
        step(4, speed=950.0),
    ])
    run = data.runs["mixed_float16"]
    assert list(run.warmup.view()[0]) == [1, 2]
    assert list(run.warmup.view()[1]) == [16.0, 64.0]  # batch / step time
    assert list(run.throughput.view()[1]) == [900.0, 950.0]
    assert run.warmup_span == (0.0, 2.0)
    assert data.warmup_span() == (0.0, 2.0)


def test_overflow_markers_come_once_per_step_from_either_event():
    data = ChartData()
    data.add_events([started(), step(5, scale=32768.0)])
    # The engine sends LossScaleChanged first, then the sample; here across two batches.
    data.add_events([LossScaleChanged(10, 32768.0, 16384.0, 1)])
    data.add_events([step(10, scale=16384.0, overflows=1)])
    data.add_events([
        LossScaleChanged(20, 16384.0, 32768.0, 0),  # growth: no marker
        step(20, scale=32768.0, overflows=1),
        step(30, scale=32768.0, overflows=3),  # skipped steps with no scale change seen
    ])
    run = data.runs["mixed_float16"]
    x, y = run.overflow.view()
    assert list(x) == [10, 30] and list(y) == [16384.0, 32768.0]
    assert list(run.loss_scale.view()[1]) == [32768.0, 16384.0, 32768.0, 32768.0]


def test_validation_sits_at_the_steps_of_epoch_ends_and_nan_loss_stays():
    data = ChartData()
    data.add_events([
        started(),
        step(25, loss=0.7),
        step(50, loss=math.nan),
        EpochMetrics(1, 50, 0.6, 0.8, val_loss=0.65, val_accuracy=0.78, epoch_time=1.0,
                     train_time=0.9),
        step(75, loss=0.4),
        EpochMetrics(2, 100, 0.5, 0.85, val_loss=None, val_accuracy=None, epoch_time=1.0,
                     train_time=0.9),
    ])
    run = data.runs["mixed_float16"]
    assert list(run.val_loss.view()[0]) == [50] and list(run.val_accuracy.view()[1]) == [0.78]
    loss = run.loss.view()[1]
    assert loss[0] == 0.7 and math.isnan(loss[1]) and loss[2] == 0.4
    assert run.last_step == 100


def test_a_comparison_makes_two_runs_and_other_events_are_ignored():
    data = ChartData()
    data.add_events([
        DataProgress("mnist", "downloading", 10, 100, "B"),
        started("float32 baseline"),
        step(1, scale=None), step(2, scale=None),
        RunWarning("slow"),
        started("mixed_float16"),
        step(1), step(2), step(3),
    ])
    assert list(data.runs) == ["float32 baseline", "mixed_float16"]
    baseline, mixed = data.runs.values()
    assert baseline.baseline and not mixed.baseline
    assert len(baseline.loss) == 2 and len(mixed.loss) == 3
    assert baseline.loss_scaling is False and mixed.loss_scaling is True
    assert data.dirty and data.total_steps() == 100


def test_baseline_labels():
    assert is_baseline("float32 baseline") and is_baseline("TF32 baseline")
    assert is_baseline("float32 (baseline)") and not is_baseline("mixed_float16")


def test_run_curves_from_a_realistic_stream_stay_consistent():
    data = ChartData()
    data.add_events(comparison_events(steps=400, steps_per_epoch=80))
    mixed = data.runs["mixed_float16"]
    assert len(mixed.loss) == 80 and len(mixed.warmup) == 3 and len(mixed.throughput) == 77
    assert len(mixed.val_loss) == 5 and mixed.overflow.total >= 2
    assert isinstance(mixed, RunCurves) and data.points_held() > 0


# ----------------------------------------------------------------- ranges
def test_follow_span_moves_only_when_the_data_leaves_or_shrinks():
    first = follow_span(None, 0.2, 2.0)
    assert first[0] < 0.2 and first[1] > 2.0
    assert follow_span(first, 0.25, 1.9) is None  # inside and filling it: kept
    lower = follow_span(first, 0.05, 2.0)  # the loss went below the range
    assert lower is not None and lower[0] < 0.05
    assert follow_span(first, 0.2, 0.4) is not None  # the data fills too little of it
    flat = follow_span(None, 15.0, 15.0)  # a fixed loss scale
    assert flat[0] < 15.0 < flat[1]


# ------------------------------------------------------------------- axes
def test_axis_labels(qapp):  # an AxisItem is a QGraphicsWidget: it needs the app
    assert Log2Axis().tickStrings([13.0, 14.0, 15.0], 1, 1) == ["2¹³", "2¹⁴", "2¹⁵"]
    assert Log2Axis().tickStrings([-1.0], 1, 1) == ["2⁻¹"]
    spacing = Log2Axis().tickSpacing(0.0, 40.0, 200.0)[0][0]
    assert spacing == int(spacing) and 40 / spacing <= 200 / 22
    assert scale_text(32768.0) == "32768 (2¹⁵)" and scale_text(1000.0) == "1000"
    assert [step_label(v) for v in (500, 25_000, 1_250_000)] == ["500", "25k", "1.25M"]
    assert [nice_ceil(v) for v in (7, 11, 130, 0.3)] == [8, 12, 150, 0.3]
    assert nearest_index(np.array([10.0, 20.0, 30.0]), 24.0) == 1
    assert nearest_index(np.array([10.0, 20.0, 30.0]), 99.0) == 2


# ----------------------------------------------------------------- widget
@pytest.fixture
def charts(qtbot):
    widget = LiveCharts(redraw_hz=25)
    qtbot.addWidget(widget)
    widget.resize(1100, 650)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def redraw_timer(widget: LiveCharts) -> QTimer:
    return widget.findChild(QTimer, "LiveCharts.redrawTimer")


def test_empty_charts_say_what_to_do_instead_of_drawing_empty_axes(charts, qtbot):
    """Before the first run the charts showed axes from 0.2 to 0.8 that meant nothing."""
    assert charts.empty.isVisible() and not charts.panel.isVisible()
    assert "click Run (Ctrl+R)" in charts.empty.text()
    charts.add_events(comparison_events())
    qtbot.waitUntil(charts.panel.isVisible, timeout=2000)
    assert not charts.empty.isVisible()
    charts.clear()  # a new run: empty until its first step
    assert charts.empty.isVisible() and "first step" in charts.empty.text()


def test_redraws_come_from_the_timer_not_from_each_call(charts, qtbot):
    events = list(synthetic_run("mixed_float16", steps=10_000, steps_per_epoch=1000,
                                log_every=1))
    calls = 0
    for i in range(0, len(events), 10):
        charts.add_events(events[i:i + 10])
        calls += 1
    assert charts.redraws == 0 and redraw_timer(charts).isActive()
    qtbot.waitUntil(lambda: charts.redraws >= 1, timeout=2000)
    assert charts.redraws <= 3 < calls
    counts = charts.point_counts()
    assert counts["loss"] == {"mixed_float16": 10_000}
    assert counts["val_loss"]["mixed_float16"] == 10
    assert counts["warmup"]["mixed_float16"] == 3
    assert counts["overflow"]["mixed_float16"] >= 2
    qtbot.waitUntil(lambda: not redraw_timer(charts).isActive(), timeout=2000)  # idle: stops


def test_finish_draws_once_more_and_stops_the_timer(charts, qtbot):
    with qtbot.waitSignal(charts.redrawn, timeout=1000):
        charts.add_events(comparison_events())
        charts.finish()
    assert not redraw_timer(charts).isActive()
    counts = charts.point_counts()
    assert counts["loss"] == {"float32 baseline": 80, "mixed_float16": 80}
    assert counts["loss_scale"] == {"float32 baseline": 0, "mixed_float16": 80}
    x_min, x_max = charts.plots["loss"].getViewBox().viewRange()[0]
    assert x_min <= 5 and 400 <= x_max < 420  # the step axis fits the run


@pytest.mark.parametrize("steps, shown", [(40, True), (4000, False)],
                         ids=["short run", "long run"])
def test_the_warmup_label_shows_only_where_its_strip_holds_it(charts, qtbot, steps, shown):
    """Three warm-up steps of a 4,000-step run are a strip a pixel or two wide: its
    rotated label spilled over the throughput axis's tick labels (seen at 1920x1080)."""
    with qtbot.waitSignal(charts.redrawn, timeout=1000):
        charts.add_events(comparison_events(steps=steps, steps_per_epoch=steps // 5))
        charts.finish()
    region = charts._warmup_region
    assert region.isVisible()  # the shading is there either way
    assert region.label.isVisible() is shown
    if not shown:  # zoomed in on the first steps, the strip holds its label again
        charts.plots["throughput"].getViewBox().setXRange(0, 20, padding=0)
        assert region.label.isVisible()


def test_clear_and_hide_stop_the_timer(charts, qtbot):
    charts.add_events(comparison_events())
    assert redraw_timer(charts).isActive()
    charts.clear()
    assert not redraw_timer(charts).isActive()
    assert charts.point_counts()["loss"] == {}
    charts.add_events(comparison_events())
    charts.hide()
    assert not redraw_timer(charts).isActive()
    charts.show()  # buffered events are drawn when it shows again
    qtbot.waitUntil(lambda: charts.point_counts()["loss"] != {}, timeout=2000)
    charts.close()
    assert not redraw_timer(charts).isActive()


def test_no_loss_scaling_is_said(charts):
    charts.add_events(synthetic_run("float32", "float32", loss_scale=None))
    charts.finish()
    assert charts._no_scaling.isVisible() and charts._no_scaling.textItem.toPlainText() == (
        NO_SCALING_ONE
    )
    charts.clear()
    charts.add_events(comparison_events())
    charts.finish()
    assert not charts._no_scaling.isVisible()
    labels = [label.text for _, label in charts.plots["loss_scale"].legend.items]
    assert "float32 baseline (no loss scaling)" in labels


def test_save_png_and_svg(charts, tmp_path):
    charts.add_events(comparison_events())
    png, svg = tmp_path / "charts.png", tmp_path / "charts.svg"
    charts.save(png)
    charts.save(str(svg))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert any(el.tag.endswith("path") or el.tag.endswith("polyline") for el in root.iter())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["charts.png", "charts.svg"]


def test_saved_charts_are_shareable(charts, tmp_path):
    """Saved charts get the usual 0644 under umask 022 (they were mkstemp's private
    0600: a colleague on the same machine could not open them)."""
    import os
    import stat

    charts.add_events(comparison_events())
    png, svg = tmp_path / "charts.png", tmp_path / "charts.svg"
    old = os.umask(0o022)
    try:
        charts.save(png)
        charts.save(svg)
    finally:
        os.umask(old)
    for path in (png, svg):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_save_refuses_other_formats_and_leaves_nothing(charts, tmp_path):
    with pytest.raises(ValueError, match=r"\.jpg"):
        charts.save(tmp_path / "charts.jpg")
    with pytest.raises(ValueError, match="no suffix"):
        charts.save(tmp_path / "charts")
    assert list(tmp_path.iterdir()) == []


def test_hover_reads_the_values_near_the_mouse(charts, qtbot):
    charts.add_events(comparison_events())
    charts.finish()
    qtbot.wait(20)  # one paint: the views take their auto ranges then
    view = charts.plots["loss"].getViewBox()
    text = charts.hover.show_at(view.mapViewToScene(QPointF(201, 0.5)))
    mixed = charts._data.runs["mixed_float16"]
    x, y = mixed.loss.view()
    i = nearest_index(x, 201)
    assert text.startswith(f"step {x[i]:.0f} · ")
    assert f"mixed_float16 loss {y[i]:.4g}" in text and "float32 baseline loss" in text
    assert charts.readout.text() == text
    scale_view = charts.plots["loss_scale"].getViewBox()
    text = charts.hover.show_at(scale_view.mapViewToScene(QPointF(300, 14)))
    assert "mixed_float16 loss scale" in text and "(2¹" in text
    charts.hover.show_at(QPointF(-50, -50))  # outside every plot
    assert charts.readout.text() == HINT


def test_ranges_follow_the_data_until_the_user_zooms(charts, qtbot):
    events = list(synthetic_run("mixed_float16", steps=2000, steps_per_epoch=500,
                                log_every=10))
    charts.add_events(events[:100])
    charts.finish()
    view = charts.plots["loss"].getViewBox()
    upper = view.viewRange()[0][1]
    assert 0 < upper < 2000  # the step axis reaches past the newest step, not the plan
    view.sigRangeChangedManually.emit([True, True])  # what a pan or a zoom sends
    view.setXRange(0, 50, padding=0)
    charts.add_events(events[100:])
    charts.finish()
    assert view.viewRange()[0][1] == 50  # the user's zoom stays
    view.enableAutoRange()  # the "A" button: follow again
    charts.add_events([])
    charts.finish()
    assert 2000 <= view.viewRange()[0][1] < 2100


def test_legends_fit_beside_or_under_their_titles_at_the_narrowest_chart_width(qtbot):
    """Legends ran into the titles and the next chart and were clipped at the left edge
    ("float32 basefloat32 baseline..."). At the narrowest width the window allows, every
    legend entry and title is whole, inside its own chart, clear of every other text and
    of the curves."""
    widget = narrowest_charts(qtbot, "float32 baseline (#12)", "mixed_float16 (#13)")
    texts = texts_inside_their_charts(widget)
    assert len(texts) == 4 + 3 + 3 + 2 + 3  # the titles, then each chart's entries
    assert_apart(texts)


def test_a_saved_png_is_sized_for_a_document(charts, tmp_path):
    """The PNG was the on-screen size (some 500 px beside the docks); now at least 1200 px
    wide, the same picture (aspect ratio) drawn at that density."""
    from PySide6.QtGui import QImage

    charts.resize(560, 440)
    charts.add_events(comparison_events())
    charts.save(tmp_path / "charts.png")
    image = QImage(str(tmp_path / "charts.png"))
    panel = charts.panel
    assert image.width() >= 1200
    assert image.height() / image.width() == pytest.approx(panel.height() / panel.width(),
                                                           rel=0.01)
