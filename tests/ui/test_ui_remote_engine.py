"""The window on a laptop, its engine on a GPU server: started with MPSTUDIO_ENGINE (as
`mpstudio --engine gpu-box` does), through the real ssh client and a real SSH server
on localhost. The status bar and the title say where the engine is, a dropped
connection reconnects by itself, and quitting during a run leaves it running there."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mpstudio.engine.export.results import ExportRequest
from mpstudio.engine.service.engine_target import (
    ENGINE_ENV,
    SSH_ENV,
    EngineTarget,
    parse_target,
)
from mpstudio.ui.engine_client.engine_client import CONNECTED, RECONNECTING
from mpstudio.ui.window.engine_menu import LEAVE

from support.gui_helpers import close_window, open_window
from support.ssh_server import stop_engine

pytestmark = pytest.mark.timeout(300)


@pytest.fixture()
def remote_window(gpu_server, monkeypatch, qtbot, tmp_path):
    monkeypatch.setenv(SSH_ENV, f"ssh -F {gpu_server.config}")
    monkeypatch.setenv(ENGINE_ENV, "gpu-box")
    window = open_window(qtbot, tmp_path / "window.ini")
    yield window
    if not window._closed:
        close_window(qtbot, window)


def test_the_window_drives_the_servers_engine_and_leaves_a_run_there(
        remote_window, gpu_server, qtbot):
    window = remote_window
    assert window.engine.target == EngineTarget("ssh", host="gpu-box")
    assert window.engine_label.text() == "engine: gpu-box · CPU"  # its hardware check
    assert window.windowTitle().endswith("— gpu-box")
    assert window.settings.recent_engines() == ["ssh://gpu-box"]
    states: list[str] = []
    window.engine.connection_changed.connect(lambda state, _why: states.append(state))
    gpu_server.kill_connections()  # the Wi-Fi changed
    qtbot.waitUntil(lambda: RECONNECTING in states, timeout=30_000)
    assert "reconnecting" in window.engine_label.text()
    qtbot.waitUntil(lambda: window.engine.connection == CONNECTED, timeout=60_000)
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=60_000)
    assert window.engine_label.text().startswith("engine: gpu-box")

    spec = window.setup.spec().replace(epochs=400, batch_size=32)
    window.setup.set_spec(spec)
    window.setup.baseline.setChecked(False)
    window.run_actions.start_run()
    qtbot.waitUntil(lambda: window.engine.running_job() is not None, timeout=60_000)
    asked = []
    window.confirm_leave = lambda: asked.append(True) or LEAVE
    window.close()
    qtbot.waitUntil(lambda: window._closed, timeout=60_000)
    assert asked and window.engine.pid is None
    status = gpu_server.ssh("mpstudio engine status", timeout=60).stdout.decode()
    assert "jobs running or queued: 1" in status and "the run" in status, status
    stop_engine(gpu_server)  # the next test's runs need the engine


def test_a_comparison_on_the_server_reaches_the_windows_history_and_stays_offline(
        remote_window, qtbot, tmp_path):
    """History shows the server's runs from the window's copy (the server's ids), and
    still shows them when the engine is elsewhere and the server is not reached."""
    window = remote_window
    assert window.history_dock.windowTitle() == "History — gpu-box"
    spec = window.setup.spec().replace(precision="mixed_float16", epochs=1, batch_size=64)
    window.setup.set_spec(spec)
    window.setup.baseline.setChecked(True)
    window.setup.sizing.setChecked(False)  # two short runs, not a comparison sized to time
    with qtbot.waitSignal(window.run_ended, timeout=240_000) as ended:
        window.run_actions.start_run()
    assert ended.args == ["finished"]
    stored = [run.id for run in window.last_outcome.stored]
    assert len(stored) == 2
    qtbot.waitUntil(lambda: set(stored) <= set(window.history.visible_ids()), timeout=30_000)

    # File > Export model: written on the server, copied here with its SHA-256 checked
    window.exports.export_last_run()
    folder = tmp_path / "exports"
    folder.mkdir()
    targets = [folder / "digits.keras", folder / "digits_savedmodel"]
    assert window.exports.start_export([ExportRequest("keras", targets[0]),
                                        ExportRequest("savedmodel", targets[1])])
    qtbot.waitUntil(lambda: window.exports.job is None and window.exports._copy is None,
                    timeout=240_000)
    said = window.log.lines("success")  # "export: Keras (.keras) -> PATH: ..., OK"
    assert all(any(f"-> {t}:" in line for line in said) for t in targets), said
    assert zipfile.is_zipfile(targets[0]) and (targets[1] / "saved_model.pb").is_file()
    assert sorted(p.name for p in folder.iterdir()) == ["digits.keras", "digits_savedmodel"]
    window.exports.close_dialog()
    window.engine_menu.switch(EngineTarget())  # This computer: its own history
    assert window.history_dock.windowTitle() == "History"
    assert not set(stored) & set(window.history.visible_ids()) or \
        window.history_actions.store.path != window.history_mirror.history.store.path
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=120_000)
    # History's Machine list: gpu-box's runs from the copy, while the engine is here
    machines = window.history_mirror.machine_combo
    assert machines.isVisible() or not window.isVisible()
    assert [machines.itemText(i) for i in range(machines.count())] == [
        "This computer", "gpu-box"]
    machines.activated.emit(machines.findData("ssh://gpu-box"))
    assert window.history_dock.windowTitle() == "History — gpu-box"
    assert set(stored) <= set(window.history.visible_ids())
    window.history.select_ids([stored[0]])
    assert not window.history.export_button.isEnabled()  # its model is on gpu-box
    assert "connect to it" in window.history.export_button.toolTip()
    machines.activated.emit(machines.findData("local"))
    assert window.history_dock.windowTitle() == "History"
    window.engine_menu.switch(parse_target("ssh://127.0.0.1:1"))  # refused: not reached
    qtbot.waitUntil(lambda: window.engine.connection == "disconnected", timeout=60_000)
    assert "127.0.0.1 cannot be reached" in window.banner.text()
    assert any("127.0.0.1 cannot be reached" in line for line in window.log.lines("error"))
    assert window.engine_label.text() == "engine: 127.0.0.1 · not connected"
    assert window.device_label.text() == "device: not connected"  # not "detecting…"
    window.engine_menu.switch(parse_target("gpu-box"))
    assert set(stored) <= set(window.history.visible_ids())  # the copy, before connecting


def test_open_in_tensorboard_shows_the_servers_logs_through_a_forwarded_port(
        remote_window, gpu_server, qtbot, monkeypatch):
    """The logs are on the server: its engine starts TensorBoard on its own loopback,
    the window forwards a port of this computer to it over ssh and opens that; the
    browser then reads the server's run. Back on this computer, the forward ends."""
    import json
    import urllib.request

    from mpstudio.engine.service.port_forward import PortForward
    from mpstudio.engine.spec import TrainingAids

    window = remote_window
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=120_000)
    spec = window.setup.spec().replace(precision="float32", epochs=1, batch_size=64,
                                       aids=TrainingAids(tensorboard=True))
    window.setup.set_spec(spec)
    window.setup.baseline.setChecked(False)
    with qtbot.waitSignal(window.run_ended, timeout=240_000):
        window.run_actions.start_run()
    run_id = window.last_outcome.stored[-1].id
    opened: list[str] = []
    monkeypatch.setattr(window.tensorboard, "open_url", opened.append)
    window.window_actions.open_tensorboard.trigger()
    assert window.status_text.text() == "starting TensorBoard on gpu-box…"
    qtbot.waitUntil(lambda: bool(opened), timeout=120_000)
    forward = window.tensorboard.server
    assert isinstance(forward, PortForward) and opened == [forward.url]
    assert window.status_text.text().startswith(
        f"TensorBoard of gpu-box at {forward.url.rstrip('/')}, forwarded over ssh (logs there: ")
    assert f"runs/{run_id}/tensorboard" in window.status_text.text()
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with no_proxy.open(forward.url + "data/plugin/scalars/tags", timeout=30) as answer:
        tags = {tag for run in json.load(answer).values() for tag in run}
    assert "train/loss" in tags, tags  # the server's run, read through the forward
    window.window_actions.open_tensorboard.trigger()  # the same run: the same forward
    assert window.tensorboard.server is forward and len(opened) == 2
    window.engine_menu.switch(EngineTarget())
    assert not forward.running and window.tensorboard.server is None
    stop_engine(gpu_server)  # its TensorBoard ends with it


def test_gpu_memory_settings_are_saved_on_the_server_not_here(remote_window, gpu_server,
                                                                qtbot):
    """The Hardware tab's GPU memory form while connected: the server's engine saves
    the settings in the server's settings file and applies them; this computer's file
    is left as it was."""
    from mpstudio.engine.app_settings import settings_path

    window = remote_window
    form = window.hardware.memory_form
    here = settings_path()
    before = here.read_bytes() if here.exists() else None
    assert form.path_label.text() == "Saved on gpu-box, in its settings file"
    qtbot.waitUntil(lambda: window.setup.run_button.isEnabled(), timeout=120_000)
    form.growth_box.setChecked(True)
    assert form.save_button.isEnabled() and form.save()
    qtbot.waitUntil(form.apply_label.isVisible, timeout=60_000)
    server_file = Path(gpu_server.env["MPSTUDIO_CONFIG_DIR"]) / "settings.toml"
    assert "growth = true" in server_file.read_text()
    assert (here.read_bytes() if here.exists() else None) == before
