"""Apply the GPU memory settings (growth, or a per-GPU limit as a logical device)
before TensorFlow initializes its GPUs.

After initialization TensorFlow refuses changes (RuntimeError); then the settings
stay saved and the user is told they apply after a restart. Nothing raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from mpstudio.engine.app_settings import GpuMemorySettings, SettingsError, load_settings
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, clauses, said

Status = Literal["applied", "unchanged", "no_gpu", "needs_restart", "failed"]
RESTART = N_("TensorFlow has already set up the GPUs in this process: the memory settings "
             "are saved and apply after mpstudio restarts")


class GpuConfig(Protocol):
    """The slice of ``tf.config`` this module uses (tests pass GPUs of their own)."""

    def gpus(self) -> list[Any]: ...
    def growth(self, gpu: Any) -> bool: ...
    def set_growth(self, gpu: Any, on: bool) -> None: ...
    def limit_mb(self, gpu: Any) -> int | None: ...
    def set_limit_mb(self, gpu: Any, mb: int) -> None: ...


class TensorFlowGpuConfig:
    def __init__(self) -> None:
        import tensorflow as tf

        self._tf = tf

    def gpus(self) -> list[Any]:
        return self._tf.config.list_physical_devices("GPU")

    def growth(self, gpu: Any) -> bool:
        return bool(self._tf.config.experimental.get_memory_growth(gpu))

    def set_growth(self, gpu: Any, on: bool) -> None:
        self._tf.config.experimental.set_memory_growth(gpu, on)

    def limit_mb(self, gpu: Any) -> int | None:
        logical = self._tf.config.get_logical_device_configuration(gpu)
        return int(logical[0].memory_limit) if logical else None

    def set_limit_mb(self, gpu: Any, mb: int) -> None:
        self._tf.config.set_logical_device_configuration(
            gpu, [self._tf.config.LogicalDeviceConfiguration(memory_limit=mb)])


@dataclass(frozen=True)
class MemoryApplyResult:
    status: Status
    message: str  # a sentence, ``Said`` (in English in ``mpstudio hw --json``)

    @property
    def ok(self) -> bool:
        return self.status in ("applied", "unchanged", "no_gpu")


def described(settings: GpuMemorySettings) -> Said:
    """The settings in words (``GpuMemorySettings.describe``, as a sentence)."""
    if settings.limit_mb is not None:
        return said(N_("limit {mb} MiB per GPU"), mb=settings.limit_mb)
    if settings.growth:
        return said(N_("growth on (allocate as needed)"))
    return said(N_("TensorFlow default: reserve most GPU memory at start"))


def apply_gpu_memory(settings: GpuMemorySettings,
                     config: GpuConfig | None = None) -> MemoryApplyResult:
    problems = settings.problem_messages()
    if problems:
        return MemoryApplyResult("failed", clauses(*problems))
    config = config or TensorFlowGpuConfig()
    gpus = config.gpus()
    if not gpus:
        return MemoryApplyResult("no_gpu", said(N_("{settings}; no GPU here to apply it to"),
                                                    settings=described(settings)))
    changed = False
    try:
        for gpu in gpus:
            current_limit = config.limit_mb(gpu)
            if current_limit != settings.limit_mb:
                if settings.limit_mb is None:  # a limit cannot be taken back in-process
                    return MemoryApplyResult("needs_restart", said(RESTART))
                config.set_limit_mb(gpu, settings.limit_mb)
                changed = True
            if settings.limit_mb is None and config.growth(gpu) != settings.growth:
                config.set_growth(gpu, settings.growth)
                changed = True
    except RuntimeError:
        return MemoryApplyResult("needs_restart", said(RESTART))
    except ValueError as exc:
        return MemoryApplyResult("failed", said(
            N_("TensorFlow refused the GPU memory settings: {error}"), error=str(exc)))
    status: Status = "applied" if changed else "unchanged"
    return MemoryApplyResult(status, said(N_("{settings}, applied to {count} GPU(s)"),
                                              settings=described(settings), count=len(gpus)))


def apply_saved_gpu_memory(config: GpuConfig | None = None) -> MemoryApplyResult:
    """What a run calls first: the saved settings, applied; a broken settings file is
    reported and the TensorFlow defaults stay."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        return MemoryApplyResult("failed", said(
            N_("{error}; using TensorFlow's GPU memory defaults"), error=exc.said))
    return apply_gpu_memory(settings.gpu_memory, config)
