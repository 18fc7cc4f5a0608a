"""A comparison's speed pair: float32 and the mixed precision on synthetic data, at the
batch a GPU needs to show its gain, where the dataset's training split cannot fill it.

On an H200 digits' cnn gains from mixed precision only from a batch of thousands, and
digits holds 1,438 training examples. The comparison then keeps the dataset for what
only it can tell (accuracy, the loss curves: the accuracy pair at the user's batch) and
times the speed on synthetic data of the same input shape and classes at the batch the
prediction names (comparison/sizing.py), one random batch repeated, as GPU benchmark
suites time it. The card reads its speed figures from this pair and says which pair
gave which figure.
"""

from __future__ import annotations

from collections.abc import Callable

from mpstudio.engine.comparison.sizing import ComparisonSize
from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.events import Reporter
from mpstudio.engine.spec import LossScaling, RunSpec
from mpstudio.engine.trainer.compare_options import baseline_precision
from mpstudio.engine.trainer.memory_release import release_device_memory
from mpstudio.engine.trainer.runner import RunPlace, RunResult, run

SPEED_BASELINE, SPEED_MIXED = "speed_baseline", "speed_mixed"
SPEED_ROLES = (SPEED_BASELINE, SPEED_MIXED)
EPOCH_STEPS = 50  # synthetic batches per epoch: an epoch end now and then, as real data


def synthetic_spec(spec: RunSpec, batch: int, steps: int, input_shape: tuple[int, ...],
                   classes: int) -> RunSpec:
    """``spec``'s model and precision on synthetic data of ``input_shape`` and
    ``classes`` at ``batch``, for ``steps``, no validation split: how a speed is timed
    (this pair, and a model's measurement without its data: prediction/measure_model.py)."""
    per_epoch = max(1, min(steps, EPOCH_STEPS))
    return spec.replace(
        dataset="synthetic",
        dataset_options={"samples": batch * per_epoch, "shape": list(input_shape),
                         "classes": classes},
        batch_size=batch, steps=steps, validation_split=0.0,
        learning_rate=scaled_learning_rate(spec.learning_rate, spec.batch_size, batch))


def speed_spec(spec: RunSpec, size: ComparisonSize, input_shape: tuple[int, ...],
               classes: int) -> RunSpec:
    """The mixed side of the speed pair: ``spec``'s model and precision on synthetic data
    at ``size.batch_beyond_data``, for ``size.speed_steps``, no validation split."""
    return synthetic_spec(spec, size.batch_beyond_data, size.speed_steps, input_shape,
                          classes).replace(sized_from={"steps": size.user_steps,
                                                       "batch_size": size.user_batch})


def run_speed_pair(mixed_spec: RunSpec, reporter: Reporter, comparison: str,
                   finished: Callable[[RunResult], RunResult],
                   earlier: list[RunResult]) -> list[RunResult]:
    """float32 then ``mixed_spec`` from float32's initial weights; fewer on a stop or a
    failure. ``earlier``: the comparison's runs so far (their memory is let go of)."""
    base_spec = mixed_spec.replace(precision=baseline_precision(mixed_spec.precision),
                                   loss_scaling=LossScaling(mode="off"))
    release_device_memory(earlier)
    base = finished(run(base_spec, reporter, oom_retry=False,
                        place=RunPlace(SPEED_BASELINE, 1, 1, comparison)))
    if reporter.should_stop() or not base.ok:
        return [base]
    release_device_memory([base])
    mixed = finished(run(mixed_spec, reporter, oom_retry=False,
                         initial_weights=base.initial_weights,
                         place=RunPlace(SPEED_MIXED, 1, 1, comparison),
                         sample_at=base.sampled_steps))
    return [base, mixed]
