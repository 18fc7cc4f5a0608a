"""The one protocol every training aid follows, and the aids of one attempt together.

A run attempt goes prepare -> attach the aids -> train -> conclude (runner._attempt).
An aid is whatever rides along that: TensorBoard logs, the op profile, early stopping,
the underflow watch, the test split's evaluation... Each is a subclass of
``TrainingAid`` in a module of its own, listed once in ``registry.AIDS``; the runner
never names one. Every hook but ``attach`` is optional (a no-op here):

- ``attach(run)``: once the run has announced itself (RunStarted), hook into
  ``run.monitor`` where the aid needs to, and return the aid, or None when it is off
  for this run. Events go to ``run.reporter``; an aid that must see every later event
  reroutes them with ``run.route_events`` (TensorBoard, attached first).
- ``callbacks()``: Keras callbacks to add. fit runs them; the custom loop has no
  callback points but one: each one's ``on_train_batch_begin`` before every step.
- ``training_ended()``: right after training, however it ended (a ``finally``): stop
  whatever watches training before anything is measured or re-run.
- ``conclude(summary, status)``: the aid's part of the RunSummary, once the status
  (finished, stopped, diverged, failed) is known; aids conclude in registry order.
- ``close()``: after the run's last event.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras

from mpstudio.engine.events import RunSummary
from mpstudio.engine.trainer.run_setup import PreparedRun


class TrainingAid:
    @classmethod
    def attach(cls, run: PreparedRun) -> TrainingAid | None:
        raise NotImplementedError(f"{cls.__name__} does not say how it attaches")

    def callbacks(self) -> Sequence[keras.callbacks.Callback]:
        return ()

    def training_ended(self) -> None:
        return None

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        return summary

    def close(self) -> None:
        return None


class AttachedAids:
    """The aids attached to one attempt, with the caller's own callbacks (run()'s
    ``callbacks``), which come before the aids'."""

    def __init__(self, aids: Sequence[TrainingAid],
                 extra_callbacks: Sequence[keras.callbacks.Callback] = ()) -> None:
        self.aids = tuple(aids)
        self.callbacks = [*extra_callbacks,
                          *(callback for aid in self.aids for callback in aid.callbacks())]

    def hook_into_custom_loop(self, run: PreparedRun) -> None:
        """The custom loop calls no callbacks itself: the monitor calls each one's
        batch begin before every step (fit calls them all)."""
        for callback in self.callbacks:
            callback.set_model(run.model)
            run.monitor.before_step_hooks.append(callback.on_train_batch_begin)

    def training_ended(self) -> None:
        for aid in self.aids:
            aid.training_ended()

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        for aid in self.aids:
            summary = aid.conclude(summary, status)
        return summary

    def close(self) -> None:
        for aid in self.aids:
            aid.close()
