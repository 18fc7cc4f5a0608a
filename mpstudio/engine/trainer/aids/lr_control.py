"""The learning rate of a run whose rate changes while it trains.

A warmup alone is Keras' own schedule (precision.learning_rate), which needs no
Python per step. Reduce-on-plateau must set the rate, and a schedule cannot be
set, so such runs get a plain rate variable: the warmup is then assigned before
each warmup step from the same LearningRatePlan (nothing per step after it), and
a plateau multiplies everything that follows by its factor.
"""

from __future__ import annotations

import keras

from mpstudio.engine.distribute.lr_plan import LearningRatePlan


class LearningRateControl:
    def __init__(self, optimizer: keras.Optimizer, plan: LearningRatePlan):
        self.optimizer = optimizer
        self.plan = plan
        self.factor = 1.0  # product of the plateau reductions so far
        self._warming = plan.warmup_steps > 0
        if self._warming:
            self._set(plan.rate_at(0))

    @property
    def rate(self) -> float:
        return float(self.optimizer.learning_rate.numpy())

    def before_step(self, steps_done: int) -> None:
        """Called before each training step with the steps done so far."""
        if not self._warming:
            return
        self._set(self.plan.rate_at(steps_done) * self.factor)
        self._warming = steps_done < self.plan.warmup_steps

    def reduce(self, factor: float, floor: float) -> tuple[float, float] | None:
        """Multiply the rate by ``factor``, not below ``floor``. Returns (old, new), or
        None when it is at the floor already."""
        old = self.plan.target * self.factor
        new = max(old * factor, floor)
        if new >= old:
            return None
        self.factor = new / self.plan.target
        if not self._warming:
            self._set(new)
        return old, new

    def _set(self, value: float) -> None:
        self.optimizer.learning_rate.assign(value)
