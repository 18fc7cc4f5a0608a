"""A comparison sized so that its speed can be timed, decided before it runs.

A speed verdict needs steady time on each side (verdict.MIN_STEADY_STEPS and
MIN_STEADY_SECONDS): the window's default comparison (digits, 3 epochs) gives a 2-core
CPU well under a second of it and a GPU a few milliseconds, so its verdict was "too short
to time". Sizing lengthens such a comparison to a step budget that gives each side a few
seconds of steady time, by the predicted step time of each side. On a GPU it also takes
the larger batch the prediction says the device needs to show a gain (predict.larger_batch)
where the training split holds it, the learning rate scaled linearly as for the batch
finder's comparison.

Sizing only ever lengthens and enlarges: a comparison already long enough, and one whose
user turned sizing off, trains exactly as set. The runs keep what the user had set
(``RunSpec.sized_from``) so that the card says what mpstudio changed.

Pure decisions here; the prediction that feeds them is prediction/for_comparison.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpstudio.engine.comparison.verdict import MIN_STEADY_SECONDS, MIN_STEADY_STEPS
from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.i18n import _, ngettext
from mpstudio.engine.said import clauses
from mpstudio.engine.spec import RunSpec

# Three times the verdict's minimum: a prediction off by a factor of two, and a noisy
# machine, still leave each side enough steady time.
TARGET_STEADY_SECONDS = 3 * MIN_STEADY_SECONDS
TARGET_STEADY_STEPS = 3 * MIN_STEADY_STEPS
# A sized side trains at most about this long (as predicted) whatever its step time: a
# slow side gets fewer steady seconds, never minutes the user did not ask for.
MOST_SIDE_SECONDS = 40.0


@dataclass(frozen=True)
class StepForecast:
    """Predicted seconds per training step of each side at a batch per replica."""

    batch_size: int
    baseline_seconds: float
    mixed_seconds: float


@dataclass(frozen=True)
class ComparisonSize:
    """What a comparison trains: its step budget and batch, and what the user had set."""

    user_steps: int  # the length the user set, in steps at the user's batch
    user_batch: int
    steps: int | None = None  # None: the user's length stands
    batch_size: int | None = None  # None: the user's batch stands
    # a batch the prediction expects a gain at but the training split cannot fill (0:
    # none): the comparison then times a speed pair on synthetic data at it, this long
    batch_beyond_data: int = 0
    speed_steps: int = 0

    @property
    def sized(self) -> bool:
        return self.steps is not None or self.batch_size is not None


def plan_size(user_steps: int, user_batch: int, steps_per_epoch: int, warmup_steps: int,
              forecast: StepForecast, larger: StepForecast | None = None,
              train_examples: int | None = None, replicas: int = 1) -> ComparisonSize:
    """The comparison's size. ``steps_per_epoch`` is at the user's batch; ``larger``: the
    prediction's larger batch (a GPU that needs one to show the gain expected), taken
    where ``train_examples`` holds a whole global batch of it."""
    batch, beyond, speed_steps = user_batch, 0, 0
    if larger is not None and larger.batch_size > user_batch:
        if train_examples is None or larger.batch_size * replicas <= train_examples:
            batch, forecast = larger.batch_size, larger
        else:
            beyond, speed_steps = larger.batch_size, warmup_steps + steady_steps(larger)
    # the user's length at the batch trained: the same number of examples seen
    length = user_steps if batch == user_batch else math.ceil(user_steps * user_batch / batch)
    per_epoch = max(1, steps_per_epoch * user_batch // batch)
    needed = warmup_steps + steady_steps(forecast)
    steps = None
    if length < needed:
        # whole epochs: each epoch sees the whole training split, validated at its end
        steps = math.ceil(needed / per_epoch) * per_epoch
    elif batch != user_batch:
        steps = length
    return ComparisonSize(user_steps, user_batch, steps,
                          batch if batch != user_batch else None, beyond, speed_steps)


def steady_steps(forecast: StepForecast) -> int:
    """Steady steps that give the faster side TARGET_STEADY_SECONDS, bounded by the
    slower side's MOST_SIDE_SECONDS (both sides train the same steps)."""
    fast = min(forecast.baseline_seconds, forecast.mixed_seconds)
    slow = max(forecast.baseline_seconds, forecast.mixed_seconds)
    steady = max(TARGET_STEADY_STEPS, math.ceil(TARGET_STEADY_SECONDS / max(fast, 1e-9)))
    return min(steady, max(2 * MIN_STEADY_STEPS, int(MOST_SIDE_SECONDS / max(slow, 1e-9))))


def sized_spec(spec: RunSpec, size: ComparisonSize) -> RunSpec:
    """``spec`` as the sized comparison trains it, keeping what the user had set."""
    if not size.sized:
        return spec
    user = {"steps": size.user_steps, "batch_size": size.user_batch}
    if spec.steps is None:
        user["epochs"] = spec.epochs
    changed = spec.replace(steps=size.steps or spec.steps, sized_from=user)
    if size.batch_size is not None:
        changed = changed.replace(batch_size=size.batch_size, learning_rate=scaled_learning_rate(
            spec.learning_rate, spec.batch_size, size.batch_size))
    return changed


def as_set(spec: RunSpec) -> RunSpec:
    """A sized run's spec as its user had set it (a History re-run fills the form with
    it and sizes it again); any other spec as it is."""
    user = spec.sized_from
    if not user:
        return spec
    batch = user.get("batch_size", spec.batch_size)
    rate = spec.learning_rate if batch == spec.batch_size else scaled_learning_rate(
        spec.learning_rate, spec.batch_size, batch)
    steps = None if "epochs" in user else user.get("steps", spec.steps)
    return spec.replace(steps=steps, epochs=user.get("epochs", spec.epochs), batch_size=batch,
                        learning_rate=rate, sized_from={})


def sized_note(spec: Mapping[str, Any]) -> str:
    """What mpstudio changed in a run's spec (a stored one: a dict) and why, in the
    reader's language; "" for a run trained as set."""
    sized = spec.get("sized_from")
    if not isinstance(sized, Mapping) or not sized:
        return ""
    parts = []
    user_steps, user_batch = sized.get("steps"), sized.get("batch_size")
    steps, batch = spec.get("steps"), spec.get("batch_size")
    if isinstance(steps, int) and isinstance(user_steps, int) and steps != user_steps:
        epochs = sized.get("epochs")
        parts.append(ngettext("{steps:,} steps (you set {epochs:,} epoch, {user:,} steps)",
                              "{steps:,} steps (you set {epochs:,} epochs, {user:,} steps)",
                              epochs).format(steps=steps, epochs=epochs, user=user_steps)
                     if isinstance(epochs, int) else
                     _("{steps:,} steps (you set {user:,})").format(steps=steps, user=user_steps))
    if isinstance(batch, int) and isinstance(user_batch, int) and batch != user_batch:
        parts.append(_("batch {batch:,} (you set {user:,}), where the prediction expects this "
                       "device to show the gain, the learning rate scaled with it").format(
                           batch=batch, user=user_batch))
    if not parts:
        return ""
    return _("sized by mpstudio so that each side gets about {seconds:g} s of steady time "
             "to time its speed: {changes}; turn sizing off to train as set").format(
                 seconds=TARGET_STEADY_SECONDS, changes=str(clauses(*parts)))


def beyond_data_warning(device: str, size: ComparisonSize) -> str:
    """The batch a device needs that the dataset cannot fill, and what the comparison
    does about it."""
    return _("on {device} the prediction expects mixed precision to gain only from batch "
             "{batch:,}, more than this dataset's training split holds: accuracy is compared "
             "on the dataset at batch {user:,}, and the speed is timed also on synthetic "
             "data of the same shape at batch {batch:,}").format(
                 device=device, batch=size.batch_beyond_data, user=size.user_batch)
