"""DataBundle: what a dataset source hands the trainer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
        shape = "x".join(str(n) for n in self.input_shape)
        val = f"{self.val_examples:,} val" if self.val is not None else "no validation"
        lo, hi = self.value_range
        return (
            f"{self.name}: {self.train_examples:,} train / {val}, input {shape}, "
            f"{self.num_classes} classes, values {lo:.3g}..{hi:.3g}, "
            f"{self.steps_per_epoch} steps of {self.batch_size} per epoch"
        )
