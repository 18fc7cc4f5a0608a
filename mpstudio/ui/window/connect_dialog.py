"""Engine > Connect to a server…: the server (anything ssh accepts: an alias from
~/.ssh/config, user@host, ssh://user@host:port, or command:... for srun or kubectl
exec) and how mpstudio is run there, remembered per server."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from mpstudio.engine.service.engine_target import (
    DEFAULT_REMOTE,
    EngineTarget,
    TargetError,
    parse_target,
)
from mpstudio.ui.themed import set_role


class ConnectDialog(QDialog):
    def __init__(self, recent: list[str], remote_for: Callable[[str], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connectDialog")
        self.setWindowTitle(QCoreApplication.translate("ConnectDialog", "Connect to a server"))
        self._remote_for = remote_for
        self.target: EngineTarget | None = None
        self.server = QComboBox()
        self.server.setObjectName("server")
        self.server.setEditable(True)
        self.server.addItems(recent)
        self.server.setCurrentText(recent[0] if recent else "")
        line = self.server.lineEdit()
        assert line is not None
        line.setPlaceholderText(QCoreApplication.translate(
            "ConnectDialog", "gpu-box, me@10.0.0.5 or ssh://me@host:2222"))
        self.remote = QLineEdit()
        self.remote.setObjectName("remote")
        self.remote.setPlaceholderText(QCoreApplication.translate(
            "ConnectDialog",
            "mpstudio, ~/venvs/mp/ or conda run --no-capture-output -n mp mpstudio"))
        self.server.currentTextChanged.connect(self._server_changed)
        self._server_changed(self.server.currentText())
        how = QLabel(QCoreApplication.translate(
            "ConnectDialog", "mpstudio runs <code>ssh SERVER MPSTUDIO engine connect</code> "
            "with your keys, agent and ~/.ssh/config (aliases, ProxyJump, ports). The "
            "server needs mpstudio (<code>pip install mpstudio</code>) and a login without "
            "a password prompt. Runs go on there when the connection drops; the window "
            "catches up when it reconnects. For Slurm or Kubernetes, give the whole "
            "command: <code>command:srun --gres=gpu:1 mpstudio engine connect</code>."))
        how.setWordWrap(True)
        how.setTextFormat(Qt.TextFormat.RichText)
        set_role(how, "hint")
        self.problem = QLabel()
        self.problem.setObjectName("problem")
        self.problem.setWordWrap(True)
        set_role(self.problem, "error")
        self.problem.hide()
        form = QFormLayout()
        form.addRow(QCoreApplication.translate("ConnectDialog", "&Server:"), self.server)
        form.addRow(QCoreApplication.translate("ConnectDialog", "&mpstudio there:"),
                    self.remote)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert ok is not None
        ok.setText(QCoreApplication.translate("ConnectDialog", "&Connect"))
        buttons.accepted.connect(self._connect)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(how)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.setMinimumWidth(560)
        how.setMinimumWidth(540)  # its height for that width, not for its one-line width
        self.adjustSize()

    def _server_changed(self, text: str) -> None:
        """The server's own remembered mpstudio (each server has its venv)."""
        self.remote.setText(self._remote_for(text.strip()) or DEFAULT_REMOTE)

    def _connect(self) -> None:
        try:
            target = parse_target(self.server.currentText(), self.remote.text())
        except TargetError as exc:
            self._say(str(exc))
            return
        if target.is_local:
            self._say(QCoreApplication.translate(
                "ConnectDialog", "give a server: for this computer, use Engine > This "
                "computer"))
            return
        self.target = target
        self.accept()

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()
        self.adjustSize()  # room for the sentence: the hint above keeps its lines
