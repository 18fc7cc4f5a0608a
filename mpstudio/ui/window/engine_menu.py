"""The Engine menu and where the engine is: Connect to a server…, the recent servers,
This computer, Reconnect; the status bar's "engine: gpu-box · NVIDIA H100 80GB", the
title, and what the window says as a server's connection drops, comes back or fails.

Switching machines while work runs asks first: on a server the work may be left
running there (its runs reach that server's History), or stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QMessageBox

from mpstudio.engine.service.engine_target import EngineTarget, TargetError, parse_target
from mpstudio.ui.engine_client.engine_client import (
    CONNECTED,
    DISCONNECTED,
    KEPT_BY_THE_SERVER,
    RECONNECTING,
)
from mpstudio.ui.window.connect_dialog import ConnectDialog

if TYPE_CHECKING:
    from mpstudio.engine.hardware.check import HardwareCheck
    from mpstudio.ui.engine_client.engine_client import EngineClient
    from mpstudio.ui.models.workbench_state import WorkbenchState
    from mpstudio.ui.notices import Notices
    from mpstudio.ui.window.gui_settings import GuiSettings

TITLE = QT_TRANSLATE_NOOP("MainWindow", "mpstudio — mixed-precision workbench")
LEAVE, STOP, CANCEL = "leave", "stop", "cancel"


class EngineMenu(QObject):
    def __init__(self, window: QMainWindow, engine: EngineClient, state: WorkbenchState,
                 notices: Notices, settings: GuiSettings, label: QLabel,
                 machine_changed: Callable[[EngineTarget], None]) -> None:
        super().__init__(window)
        self.window, self.engine, self.state, self.notices = window, engine, state, notices
        self.settings, self.label = settings, label
        # the hardware check starts afresh, History shows that machine's runs
        self._machine_changed = machine_changed
        self._device = ""  # the engine's first GPU (or CPU), once a check says it
        self.ask_switch: Callable[[EngineTarget], str] = self._ask_switch
        self.connect_action = QAction(QCoreApplication.translate(
            "EngineMenu", "Connect to a &server…"), window)
        self.connect_action.setObjectName("connectServer")
        self.connect_action.setStatusTip(QCoreApplication.translate(
            "EngineMenu", "Drive the engine on a GPU server through ssh: runs go on there "
            "when the connection drops"))
        self.local_action = QAction(QCoreApplication.translate(
            "EngineMenu", "This &computer"), window)
        self.local_action.setObjectName("engineHere")
        self.local_action.setCheckable(True)
        self.reconnect_action = QAction(QCoreApplication.translate(
            "EngineMenu", "&Reconnect"), window)
        self.reconnect_action.setObjectName("reconnect")
        self.menu = QMenu(QCoreApplication.translate("EngineMenu", "&Engine"), window)
        self.menu.setObjectName("engineMenu")
        self.recent_menu = QMenu(QCoreApplication.translate(
            "EngineMenu", "Rece&nt servers"), self.menu)
        for item in (self.connect_action, self.recent_menu.menuAction(), self.local_action,
                     None, self.reconnect_action):
            self.menu.addSeparator() if item is None else self.menu.addAction(item)
        self.connect_action.triggered.connect(self.show_connect)
        self.local_action.triggered.connect(lambda: self.switch(EngineTarget()))
        self.reconnect_action.triggered.connect(engine.reconnect)
        engine.connection_changed.connect(self._connection_changed)
        self._fill_recent()
        self._show_where()

    def insert_into(self, bar_before: QAction) -> None:
        """The menu in the menu bar, before ``bar_before`` (Help)."""
        self.window.menuBar().insertMenu(bar_before, self.menu)

    # ------------------------------------------------------------- choosing
    def show_connect(self) -> None:
        dialog = ConnectDialog(self._recent_servers(), self.settings.remote_for, self.window)
        if dialog.exec() and dialog.target is not None:
            self.switch(dialog.target)

    def connect_at_start(self, address: str) -> None:
        """``mpstudio --engine ADDRESS`` or MPSTUDIO_ENGINE: before the engine starts."""
        try:
            target = parse_target(address, self.settings.remote_for(address) or "mpstudio")
        except TargetError as exc:
            self.notices.banner(str(exc), "error")
            return
        self.engine.target = target
        self._remember(target)
        self._show_where()

    def switch(self, target: EngineTarget) -> None:
        if target == self.engine.target and self.engine.connection != DISCONNECTED:
            self._show_where()
            return
        leave = False
        if self.engine.active(KEPT_BY_THE_SERVER):  # type: ignore[arg-type]  # runs, a search
            answer = self.ask_switch(target)
            if answer == CANCEL:
                self._show_where()
                return
            leave = answer == LEAVE
        self.notices.log(QCoreApplication.translate(
            "EngineMenu", "switching the engine to {where}").format(where=target.label))
        self.notices.hide_banner()
        self._device = ""
        self.state.update(engine="starting")
        self.engine.switch_target(target, leave_running=leave)
        self._machine_changed(target)
        if not target.is_local:
            self._remember(target)
        self._show_where()

    def _ask_switch(self, target: EngineTarget) -> str:
        here = self.engine.target
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(QCoreApplication.translate("EngineMenu", "Work is running"))
        box.setText(QCoreApplication.translate(
            "EngineMenu", "The engine on {here} is running work. Switch to {there}?").format(
                here=here.label, there=target.label))
        leave = None
        if not here.is_local:
            leave = box.addButton(QCoreApplication.translate(
                "EngineMenu", "Leave it running there"), QMessageBox.ButtonRole.AcceptRole)
            box.setInformativeText(QCoreApplication.translate(
                "EngineMenu", "Left running, its runs reach {here}'s History when they "
                "end.").format(here=here.label))
        stop = box.addButton(QCoreApplication.translate("EngineMenu", "Stop it"),
                             QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return LEAVE if clicked is leave and leave is not None else \
            STOP if clicked is stop else CANCEL

    def _remember(self, target: EngineTarget) -> None:
        self.settings.remember_engine(target.address, target.remote)
        self._fill_recent()

    def _recent_servers(self) -> list[str]:
        """As the user would type them: "gpu-box", not "ssh://gpu-box" (a port keeps it)."""
        return [_typed(a) for a in self.settings.recent_engines()]

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for address in self.settings.recent_engines():
            try:
                target = parse_target(address, self.settings.remote_for(address) or "mpstudio")
            except TargetError:
                continue
            action = self.recent_menu.addAction(_typed(address))
            action.triggered.connect(lambda _=False, t=target: self.switch(t))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())

    # ---------------------------------------------------------- where it is
    def hardware_checked(self, check: HardwareCheck) -> None:
        gpus = check.report.usable_gpus or check.report.gpus
        self._device = gpus[0].name if gpus else "CPU"
        self._show_where()

    def _connection_changed(self, state: str, problem: str) -> None:
        host = self.engine.target.label
        if state == RECONNECTING and problem:
            self.notices.log(QCoreApplication.translate(
                "EngineMenu", "{problem}; the engine goes on there, reconnecting…").format(
                    problem=problem), "warning")
            self.notices.status(QCoreApplication.translate(
                "EngineMenu", "reconnecting to {host}…").format(host=host))
        elif state == CONNECTED and self.state.engine == "disconnected":
            self.state.update(engine="starting")
        elif state == DISCONNECTED:
            self.state.update(engine="disconnected")
            said = QCoreApplication.translate(
                "EngineMenu", "Not connected to {host}: {problem}. Engine > Reconnect tries "
                "again; Engine > This computer trains here.").format(host=host, problem=problem)
            self.notices.banner(said, "error")
            self.notices.log(said, "error")  # the banner goes; the Log keeps it
            self.notices.status(QCoreApplication.translate("EngineMenu", "not connected"))
        self._show_where()

    def _show_where(self) -> None:
        target = self.engine.target
        self.local_action.setChecked(target.is_local)
        self.reconnect_action.setEnabled(not target.is_local)
        state = self.engine.connection
        if target.is_local:
            detail = self._device
        elif state == RECONNECTING:
            detail = QCoreApplication.translate("EngineMenu", "reconnecting…")
        elif state == DISCONNECTED:
            detail = QCoreApplication.translate("EngineMenu", "not connected")
        elif state == CONNECTED:
            detail = self._device or QCoreApplication.translate("EngineMenu", "connected")
        else:
            detail = QCoreApplication.translate("EngineMenu", "connecting…")
        where = target.label
        self.label.setText(QCoreApplication.translate("EngineMenu", "engine: {where}").format(
            where=where) + (f" · {detail}" if detail else ""))
        self.label.setToolTip(self.engine.connection_problem
                              or ("" if target.is_local else target.address))
        title = QCoreApplication.translate("MainWindow", TITLE)
        self.window.setWindowTitle(title if target.is_local else f"{title} — {where}")


def _typed(address: str) -> str:
    if address.startswith("ssh://") and ":" not in address[len("ssh://"):]:
        return address[len("ssh://"):]
    return address
