"""Early stopping, reduce-learning-rate-on-plateau and the best-epoch checkpoint,
for both training loops (and under tf.distribute), decided at each epoch's end.

They follow Keras' callbacks of the same names (a strict improvement; patience in
epochs; ``restore_best_weights``) but live in the engine: the custom loop has no
callbacks, and every decision becomes an AidAction event the GUI, the CLI and the
history see. The best epoch's weights are a copy of the model's variables, which
are float32 under every policy (mixed policies compute in 16 bits, keep float32).
"""

from __future__ import annotations

import dataclasses
import math

import keras
import numpy as np

from mpstudio.engine.events import AidAction, EpochMetrics, Reporter, RunSummary
from mpstudio.engine.i18n import N_, _, ngettext
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import TrainingAids
from mpstudio.engine.trainer.aids.lr_control import LearningRateControl
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.run_setup import PreparedRun

MONITOR_NAMES = {"val_loss": N_("validation loss"), "val_accuracy": N_("validation accuracy"),
                 "loss": N_("training loss"), "accuracy": N_("training accuracy")}


def monitored(epoch: EpochMetrics, monitor: str) -> float | None:
    value = getattr(epoch, monitor, None)
    return None if value is None or not math.isfinite(value) else float(value)


class EpochAids(TrainingAid):
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

    @classmethod
    def attach(cls, run: PreparedRun) -> EpochAids:
        """Always attached: early stopping, the plateau and the checkpoint each read
        their own switch at every epoch's end."""
        lr_control = None
        if run.spec.aids.reduce_lr_on_plateau:
            lr_control = LearningRateControl(run.optimizer, run.plan)
            run.monitor.before_step_hooks.append(lr_control.before_step)
        aids = cls(run.spec.aids, run.model, run.reporter, lr_control)
        run.monitor.epoch_hooks.append(aids.epoch_end)
        run.monitor.stop_checks.append(lambda: aids.stop)
        return aids

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        """Puts the best weights back where an aid asks for them (before the test split
        and the example hits see the model), and says what the aids did."""
        kept_epoch = self.finish(status)
        return dataclasses.replace(summary, aids=self.describe(kept_epoch, summary.epochs_done),
                                   kept_epoch=kept_epoch)

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
        watched = _(MONITOR_NAMES[self.aids.monitor])
        if self._improved(value):
            previous = self.best
            self.best, self.best_epoch = value, epoch.epoch
            self._since_best = self._since_best_or_cut = 0
            if self.keeps_best:
                self.best_weights = [w.copy() for w in self.model.get_weights()]
            if self.aids.best_checkpoint:
                text = (_("epoch {epoch} is the best so far ({value}): its weights are the "
                          "ones kept") if previous is None else
                        _("epoch {epoch} is the best so far ({value}, was {previous:.4g}): its "
                          "weights are the ones kept"))
                self._emit(epoch, "best_checkpoint", text.format(
                    epoch=epoch.epoch, value=name, previous=previous), value)
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
                self._emit(epoch, "reduce_lr", ngettext(
                    "learning rate {old:.3g} -> {new:.3g}: {watched} has not improved for "
                    "{epochs} epoch (best {best:.4g} at epoch {best_epoch})",
                    "learning rate {old:.3g} -> {new:.3g}: {watched} has not improved for "
                    "{epochs} epochs (best {best:.4g} at epoch {best_epoch})",
                    self.aids.lr_patience).format(
                        old=old, new=new, watched=watched, epochs=self.aids.lr_patience,
                        best=self.best, best_epoch=self.best_epoch), new)
        if self.aids.early_stopping and self._since_best >= self.aids.patience:
            self.stop = True
            self.stopped_epoch = epoch.epoch
            text = ngettext(
                "stopped after epoch {epoch}: {watched} has not improved for {epochs} epoch "
                "(best {best:.4g} at epoch {best_epoch})",
                "stopped after epoch {epoch}: {watched} has not improved for {epochs} epochs "
                "(best {best:.4g} at epoch {best_epoch})", self.aids.patience).format(
                    epoch=epoch.epoch, watched=watched, epochs=self.aids.patience,
                    best=self.best, best_epoch=self.best_epoch)
            if self.aids.restore_best_weights:
                text = _("{stopped}; restoring epoch {epoch}'s weights").format(
                    stopped=text, epoch=self.best_epoch)
            self._emit(epoch, "early_stopping", text, self.best)

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
        """What the aids did, in one line for the run's summary ("" when none acted; a
        ``Said``, which the summary keeps as its message)."""
        parts: list[Said] = []
        if self.stopped_epoch is not None:
            parts.append(said(N_("stopped early after epoch {epoch} ({monitor} stopped "
                                 "improving)"), epoch=self.stopped_epoch,
                              monitor=self.aids.monitor))
        if self.reductions:
            cuts = [said(N_("{rate} (epoch {epoch})"), rate=f"{rate:.3g}", epoch=e)
                    for e, rate in self.reductions]
            rates = cuts[0]
            for cut in cuts[1:]:
                rates = said(N_("{first}, {then}"), first=rates, then=cut)
            parts.append(said(N_("learning rate cut to {rates}"), rates=rates))
        if kept_epoch is not None:
            parts.append(said(N_("kept epoch {epoch}'s weights ({monitor} {value}) of "
                                 "{epochs}"), epoch=kept_epoch, monitor=self.aids.monitor,
                              value=f"{self.best:.4g}", epochs=epochs_done))
        if not parts:
            return ""
        text = parts[0]
        for part in parts[1:]:
            text = said(N_("{first}; {then}"), first=text, then=part)
        return text

    def _emit(self, epoch: EpochMetrics, aid: str, message: str, value: float | None) -> None:
        self.reporter.emit(AidAction(epoch.steps, epoch.epoch, aid, message, value))

