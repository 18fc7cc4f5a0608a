"""What is exported: a trained model with the spec it was trained from, taken from
memory (the run just trained), from a run's kept model, or from a .keras file.

Every model file is opened in Keras' safe mode: a .keras file can hold a Lambda
layer's pickled Python code, and opening a file must never run code.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keras

from mpstudio.engine.export.formats import export_label
from mpstudio.engine.export.results import ExportError
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec, SpecError


@dataclass
class ExportSource:
    model: keras.Model  # the trained model under its own policy
    spec: RunSpec | None  # None for a model file from elsewhere
    run_id: int | None
    label: str  # "run 12 · mlp · mixed_float16"
    keras_file: Path | None = None  # the run's kept .keras file, when there is one

    @property
    def policy(self) -> str:
        """The policy the model computes in (a file's: its first non-float32 layer's)."""
        if self.spec is not None:
            return self.spec.precision
        names = {layer.dtype_policy.name for layer in self.model.layers}
        mixed = sorted(n for n in names if n != "float32")
        return mixed[0] if mixed else "float32"


def source_label(spec: RunSpec | None, run_id: int | None) -> str:
    if spec is None:
        return export_label(run_id, None, None)
    return export_label(run_id, spec.template, spec.precision)


def source_from_model(model: keras.Model, spec: RunSpec | None,
                      run_id: int | None = None) -> ExportSource:
    return ExportSource(model, spec, run_id, source_label(spec, run_id))


def source_from_run(run_id: int, history: str | Path | None = None) -> ExportSource:
    """A run from the history, with the model it kept."""
    from mpstudio.engine.history.run_models import model_file
    from mpstudio.engine.history.store import HistoryError, RunStore

    try:
        with RunStore(history) as store:
            stored = store.run(run_id, metrics=False)
    except HistoryError as exc:
        raise ExportError(str(exc)) from None
    path = model_file(run_id, history or None)
    if path is None:
        raise ExportError(_(
            "run {id} kept no trained model ({status}): a run keeps its model when it "
            "finishes or is stopped; it diverged, failed, or was recorded before mpstudio "
            "kept models. Re-run it (History > Re-run) to get one").format(
                id=run_id, status=stored.row.status))
    model = load_model_file(path)
    try:
        spec: RunSpec | None = RunSpec.from_dict(stored.spec)
    except SpecError:  # a spec from a later release: export it as a plain model file
        spec = None
    return ExportSource(model, spec, run_id, source_label(spec, run_id), keras_file=path)


def source_from_file(path: str | Path) -> ExportSource:
    """A .keras file from elsewhere (no run, no spec)."""
    path = Path(path).expanduser()
    model = load_model_file(path)
    return ExportSource(model, None, None, path.name, keras_file=path)


def load_model_file(path: str | Path) -> keras.Model:
    """Open a .keras file in safe mode (model_file.py); any problem is an ExportError
    that names it."""
    from mpstudio.engine.model_file import ModelFileError, open_model_file

    path = Path(path)
    if not path.is_file():
        raise ExportError(_("there is no model file at {path}").format(path=path))
    if path.suffix.lower() != ".keras":
        raise ExportError(_("{name} is not a .keras file: mpstudio opens Keras 3 models "
                            "saved with model.save('name.keras')").format(name=path.name))
    if not zipfile.is_zipfile(path):  # Keras would say "file not found" here
        raise ExportError(_("cannot open {name}: it is damaged or not a Keras 3 model file "
                            "(a .keras file is a zip archive)").format(name=path.name))
    try:
        return open_model_file(path)
    except ModelFileError as exc:
        raise ExportError(str(exc)) from None


def float32_copy(model: keras.Model) -> keras.Model:
    """The same architecture computing in float32, with the trained weights.

    TFLite and tf2onnx cannot convert float16 ops, so a model trained under a mixed
    policy is rebuilt from its config with every layer's policy set to float32, then
    given the trained weights (which mixed precision keeps in float32 already)."""
    if all(layer.dtype_policy.name == "float32" for layer in model.layers):
        return model
    config = _float32_config(keras.saving.serialize_keras_object(model))
    copy = keras.saving.deserialize_keras_object(config, safe_mode=True)
    copy.set_weights(model.get_weights())
    return copy


def _float32_config(obj: Any) -> Any:
    if isinstance(obj, dict):
        if obj.get("class_name") == "DTypePolicy":
            return {**obj, "config": {**obj.get("config", {}), "name": "float32"}}
        return {k: ("float32" if k == "dtype" and isinstance(v, str) and v.startswith("mixed_")
                    else _float32_config(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_float32_config(v) for v in obj]
    return obj
