"""Which validation and test examples a trained model classifies right, one flag each.

A comparison decides accuracy by a paired test on the examples both sides
predicted (comparison.paired_accuracy); that needs each side's per-example
right/wrong, not only its accuracy. The validation and test pipelines are never
shuffled, so example i is the same example on both sides of a comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import keras
import numpy as np
import tensorflow as tf

from mpstudio.engine.comparison.paired_accuracy import encode_hits
from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.distribute.placement import Placement
from mpstudio.engine.events import RunSummary
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.run_setup import PreparedRun

MAX_EXAMPLES = 1_000_000  # 125 kB of flags; larger splits are left to the unpaired rule


def example_hits(model: keras.Model, dataset: tf.data.Dataset | None,
                 examples: int) -> str:
    """The model's right/wrong on every example of ``dataset``, encoded; "" when there
    is no such split, it is too large, or the model cannot predict here (a
    multi-worker strategy): the verdict then falls back to the unpaired rule."""
    if dataset is None or not 0 < examples <= MAX_EXAMPLES:
        return ""
    flags = []
    try:
        for x, y in dataset:
            predicted = np.argmax(model.predict_on_batch(x), axis=-1)
            flags.append(predicted.reshape(-1) == np.asarray(y).reshape(-1))
    except (tf.errors.OpError, ValueError, RuntimeError):
        return ""
    return encode_hits(np.concatenate(flags)) if flags else ""


class BestEpochHits(keras.callbacks.Callback):
    """Keeps the validation flags of the epoch with the best validation accuracy (a
    comparison's "best val accuracy" row is tested on them). Epoch-end only: no
    batch hook, so fit stays asynchronous."""

    def __init__(self, dataset: tf.data.Dataset | None, examples: int):
        super().__init__()
        self.dataset, self.examples = dataset, examples
        self.best: float | None = None
        self.hits = ""

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        accuracy = (logs or {}).get("val_accuracy")
        if accuracy is None or (self.best is not None and accuracy <= self.best):
            return
        self.best = float(accuracy)
        self.hits = example_hits(self.model, self.dataset, self.examples)


def record_hits(summary: RunSummary, model: keras.Model, bundle: DataBundle,
                placement: Placement, best: BestEpochHits | None) -> RunSummary:
    """The summary with the final model's per-example right/wrong on the validation
    and test splits (and the best epoch's), for paired accuracy tests."""
    if not bundle.distinct_examples:  # synthetic: repeated examples, random labels
        return summary
    out = dataclasses.replace(summary, val_examples=bundle.val_examples,
                              test_examples=bundle.test_examples)
    if placement.name == "multiworker":  # predicting needs every worker in step
        return out
    return dataclasses.replace(
        out, val_hits=example_hits(model, bundle.val, bundle.val_examples),
        test_hits=example_hits(model, bundle.test, bundle.test_examples)
        if out.test_accuracy is not None else "",
        best_val_hits=best.hits if best is not None else "")


class ExampleHits(TrainingAid):
    """Every finished or stopped run keeps its final model's flags. A comparison's runs
    keep the best epoch's validation flags too (a predict pass at each epoch that
    improves): on fit, whose epoch ends can take a callback."""

    def __init__(self, run: PreparedRun, best: BestEpochHits | None) -> None:
        self.run = run
        self.best = best

    @classmethod
    def attach(cls, run: PreparedRun) -> ExampleHits:
        bundle, best = run.bundle, None
        if (run.request.place.role != "single" and run.loop is None and bundle.val is not None
                and bundle.distinct_examples):
            best = BestEpochHits(bundle.val, bundle.val_examples)
        return cls(run, best)

    def callbacks(self) -> Sequence[keras.callbacks.Callback]:
        return (self.best,) if self.best is not None else ()

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        if status not in ("finished", "stopped"):
            return summary
        run = self.run
        return record_hits(summary, run.model, run.bundle, run.placement, self.best)
