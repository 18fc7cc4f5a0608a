"""The first stage of a run attempt: everything decided and built before it trains,
and the RunStarted event that announces it.

``prepare`` raises (SpecError, RunSetupError, DataLoadStopped) before any event;
``announce`` then emits the run's warnings and its RunStarted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import keras
import numpy as np

from mpstudio.engine import device_info
from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.registry import display_name
from mpstudio.engine.device_info import MemoryMeter, RunDevices
from mpstudio.engine.distribute.lr_plan import LearningRatePlan, describe_batch
from mpstudio.engine.distribute.placement import Placement
from mpstudio.engine.events import Reporter, RunStarted, RunWarning
from mpstudio.engine.float8 import FLOAT8, float8_warnings, run_device_problem
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.initial_weights import weights_hash
from mpstudio.engine.memory_estimate import MemoryEstimate, run_estimate
from mpstudio.engine.model_summary import ModelSummary, describe_model
from mpstudio.engine.precision import loss_scaling_note
from mpstudio.engine.said import said
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import validate_spec
from mpstudio.engine.trainer.custom_loop import CustomLoop
from mpstudio.engine.trainer.fragile_layers import fragile_patterns
from mpstudio.engine.trainer.monitor import AUTO_MIN_SAMPLE_INTERVAL, RunMonitor, auto_log_every
from mpstudio.engine.trainer.run_context import hardware_snapshot
from mpstudio.engine.trainer.run_inputs import (
    RunSetupError,
    build_compiled_model,
    place_run,
    prepare_data,
)
from mpstudio.engine.trainer.state_reader import StateReader, fit_running_means
from mpstudio.engine.trainer.weights_check import WeightsCheck
from mpstudio.engine.trainer.xla_decision import XlaDecision

# One logger for every stage of a run: its lines read "mpstudio.engine.trainer.runner" in
# the log, as they always have (people grep for it).
run_log = logging.getLogger("mpstudio.engine.trainer.runner")

if TYPE_CHECKING:
    from mpstudio.engine.hardware.report import CpuInfo


@dataclass(frozen=True)
class RunPlace:
    """Where a run sits: alone, or as trial ``trial`` of ``trials`` on one side
    (``role`` baseline or mixed) of the comparison ``comparison``."""

    role: str = "single"
    trial: int = 1
    trials: int = 1
    comparison: str | None = None


@dataclass(frozen=True)
class AttemptRequest:
    """What run()'s caller asks of one attempt besides its spec (runner.run says what
    each means)."""

    initial_weights: list[np.ndarray] | None = None
    place: RunPlace = field(default_factory=RunPlace)
    sample_at: Sequence[int] | None = None
    callbacks: Sequence[keras.callbacks.Callback] = ()
    oom_retries: int = 0  # out-of-memory attempts before this one
    profile_steps: int = 0


@dataclass
class PreparedRun:
    """A run attempt ready to train: what the later stages and the aids work with."""

    spec: RunSpec
    request: AttemptRequest
    reporter: Reporter  # where events go; an aid may reroute them (route_events)
    placement: Placement
    devices: RunDevices
    bundle: DataBundle
    plan: LearningRatePlan
    memory: MemoryMeter  # started before the model was built
    model: keras.Model
    optimizer: keras.Optimizer
    xla: XlaDecision
    loop: CustomLoop | None  # None: Keras fit
    monitor: RunMonitor
    label: str
    total_steps: int
    epochs: int
    model_summary: ModelSummary
    estimate: MemoryEstimate | None
    distribution: str
    warnings: list[str]
    start_weights: list[np.ndarray]  # the weights before training (for comparisons)
    start_hash: str  # kept with the run: a replay checks it

    @property
    def loop_name(self) -> str:
        return "fit" if self.loop is None else "custom"

    def route_events(self, reporter: Reporter) -> None:
        """Every later event, the monitor's included, goes to ``reporter`` (which passes
        it on to the reporter it wraps)."""
        self.reporter = self.monitor.reporter = reporter


def device_warnings(spec: RunSpec, devices: RunDevices, cpu: CpuInfo | None = None
                    ) -> list[str]:
    """Warnings about the precision on the run's device (the advisor gives the full
    picture). ``cpu``: this machine's (default: detected); a CPU with the half type's
    own instructions (AMX, AVX512-FP16) is not told it has none, nor one whose flags
    the OS does not give."""
    if spec.precision == "float32" or not devices.half_precision_is_slow:
        return []
    if cpu is None:
        from mpstudio.engine.hardware.detect_cpu import detect_cpu

        cpu = detect_cpu()
    if not cpu.flags_known or cpu.native_half(spec.precision):
        return []
    warnings = [_(
        "{precision} on a CPU: this processor has no fast half-precision math, so expect "
        "it to be slower than float32 here; mixed precision pays off on GPUs with Tensor "
        "Cores and on TPUs").format(precision=spec.precision)]
    if spec.precision == "mixed_float16":  # Eigen's float16 kernels (batch_search: measured)
        warnings.append(_(
            "mixed_float16 on this CPU can also need more memory than float32, not less: "
            "TensorFlow multiplies float16 through float32 copies of each product's operands "
            "(a batch that fits in float32 may not fit here)"))
    return warnings


def run_label(spec: RunSpec, devices: RunDevices, place: RunPlace) -> str:
    """What the run computed in ("float32 (TF32)" on Ampere and newer), its role in a
    comparison and its trial: how charts, lists, cards and reports name it."""
    label = device_info.precision_label(spec.precision, devices.float32_math)
    if spec.float32_layers and spec.precision != "float32":
        label += " · float32 " + ", ".join(spec.float32_layers)  # the pinned layers
    if place.role in ("baseline", "speed_baseline"):
        label += " baseline"
    if place.role.startswith("speed_"):  # trainer/speed_pair.py
        label += f" · speed at batch {spec.batch_size:,}"
    return f"{label} · trial {place.trial}/{place.trials}" if place.trials > 1 else label


def describe_distribution(spec: RunSpec, placement: Placement,
                          plan: LearningRatePlan) -> str:
    """One sentence for the run's start and summary (a ``Said``: the summary keeps it as
    its message); empty for a plain one-device run that changes nothing."""
    if placement.name == "default" and not plan.warmup_steps:
        return ""
    parts = [placement.describe(capital=True),
             describe_batch(spec.batch_size, placement.replicas), plan.describe()]
    if placement.name == "multiworker":
        parts.append(said(N_("custom training loop (Keras 3 fit() fails under "
                             "MultiWorkerMirroredStrategy)")))
    text = parts[0]
    for part in parts[1:]:
        text = said(N_("{first}; {then}"), first=text, then=part)
    return text


def prepare(spec: RunSpec, reporter: Reporter, request: AttemptRequest) -> PreparedRun:
    warnings = validate_spec(spec)
    placement = place_run(spec)  # first: a multi-worker strategy must precede any op
    devices = device_info.run_devices(placement)
    if spec.precision == FLOAT8:
        problem = run_device_problem(devices)
        if problem:
            raise RunSetupError(problem)
    warnings += device_warnings(spec, devices)
    keras.utils.set_random_seed(spec.seed)  # weights, dropout and shuffle order
    bundle = prepare_data(spec, reporter, placement.replicas)
    plan = LearningRatePlan(spec.learning_rate, placement.replicas,
                            spec.distribute.lr_scaling, spec.warmup_steps)
    memory = device_info.MemoryMeter(devices).start()
    model, optimizer, xla = build_compiled_model(spec, bundle, request.initial_weights,
                                                 placement, plan, devices)
    if xla.overruled:
        warnings.append(_("XLA was asked for (xla = {xla}) but this run trains without it: "
                          "{why}").format(xla=spec.xla, why=xla.why))
    if spec.precision == "mixed_float16":
        warnings += fragile_patterns(model)
    if spec.precision == FLOAT8:
        warnings += float8_warnings(model, xla.on)
    distribution = describe_distribution(spec, placement, plan)
    start_weights = [w.copy() for w in model.get_weights()]
    start_hash = weights_hash(model, start_weights)
    label = run_label(spec, devices, request.place)
    total_steps = spec.steps or spec.epochs * bundle.steps_per_epoch
    model_summary = describe_model(model, spec.precision, spec.batch_size)
    estimate = run_estimate(model, optimizer, spec, devices.kind)  # shown, kept with the run
    if estimate is not None:
        model_summary = dataclasses.replace(model_summary, memory=(estimate,))

    # Keras 3 fit() fails under MultiWorkerMirroredStrategy: the custom loop runs there.
    loop = None
    if spec.loop == "custom" or placement.name == "multiworker":
        with placement.strategy.scope() if placement.strategy else contextlib.nullcontext():
            loop = CustomLoop(model, optimizer, xla.on, placement.strategy, bundle.batch_size)
    monitor = RunMonitor(
        spec=spec,
        reporter=reporter,
        state=StateReader(loop.running_means if loop else fit_running_means(model), optimizer),
        steps_per_epoch=bundle.steps_per_epoch,
        total_steps=total_steps,
        log_every=spec.log_every_steps or auto_log_every(bundle.steps_per_epoch),
        label=label,
        # Automatic sampling also keeps 50 ms between samples: each sample waits for
        # the device, and tiny steps on a GPU would otherwise lose asynchronous dispatch.
        # Not across workers: a sample reads metrics in a collective every worker must
        # join at the same step, so their schedule cannot depend on a clock.
        min_sample_interval=0.0 if spec.log_every_steps or placement.cluster
        else AUTO_MIN_SAMPLE_INTERVAL,
        schedule=frozenset(request.sample_at) if request.sample_at is not None else None,
        global_batch=bundle.batch_size,
        # The loss alone can stay finite over NaN weights (a fused kernel): each epoch's
        # end and the run's end check the weights too.
        weights_check=WeightsCheck(model, placement.strategy).first_nonfinite,
    )
    return PreparedRun(
        spec=spec, request=request, reporter=reporter, placement=placement, devices=devices,
        bundle=bundle, plan=plan, memory=memory, model=model, optimizer=optimizer, xla=xla,
        loop=loop, monitor=monitor, label=label, total_steps=total_steps,
        epochs=math.ceil(total_steps / bundle.steps_per_epoch), model_summary=model_summary,
        estimate=estimate, distribution=distribution, warnings=warnings,
        start_weights=start_weights, start_hash=start_hash)


def announce(run: PreparedRun) -> None:
    """The run's warnings, then its RunStarted."""
    spec, place = run.spec, run.request.place
    for message in run.warnings:
        run.reporter.emit(RunWarning(message))
    run_log.info("%s started: %s on %s, %s, %d steps", run.label, spec.template, run.devices.label,
             display_name(spec.dataset), run.total_steps)
    if run_log.isEnabledFor(logging.DEBUG):  # not a dict per run when nobody reads it
        run_log.debug("%s spec: %s", run.label, spec.to_dict())
    run.reporter.emit(
        RunStarted(
            label=run.label,
            spec=spec.to_dict(),
            hardware=hardware_snapshot(spec.precision, run.devices),
            model=run.model_summary,
            dataset=run.bundle.summary(),
            steps_per_epoch=run.bundle.steps_per_epoch,
            total_steps=run.total_steps,
            log_every_steps=run.monitor.log_every,
            xla=run.xla.on,
            xla_note=run.xla.note,
            loss_scaling=loss_scaling_note(spec),
            data_report=run.bundle.report,
            role=place.role,
            trial=place.trial,
            trials=place.trials,
            comparison=place.comparison,
            distribution=run.distribution,
            initial_weights_hash=run.start_hash,
        )
    )
