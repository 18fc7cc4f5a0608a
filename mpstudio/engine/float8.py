"""float8 runs: a mixed_bfloat16 model whose Dense/EinsumDense layers Keras 3 quantizes
with ``model.quantize("float8")``.

Keras' float8 path is a quantize-dequantize (float8_e4m3fn for inputs and kernel,
float8_e5m2 for the output gradient, delayed scaling from an amax history) around an
ordinary matmul in the compute dtype. Only XLA's GPU compiler on compute capability
8.9+ (Ada, Hopper, Blackwell) rewrites that pattern into float8 matmuls; anywhere else
it runs, but as bfloat16 with extra work: a simulation of float8's numerics, never a
speed-up. So a run refuses other devices unless MPSTUDIO_SIMULATE_FLOAT8=1 asks for the
simulation (the tests, or checking float8's accuracy before renting a GPU).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from mpstudio.engine.i18n import _

if TYPE_CHECKING:
    import keras

    from mpstudio.engine.device_info import RunDevices

FLOAT8 = "float8"
BASE_POLICY = "mixed_bfloat16"  # what a float8 model is built under, and compared against
FLOAT8_FROM = (8, 9)  # Ada; Hopper 9.0, Blackwell 10.x/12.x
# NVIDIA Transformer Engine: float8 slower than bfloat16 at hidden size 1024, faster from
# about 5000; below this width the quantize-dequantize costs more than the matmul saves.
GAIN_WIDTH = 4096
SIMULATE_ENV = "MPSTUDIO_SIMULATE_FLOAT8"


def keras_policy(precision: str) -> str:
    """The Keras dtype policy a run of ``precision`` builds its model under."""
    return BASE_POLICY if precision == FLOAT8 else precision


def simulation_allowed(environ: Mapping[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    return environ.get(SIMULATE_ENV, "") not in ("", "0")


def capability_problem(where: str) -> str:
    """Why float8 is not offered on ``where`` (a device described in words)."""
    return _("float8 matmuls need a GPU of compute capability 8.9 or newer (Ada, Hopper, "
             "Blackwell); this machine has {device}. Set {env}=1 to simulate float8's "
             "numerics anyway (no faster: bfloat16 with extra work)").format(
                 device=where, env=SIMULATE_ENV)


def device_problem(kind: str, capabilities: list[tuple[int, int] | None], label: str,
                   environ: Mapping[str, str] | None = None) -> str | None:
    """None when a float8 run may start on these devices (``kind`` GPU/TPU/CPU, each
    GPU's compute capability), else the reason it may not."""
    if kind == "GPU" and capabilities and all(
            cc is not None and tuple(cc) >= FLOAT8_FROM for cc in capabilities):
        return None
    if simulation_allowed(environ):
        return None
    return capability_problem(label)


def quantize_float8(model: keras.Model) -> list[str]:
    """Quantize the model's Dense and EinsumDense layers that compute in bfloat16 (a
    layer pinned to float32 stays as it is) and return their paths. The model must be
    built; its weights stay as they were, six float32 scale/amax-history variables are
    added per layer."""
    import keras

    kinds = (keras.layers.Dense, keras.layers.EinsumDense)

    def wanted(layer: keras.layers.Layer) -> bool:
        return type(layer) in kinds and layer.compute_dtype == "bfloat16"

    model.quantize(FLOAT8, filters=wanted)
    return float8_layers(model)


def float8_layers(model: keras.Model) -> list[str]:
    """The paths of the layers that run the float8 path."""
    return [layer.path for layer in model._flatten_layers(include_self=False)
            if getattr(layer, "quantization_mode", None) == FLOAT8]


def largest_dense_width(model: keras.Model) -> int:
    """The widest matmul dimension among the float8 layers' kernels (0: none)."""
    widths = [max(layer._kernel.shape) for layer in model._flatten_layers(include_self=False)
              if getattr(layer, "quantization_mode", None) == FLOAT8]
    return int(max(widths, default=0))


def small_model_warning(model: keras.Model) -> str | None:
    """The honest warning for a float8 model whose layers are too narrow to gain."""
    width = largest_dense_width(model)
    if width >= GAIN_WIDTH:
        return None
    return _("float8 is unlikely to be faster here: the widest float8 layer is {width} "
             "wide, and NVIDIA's Transformer Engine measures float8 slower than bfloat16 at "
             "hidden size 1024 and faster only from about 5000; the comparison with "
             "mixed_bfloat16 will tell").format(width=width)


def run_device_problem(devices: RunDevices,
                       environ: Mapping[str, str] | None = None) -> str | None:
    """``device_problem`` for the devices a run computes on (this machine's GPUs)."""
    from mpstudio.engine.device_info import visible_gpus

    capabilities: list[tuple[int, int] | None] = []
    if devices.kind == "GPU":
        gpus = visible_gpus()
        for name in devices.devices:
            index = int(name.rsplit(":", 1)[-1])
            capabilities.append(gpus[index].compute_capability if index < len(gpus) else None)
    return device_problem(devices.kind, capabilities, devices.label, environ)


def float8_warnings(model: keras.Model, xla_on: bool) -> list[str]:
    """What a float8 run says at its start: which layers are float8, and why it may not
    be faster."""
    layers = float8_layers(model)
    if not layers:
        return [_("float8: this model has no Dense or EinsumDense layer computing in "
                  "bfloat16, so nothing was quantized; it runs as mixed_bfloat16")]
    out = [_("float8 layers ({count}): {layers}").format(
        count=len(layers), layers=", ".join(layers))]
    if not xla_on:
        out.append(_("float8 without XLA: only XLA rewrites the quantize-dequantize around "
                     "each matmul into a float8 matmul; without it the layers run in "
                     "bfloat16 with extra work (turn XLA on)"))
    small = small_model_warning(model)
    return out + ([small] if small else [])
