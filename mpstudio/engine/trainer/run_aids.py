"""The training aids of one run attempt, hooked into its monitor: epoch aids (early
stopping, plateau, best checkpoint), the warmup/plateau learning-rate control,
injected Keras callbacks, the gradient-underflow probe; and the words for what went
wrong (a numerics diagnosis, an out-of-memory reason)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import keras

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.distribute.lr_plan import LearningRatePlan
from mpstudio.engine.distribute.placement import Placement
from mpstudio.engine.events import NumericsDiagnosis, Reporter, RunWarning
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.epoch_aids import EpochAids
from mpstudio.engine.trainer.lr_control import LearningRateControl
from mpstudio.engine.trainer.monitor import Divergence, RunMonitor, describe_layer
from mpstudio.engine.trainer.numerics import diagnose
from mpstudio.engine.trainer.oom_retry import failed_allocation
from mpstudio.engine.trainer.underflow import UnderflowProbe


def run_folder_of(reporter: Reporter) -> Path | None:
    """The recorded run's own folder (RecordingReporter knows it), else None."""
    folder = getattr(reporter, "run_folder", None)
    return folder() if callable(folder) else None


@dataclass
class RunAids:
    epochs: EpochAids
    underflow: UnderflowProbe | None


def hook_aids(spec: RunSpec, model: keras.Model, optimizer: keras.Optimizer,
              plan: LearningRatePlan, monitor: RunMonitor, reporter: Reporter,
              bundle: DataBundle, placement: Placement, custom_loop: bool,
              callbacks: Sequence[keras.callbacks.Callback]) -> RunAids:
    """Hook the run's training aids (and injected callbacks) into the monitor."""
    lr_control = None
    if spec.aids.reduce_lr_on_plateau:
        lr_control = LearningRateControl(optimizer, plan)
        monitor.before_step_hooks.append(lr_control.before_step)
    epochs = EpochAids(spec.aids, model, reporter, lr_control)
    monitor.epoch_hooks.append(epochs.epoch_end)
    monitor.stop_checks.append(lambda: epochs.stop)
    if custom_loop:  # fit calls them itself
        for callback in callbacks:
            callback.set_model(model)
            monitor.before_step_hooks.append(callback.on_train_batch_begin)
    probe = None
    if spec.aids.underflow_every and spec.precision == "mixed_float16":
        if placement.strategy is not None:
            reporter.emit(RunWarning(_("the gradient-underflow view samples one device's "
                                       "gradients and is off under a tf.distribute "
                                       "strategy")))
        else:
            batch = next(iter(bundle.train))
            probe = UnderflowProbe(model, keras.losses.SparseCategoricalCrossentropy(), batch,
                                   spec.aids.underflow_every, reporter, monitor.state.scale)
            monitor.after_step_hooks.append(probe.after_step)
    return RunAids(epochs, probe)


def diagnose_divergence(model: keras.Model, bundle: DataBundle, divergence: Divergence,
                        reporter: Reporter) -> NumericsDiagnosis | None:
    try:
        found = diagnose(model, iter(bundle.train), keras.losses.SparseCategoricalCrossentropy(),
                         divergence.loss_scale, divergence.step)
    except Exception as exc:  # a diagnosis must never hide the failure it explains
        reporter.emit(RunWarning(_("the numerics diagnosis failed: {error}").format(
            error=f"{type(exc).__name__}: {exc}")))
        return None
    reporter.emit(found)
    return found


def weights_diagnosis(divergence: Divergence) -> NumericsDiagnosis:
    """The diagnosis of a run whose weights turned non-finite behind a finite loss: the
    weights check already named the layer (no step is re-run)."""
    found = divergence.weight
    assert found is not None
    return NumericsDiagnosis(
        divergence.step, found.layer, found.dtype, "weights", said(N_(
            "{layer} has non-finite weights ({weight}) behind a finite loss: a fused kernel "
            "(such as MatMul+BiasAdd+ReLU) can turn a NaN output into 0, so only the "
            "weights show it"), layer=describe_layer(found), weight=found.weight))


def oom_reason(spec: RunSpec, placement: Placement, params: int, what: str, message: str,
               peak: int | None) -> Said:
    """``what``: what ran out, in words (oom_retry.out_of_memory); ``message``:
    TensorFlow's own, which may name the allocation that failed. A ``Said``: the
    history keeps it as its message."""
    tried = failed_allocation(message)
    found = said(N_("it could not allocate {tensor}"), tensor=tried) if tried else what
    if peak:
        found = said(N_("{what} and {peak} MiB were in use at the peak"), what=found,
                     peak=f"{peak / 2**20:,.0f}")
    batch = (said(N_("{batch} per replica"), batch=spec.batch_size) if placement.replicas > 1
             else str(spec.batch_size))
    return said(N_("out of memory at batch size {batch} ({params} parameters, {precision}; "
                   "{found}): lower the batch size, or use mixed precision to halve "
                   "activation memory"), batch=batch, params=f"{params:,}",
                precision=spec.precision, found=found)
