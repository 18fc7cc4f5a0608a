"""The live charts at the narrowest width the window allows, with two runs' curves, and
where their texts (titles, legend entries) lie: what the legend-layout tests check in
English and in Chinese."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from devtools.chart_demo import synthetic_run
from mpstudio.ui.charts.live_charts import LiveCharts

CHARTS = ("loss", "loss_scale", "throughput", "accuracy")


def narrowest_charts(qtbot, baseline: str, mixed: str) -> LiveCharts:
    """The charts at their minimum width, showing a float32 baseline and a mixed run
    labelled ``baseline`` and ``mixed``, their legends laid out."""
    widget = LiveCharts()
    qtbot.addWidget(widget)
    widget.resize(widget.minimumWidth(), 440)
    widget.show()
    qtbot.waitExposed(widget)
    runs = synthetic_run(baseline, "float32", loss_scale=None, seed=1)
    widget.add_events([*runs, *synthetic_run(mixed, seed=2)])
    qtbot.waitUntil(lambda: len(widget.plots["loss"].legend.items) == 3, timeout=3000)
    qtbot.wait(50)
    return widget


def text_rect(item) -> QRectF:
    """A legend label's or title's text on the scene, without the text document's margin."""
    margin = item.document().documentMargin() if hasattr(item, "document") else 0.0
    return item.sceneBoundingRect().adjusted(margin, margin, -margin, -margin)


def texts_inside_their_charts(widget: LiveCharts) -> list[tuple[str, QRectF]]:
    """Every chart's title and legend entries as ("chart: text", its rectangle), each
    checked to lie inside its own chart, the legend clear of the curves."""
    texts = []
    for name in CHARTS:
        plot = widget.plots[name]
        own = [("title", text_rect(plot.header.title))]
        own += [(label.text, text_rect(label.item)) for _, label in plot.legend.items]
        bounds = plot.sceneBoundingRect()
        for text, rect in own:
            assert bounds.contains(rect), (name, text, rect, bounds)
        legend = plot.legend.sceneBoundingRect()
        assert not legend.intersects(plot.getViewBox().sceneBoundingRect()), name
        texts += [(f"{name}: {text}", rect) for text, rect in own]
    return texts


def assert_apart(texts: list[tuple[str, QRectF]]) -> None:
    """No two of ``texts`` overlap."""
    for i, (first, a) in enumerate(texts):
        for second, b in texts[i + 1:]:
            assert not a.intersects(b), (first, second)
