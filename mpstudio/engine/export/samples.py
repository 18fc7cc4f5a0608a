"""The examples an export is checked on (held out from training) and calibrated on
(from the training data, for full-integer int8).

A model takes what it was trained on, and its own Input says which: uint8 images
that it scales itself (models since images stay uint8 to the device), or float32
inputs (older models, trained on images scaled on the host, and non-image data).
The converted formats take the float inputs either way (the model's input scaling
is left out of them), so the examples come in both forms.
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.templates.model_input import STORED_DTYPE, input_scale_of, scale_on_host

HELD_OUT = 256  # one differing answer moves agreement by 0.4%
CALIBRATION = 200  # TFLite's guidance: a few hundred representative examples


@dataclass(frozen=True)
class ExportSamples:
    held_out_x: np.ndarray  # the trained model's inputs (its Input's dtype)
    held_out_y: np.ndarray | None  # int labels, None for random inputs
    calibration_x: np.ndarray | None  # float32 inputs of the converted model; None: no int8
    origin: str  # what the held-out examples are: one of results.ORIGINS (English)
    problem: str = ""  # why there is no calibration data
    input_scale: float | None = None  # the model's own input scaling, if it has one

    @property
    def converted_x(self) -> np.ndarray:
        """The held-out examples as the converted formats take them: float32, scaled."""
        if self.input_scale is None:
            return self.held_out_x.astype(np.float32)
        return scale_on_host(self.held_out_x, self.input_scale)


def _take(ds: tf.data.Dataset, n: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys, have = [], [], 0
    for x, y in ds:
        xs.append(x.numpy())
        ys.append(y.numpy())
        have += len(xs[-1])
        if have >= n:
            break
    return np.concatenate(xs)[:n], np.concatenate(ys)[:n]


def samples_for(spec: RunSpec | None, model: keras.Model, seed: int = 0) -> ExportSamples:
    """The run's own data when it can be loaded without a download, else random inputs
    in the model's range (float formats can still be compared; int8 cannot be calibrated)."""
    why = _("the model did not come from a run")
    takes_uint8 = model.inputs[0].dtype == STORED_DTYPE
    scale = input_scale_of(model)
    if spec is not None:
        from mpstudio.engine.datasets.registry import availability, display_name, is_registered
        from mpstudio.engine.spec import SpecError
        from mpstudio.engine.trainer.run_inputs import RunSetupError, prepare_data

        name = display_name(spec.dataset)
        try:
            if is_registered(spec.dataset) and not availability(spec.dataset).offline:
                raise RunSetupError(_("it is not on disk ({detail})").format(
                    detail=availability(spec.dataset).detail))
            bundle = prepare_data(spec)  # never a download: checked above
            if takes_uint8 and bundle.input_scale is None:
                raise RunSetupError(_("it now reads as float inputs, but the model takes "
                                      "uint8 images"))
        except (SpecError, RunSetupError) as exc:
            why = _("the run's dataset {name} cannot be loaded: {reason}").format(
                name=name, reason=exc)
        else:
            held, origin = bundle.val, "held-out validation examples"
            if held is None and bundle.test is not None:
                held, origin = bundle.test, "test examples"
            if held is None:  # nothing was held out: training examples at least
                held, origin = bundle.train, "training (no split was held out) examples"
            x, y = _take(held, HELD_OUT)
            calibration, _labels = _take(bundle.train, CALIBRATION)
            if bundle.input_scale is not None and not takes_uint8:
                # a model trained before images stayed uint8: it takes them scaled, as then
                x = scale_on_host(x, bundle.input_scale)
                calibration = scale_on_host(calibration, bundle.input_scale)
            calibration = (calibration.astype(np.float32) if scale is None
                           else scale_on_host(calibration, scale))
            return ExportSamples(x, y, calibration, origin, input_scale=scale)
    rng = np.random.default_rng(seed)
    if takes_uint8:  # pixel values that the model's scaling maps into [0, 1]
        top = 255 if scale is None else min(255, round(1.0 / scale))
        x = rng.integers(0, top + 1, (HELD_OUT, *model.input_shape[1:]), dtype=np.uint8)
    else:
        x = rng.random((HELD_OUT, *model.input_shape[1:]), dtype=np.float32)
    return ExportSamples(x, None, None, "random inputs", problem=why, input_scale=scale)
