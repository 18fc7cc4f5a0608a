"""The engine process's life as the window tells it: why its start is slow, that it is
ready (TensorFlow's versions, where its log goes), that TensorFlow could not load, that
it ended and a fresh one starts. It writes ``state.engine``; what waits for the engine
(the hardware check, the model preview) observes that, not this."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject

from mpstudio.engine.said import render

if TYPE_CHECKING:
    from mpstudio.engine.service.protocol import EngineReady
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_end import EngineEnd
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices


class EngineStartup(QObject):
    def __init__(self, engine: EngineClient, state: WorkbenchState, notices: Notices,
                 versions: dict[str, str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.state, self.notices = engine, state, notices
        self.versions = versions  # the window's About shows them; TensorFlow's added here
        self._engine_log = ""  # where the engine process's stderr goes, once it is ready
        engine.starting.connect(self._starting)
        engine.ready.connect(self._ready)
        engine.load_failed.connect(self._load_failed)
        engine.ended.connect(self._ended)

    @property
    def engine_log(self) -> str:
        """The engine process's log file ("" until it is ready, or when it writes none):
        where a failed job's traceback is."""
        return self._engine_log

    def _starting(self, note: Any) -> None:
        """The engine says why its start is slow (the driver compiles TensorFlow's
        kernels for this GPU): the status line and the log say it until it is ready."""
        text = render(note)
        self.notices.status(text)
        self.notices.log(text, "note")

    def _ready(self, ready: EngineReady) -> None:
        first = not self.versions.get("TensorFlow")
        self.versions.update(ready.versions)
        self._engine_log = ready.log_file
        # TensorFlow's own warnings and errors go to that file, not the terminal
        if ready.log_file:
            process = QCoreApplication.translate(
                "EngineStartup", "pid {pid}; its log: {log}").format(pid=ready.pid,
                                                                    log=ready.log_file)
        else:
            process = QCoreApplication.translate("EngineStartup", "pid {pid}").format(
                pid=ready.pid)
        if first:
            self.notices.log(QCoreApplication.translate(
                "EngineStartup", "TensorFlow {tensorflow}, Keras {keras} loaded in the engine "
                "process ({process})").format(tensorflow=ready.versions["TensorFlow"],
                                              keras=ready.versions["Keras"], process=process))
        else:
            self.notices.log(QCoreApplication.translate(
                "EngineStartup", "a fresh engine process is ready ({process})").format(
                    process=process))
        memory = ready.memory
        if memory.status in ("applied", "failed", "needs_restart"):
            self.notices.log(QCoreApplication.translate(
                "EngineStartup", "GPU memory: {message}").format(message=memory.message),
                "info" if memory.ok else "warning")
        self.notices.status(QCoreApplication.translate("EngineStartup", "Ready"))
        self.state.update(engine="ready")

    def _load_failed(self, message: str) -> None:
        self.state.update(engine="failed")
        self.notices.status(QCoreApplication.translate("EngineStartup",
                                                       "TensorFlow could not load"))
        self.notices.banner(QCoreApplication.translate(
            "EngineStartup", "TensorFlow could not load, so nothing can train: {reason}. "
            "Reinstall it (pip install -e .) and restart mpstudio.").format(reason=message),
            "error")
        self.notices.log(message, "error")

    def _ended(self, end: EngineEnd) -> None:
        """The engine process ended under work or while idle: a new one is starting.
        One the user ended takes new work at once: it waits in the new engine."""
        if end.requested:
            self.state.update(engine="restarting")
            self.notices.status(QCoreApplication.translate(
                "EngineStartup", "starting a fresh engine process… (a run started now "
                "begins as soon as it is ready)"))
            return
        self.state.update(engine="starting")
        self.notices.status(QCoreApplication.translate("EngineStartup",
                                                       "starting a fresh engine process…"))
        if self._engine_log:
            text = QCoreApplication.translate(
                "EngineStartup", "{reason}; starting a fresh engine process (what it "
                "printed is in {log})").format(reason=end.message, log=self._engine_log)
        else:
            text = QCoreApplication.translate(
                "EngineStartup", "{reason}; starting a fresh engine process").format(
                    reason=end.message)
        self.notices.log(text, "error")
        if not end.doing:  # a job's own failure (a run's banner) says more
            self.notices.banner(QCoreApplication.translate(
                "EngineStartup", "The engine process {how} while idle. A fresh one is "
                "starting; your setup is unchanged.").format(how=end.how), "error")
