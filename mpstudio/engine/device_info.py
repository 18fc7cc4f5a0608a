"""Where a run computes: the devices its replicas use, what float32 computes in there
and the run's peak memory on each of those devices.

A run's devices follow its placement: a TPU strategy runs on TPU cores (whatever
``list_physical_devices("GPU")`` says), mirrored on its named devices, the default
strategy on GPU:0 when there is a GPU. Everything that labels a run or decides for
it (the CPU warning, XLA ``auto``, TF32, whose memory is read) reads this one
description. The GPUs come from ``visible_gpus``, the seam tests replace to put a
run on an A100 or an H100 this machine does not have.
"""

from __future__ import annotations

import os
import platform
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import keras
import tensorflow as tf

from mpstudio.engine.cpu_allocator import keeps_statistics
from mpstudio.engine.distribute.placement import Placement
from mpstudio.engine.hardware.detect_gpu import TfGpu, tensorflow_gpus, tf32_switched_on
from mpstudio.engine.hardware.gpu_architecture import tf32_capable
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said

GPU, TPU, CPU = "GPU", "TPU", "CPU"


def visible_gpus() -> list[TfGpu]:
    """The GPUs TensorFlow lists, with name and compute capability (leaves the runtime
    uninitialized, so memory settings still apply)."""
    return tensorflow_gpus()


def cpu_text() -> str:
    return f"CPU ({platform.machine()}, {os.cpu_count()} cores)"


@dataclass(frozen=True)
class RunDevices:
    kind: str  # GPU | TPU | CPU: what does the math
    devices: tuple[str, ...]  # TensorFlow names whose memory the run reads ("GPU:0", "TPU:3")
    # for people: "GPU:0 NVIDIA A100-SXM4-40GB (compute capability 8.0)"; kept in English
    # (the history compares it, the card reads its kind): device_text() shows it
    label: str
    float32_math: str  # what a float32 matmul computes in there: "TF32" or "float32"

    @property
    def half_precision_is_slow(self) -> bool:
        """CPUs (the hardware check's advisor tells which ones differ) run float16 and
        bfloat16 through emulation or conversion; GPUs and TPUs have the units."""
        return self.kind == CPU


def _gpu_text(gpu: TfGpu) -> str:
    cc = gpu.compute_capability
    return f"{gpu.name} (compute capability {cc[0]}.{cc[1]})" if cc else gpu.name


def _index(device: str) -> int:
    return int(device.rsplit(":", 1)[-1])


def _tf32(gpus: Sequence[TfGpu], tf32_on: bool | None) -> str:
    on = tf32_switched_on() if tf32_on is None else tf32_on
    capable = bool(gpus) and all(tf32_capable(g.compute_capability) for g in gpus)
    return "TF32" if on and capable else "float32"


def run_devices(placement: Placement | None = None, gpus: Sequence[TfGpu] | None = None,
                tf32_on: bool | None = None, environ: Mapping[str, str] | None = None,
                ) -> RunDevices:
    """The devices a run with ``placement`` (None: the default strategy) computes on.
    ``gpus``/``tf32_on``/``environ`` default to this machine's."""
    gpus = visible_gpus() if gpus is None else list(gpus)
    environ = os.environ if environ is None else environ
    name = placement.name if placement else "default"
    if name == TPU.lower():
        cores = placement.replicas if placement else 0
        kind_text = environ.get("TPU_ACCELERATOR_TYPE")
        label = f"TPU {kind_text} ({cores} cores)" if kind_text else f"TPU ({cores} cores)"
        return RunDevices(TPU, tuple(f"TPU:{i}" for i in range(cores)), label, "float32")
    if name == "mirrored" and placement is not None:
        names = tuple(placement.devices)
        used = [gpus[_index(d)] for d in names if d.upper().startswith(GPU)
                and _index(d) < len(gpus)]
        if used:
            same = len({g.name for g in used}) == 1
            what = _gpu_text(used[0]) if same else "; ".join(_gpu_text(g) for g in used)
            label = f"{', '.join(names)}: {len(used)} x {what}" if same else \
                f"{', '.join(names)}: {what}"
            return RunDevices(GPU, names, label, _tf32(used, tf32_on))
        return RunDevices(CPU, (), f"{cpu_text()} as {len(names)} logical devices", "float32")
    if not gpus:  # the CPU keeps memory statistics only under TensorFlow's BFC allocator
        return RunDevices(CPU, ("CPU:0",) if keeps_statistics(environ) else (),
                          cpu_text(), "float32")
    if name == "multiworker":  # every local GPU holds a replica
        names = tuple(f"GPU:{i}" for i in range(len(gpus)))
        what = _gpu_text(gpus[0])
        return RunDevices(GPU, names, f"this worker's {len(gpus)} x {what}",
                          _tf32(gpus, tf32_on))
    return RunDevices(GPU, ("GPU:0",), f"GPU:0 {_gpu_text(gpus[0])}", _tf32(gpus[:1], tf32_on))


def precision_label(precision: str, float32_math: str) -> str:
    """What a run computed in, for its label: a float32 policy on Ampere and newer with
    TF32 on is "float32 (TF32)"; mixed policies name themselves."""
    if precision == "float32" and float32_math == "TF32":
        return "float32 (TF32)"
    return precision


def hardware_summary(devices: RunDevices) -> dict[str, str]:
    info = {
        "device": devices.label,
        "machine": socket.gethostname(),  # which computer: a server's runs say so
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "python": platform.python_version(),
        "float32_math": devices.float32_math,
    }
    build = tf.sysconfig.get_build_info()
    if devices.kind == GPU and build.get("is_cuda_build"):
        info["cuda"] = str(build.get("cuda_version", "?"))
        info["cudnn"] = str(build.get("cudnn_version", "?"))
    return info


MemoryReader = Callable[[str], dict]  # device name -> {"current": bytes, "peak": bytes}


@dataclass(frozen=True)
class PeakMemory:
    """A run's own peak on each device it used (memory held before it started left out)."""

    per_device: tuple[tuple[str, int], ...]
    # how it was measured, or why it was not: a sentence (Said) the run's summary
    # keeps as its message, shown in its reader's language
    note: str

    @property
    def largest(self) -> int | None:
        return max((b for _, b in self.per_device), default=None)

    @property
    def total(self) -> int | None:
        return sum(b for _, b in self.per_device) if self.per_device else None


class MemoryMeter:
    """Resets each device's peak counter when the run starts and reads it at the end.
    ``read``/``reset`` default to TensorFlow's (GPUs and TPUs keep statistics; a CPU
    does not)."""

    def __init__(self, devices: RunDevices, read: MemoryReader | None = None,
                 reset: Callable[[str], None] | None = None) -> None:
        self.devices = devices
        self._read = read or tf.config.experimental.get_memory_info
        self._reset = reset or tf.config.experimental.reset_memory_stats
        self._in_use: dict[str, int] = {}
        self._problem: str = ""

    def start(self) -> MemoryMeter:
        for device in self.devices.devices:
            try:
                self._reset(device)
                self._in_use[device] = int(self._read(device)["current"])
            except (ValueError, RuntimeError, KeyError) as exc:
                self._problem = said(N_("{device} keeps no memory statistics ({error})"),
                                     device=device, error=str(exc))
                break
        return self

    def finish(self) -> PeakMemory:
        if not self.devices.devices:
            return PeakMemory((), said(N_("not reported by the {kind}"),
                                       kind=self.devices.kind))
        if self._problem:
            return PeakMemory((), said(N_("not reported: {problem}"), problem=self._problem))
        peaks = []
        for device in self.devices.devices:
            try:
                peak = int(self._read(device)["peak"])
            except (ValueError, RuntimeError, KeyError) as exc:
                return PeakMemory((), said(N_("not reported: {device}: {error}"),
                                           device=device, error=str(exc)))
            peaks.append((device, max(0, peak - self._in_use.get(device, 0))))
        if len(peaks) == 1:
            return PeakMemory(tuple(peaks), said(N_("{device} peak of this run"),
                                                 device=peaks[0][0]))
        each = ", ".join(f"{d} {b / 2**20:,.0f} MiB" for d, b in peaks)
        return PeakMemory(tuple(peaks), said(N_("each device's peak of this run: {each}"),
                                             each=each))
