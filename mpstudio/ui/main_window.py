"""The workbench window: setup on the left, live charts in the middle, the hardware
check on the right, the log below. Everything TensorFlow does happens on the engine
thread; this class only wires panels, jobs and events together."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.spec import RunSpec
from mpstudio.ui import engine_jobs
from mpstudio.ui.background_work import BackgroundWork
from mpstudio.ui.comparison_card_view import ComparisonCardView
from mpstudio.ui.doctor_dialog import DoctorActions
from mpstudio.ui.engine_thread import EngineThread
from mpstudio.ui.export_actions import ExportActions
from mpstudio.ui.file_actions import FileActions
from mpstudio.ui.gui_settings import GuiSettings, open_settings
from mpstudio.ui.hardware_panel import HardwarePanel
from mpstudio.ui.help_dialogs import AboutDialog, MixedPrecisionHelp
from mpstudio.ui.history_actions import HistoryActions
from mpstudio.ui.history_panel import HistoryPanel
from mpstudio.ui.live_charts import LiveCharts
from mpstudio.ui.log_panel import LogPanel
from mpstudio.ui.run_controller import RunController
from mpstudio.ui.run_outcome import describe_outcome
from mpstudio.ui.run_progress import RunProgress
from mpstudio.ui.setup_panel import SetupPanel
from mpstudio.ui.tensorboard_actions import TensorBoardActions
from mpstudio.ui.window_actions import build_actions


class MainWindow(QMainWindow):
    run_ended = Signal(str)  # finished | stopped | failed | diverged
    closed = Signal()  # really closed (after a run in progress has stopped)

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle("mpstudio — mixed-precision workbench")
        self.engine = EngineThread(self)
        self.data_thread = EngineThread(self, "mpstudio-data")
        self.runs = RunController(self.engine, self)
        self.settings = GuiSettings(settings if settings is not None else open_settings())
        self.versions = engine_jobs.ui_versions()
        self.last_outcome: engine_jobs.TrainingOutcome | None = None
        self._closing = False
        self._closed = False
        self._build()
        self.actions = build_actions(self)
        self.background = BackgroundWork(self)
        self.files = FileActions(self)
        self.exports = ExportActions(self)
        self.history_actions = HistoryActions(self)
        self.tensorboard = TensorBoardActions(self)
        self.doctor = DoctorActions(self)
        self._connect()
        self._restore()
        self.history_actions.open()
        self._update_state()

    # ------------------------------------------------------------- layout
    def _build(self) -> None:
        self.setup = SetupPanel()
        scroll = QScrollArea()
        scroll.setWidget(self.setup)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.setup.sizeHint().width() + 24)
        setup_dock = self._dock("Setup", "setupDock", scroll, Qt.DockWidgetArea.LeftDockWidgetArea)
        setup_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)

        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        self.charts = LiveCharts()
        center = QWidget()
        layout = QVBoxLayout(center)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.charts, 1)
        self.setCentralWidget(center)

        self.hardware = HardwarePanel()
        hardware_dock = self._dock("Hardware", "hardwareDock", self.hardware,
                                   Qt.DockWidgetArea.LeftDockWidgetArea)
        hardware_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                  | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.log = LogPanel()
        log_dock = self._dock("Log", "logDock", self.log, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history = HistoryPanel()
        history_dock = self._dock("History", "historyDock", self.history,
                                  Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history_dock = history_dock
        self.card_view = ComparisonCardView()
        card_scroll = QScrollArea()
        card_scroll.setWidget(self.card_view)
        card_scroll.setWidgetResizable(True)
        card_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.card_dock = self._dock("Comparison", "comparisonDock", card_scroll,
                                    Qt.DockWidgetArea.RightDockWidgetArea)
        self._tab_groups = ((setup_dock, hardware_dock), (log_dock, history_dock))
        self._saved_state: QByteArray | None = None
        self._arranged = False

        self.status_text = QLabel("Loading TensorFlow…")
        self.status_text.setObjectName("statusText")
        self.progress = QProgressBar()
        self.progress.setObjectName("runProgress")
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.device_label = QLabel("device: detecting…")
        self.device_label.setObjectName("deviceLabel")
        bar = self.statusBar()
        bar.addWidget(self.status_text, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.device_label)
        self.resize(1480, 940)

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
        self.resizeDocks([self._tab_groups[1][0]], [230], Qt.Orientation.Vertical)
        self.resizeDocks([self.card_dock], [440], Qt.Orientation.Horizontal)
        if self._saved_state is not None:
            self.restoreState(self._saved_state)
        else:  # a first launch: the charts get the width until there is a card to show
            self.card_dock.hide()

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _connect(self) -> None:
        a = self.actions
        a.start.triggered.connect(self.start_run)
        a.stop.triggered.connect(self.stop_run)
        a.quit.triggered.connect(self.close)
        a.help_page.triggered.connect(lambda: self._show_dialog(MixedPrecisionHelp(self)))
        a.about.triggered.connect(lambda: self._show_dialog(
            AboutDialog(self.versions, self.background.tf_ready, self)))
        self.setup.run_clicked.connect(self.start_run)
        self.setup.stop_clicked.connect(self.stop_run)
        self.runs.events.connect(self._on_events)
        self.runs.finished.connect(self._on_run_finished)
        self.runs.failed.connect(self._on_run_failed)

    def start_background(self) -> None:
        """Load TensorFlow and check the hardware (call after the window is shown)."""
        self.background.start()

    # ----------------------------------------------------------------- runs
    def start_run(self) -> None:
        if (self.runs.active or not self.background.tf_ready or self.background.measuring
                or self.doctor.busy):
            return
        spec = self.setup.spec()
        comparison = self.setup.comparison()
        problems = self.runs.start(spec, comparison)
        if problems:
            self.show_banner("Cannot start: " + "; ".join(problems), "error")
            self.log.add("cannot start: " + "; ".join(problems), "error")
            return
        self.save_settings()
        self.charts.clear()
        self.last_outcome = None
        self.banner.hide()
        baseline = ""
        if comparison is not None:
            trials = f", {comparison.repeats} trials each" if comparison.repeats > 1 else ""
            baseline = f" compared with float32{trials}"
        strategy = spec.distribute.strategy
        where = f" with the {strategy} strategy" if strategy != "default" else ""
        self.log.add(f"starting {spec.precision} on {spec.dataset} / {spec.template}"
                     f"{where}{baseline}")
        self.status_text.setText("loading the data…")
        self.progress.setValue(0)
        self.progress.show()
        self._update_state()

    def stop_run(self) -> None:
        if self.runs.active:
            self.runs.stop()
            self.status_text.setText("stopping after this batch…")
            self.log.add("stop requested: the run ends after the current batch")

    def _on_events(self, batch: list) -> None:
        progress: RunProgress = self.runs.progress
        for event in batch:
            for level, text in progress.update(event):
                self.log.add(text, level)
            model = getattr(event, "model", None)
            if model is not None:  # RunStarted: the real model, as built for this run
                self.setup.layers.show_summary(model, event.spec.get("template", model.name))
                self.device_label.setText(f"device: {progress.device}")
        self.charts.add_events(batch)
        if not self.runs.stopping:
            self.status_text.setText(progress.status_text())
        fraction = progress.fraction if progress.runs_started else progress.loading_fraction
        self.progress.setValue(int(1000 * (fraction or 0.0)))

    def _flush_progress(self) -> None:
        """What the progress held back (an out-of-memory failure no retry followed)."""
        for level, text in self.runs.progress.finish():
            self.log.add(text, level)

    def _on_run_finished(self, outcome: engine_jobs.TrainingOutcome) -> None:
        self._flush_progress()
        self.charts.finish()
        self.last_outcome = outcome if outcome.results else None
        status, text, level = describe_outcome(outcome)
        self.show_banner(text, level)
        self.status_text.setText(f"{status}: {text.splitlines()[-1]}")
        self.history_actions.after_run(outcome)
        self._run_done(status)

    def _on_run_failed(self, message: str) -> None:
        self._flush_progress()
        self.charts.finish()
        stopped = message.startswith("stopped")
        self.show_banner(message if stopped else f"The run could not start: {message}",
                         "info" if stopped else "error")
        self.log.add(message, "info" if stopped else "error")
        self.status_text.setText("stopped" if stopped else "the run could not start")
        self._run_done("stopped" if stopped else "failed")

    def _run_done(self, status: str) -> None:
        self.progress.hide()
        self.setup.dataset.refresh_labels()  # a download makes a dataset offline
        self._update_state()
        self.background.after_run()
        self.run_ended.emit(status)
        self.maybe_finish_close()

    # ----------------------------------------------------------- the state
    def _update_state(self) -> None:
        running = self.runs.active
        ready = self.background.tf_ready
        measuring = self.background.measuring
        checking = self.doctor.busy
        self.setup.set_state(tf_ready=ready and not measuring and not checking, running=running)
        if measuring or checking:
            self.setup.run_button.setToolTip(
                f"Wait for the {'measurement' if measuring else 'training check'} to end "
                "(or stop it)")
        idle = ready and not running and not measuring and not checking
        self.actions.start.setEnabled(idle)
        self.actions.stop.setEnabled(running)
        self.actions.measure.setEnabled(idle)
        self.actions.hardware_check.setEnabled(idle)
        self.actions.open_config.setEnabled(not running)
        self.actions.import_dataset.setEnabled(not running)
        self.exports.update_state()
        self.actions.export_report.setEnabled(self.history_actions.sides is not None)
        self.hardware.set_run_active(running)

    def show_banner(self, text: str, level: str = "info") -> None:
        self.banner.setText(text)
        self.banner.setProperty("level", level)
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        self.banner.show()

    def _show_dialog(self, dialog: QWidget) -> None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    # ------------------------------------------------------------ settings
    def _restore(self) -> None:
        spec, baseline, paths, notes = self.settings.load_run()
        for path, options in paths.items():
            self.setup.dataset.add_path(path, options, select=False)
        self.setup.set_spec(spec)
        self.setup.set_comparison(baseline, self.settings.load_compare())
        for note in notes:
            self.log.add(note, "warning")
        geometry, state = self.settings.window()
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._saved_state = state  # applied at the first show, after the docks are tabbed

    def save_settings(self) -> None:
        self.settings.save_run(self.setup.spec(), self.setup.baseline.isChecked(),
                               self.setup.dataset.path_options())
        self.settings.save_compare(self.setup.compare_options())
        self.settings.save_window(self.saveGeometry(), self.saveState())
        self.settings.sync()

    def load_spec(self, spec: RunSpec) -> None:
        self.setup.set_spec(spec)

    # -------------------------------------------------------------- closing
    def confirm_close(self) -> bool:
        """Ask before ending a run in progress (tests replace this)."""
        answer = QMessageBox.question(
            self, "Stop the run and quit?",
            "A run is in progress. Stop it and quit mpstudio?",
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
        if self.engine.busy or self.data_thread.busy:
            # Stop what runs, then close for real once the threads are idle: a QThread
            # must never be destroyed while it runs.
            self._closing = True
            self.runs.stop()
            self.engine.cancel_all()
            self.data_thread.cancel_all()
            self.status_text.setText("stopping before closing…")
            self.hide()
            event.ignore()
            return
        self.shutdown()
        self._closed = True
        self.charts.finish()
        self.background.stop_timers()
        event.accept()
        self.closed.emit()

    def maybe_finish_close(self) -> None:
        if self._closing and not self.engine.busy and not self.data_thread.busy:
            self.close()

    def shutdown(self) -> None:
        """Join the engine threads (they are idle or cancelled by now); stop TensorBoard."""
        self.runs.stop()
        self.tensorboard.shutdown()
        self.engine.shutdown()
        self.data_thread.shutdown()
        self.history_actions.close()
