"""Growing (x, y) point buffers with bounded memory, for live charts of long runs.

A run can sample millions of steps; a chart is a few thousand pixels wide. A buffer
grows by doubling until it holds ``cap`` points, then halves itself by combining
neighbouring pairs and from then on combines every ``stride`` incoming points into
one (the stride doubles at each halving), so every held point stands for the same
number of raw points and memory stays below ``cap`` points forever.

Combining is either ``"mean"`` (loss, accuracy, throughput: NaN propagates, so a
diverged loss stays visible as a gap) or ``"last"`` (loss scale: a step function,
where an average would draw scales that never existed). The x of a combined point
is the x of its last member. NumPy only: no Qt here.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

CombineMode = Literal["mean", "last"]
DEFAULT_CAP = 100_000
MARKER_CAP = 4_096
_INITIAL_CAPACITY = 1_024


class ChartBuffer:
    """Points appended in x order; ``view()`` returns what is held, without copying."""

    def __init__(self, mode: CombineMode = "mean", cap: int = DEFAULT_CAP) -> None:
        if mode not in ("mean", "last"):
            raise ValueError(f"combine mode must be 'mean' or 'last', got {mode!r}")
        if cap < 4:
            raise ValueError(f"cap must be at least 4 points, got {cap}")
        self.mode: CombineMode = mode
        self.cap = cap - cap % 2  # even, so a full buffer halves into whole pairs
        self.version = 0  # bumped on every change: a chart redraws a curve only when it moved
        self._reset()

    def _reset(self) -> None:
        self.stride = 1  # raw points per held point
        self.raw_count = 0  # raw points ever appended
        self._n = 0  # complete held points
        self._x = np.empty(min(_INITIAL_CAPACITY, self.cap))
        self._y = np.empty_like(self._x)
        # The group being combined (stride > 1): raw points seen so far of the next held point.
        self._pending = 0
        self._pending_sum = 0.0
        self._pending_x = 0.0
        self._pending_y = 0.0
        self._forget_bounds()

    def _forget_bounds(self) -> None:
        self._bounds_n = 0  # complete points that _lo/_hi cover
        self._lo, self._hi = math.inf, -math.inf

    # -------------------------------------------------------------- reading
    def __len__(self) -> int:
        """Points held (a partly combined group counts as one: it is drawn)."""
        return self._n + (1 if self._pending else 0)

    def view(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of every held point, oldest first: slices of the buffer, not copies.

        A partly filled group is shown as its running combination, so the newest
        sample is always on screen even when ``stride`` is large."""
        n = self._n
        if self._pending:
            self._x[n] = self._pending_x
            self._y[n] = self._pending_combined()
            n += 1
        return self._x[:n], self._y[:n]

    def bounds(self) -> tuple[float, float] | None:
        """(min, max) of the finite y held, or None: kept up to date incrementally,
        so a chart can place its range every frame without a pass over the data."""
        if self._bounds_n < self._n:
            new = self._y[self._bounds_n:self._n]
            finite = new[np.isfinite(new)]
            if len(finite):
                self._lo = min(self._lo, float(finite.min()))
                self._hi = max(self._hi, float(finite.max()))
            self._bounds_n = self._n
        lo, hi = self._lo, self._hi
        if self._pending:
            value = self._pending_combined()
            if math.isfinite(value):
                lo, hi = min(lo, value), max(hi, value)
        return (lo, hi) if lo <= hi else None

    def last(self) -> tuple[float, float] | None:
        x, y = self.view()
        return (float(x[-1]), float(y[-1])) if len(x) else None

    # -------------------------------------------------------------- writing
    def append(self, x: float, y: float) -> None:
        self.extend(np.array([x], dtype=float), np.array([y], dtype=float))

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """Append many points at once (vectorised: a batch of events costs one call)."""
        xs = np.asarray(xs, dtype=float)
        ys = np.asarray(ys, dtype=float)
        if xs.shape != ys.shape or xs.ndim != 1:
            raise ValueError(f"x and y must be 1-d and the same length: {xs.shape}, {ys.shape}")
        if not len(xs):
            return
        self.version += 1
        self.raw_count += len(xs)
        i = 0
        while i < len(xs):
            i += self._fill_pending(xs[i:], ys[i:]) if self.stride > 1 else 0
            if i >= len(xs):
                break
            i += self._write_groups(xs[i:], ys[i:])
            if self._n == self.cap:
                self._halve()

    def clear(self) -> None:
        self._reset()
        self.version += 1

    # ------------------------------------------------------------ internals
    def _pending_combined(self) -> float:
        return self._pending_sum / self._pending if self.mode == "mean" else self._pending_y

    def _fill_pending(self, xs: np.ndarray, ys: np.ndarray) -> int:
        """Complete a partly filled group from the front of ``xs``; returns points used."""
        if not self._pending:
            return 0
        take = min(self.stride - self._pending, len(xs))
        self._add_to_pending(xs[:take], ys[:take])
        if self._pending == self.stride:
            self._store(self._pending_x, self._pending_combined())
            self._pending = 0
            self._pending_sum = 0.0
        return take

    def _add_to_pending(self, xs: np.ndarray, ys: np.ndarray) -> None:
        self._pending += len(xs)
        self._pending_sum += float(ys.sum())  # NaN in, NaN out
        self._pending_x = float(xs[-1])
        self._pending_y = float(ys[-1])

    def _write_groups(self, xs: np.ndarray, ys: np.ndarray) -> int:
        """Whole groups from ``xs`` into the arrays (up to the cap), a tail into pending."""
        s = self.stride
        groups = min(len(xs) // s, self.cap - self._n)
        used = groups * s
        if groups:
            self._ensure_capacity(self._n + groups + 1)  # +1: room for the pending point
            end = self._n + groups
            if s == 1:
                self._x[self._n:end] = xs[:used]
                self._y[self._n:end] = ys[:used]
            else:
                self._x[self._n:end] = xs[s - 1:used:s]
                self._y[self._n:end] = self._combine(ys[:used].reshape(groups, s))
            self._n = end
        if self._n < self.cap and used < len(xs) < used + s:  # a short tail: start a group
            self._add_to_pending(xs[used:], ys[used:])
            return len(xs)
        return used

    def _combine(self, groups: np.ndarray) -> np.ndarray:
        return groups.mean(axis=1) if self.mode == "mean" else groups[:, -1]

    def _store(self, x: float, y: float) -> None:
        self._ensure_capacity(self._n + 2)
        self._x[self._n] = x
        self._y[self._n] = y
        self._n += 1
        if self._n == self.cap:
            self._halve()

    def _ensure_capacity(self, needed: int) -> None:
        if needed <= len(self._x):
            return
        size = len(self._x)
        while size < needed:
            size *= 2
        size = min(size, self.cap + 1)
        self._x = _grown(self._x, size, self._n)
        self._y = _grown(self._y, size, self._n)

    def _halve(self) -> None:
        """Combine neighbouring pairs. Fresh arrays: a chart may still draw the old ones."""
        n = self._n
        x = np.empty_like(self._x)
        y = np.empty_like(self._y)
        x[: n // 2] = self._x[1:n:2]
        pairs = self._y[:n].reshape(n // 2, 2)
        y[: n // 2] = pairs.mean(axis=1) if self.mode == "mean" else pairs[:, 1]
        self._x, self._y = x, y
        self._n = n // 2
        self.stride *= 2
        self._forget_bounds()  # means of pairs may not reach the old extremes


class MarkerList(ChartBuffer):
    """Sparse markers (overflow steps) at (x, y), bounded like a buffer: when full, the
    later of each pair is kept. ``total`` counts every marker ever added."""

    def __init__(self, cap: int = MARKER_CAP) -> None:
        super().__init__("last", cap)

    @property
    def total(self) -> int:
        return self.raw_count


def _grown(a: np.ndarray, size: int, filled: int) -> np.ndarray:
    out = np.empty(size, dtype=a.dtype)
    out[:filled] = a[:filled]
    return out
