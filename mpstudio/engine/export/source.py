"""What is exported: a trained model with the spec it was trained from, taken from
memory (the run just trained), from a run's kept model, or from a .keras file.

Every model file is opened in Keras' safe mode: a .keras file can hold a Lambda
layer's pickled Python code, and opening a file must never run code.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keras

from mpstudio.engine.export.formats import export_label
from mpstudio.engine.export.results import ExportError
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.zip_reading import inflation


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
    return export_label(run_id, spec and spec.template, spec and spec.precision)


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
    """Open a .keras file in safe mode; any problem is an ExportError that names it."""
    import mpstudio.engine.templates.sequence  # noqa: F401  (registers the custom layers)

    path = Path(path)
    if not path.is_file():
        raise ExportError(_("there is no model file at {path}").format(path=path))
    if path.suffix.lower() != ".keras":
        raise ExportError(_("{name} is not a .keras file: mpstudio opens Keras 3 models "
                            "saved with model.save('name.keras')").format(name=path.name))
    if not zipfile.is_zipfile(path):  # Keras would say "file not found" here
        raise ExportError(_("cannot open {name}: it is damaged or not a Keras 3 model file "
                            "(a .keras file is a zip archive)").format(name=path.name))
    refuse_zip_bomb(path)
    try:
        return keras.saving.load_model(path, compile=False, safe_mode=True)
    except ValueError as exc:
        text = str(exc)
        if "safe_mode" in text or "unsafe" in text or "Lambda" in text:
            raise ExportError(_("refused to open {name}: {reason}").format(
                name=path.name, reason=_code_in(text))) from None
        raise ExportError(_("cannot open {name}: {reason}").format(
            name=path.name, reason=_first_sentence(text))) from None
    except Exception as exc:
        raise ExportError(_("cannot open {name}: it is damaged or not a Keras 3 model file "
                            "({error})").format(name=path.name,
                                                error=f"{type(exc).__name__}: {exc}")) from None


def _code_in(keras_text: str) -> str:
    """What Keras' safe mode refused, in one line (its own text runs to paragraphs)."""
    found = re.search(r"deserialization of an? `(\w+)`", keras_text)
    kind = found.group(1) if found else "Lambda"
    if kind == "TFSMLayer":
        return _("it contains a TFSMLayer (a SavedModel whose code runs when loaded), and "
                 "mpstudio opens model files in Keras' safe mode so that opening a file can "
                 "never run code. Export that SavedModel itself, or rebuild the model from "
                 "Keras layers")
    return _("it contains Python code (a {kind} layer), and mpstudio opens model files in "
             "Keras' safe mode so that opening a file can never run code. Replace the "
             "{kind} with a registered custom layer and save it again").format(kind=kind)


def _first_sentence(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), text)
    return line if len(line) <= 300 else line[:297] + "..."


MAX_CONFIG_BYTES = 64 * 2**20  # a model's config.json is kilobytes, even for a big model


def refuse_zip_bomb(path: Path) -> None:
    """Look at every member's declared size and compression before Keras reads any: a
    4 MB file that unpacks to 4 GB of zeros would otherwise be read into memory.
    (Python's zipfile never yields more than a member's declared size.)"""
    import psutil

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise ExportError(_("cannot open {name}: it is damaged ({error})").format(
            name=path.name, error=exc)) from None
    total = 0
    for member in members:
        size = member.file_size
        total += size
        if member.filename.endswith(".json") and size > MAX_CONFIG_BYTES:
            raise ExportError(_("refused to open {name}: its {member} unpacks to {size} MB "
                                "(a model's is a few kB): the file is damaged or "
                                "crafted").format(name=path.name, member=member.filename,
                                                  size=f"{size / 2**20:,.0f}"))
        ratio = inflation(member)  # weights barely compress; zeros pack a thousandfold
        if ratio is not None:
            raise ExportError(_("refused to open {name}: its {member} unpacks {ratio}-fold "
                                "to {size} MB, which trained weights never do: the file is "
                                "damaged or crafted").format(
                                    name=path.name, member=member.filename,
                                    ratio=f"{ratio:,.0f}", size=f"{size / 2**20:,.0f}"))
    available = psutil.virtual_memory().available
    if total > available:
        raise ExportError(_("cannot open {name}: it unpacks to {size} GB and this machine "
                            "has {free} GB of memory free").format(
                                name=path.name, size=f"{total / 2**30:,.1f}",
                                free=f"{available / 2**30:,.1f}"))


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
