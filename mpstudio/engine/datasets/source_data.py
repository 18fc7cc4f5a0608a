"""SourceData: the arrays a source read, with how to scale them for the model.

Images stay uint8 in memory and in the pipeline (a quarter of float32's bytes, on
the host and over PCIe) and the model's first layer scales them to [0, 1];
tabular features and other value ranges are standardized on the host with
statistics of the training split only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mpstudio.engine.datasets.report import DataReport
from mpstudio.engine.i18n import _

NONE, DIVIDE, STANDARDIZE = "none", "divide", "standardize"


@dataclass(frozen=True)
class Scaling:
    mode: str  # none | divide | standardize
    divisor: float = 1.0  # for "divide"
    per_feature: bool = True  # for "standardize": a mean/std per feature (last axis)

    def describe(self) -> str:
        if self.mode == DIVIDE:
            return _("divided by {divisor:g} to [0, 1]").format(divisor=self.divisor)
        if self.mode == STANDARDIZE:
            if self.per_feature:
                return _("each feature standardized with the training split's mean and std")
            return _("all values standardized with the training split's mean and std")
        return _("used as stored")


@dataclass
class SourceData:
    name: str
    origin: str
    kind: str  # image | sequence | flat
    x_train: np.ndarray  # (N, *input_shape), uint8 or float32
    y_train: np.ndarray  # (N,) int32 class indices
    class_names: tuple[str, ...]
    scaling: Scaling
    x_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    raw_dtype: str | None = None  # the dtype as stored, when the arrays were converted

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(int(n) for n in self.x_train.shape[1:])

    def in_model_scale(self) -> float | None:
        """1/divisor when the model scales the arrays itself: uint8 images (every split)
        divided to [0, 1]. None: the pipeline transforms them on the host (float or
        standardized inputs)."""
        stored = [self.x_train] + ([] if self.x_test is None else [self.x_test])
        if self.scaling.mode == DIVIDE and all(x.dtype == np.uint8 for x in stored):
            return 1.0 / self.scaling.divisor
        return None

    def report(self) -> DataReport:
        counts = np.bincount(self.y_train, minlength=len(self.class_names))
        in_model = self.in_model_scale()
        return DataReport(
            name=self.name,
            origin=self.origin,
            kind=self.kind,
            input_shape=self.input_shape,
            train_samples=len(self.x_train),
            test_samples=0 if self.x_test is None else len(self.x_test),
            class_names=self.class_names,
            class_counts=tuple(int(c) for c in counts),
            raw_dtype=self.raw_dtype or str(self.x_train.dtype),
            raw_range=(float(self.x_train.min()), float(self.x_train.max())),
            scaling=_("{scaling} inside the model (batches stay uint8)").format(
                scaling=self.scaling.describe()) if in_model is not None
            else self.scaling.describe(),
            notes=tuple(self.notes),
            input_scale=in_model,
        )
