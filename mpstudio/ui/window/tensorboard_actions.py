"""Run > Open in TensorBoard: the TensorBoard logs of the runs selected in History
(several side by side), or else of the last run trained in this window, in the
browser.

Starting TensorBoard takes seconds, so it starts on a plain Python thread (it runs
no TensorFlow here: a child process and HTTP polling); the result comes back to
the GUI thread through a queued signal. One server per window: opening the same
logs again reuses it, other logs replace it, and the window's shutdown stops it.

While the engine is on a server, the logs are there: the engine starts TensorBoard on
the server's loopback (a TensorBoardRequest) and the window forwards a port of its own
to it over ssh (engine/service/port_forward.py), then opens that in the browser.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from mpstudio.engine.history.run_models import run_folder
from mpstudio.engine.service.job_requests import TensorBoardRequest
from mpstudio.engine.service.port_forward import ForwardError, PortForward, open_forward
from mpstudio.engine.tensorboard_launch import (
    INSTALL_HINT,
    TensorBoardServer,
    has_logs,
    start_tensorboard,
    tensorboard_available,
)
from mpstudio.engine.tensorboard_log import LOGS_FOLDER

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    from mpstudio.engine.service.engine_target import EngineTarget
    from mpstudio.engine.service.served_tensorboard import TensorBoardAddress
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.engine_client.engine_job import EngineJob
    from mpstudio.ui.history.history_panel import HistoryPanel
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices

TITLE = QT_TRANSLATE_NOOP("TensorBoardActions", "Open in TensorBoard")  # shown translated


class TensorBoardActions(QObject):
    _started = Signal(object, object, str)  # request id, TensorBoardServer | None, error

    def __init__(self, state: WorkbenchState, notices: Notices, history: HistoryPanel,
                 action: QAction, window: QWidget, engine: EngineClient | None = None) -> None:
        super().__init__(window)
        self.state, self.notices, self.history = state, notices, history
        self.engine = engine  # where the logs are, when it is on a server
        self.window = window  # the message boxes' parent
        self.server: TensorBoardServer | PortForward | None = None
        self._server_runs: tuple[str, tuple[int, ...]] | None = None  # a forward's: for reuse
        self._job: EngineJob[TensorBoardAddress] | None = None
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._request = 0
        self._starting: dict[str, Path] | None = None  # the folders a start is under way for
        self._logs: dict[str, Path] = {}  # a forwarded server's folders, there
        self._started.connect(self._on_started)
        action.triggered.connect(self.open_runs)

    # ------------------------------------------------------------ choosing
    def run_ids(self) -> list[int]:
        """The runs selected in History, or else the last run trained in this window."""
        selected = self.history.selected_ids()
        if selected and not self.history.elsewhere:  # another machine's ids are not here
            return selected
        outcome = self.state.last_outcome
        if outcome is not None and outcome.history_kept and outcome.stored:
            return [outcome.stored[-1].id]
        return []

    def open_runs(self) -> None:
        ids = self.run_ids()
        if not ids:
            self.inform(QCoreApplication.translate(
                "TensorBoardActions",
                "There is no run to show: select one in History, or train one."))
            return
        if self.engine is not None and not self.engine.target.is_local:
            self.open_on_server(tuple(ids))
            return
        if not tensorboard_available():
            self.inform(QCoreApplication.translate(
                "TensorBoardActions", "TensorBoard is not installed here. Install it with:"
                "\n\n    {command}\n\nthen choose Run > Open in TensorBoard again.").format(
                    command=INSTALL_HINT))
            return
        folders = {f"run{i}": folder for i in ids
                   if (folder := logs_folder(i)) is not None and has_logs(folder)}
        if not folders:
            # tensorboard_launch.NO_LOGS_HINT, worded here as one sentence to translate
            if len(ids) == 1:
                text = QCoreApplication.translate(
                    "TensorBoardActions", "Run #{id} has no TensorBoard logs. To get them, "
                    "turn on 'Write TensorBoard logs' (or --tensorboard) and run it "
                    "again.").format(id=ids[0])
            else:
                text = QCoreApplication.translate(
                    "TensorBoardActions", "None of the selected runs has TensorBoard logs. "
                    "To get them, turn on 'Write TensorBoard logs' (or --tensorboard) and run "
                    "it again.")
            self.inform(text)
            return
        self.open_logs(folders)

    # ------------------------------------------------------------ on a server
    def open_on_server(self, ids: tuple[int, ...]) -> None:
        """TensorBoard started by the server's engine on those runs' logs, then a port
        forwarded to it (reused when it shows the same runs)."""
        assert self.engine is not None
        target = self.engine.target
        if isinstance(self.server, PortForward) and self.server.running \
                and self._server_runs == (target.address, ids):
            self.open_url(self.server.url)
            return
        self.stop()
        self._request += 1
        request = self._request
        self.notices.status(QCoreApplication.translate(
            "TensorBoardActions", "starting TensorBoard on {host}…").format(host=target.label))
        job = self.engine.submit(TensorBoardRequest(ids), parent=self)
        self._job = job
        job.on_result(lambda address: self._forward(request, target, ids, address))
        job.errored.connect(lambda reason: self._failed(request, reason))

    def _forward(self, request: int, target: EngineTarget, ids: tuple[int, ...],
                 address: TensorBoardAddress) -> None:
        if request != self._request:
            return
        self._job = None
        self._server_runs = (target.address, ids)
        self._logs = {name: Path(folder) for name, folder in address.logs.items()}
        self._cancel = threading.Event()
        cancel = self._cancel

        def start() -> None:  # ssh's login takes a second or more: not on the GUI thread
            try:
                forward = open_forward(target, address.port, should_stop=cancel.is_set)
            except ForwardError as exc:
                self._started.emit(request, None, str(exc))
                return
            if cancel.is_set():
                forward.stop()
                return
            self._started.emit(request, forward, "")

        self._thread = threading.Thread(target=start, name="mpstudio-tensorboard-forward",
                                        daemon=True)
        self._thread.start()

    def _failed(self, request: int, reason: str) -> None:
        if request != self._request or reason == "cancelled":
            return
        self._job = None
        self._on_started(request, None, reason)

    # ------------------------------------------------------------ starting
    def open_logs(self, folders: dict[str, Path]) -> None:
        """Show ``folders`` (name -> logs folder): reuse the running server when it shows
        the same, otherwise start one off the GUI thread."""
        single = next(iter(folders.values())) if len(folders) == 1 else None
        wanted = {"": single} if single is not None else dict(folders)  # as the server has it
        if isinstance(self.server, TensorBoardServer) and self.server.running \
                and self.server.logdirs == wanted:
            self._show(self.server)
            return
        if self._starting == wanted:
            return  # already on its way
        self.stop()
        self._request += 1
        self._starting = wanted
        self._cancel = threading.Event()
        cancel, request = self._cancel, self._request
        spec = single if single is not None else wanted
        self.notices.status(QCoreApplication.translate("TensorBoardActions",
                                                       "starting TensorBoard…"))
        self.notices.log(QCoreApplication.translate(
            "TensorBoardActions", "starting TensorBoard… (logs: {folders})").format(
                folders=_describe(folders)))
        self._thread = threading.Thread(
            target=self._start, args=(spec, request, cancel), name="mpstudio-tensorboard",
            daemon=True)
        self._thread.start()

    def _start(self, spec: Path | dict[str, Path], request: int,
               cancel: threading.Event) -> None:
        """On the starter thread: start the server, hand the result to the GUI thread."""
        try:
            server = start_tensorboard(spec, should_stop=cancel.is_set)
        except InterruptedError:
            return
        except Exception as exc:  # a message for people, never a traceback in a dialog
            self._started.emit(request, None, str(exc) or type(exc).__name__)
            return
        if cancel.is_set():
            server.stop()
            return
        self._started.emit(request, server, "")

    def _on_started(self, request: int, server: TensorBoardServer | PortForward | None,
                    error: str) -> None:
        if request != self._request or self._cancel.is_set():
            if server is not None:
                server.stop()  # superseded or closing
            return
        self._starting = None
        if server is None:
            self.notices.status(QCoreApplication.translate("TensorBoardActions",
                                                           "TensorBoard could not start"))
            text = QCoreApplication.translate("TensorBoardActions",
                                              "TensorBoard could not start: {reason}")
            self.notices.log(text.format(reason=error), "error")
            self.notices.banner(text.format(reason=error.splitlines()[0]), "error")
            return
        self.server = server
        self._show(server)

    def _show(self, server: TensorBoardServer | PortForward) -> None:
        url = server.url.rstrip("/")
        if isinstance(server, PortForward):
            assert self.engine is not None
            text = QCoreApplication.translate(
                "TensorBoardActions", "TensorBoard of {host} at {url}, forwarded over ssh "
                "(logs there: {folders})").format(host=self.engine.target.label, url=url,
                                                  folders=_describe(self._logs))
        else:
            text = QCoreApplication.translate(
                "TensorBoardActions", "TensorBoard at {url} (logs: {folders})").format(
                    url=url, folders=_describe(server.logdirs))
        self.notices.status(text)
        self.notices.log(text, "success")
        self.open_url(server.url)

    def open_url(self, url: str) -> None:
        """Open ``url`` in the browser (tests replace this)."""
        QDesktopServices.openUrl(QUrl(url))

    def inform(self, text: str) -> None:
        QMessageBox.information(self.window,
                                QCoreApplication.translate("TensorBoardActions", TITLE), text)

    # ------------------------------------------------------------- stopping
    def stop(self) -> None:
        """Stop the server and any start under way."""
        self._cancel.set()
        self._starting = None
        self._server_runs = None
        if self._job is not None:
            self._job.cancel()
            self._job = None
        if self.server is not None:
            self.server.stop()  # a forward's: the server's TensorBoard ends with its engine
            self.server = None

    def shutdown(self) -> None:
        """The window closes: stop everything and wait for the starter thread."""
        self.stop()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None


def logs_folder(run_id: int) -> Path | None:
    folder = run_folder(run_id)
    return None if folder is None else folder / LOGS_FOLDER


def _describe(folders: dict[str, Path]) -> str:
    if len(folders) == 1:  # {"": folder} from the server, {"run7": folder} from a request
        return str(next(iter(folders.values())))
    return ", ".join(f"{name}: {path}" for name, path in folders.items())
