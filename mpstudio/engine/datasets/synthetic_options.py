"""Options of the synthetic dataset, checked without TensorFlow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mpstudio.engine.datasets.report import DataReport
from mpstudio.engine.i18n import _


@dataclass(frozen=True)
class SyntheticOptions:
    shape: tuple[int, ...] = (32, 32, 3)
    classes: int = 10
    samples: int = 8192  # examples per epoch

    @classmethod
    def from_dict(cls, options: dict[str, Any]) -> SyntheticOptions:
        d = dict(options)
        if "shape" in d:
            d["shape"] = tuple(d["shape"])
        return cls(**d)


def validate_synthetic_options(options: dict[str, Any]) -> list[str]:
    valid = ("shape", "classes", "samples")
    problems = [
        _("unknown synthetic dataset option {key!r}; valid options: {valid}").format(
            key=key, valid=", ".join(valid))
        for key in options
        if key not in valid
    ]
    shape = options.get("shape", SyntheticOptions.shape)
    if (
        not isinstance(shape, (list, tuple))
        or not 1 <= len(shape) <= 3
        or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape)
    ):
        problems.append(_(
            "synthetic shape must be 1 to 3 positive integers such as [32, 32, 3] "
            "(height, width, channels), got {shape!r}").format(shape=shape))
    classes = options.get("classes", SyntheticOptions.classes)
    if not isinstance(classes, int) or isinstance(classes, bool) or classes < 2:
        problems.append(_("synthetic classes must be an integer >= 2, got {classes!r}").format(
            classes=classes))
    samples = options.get("samples", SyntheticOptions.samples)
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        problems.append(_("synthetic samples must be a positive integer, got "
                          "{samples!r}").format(samples=samples))
    return problems


def synthetic_report(options: dict[str, Any]) -> DataReport:
    opts = SyntheticOptions.from_dict(options)
    kind = {3: "image", 2: "sequence", 1: "flat"}[len(opts.shape)]
    per_class = opts.samples // opts.classes
    return DataReport(
        name="synthetic",
        origin=_("generated: one random batch, repeated"),
        kind=kind,
        input_shape=opts.shape,
        train_samples=opts.samples,
        test_samples=0,
        class_names=tuple(str(c) for c in range(opts.classes)),
        class_counts=(per_class,) * opts.classes,  # uniform random labels: about this many
        raw_dtype="float32",
        raw_range=(0.0, 1.0),
        scaling=_("used as stored (uniform random in [0, 1))"),
        notes=(_("random labels: accuracy stays at chance; use it to measure speed only"),),
    )
