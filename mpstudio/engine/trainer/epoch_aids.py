"""Early stopping, reduce-learning-rate-on-plateau and the best-epoch checkpoint,
for both training loops (and under tf.distribute), decided at each epoch's end.

They follow Keras' callbacks of the same names (a strict improvement; patience in
epochs; ``restore_best_weights``) but live in the engine: the custom loop has no
callbacks, and every decision becomes an AidAction event the GUI, the CLI and the
history see. The best epoch's weights are a copy of the model's variables, which
are float32 under every policy (mixed policies compute in 16 bits, keep float32).
"""

from __future__ import annotations

import math

import keras
import numpy as np

from mpstudio.engine.events import AidAction, EpochMetrics, Reporter
from mpstudio.engine.spec import TrainingAids
from mpstudio.engine.trainer.lr_control import LearningRateControl

MONITOR_NAMES = {"val_loss": "validation loss", "val_accuracy": "validation accuracy",
                 "loss": "training loss", "accuracy": "training accuracy"}


def monitored(epoch: EpochMetrics, monitor: str) -> float | None:
    value = getattr(epoch, monitor, None)
    return None if value is None or not math.isfinite(value) else float(value)


class EpochAids:
    def __init__(self, aids: TrainingAids, model: keras.Model, reporter: Reporter,
                 lr: LearningRateControl | None):
        self.aids = aids
        self.model = model
        self.reporter = reporter
        self.lr = lr
        self.higher_is_better = aids.monitor.endswith("accuracy")
        self.best: float | None = None
        self.best_epoch: int | None = None
        self.best_weights: list[np.ndarray] | None = None
        self.stop = False  # early stopping asks the loop to stop
        self.stopped_epoch: int | None = None
        self.reductions: list[tuple[int, float]] = []  # (epoch, new rate)
        self._since_best = 0
        self._since_best_or_cut = 0  # the plateau's own wait restarts after a cut

    @property
    def keeps_best(self) -> bool:
        return self.aids.best_checkpoint or (
            self.aids.early_stopping and self.aids.restore_best_weights)

    def _improved(self, value: float) -> bool:
        if self.best is None:
            return True
        return value > self.best if self.higher_is_better else value < self.best

    def epoch_end(self, epoch: EpochMetrics, partial: bool = False) -> None:
        """``partial``: a user stop cut the epoch short; it is not judged."""
        value = monitored(epoch, self.aids.monitor)
        if value is None or partial or not self.aids.watches_monitor:
            return
        name = f"{self.aids.monitor} {value:.4g}"
        if self._improved(value):
            previous = self.best
            self.best, self.best_epoch = value, epoch.epoch
            self._since_best = self._since_best_or_cut = 0
            if self.keeps_best:
                self.best_weights = [w.copy() for w in self.model.get_weights()]
            if self.aids.best_checkpoint:
                before = "" if previous is None else f", was {previous:.4g}"
                self._emit(epoch, "best_checkpoint", f"epoch {epoch.epoch} is the best so far "
                           f"({name}{before}): its weights are the ones kept", value)
            return
        self._since_best += 1
        self._since_best_or_cut += 1
        if self.aids.reduce_lr_on_plateau and self.lr is not None \
                and self._since_best_or_cut >= self.aids.lr_patience:
            self._since_best_or_cut = 0
            cut = self.lr.reduce(self.aids.lr_factor, self.aids.min_learning_rate)
            if cut is not None:
                old, new = cut
                self.reductions.append((epoch.epoch, new))
                self._emit(epoch, "reduce_lr", f"learning rate {old:.3g} -> {new:.3g}: "
                           f"{MONITOR_NAMES[self.aids.monitor]} has not improved for "
                           f"{_epochs(self.aids.lr_patience)} (best {self.best:.4g} at epoch "
                           f"{self.best_epoch})", new)
        if self.aids.early_stopping and self._since_best >= self.aids.patience:
            self.stop = True
            self.stopped_epoch = epoch.epoch
            restore = (f"; restoring epoch {self.best_epoch}'s weights"
                       if self.aids.restore_best_weights else "")
            self._emit(epoch, "early_stopping", f"stopped after epoch {epoch.epoch}: "
                       f"{MONITOR_NAMES[self.aids.monitor]} has not improved for "
                       f"{_epochs(self.aids.patience)} (best {self.best:.4g} at epoch "
                       f"{self.best_epoch}){restore}", self.best)

    def finish(self, status: str) -> int | None:
        """At the end of a finished or stopped run: put the best weights back where an
        aid asks for them. Returns the epoch whose weights the model now holds (None:
        the last one's)."""
        if status not in ("finished", "stopped") or self.best_weights is None:
            return None
        restore = self.aids.best_checkpoint or (self.stop and self.aids.restore_best_weights)
        if not restore:
            return None
        self.model.set_weights(self.best_weights)
        return self.best_epoch

    def describe(self, kept_epoch: int | None, epochs_done: int) -> str:
        """What the aids did, in one line for the run's summary ("" when none acted)."""
        parts = []
        if self.stopped_epoch is not None:
            parts.append(f"stopped early after epoch {self.stopped_epoch} "
                         f"({self.aids.monitor} stopped improving)")
        if self.reductions:
            rates = ", ".join(f"{rate:.3g} (epoch {e})" for e, rate in self.reductions)
            parts.append(f"learning rate cut to {rates}")
        if kept_epoch is not None:
            parts.append(f"kept epoch {kept_epoch}'s weights ({self.aids.monitor} "
                         f"{self.best:.4g}) of {epochs_done}")
        return "; ".join(parts)

    def _emit(self, epoch: EpochMetrics, aid: str, message: str, value: float | None) -> None:
        self.reporter.emit(AidAction(epoch.steps, epoch.epoch, aid, message, value))


def _epochs(n: int) -> str:
    return f"{n} epoch" if n == 1 else f"{n} epochs"
