"""The export formats: what each writes, which runtime verifies it, what it needs
installed, and the agreement it must reach. No TensorFlow import here."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from mpstudio.engine.i18n import N_, _

EXTRA_INSTALL = 'pip install "mpstudio[export]"'


@dataclass(frozen=True)
class ExportFormat:
    id: str  # what `mpstudio export --format` takes
    label: str  # English, marked with N_(): shown as _(fmt.label)
    suffix: str  # ".keras", ".tflite", ".onnx"; "" for a folder (SavedModel)
    runtime: str  # where the export is loaded back to verify it
    modules: tuple[str, ...]  # importable modules it needs beyond TensorFlow
    packages: tuple[str, ...]  # the pip packages that provide them
    min_agreement: float  # top-1 agreement with the trained model below this is flagged
    quantized: bool  # weights stored in fewer bits than float32 (a size saving to show)
    description: str  # English, marked with N_(): shown as _(fmt.description)
    # the trained model itself, input scaling included: it takes the stored uint8 images
    # of a model that scales them; every other format takes them scaled, as float32
    whole_model: bool = False

    @property
    def is_folder(self) -> bool:
        return not self.suffix

    @property
    def install_hint(self) -> str:
        return _("pip install {packages} (or {extra})").format(
            packages=" ".join(self.packages), extra=EXTRA_INSTALL)


# Float formats compute what the trained model computes: a differing top-1 answer is
# rare (a near tie rounded the other way), so 99% is the bar. Quantized weights move
# the outputs by design: 95% is where a user should look at accuracy before shipping.
FLOAT_AGREEMENT = 0.99
QUANTIZED_AGREEMENT = 0.95

FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat("keras", "Keras (.keras)", ".keras", "Keras", (), (), FLOAT_AGREEMENT, False,
                 N_("the model as Keras saves it: architecture, float32 weights, optimizer "
                    "state; load it under the policy it was trained with to resume training. "
                    "A model trained on uint8 images takes them as stored and scales them "
                    "itself (the other formats take them scaled to [0, 1])"),
                 whole_model=True),
    ExportFormat("savedmodel", N_("SavedModel (TF Serving)"), "", "TensorFlow", (), (),
                 FLOAT_AGREEMENT, False,
                 N_("a SavedModel folder with a float32 serving_default signature, for "
                    "TensorFlow Serving; it computes in the trained precision")),
    ExportFormat("tflite-float32", "TFLite float32", ".tflite", "LiteRT",
                 ("ai_edge_litert",), ("ai-edge-litert",), FLOAT_AGREEMENT, False,
                 N_("TensorFlow Lite with float32 weights and math")),
    ExportFormat("tflite-float16", N_("TFLite float16 weights"), ".tflite", "LiteRT",
                 ("ai_edge_litert",), ("ai-edge-litert",), FLOAT_AGREEMENT, True,
                 N_("weights stored as float16 (half the size), computed in float32 on "
                    "CPUs; GPU delegates can compute in float16")),
    ExportFormat("tflite-dynamic", N_("TFLite dynamic-range int8"), ".tflite", "LiteRT",
                 ("ai_edge_litert",), ("ai-edge-litert",), QUANTIZED_AGREEMENT, True,
                 N_("weights stored as int8 (a quarter of the size), activations float at "
                    "run time; no calibration data needed")),
    ExportFormat("tflite-int8", N_("TFLite full-integer int8"), ".tflite", "LiteRT",
                 ("ai_edge_litert",), ("ai-edge-litert",), QUANTIZED_AGREEMENT, True,
                 N_("int8 weights, activations, inputs and outputs, calibrated on examples "
                    "from the run's training data; for integer-only accelerators (Edge "
                    "TPU, microcontrollers)")),
    ExportFormat("onnx", "ONNX", ".onnx", "onnxruntime", ("tf2onnx", "onnxruntime"),
                 ("tf2onnx", "onnxruntime"), FLOAT_AGREEMENT, False,
                 N_("ONNX (opset 17) through tf2onnx, float32, for onnxruntime, TensorRT "
                    "and other ONNX runtimes")),
)

FORMAT_IDS: tuple[str, ...] = tuple(f.id for f in FORMATS)


def export_format(format_id: str) -> ExportFormat:
    for fmt in FORMATS:
        if fmt.id == format_id:
            return fmt
    raise ValueError(_("unknown export format {name}: pick one of {formats}").format(
        name=repr(format_id), formats=", ".join(FORMAT_IDS)))


def missing_modules(fmt: ExportFormat) -> tuple[str, ...]:
    """The modules ``fmt`` needs that are not installed (found without importing them)."""
    return tuple(m for m in fmt.modules if importlib.util.find_spec(m) is None)


def unavailable_reason(fmt: ExportFormat) -> str | None:
    """Why ``fmt`` cannot be used here, with the command that fixes it; None if it can."""
    missing = missing_modules(fmt)
    if not missing:
        return None
    names = missing[0] if len(missing) == 1 else _("{first} and {last}").format(
        first=", ".join(missing[:-1]), last=missing[-1])
    return _("{format} needs {modules}, which is not installed: {install}").format(
        format=_(fmt.label), modules=names, install=fmt.install_hint)


def default_path(folder: str | Path, base: str, fmt: ExportFormat) -> Path:
    """Where ``fmt`` goes by default: the TFLite variants get their own names so that
    exporting all of them into one folder keeps every file."""
    name = base
    if fmt.id.startswith("tflite-") and fmt.id != "tflite-float32":
        name = f"{base}-{fmt.id.removeprefix('tflite-')}"
    if fmt.id == "savedmodel":
        name = f"{base}-savedmodel"
    return Path(folder) / f"{name}{fmt.suffix}"


def export_label(run_id: int | None, template: str | None, precision: str | None) -> str:
    """"run 12 · mlp · mixed_float16": what is being exported, for the command line's
    progress and its JSON (the window words its own title)."""
    parts = [f"run {run_id}"] if run_id is not None else []
    parts += [p for p in (template, precision) if p]
    return " · ".join(parts) or "model"


def export_base_name(run_id: int | None, template: str, precision: str) -> str:
    """"mlp-mixed_float16-run12", the default file name (GUI and CLI alike): sorts by
    template and says which run it was."""
    return f"{template}-{precision}" + (f"-run{run_id}" if run_id is not None else "")
