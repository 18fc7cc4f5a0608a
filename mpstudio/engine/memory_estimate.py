"""Know before you run: a training run's peak device memory, predicted from the built
model for the device it runs on.

The parts, each counted from what Keras and the allocator really hold:

- weights: every model variable in its own dtype (float32 master weights under a mixed
  policy; BatchNormalization's moving statistics included);
- optimizer: the slots its ``build`` adds per trainable variable, in that variable's
  dtype (Adam: momentum and velocity; SGD with momentum: one), plus its scalars
  (iteration, learning rate). Counted by building a probe copy of the optimizer on one
  small variable, so any optimizer is counted as it is, without allocating its slots;
- gradients: one per trainable variable in the variable's dtype (the gradient of a
  float32 variable read through a float16 cast is float32);
- activations: what the backward pass needs kept, each in the dtype it really has:
  every layer's output, a dropout's mask, attention's projections, scores and
  probabilities, a recurrent layer's gates and states at every time step
  (``prediction.layer_costs``);
- temporaries: what the backward pass holds beside them: the gradients flowing into
  and out of the largest layer, and the half copies of the weights a mixed policy casts;
- inputs: the input batches the pipeline holds on the device (prefetched, in use);
- overhead: the allocator's rounding and the kernels' workspace, in proportion;
- loss-scale state: the LossScaleOptimizer's own variables (scale, good-step counter).

How much of each the allocator holds at its peak differs between TensorFlow's kernels
on a CPU and XLA's buffers on a GPU: ``PLATFORM_FACTORS`` are measured on each
(tests/engine/test_memory_estimate.py measures the CPU's; the GPU's come from an H200).
The estimate is per replica: a run's measured peak is the fullest device's.
"""

from __future__ import annotations

import logging
import math
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, said

if TYPE_CHECKING:
    import keras

    from mpstudio.engine.spec import RunSpec

log = logging.getLogger(__name__)
MIB = 2**20
_ITEMSIZE = {"float64": 8, "int64": 8, "uint64": 8, "float32": 4, "int32": 4, "uint32": 4,
             "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "int8": 1, "uint8": 1,
             "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1}
ASSUMPTIONS = N_("what the backward pass keeps (layer outputs, attention scores, recurrent "
                 "steps, dropout masks), its temporaries, the input batches and the "
                 "allocator's rounding, in the proportions measured on this kind of device")
PROBE_SHAPE = (3, 5)  # a shape no optimizer scalar has


def itemsize(dtype: Any) -> int:
    name = str(getattr(dtype, "name", dtype))
    if name in _ITEMSIZE:
        return _ITEMSIZE[name]
    import numpy as np

    return int(np.dtype(name).itemsize)


def variable_bytes(variable: Any) -> int:
    return math.prod(int(d) for d in variable.shape) * itemsize(variable.dtype)


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per part for one precision at one batch size (per replica)."""

    policy: str
    batch_size: int
    optimizer_name: str  # "Adam", "SGD"; "LossScaleOptimizer(Adam)" under dynamic scaling
    weights: int
    optimizer: int
    gradients: int
    activations: int
    loss_scale: int
    slots_per_variable: int  # the optimizer's per-variable slots (Adam 2, SGD momentum 1)
    # Counted since the estimate counts what the allocator holds (0 in older records).
    temporaries: int = 0
    inputs: int = 0
    overhead: int = 0
    device_kind: str = ""  # the kind of device it was made for: "CPU", "GPU"

    @property
    def total(self) -> int:
        return self.weights + self.optimizer + self.gradients + self.activations \
            + self.loss_scale + self.temporaries + self.inputs + self.overhead

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total": self.total}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> MemoryEstimate | None:
        """A stored estimate (None when there is none or it cannot be read)."""
        if not isinstance(data, dict):
            return None
        names = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in names})
        except TypeError:
            return None


# ------------------------------------------------------------------ the parts


def _optimizer_probe(optimizer: keras.Optimizer) -> tuple[int, int, int]:
    """(slots per variable, bytes of the inner optimizer's scalars, bytes of the loss
    scaler's own variables) from a copy of ``optimizer`` built on one float32 variable."""
    import keras
    import numpy as np

    probe = type(optimizer).from_config(optimizer.get_config())
    reference = keras.Variable(np.zeros(PROBE_SHAPE, "float32"), name="memory_probe")
    probe.build([reference])
    scaler = isinstance(probe, keras.optimizers.LossScaleOptimizer)
    own = {id(v) for v in probe._variables} if scaler else set()
    slots = sum(1 for v in probe.variables if tuple(v.shape) == PROBE_SHAPE)
    scalars = sum(variable_bytes(v) for v in probe.variables
                  if tuple(v.shape) != PROBE_SHAPE and id(v) not in own)
    loss_scale = sum(variable_bytes(v) for v in probe.variables if id(v) in own)
    return slots, scalars, loss_scale


def optimizer_name(optimizer: keras.Optimizer) -> str:
    inner = getattr(optimizer, "inner_optimizer", None)
    name = type(optimizer).__name__
    return f"{name}({type(inner).__name__})" if inner is not None else name


@dataclass(frozen=True)
class PlatformFactors:
    """How much of each counted part the allocator holds at its peak on a platform."""

    activations: float  # of what the backward pass keeps, float32 layers
    half_activations: float  # the same under a mixed policy (casts keep float32 copies)
    temporaries: float  # of the largest layer's input and output (its gradients)
    weight_temporaries: float  # of the trainable bytes: the optimizer update's temporaries
    input_batches: float  # input batches held on the device
    overhead: float  # rounding, of everything else
    workspace: int = 0  # bytes the libraries hold whatever the model (cuBLAS, cuDNN, XLA)


# Fitted to measured peaks of every template at batch 256 and 1024 under each precision:
# on the CPU, TensorFlow's counting allocator (TF_CPU_ALLOCATOR_USE_BFC=true); on a GPU,
# XLA's device allocator on an NVIDIA H200 (benchmarks/gpu_calibration/).
PLATFORM_FACTORS = {
    "CPU": PlatformFactors(activations=0.8, half_activations=1.1, temporaries=0.0,
                           weight_temporaries=0.5, input_batches=0.0, overhead=0.0),
    "GPU": PlatformFactors(activations=0.8, half_activations=0.5, temporaries=0.0,
                           weight_temporaries=4.0, input_batches=1.0, overhead=0.0,
                           workspace=128 * MIB),
}


def this_device_kind() -> str:
    """"GPU" where TensorFlow sees one (its runs compute there), else "CPU"."""
    import tensorflow as tf

    return "GPU" if tf.config.list_physical_devices("GPU") else "CPU"


def activation_bytes(model: keras.Model, batch_size: int) -> int:
    """What the backward pass keeps for ``batch_size`` examples: the model's input and
    every layer's saved tensors, each in its own dtype."""
    from mpstudio.engine.prediction.layer_costs import input_bytes, model_costs

    per_example = input_bytes(model) + sum(c.saved for c in model_costs(model))
    return int(batch_size * per_example)


def estimate_memory(model: keras.Model, batch_size: int, optimizer: keras.Optimizer,
                    policy: str, device_kind: str | None = None) -> MemoryEstimate:
    """The estimate for ``model`` (built) trained by ``optimizer`` (built or not: it is
    neither built nor changed here) at ``batch_size`` per replica on a ``device_kind``
    ("CPU", "GPU"; default: this machine's)."""
    from mpstudio.engine.prediction.layer_costs import input_bytes, model_costs

    kind = device_kind or this_device_kind()
    factors = PLATFORM_FACTORS.get(kind, PLATFORM_FACTORS["GPU"])
    costs = model_costs(model)
    trainable = model.trainable_variables
    trainable_bytes = sum(variable_bytes(v) for v in trainable)
    slots, scalars, loss_scale = _optimizer_probe(optimizer)
    batch = int(batch_size)
    saved = batch * (input_bytes(model) + sum(c.saved for c in costs))
    largest = max((c.bytes for c in costs), default=0.0)
    half_weights = sum(c.weights for c in costs if c.half) * 2
    half = any(c.half for c in costs)
    parts = dict(
        weights=sum(variable_bytes(v) for v in model.variables),
        optimizer=slots * trainable_bytes + scalars,
        gradients=trainable_bytes,
        activations=int(saved * (factors.half_activations if half else factors.activations)),
        loss_scale=loss_scale,
        temporaries=int(batch * largest * factors.temporaries + half_weights
                        + trainable_bytes * factors.weight_temporaries),
        inputs=int(batch * input_bytes(model) * factors.input_batches),
    )
    overhead = int(sum(parts.values()) * factors.overhead) + factors.workspace
    return MemoryEstimate(policy=policy, batch_size=batch,
                          optimizer_name=optimizer_name(optimizer),
                          slots_per_variable=slots, overhead=overhead, device_kind=kind,
                          **parts)


def estimate_for_spec(spec: RunSpec, input_shape: tuple[int, ...], num_classes: int,
                      input_scale: float | None = None,
                      policy: str | None = None) -> MemoryEstimate:
    """Build ``spec``'s template under ``policy`` (default the spec's precision) with the
    optimizer and loss scaling a run under that policy would use, and estimate it."""
    from mpstudio.engine.precision import make_optimizer
    from mpstudio.engine.spec import LossScaling
    from mpstudio.engine.templates.registry import build_model

    policy = policy or spec.precision
    run_spec = spec.replace(precision=policy)
    if policy == "float32" and spec.precision != "float32":  # a comparison's baseline
        run_spec = run_spec.replace(loss_scaling=LossScaling(mode="off"))
    model = build_model(spec.template, input_shape, num_classes, policy,
                        input_scale=input_scale,
                        float32_layers=getattr(spec, "float32_layers", ()))
    return estimate_memory(model, spec.batch_size, make_optimizer(run_spec), policy)


def run_estimate(model: keras.Model, optimizer: keras.Optimizer, spec: RunSpec,
                 device_kind: str | None = None) -> MemoryEstimate | None:
    """A run's own estimate from its compiled model and optimizer; None (logged) where it
    cannot be made: an estimate never stops a run."""
    try:
        return estimate_memory(model, spec.batch_size, optimizer, spec.precision,
                               "CPU" if device_kind == "CPU" else "GPU")
    except Exception:  # an optimizer that cannot be copied from its config, say
        log.warning("no memory estimate for this run", exc_info=True)
        return None


def preview_estimates(model: keras.Model, spec: RunSpec, input_shape: tuple[int, ...],
                      num_classes: int, input_scale: float | None = None,
                      ) -> tuple[MemoryEstimate, ...]:
    """For the layer table: ``model`` (built under ``spec.precision``) estimated, then
    float32's for the same spec (left out when the spec is float32)."""
    from mpstudio.engine.precision import make_optimizer

    chosen = estimate_memory(model, spec.batch_size, make_optimizer(spec), spec.precision)
    if spec.precision == "float32":
        return (chosen,)
    return chosen, estimate_for_spec(spec, input_shape, num_classes, input_scale, "float32")


ModelInputs = tuple[tuple[int, ...], int, float | None]
_READ: dict[tuple[Any, ...], ModelInputs] = {}  # a source's inputs, by its file's state


def model_inputs(spec: RunSpec) -> ModelInputs:
    """The spec's data as the model sees it (input shape, classes, the uint8 images'
    scale): from the dataset's entry where it is known without reading, else from a
    read of the source (a download is not started), kept while the file is unchanged:
    every hardware check predicts the setup's model, and a large CSV took seconds."""
    from mpstudio.engine.datasets.registry import dataset_entry, inspect_dataset, is_registered

    if is_registered(spec.dataset):
        entry = dataset_entry(spec.dataset)
        if entry.input_shape and entry.num_classes:
            return tuple(entry.input_shape), entry.num_classes, entry.input_scale
    key = _source_state(spec)
    if key is not None and key in _READ:
        return _READ[key]
    report = inspect_dataset(spec.dataset, spec.dataset_options)
    read = (tuple(report.input_shape), report.num_classes, report.input_scale)
    if key is not None:
        _READ[key] = read
    return read


def _source_state(spec: RunSpec) -> tuple[Any, ...] | None:
    """What changes when the source does (its path, size and modification time, and the
    options it is read with); None for a source that is not a file or folder here."""
    import json
    from pathlib import Path

    try:
        path = Path(spec.dataset).expanduser()
        found = path.stat()
        options = json.dumps(spec.dataset_options, sort_keys=True, default=str)
        # a folder of images: a class's sub-folder changes when its images do
        classes = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in path.iterdir()
                               if p.is_dir())) if path.is_dir() else ()
    except (OSError, TypeError, ValueError):
        return None
    return spec.dataset, options, found.st_size, found.st_mtime_ns, classes


def spec_estimates(spec: RunSpec) -> tuple[MemoryEstimate, ...]:
    """``spec``'s estimate, then float32's (left out when the spec is float32): what a
    run, or a comparison's two sides, would hold on each device."""
    shape, classes, scale = model_inputs(spec)
    policies = [spec.precision] + (["float32"] if spec.precision != "float32" else [])
    return tuple(estimate_for_spec(spec, shape, classes, scale, p) for p in policies)


# ------------------------------------------------------------------ in words


def mib(value: int | None) -> str:
    return _("n/a") if value is None else f"{value / MIB:,.1f} MiB"


def _short(value: int) -> str:
    return f"{value / MIB:,.1f}"


def estimate_line(estimate: MemoryEstimate) -> str:
    """"12.3 MiB (weights 1.2, optimizer 2.4, gradients 1.2, activations 5.5,
    temporaries 1.0, inputs 0.5, rounding 0.5)"."""
    if not (estimate.temporaries or estimate.inputs or estimate.overhead):  # an old record
        return _("{total} (weights {weights}, optimizer {optimizer}, gradients {gradients}, "
                 "activations {activations})").format(
            total=mib(estimate.total), weights=_short(estimate.weights),
            optimizer=_short(estimate.optimizer), gradients=_short(estimate.gradients),
            activations=_short(estimate.activations))
    extra = [(N_("temporaries {mib}"), estimate.temporaries), (N_("inputs {mib}"),
             estimate.inputs), (N_("rounding {mib}"), estimate.overhead)]
    more = "".join(_(", ") + _(text).format(mib=_short(value)) for text, value in extra if value)
    return _("{total} (weights {weights}, optimizer {optimizer}, gradients {gradients}, "
             "activations {activations}{more})").format(
        total=mib(estimate.total), weights=_short(estimate.weights),
        optimizer=_short(estimate.optimizer), gradients=_short(estimate.gradients),
        activations=_short(estimate.activations), more=more)


def assumptions() -> Said:
    return said(ASSUMPTIONS)


def estimate_error(estimated: int, measured: int | None) -> float | None:
    """(estimated - measured) / measured: positive when the estimate was too high; None
    without a measurement (a CPU keeps no device statistics)."""
    if not measured:
        return None
    return (estimated - measured) / measured


def versus_measured(estimated: int, measured: int | None, why_not: str = "") -> str:
    """"estimated 12.3 MiB, measured 14.0 MiB (error -12%)", or where the device reports
    no peak "estimated 12.3 MiB, not measured (not reported by the CPU)"."""
    error = estimate_error(estimated, measured)
    if error is None and not why_not:
        return _("estimated {estimated}, not measured").format(estimated=mib(estimated))
    if error is None:
        return _("estimated {estimated}, not measured ({why})").format(
            estimated=mib(estimated), why=why_not)
    return _("estimated {estimated}, measured {measured} (error {error})").format(
        estimated=mib(estimated), measured=mib(measured), error=f"{100 * error:+.0f}%")
