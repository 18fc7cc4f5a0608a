"""The file dialog for the engine's machine, driven as a user would, its folders listed
by a real engine process (ListFolderRequest): entering a folder, going up, a path that
fails saying why (the dialog still usable), picking a file. Then the window with its
engine "on a server" (a command target: not this computer's engine, as far as the window
knows, though the command runs here): File > Import… and Open .keras… browse the
server's folders, and what is picked is imported as the server names it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTreeWidget

from mpstudio.engine.service.engine_target import ENGINE_ENV
from mpstudio.ui.engine_client.engine_client import EngineClient
from mpstudio.ui.window.server_file_dialog import ServerFileDialog

from support.gui_helpers import close_window, open_window

pytestmark = pytest.mark.timeout(300)
READY_MS = 120_000
LIST_MS = 30_000


@pytest.fixture
def engine(qtbot):
    client = EngineClient()
    with qtbot.waitSignal(client.ready, timeout=READY_MS):
        client.start()
    yield client
    assert client.shutdown(30_000)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    (root / "images" / "cats").mkdir(parents=True)
    (root / "images" / "dogs").mkdir()
    (root / ".cache").mkdir()
    x = np.zeros((40, 8, 8), np.uint8)
    x[::2, :4] = 255  # two classes a model can tell apart
    np.savez(root / "digits.npz", x_train=x, y_train=np.arange(40) % 2)
    (root / "notes.txt").write_text("not data")
    (root / "models").mkdir()
    (root / "models" / "mine.keras").write_bytes(b"not a zip: the engine says so")
    return root


def names(entries: QTreeWidget) -> list[str]:
    return [entries.topLevelItem(i).text(0) for i in range(entries.topLevelItemCount())]


def shows(dialog: ServerFileDialog, folder: Path) -> bool:
    return dialog.job is None and dialog.listing is not None \
        and dialog.listing.path == str(folder)


def double_click(qtbot, entries: QTreeWidget, name: str) -> None:
    item = next(entries.topLevelItem(i) for i in range(entries.topLevelItemCount())
                if entries.topLevelItem(i).text(0) == name)
    rect = entries.visualItemRect(item)
    qtbot.mouseClick(entries.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(entries.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def select(entries: QTreeWidget, name: str) -> None:
    item = next(entries.topLevelItem(i) for i in range(entries.topLevelItemCount())
                if entries.topLevelItem(i).text(0) == name)
    entries.setCurrentItem(item)


def ok_button(dialog: ServerFileDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_the_dialog_browses_the_engines_folders_and_picks_a_file(engine, data, qtbot):
    dialog = ServerFileDialog(engine, "gpu-box", "Import a dataset file",
                              suffixes=(".npz", ".csv"), start=str(data))
    qtbot.addWidget(dialog)
    picked: list[str] = []
    dialog.chosen.connect(picked.append)
    dialog.resize(800, 500)
    dialog.open()
    assert dialog.windowTitle() == "Import a dataset file on gpu-box"
    assert dialog.status.text() == "listing…"
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)
    assert names(dialog.entries) == ["images", "models", "digits.npz"]  # no .txt, no dots
    assert dialog.status.text() == "Folders and .npz, .csv files."
    assert dialog.entries.topLevelItem(2).text(1)  # a size; a folder has none
    assert not dialog.entries.topLevelItem(0).text(1)
    assert not ok_button(dialog).isEnabled()  # nothing picked yet

    double_click(qtbot, dialog.entries, "images")
    qtbot.waitUntil(lambda: shows(dialog, data / "images"), timeout=LIST_MS)
    assert names(dialog.entries) == ["cats", "dogs"]
    assert dialog.path_edit.text() == str(data / "images")
    qtbot.mouseClick(dialog.up_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)
    select(dialog.entries, "models")
    qtbot.keyClick(dialog.entries, Qt.Key.Key_Return)  # opens it, does not accept
    qtbot.waitUntil(lambda: shows(dialog, data / "models"), timeout=LIST_MS)
    assert names(dialog.entries) == []  # mine.keras is no dataset file
    assert dialog.status.text() == "Folders and .npz, .csv files. Nothing here to open."
    qtbot.mouseClick(dialog.up_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)

    # a path that is not there: its sentence, and the folder shown stays usable
    dialog.path_edit.clear()
    qtbot.keyClicks(dialog.path_edit, str(data / "nowhere"))
    qtbot.keyClick(dialog.path_edit, Qt.Key.Key_Return)  # goes there, does not accept
    qtbot.waitUntil(lambda: dialog.job is None and dialog.status.property("role") == "error",
                    timeout=LIST_MS)
    assert dialog.status.text() == (
        f"there is no folder {data / 'nowhere'} on the engine's machine: check the path, "
        f"or go up to a folder that exists")
    assert dialog.isVisible() and dialog.listing.path == str(data)
    assert names(dialog.entries) == ["images", "models", "digits.npz"]
    dialog.path_edit.setText(str(data / "digits.npz"))
    dialog.go(dialog.path_edit.text())
    qtbot.waitUntil(lambda: dialog.job is None and "is a file" in dialog.status.text(),
                    timeout=LIST_MS)

    # a second listing asked before the first has come back: only the second counts
    dialog.go(str(data / "images"))
    dialog.go(str(data))
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)
    assert dialog.status.property("role") == "hint"

    select(dialog.entries, "digits.npz")
    assert ok_button(dialog).isEnabled()
    double_click(qtbot, dialog.entries, "digits.npz")
    assert picked == [str(data / "digits.npz")] and dialog.picked == picked[0]
    assert dialog.result() == QDialog.DialogCode.Accepted and not dialog.isVisible()


def test_picking_a_folder_takes_the_one_selected_or_the_one_shown(engine, data, qtbot):
    dialog = ServerFileDialog(engine, "gpu-box", "Import an image folder",
                              folders_only=True, start=str(data / "images"))
    qtbot.addWidget(dialog)
    dialog.open()
    qtbot.waitUntil(lambda: shows(dialog, data / "images"), timeout=LIST_MS)
    assert dialog.status.text() == "Folders only."
    assert ok_button(dialog).isEnabled()  # the folder shown
    qtbot.mouseClick(dialog.home_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.job is None and dialog.listing.path != str(
        data / "images"), timeout=LIST_MS)
    assert dialog.listing.home == dialog.listing.path
    dialog.go(str(data))
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)
    assert names(dialog.entries) == ["images", "models"]
    select(dialog.entries, "images")
    picked: list[str] = []
    dialog.chosen.connect(picked.append)
    qtbot.mouseClick(ok_button(dialog), Qt.MouseButton.LeftButton)
    assert picked == [str(data / "images")]


@pytest.fixture
def server_window(qtbot, tmp_path, monkeypatch):
    """The window, its engine reached through a command (as srun or kubectl exec would
    reach a server's): not this computer's engine, as far as the window knows."""
    monkeypatch.setenv(ENGINE_ENV, f"command:{sys.executable} -m mpstudio.engine.service")
    window = open_window(qtbot, tmp_path / "window.ini")
    yield window
    if not window._closed:
        close_window(qtbot, window)


def _pick(qtbot, window, folder: Path, name: str | None) -> ServerFileDialog:
    dialog = window.files.server.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: shows(dialog, folder), timeout=LIST_MS)
    if name is not None:
        select(dialog.entries, name)
    qtbot.mouseClick(ok_button(dialog), Qt.MouseButton.LeftButton)
    return dialog


def test_import_and_open_keras_browse_the_servers_folders(server_window, data, qtbot):
    window = server_window
    assert not window.engine.target.is_local
    host = window.engine.target.label
    picker = window.setup.dataset

    # File > Import an image folder: the server's, not checked here; its engine reads it
    picker.import_folder_requested.emit()
    dialog = window.files.server.dialog
    assert dialog.windowTitle().endswith(f" on {host}")
    dialog.go(str(data))
    _pick(qtbot, window, data, "images")
    path = str(data / "images")
    assert picker.dataset() == path
    assert picker.combo.currentText() == "images  (folder)"
    # two empty class folders: the server's engine says what is wrong with them
    qtbot.waitUntil(lambda: picker.summary.property("role") == "error", timeout=LIST_MS)
    assert "images" in picker.summary.text()
    assert window.files.server.dialog is None

    # File > Import a dataset file: starts where the last dialog on this server was
    window.window_actions.import_dataset.trigger()
    _pick(qtbot, window, data, "digits.npz")
    assert picker.dataset() == str(data / "digits.npz")
    qtbot.waitUntil(lambda: "2 classes" in picker.summary.text(), timeout=LIST_MS)
    assert picker.summary.property("role") == "hint"

    # Open .keras…: the server's model file, shown by its name, its path as the server's
    window.setup.template_picker.open_button.click()
    dialog = window.files.server.dialog
    assert dialog.suffixes == (".keras",)
    qtbot.waitUntil(lambda: shows(dialog, data), timeout=LIST_MS)
    double_click(qtbot, dialog.entries, "models")
    _pick(qtbot, window, data / "models", "mine.keras")
    assert window.setup.template_picker.current() == str(data / "models" / "mine.keras")
    assert window.setup.template.currentText() == "mine.keras"
    assert window.files.server.folders == {window.engine.target.address: str(data / "models")}

    # Run: the server's files are checked there, not here (where they would be refused
    # as missing, were they another machine's); its engine's sentence comes back
    window.setup.baseline.setChecked(False)
    with qtbot.waitSignal(window.run_ended, timeout=120_000) as ended:
        window.run_actions.start_run()
    assert ended.args == ["failed"]
    model = data / "models" / "mine.keras"
    precision = window.setup.spec().precision
    assert f"starting {precision} on {data / 'digits.npz'} / {model}" in window.log.lines()
    assert window.banner.text().startswith(
        f"The run could not start: model file {model} is not a Keras 3 .keras file")
