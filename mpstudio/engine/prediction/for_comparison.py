"""The prediction a comparison is sized by (comparison/sizing.py): each side's step time
on the device the comparison will run on, at the user's batch and at the larger batch a
GPU needs to show the gain expected."""

from __future__ import annotations

import logging

from mpstudio.engine.comparison.sizing import ComparisonSize, StepForecast, plan_size
from mpstudio.engine.prediction.device_rates import DeviceRates
from mpstudio.engine.prediction.predict import (
    FLOAT32,
    Prediction,
    costed_models,
    larger_batch,
    predict_costed,
)
from mpstudio.engine.spec import RunSpec

log = logging.getLogger(__name__)


def _forecast(prediction: Prediction, precision: str) -> StepForecast | None:
    base = prediction.predictions.get(FLOAT32)
    half = prediction.predictions.get(precision)
    if base is None or half is None:
        return None
    return StepForecast(prediction.batch_size, base.step_seconds, half.step_seconds)


def _training_examples(spec: RunSpec) -> int:
    """The training split's size, as the pipeline will cut it (per class rounding
    aside: sizing needs it to a batch)."""
    from mpstudio.engine.datasets.registry import inspect_dataset

    samples = inspect_dataset(spec.dataset, spec.dataset_options).train_samples
    return samples - round(samples * spec.validation_split)


def size_for(spec: RunSpec, rates: DeviceRates, warmup_steps: int,
             replicas: int = 1) -> ComparisonSize | None:
    """``spec``'s comparison sized for a device of ``rates``; None where the model or the
    data cannot be predicted (the comparison then trains as set)."""
    from mpstudio.engine.memory_estimate import model_inputs

    try:
        shape, classes, scale = model_inputs(spec)
        examples = _training_examples(spec)
        if examples < spec.batch_size * replicas:
            # the run refuses this data (fewer examples than one batch): say so at once,
            # without building and costing the model first (at 512x512x3 an mlp's
            # weights alone are 3 GB, and sizing built them before the run's check)
            return None
        models = costed_models(spec.template, shape, classes, rates, scale,
                               spec.float32_layers, [spec.precision])
        now = predict_costed(models, spec.template, spec.batch_size, rates)
        forecast = _forecast(now, spec.precision)
        if forecast is None:
            return None
        larger = None
        if rates.kind == "GPU":
            bigger = larger_batch(models, now, rates)
            larger = _forecast(bigger, spec.precision) if bigger is not None else None
    except Exception:  # a user's model the costs cannot read, data that cannot be read
        log.warning("the comparison is not sized: no prediction for it", exc_info=True)
        return None
    per_epoch = max(1, examples // (spec.batch_size * replicas))
    user_steps = spec.steps or spec.epochs * per_epoch
    return plan_size(user_steps, spec.batch_size, per_epoch, warmup_steps, forecast, larger,
                     examples, replicas)

