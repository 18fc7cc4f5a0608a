"""History while the engine is on a server: the window's own copy of that server's
run history (engine/history/mirror_rows.py), brought up to date when the engine is
ready, while its runs train and when they end, and shown by the History panel, which
then reads "History — gpu-box". Offline (a server not reachable) the copy still shows
every run it had. Back on this computer, the History is this computer's again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QDockWidget

from mpstudio.engine.history.mirror_rows import copy_state, mirror_path, write_rows
from mpstudio.engine.history.store import HistoryError
from mpstudio.engine.service.job_requests import HistoryRowsRequest
from mpstudio.ui.engine_client.engine_client import KEPT_BY_THE_SERVER

if TYPE_CHECKING:
    from mpstudio.engine.history.mirror_rows import HistoryRows
    from mpstudio.engine.service.engine_target import EngineTarget
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.window.history_actions import HistoryActions

WHILE_TRAINING_MS = 10_000  # a running run's rows, this often, while one trains there


class HistoryMirror(QObject):
    def __init__(self, engine: EngineClient, history: HistoryActions, dock: QDockWidget,
                 notices: Notices, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.history, self.dock, self.notices = engine, history, dock, notices
        self._title = dock.windowTitle()
        self._job: Any = None
        self._training = False
        self._timer = QTimer(self)
        self._timer.setInterval(WHILE_TRAINING_MS)
        self._timer.timeout.connect(self.sync)
        engine.ready.connect(lambda _ready: self.sync())
        engine.jobs_changed.connect(self._jobs_changed)

    def machine_changed(self, target: EngineTarget) -> None:
        """The engine is now at ``target``: show its history (this computer's own, or
        the window's copy of the server's)."""
        self._job = None
        if target.is_local:
            self.history.open()
            self.dock.setWindowTitle(self._title)
        else:
            self.history.open(mirror_path(target.address))
            self.dock.setWindowTitle(QCoreApplication.translate(
                "HistoryMirror", "History — {host}").format(host=target.label))

    def sync(self) -> None:
        """Ask the server's engine for the rows the copy lacks (nothing on this computer,
        or while a request is out)."""
        store = self.history.store
        if self.engine.target.is_local or self._job is not None or store is None \
                or not self.engine.ready_now or self.engine.shutting_down:
            return
        last, running = copy_state(store)
        job = self.engine.submit(HistoryRowsRequest(last, running), parent=self)
        self._job = job
        job.on_result(self._write)
        job.finished.connect(lambda: self._done(job))

    def _done(self, job: Any) -> None:
        if self._job is job:
            self._job = None

    def _write(self, rows: HistoryRows) -> None:
        store = self.history.store
        if store is None or self.engine.target.is_local:
            return
        try:
            written = write_rows(store, rows)
        except HistoryError as exc:
            self.notices.log(QCoreApplication.translate(
                "HistoryMirror", "the copy of {host}'s history could not be written: "
                "{error}").format(host=self.engine.target.label, error=exc), "warning")
            return
        if written:
            self.history.history.refresh()
        if rows.more:  # a long history arrives in parts
            self._job = None
            QTimer.singleShot(0, self.sync)

    def _jobs_changed(self) -> None:
        training = bool(self.engine.active(KEPT_BY_THE_SERVER))  # type: ignore[arg-type]
        if training == self._training:
            return
        self._training = training
        if training and not self.engine.target.is_local:
            self._timer.start()
        else:
            self._timer.stop()
            self.sync()  # the runs that just ended, with every metric
