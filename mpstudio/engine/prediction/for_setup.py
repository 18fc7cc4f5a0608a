"""The setup panel's payoff line: the model the user set up, predicted on this
machine's device before Run ("on H100 SXM at batch 256: no gain expected (0.86-1.16x)
over TF32; the step is dispatch-bound ...; at batch 2048: mixed_bfloat16 about 1.8x")."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from mpstudio.engine.prediction.device_rates import DeviceRates, gpu_rates
from mpstudio.engine.prediction.predict import (
    FLOAT32,
    costed_models,
    larger_batch,
    predict_costed,
)
from mpstudio.engine.prediction.prediction_text import larger_batch_line, precision_line

log = logging.getLogger(__name__)


def this_machine_rates() -> DeviceRates | None:
    """This machine's first GPU TensorFlow lists (from the table), else its CPU (measured
    once, then kept)."""
    from mpstudio.engine.device_info import visible_gpus

    gpus = visible_gpus()
    if gpus:
        return gpu_rates(gpus[0].name)
    from mpstudio.engine.prediction.cpu_rates import cached_cpu_rates

    return cached_cpu_rates()


def payoff_text(template: str, input_shape: tuple[int, ...], classes: int,
                input_scale: float | None, float32_layers: Sequence[str], batch: int,
                precision: str, rates: DeviceRates | None = None, inputs: str = "") -> str:
    """One or two sentences for ``precision`` (the best half type where float32 is
    chosen); "" where this machine's device has no rates or the model cannot be costed
    (a preview never fails for it). ``inputs``: "for its own input ..." where a model
    file is predicted on its own input, not the data's."""
    try:
        rates = rates or this_machine_rates()
        if rates is None:
            return ""
        wanted = None if precision == FLOAT32 else [precision]
        models = costed_models(template, input_shape, classes, rates, input_scale,
                               float32_layers, wanted)
        prediction = dataclasses.replace(predict_costed(models, template, batch, rates),
                                         inputs=inputs)
    except Exception:  # a user's model the costs cannot read
        log.warning("no payoff prediction for the setup", exc_info=True)
        return ""
    best = prediction.best_half()
    shown = precision if precision != FLOAT32 else (best.precision if best else None)
    if shown is None or shown not in prediction.predictions:
        return ""
    lines = [precision_line(prediction, shown)]
    more = larger_batch_line(prediction, larger_batch(models, prediction, rates))
    if more:
        lines.append(more)
    return "\n".join(lines)
