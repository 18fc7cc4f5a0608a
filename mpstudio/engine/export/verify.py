"""Loading an export back in its own runtime and running it on the held-out
examples, to compare with what the trained model computes on them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.export.formats import ExportFormat
from mpstudio.engine.export.results import ExportError, Verification
from mpstudio.engine.export.samples import ExportSamples
from mpstudio.engine.export.source import load_model_file
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import stderr_hidden

BATCH = 64


def predict_keras(model: keras.Model, x: np.ndarray) -> np.ndarray:
    return np.asarray(model.predict(x, batch_size=BATCH, verbose=0), dtype=np.float32)


def run_keras(path: Path, x: np.ndarray) -> np.ndarray:
    return predict_keras(load_model_file(path), x)


def run_saved_model(path: Path, x: np.ndarray) -> np.ndarray:
    loaded = tf.saved_model.load(str(path))
    signature = loaded.signatures["serving_default"]
    inputs = signature.structured_input_signature[1]
    outputs = signature.structured_outputs
    if len(inputs) != 1 or len(outputs) != 1:
        raise ExportError(_("the SavedModel's serving signature should have one input and "
                            "one output, it has {inputs} and {outputs}").format(
                                inputs=len(inputs), outputs=len(outputs)))
    (name, spec), = inputs.items()
    (out_name, out_spec), = outputs.items()
    if spec.dtype != tf.float32 or out_spec.dtype != tf.float32:
        raise ExportError(_("the serving signature takes {takes} and returns {returns}; "
                            "TF Serving clients expect float32").format(
                                takes=spec.dtype.name, returns=out_spec.dtype.name))
    parts = [signature(**{name: tf.constant(x[i:i + BATCH])})[out_name].numpy()
             for i in range(0, len(x), BATCH)]
    return np.concatenate(parts).astype(np.float32)


def run_litert(path: Path, x: np.ndarray) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter

    with stderr_hidden():  # "INFO: Created TensorFlow Lite XNNPACK delegate for CPU."
        interpreter = Interpreter(model_path=str(path))
        return _run_interpreter(interpreter, x)


def _run_interpreter(interpreter: Any, x: np.ndarray) -> np.ndarray:
    inp = interpreter.get_input_details()[0]
    out = interpreter.get_output_details()[0]
    batch = len(x) if inp["shape_signature"][0] == -1 else int(inp["shape"][0])
    if inp["shape_signature"][0] == -1:
        interpreter.resize_tensor_input(inp["index"], [batch, *x.shape[1:]])
    interpreter.allocate_tensors()
    in_scale, in_zero = inp["quantization"]
    out_scale, out_zero = out["quantization"]
    parts = []
    for i in range(0, len(x), batch):
        chunk = x[i:i + batch]
        if inp["dtype"] == np.int8:  # full-integer: quantize as the model says
            chunk = np.clip(np.round(chunk / in_scale + in_zero), -128, 127).astype(np.int8)
        interpreter.set_tensor(inp["index"], chunk)
        interpreter.invoke()
        result = interpreter.get_tensor(out["index"])
        if out["dtype"] == np.int8:
            result = (result.astype(np.float32) - out_zero) * out_scale
        parts.append(np.array(result, dtype=np.float32))
    return np.concatenate(parts)


def run_onnx(path: Path, x: np.ndarray) -> np.ndarray:
    import onnxruntime

    try:
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as exc:
        missing = re.search(r"No Op registered for (\w+)", str(exc))
        what = (_("it uses {op}, which tf2onnx could not translate into an ONNX "
                  "operator").format(op=missing.group(1))
                if missing else str(exc).split(" : ")[-1].strip()[:200])
        raise ExportError(_("onnxruntime cannot run the converted model: {reason}. Export "
                            "SavedModel or TFLite instead").format(reason=what)) from None
    name = session.get_inputs()[0].name
    return np.asarray(session.run(None, {name: x})[0], dtype=np.float32)


RUNNERS: dict[str, Callable[[Path, np.ndarray], np.ndarray]] = {
    "Keras": run_keras,
    "TensorFlow": run_saved_model,
    "LiteRT": run_litert,
    "onnxruntime": run_onnx,
}


def verify(fmt: ExportFormat, path: Path, samples: ExportSamples,
           reference: np.ndarray) -> Verification:
    """Run the export at ``path`` in its runtime and compare with ``reference``, the
    trained model's outputs on the same held-out examples (each format fed them as it
    takes them: the trained model's own inputs, or scaled float32)."""
    x = samples.held_out_x if fmt.whole_model else samples.converted_x
    outputs = RUNNERS[fmt.runtime](path, x)
    if outputs.shape != reference.shape:
        raise ExportError(_("the export returns shape {export}, the trained model "
                            "{trained}").format(export=outputs.shape, trained=reference.shape))
    difference = np.abs(outputs - reference)
    max_difference = float(difference.max()) if np.isfinite(difference).all() else np.inf
    agreement = float(np.mean(outputs.argmax(-1) == reference.argmax(-1)))
    export_accuracy = trained_accuracy = None
    if samples.held_out_y is not None:
        labels = samples.held_out_y.reshape(-1)
        export_accuracy = float(np.mean(outputs.argmax(-1) == labels))
        trained_accuracy = float(np.mean(reference.argmax(-1) == labels))
    return Verification(fmt.runtime, len(reference), samples.origin, max_difference,
                        agreement, fmt.min_agreement, export_accuracy, trained_accuracy)
