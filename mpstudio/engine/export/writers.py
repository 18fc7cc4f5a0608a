"""Converting a trained model into each format, into a path in a staging folder.

SavedModel and .keras keep the model as trained (a mixed model still computes in
float16/bfloat16 there). TFLite and tf2onnx cannot convert float16 ops, so they
convert the float32 copy (source.float32_copy), through a SavedModel of it.

A model that takes uint8 images and scales them itself goes into .keras whole; the
other formats take float32 inputs scaled as in training, as they always have (a
float32 serving signature, int8 inputs quantized from [0, 1]), so they convert the
model from its input scaling's output on (model_input.without_input_scaling).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.export.converter_process import convert_in_own_process
from mpstudio.engine.export.placement import write_bytes
from mpstudio.engine.export.results import ExportError
from mpstudio.engine.export.source import ExportSource, float32_copy
from mpstudio.engine.export.tflite_options import tflite_converter
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.quiet_stderr import stderr_hidden
from mpstudio.engine.templates.model_input import input_scale_of, without_input_scaling

INPUT_NAME = "inputs"
ONNX_OPSET = 17
BATCH_ONE_NOTE = N_("fixed batch of 1: TFLite needs a static shape for this model's "
                    "recurrent loop, so feed one example per call")  # shown as _()


@dataclass
class Conversion:
    """What the writers share while one source is exported to several formats."""

    source: ExportSource
    calibration_x: np.ndarray | None
    calibration_problem: str
    scratch: Path  # a temp folder of our own, deleted at the end
    _float32: keras.Model | None = None
    _saved: dict[int | None, Path] = field(default_factory=dict)

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(int(n) for n in self.source.model.input_shape[1:])

    def signature(self, batch: int | None = None) -> list[tf.TensorSpec]:
        return [tf.TensorSpec([batch, *self.input_shape], tf.float32, name=INPUT_NAME)]

    def float32_model(self) -> keras.Model:
        """The float32 copy, taking float inputs (its input scaling left out)."""
        if self._float32 is None:
            self._float32 = without_input_scaling(float32_copy(self.source.model))
        return self._float32

    def input_note(self, takes: str) -> list[str]:
        """What a model that scales its own uint8 images takes in this format: the
        stored images ("uint8"), or them scaled to [0, 1] as "float32" or as "int8"."""
        scale = input_scale_of(self.source.model)
        if scale is None:
            return []
        divisor = f"{1.0 / scale:.6g}"
        if takes == "uint8":
            return [_("input: the images as stored (uint8); the model divides them by "
                      "{divisor} itself").format(divisor=divisor)]
        if takes == "int8":
            return [_("input: int8, the images divided by {divisor} (0..1) quantized with "
                      "the input's scale and zero point").format(divisor=divisor)]
        return [_("input: float32, the images divided by {divisor} (0..1), as in "
                  "training").format(divisor=divisor)]

    def float32_saved_model(self, batch: int | None) -> Path:
        """A SavedModel of the float32 copy (what the TFLite converter reads)."""
        if batch not in self._saved:
            path = self.scratch / f"float32-batch{batch or 'any'}"
            self.float32_model().export(str(path), verbose=False,
                                        input_signature=self.signature(batch))
            self._saved[batch] = path
        return self._saved[batch]


def write_keras(conv: Conversion, path: Path) -> list[str]:
    if conv.source.keras_file is not None:  # the run's kept file: byte for byte
        shutil.copyfile(conv.source.keras_file, path)
    else:
        conv.source.model.save(path)
    return conv.input_note("uint8")


def write_saved_model(conv: Conversion, path: Path) -> list[str]:
    without_input_scaling(conv.source.model).export(
        str(path), verbose=False, input_signature=conv.signature())
    notes = conv.input_note("float32")
    policy = conv.source.policy
    if policy == "float32":
        return notes
    return [*notes, _("computes in {dtype} inside, float32 in and out (fast on GPUs with "
                      "Tensor Cores)").format(dtype=policy.removeprefix("mixed_"))]


def _convert_tflite(conv: Conversion, variant: str) -> tuple[bytes, list[str]]:
    examples, problem = conv.calibration_x, conv.calibration_problem
    try:
        with stderr_hidden():
            data = tflite_converter(conv.float32_saved_model(None), variant, examples,
                                    problem).convert()
        return data, []
    except ExportError:
        raise
    except Exception as exc:  # the converter raises ConverterError and plain errors
        if "tensor list" not in str(exc).lower():
            raise ExportError(_("the TFLite converter failed: {reason}").format(
                reason=_last_line(exc))) from None
    # An RNN's TensorList ops convert with a static batch. Calibrating that loop for
    # full-integer int8 crashes TF 2.21's converter (SIGSEGV): it runs in a process of
    # its own, so a crash fails this format only.
    saved = conv.float32_saved_model(1)
    if variant == "int8":
        tflite_converter(saved, variant, examples, problem)  # no examples: say so here
        return convert_in_own_process(saved, variant, examples, conv.scratch,
                                      _("calibrating the recurrent loop")), [_(BATCH_ONE_NOTE)]
    try:
        with stderr_hidden():
            data = tflite_converter(saved, variant, examples, problem).convert()
    except Exception as exc:
        raise ExportError(_("the TFLite converter failed: {reason}").format(
            reason=_last_line(exc))) from None
    return data, [_(BATCH_ONE_NOTE)]


def tflite_writer(variant: str) -> Callable[[Conversion, Path], list[str]]:
    def write(conv: Conversion, path: Path) -> list[str]:
        data, notes = _convert_tflite(conv, variant)
        write_bytes(path, data)
        takes = "int8" if variant == "int8" else "float32"
        return [*conv.input_note(takes), *notes]
    return write


def write_onnx(conv: Conversion, path: Path) -> list[str]:
    import tf2onnx

    logging.getLogger("tf2onnx").setLevel(logging.CRITICAL)  # it logs every pass
    model = conv.float32_model()
    fn = tf.function(lambda x: model(x, training=False))
    try:
        # [0], not `proto, _ =`: `_` is the translation function here (a local `_` would
        # make every `_()` below an UnboundLocalError when the conversion fails)
        proto = tf2onnx.convert.from_function(
            fn, input_signature=conv.signature(), opset=ONNX_OPSET,
            custom_op_handlers={"Erfc": (_erfc_as_one_minus_erf, [])})[0]
    except Exception as exc:
        raise ExportError(_("tf2onnx could not convert this model: {reason}").format(
            reason=_last_line(exc))) from None
    write_bytes(path, proto.SerializeToString())
    return conv.input_note("float32")


def _erfc_as_one_minus_erf(ctx: Any, node: Any, name: str, args: list[Any]) -> Any:
    """Keras' exact GELU computes erfc, which tf2onnx 1.17 leaves untranslated (ONNX
    has Erf, not Erfc): rewrite erfc(x) as 1 - erf(x)."""
    from tf2onnx import utils

    node.type = "Erf"
    one = ctx.make_const(utils.make_name("erfc_one"), np.array(1, dtype=np.float32))
    minus = ctx.insert_new_node_on_output("Sub", node.output[0], name=utils.make_name("erfc"))
    ctx.replace_inputs(minus, [one.output[0], node.output[0]])
    return minus


def _last_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[-1] if lines else type(exc).__name__)[:300]


WRITERS: dict[str, Callable[[Conversion, Path], list[str]]] = {
    "keras": write_keras,
    "savedmodel": write_saved_model,
    "tflite-float32": tflite_writer("float32"),
    "tflite-float16": tflite_writer("float16"),
    "tflite-dynamic": tflite_writer("dynamic"),
    "tflite-int8": tflite_writer("int8"),
    "onnx": write_onnx,
}
