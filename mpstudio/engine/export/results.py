"""What an export reports: the file, its size, and how well it agrees with the
trained model when run in its own runtime. No TensorFlow import here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from mpstudio.engine.export.formats import ExportFormat
from mpstudio.engine.i18n import N_, _

# What the held-out examples were (Verification.origin: kept in English, as --json
# gives it, and translated in the line).
ORIGINS = (N_("held-out validation examples"), N_("test examples"),
           N_("training (no split was held out) examples"), N_("random inputs"))


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
    origin: str  # one of ORIGINS, in English: "held-out validation examples"...
    max_difference: float  # largest |export - trained| over every output value
    agreement: float  # fraction of examples with the same top-1 class
    threshold: float  # agreement below this is flagged
    export_accuracy: float | None = None  # on the examples' labels, when they have labels
    trained_accuracy: float | None = None

    @property
    def passed(self) -> bool:
        return math.isfinite(self.max_difference) and self.agreement >= self.threshold

    def line(self) -> str:
        values = {"runtime": self.runtime, "examples": self.examples,
                  "origin": _(self.origin), "agreement": f"{self.agreement:.1%}",
                  "threshold": f"{self.threshold:.0%}",
                  "difference": f"{self.max_difference:.2g}"}
        if self.export_accuracy is not None and self.trained_accuracy is not None:
            text = _("{runtime} on {examples} {origin}: top-1 agreement {agreement} "
                     "(threshold {threshold}), max |diff| {difference}, accuracy "
                     "{export_accuracy} vs {trained_accuracy} trained").format(
                export_accuracy=f"{self.export_accuracy:.1%}",
                trained_accuracy=f"{self.trained_accuracy:.1%}", **values)
        else:
            text = _("{runtime} on {examples} {origin}: top-1 agreement {agreement} "
                     "(threshold {threshold}), max |diff| {difference}").format(**values)
        if self.passed:
            return _("{line} · OK").format(line=text)
        return _("{line} · BELOW THRESHOLD").format(line=text)


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
            text = _("{size} ({ratio}x smaller than the float32 weights, "
                     "{float32_size})").format(size=text, ratio=f"{ratio:.1f}",
                                               float32_size=human_size(self.float32_bytes))
        return text

    def line(self) -> str:
        """The verification line the GUI and the CLI print for this export."""
        return _("{format} -> {path}: {size}. {verification}").format(
            format=_(self.format.label), path=self.path, size=self.size_text(),
            verification=self.verification.line())


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
        return _("{format} -> {path}: not exported: {error}").format(
            format=self.request.format_id, path=self.request.path, error=self.error)


def human_size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
