"""One training run: RunSpec in, events out, RunResult back.

Problems with the spec itself (bad values, a dataset that does not fit the
template) raise SpecError before anything trains; data or a model that cannot
be set up raises RunSetupError. Anything that goes wrong while training (out of
memory, a diverged loss, an unexpected error) ends the run with a RunFailed
event carrying a readable reason and what was measured.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import warnings as python_warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine import device_info
from mpstudio.engine.datasets import load_dataset
from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, DataLoadStopped, DownloadError
from mpstudio.engine.datasets.registry import display_name
from mpstudio.engine.device_info import RunDevices
from mpstudio.engine.distribute.cluster import lost_peer_message
from mpstudio.engine.distribute.lr_plan import LearningRatePlan, describe_batch
from mpstudio.engine.distribute.placement import Placement, StrategyError, place
from mpstudio.engine.events import (
    EpochMetrics,
    NumericsDiagnosis,
    Reporter,
    RunFailed,
    RunFinished,
    RunStarted,
    RunSummary,
    RunWarning,
)
from mpstudio.engine.float8 import FLOAT8, float8_warnings, quantize_float8, run_device_problem
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.initial_weights import weights_hash
from mpstudio.engine.memory_estimate import run_estimate
from mpstudio.engine.model_summary import describe_model
from mpstudio.engine.precision import loss_scaling_note, make_optimizer
from mpstudio.engine.prediction.run_prediction import predict_run, run_device_rates
from mpstudio.engine.said import Said, english, said
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.spec_checks import validate_spec
from mpstudio.engine.templates.registry import build_model, input_problem
from mpstudio.engine.trainer.cpu_float16_fusion import float16_fusion_off
from mpstudio.engine.trainer.custom_loop import CustomLoop
from mpstudio.engine.trainer.example_hits import BestEpochHits, record_hits
from mpstudio.engine.trainer.fit_loop import run_fit
from mpstudio.engine.trainer.fragile_layers import fragile_patterns
from mpstudio.engine.trainer.monitor import (
    AUTO_MIN_SAMPLE_INTERVAL,
    RunMonitor,
    auto_log_every,
)
from mpstudio.engine.trainer.oom_retry import out_of_memory, run_with_retries
from mpstudio.engine.trainer.run_aids import (
    diagnose_divergence,
    hook_aids,
    oom_reason,
    run_folder_of,
    weights_diagnosis,
)
from mpstudio.engine.trainer.run_context import data_time_fraction, hardware_snapshot
from mpstudio.engine.trainer.run_profile import RunProfile
from mpstudio.engine.trainer.state_reader import StateReader, fit_running_means
from mpstudio.engine.trainer.weights_check import WeightsCheck
from mpstudio.engine.trainer.xla_decision import XlaDecision, decide_xla, xla_request

CallbackFactory = Callable[[RunSpec], Sequence[keras.callbacks.Callback]]
log = logging.getLogger(__name__)


@dataclass
class RunResult:
    spec: RunSpec
    summary: RunSummary
    model: keras.Model | None  # None once let go of (kept on disk: see memory_release)
    initial_weights: list[np.ndarray]  # the weights before training (for comparisons)
    epochs: list[EpochMetrics]
    warnings: list[str]
    failure: RunFailed | None = None
    sampled_steps: tuple[int, ...] = ()  # where the monitor sampled (a schedule to replay)
    retried: int = 0  # out-of-memory attempts recorded before this one
    diagnosis: NumericsDiagnosis | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class RunPlace:
    """Where a run sits: alone, or as trial ``trial`` of ``trials`` on one side
    (``role`` baseline or mixed) of the comparison ``comparison``."""

    role: str = "single"
    trial: int = 1
    trials: int = 1
    comparison: str | None = None


class RunSetupError(RuntimeError):
    """The run could not start (loading data or building the model failed)."""


def prepare_data(spec: RunSpec, reporter: Reporter | None = None,
                 replicas: int = 1) -> DataBundle:
    """Load the dataset and check it fits the template, raising SpecError if not.
    Batches are global: ``spec.batch_size`` per replica x ``replicas``.

    Progress of long work (a download, decoding images) goes to ``reporter`` as
    DataProgress events; its stop request cancels the loading (DataLoadStopped).
    """
    ctx = LoadContext(display_name(spec.dataset))
    if reporter is not None:
        ctx = LoadContext(ctx.source, emit=reporter.emit, should_stop=reporter.should_stop)
    try:
        bundle = load_dataset(spec, ctx, replicas)
    except (DataError, ValueError) as exc:
        raise SpecError([str(exc)], getattr(exc, "examples", None)) from None
    except DownloadError as exc:
        raise RunSetupError(str(exc)) from None
    except DataLoadStopped:
        raise
    except MemoryError:
        raise RunSetupError(_(
            "not enough memory to load {source}: pick a smaller image size or "
            "dataset").format(source=ctx.source)) from None
    except Exception as exc:
        raise RunSetupError(_("could not load dataset {name!r}: {error}").format(
            name=spec.dataset, error=f"{type(exc).__name__}: {exc}")) from exc
    problem = input_problem(spec.template, bundle.input_shape)
    if problem:
        raise SpecError([problem])
    return bundle


def build_compiled_model(
    spec: RunSpec, bundle: DataBundle, initial_weights: list[np.ndarray] | None,
    placement: Placement | None = None, plan: LearningRatePlan | None = None,
    devices: RunDevices | None = None,
) -> tuple[keras.Model, keras.Optimizer, XlaDecision]:
    """The run's model under its policy, with its optimizer and loss scaling, compiled;
    inside the strategy's scope when the run is distributed. The XLA decision is the
    compiled model's (Keras turns XLA off for a layer that cannot take it)."""
    strategy = placement.strategy if placement else None
    strategy_name = placement.name if placement else "default"
    devices = devices or device_info.run_devices(placement)
    scope = strategy.scope() if strategy is not None else contextlib.nullcontext()
    try:
        with scope:
            model = build_model(spec.template, bundle.input_shape, bundle.num_classes,
                                spec.precision, input_scale=bundle.input_scale,
                                float32_layers=spec.float32_layers)
            if initial_weights is not None:
                model.set_weights(initial_weights)
            if spec.precision == FLOAT8:  # after the weights: the baseline's have no scales
                quantize_float8(model)
            optimizer = make_optimizer(spec, plan, adjustable=spec.aids.reduce_lr_on_plateau)
            optimizer.build(model.trainable_variables)  # the loss-scale state exists from step 0
            requested = xla_request(spec, devices, strategy_name)
            with python_warnings.catch_warnings():  # the run says it in its own words (decide_xla)
                python_warnings.filterwarnings("ignore", "Model doesn't support `jit_compile")
                model.compile(
                    optimizer=optimizer,
                    loss=keras.losses.SparseCategoricalCrossentropy(),
                    metrics=["accuracy"],
                    jit_compile=requested,
                    auto_scale_loss=False,  # the scaling is exactly what make_optimizer built
                )
            xla = decide_xla(spec, devices, strategy_name, requested, model)
    except SpecError:
        raise  # a float32 layer the model does not have: the spec's problem, named
    except Exception as exc:
        what = out_of_memory(exc)
        if what:
            raise RunSetupError(_(
                "out of memory while building {template!r} for input {shape} ({what}): pick "
                "a smaller template or input").format(
                    template=spec.template, shape="x".join(map(str, bundle.input_shape)),
                    what=what)) from None
        raise RunSetupError(_("could not build {template!r}: {error}").format(
            template=spec.template, error=f"{type(exc).__name__}: {exc}")) from exc
    return model, optimizer, xla


def device_warnings(spec: RunSpec, devices: RunDevices) -> list[str]:
    """Warnings about the precision on the run's device (the advisor gives the full
    picture)."""
    if spec.precision != "float32" and devices.half_precision_is_slow:
        return [_(
            "{precision} on a CPU: this processor has no fast half-precision math, so expect "
            "it to be slower than float32 here; mixed precision pays off on GPUs with Tensor "
            "Cores and on TPUs").format(precision=spec.precision)]
    return []


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


def evaluate_test(
    model: keras.Model, bundle: DataBundle, summary: RunSummary, reporter: Reporter,
    loop: CustomLoop | None = None,
) -> RunSummary:
    """The trained model on the dataset's own test split (never seen in training),
    through the run's own loop when it has one (Keras evaluate() fails under a
    multi-worker strategy, like fit())."""
    try:
        if loop is not None:
            loss, accuracy = loop.evaluate(bundle.test)
        else:
            result = model.evaluate(bundle.test, verbose=0, return_dict=True)
            loss, accuracy = result["loss"], result["accuracy"]
    except Exception as exc:  # the run itself succeeded: keep it, say what went wrong
        reporter.emit(RunWarning(_("could not evaluate on the test split: {error}").format(
            error=exc)))
        return summary
    return dataclasses.replace(summary, test_loss=float(loss), test_accuracy=float(accuracy))


def place_run(spec: RunSpec) -> Placement:
    try:
        return place(spec)
    except StrategyError as exc:
        raise RunSetupError(str(exc)) from None


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


def _training_failed(step: int, exc: BaseException) -> Said:
    return said(N_("training failed at step {step}: {error}"), step=step,
                error=f"{type(exc).__name__}: {exc}")


def run(
    spec: RunSpec,
    reporter: Reporter,
    *,
    initial_weights: list[np.ndarray] | None = None,
    place: RunPlace | None = None,
    sample_at: Sequence[int] | None = None,
    callbacks: CallbackFactory | None = None,
    oom_retry: bool | None = None,
    profile_steps: int = 0,
) -> RunResult:
    """Train ``spec`` and report through ``reporter``. ``place``: where the run sits in
    a comparison (its RunStarted event says so, and the history records it).
    ``sample_at``: sample the metrics exactly at these steps (another run's
    ``sampled_steps``), so two runs' curves share their windows step for step.
    ``callbacks``: more Keras callbacks for each attempt's spec (called on every
    training batch's start in both loops). ``oom_retry``: override ``spec.aids``'s
    (a comparison turns it off: both sides must train the same batch).
    ``profile_steps``: trace this many steady steps with TensorFlow's profiler; the
    summary's ``op_profile`` holds the time per op type (run_profile).

    Raises SpecError for a spec that cannot run (bad data included), RunSetupError
    when the data (a download) or the model cannot be set up, and DataLoadStopped
    when the reporter asks to stop while the data loads; once training starts,
    every ending is an event. Out of memory with retries on, each attempt is a run
    of its own (RunStarted ... RunFailed, then OomRetry); the last one is returned.
    """
    enabled = spec.aids.oom_retry if oom_retry is None else oom_retry

    def attempt(current: RunSpec, retries: int) -> RunResult:
        kind = "CPU" if not tf.config.list_physical_devices("GPU") else "GPU"
        with float16_fusion_off(current.precision, kind):
            result = _attempt(current, reporter, initial_weights=initial_weights,
                              place=place, sample_at=sample_at,
                              callbacks=callbacks(current) if callbacks else (),
                              oom_retries=retries, profile_steps=profile_steps)
        result.retried = retries
        return result

    return run_with_retries(spec, reporter, enabled, attempt)


def _attempt(
    spec: RunSpec,
    reporter: Reporter,
    *,
    initial_weights: list[np.ndarray] | None,
    place: RunPlace | None,
    sample_at: Sequence[int] | None,
    callbacks: Sequence[keras.callbacks.Callback],
    oom_retries: int,
    profile_steps: int = 0,
) -> RunResult:
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
    model, optimizer, xla = build_compiled_model(spec, bundle, initial_weights, placement, plan,
                                                 devices)
    if xla.overruled:
        warnings.append(_("XLA was asked for (xla = {xla}) but this run trains without it: "
                          "{why}").format(xla=spec.xla, why=xla.why))
    if spec.precision == "mixed_float16":
        warnings += fragile_patterns(model)
    if spec.precision == FLOAT8:
        warnings += float8_warnings(model, xla.on)
    distribution = describe_distribution(spec, placement, plan)
    start_weights = [w.copy() for w in model.get_weights()]
    start_hash = weights_hash(model, start_weights)  # kept with the run: replay checks it
    place = place or RunPlace()
    label = run_label(spec, devices, place)
    steps_per_epoch = bundle.steps_per_epoch
    total_steps = spec.steps or spec.epochs * steps_per_epoch
    epochs = math.ceil(total_steps / steps_per_epoch)
    model_summary = describe_model(model, spec.precision, spec.batch_size)
    estimate = run_estimate(model, optimizer, spec, devices.kind)  # shown, kept with the run
    if estimate is not None:
        model_summary = dataclasses.replace(model_summary, memory=(estimate,))

    # Keras 3 fit() fails under MultiWorkerMirroredStrategy: the custom loop runs there.
    loop_name = "custom" if spec.loop == "custom" or placement.name == "multiworker" else "fit"
    loop = None
    if loop_name == "custom":
        with placement.strategy.scope() if placement.strategy else contextlib.nullcontext():
            loop = CustomLoop(model, optimizer, xla.on, placement.strategy, bundle.batch_size)
    monitor = RunMonitor(
        spec=spec,
        reporter=reporter,
        state=StateReader(loop.running_means if loop else fit_running_means(model), optimizer),
        steps_per_epoch=steps_per_epoch,
        total_steps=total_steps,
        log_every=spec.log_every_steps or auto_log_every(steps_per_epoch),
        label=label,
        # Automatic sampling also keeps 50 ms between samples: each sample waits for
        # the device, and tiny steps on a GPU would otherwise lose asynchronous dispatch.
        # Not across workers: a sample reads metrics in a collective every worker must
        # join at the same step, so their schedule cannot depend on a clock.
        min_sample_interval=0.0 if spec.log_every_steps or placement.cluster
        else AUTO_MIN_SAMPLE_INTERVAL,
        schedule=frozenset(sample_at) if sample_at is not None else None,
        global_batch=bundle.batch_size,
        # The loss alone can stay finite over NaN weights (a fused kernel): each epoch's
        # end and the run's end check the weights too.
        weights_check=WeightsCheck(model, placement.strategy).first_nonfinite,
    )
    for message in warnings:
        reporter.emit(RunWarning(message))
    log.info("%s started: %s on %s, %s, %d steps", label, spec.template, devices.label,
             display_name(spec.dataset), total_steps)
    if log.isEnabledFor(logging.DEBUG):  # not a dict per run when nobody reads it
        log.debug("%s spec: %s", label, spec.to_dict())
    reporter.emit(
        RunStarted(
            label=label,
            spec=spec.to_dict(),
            hardware=hardware_snapshot(spec.precision, devices),
            model=model_summary,
            dataset=bundle.summary(),
            steps_per_epoch=steps_per_epoch,
            total_steps=total_steps,
            log_every_steps=monitor.log_every,
            xla=xla.on,
            xla_note=xla.note,
            loss_scaling=loss_scaling_note(spec),
            data_report=bundle.report,
            role=place.role,
            trial=place.trial,
            trials=place.trials,
            comparison=place.comparison,
            distribution=distribution,
            initial_weights_hash=start_hash,
        )
    )
    tensorboard = None
    if spec.aids.tensorboard:
        folder = run_folder_of(reporter)
        if folder is None:
            reporter.emit(RunWarning(_("TensorBoard logs are written into the recorded run's "
                                       "folder, and this run is not recorded here (another "
                                       "worker records it, or the history is off)")))
        else:
            from mpstudio.engine.tensorboard_log import TensorBoardReporter

            reporter = tensorboard = TensorBoardReporter(reporter, folder / "tensorboard")
            monitor.reporter = reporter
    profiler = RunProfile.plan(profile_steps, total_steps)
    if profiler is not None:
        callbacks = [*callbacks, profiler.callback]
    aids = hook_aids(spec, model, optimizer, plan, monitor, reporter, bundle, placement,
                      loop is not None, callbacks)

    # A comparison's runs keep the best epoch's validation flags too (a predict pass
    # at each epoch that improves); every run keeps its final model's.
    best_hits = None
    if (place.role != "single" and loop is None and bundle.val is not None
            and bundle.distinct_examples):
        best_hits = BestEpochHits(bundle.val, bundle.val_examples)
        callbacks = [*callbacks, best_hits]
    problem: tuple[Said, str, int] | None = None  # (reason, kind, step)
    oom: tuple[str, str] | None = None  # (what ran out, TensorFlow's message)
    try:
        if loop:
            loop.run(bundle, monitor, epochs)
        else:
            run_fit(model, bundle, monitor, epochs, callbacks)
    except tf.errors.OpError as exc:
        what = out_of_memory(exc)
        lost = lost_peer_message(str(exc), placement.cluster, monitor.steps)
        if what:
            oom = (what, str(exc))
            log.warning("%s: out of memory (%s) at step %d", label, what, monitor.steps)
        else:
            problem = (
                lost or _training_failed(monitor.steps, exc),
                "worker_lost" if lost else "error",
                monitor.steps,
            )
            log.error("%s: TensorFlow error at step %d", label, monitor.steps, exc_info=True)
    except Exception as exc:  # a run must end with a reason, never a crash
        problem = (_training_failed(monitor.steps, exc), "error", monitor.steps)
        log.error("%s: training failed at step %d", label, monitor.steps, exc_info=True)
    finally:
        if profiler is not None:
            profiler.close()  # a custom loop calls no on_train_end, a failed fit neither
    if problem is None and oom is None:
        monitor.check_weights()  # the run's end (a no-op when its last epoch's end checked)
    diagnosis = None
    if problem is None and monitor.divergence is not None:
        reason = monitor.divergence.reason
        if monitor.divergence.weight is not None:  # the weights check named the layer
            diagnosis = weights_diagnosis(monitor.divergence)
            reporter.emit(diagnosis)
        elif spec.aids.diagnose_numerics:
            diagnosis = diagnose_divergence(model, bundle, monitor.divergence, reporter)
            if diagnosis:
                reason = said(N_("{reason} Diagnosis: {diagnosis}."), reason=reason,
                              diagnosis=diagnosis.message)
        problem = (reason, "diverged", monitor.divergence.step)

    peak = memory.finish()
    # after the peak is read: a CPU measured for its rates (once) is no part of the run
    predicted = predict_run(model, spec, run_device_rates(devices))
    if oom is not None:
        problem = (oom_reason(spec, placement, model_summary.params, *oom, peak.largest),
                   "out_of_memory", monitor.steps)
    if problem is not None:
        status = "diverged" if problem[1] == "diverged" else "failed"
    else:
        status = "stopped" if monitor.stop_requested else "finished"
    kept_epoch = aids.epochs.finish(status)
    summary = monitor.summary(
        status, xla=xla.on, device=devices.label, params=model_summary.params,
        peak_memory=peak.largest, memory_note=peak.note,
    )
    underflow = aids.underflow.last if aids.underflow else None
    summary = dataclasses.replace(
        summary, loop=loop_name, strategy=placement.name, replicas=placement.replicas,
        global_batch_size=bundle.batch_size, distribution=distribution,
        aids=aids.epochs.describe(kept_epoch, len(monitor.epochs)), kept_epoch=kept_epoch,
        oom_retries=oom_retries, xla_note=xla.note, peak_memory_total_bytes=peak.total,
        largest_batch_fit=spec.batch_size if oom_retries and problem is None else None,
        underflow_unscaled=underflow.unscaled if underflow else None,
        underflow_scaled=underflow.scaled if underflow else None,
        tensorboard_dir=str(tensorboard.logdir) if tensorboard else "",
        memory_estimate=estimate.to_dict() if estimate is not None else None,
        predicted=predicted)
    if profiler is not None:
        summary = profiler.into(summary, reporter)
    if status == "finished" and bundle.test is not None:
        summary = evaluate_test(model, bundle, summary, reporter, loop)
    if status in ("finished", "stopped"):
        summary = dataclasses.replace(summary, data_time_fraction=data_time_fraction(
            bundle.train, summary.steady_step_time))
        summary = record_hits(summary, model, bundle, placement, best_hits)
    failure = RunFailed(*problem, summary=summary) if problem is not None else None
    if failure is not None:
        log.warning("%s %s (%s) at step %s: %s", label, status, failure.kind, failure.step,
                    english(failure.reason))
    else:
        log.info("%s %s: %d steps in %.1f s", label, status, summary.steps_done,
                 summary.total_time)
    reporter.emit(failure or RunFinished(summary))
    if tensorboard is not None:
        tensorboard.close()
    return RunResult(
        spec, summary, model, start_weights, list(monitor.epochs), warnings, failure,
        tuple(monitor.sampled_steps), diagnosis=diagnosis,
    )
