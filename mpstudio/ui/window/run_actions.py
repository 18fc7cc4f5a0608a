"""The window's side of a run: Run and Stop (Stop now), what each batch of the engine's
events shows (log lines, status, progress, charts, the device), and what its end says
(the banner, the status line, the pin offer, the card and the History tab). The run
itself is the RunController's; this is what the user sees of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal

from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.ui.window.run_outcome import describe_outcome, starting_line, status_line

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QProgressBar

    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import CompareOptions
    from mpstudio.ui.charts.live_charts import LiveCharts
    from mpstudio.ui.engine_client.run_controller import RunController
    from mpstudio.ui.history.history_panel import HistoryPanel
    from mpstudio.ui.models.run_progress import RunProgress
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.window.history_actions import HistoryActions
    from mpstudio.ui.window.pin_offer import PinOffer


@dataclass(frozen=True)
class RunViews:
    """The parts of the window a run changes."""
    setup: SetupPanel
    charts: LiveCharts
    pin_offer: PinOffer
    progress: QProgressBar
    device_label: QLabel
    history: HistoryPanel


class RunActions(QObject):
    ended = Signal(str)  # finished | stopped | failed | diverged

    def __init__(self, runs: RunController, state: WorkbenchState, notices: Notices,
                 views: RunViews, history_actions: HistoryActions,
                 engine_log: Callable[[], str], save_settings: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runs, self.state, self.notices, self.views = runs, state, notices, views
        self.history_actions = history_actions
        self._engine_log, self._save_settings = engine_log, save_settings
        runs.events.connect(self._on_events)
        runs.finished.connect(self._on_run_finished)
        runs.failed.connect(self._on_run_failed)
        views.pin_offer.pin_and_run.connect(self.pin_and_run)

    def start_run(self) -> None:
        setup = self.views.setup
        self.start_training(setup.spec(), setup.comparison())

    def start_training(self, spec: RunSpec, comparison: CompareOptions | None) -> None:
        """Train ``spec`` (or compare it): the setup's run, or one the batch-size finder
        set up at the largest batches."""
        if not self.state.idle:
            return
        problems = self.runs.start(spec, comparison)
        if problems:
            joined = QCoreApplication.translate("RunActions", "; ").join(problems)
            self.notices.banner(QCoreApplication.translate(
                "RunActions", "Cannot start: {problems}").format(problems=joined), "error")
            self.notices.log(QCoreApplication.translate(
                "RunActions", "cannot start: {problems}").format(problems=joined), "error")
            return
        self._save_settings()
        views = self.views
        views.charts.clear()
        self.history_actions.hide_card()  # the card belongs to the charts it was made of
        self.state.update(last_outcome=None)
        self.notices.hide_banner()
        views.pin_offer.clear()
        self.notices.log(starting_line(spec, comparison))
        self.notices.status(QCoreApplication.translate("RunActions", "loading the data…"))
        views.progress.setValue(0)
        views.progress.show()

    def pin_and_run(self, layers: list[str]) -> None:
        """The banner's offer: these layers in float32 in the setup, and run again."""
        self.views.setup.float32_layers.set_layers(layers)
        self.start_run()

    def stop_run(self) -> None:
        """Stop before the next batch; once Stop now is offered, end the engine process."""
        if self.state.run == "stuck":
            self.notices.log(QCoreApplication.translate(
                "RunActions",
                "stop now: ending the engine process; what the run measured is kept"))
            self.notices.status(QCoreApplication.translate("RunActions",
                                                           "ending the engine process…"))
            self.runs.stop_now()
        elif self.state.run == "running":
            if self.runs.stop():  # before its first step: ended now, the engine restarts
                self.notices.log(QCoreApplication.translate(
                    "RunActions", "stop requested before the first step: ending the run "
                    "now and starting a fresh engine process"))
                return
            self.notices.status(QCoreApplication.translate("RunActions",
                                                           "stopping before the next batch…"))
            self.notices.log(QCoreApplication.translate(
                "RunActions", "stop requested: the run ends before its next batch"))

    # ------------------------------------------------------------ as it runs
    def _on_events(self, batch: list) -> None:
        progress: RunProgress = self.runs.progress
        views = self.views
        for event in batch:
            views.pin_offer.watch(event)
            for level, text in progress.update(event):
                self.notices.log(text, level)
            model = getattr(event, "model", None)
            if model is not None:  # RunStarted: the real model, as built for this run
                views.setup.layers.show_summary(model, event.spec.get("template", model.name))
                views.device_label.setText(QCoreApplication.translate(
                    "RunActions", "device: {device}").format(device=device_text(progress.device)))
        views.charts.add_events(batch)
        if not self.runs.stopping:
            self.notices.status(progress.status_text())
        fraction = progress.fraction if progress.runs_started else progress.loading_fraction
        views.progress.setValue(int(1000 * (fraction or 0.0)))

    def _flush_progress(self) -> None:
        """What the progress held back (an out-of-memory failure no retry followed)."""
        for level, text in self.runs.progress.finish():
            self.notices.log(text, level)

    # --------------------------------------------------------------- its end
    def _on_run_finished(self, outcome: TrainingOutcome) -> None:
        self._flush_progress()
        views = self.views
        views.charts.finish()
        self.state.update(last_outcome=outcome if outcome.results else None)
        status, text, level = describe_outcome(outcome)
        failed = any(r.failure is not None and r.failure.has_traceback
                     for r in outcome.results)  # the error's traceback is in the log
        if outcome.card is None:
            self.notices.banner(self._with_log(text) if failed else text, level)
        else:  # the Comparison tab opens on the verdict: a banner above it said it twice
            self.notices.hide_banner()
        self.notices.status(status_line(status, text))
        views.pin_offer.offer(outcome)
        cost = views.pin_offer.report_cost(outcome, self.history_actions.store)
        if cost:
            self.notices.log(cost)
        self.history_actions.after_run(outcome)
        self._run_done(status)

    def _on_run_failed(self, message: str) -> None:
        self._flush_progress()
        self.views.charts.finish()
        kind = self.runs.failure_kind  # stopped | crashed | failed
        stopped = kind == "stopped"
        if kind == "failed":
            text = QCoreApplication.translate(
                "RunActions", "The run could not start: {reason}").format(reason=message)
            status = QCoreApplication.translate("RunActions", "the run could not start")
        else:
            text = message[:1].upper() + message[1:]
            status = (QCoreApplication.translate("RunActions", "stopped") if stopped else
                      QCoreApplication.translate("RunActions", "the engine process ended"))
        self.notices.banner(text if stopped else self._with_log(text),
                            "info" if stopped else "error")
        self.notices.log(message, "info" if stopped else "error")
        self.notices.status(status)
        # the history holds the run (marked failed where the engine ended under it):
        # list it now, not at the next manual refresh
        self.views.history.refresh()
        self._run_done("stopped" if stopped else "failed")

    def _with_log(self, text: str) -> str:
        """A failure's banner, and where its details are: the engine's log."""
        engine_log = self._engine_log()
        if not engine_log:
            return text
        return text + "\n" + QCoreApplication.translate(
            "RunActions", "Details in the engine's log: {log}").format(log=engine_log)

    def _run_done(self, status: str) -> None:
        self.views.progress.hide()
        self.views.setup.dataset.refresh_labels()  # a download makes a dataset offline
        self.ended.emit(status)
