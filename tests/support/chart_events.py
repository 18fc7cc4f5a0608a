"""Events for the live charts' tests: a run's start as the charts receive it (the
float32 baseline's or a mixed run's, from its label)."""

from __future__ import annotations

from devtools.chart_demo import run_started
from mpstudio.ui.charts.run_curves import is_baseline


def started(label: str = "mixed_float16", batch: int = 32, total: int = 100):
    precision = "float32" if is_baseline(label) else "mixed_float16"
    return run_started(label, precision, batch, steps_per_epoch=50, total_steps=total,
                       log_every=1)
