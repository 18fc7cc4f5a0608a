"""DataBundle: what a dataset source hands the trainer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said

if TYPE_CHECKING:
    import tensorflow as tf

    from mpstudio.engine.datasets.report import DataReport


@dataclass
class DataBundle:
    name: str
    train: tf.data.Dataset  # batched (x, y): x model inputs (input_dtype), y int32 indices
    val: tf.data.Dataset | None
    input_shape: tuple[int, ...]
    num_classes: int
    class_names: tuple[str, ...]
    train_examples: int
    val_examples: int
    batch_size: int  # global: per-replica batch x replicas
    steps_per_epoch: int  # full batches: the last partial batch is dropped
    value_range: tuple[float, float]  # of what the model computes on, after any scaling
    report: DataReport | None = None  # what the source found
    test: tf.data.Dataset | None = None  # the source's own test split, when it has one
    test_examples: int = 0
    # uint8 images that the model scales itself (its first layer multiplies by this);
    # None: float32 inputs, scaled on the host if at all
    input_scale: float | None = None
    # False when the validation examples repeat (synthetic data: one random batch over
    # and over, with random labels): their accuracy tests nothing, example by example.
    distinct_examples: bool = True

    @property
    def input_dtype(self) -> str:
        """What the batches hold, and so what the model's Input takes."""
        return "uint8" if self.input_scale is not None else "float32"

    def summary(self) -> str:
        """One line for the run's start (a ``Said``: the history keeps it as its message)."""
        values = dict(
            name=self.name, train=f"{self.train_examples:,}", val=f"{self.val_examples:,}",
            shape="x".join(str(n) for n in self.input_shape), classes=self.num_classes,
            low=f"{self.value_range[0]:.3g}", high=f"{self.value_range[1]:.3g}",
            steps=self.steps_per_epoch, batch=self.batch_size)
        if self.val is None:
            return said(N_("{name}: {train} train / no validation, input {shape}, {classes} "
                           "classes, values {low}..{high}, {steps} steps of {batch} per "
                           "epoch"), **values)
        return said(N_("{name}: {train} train / {val} val, input {shape}, {classes} classes, "
                       "values {low}..{high}, {steps} steps of {batch} per epoch"), **values)
