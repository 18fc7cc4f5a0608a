"""The examples an export is checked on (held out from training) and calibrated on
(from the training data, for full-integer int8)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tensorflow as tf

from mpstudio.engine.spec import RunSpec

HELD_OUT = 256  # one differing answer moves agreement by 0.4%
CALIBRATION = 200  # TFLite's guidance: a few hundred representative examples


@dataclass(frozen=True)
class ExportSamples:
    held_out_x: np.ndarray  # float32 model inputs
    held_out_y: np.ndarray | None  # int labels, None for random inputs
    calibration_x: np.ndarray | None  # None: no training data, so no int8
    origin: str  # what the held-out examples are, for the verification line
    problem: str = ""  # why there is no calibration data


def _take(ds: tf.data.Dataset, n: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys, have = [], [], 0
    for x, y in ds:
        xs.append(x.numpy())
        ys.append(y.numpy())
        have += len(xs[-1])
        if have >= n:
            break
    return np.concatenate(xs)[:n].astype(np.float32), np.concatenate(ys)[:n]


def samples_for(spec: RunSpec | None, input_shape: tuple[int, ...],
                seed: int = 0) -> ExportSamples:
    """The run's own data when it can be loaded without a download, else random inputs
    in [0, 1] (float formats can still be compared; int8 cannot be calibrated)."""
    why = "the model did not come from a run"
    if spec is not None:
        from mpstudio.engine.datasets.registry import availability, display_name, is_registered
        from mpstudio.engine.spec import SpecError
        from mpstudio.engine.trainer.runner import RunSetupError, prepare_data

        name = display_name(spec.dataset)
        try:
            if is_registered(spec.dataset) and not availability(spec.dataset).offline:
                raise RunSetupError(f"it is not on disk ({availability(spec.dataset).detail})")
            bundle = prepare_data(spec)  # never a download: checked above
        except (SpecError, RunSetupError) as exc:
            why = f"the run's dataset {name} cannot be loaded: {exc}"
        else:
            held, where = bundle.val, "held-out validation"
            if held is None and bundle.test is not None:
                held, where = bundle.test, "test"
            if held is None:  # nothing was held out: training examples at least
                held, where = bundle.train, "training (no split was held out)"
            x, y = _take(held, HELD_OUT)
            calibration, _ = _take(bundle.train, CALIBRATION)
            return ExportSamples(x, y, calibration, f"{where} examples")
    rng = np.random.default_rng(seed)
    x = rng.random((HELD_OUT, *input_shape), dtype=np.float32)
    return ExportSamples(x, None, None, "random inputs", problem=why)
