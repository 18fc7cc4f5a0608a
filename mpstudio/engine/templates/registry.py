"""The model-template registry: listed without Keras, built under an explicit policy.

A builder is ``(input_shape, num_classes) -> keras.Model`` and is always called
inside ``policy_scope(policy)``, so every layer takes the run's policy; each
builder ends in a float32 softmax so the outputs and the loss stay in float32.
It takes its input from ``model_input.model_input``, so that data stored as uint8
images (``input_scale``) is scaled by the model's first layer, not on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.lazy_import import resolve
from mpstudio.engine.registry import Registry
from mpstudio.engine.templates.user_model import DESCRIPTION as USER_MODEL_DESCRIPTION
from mpstudio.engine.templates.user_model import is_model_file

if TYPE_CHECKING:
    import keras

IMAGE, SEQUENCE, FLAT = "image", "sequence", "flat"
_RANK_KIND = {3: IMAGE, 2: SEQUENCE, 1: FLAT}
# The input kinds in words (the keys stay English in specs and reports).
KIND_TEXT = {IMAGE: N_("image"), SEQUENCE: N_("sequence"), FLAT: N_("flat")}


@dataclass(frozen=True)
class TemplateEntry:
    name: str
    description: str  # English, marked with N_(): shown as _(entry.description)
    builder: str  # "module:function"; imported only when a model is built
    accepts: frozenset[str]  # input kinds: image (HxWxC), sequence (TxF), flat (F)


_TEMPLATES: Registry[TemplateEntry] = Registry("template")


def register_template(entry: TemplateEntry) -> None:
    _TEMPLATES.register(entry.name, entry)


def template_names() -> list[str]:
    return _TEMPLATES.names()


def template_entry(name: str) -> TemplateEntry:
    """A registered template, or a model file's entry (its path is the name)."""
    if is_model_file(name):
        return TemplateEntry(name, USER_MODEL_DESCRIPTION, "", frozenset({IMAGE, SEQUENCE, FLAT}))
    return _TEMPLATES.get(name)


def input_problem(name: str, input_shape: tuple[int, ...]) -> str | None:
    """Why ``name`` cannot take inputs of ``input_shape``, or None when it can."""
    kind = _RANK_KIND.get(len(input_shape), f"rank-{len(input_shape)}")
    return kind_problem(name, kind, f" ({'x'.join(map(str, input_shape))})")


def _kind_text(kind: str) -> str:
    return _(KIND_TEXT[kind]) if kind in KIND_TEXT else kind


def kind_problem(name: str, kind: str, detail: str = "") -> str | None:
    """Why ``name`` cannot take ``kind`` inputs (image, sequence, flat), or None."""
    entry = template_entry(name)
    if kind in entry.accepts:
        return None
    fits = [t.name for t in _TEMPLATES.entries() if kind in t.accepts]
    kinds = _(" or ").join(_kind_text(k) for k in sorted(entry.accepts))
    return _("template {name} takes {kinds} inputs, but the data is {kind}{detail}; "
             "templates that fit: {fits}").format(
        name=repr(name), kinds=kinds, kind=_kind_text(kind), detail=detail,
        fits=", ".join(fits) or _("none"))


def build_model(
    name: str, input_shape: tuple[int, ...], num_classes: int, policy: str,
    input_scale: float | None = None, float32_layers: Sequence[str] = (),
) -> keras.Model:
    """Build template ``name`` with every layer under ``policy`` (global policy restored),
    but ``float32_layers`` kept in float32 (SpecError naming the layers for a name the
    model does not have).

    ``input_scale`` (a DataBundle's): the model takes the stored uint8 images and its
    first layer multiplies them by this; None: it takes float inputs as they come.
    """
    from mpstudio.engine.precision import policy_scope
    from mpstudio.engine.templates.model_input import input_scale_of, input_scaling
    from mpstudio.engine.templates.pinning import pin_float32

    if is_model_file(name):  # the user's own model: its layers, the run's policy
        from mpstudio.engine.templates.user_model import load_user_model

        return pin_float32(load_user_model(name, tuple(input_shape), num_classes, policy,
                                           input_scale), float32_layers)
    problem = input_problem(name, tuple(input_shape))
    if problem:
        raise ValueError(problem)
    builder = resolve(template_entry(name).builder)
    with policy_scope(policy), input_scaling(input_scale):
        model = builder(tuple(input_shape), num_classes)
    if input_scale_of(model) != input_scale:  # it would read 0..255 as they are
        raise ValueError(
            f"template {name!r} ({template_entry(name).builder}) does not scale its "
            f"inputs as asked (x {input_scale}): build its input with "
            "mpstudio.engine.templates.model_input.model_input(input_shape)")
    return pin_float32(model, float32_layers)


def _register_builtins() -> None:
    any_input = frozenset({IMAGE, SEQUENCE, FLAT})
    grid = frozenset({IMAGE, SEQUENCE})
    pkg = "mpstudio.engine.templates"
    for name, builder, accepts, description in [
        ("mlp", "dense:build_mlp", any_input,
         N_("Dense(1024, relu) -> Dense(classes): the classic mixed-precision demo")),
        ("mlp_bn", "dense:build_mlp_bn", any_input,
         N_("Dense 512/256 with BatchNormalization and Dropout")),
        ("cnn", "conv:build_cnn", grid,
         N_("two conv blocks (BatchNorm, pooling, dropout), then Dense 512")),
        ("resnet", "conv:build_resnet", grid,
         N_("small ResNet: 3 stages of 2 residual blocks, 16/32/64 channels")),
        ("transformer", "sequence:build_transformer", grid,
         N_("2-block encoder (4-head attention, LayerNorm, MLP) over image patches or rows")),
        ("lstm", "sequence:build_lstm", grid,
         N_("LSTM(128) classifier over the (normalized) rows of an image or a sequence")),
    ]:
        register_template(
            TemplateEntry(name, description, f"{pkg}.{builder}", accepts)
        )


_register_builtins()
