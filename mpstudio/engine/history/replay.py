"""A stored run as the events it emitted, so any front end that draws live runs (the
window's charts) draws a run from the history the same way."""

from __future__ import annotations

from mpstudio.engine.events import Event, RunFinished, RunStarted
from mpstudio.engine.history.records import StoredRun
from mpstudio.engine.model_summary import ModelSummary


def replay_label(run: StoredRun, baseline: bool = False) -> str:
    """"#12 mixed_float16": ids keep two runs with the same label apart on one chart;
    a float32 run on the reference side of a card is marked as the baseline."""
    label = f"#{run.id} {run.label}"
    if baseline and "baseline" not in label.lower():
        label += " (baseline)"
    return label


def replay_events(run: StoredRun, baseline: bool = False) -> list[Event]:
    """RunStarted, then the metrics in step order (epochs after the step samples of
    their last step, as they happened), then RunFinished when it finished."""
    model = run.model
    started = RunStarted(
        label=replay_label(run, baseline),
        spec=run.spec,
        hardware=run.hardware,
        model=ModelSummary(str(model.get("name", "")), str(model.get("policy", "")),
                           int(model.get("params", 0)), int(model.get("trainable_params", 0)),
                           ()),
        dataset=run.dataset_summary,
        steps_per_epoch=run.steps_per_epoch,
        total_steps=run.total_steps,
        log_every_steps=0,
        xla=bool(run.summary.xla) if run.summary else False,
        loss_scaling="",
        role=run.row.role,
        trial=run.row.trial,
        trials=run.row.trials,
        comparison=run.row.comparison,
    )
    # Sort key: (step, order) - a scale change is seen at a sample, an epoch ends after it.
    timeline: list[tuple[int, int, Event]] = []
    timeline += [(s.step, 1, s) for s in run.steps]
    timeline += [(c.step, 0, c) for c in run.scale_changes]
    timeline += [(e.steps, 2, e) for e in run.epochs]
    timeline.sort(key=lambda item: (item[0], item[1]))
    events: list[Event] = [started, *(event for _, _, event in timeline)]
    if run.summary is not None and run.status != "running":
        events.append(RunFinished(run.summary))
    return events
