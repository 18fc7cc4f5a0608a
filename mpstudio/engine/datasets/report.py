"""What a source found, in plain values: the report shown before training starts.

No TensorFlow and no numpy here: the events built from these travel to any front
end (the CLI, the GUI's signal, JSON).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mpstudio.engine.i18n import N_, _

# The kinds of input (DataReport.kind), in words
INPUT_KINDS = {"image": N_("image"), "sequence": N_("sequence"), "flat": N_("flat")}


@dataclass(frozen=True)
class DataProgress:
    """Progress of long data work: a download (unit "B") or decoding images."""

    source: str
    task: str  # e.g. "downloading mnist.npz", "reading images"
    done: int
    total: int | None  # None: unknown
    unit: str  # "B" for bytes, "" for items


@dataclass(frozen=True)
class DataReport:
    name: str  # "mnist", or the file/folder name of the user's data
    origin: str  # where it came from: "bundled", a cache folder, the user's path
    kind: str  # image | sequence | flat (decides which templates fit)
    input_shape: tuple[int, ...]  # per example, as the model sees it
    train_samples: int
    test_samples: int  # a separate test split shipped with the data (0: none)
    class_names: tuple[str, ...]
    class_counts: tuple[int, ...]  # training examples per class
    raw_dtype: str
    raw_range: tuple[float, float]  # values as stored
    scaling: str  # what maps the stored values to the model's inputs, in words
    notes: tuple[str, ...] = ()  # things the user should know (ignored files, converted labels)
    input_scale: float | None = None  # uint8 images the model scales by this (its first layer)

    @property
    def num_classes(self) -> int:
        return len(self.class_names)

    def lines(self) -> list[str]:
        """The report as short lines for a terminal or a log panel."""
        shape = "x".join(map(str, self.input_shape))
        lo, hi = self.raw_range
        pairs = zip(self.class_names, self.class_counts, strict=True)
        counts = ", ".join(f"{name} {count:,}" for name, count in pairs)
        if len(self.class_names) > 12:
            counts = _("{smallest:,} to {largest:,} examples per class").format(
                smallest=min(self.class_counts), largest=max(self.class_counts))
        kind = _(INPUT_KINDS.get(self.kind, self.kind))
        examples = (_("{train:,} training examples, {test:,} test, {kind} input {shape}")
                    if self.test_samples else
                    _("{train:,} training examples, {kind} input {shape}")).format(
                        train=self.train_samples, test=self.test_samples, kind=kind,
                        shape=shape)
        out = [
            _("{name} ({origin})").format(name=self.name, origin=self.origin),
            "  " + examples,
            "  " + _("{count} classes: {counts}").format(count=self.num_classes, counts=counts),
            "  " + _("values {low:g}..{high:g} ({dtype}), {scaling}").format(
                low=lo, high=hi, dtype=self.raw_dtype, scaling=self.scaling),
        ]
        out += ["  " + _("note: {note}").format(note=note) for note in self.notes]
        return out

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["num_classes"] = self.num_classes
        return d
