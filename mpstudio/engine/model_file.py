"""Opening a ``.keras`` file mpstudio did not write (``mpstudio export FILE``, and a
run's ``--template FILE``): one way, with the same checks, so neither can be made to
read gigabytes or run code.

- Before Keras reads anything, the zip's directory is checked (``archive_problem``): a
  few-MB file whose weights unpack to gigabytes of zeros, or whose config.json is a
  gigabyte, would otherwise be read into memory for a minute before failing. This
  needs no TensorFlow: a spec naming such a file is refused as it is checked.
- Keras opens it in safe mode: a Lambda layer's pickled code, a TFSMLayer, or a layer
  "class" from any Python module (``module="os", class_name="system"``) is refused, and
  what Keras says in paragraphs is said in one line that names it.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from mpstudio.engine.i18n import _
from mpstudio.engine.zip_reading import MAX_RATIO, inflation

MAX_CONFIG_BYTES = 64 * 2**20  # a model's config.json is kilobytes, even for a big model


class ModelFileError(Exception):
    """The file cannot be opened; the message (one line) names it and says why."""


def archive_problem(path: Path, *, max_config_bytes: int = MAX_CONFIG_BYTES,
                    max_ratio: float = MAX_RATIO) -> str | None:
    """Why the zip at ``path`` must not be unpacked, from every member's declared size
    and compression (Python's zipfile never yields more than a member declares); None
    when nothing is wrong. Reads the zip's directory only."""
    import psutil

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        return _("cannot open {name}: it is damaged ({error})").format(name=path.name,
                                                                       error=exc)
    total = 0
    for member in members:
        size = member.file_size
        total += size
        if member.filename.endswith(".json") and size > max_config_bytes:
            return _("refused to open {name}: its {member} unpacks to {size} MB (a model's "
                     "is a few kB): the file is damaged or crafted").format(
                         name=path.name, member=member.filename,
                         size=f"{size / 2**20:,.0f}")
        ratio = inflation(member, max_ratio)  # weights barely compress; zeros a thousandfold
        if ratio is not None:
            return _("refused to open {name}: its {member} unpacks {ratio}-fold to {size} "
                     "MB, which trained weights never do: the file is damaged or "
                     "crafted").format(name=path.name, member=member.filename,
                                       ratio=f"{ratio:,.0f}", size=f"{size / 2**20:,.0f}")
    available = psutil.virtual_memory().available
    if total > available:
        return _("cannot open {name}: it unpacks to {size} GB and this machine has {free} "
                 "GB of memory free").format(name=path.name, size=f"{total / 2**30:,.1f}",
                                             free=f"{available / 2**30:,.1f}")
    return None


def open_model_file(path: Path):  # -> keras.Model
    """The model in ``path`` (a zip: the caller has checked it is one), opened in safe
    mode after ``archive_problem``; ModelFileError in one line otherwise."""
    import keras

    import mpstudio.engine.templates.sequence  # noqa: F401  (registers the custom layers)

    problem = archive_problem(path)
    if problem:
        raise ModelFileError(problem)
    try:
        return keras.saving.load_model(path, compile=False, safe_mode=True)
    except Exception as exc:
        raise ModelFileError(load_problem(path.name, exc)) from None


def load_problem(name: str, exc: Exception) -> str:
    """What Keras' failure to load ``name`` means, in one line."""
    text = str(exc)
    unknown = _unknown_object(text)
    if unknown:
        return _("refused to open {name}: {reason}").format(name=name, reason=unknown)
    if isinstance(exc, ValueError):
        if "safe_mode" in text or "unsafe" in text or "Lambda" in text:
            return _("refused to open {name}: {reason}").format(name=name,
                                                               reason=_code_in(text))
        return _("cannot open {name}: {reason}").format(name=name,
                                                        reason=_first_sentence(text))
    return _("cannot open {name}: it is damaged or not a Keras 3 model file "
             "({error})").format(name=name, error=f"{type(exc).__name__}: "
                                 f"{_first_sentence(text)}")


_NOT_FOUND = re.compile(r"Could not locate (class|function) '([^']+)'")


def _unknown_object(keras_text: str) -> str | None:
    """A layer (or function) Keras could not find, named: its layer, module and class.
    Keras says it over a few paragraphs with the whole config; nothing of it ran."""
    found = _NOT_FOUND.search(keras_text)
    if not found:
        return None
    kind, name = found.groups()
    config = keras_text[found.end():]
    module = re.search(r"'module': '([^']*)'", config)
    layer = re.search(r"'name': '([^']*)'", config)
    where = f"{module.group(1)}.{name}" if module else name
    if kind == "function":
        return _("it calls the function {function}, which is neither Keras' nor mpstudio's "
                 "(nothing of it was run): use a Keras activation or function instead and "
                 "save the model again").format(function=where)
    return _("its layer {layer} is of class {cls}, which is neither a Keras layer nor "
             "mpstudio's (nothing of it was run): rebuild that layer from Keras layers and "
             "save the model again").format(layer=repr(layer.group(1)) if layer else "?",
                                            cls=where)


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
