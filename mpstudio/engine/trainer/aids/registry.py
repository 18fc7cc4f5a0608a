"""Every training aid of a run, in the order they attach and conclude: a new aid is a
module of its own and one line here.

The order matters where aids meet: TensorBoard first, as it reroutes every later event
(the other aids' too); the best weights are restored (epoch aids) before the test split
and the example hits see the model; the test split is evaluated before the example
hits, which keep test flags only for a run with a test accuracy. Callbacks run in this
order too, after the caller's own.
"""

from __future__ import annotations

from mpstudio.engine.trainer.aids.epoch_aids import EpochAids
from mpstudio.engine.trainer.aids.example_hits import ExampleHits
from mpstudio.engine.trainer.aids.held_out import HeldOutTest
from mpstudio.engine.trainer.aids.input_wait import InputWait
from mpstudio.engine.trainer.aids.run_profile import RunProfile
from mpstudio.engine.trainer.aids.tensorboard_logs import TensorBoardLogs
from mpstudio.engine.trainer.aids.training_aid import AttachedAids, TrainingAid
from mpstudio.engine.trainer.aids.underflow import UnderflowProbe
from mpstudio.engine.trainer.run_setup import PreparedRun

AIDS: tuple[type[TrainingAid], ...] = (
    TensorBoardLogs,
    RunProfile,
    EpochAids,  # early stopping, reduce-on-plateau, the best checkpoint
    UnderflowProbe,
    HeldOutTest,
    InputWait,
    ExampleHits,
)


def attach_aids(run: PreparedRun) -> AttachedAids:
    """Each aid that is on for ``run``, hooked into it, with the caller's callbacks."""
    attached = [aid for kind in AIDS if (aid := kind.attach(run)) is not None]
    aids = AttachedAids(attached, run.request.callbacks)
    if run.loop is not None:
        aids.hook_into_custom_loop(run)
    return aids
