"""The workbench window: setup and the hardware check on the left, the live charts in
the middle (a comparison's card in a tab beside them), the log and History below.
Everything TensorFlow does happens in the engine process (EngineClient); this class
only wires panels, jobs, events and the one WorkbenchState together. Which controls
are enabled follows ``controls(state)``."""

from __future__ import annotations

import logging
import os
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
    QMenu,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.app_log import log_dir
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.service.engine_target import ENGINE_ENV, EngineTarget
from mpstudio.ui.charts.live_charts import LiveCharts
from mpstudio.ui.engine_client.engine_client import KEPT_BY_THE_SERVER, EngineClient
from mpstudio.ui.engine_client.run_controller import RunController
from mpstudio.ui.hardware.doctor_dialog import DoctorActions
from mpstudio.ui.hardware.hardware_jobs import HardwareJobs
from mpstudio.ui.hardware.hardware_panel import HardwarePanel
from mpstudio.ui.history.comparison_card_view import ComparisonCardView
from mpstudio.ui.history.history_panel import HistoryPanel
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
from mpstudio.ui.window.engine_menu import CANCEL, LEAVE, STOP, TITLE, EngineMenu
from mpstudio.ui.window.engine_startup import EngineStartup
from mpstudio.ui.window.export_actions import ExportActions
from mpstudio.ui.window.file_actions import FileActions
from mpstudio.ui.window.gui_settings import GuiSettings, open_settings
from mpstudio.ui.window.help_dialogs import AboutDialog, MixedPrecisionHelp
from mpstudio.ui.window.history_actions import HistoryActions
from mpstudio.ui.window.history_mirror import HistoryMirror
from mpstudio.ui.window.open_folder import open_folder
from mpstudio.ui.window.pin_offer import PinOffer
from mpstudio.ui.window.run_actions import RunActions, RunViews
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
                QT_TRANSLATE_NOOP("MainWindow", "Not connected to the engine's server"),
                QT_TRANSLATE_NOOP("MainWindow", "A run is in progress"),
                QT_TRANSLATE_NOOP("MainWindow", "The hardware measurement is running"),
                QT_TRANSLATE_NOOP("MainWindow", "The training check is running"),
                QT_TRANSLATE_NOOP("MainWindow", "The batch-size finder is running"))


class MainWindow(QMainWindow):
    run_ended = Signal(str)  # finished | stopped | failed | diverged
    closed = Signal()  # really closed (after a run in progress has stopped)

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle(QCoreApplication.translate("MainWindow", TITLE))
        # Before ending a run in progress; a quit signal and the tests answer it themselves.
        self.confirm_close: Callable[[], bool] = self.ask_close
        # A server's engine with work: leave it running there, stop it, or cancel (LEAVE...)
        self.confirm_leave: Callable[[], str] = self.ask_leave
        self._leave_running = False
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
        self.files = FileActions(notices, self.setup, self.charts, a, self, engine)
        self.setup.template_picker.browse_remote = self.files.server.open_file
        self.history_actions = HistoryActions(
            state, notices, self.history, self.card_view, self.charts, self.setup,
            self.files, a, lambda: self.run_actions.start_run(), self)
        self.history_actions.machine_report = lambda: (  # a bundle's hardware description
            self.hardware_jobs.check.report.to_dict() if self.hardware_jobs.check else None)
        self.run_actions = RunActions(
            self.runs, state, notices, RunViews(self.setup, self.charts, self.pin_offer,
                                                self.progress, self.device_label, self.history),
            self.history_actions, lambda: self.startup.engine_log, self.save_settings, self)
        self.exports = ExportActions(engine, state, notices, self.files, self.history,
                                     lambda: self.history_actions.store, a.export_model, self)
        self.tensorboard = TensorBoardActions(state, notices, self.history,
                                              a.open_tensorboard, self, self.engine)
        self.doctor = DoctorActions(engine, state, notices, a.check_training, self)
        self.batch_finder = BatchFinderActions(engine, state, notices, a.find_batch,
                                               self.setup, self.run_actions.start_training,
                                               self)
        self.history_mirror = HistoryMirror(engine, self.history_actions, self.history_dock,
                                            notices, self.settings, self)
        self.engine_menu = EngineMenu(self, engine, state, notices, self.settings,
                                      self.engine_label, self._machine_changed)
        help_menu = next(action for action in self.menuBar().actions()
                         if isinstance(menu := action.menu(), QMenu)
                         and self.window_actions.help_page in menu.actions())
        self.engine_menu.insert_into(help_menu)
        self._connect()
        if os.environ.get(ENGINE_ENV):  # mpstudio --engine ssh://gpu-box, before it starts
            self.engine_menu.connect_at_start(os.environ[ENGINE_ENV])
        self._restore()  # (a server's dataset paths are not checked here)
        self._machine_changed(self.engine.target)  # opens the History, the settings form
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
        self.engine_label = QLabel()  # where the engine is: "engine: gpu-box · NVIDIA H100"
        self.engine_label.setObjectName("engineLabel")
        bar.addPermanentWidget(self.engine_label)
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
        run = self.run_actions
        a.start.triggered.connect(run.start_run)
        a.stop.triggered.connect(run.stop_run)
        a.quit.triggered.connect(self.close)
        a.help_page.triggered.connect(lambda: self._show_dialog(MixedPrecisionHelp(self)))
        a.open_log_folder.triggered.connect(self.open_log_folder)
        a.about.triggered.connect(lambda: self._show_dialog(
            AboutDialog(self.versions, self.state.ready, self)))
        a.hardware_check.triggered.connect(lambda: self.hardware_jobs.run_check(measure=False))
        a.measure.triggered.connect(lambda: self.hardware_jobs.run_check(True, 0.5))
        self.hardware_jobs.checked.connect(self.check_advice.show)
        self.hardware_jobs.checked.connect(self.engine_menu.hardware_checked)
        self.setup.changed.connect(self.hardware_jobs.setup_changed)
        self.setup.run_clicked.connect(run.start_run)
        self.setup.stop_clicked.connect(run.stop_run)
        self.run_actions.ended.connect(self.run_ended)
        self.run_actions.ended.connect(self.maybe_finish_close)
        self.engine.jobs_changed.connect(self.maybe_finish_close)

    def _machine_changed(self, target: EngineTarget) -> None:
        self.device_label.setText(QCoreApplication.translate("MainWindow",
                                                             "device: detecting…"))
        self.hardware_jobs.machine_changed()
        self.tensorboard.stop()  # its logs (or the forward's) are the machine left's
        self.history_mirror.machine_changed(target)

    def start_background(self) -> None:
        """Start the engine process, which loads TensorFlow (the hardware check follows
        once it is ready), and read the dataset (call after the window is shown)."""
        self.engine.start()
        self.preview.inspect_dataset()

    def open_log_folder(self) -> None:
        """Help > Open log folder: the logs of the window, the engine and the CLI."""
        folder = log_dir()
        if not open_folder(folder):
            self.notices.log(QCoreApplication.translate(
                "MainWindow", "could not open {folder}: open it in a file manager").format(
                    folder=folder), "warning")

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
        if state.engine == "disconnected" and self.hardware_jobs.check is None:
            self.device_label.setText(QCoreApplication.translate(  # never detected there
                "MainWindow", "device: not connected"))
        if state.run == "stuck":
            self.notices.status(QCoreApplication.translate(
                "MainWindow", "the run has not stopped yet (tracing or a long step): Stop "
                "now ends the engine process"))

    def _show_dialog(self, dialog: QWidget) -> None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    # ------------------------------------------------------------ settings
    def _restore(self) -> None:
        spec, baseline, paths, notes = self.settings.load_run(
            files_here=self.engine.target.is_local)  # a server's files: checked there
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

    def ask_leave(self) -> str:
        """Quitting while a server's engine has work: LEAVE, STOP or CANCEL."""
        host = self.engine.target.label
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(QCoreApplication.translate(
            "MainWindow", "Leave the work running on {host}?").format(host=host))
        box.setText(QCoreApplication.translate(
            "MainWindow", "The engine on {host} is running work.").format(host=host))
        box.setInformativeText(QCoreApplication.translate(
            "MainWindow", "Left running, it goes on there and its runs reach {host}'s "
            "History; connect again to see them live.").format(host=host))
        leave = box.addButton(QCoreApplication.translate("MainWindow", "Leave it running and quit"),
                              QMessageBox.ButtonRole.AcceptRole)
        stop = box.addButton(QCoreApplication.translate("MainWindow", "Stop it and quit"),
                             QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(leave)
        box.exec()
        clicked = box.clickedButton()
        return LEAVE if clicked is leave else STOP if clicked is stop else CANCEL

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        remote_work = (not self.engine.target.is_local
                       and bool(self.engine.active(KEPT_BY_THE_SERVER)))  # type: ignore[arg-type]
        if remote_work and not self._closing and not self._leave_running:
            answer = self.confirm_leave()
            if answer not in (LEAVE, STOP):
                event.ignore()
                return
            self._leave_running = answer == LEAVE
        elif self.runs.active and not self._closing and not self.confirm_close():
            event.ignore()
            return
        if not self._closing:
            self.save_settings()
        if self.engine.busy and not self._leave_running:
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
        """End the engine process (idle or cancelled by now) and TensorBoard; a server's
        engine left running (``_leave_running``) keeps its work, and only the connection
        ends."""
        if not self._leave_running:
            self.runs.stop()
        self.tensorboard.shutdown()
        self.engine.restart_on_end = False
        self.engine.shutdown(leave_running=self._leave_running or not self.engine.busy)
        self.history_actions.close()
