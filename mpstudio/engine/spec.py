"""RunSpec: everything one training run needs, with a TOML round trip.

Kept free of TensorFlow imports so the CLI can reject bad arguments instantly and
the GUI can fill its forms before TensorFlow has loaded. It imports no registry
either: the dataset and template registries take a spec, and the checks that ask
them (spec_checks.spec_problems, validate_spec, load_spec) stand above both.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from mpstudio.engine.i18n import N_, _

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

# float8: mixed_bfloat16 with Keras quantize("float8") on Dense/EinsumDense (engine/float8.py)
PRECISIONS = ("float32", "mixed_float16", "mixed_bfloat16", "float8")
FLOAT32_MAX = 3.4028234663852886e38  # a loss scale above this is inf in float32
MAX_SEED = 2**32 - 1  # NumPy's seed range
DEVICE_NAME = re.compile(r"^(GPU|CPU|TPU):\d+$", re.IGNORECASE)
LOSS_SCALING_MODES = ("auto", "dynamic", "fixed", "off")
OPTIMIZERS = ("adam", "sgd")
XLA_MODES = ("auto", "on", "off")
LOOPS = ("fit", "custom")
STRATEGIES = ("default", "mirrored", "multiworker", "tpu")
LR_SCALING_RULES = ("linear", "none")
MONITORS = ("val_loss", "val_accuracy", "loss", "accuracy")


class SpecError(ValueError):
    """A run spec that cannot run. ``problems`` lists each problem in one sentence."""

    def __init__(self, problems: list[str], batch_limit: int | None = None):
        self.problems = list(problems)
        # set when the only problem is a batch larger than the training data: the
        # largest batch (per replica) the data allows
        self.batch_limit = batch_limit
        super().__init__("; ".join(self.problems))


@dataclass
class LossScaling:
    """How the loss is scaled under mixed_float16.

    ``auto`` is Keras' own behaviour: dynamic scaling under mixed_float16, none otherwise.
    """

    mode: str = "auto"
    initial_scale: float = 2.0**15
    growth_steps: int = 2000
    factor: float = 1024.0  # the fixed scale, used when mode == "fixed"

    def resolved_mode(self, precision: str) -> str:
        """The mode that actually applies to a run of ``precision``."""
        if self.mode == "auto":
            return "dynamic" if precision == "mixed_float16" else "off"
        return self.mode


@dataclass
class DataOptions:
    """The tf.data options applied to every dataset source."""

    cache: bool = True
    shuffle_buffer: int = 10_000  # 0 turns shuffling off
    prefetch: bool = True


@dataclass
class Distribution:
    """How a run is spread over devices with ``tf.distribute``.

    ``batch_size`` stays per replica, so the global batch grows with the replicas;
    ``lr_scaling`` "linear" multiplies the learning rate by the replica count (the
    linear scaling rule), "none" keeps it as given.
    """

    strategy: str = "default"
    devices: list[str] = field(default_factory=list)  # mirrored: e.g. ["GPU:0", "GPU:1"]
    lr_scaling: str = "linear"
    join_timeout: float = 300.0  # multiworker: seconds to wait for every worker to start


@dataclass
class TrainingAids:
    """What practitioners add to a run by hand: Keras-style callbacks, TensorBoard
    logs, out-of-memory recovery and numerics diagnostics. All off by default except
    the out-of-memory retry."""

    monitor: str = "val_loss"  # watched by early stopping, the plateau and the checkpoint
    early_stopping: bool = False
    patience: int = 3  # epochs without improvement before early stopping stops
    restore_best_weights: bool = True
    reduce_lr_on_plateau: bool = False
    lr_factor: float = 0.5  # the learning rate is multiplied by this on a plateau
    lr_patience: int = 2  # epochs without improvement before it is
    min_learning_rate: float = 1e-6
    best_checkpoint: bool = False  # the run keeps its best epoch's weights, not its last
    tensorboard: bool = False  # scalars into the run's folder (runs/<id>/tensorboard)
    oom_retry: bool = True  # out of memory: retry at half the batch, down to min_batch_size
    min_batch_size: int = 8
    diagnose_numerics: bool = False  # on a non-finite loss, name the first bad layer
    underflow_every: int = 0  # steps between gradient-underflow samples; 0: off

    @property
    def watches_monitor(self) -> bool:
        return self.early_stopping or self.reduce_lr_on_plateau or self.best_checkpoint


@dataclass
class RunSpec:
    dataset: str = "digits"
    template: str = "mlp"
    precision: str = "mixed_float16"
    loss_scaling: LossScaling = field(default_factory=LossScaling)
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    batch_size: int = 128  # per replica, as in Keras
    epochs: int = 5
    steps: int | None = None  # a step budget: when set, train this many steps instead of epochs
    validation_split: float = 0.2
    seed: int = 0
    xla: str = "auto"
    loop: str = "fit"
    log_every_steps: int = 0  # 0: about 25 step reports per epoch
    warmup_steps: int = 0  # linear learning-rate warmup from 0 over this many steps
    # layers kept in float32 under a mixed policy (a layer that overflows float16)
    float32_layers: list[str] = field(default_factory=list)
    distribute: Distribution = field(default_factory=Distribution)
    aids: TrainingAids = field(default_factory=TrainingAids)
    data: DataOptions = field(default_factory=DataOptions)
    dataset_options: dict[str, Any] = field(default_factory=dict)
    # What the user had set ("steps", "epochs", "batch_size") where mpstudio sized a
    # comparison so that its speed can be timed (comparison/sizing.py); empty: as set.
    sized_from: dict[str, int] = field(default_factory=dict)

    # ----------------------------------------------------------------- checks
    def setting_problems(self) -> list[str]:
        """Every reason the run's settings cannot run, each a sentence naming the field.

        Not the dataset and the template: only the registries know those, so
        spec_checks.spec_problems checks them and then these (use that one)."""
        out = choice_problems(N_("precision"), self.precision, PRECISIONS)
        out += choice_problems(N_("loss scaling"), self.loss_scaling.mode, LOSS_SCALING_MODES)
        out += choice_problems(N_("optimizer"), self.optimizer, OPTIMIZERS)
        out += choice_problems(N_("xla"), self.xla, XLA_MODES)
        out += choice_problems(N_("loop"), self.loop, LOOPS)
        out += _positive_int(N_("batch size"), self.batch_size)
        out += _positive_int(N_("epochs"), self.epochs)
        if self.steps is not None:
            out += _positive_int(N_("steps"), self.steps)
        out += _positive_float(N_("learning rate"), self.learning_rate)
        if any(key not in ("steps", "batch_size", "epochs") or not _is_int(value) or value <= 0
               for key, value in self.sized_from.items()):
            out.append(_("sized_from holds the steps, epochs and batch size the user had "
                         "set (whole numbers above 0), got {value!r}").format(
                             value=self.sized_from))
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            out.append(_("seed must be an integer from 0 to {most}, got {value!r}").format(
                most=MAX_SEED, value=self.seed))
        if not _is_number(self.validation_split) or not 0 <= self.validation_split < 1:
            out.append(_("validation split must be a fraction in [0, 1), got {value!r}").format(
                value=self.validation_split))
        if not _is_int(self.warmup_steps) or self.warmup_steps < 0:
            out.append(_("warmup steps must be 0 (none) or a positive integer, got "
                         "{value!r}").format(value=self.warmup_steps))
        out += distribution_problems(self.distribute, self.xla)
        out += aids_problems(self.aids, self.validation_split)
        out += float32_layer_problems(self.float32_layers)
        if not _is_int(self.log_every_steps) or self.log_every_steps < 0:
            out.append(_("log every steps must be 0 (automatic) or a positive integer, got "
                         "{value!r}").format(value=self.log_every_steps))
        ls = self.loss_scaling
        mode = ls.resolved_mode(self.precision) if self.precision in PRECISIONS else ls.mode
        if mode == "fixed":
            out += _loss_scale(N_("fixed loss scale factor"), ls.factor)
        if mode == "dynamic":
            out += _loss_scale(N_("initial loss scale"), ls.initial_scale)
            out += _positive_int(N_("loss scale growth steps"), ls.growth_steps)
        for name, what in (("cache", N_("data cache")), ("prefetch", N_("data prefetch"))):
            value = getattr(self.data, name)
            if not isinstance(value, bool):
                out.append(_("{what} must be true or false, got {value!r}").format(
                    what=_(what), value=value))
        if not _is_int(self.data.shuffle_buffer) or self.data.shuffle_buffer < 0:
            out.append(_("shuffle buffer must be 0 (no shuffling) or a positive integer, got "
                         "{value!r}").format(value=self.data.shuffle_buffer))
        return out

    def warnings(self) -> list[str]:
        """Combinations that run but are probably not what the user meant."""
        out = []
        mode = self.loss_scaling.mode
        if mode in ("dynamic", "fixed") and self.precision == "float8":
            out.append(_(
                "loss scaling has no benefit under float8: its layers keep their own "
                "per-tensor scales and the rest computes in bfloat16; use loss scaling 'off'"))
        if mode in ("dynamic", "fixed") and self.precision == "mixed_bfloat16":
            out.append(_(
                "loss scaling has no benefit under mixed_bfloat16: bfloat16 has float32's "
                "exponent range, so small gradients do not underflow; use loss scaling 'off'"))
        if mode in ("dynamic", "fixed") and self.precision == "float32":
            out.append(_(
                "loss scaling has no benefit under float32 (gradients do not underflow); "
                "use loss scaling 'off'"))
        if mode == "off" and self.precision == "mixed_float16":
            out.append(_(
                "loss scaling is off under mixed_float16: small gradients can underflow to "
                "zero in float16 and training may stall; 'dynamic' is the safe choice"))
        out += distribution_warnings(self.distribute, self.precision, self.loop)
        if self.aids.underflow_every and self.precision != "mixed_float16":
            out.append(_("the gradient-underflow view is for mixed_float16 runs: {precision} "
                         "gradients do not underflow, so it is not sampled").format(
                             precision=self.precision))
        resolved = self.loss_scaling_mode
        defaults = LossScaling()
        ls = self.loss_scaling
        if resolved != "fixed" and ls.factor != defaults.factor:
            out.append(_(
                "the fixed scale factor {factor:g} is ignored: loss scaling is '{mode}' (set "
                "loss scaling to 'fixed' to use it)").format(factor=ls.factor, mode=resolved))
        if resolved != "dynamic" and (
            ls.initial_scale != defaults.initial_scale or ls.growth_steps != defaults.growth_steps
        ):
            out.append(_(
                "the dynamic loss scaling settings are ignored: loss scaling is "
                "'{mode}'").format(mode=resolved))
        return out

    # ----------------------------------------------------------- conversions
    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if d["steps"] is None:
            del d["steps"]  # TOML has no null
        if not d["sized_from"]:
            del d["sized_from"]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        """Build a spec from a plain dict (a parsed TOML/JSON file), naming unknown keys."""
        data = dict(data)
        problems: list[str] = []
        nested = {"loss_scaling": LossScaling, "data": DataOptions,
                  "distribute": Distribution, "aids": TrainingAids}
        kwargs: dict[str, Any] = {}
        for name, sub_cls in nested.items():
            if name in data:
                sub = data.pop(name)
                if not isinstance(sub, dict):
                    problems.append(_("[{table}] must be a table, got {value!r}").format(
                        table=name, value=sub))
                    continue
                problems += _unknown_keys(f"[{name}]", sub, sub_cls)
                known = {f.name for f in dataclasses.fields(sub_cls)}
                kwargs[name] = sub_cls(**{k: v for k, v in sub.items() if k in known})
        problems += _unknown_keys(_("run spec"), data, cls)
        for table in ("dataset_options", "sized_from"):
            if table in data and not isinstance(data[table], dict):
                problems.append(_("[{table}] must be a table").format(table=table))
        if problems:
            raise SpecError(problems)
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs.update({k: v for k, v in data.items() if k in known})
        return cls(**kwargs)

    def to_toml(self) -> str:
        header = (
            "# mpstudio run spec: `mpstudio train --config THIS_FILE` runs it again.\n"
            "# precision: float32 | mixed_float16 | mixed_bfloat16 | float8; "
            "loss_scaling.mode: auto | dynamic | fixed | off\n"
        )
        return header + tomli_w.dumps(self.to_dict())

    @classmethod
    def from_toml(cls, text: str) -> RunSpec:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SpecError([_("not a valid TOML file: {error}").format(error=exc)]) from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the spec as TOML, atomically (a crash never leaves half a file)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.to_toml(), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def read(cls, path: str | Path) -> RunSpec:
        """The spec in a TOML file as written: a relative dataset path stays relative
        (spec_checks.load_spec resolves it beside the file, as a config means it)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SpecError([_("run config {path} does not exist").format(path=path)]) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise SpecError([_("cannot read run config {path}: {error}").format(
                path=path, error=exc)]) from None
        try:
            return cls.from_toml(text)
        except SpecError as exc:
            raise SpecError([f"{path}: {p}" for p in exc.problems]) from None

    def replace(self, **changes: Any) -> RunSpec:
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------- derived
    @property
    def loss_scaling_mode(self) -> str:
        return self.loss_scaling.resolved_mode(self.precision)


def distribution_problems(dist: Distribution, xla: str) -> list[str]:
    out = choice_problems(N_("strategy"), dist.strategy, STRATEGIES)
    out += choice_problems(N_("learning-rate scaling"), dist.lr_scaling, LR_SCALING_RULES)
    if not isinstance(dist.devices, list) or not all(
        isinstance(d, str) and DEVICE_NAME.match(d) for d in dist.devices
    ):
        out.append(_('devices must be a list of device names like "GPU:0", got '
                     '{value!r}').format(value=dist.devices))
    elif len(set(map(str.upper, dist.devices))) != len(dist.devices):
        out.append(_("devices lists a device twice: {devices}").format(
            devices=", ".join(dist.devices)))
    if not _is_number(dist.join_timeout) or dist.join_timeout <= 0:
        out.append(_("join timeout must be a positive number of seconds, got "
                     "{value!r}").format(value=dist.join_timeout))
    if dist.strategy in ("mirrored", "multiworker") and xla == "on":
        out.append(_("xla 'on' does not work under the {strategy} strategy (TensorFlow "
                     "cannot XLA-compile a MirroredStrategy step): use xla auto or "
                     "off").format(strategy=dist.strategy))
    return out


def float32_layer_problems(names: Any) -> list[str]:
    """The pinned layers' names as names; whether the model has them is asked when it is
    built (templates.pinning), since only the built model knows its layers."""
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        return [_("float32 layers must be a list of layer names, got {value!r}").format(
            value=names)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return [_("float32 layers lists a layer twice: {layers}").format(
            layers=", ".join(twice))]
    return []


def aids_problems(aids: TrainingAids, validation_split: Any) -> list[str]:
    out = choice_problems(N_("monitor"), aids.monitor, MONITORS)
    for name, what in _AID_SWITCHES:
        value = getattr(aids, name)
        if not isinstance(value, bool):
            out.append(_("{what} must be true or false, got {value!r}").format(
                what=_(what), value=value))
    out += _positive_int(N_("patience"), aids.patience)
    out += _positive_int(N_("learning-rate patience"), aids.lr_patience)
    out += _positive_int(N_("minimum batch size"), aids.min_batch_size)
    if not _is_number(aids.lr_factor) or not 0 < aids.lr_factor < 1:
        out.append(_("learning-rate factor must be between 0 and 1 (0.5 halves it), got "
                     "{value!r}").format(value=aids.lr_factor))
    if not _is_number(aids.min_learning_rate) or aids.min_learning_rate < 0:
        out.append(_("minimum learning rate must be 0 or a positive number, got "
                     "{value!r}").format(value=aids.min_learning_rate))
    if not _is_int(aids.underflow_every) or aids.underflow_every < 0:
        out.append(_("underflow every must be 0 (off) or a positive number of steps, got "
                     "{value!r}").format(value=aids.underflow_every))
    if (isinstance(aids.monitor, str) and aids.monitor.startswith("val_")
            and aids.watches_monitor is True and validation_split == 0):
        out.append(_("monitor {monitor!r} needs validation data, and the validation split "
                     "is 0: set a split, or monitor 'loss'").format(monitor=aids.monitor))
    return out


# The training aids' on/off switches, with their names in words
_AID_SWITCHES = (
    ("early_stopping", N_("early stopping")),
    ("restore_best_weights", N_("restore best weights")),
    ("reduce_lr_on_plateau", N_("reduce lr on plateau")),
    ("best_checkpoint", N_("best checkpoint")),
    ("tensorboard", N_("tensorboard")),
    ("oom_retry", N_("oom retry")),
    ("diagnose_numerics", N_("diagnose numerics")),
)


def distribution_warnings(dist: Distribution, precision: str, loop: str) -> list[str]:
    out = []
    if dist.devices and dist.strategy != "mirrored":
        out.append(_("devices {devices} are ignored: only the mirrored strategy takes a "
                     "device list (strategy is '{strategy}')").format(
                         devices=", ".join(dist.devices), strategy=dist.strategy))
    if dist.strategy == "tpu" and precision == "mixed_float16":
        out.append(_("TPUs compute in bfloat16, not float16: mixed_bfloat16 is the natural "
                     "policy on a TPU (and needs no loss scaling)"))
    if dist.strategy == "multiworker" and loop == "fit":
        out.append(_("Keras 3 fit() fails under MultiWorkerMirroredStrategy "
                     "(keras-team/keras#20585): this run uses the custom training loop"))
    return out


def choice_problems(what: str, value: Any, choices: tuple[str, ...] | list[str]) -> list[str]:
    """One wording for a value outside its choices (spec_checks uses it for templates).
    ``what``: the setting's name, marked with N_()."""
    if value in choices:
        return []
    return [_("unknown {what} {value!r}; choose from: {choices}").format(
        what=_(what), value=value, choices=", ".join(choices))]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _positive_int(what: str, value: Any) -> list[str]:
    if _is_int(value) and value > 0:
        return []
    return [_("{what} must be a positive integer, got {value!r}").format(what=_(what),
                                                                         value=value)]


def _positive_float(what: str, value: Any) -> list[str]:
    if _is_number(value) and value > 0:
        return []
    return [_("{what} must be a positive number, got {value!r}").format(what=_(what),
                                                                        value=value)]


def _loss_scale(what: str, value: Any) -> list[str]:
    if _is_number(value) and 0 < value <= FLOAT32_MAX:
        return []
    return [_("{what} must be a positive number no larger than float32's maximum (3.4e38), "
              "got {value!r}").format(what=_(what), value=value)]


def _unknown_keys(where: str, data: dict[str, Any], cls: type) -> list[str]:
    known = [f.name for f in dataclasses.fields(cls)]
    return [
        _("unknown key {key!r} in {where}; valid keys: {valid}").format(
            key=key, where=where, valid=", ".join(known))
        for key in data
        if key not in known
    ]
