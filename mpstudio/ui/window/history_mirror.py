"""Whose runs History shows: this computer's, or a server's from the window's own copy of
that server's run history (engine/history/mirror_rows.py).

The copy of the server the engine is on is brought up to date when the engine is ready,
while its runs train and when they end; the copies of servers connected to before stay
readable, offline too. History follows the engine's machine; its Machine list shows any
other machine's runs meanwhile ("History — gpu-box"), whose models are on that machine
(Export asks to connect to it). A run started brings the engine's machine back.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QComboBox, QDockWidget

from mpstudio.engine.history.mirror_rows import copy_state, mirror_path, write_rows
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.service.engine_target import TargetError, parse_target
from mpstudio.engine.service.job_requests import HistoryRowsRequest
from mpstudio.ui.engine_client.engine_client import KEPT_BY_THE_SERVER

if TYPE_CHECKING:
    from mpstudio.engine.history.mirror_rows import HistoryRows
    from mpstudio.engine.service.engine_target import EngineTarget
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.window.gui_settings import GuiSettings
    from mpstudio.ui.window.history_actions import HistoryActions

WHILE_TRAINING_MS = 10_000  # a running run's rows, this often, while one trains there
HERE = "local"  # this computer's address (EngineTarget().address)


class HistoryMirror(QObject):
    def __init__(self, engine: EngineClient, history: HistoryActions, dock: QDockWidget,
                 notices: Notices, settings: GuiSettings, parent: QObject | None = None
                 ) -> None:
        super().__init__(parent)
        self.engine, self.history, self.dock, self.notices = engine, history, dock, notices
        self.settings = settings
        self._title = dock.windowTitle()
        self.shown = ""  # the address of the machine whose runs History shows
        self._job: Any = None
        self._training = False
        self._timer = QTimer(self)
        self._timer.setInterval(WHILE_TRAINING_MS)
        self._timer.timeout.connect(self.sync)
        self.machine_combo = QComboBox()
        self.machine_combo.setObjectName("historyMachine")
        self.machine_combo.setToolTip(QCoreApplication.translate(
            "HistoryMirror", "Whose runs: this computer's, or a server's (the window's copy "
            "of its history, readable when the server is not)"))
        self.machine_combo.hide()
        history.history.filters.addWidget(self.machine_combo)
        self.machine_combo.activated.connect(
            lambda index: self.show(str(self.machine_combo.itemData(index))))
        engine.ready.connect(lambda _ready: self.sync())
        engine.jobs_changed.connect(self._jobs_changed)

    # ------------------------------------------------------------ showing
    def machine_changed(self, target: EngineTarget) -> None:
        """The engine is now at ``target``: show its runs."""
        self._job = None
        self.show(target.address)

    def show(self, address: str) -> None:
        """Show the runs of the machine at ``address`` (HERE: this computer)."""
        self.shown = address
        label = self._label(address)
        if address == HERE:
            self.history.open()
            self.dock.setWindowTitle(self._title)
        else:
            self.history.open(mirror_path(address))
            self.dock.setWindowTitle(QCoreApplication.translate(
                "HistoryMirror", "History — {host}").format(host=label))
        panel = self.history.history
        panel.elsewhere = "" if address == self.engine.target.address else label
        panel.refresh()
        self._fill_machines()

    def _fill_machines(self) -> None:
        """This computer, and each server with a copy here (or the engine's)."""
        combo = self.machine_combo
        combo.clear()
        combo.addItem(QCoreApplication.translate("HistoryMirror", "This computer"), HERE)
        for address in self.settings.recent_engines():
            if mirror_path(address).exists() or address == self.engine.target.address:
                combo.addItem(self._label(address), address)
        combo.setCurrentIndex(max(combo.findData(self.shown), 0))
        combo.setVisible(combo.count() > 1)

    @staticmethod
    def _label(address: str) -> str:
        if address == HERE:
            return QCoreApplication.translate("HistoryMirror", "This computer")
        try:
            return parse_target(address).label
        except TargetError:
            return address

    # ------------------------------------------------------------ the copy
    def _copy(self) -> Path | None:
        """The file of the copy of the engine's server's history (None: on this computer)."""
        target = self.engine.target
        return None if target.is_local else mirror_path(target.address)

    def sync(self) -> None:
        """Ask the server's engine for the rows the copy lacks (nothing on this computer,
        or while a request is out)."""
        path = self._copy()
        if path is None or self._job is not None or not self.engine.ready_now \
                or self.engine.shutting_down:
            return
        try:
            with RunStore(path) as store:
                last, running = copy_state(store)
        except HistoryError as exc:
            self._cannot_write(exc)
            return
        job = self.engine.submit(HistoryRowsRequest(last, running), parent=self)
        self._job = job
        job.on_result(lambda rows: self._write(path, rows))
        job.finished.connect(lambda: self._done(job))

    def _done(self, job: Any) -> None:
        if self._job is job:
            self._job = None

    def _write(self, path: Path, rows: HistoryRows) -> None:
        if path != self._copy():
            return  # the engine moved meanwhile
        try:
            with RunStore(path) as store:
                written = write_rows(store, rows)
        except HistoryError as exc:
            self._cannot_write(exc)
            return
        if written and self.shown == self.engine.target.address:
            self.history.history.refresh()
        if rows.more:  # a long history arrives in parts
            self._job = None
            QTimer.singleShot(0, self.sync)

    def _cannot_write(self, exc: HistoryError) -> None:
        self.notices.log(QCoreApplication.translate(
            "HistoryMirror", "the copy of {host}'s history could not be written: "
            "{error}").format(host=self.engine.target.label, error=exc), "warning")

    def _jobs_changed(self) -> None:
        training = bool(self.engine.active(KEPT_BY_THE_SERVER))  # type: ignore[arg-type]
        if training == self._training:
            return
        self._training = training
        if training and self.shown != self.engine.target.address:
            self.show(self.engine.target.address)  # the run's own History, live
        if training and not self.engine.target.is_local:
            self._timer.start()
        else:
            self._timer.stop()
            self.sync()  # the runs that just ended, with every metric
