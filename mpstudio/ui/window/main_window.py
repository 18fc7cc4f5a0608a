"""The workbench window: setup and the hardware check on the left, the live charts in
the middle (a comparison's card in a tab beside them), the log and History below.
Everything TensorFlow does happens in the engine process (EngineClient); this class
only wires panels, jobs, events and the one WorkbenchState together. Which controls
are enabled follows ``controls(state)``."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QByteArray,
    QCoreApplication,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.app_log import log_dir
from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions
from mpstudio.ui.charts.live_charts import LiveCharts
from mpstudio.ui.engine_client.engine_client import EngineClient
from mpstudio.ui.engine_client.run_controller import RunController
from mpstudio.ui.hardware.doctor_dialog import DoctorActions
from mpstudio.ui.hardware.hardware_jobs import HardwareJobs
from mpstudio.ui.hardware.hardware_panel import HardwarePanel
from mpstudio.ui.history.comparison_card_view import ComparisonCardView
from mpstudio.ui.history.history_panel import HistoryPanel
from mpstudio.ui.models.run_progress import RunProgress
from mpstudio.ui.models.workbench_state import WorkbenchState, controls
from mpstudio.ui.notices import Notices
from mpstudio.ui.setup.batch_finder_dialog import BatchFinderActions
from mpstudio.ui.setup.setup_panel import SetupPanel
from mpstudio.ui.setup.setup_preview import SetupPreview
from mpstudio.ui.themed import as_banner
from mpstudio.ui.widgets.log_panel import LogPanel
from mpstudio.ui.widgets.wheel_guard import WheelGuard
from mpstudio.ui.window.central_tabs import CentralTabs
from mpstudio.ui.window.check_advice import CheckAdvice
from mpstudio.ui.window.engine_startup import EngineStartup
from mpstudio.ui.window.export_actions import ExportActions
from mpstudio.ui.window.file_actions import FileActions
from mpstudio.ui.window.gui_settings import GuiSettings, open_settings
from mpstudio.ui.window.help_dialogs import AboutDialog, MixedPrecisionHelp
from mpstudio.ui.window.history_actions import HistoryActions
from mpstudio.ui.window.open_folder import open_folder
from mpstudio.ui.window.pin_offer import PinOffer
from mpstudio.ui.window.run_outcome import describe_outcome, starting_line, status_line
from mpstudio.ui.window.tensorboard_actions import TensorBoardActions
from mpstudio.ui.window.versions import ui_versions
from mpstudio.ui.window.view_menu import ViewMenu
from mpstudio.ui.window.window_actions import build_actions, stop_text
from mpstudio.ui.window.window_size import restore_geometry, size_to_screen

log = logging.getLogger("mpstudio.window")

CLOSE_WAIT_SECONDS = 5.0  # closing during a run: how long it may take to stop
# WorkbenchState.busy_reason()'s sentences, translated where the Run button's tip shows them
BUSY_REASONS = (QT_TRANSLATE_NOOP("MainWindow", "TensorFlow is still loading"),
                QT_TRANSLATE_NOOP("MainWindow", "TensorFlow could not load"),
                QT_TRANSLATE_NOOP("MainWindow", "A run is in progress"),
                QT_TRANSLATE_NOOP("MainWindow", "The hardware measurement is running"),
                QT_TRANSLATE_NOOP("MainWindow", "The training check is running"),
                QT_TRANSLATE_NOOP("MainWindow", "The batch-size finder is running"))


class MainWindow(QMainWindow):
    run_ended = Signal(str)  # finished | stopped | failed | diverged
    closed = Signal()  # really closed (after a run in progress has stopped)

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle(QCoreApplication.translate(
            "MainWindow", "mpstudio — mixed-precision workbench"))
        # Before ending a run in progress; a quit signal and the tests answer it themselves.
        self.confirm_close: Callable[[], bool] = self.ask_close
        self.state = WorkbenchState()
        self.engine = EngineClient(self)
        self.runs = RunController(self.engine, self.state, parent=self)
        self.settings = GuiSettings(settings if settings is not None else open_settings())
        self.versions = ui_versions()
        self._closing = False
        self._closed = False
        self._close_deadline = QTimer(self)  # closing during a run: then end the engine
        self._close_deadline.setObjectName("closeDeadline")
        self._close_deadline.setSingleShot(True)
        self._close_deadline.setInterval(int(CLOSE_WAIT_SECONDS * 1000))
        self._close_deadline.timeout.connect(self._end_engine_now)
        self._build()
        self.window_actions = build_actions(self)
        closable = [dock for dock in self.findChildren(QDockWidget)
                    if dock.features() & QDockWidget.DockWidgetFeature.DockWidgetClosable]
        self.view_menu = ViewMenu(self, sorted(closable, key=self._dock_order.index),
                                  self.settings)
        self.notices = Notices(self.log, self.status_text, self.banner)
        # Each collaborator gets the pieces it works with, never the window.
        state, engine, notices, a = self.state, self.engine, self.notices, self.window_actions
        self.startup = EngineStartup(engine, state, notices, self.versions, self)
        self.hardware_jobs = HardwareJobs(engine, state, notices, self.hardware,
                                          self.setup.spec, self)
        self.preview = SetupPreview(engine, state, notices, self.setup, self)
        self.check_advice = CheckAdvice(self.setup, self.device_label, notices)
        self.files = FileActions(notices, self.setup, self.charts, a, self)
        self.history_actions = HistoryActions(
            state, notices, self.history, self.card_view, self.charts, self.setup,
            self.files, a, self.start_run, self)
        self.history_actions.machine_report = lambda: (  # a bundle's hardware description
            self.hardware_jobs.check.report.to_dict() if self.hardware_jobs.check else None)
        self.exports = ExportActions(engine, state, notices, self.files, self.history,
                                     lambda: self.history_actions.store, a.export_model, self)
        self.tensorboard = TensorBoardActions(state, notices, self.history,
                                              a.open_tensorboard, self)
        self.doctor = DoctorActions(engine, state, notices, a.check_training, self)
        self.batch_finder = BatchFinderActions(engine, state, notices, a.find_batch,
                                               self.setup, self.start_training, self)
        self._connect()
        self._restore()
        self.history_actions.open()
        self.state.observe(self._show_state)
        self._show_state(self.state)

    @property
    def last_outcome(self) -> TrainingOutcome | None:
        return self.state.last_outcome

    # ------------------------------------------------------------- layout
    def _build(self) -> None:
        self.setup = SetupPanel()
        scroll = QScrollArea()
        scroll.setWidget(self.setup)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.setup.sizeHint().width() + 24)
        self.wheel_guard = WheelGuard(scroll)
        self.wheel_guard.guard(self.setup)
        # Run and Stop (Stop now) stay in view below the form, whatever its scroll.
        self.setup.release_button_row()
        setup_area = QWidget()
        setup_column = QVBoxLayout(setup_area)
        setup_column.setContentsMargins(0, 0, 0, 6)
        setup_column.addWidget(scroll, 1)
        setup_column.addWidget(self.setup.button_row)
        self.setup.button_row.setContentsMargins(8, 0, 8, 0)
        setup_dock = self._dock(QCoreApplication.translate("MainWindow", "Setup"), "setupDock",
                                setup_area, Qt.DockWidgetArea.LeftDockWidgetArea)
        setup_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)

        self.banner = QLabel()
        as_banner(self.banner)
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        self.pin_offer = PinOffer()  # under the banner: "keep this layer in float32..."
        self.pin_offer.pin_and_run.connect(self.pin_and_run)
        self.charts = LiveCharts()
        self.card_view = ComparisonCardView()
        self.central_tabs = CentralTabs(self.charts, self.card_view, self.state)
        center = QWidget()
        layout = QVBoxLayout(center)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.pin_offer)
        layout.addWidget(self.central_tabs, 1)
        self.setCentralWidget(center)

        self.hardware = HardwarePanel()
        hardware_dock = self._dock(QCoreApplication.translate("MainWindow", "Hardware"),
                                   "hardwareDock", self.hardware,
                                   Qt.DockWidgetArea.LeftDockWidgetArea)
        hardware_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                  | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.log = LogPanel()
        log_dock = self._dock(QCoreApplication.translate("MainWindow", "Log"), "logDock",
                              self.log, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history = HistoryPanel()
        history_dock = self._dock(QCoreApplication.translate("MainWindow", "History"),
                                  "historyDock", self.history,
                                  Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history_dock = history_dock
        self._tab_groups = ((setup_dock, hardware_dock), (log_dock, history_dock))
        self._dock_order = [setup_dock, hardware_dock, log_dock, history_dock]
        self._saved_state: QByteArray | None = None
        self._arranged = False

        self.status_text = QLabel(QCoreApplication.translate("MainWindow",
                                                             "Loading TensorFlow…"))
        self.status_text.setObjectName("statusText")
        self.progress = QProgressBar()
        self.progress.setObjectName("runProgress")
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.device_label = QLabel(QCoreApplication.translate("MainWindow",
                                                              "device: detecting…"))
        self.device_label.setObjectName("deviceLabel")
        bar = self.statusBar()
        bar.addWidget(self.status_text, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.device_label)
        size_to_screen(self)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._arranged:
            self._arrange_docks()

    def _arrange_docks(self) -> None:
        """Tab the docks together, then restore the saved layout. Done at the first show:
        Qt 6.11 tabifying two groups before the window is laid out leaves a stale second
        tab bar painted over the left docks."""
        self._arranged = True
        for first, second in self._tab_groups:
            self.tabifyDockWidget(first, second)  # side by side they would squeeze the charts
            first.raise_()
        # the Log under the charts: 230 px of a 940 px window, less of a 720 px one
        log_height = max(140, min(230, round(0.22 * self.height())))
        self.resizeDocks([self._tab_groups[1][0]], [log_height], Qt.Orientation.Vertical)
        if self._saved_state is not None:
            self.restoreState(self._saved_state)

    def focusNextPrevChild(self, next_: bool) -> bool:
        """Tab skips the docks behind another's tab: Qt keeps their widgets in the focus
        chain, so Tab went on into the History filter and the Hardware panel unseen."""
        for _ in range(500):  # the chain is finite: this only bounds a cycle of hidden ones
            if not super().focusNextPrevChild(next_):
                return False
            widget = QApplication.focusWidget()
            dock = widget
            while dock is not None and not isinstance(dock, QDockWidget):
                dock = dock.parentWidget()
            if dock is None or not dock.visibleRegion().isEmpty():
                return True
        return True

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _connect(self) -> None:
        a = self.window_actions
        a.start.triggered.connect(self.start_run)
        a.stop.triggered.connect(self.stop_run)
        a.quit.triggered.connect(self.close)
        a.help_page.triggered.connect(lambda: self._show_dialog(MixedPrecisionHelp(self)))
        a.open_log_folder.triggered.connect(self.open_log_folder)
        a.about.triggered.connect(lambda: self._show_dialog(
            AboutDialog(self.versions, self.state.ready, self)))
        a.hardware_check.triggered.connect(lambda: self.hardware_jobs.run_check(measure=False))
        a.measure.triggered.connect(lambda: self.hardware_jobs.run_check(True, 0.5))
        self.hardware_jobs.checked.connect(self.check_advice.show)
        self.setup.run_clicked.connect(self.start_run)
        self.setup.stop_clicked.connect(self.stop_run)
        self.runs.events.connect(self._on_events)
        self.runs.finished.connect(self._on_run_finished)
        self.runs.failed.connect(self._on_run_failed)
        self.engine.jobs_changed.connect(self.maybe_finish_close)

    def start_background(self) -> None:
        """Start the engine process, which loads TensorFlow (the hardware check follows
        once it is ready), and read the dataset (call after the window is shown)."""
        self.engine.start()
        self.preview.inspect_dataset()

    # ----------------------------------------------------------------- runs
    def start_run(self) -> None:
        self.start_training(self.setup.spec(), self.setup.comparison())

    def start_training(self, spec: RunSpec, comparison: CompareOptions | None) -> None:
        """Train ``spec`` (or compare it): the setup's run, or one the batch-size finder
        set up at the largest batches."""
        if not self.state.idle:
            return
        problems = self.runs.start(spec, comparison)
        if problems:
            joined = QCoreApplication.translate("MainWindow", "; ").join(problems)
            self.notices.banner(QCoreApplication.translate(
                "MainWindow", "Cannot start: {problems}").format(problems=joined), "error")
            self.notices.log(QCoreApplication.translate(
                "MainWindow", "cannot start: {problems}").format(problems=joined), "error")
            return
        self.save_settings()
        self.charts.clear()
        self.history_actions.hide_card()  # the card belongs to the charts it was made of
        self.state.update(last_outcome=None)
        self.notices.hide_banner()
        self.pin_offer.clear()
        self.notices.log(starting_line(spec, comparison))
        self.notices.status(QCoreApplication.translate("MainWindow", "loading the data…"))
        self.progress.setValue(0)
        self.progress.show()

    def pin_and_run(self, layers: list[str]) -> None:
        """The banner's offer: these layers in float32 in the setup, and run again."""
        self.setup.float32_layers.set_layers(layers)
        self.start_run()

    def stop_run(self) -> None:
        """Stop before the next batch; once Stop now is offered, end the engine process."""
        if self.state.run == "stuck":
            self.notices.log(QCoreApplication.translate(
                "MainWindow",
                "stop now: ending the engine process; what the run measured is kept"))
            self.notices.status(QCoreApplication.translate("MainWindow",
                                                           "ending the engine process…"))
            self.runs.stop_now()
        elif self.state.run == "running":
            if self.runs.stop():  # before its first step: ended now, the engine restarts
                self.notices.log(QCoreApplication.translate(
                    "MainWindow", "stop requested before the first step: ending the run "
                    "now and starting a fresh engine process"))
                return
            self.notices.status(QCoreApplication.translate("MainWindow",
                                                           "stopping before the next batch…"))
            self.notices.log(QCoreApplication.translate(
                "MainWindow", "stop requested: the run ends before its next batch"))

    def _on_events(self, batch: list) -> None:
        progress: RunProgress = self.runs.progress
        for event in batch:
            self.pin_offer.watch(event)
            for level, text in progress.update(event):
                self.notices.log(text, level)
            model = getattr(event, "model", None)
            if model is not None:  # RunStarted: the real model, as built for this run
                self.setup.layers.show_summary(model, event.spec.get("template", model.name))
                self.device_label.setText(QCoreApplication.translate(
                    "MainWindow", "device: {device}").format(device=device_text(progress.device)))
        self.charts.add_events(batch)
        if not self.runs.stopping:
            self.notices.status(progress.status_text())
        fraction = progress.fraction if progress.runs_started else progress.loading_fraction
        self.progress.setValue(int(1000 * (fraction or 0.0)))

    def _flush_progress(self) -> None:
        """What the progress held back (an out-of-memory failure no retry followed)."""
        for level, text in self.runs.progress.finish():
            self.notices.log(text, level)

    def _on_run_finished(self, outcome: TrainingOutcome) -> None:
        self._flush_progress()
        self.charts.finish()
        self.state.update(last_outcome=outcome if outcome.results else None)
        status, text, level = describe_outcome(outcome)
        failed = any(r.failure is not None and r.failure.has_traceback
                     for r in outcome.results)  # the error's traceback is in the log
        if outcome.card is None:
            self.notices.banner(self._with_log(text) if failed else text, level)
        else:  # the Comparison tab opens on the verdict: a banner above it said it twice
            self.notices.hide_banner()
        self.notices.status(status_line(status, text))
        self.pin_offer.offer(outcome)
        cost = self.pin_offer.report_cost(outcome, self.history_actions.store)
        if cost:
            self.notices.log(cost)
        self.history_actions.after_run(outcome)
        self._run_done(status)

    def _on_run_failed(self, message: str) -> None:
        self._flush_progress()
        self.charts.finish()
        kind = self.runs.failure_kind  # stopped | crashed | failed
        stopped = kind == "stopped"
        if kind == "failed":
            text = QCoreApplication.translate(
                "MainWindow", "The run could not start: {reason}").format(reason=message)
            status = QCoreApplication.translate("MainWindow", "the run could not start")
        else:
            text = message[:1].upper() + message[1:]
            status = (QCoreApplication.translate("MainWindow", "stopped") if stopped else
                      QCoreApplication.translate("MainWindow", "the engine process ended"))
        self.notices.banner(text if stopped else self._with_log(text),
                            "info" if stopped else "error")
        self.notices.log(message, "info" if stopped else "error")
        self.notices.status(status)
        # the history holds the run (marked failed where the engine ended under it):
        # list it now, not at the next manual refresh
        self.history.refresh()
        self._run_done("stopped" if stopped else "failed")

    def _with_log(self, text: str) -> str:
        """A failure's banner, and where its details are: the engine's log."""
        if not self.startup.engine_log:
            return text
        return text + "\n" + QCoreApplication.translate(
            "MainWindow", "Details in the engine's log: {log}").format(
                log=self.startup.engine_log)

    def open_log_folder(self) -> None:
        """Help > Open log folder: the logs of the window, the engine and the CLI."""
        folder = log_dir()
        if not open_folder(folder):
            self.notices.log(QCoreApplication.translate(
                "MainWindow", "could not open {folder}: open it in a file manager").format(
                    folder=folder), "warning")

    def _run_done(self, status: str) -> None:
        self.progress.hide()
        self.setup.dataset.refresh_labels()  # a download makes a dataset offline
        self.run_ended.emit(status)
        self.maybe_finish_close()

    # ----------------------------------------------------------- the state
    def _show_state(self, state: WorkbenchState) -> None:
        """Every control follows the one state (see ``controls``)."""
        c = controls(state)
        self.setup.set_state(tf_ready=c.start or state.training, running=state.training,
                             stop_now=c.stop_now)
        busy = state.busy_reason()
        self.setup.run_button.setToolTip(
            "" if c.start or state.training or not busy else
            QCoreApplication.translate(
                "MainWindow", "{reason}: wait for it to end (or stop it)").format(
                    reason=QCoreApplication.translate("MainWindow", busy)))
        a = self.window_actions
        a.start.setEnabled(c.start)
        a.stop.setEnabled(c.stop)
        a.stop.setText(stop_text(c.stop_now))
        a.measure.setEnabled(c.measure)
        a.hardware_check.setEnabled(c.hardware_check)
        a.open_config.setEnabled(c.open_config)
        a.import_dataset.setEnabled(c.import_dataset)
        a.export_model.setEnabled(c.export_model)
        a.export_report.setEnabled(c.export_report)
        if state.run == "stuck":
            self.notices.status(QCoreApplication.translate(
                "MainWindow", "the run has not stopped yet (tracing or a long step): Stop "
                "now ends the engine process"))

    def _show_dialog(self, dialog: QWidget) -> None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    # ------------------------------------------------------------ settings
    def _restore(self) -> None:
        spec, baseline, paths, notes = self.settings.load_run()
        self.setup.first_comparison = self.settings.first_launch()
        for path, options in paths.items():
            self.setup.dataset.add_path(path, options, select=False)
        self.setup.set_spec(spec)
        self.setup.precision_picked = self.settings.precision_picked()
        self.setup.set_open_groups(self.settings.open_groups())
        self.setup.set_comparison(baseline, self.settings.load_compare())
        for note in notes:
            self.notices.log(note, "warning")
        geometry, state = self.settings.window()
        if geometry is not None and not restore_geometry(self, geometry):
            log.info("the saved window size does not fit this screen: sized to it afresh")
        self._saved_state = state  # applied at the first show, after the docks are tabbed

    def save_settings(self) -> None:
        self.settings.save_run(self.setup.spec(), self.setup.baseline.isChecked(),
                               self.setup.dataset.path_options(), self.setup.precision_picked)
        self.settings.save_compare(self.setup.compare_options())
        self.settings.save_open_groups(self.setup.open_groups())
        self.settings.save_window(self.saveGeometry(), self.saveState())
        self.settings.sync()

    # -------------------------------------------------------------- closing
    def ask_close(self) -> bool:
        """Ask before ending a run in progress (``confirm_close``)."""
        answer = QMessageBox.question(
            self, QCoreApplication.translate("MainWindow", "Stop the run and quit?"),
            QCoreApplication.translate("MainWindow",
                                       "A run is in progress. Stop it and quit mpstudio?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        if self.runs.active and not self._closing and not self.confirm_close():
            event.ignore()
            return
        if not self._closing:
            self.save_settings()
        if self.engine.busy:
            # Stop what runs (a run records itself as stopped), then close for real once
            # the engine is idle; a job that does not stop in time ends with the process.
            if not self._closing:
                self._closing = True
                self.engine.restart_on_end = False
                self.runs.stop()
                self.engine.cancel_all()
                self._close_deadline.start()
            self.notices.status(QCoreApplication.translate("MainWindow",
                                                           "stopping before closing…"))
            self.hide()
            event.ignore()
            return
        self._close_deadline.stop()
        self.shutdown()
        self._closed = True
        self.charts.finish()
        self.preview.stop_timers()
        event.accept()
        self.exports.close_dialog()  # a dialog left open would keep the app running
        self.doctor.close_dialog()
        self.batch_finder.close_dialog()
        self.closed.emit()

    def _end_engine_now(self) -> None:
        if self._closing and not self._closed and self.engine.busy:
            self.runs.stop_now()
            self.engine.stop_now()

    def maybe_finish_close(self) -> None:
        if self._closing and not self._closed and not self.engine.busy:
            self.close()

    def shutdown(self) -> None:
        """End the engine process (idle or cancelled by now) and TensorBoard."""
        self.runs.stop()
        self.tensorboard.shutdown()
        self.engine.shutdown()
        self.history_actions.close()
