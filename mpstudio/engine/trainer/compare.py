"""A float32 baseline and a mixed-precision run of the same spec, side by side.

Same seed, same initial weights (copied from the first baseline), same data order
(the pipeline is rebuilt from the seed): only the precision and its loss scaling
differ. With repeats the trials alternate (float32, mixed, float32, mixed, ...), so
a slow drift of the machine (heat, another job) hits both sides alike.
"""

from __future__ import annotations

import logging
import statistics
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import tensorflow as tf

from mpstudio.engine.comparison.sizing import ComparisonSize, beyond_data_warning, sized_spec
from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.events import Reporter, RunWarning
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import LossScaling, RunSpec, SpecError
from mpstudio.engine.spec_checks import validate_spec
from mpstudio.engine.trainer.aids.run_profile import PROFILE_STEPS
from mpstudio.engine.trainer.compare_options import baseline_precision, comparison_problems
from mpstudio.engine.trainer.memory_release import release_device_memory
from mpstudio.engine.trainer.runner import RunPlace, RunResult, run
from mpstudio.engine.trainer.speed_pair import run_speed_pair, speed_spec

log = logging.getLogger(__name__)


@dataclass
class ComparisonResult:
    baselines: list[RunResult]
    mixeds: list[RunResult]  # fewer than the baselines when the user stopped
    comparison: str = field(default="")  # the id the runs share in the history
    # float32 and mixed on synthetic data at the batch a GPU needs (speed_pair.py)
    speed: list[RunResult] = field(default_factory=list)

    @property
    def baseline(self) -> RunResult:
        return self.baselines[0]

    @property
    def mixed(self) -> RunResult | None:
        return self.mixeds[0] if self.mixeds else None

    @property
    def results(self) -> list[RunResult]:
        """Every run, in the order they ran."""
        out: list[RunResult] = []
        for i, base in enumerate(self.baselines):
            out.append(base)
            if i < len(self.mixeds):
                out.append(self.mixeds[i])
        return out + self.speed

    @property
    def speedup(self) -> float | None:
        """Median over trial pairs of mixed steady examples/s over the baseline's."""
        ratios = []
        for b, m in zip(self.baselines, self.mixeds, strict=False):
            base, mixed = b.summary.steady_examples_per_sec, m.summary.steady_examples_per_sec
            if base and mixed:
                ratios.append(mixed / base)
        return statistics.median(ratios) if ratios else None

    @property
    def accuracy_delta_pp(self) -> float | None:
        """Mixed minus baseline median final validation accuracy, in percentage points."""
        base = _median(r.summary.final_val_accuracy for r in self.baselines)
        mixed = _median(r.summary.final_val_accuracy for r in self.mixeds)
        return 100.0 * (mixed - base) if base is not None and mixed is not None else None

    @property
    def memory_saving(self) -> float | None:
        """Fraction of the baseline's peak device memory the mixed run saved."""
        base = _median(r.summary.peak_memory_bytes for r in self.baselines)
        mixed = _median(r.summary.peak_memory_bytes for r in self.mixeds)
        return 1.0 - mixed / base if base and mixed is not None else None


def _median(values) -> float | None:
    seen = [v for v in values if v is not None]
    return statistics.median(seen) if seen else None


def baseline_spec(spec: RunSpec, batch_size: int | None = None) -> RunSpec:
    """The side ``spec`` is compared against: float32, except for float8, whose question
    is whether float8 matmuls beat the bfloat16 ones it would otherwise run.
    ``batch_size``: the baseline's own batch, with the learning rate scaled linearly
    from the run's (each side at the largest batch it fits)."""
    base = spec.replace(precision=baseline_precision(spec.precision),
                        loss_scaling=LossScaling(mode="off"))
    if batch_size is None or batch_size == spec.batch_size:
        return base
    return base.replace(batch_size=batch_size, learning_rate=scaled_learning_rate(
        spec.learning_rate, spec.batch_size, batch_size))


def comparison_sized(spec: RunSpec, reporter: Reporter, size: ComparisonSize | None = None
                     ) -> tuple[RunSpec, ComparisonSize | None]:
    """``spec`` sized for timing on the device a default-strategy run trains on (a
    distributed comparison trains as set: its replicas are not predicted), or as
    ``size`` planned it; with the plan (None: not sized)."""
    from mpstudio.engine import device_info
    from mpstudio.engine.prediction.for_comparison import size_for
    from mpstudio.engine.prediction.run_prediction import run_device_rates
    from mpstudio.engine.trainer.monitor import WARMUP_STEPS

    device = _("this device")
    if size is None:
        if spec.distribute.strategy != "default":
            return spec, None
        rates = run_device_rates(device_info.run_devices())
        size = size_for(spec, rates, WARMUP_STEPS) if rates is not None else None
        device = rates.name if rates is not None else device
    if size is None:
        return spec, None
    if size.batch_beyond_data:
        reporter.emit(RunWarning(beyond_data_warning(device, size)))
    sized = sized_spec(spec, size)
    if size.sized:
        log.info("comparison sized for timing on %s: %s steps at batch %d (set: %d steps at "
                 "batch %d)", device, sized.steps, sized.batch_size, size.user_steps,
                 size.user_batch)
    return sized, size


@contextmanager
def baseline_math(mode: str) -> Iterator[None]:
    """TF32 switched as ``mode`` asks for the duration of a baseline run."""
    if mode == "auto":
        yield
        return
    before = tf.config.experimental.tensor_float_32_execution_enabled()
    tf.config.experimental.enable_tensor_float_32_execution(mode == "tf32")
    try:
        yield
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(before)


def compare(spec: RunSpec, reporter: Reporter, repeats: int = 1,
            baseline: str = "auto",
            keep: Callable[[RunResult], None] | None = None,
            profile: bool = False, baseline_batch_size: int | None = None,
            size: bool | ComparisonSize = False) -> ComparisonResult:
    """Run the float32 baseline, then ``spec`` from the baseline's initial weights,
    ``repeats`` times, alternating. A stop ends the comparison after the current run.

    ``keep(result)`` is called as each run ends (the recorder keeps its model on disk);
    each run's model is then let go of before the next run builds, so a trial trains
    in the memory the last one used. Only the last run's ``model`` stays set.
    ``profile``: the first trial of each side traces a few steady steps with
    TensorFlow's profiler (the card's op-by-op table: why mixed was slower).
    ``baseline_batch_size``: the baseline trains at this batch (see baseline_spec).
    ``size``: lengthen (and on a GPU enlarge) a comparison too short to time its speed
    (comparison/sizing.py), True to size it for this machine's device, or as planned;
    the runs keep what the user had set. Where the batch a GPU needs is beyond the
    dataset, a speed pair on synthetic data follows the trials (speed_pair.py)."""
    problems = comparison_problems(spec, repeats, baseline)
    if problems:
        raise SpecError(problems)
    validate_spec(spec)
    planned = None
    if size is not False and baseline_batch_size is None:
        spec, planned = comparison_sized(spec, reporter, None if size is True else size)
    comparison = uuid.uuid4().hex
    result = ComparisonResult([], [], comparison)
    base_spec = baseline_spec(spec, baseline_batch_size)
    schedule: tuple[int, ...] | None = None

    def profiled(trial: int) -> int:
        return PROFILE_STEPS if profile and trial == 1 else 0

    def finished(run_result: RunResult) -> RunResult:
        if keep is not None:
            keep(run_result)
        return run_result

    for trial in range(1, repeats + 1):
        if result.baselines:
            release_device_memory(result.results)
        with baseline_math(baseline):  # the run labels itself with what it computed in
            base = run(base_spec, reporter, oom_retry=False,
                       place=RunPlace("baseline", trial, repeats, comparison),
                       sample_at=schedule, profile_steps=profiled(trial))
        result.baselines.append(finished(base))
        if schedule is None and base_spec.batch_size == spec.batch_size:
            schedule = base.sampled_steps  # every later run samples where the first one did
        if reporter.should_stop():
            break
        release_device_memory([base])
        mixed = run(spec, reporter, oom_retry=False,
                    initial_weights=result.baseline.initial_weights,
                    place=RunPlace("mixed", trial, repeats, comparison), sample_at=schedule,
                    profile_steps=profiled(trial))
        result.mixeds.append(finished(mixed))
        if reporter.should_stop() or not (base.ok and mixed.ok):
            break  # a failed pair would fail again: the trials share seed and weights
    else:
        if planned is not None and planned.batch_beyond_data and planned.speed_steps:
            from mpstudio.engine.memory_estimate import model_inputs

            shape, classes, _ = model_inputs(spec)
            result.speed = run_speed_pair(speed_spec(spec, planned, shape, classes),
                                          reporter, comparison, finished, result.results)
    return result

