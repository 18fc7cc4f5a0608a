"""What an export reports: the file, its size, and how well it agrees with the
trained model when run in its own runtime. No TensorFlow import here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from mpstudio.engine.export.formats import ExportFormat


class ExportError(RuntimeError):
    """An export that could not be done; the message names the problem and what to do.
    Nothing was written and no existing file was touched."""


class ExportCancelled(ExportError):
    """The user stopped the export; nothing was written."""


@dataclass(frozen=True)
class Verification:
    """The export run in its own runtime next to the trained model on the same inputs."""

    runtime: str  # "LiteRT", "onnxruntime"...
    examples: int
    origin: str  # "held-out validation examples" or "random inputs (...)"
    max_difference: float  # largest |export - trained| over every output value
    agreement: float  # fraction of examples with the same top-1 class
    threshold: float  # agreement below this is flagged
    export_accuracy: float | None = None  # on the examples' labels, when they have labels
    trained_accuracy: float | None = None

    @property
    def passed(self) -> bool:
        return math.isfinite(self.max_difference) and self.agreement >= self.threshold

    def line(self) -> str:
        text = (f"{self.runtime} on {self.examples} {self.origin}: top-1 agreement "
                f"{self.agreement:.1%} (threshold {self.threshold:.0%}), "
                f"max |diff| {self.max_difference:.2g}")
        if self.export_accuracy is not None and self.trained_accuracy is not None:
            text += (f", accuracy {self.export_accuracy:.1%} vs {self.trained_accuracy:.1%} "
                     "trained")
        return text + (" · OK" if self.passed else " · BELOW THRESHOLD")


@dataclass(frozen=True)
class ExportResult:
    format: ExportFormat
    path: Path
    size_bytes: int  # the file, or everything in the SavedModel folder
    float32_bytes: int  # the model's weights at 4 bytes each: what quantizing saves on
    verification: Verification
    notes: tuple[str, ...] = ()  # e.g. "fixed batch of 1: ..."

    @property
    def ok(self) -> bool:
        return self.verification.passed

    def size_text(self) -> str:
        text = human_size(self.size_bytes)
        if self.format.quantized and self.size_bytes > 0:
            ratio = self.float32_bytes / self.size_bytes
            text += (f" ({ratio:.1f}x smaller than the float32 weights, "
                     f"{human_size(self.float32_bytes)})")
        return text

    def line(self) -> str:
        """The verification line the GUI and the CLI print for this export."""
        return (f"{self.format.label} -> {self.path}: {self.size_text()}. "
                f"{self.verification.line()}")


@dataclass(frozen=True)
class ExportRequest:
    format_id: str
    path: Path


@dataclass
class ExportOutcome:
    """One requested format: its result, or why there is none."""

    request: ExportRequest
    result: ExportResult | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok

    def line(self) -> str:
        if self.result is not None:
            return self.result.line()
        return f"{self.request.format_id} -> {self.request.path}: not exported: {self.error}"


def human_size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
