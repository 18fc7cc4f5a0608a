"""WorkbenchState: what the workbench is doing, in one place, without Qt.

The engine client, the run controller and the action modules write it; the window's
parts observe it. Which controls are enabled is ``controls(state)``, a pure function
a test can call without a window.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# failed: TensorFlow could not load; disconnected: a server's engine, not reached;
# restarting: a fresh engine loads after one the user ended (a Stop before the first
# step, Stop now): work queues for it, so Run stays available
ENGINE_STATES = ("starting", "restarting", "ready", "failed", "disconnected")
RUN_STATES = ("idle", "running", "stopping", "stuck")  # stuck: Stop now is offered
STUCK_AFTER_SECONDS = 3.0  # a run still going this long after Stop offers Stop now


@dataclass
class WorkbenchState:
    engine: str = "starting"
    run: str = "idle"
    measuring: bool = False  # the hardware check or measurement runs
    checking: bool = False  # the training check (doctor) runs
    finding_batch: bool = False  # the batch-size finder runs
    exporting: bool = False
    last_outcome: Any = None  # TrainingOutcome of the last training job that trained
    comparison_shown: bool = False  # the card shows two sides (Export report works)
    _observers: list[Callable[[WorkbenchState], None]] = field(default_factory=list,
                                                                repr=False, compare=False)

    def observe(self, callback: Callable[[WorkbenchState], None]) -> None:
        self._observers.append(callback)

    def update(self, **changes: Any) -> None:
        """Change fields and tell every observer once (nothing when nothing changed)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise AttributeError(f"WorkbenchState has no {', '.join(sorted(unknown))}")
        changed = any(getattr(self, k) is not v and getattr(self, k) != v
                      for k, v in changes.items())
        if not changed:
            return
        for name, value in changes.items():
            setattr(self, name, value)
        for callback in list(self._observers):
            callback(self)

    # ---------------------------------------------------------- derived
    @property
    def ready(self) -> bool:
        return self.engine == "ready"

    @property
    def training(self) -> bool:
        return self.run != "idle"

    @property
    def idle(self) -> bool:
        """Ready for new engine work that must not share the machine with a run."""
        return (self.engine in ("ready", "restarting") and not self.training
                and not self.measuring and not self.checking and not self.finding_batch)

    def busy_reason(self) -> str:
        """Why a new run, measurement or check cannot start now ("" when it can)."""
        if self.engine == "starting":
            return "TensorFlow is still loading"
        if self.engine == "failed":
            return "TensorFlow could not load"
        if self.engine == "disconnected":
            return "Not connected to the engine's server"
        if self.training:
            return "A run is in progress"
        if self.measuring:
            return "The hardware measurement is running"
        if self.checking:
            return "The training check is running"
        if self.finding_batch:
            return "The batch-size finder is running"
        return ""


@dataclass(frozen=True)
class Controls:
    """Which of the window's controls are enabled."""

    start: bool
    stop: bool
    stop_now: bool
    measure: bool
    hardware_check: bool
    check_training: bool
    open_config: bool
    import_dataset: bool
    export_model: bool
    export_report: bool


def controls(state: WorkbenchState) -> Controls:
    outcome = state.last_outcome
    last = outcome.last if outcome is not None else None
    exportable = last is not None and last.ok and state.ready and not state.training
    return Controls(
        start=state.idle,
        stop=state.run in ("running", "stopping", "stuck"),
        stop_now=state.run == "stuck",
        measure=state.idle,
        hardware_check=state.idle,
        check_training=True,  # the dialog opens any time and says why it cannot start
        open_config=not state.training,
        import_dataset=not state.training,
        export_model=exportable,
        export_report=state.comparison_shown,
    )
