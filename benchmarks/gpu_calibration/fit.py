"""Fit the step model's free constants (``Calibration``) to measured pairs, and predict a
pair with given constants: the engine's own step model (``step_time``) on the costs of
each network as Keras builds it, nothing re-implemented here.

The fit minimises, over the pairs, the squared log error of each side's examples/s and
of the speedup, by Nelder-Mead over the constants (each kept within physical bounds).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from measured_steps import TEMPLATES, MeasuredPair  # noqa: E402

from mpstudio.engine.prediction.calibration import Calibration  # noqa: E402
from mpstudio.engine.prediction.device_rates import (  # noqa: E402
    DeviceRates,
    gpu_rates,
    without_tf32,
)
from mpstudio.engine.prediction.step_time import step_time  # noqa: E402

# (the constant, its lowest and highest physical value)
FREE: tuple[tuple[str, float, float], ...] = (
    ("narrow_width.tf32", 1.0, 4096.0), ("narrow_width.half", 1.0, 4096.0),
    ("narrow_width.float32", 0.5, 1024.0), ("winograd_efficiency", 0.3, 1.5),
    ("shared_lane_use", 0.0, 1.0),
    ("kernel_us", 0.1, 30.0), ("launch_us", 0.1, 30.0), ("step_ms", 0.01, 5.0),
    ("overlap", 0.0, 1.0), ("depthwise_efficiency", 0.002, 1.0),
    ("loss_scale_ms", 0.0, 2.0), ("float8_passes", 0.0, 40.0),
)

_SOURCES = ("layer_costs.py", "gemm_work.py")
_cache: dict[tuple[str, str], tuple[Any, ...]] = {}


def _cache_file() -> Path:
    code = b"".join((ROOT / "mpstudio/engine/prediction" / name).read_bytes()
                    for name in _SOURCES) + (HERE / "networks.py").read_bytes()
    digest = hashlib.md5(code).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"mpstudio-costs-{digest}.pkl"


def costs(network: str, precision: str) -> tuple[Any, ...]:
    """The network's layer costs under ``precision``, built once (and kept on disk for
    the next run while the cost code is the same)."""
    path = _cache_file()
    if not _cache and path.exists():
        with contextlib.suppress(Exception):  # an older cache, unreadable: build again
            _cache.update(pickle.loads(path.read_bytes()))
    key = (network, precision)
    if key not in _cache:
        from mpstudio.engine.prediction.layer_costs import model_costs

        _cache[key] = tuple(model_costs(_build(network, precision)))
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_bytes(pickle.dumps(_cache))
        os.replace(partial, path)  # whole or not at all: runs side by side share it
    return _cache[key]


def _build(network: str, precision: str) -> Any:
    if network in TEMPLATES:  # as the H200 ran them: 32x32x3 uint8 images, 10 classes
        from mpstudio.engine.prediction.predict import _build as build_template

        return build_template(network, (32, 32, 3), 10, precision, 1 / 255, ())
    import networks

    return networks.build(network, precision)


def device_of(pair: MeasuredPair) -> DeviceRates:
    rates = gpu_rates(pair.gpu)
    if rates is None:
        raise KeyError(pair.gpu)
    return rates if pair.tf32 else without_tf32(rates)


def gpu_family(pair: MeasuredPair) -> str:
    """The GPU's chip, whatever its memory or form factor ("A100", "V100", "H200"), and
    the cards of one architecture together ("Turing", "GA102")."""
    import re

    rates = device_of(pair)
    if rates.capability in ((7, 5), (8, 6), (8, 9), (6, 1)):
        return {(7, 5): "Turing", (8, 6): "GA102", (8, 9): "Ada", (6, 1): "Pascal"}[
            rates.capability]
    return re.sub(r"^(Tesla|GeForce) | \d+GB| PCIe| SXM\d?", "", rates.name).strip()


def network_family(pair: MeasuredPair) -> str:
    """Networks of one design together: what leaving "a network" out must hide (BERT at
    128 tokens says much of BERT at 512)."""
    name = pair.network
    for prefix, family in (("bert", "BERT/ELECTRA"), ("electra", "BERT/ELECTRA"),
                           ("efficientnet", "EfficientNet"), ("resne", "ResNet/ResNeXt"),
                           ("se_resne", "ResNet/ResNeXt"), ("vgg", "VGG/AlexNet"),
                           ("alexnet", "VGG/AlexNet")):
        if name.startswith(prefix):
            return family
    return "mpstudio's templates" if name in TEMPLATES else name


def predict_pair(pair: MeasuredPair, calibration: Calibration) -> tuple[float, float]:
    """(float32 examples/s, mixed examples/s) predicted for the pair's batches."""
    device = device_of(pair)
    # XLA or not, as the GPU calibration is: TensorFlow without XLA runs its batch norms
    # and convolution epilogues fused too (tried: the published runs without XLA then
    # fit worse)
    out = []
    for side in (pair.base, pair.mixed):
        step = step_time(costs(pair.network, side.precision), side.batch, device,
                         calibration, mixed=side.precision != "float32",
                         loss_scaling=side.precision == "mixed_float16")
        out.append(side.batch / step.seconds)
    return out[0], out[1]


def with_values(calibration: Calibration, values: Sequence[float]) -> Calibration:
    changes: dict[str, Any] = {}
    for (name, _, _), value in zip(FREE, values, strict=True):
        if "." in name:
            table, key = name.split(".")
            changes.setdefault(table, dict(getattr(calibration, table)))[key] = value
        else:
            changes[name] = type(getattr(calibration, name))(value)
    return dataclasses.replace(calibration, **changes)


def values_of(calibration: Calibration) -> list[float]:
    out = []
    for name, low, high in FREE:
        if "." in name:
            table, key = name.split(".")
            out.append(getattr(calibration, table)[key])
        else:
            out.append(float(getattr(calibration, name)))
        out[-1] = min(max(out[-1], low), high)
    return out


def loss(pairs: Sequence[MeasuredPair], calibration: Calibration) -> float:
    """Squared log errors of each side and (twice) of the speedup, and for speedups near
    1 (small steps, where a log error is small but the call can flip) the absolute one."""
    total = 0.0
    for pair in pairs:
        base, mixed = predict_pair(pair, calibration)
        e_base = math.log(base / pair.base.examples_per_s)
        e_mixed = math.log(mixed / pair.mixed.examples_per_s)
        gap = mixed / base - pair.speedup
        total += e_base ** 2 + e_mixed ** 2 + 2 * (e_mixed - e_base) ** 2 + gap ** 2
    return total / max(len(pairs), 1)


def _to_unit(values: Sequence[float]) -> np.ndarray:
    """Each constant as a number on the whole line (logit of its place in its bounds)."""
    out = []
    for value, (_, low, high) in zip(values, FREE, strict=True):
        p = min(max((value - low) / (high - low), 0.02), 0.98)  # off the bounds: room to move
        out.append(math.log(p / (1 - p)))
    return np.array(out)


def _from_unit(x: np.ndarray) -> list[float]:
    return [low + (high - low) / (1 + math.exp(-v)) for v, (_, low, high) in zip(x, FREE,
                                                                                  strict=True)]


def fit(pairs: Sequence[MeasuredPair], start: Calibration, iterations: int = 600,
        say: Callable[[str], None] = lambda _: None) -> Calibration:
    """The constants that fit ``pairs`` best, from ``start``."""
    def f(x: np.ndarray) -> float:
        return loss(pairs, with_values(start, _from_unit(x)))

    best = _nelder_mead(f, _to_unit(values_of(start)), iterations, say)
    return with_values(start, _from_unit(best))


def _nelder_mead(f: Callable[[np.ndarray], float], x0: np.ndarray, iterations: int,
                 say: Callable[[str], None], step: float = 0.6) -> np.ndarray:
    n = len(x0)
    simplex = [x0] + [x0 + step * np.eye(n)[i] for i in range(n)]
    values = [f(x) for x in simplex]
    for i in range(iterations):
        order = np.argsort(values)
        simplex = [simplex[j] for j in order]
        values = [values[j] for j in order]
        if i % 50 == 0:
            say(f"  fit {i:4d}: loss {values[0]:.4f}")
        centroid = np.mean(simplex[:-1], axis=0)
        reflected = centroid + (centroid - simplex[-1])
        fr = f(reflected)
        if fr < values[0]:
            expanded = centroid + 2 * (centroid - simplex[-1])
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = centroid + 0.5 * (simplex[-1] - centroid)
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:  # shrink towards the best
                simplex = [simplex[0]] + [simplex[0] + 0.5 * (x - simplex[0])
                                          for x in simplex[1:]]
                values = [values[0]] + [f(x) for x in simplex[1:]]
    return simplex[int(np.argmin(values))]
