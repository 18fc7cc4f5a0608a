"""A model of the user's own, saved as a ``.keras`` file, trained like a template: the
``template`` of a run is then the file's path (``--template my_model.keras``, or
"Open a .keras model…" in the window's template list).

The file's layers and weights are kept; the run's precision is given to every layer
(Keras 3 lets a built layer take a new ``dtype_policy``: its float32 variables stay as
they are, only the compute dtype changes), except the last, which computes in float32
so the loss sees float32 probabilities, as Keras' mixed-precision guide asks. The
weights in the file are the run's initial weights, the same for every run of it.
Layers named in ``float32_layers`` are then pinned like a template's.

When the data is stored uint8 images that the model scales itself, the file's graph is
rebuilt on the scaling's output from copies of its layers, one flat graph in which every
layer keeps its name (the diagnosis and the pins name them) and its weights.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.model_file import ModelFileError, archive_problem, open_model_file

MODEL_SUFFIX = ".keras"
DESCRIPTION = N_("your model from a .keras file: its layers and weights, trained under the "
                 "precision chosen (its last layer in float32)")


def is_model_file(template: object) -> bool:
    """Whether a run's template names a model file rather than a built-in template."""
    return isinstance(template, str) and template.lower().endswith(MODEL_SUFFIX)


def model_name(template: str) -> str:
    """How a sentence names a run's model: a template's name, a model file's name
    without its folder."""
    return Path(template).name if is_model_file(template) else template


def model_file_problem(template: str) -> str | None:
    """Why ``template`` cannot be loaded as a model file, before TensorFlow is imported."""
    path = Path(template).expanduser()
    if not path.exists():
        return _("model file {path} does not exist").format(path=path)
    if path.is_dir():
        return _("model file {path} is a folder, not a .keras file").format(path=path)
    if not path.is_file():  # a FIFO, a device: reading it could wait forever
        return _("model file {path} is not a regular file (a pipe or a device), not a "
                 ".keras file").format(path=path)
    if not zipfile.is_zipfile(path):
        return _("model file {path} is not a Keras 3 .keras file (a zip archive): save the "
                 "model with `model.save(\"name.keras\")`").format(path=path)
    return archive_problem(path)  # export's checks: refused in seconds, nothing unpacked


def load_user_model(template: str, input_shape: tuple[int, ...], num_classes: int,
                    policy: str, input_scale: float | None):  # -> keras.Model
    """The file's model under ``policy``, taking what the data gives; SpecError naming
    the file and what does not fit (its input shape, its number of outputs)."""
    import keras

    from mpstudio.engine.float8 import keras_policy
    from mpstudio.engine.spec import SpecError
    from mpstudio.engine.templates.model_input import SCALING_LAYER, input_scaling, model_input
    from mpstudio.engine.templates.pinning import set_policy

    model = _opened(template)
    misfit = inputs_misfit(template, _takes(model), model.outputs[0].shape[-1], input_shape,
                           num_classes)
    if misfit:
        raise SpecError([misfit])
    if input_scale is not None:  # uint8 images: the file's layers after the scaling
        with input_scaling(input_scale):
            inputs, scaled = model_input(input_shape)
        model = keras.Model(inputs, _call_layers(model, scaled), name=model.name)
    layers = [layer for layer in model.layers
              if not isinstance(layer, keras.layers.InputLayer) and layer.name != SCALING_LAYER]
    for layer in layers:
        set_policy(layer, keras_policy(policy))
    if layers:
        set_policy(layers[-1], "float32")  # the probabilities the loss reads
    return model


def _opened(template: str):  # -> keras.Model
    """The file's model as saved, opened as export opens one (checked again, in safe
    mode, refusals in one line); SpecError where mpstudio cannot train it."""
    from mpstudio.engine.spec import SpecError

    problem = model_file_problem(template)
    if problem:
        raise SpecError([problem])
    path = Path(template).expanduser()
    try:
        model = open_model_file(path)
    except ModelFileError as exc:
        raise SpecError([str(exc)]) from None
    try:
        model.inputs  # noqa: B018 - a Sequential saved before it was built has none
    except (AttributeError, ValueError):
        raise SpecError([_("model file {path} holds a model that was never built: give it an "
                           "Input (or call it once) before saving").format(path=path)]) from None
    if not _ends_in_softmax(model):
        raise SpecError([_("model file {path} does not end in a softmax: mpstudio's loss reads "
                           "probabilities, so add keras.layers.Activation(\"softmax\") after "
                           "its last layer and save it again").format(path=path)])
    if len(model.inputs) != 1 or len(model.outputs) != 1:
        raise SpecError([_("model file {path} has {inputs} inputs and {outputs} outputs; "
                           "mpstudio trains classifiers with one of each").format(
                               path=path, inputs=len(model.inputs),
                               outputs=len(model.outputs))])
    return model


def _takes(model) -> tuple[int | None, ...]:  # (keras.Model)
    return tuple(model.inputs[0].shape[1:])


def inputs_misfit(template: str, takes: tuple[int | None, ...], outputs: int,
                  input_shape: tuple[int, ...], num_classes: int) -> str | None:
    """Why a model file that takes ``takes`` and has ``outputs`` cannot train on data of
    ``input_shape`` and ``num_classes`` (None: it can)."""
    path = Path(template).expanduser()
    if len(takes) != len(input_shape) or any(
            t is not None and t != d for t, d in zip(takes, input_shape, strict=False)):
        return _("model file {path} takes inputs of shape {takes}, but the data's examples "
                 "are {shape}").format(path=path, takes=shape_text(takes),
                                       shape=shape_text(input_shape))
    if outputs != num_classes:
        return _("model file {path} has {outputs} outputs, but the data has {classes} "
                 "classes").format(path=path, outputs=outputs, classes=num_classes)
    return None


def shape_text(shape: tuple[int | None, ...]) -> str:
    """"224x224x3" ("?" for a size the model leaves open)."""
    return "x".join("?" if d is None else str(d) for d in shape)


def model_file_inputs(template: str) -> tuple[tuple[int | None, ...], int]:
    """(the input shape, without the batch, and the classes) a model file takes, read
    from the file opened as a run opens it; SpecError where it cannot be trained."""
    model = _opened(template)
    return _takes(model), int(model.outputs[0].shape[-1])


def own_inputs(template: str) -> tuple[tuple[int, ...], int, float | None]:
    """A model file's own input shape and classes, as the data a run would need (3-D
    inputs taken as stored uint8 images, scaled by the model, as ``--input-shape`` takes
    them); SpecError where its input leaves a size open (the data must say it)."""
    return own_inputs_from(template, *model_file_inputs(template))


def own_inputs_from(template: str, takes: tuple[int | None, ...],
                    classes: int) -> tuple[tuple[int, ...], int, float | None]:
    """``own_inputs`` of a model file already read (``model_file_inputs``)."""
    from mpstudio.engine.spec import SpecError

    if not takes or any(d is None for d in takes):
        raise SpecError([_("model file {path} takes inputs of shape {takes}, which leaves a "
                           "size open: give the data's shape (--input-shape or a dataset)")
                         .format(path=Path(template).expanduser(), takes=shape_text(takes))])
    shape = tuple(int(d) for d in takes if d is not None)
    return shape, classes, stored_image_scale(shape)


def data_or_own_inputs(template: str, shape: tuple[int, ...], classes: int,
                       scale: float | None) -> tuple[tuple[int, ...], int, float | None, str]:
    """The data's inputs where the model file fits them, else (the setup shows it rather
    than nothing) its own, with why: the sentence a run on that data would fail with."""
    takes, outputs = model_file_inputs(template)
    misfit = inputs_misfit(template, takes, outputs, shape, classes)
    if misfit is None:
        return shape, classes, scale, ""
    return (*own_inputs_from(template, takes, outputs), misfit)


def with_inputs(batch: int, inputs: str) -> str:
    """A batch in a sentence, with the input it is for where that is a model file's own:
    "128 (for its own input 224x224x3, 1000 classes)"."""
    return _("{batch} ({inputs})").format(batch=batch, inputs=inputs) if inputs else str(batch)


def stored_image_scale(shape: tuple[int, ...]) -> float | None:
    """The scale a model applies to data of ``shape`` given without a dataset: images
    (height, width, channels) stored as uint8 0..255; anything else as it comes."""
    return 1 / 255 if len(shape) == 3 else None


def own_inputs_text(shape: tuple[int, ...], classes: int) -> str:
    """"for its own input 224x224x3, 1000 classes" (a ``Said``): a model file predicted
    (or measured) on data of its own shape, not the data's."""
    from mpstudio.engine.said import said

    return said(N_("for its own input {shape}, {classes} classes"), shape=shape_text(shape),
                classes=classes)


def _ends_in_softmax(model) -> bool:  # (keras.Model) -> bool
    """Whether the model's last layer (a nested model's, looked into) gives softmax
    probabilities: a Softmax layer, or a layer whose activation is softmax."""
    import keras

    layer = model.layers[-1] if model.layers else None
    while isinstance(layer, keras.Model) and layer.layers:
        layer = layer.layers[-1]
    if isinstance(layer, keras.layers.Softmax):
        return True
    return getattr(layer, "activation", None) is keras.activations.softmax


def _call_layers(model, tensor):  # (keras.Model, KerasTensor) -> KerasTensor
    """``model``'s graph rebuilt on ``tensor`` from fresh copies of its layers (their
    configs, then their weights): each copy has this one graph, so its ``output`` is
    the tensor of this model (the numerics diagnosis reads it), and its name is the
    file's."""
    import keras

    copies: dict = {}

    def fresh(layer):
        if layer not in copies:
            copies[layer] = layer.__class__.from_config(layer.get_config())
        return copies[layer]

    if isinstance(model, keras.Sequential):
        for layer in model.layers:
            tensor = fresh(layer)(tensor)
    else:  # Functional.call's own walk of its graph, each layer swapped for its copy
        tensor = model._run_through_graph(tensor, operation_fn=fresh)
    for layer, copy in copies.items():
        copy.set_weights(layer.get_weights())
    return tensor
