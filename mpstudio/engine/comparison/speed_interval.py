"""A speed ratio's interval from one trial: the spread of its steady windows.

Between trials the card gives the median and the range (the run-to-run spread a
machine's heat and other jobs add). A single trial pair used to say "spread unknown".
Within one pair the monitor sampled the throughput of many windows after the warm-up;
resampling each side's windows (a percentile bootstrap of the ratio of their rates)
says how well those windows pin the ratio down. It is not the run-to-run spread, which
only more trials measure, and the verdict says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpstudio.engine.events import StepMetrics

MIN_WINDOWS = 5  # per side: fewer windows pin nothing down
RESAMPLES = 2000
LEVEL = 0.95


def steady_windows(steps: Sequence[StepMetrics]) -> np.ndarray:
    """(steps, seconds) of each window sampled after the warm-up."""
    rows, previous = [], 0
    for s in steps:
        count = s.step - previous
        previous = s.step
        if not s.warmup and count > 0 and s.step_time > 0 and s.examples_per_sec:
            rows.append((count, count * s.step_time))
    return np.array(rows, dtype=float).reshape(-1, 2)


def _rates(windows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Steps per second of RESAMPLES resamples of ``windows`` (the whole steady time's
    rate, as the card's figure is, not a median of windows)."""
    picks = windows[rng.integers(0, len(windows), (RESAMPLES, len(windows)))]
    rates: np.ndarray = picks[..., 0].sum(axis=1) / picks[..., 1].sum(axis=1)
    return rates


def window_interval(baseline: Sequence[StepMetrics], mixed: Sequence[StepMetrics],
                    seed: int = 0) -> tuple[float, float] | None:
    """The 95% interval of mixed's steady throughput over the baseline's (both at the
    same batch); None with fewer than MIN_WINDOWS steady windows on a side. Seeded: a
    card rebuilt from the history shows the same interval."""
    base, half = steady_windows(baseline), steady_windows(mixed)
    if len(base) < MIN_WINDOWS or len(half) < MIN_WINDOWS:
        return None
    rng = np.random.default_rng(seed)
    ratios = _rates(half, rng) / _rates(base, rng)
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)
