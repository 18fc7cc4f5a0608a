"""The TFLite converter set up for each variant, shared by the writers (in process) and
the converter process (the one conversion known to crash runs there)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

from mpstudio.engine.export.results import ExportError
from mpstudio.engine.i18n import _


def tflite_converter(saved: Path, variant: str, examples: np.ndarray | None,
                     examples_problem: str) -> tf.lite.TFLiteConverter:
    """The converter for ``variant`` (float32 | float16 | dynamic | int8); int8 is
    calibrated on ``examples`` (None: why not, in ``examples_problem``)."""
    converter = tf.lite.TFLiteConverter.from_saved_model(str(saved))
    if variant == "float32":
        return converter
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if variant == "float16":
        converter.target_spec.supported_types = [tf.float16]
    elif variant == "int8":
        if examples is None:
            raise ExportError(_(
                "full-integer int8 is calibrated on examples of the run's training data, "
                "and {reason}. Export dynamic-range int8 instead (it needs no data), or "
                "make the dataset available again").format(reason=examples_problem))
        converter.representative_dataset = lambda: ([examples[i:i + 1]]
                                                    for i in range(len(examples)))
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return converter
