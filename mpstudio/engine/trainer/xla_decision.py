"""Whether a run really trains with XLA, and why, read from the compiled model.

The run asks for XLA (``xla = "on"``, or ``"auto"`` on a GPU) and Keras has the
last word: ``Model.jit_compile``'s setter turns XLA off when a layer says
``supports_jit = False``. Keras' LSTM and GRU say so when they will run cuDNN's
kernel (at construction, whenever TensorFlow lists a GPU), because XLA cannot
compile the cuDNN op (keras-team/keras#18456). ``fit`` then quietly trains
without XLA; a hand-written ``tf.function(jit_compile=True)`` step fails at step 1.
So both loops take the decision from the compiled model, and the run reports it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import keras

from mpstudio.engine.device_info import RunDevices
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said
from mpstudio.engine.spec import RunSpec

_NO_XLA_STRATEGY = {
    "mirrored": N_("off: TensorFlow cannot XLA-compile a MirroredStrategy step"),
    "multiworker": N_("off: TensorFlow cannot XLA-compile a MultiWorkerMirroredStrategy step"),
    "tpu": N_("the TPU compiles every step with XLA itself"),
}


@dataclass(frozen=True)
class XlaDecision:
    requested: bool  # what the spec and the device asked for
    on: bool  # what the compiled model does
    note: str  # why, in words (a Said: the run's summary keeps it as its message)
    why: str = ""  # overruled: why Keras turned it off, in words

    @property
    def overruled(self) -> bool:
        """XLA was asked for and Keras turned it off."""
        return self.requested and not self.on


def xla_request(spec: RunSpec, devices: RunDevices, strategy: str) -> bool:
    """What the run asks Keras for (``compile(jit_compile=...)``)."""
    if strategy != "default":
        return False
    if spec.xla in ("on", "off"):
        return spec.xla == "on"
    return devices.kind == "GPU"


def _layers(model: keras.Layer) -> Iterator[keras.Layer]:
    for layer in getattr(model, "layers", ()):
        yield layer
        yield from _layers(layer)


def blocking_layers(model: keras.Model) -> list[str]:
    """The layers that refuse XLA, as "'lstm_128' (LSTM)"."""
    return [f"'{layer.name}' ({type(layer).__name__})" for layer in _layers(model)
            if not getattr(layer, "supports_jit", True)]


def decide_xla(spec: RunSpec, devices: RunDevices, strategy: str, requested: bool,
               model: keras.Model) -> XlaDecision:
    """The decision as taken, after ``model.compile(jit_compile=requested)``."""
    on = bool(model.jit_compile)
    if strategy in _NO_XLA_STRATEGY:
        return XlaDecision(requested, on, said(_NO_XLA_STRATEGY[strategy]))
    if requested and not on:
        blockers = ", ".join(blocking_layers(model))
        if blockers and devices.kind == "GPU":
            why = said(N_("layer {layers} runs cuDNN's kernel on this GPU, which cannot be "
                          "XLA-compiled"), layers=blockers)
        elif blockers:
            why = said(N_("layer {layers} says it cannot be XLA-compiled"), layers=blockers)
        else:
            why = said(N_("Keras found the model cannot be XLA-compiled here (op determinism "
                          "is on)"))
        turned = said(N_("Keras turned XLA off: {why}"), why=why)
        return XlaDecision(requested, on, said(N_("off: {why}"), why=turned), turned)
    if on:
        return XlaDecision(requested, on, said(N_("on (xla = on)")) if spec.xla == "on" else
                           said(N_("on: xla = auto turns it on for GPUs")))
    if spec.xla == "off":
        return XlaDecision(requested, on, said(N_("off (xla = off)")))
    return XlaDecision(requested, on, said(N_("off: xla = auto keeps it off on a {device}"),
                                           device=devices.kind))
