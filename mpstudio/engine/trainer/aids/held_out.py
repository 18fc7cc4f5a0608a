"""The trained model on the dataset's own test split (never seen in training), after
a finished run: the summary's test loss and accuracy."""

from __future__ import annotations

import dataclasses

import keras

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.events import Reporter, RunSummary, RunWarning
from mpstudio.engine.i18n import _
from mpstudio.engine.trainer.aids.training_aid import TrainingAid
from mpstudio.engine.trainer.custom_loop import CustomLoop
from mpstudio.engine.trainer.run_setup import PreparedRun


def evaluate_test(
    model: keras.Model, bundle: DataBundle, summary: RunSummary, reporter: Reporter,
    loop: CustomLoop | None = None,
) -> RunSummary:
    """Through the run's own loop when it has one (Keras evaluate() fails under a
    multi-worker strategy, like fit())."""
    try:
        if loop is not None:
            loss, accuracy = loop.evaluate(bundle.test)
        else:
            result = model.evaluate(bundle.test, verbose=0, return_dict=True)
            loss, accuracy = result["loss"], result["accuracy"]
        # with no monitor to stop it, an evaluation always ends with both numbers
        assert loss is not None and accuracy is not None
    except Exception as exc:  # the run itself succeeded: keep it, say what went wrong
        reporter.emit(RunWarning(_("could not evaluate on the test split: {error}").format(
            error=exc)))
        return summary
    return dataclasses.replace(summary, test_loss=float(loss), test_accuracy=float(accuracy))


class HeldOutTest(TrainingAid):
    def __init__(self, run: PreparedRun) -> None:
        self.run = run

    @classmethod
    def attach(cls, run: PreparedRun) -> HeldOutTest | None:
        return cls(run) if run.bundle.test is not None else None

    def conclude(self, summary: RunSummary, status: str) -> RunSummary:
        if status != "finished":
            return summary
        run = self.run
        return evaluate_test(run.model, run.bundle, summary, run.reporter, run.loop)
