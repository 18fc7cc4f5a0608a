"""Axes for the live charts: steps that read at a glance, loss scales as powers of two.

Dynamic loss scaling halves and doubles the scale, so the chart plots log2(scale):
every halving is the same height. pyqtgraph's own log mode is base 10 and labels
decades, which hides the doublings; ``Log2Axis`` puts ticks on whole exponents.

Both axes turn off pyqtgraph's automatic SI prefix: it rewrites the axis label's
HTML whenever the range moves, a cost paid on every frame of a live chart.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from mpstudio.engine.charts.value_text import power_of_two_label, scale_text

__all__ = ["Log2Axis", "StepAxis", "nice_ceil", "power_of_two_label", "scale_text",
           "step_label"]

_MIN_TICK_GAP_PX = 22  # about two label heights at the chart's font size
_STEPS = (1, 2, 4, 5, 10, 20, 50, 100)


def step_label(step: float) -> str:
    """1500 -> "1500", 25000 -> "25k", 1250000 -> "1.25M": short enough never to collide."""
    size = abs(step)
    if size < 10_000:
        return f"{step:.0f}" if step == round(step) else f"{step:g}"
    if size < 1_000_000:
        return f"{step / 1e3:g}k"
    return f"{step / 1e6:g}M"


def nice_ceil(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at or above ``value``."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for mantissa in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        candidate = float(f"{mantissa * power:.12g}")  # 3 * 0.1 is 0.30000000000000004
        if candidate >= value:
            return candidate
    return 10 * power


class StepAxis(pg.AxisItem):
    """The shared x axis: global training steps, labelled compactly, never between two
    steps (a run stopped at step 2 read "0.5, 1, 1.5")."""

    def __init__(self, orientation: str = "bottom", **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        levels = [level for level in super().tickSpacing(minVal, maxVal, size)
                  if level[0] >= 1]
        return levels or [(1.0, 0.0)]

    def tickStrings(self, values, scale, spacing):
        return [step_label(v) for v in values]


class Log2Axis(pg.AxisItem):
    """Ticks at integer exponents, spaced so that labels never crowd."""

    def __init__(self, orientation: str = "left", **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)  # the values are exponents, not quantities

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        span = maxVal - minVal
        if not (math.isfinite(span) and span > 0 and size > 0):
            return [(1.0, 0.0)]
        room = max(1.0, size / _MIN_TICK_GAP_PX)  # how many labels fit
        step = next((s for s in _STEPS if span / s <= room), _STEPS[-1])
        return [(float(step), 0.0)]

    def tickStrings(self, values, scale, spacing):
        return [power_of_two_label(round(v)) for v in values]
