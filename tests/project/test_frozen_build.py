"""The standalone one-folder app (packaging/build_frozen.py, PyInstaller) works on
its own: the BUILT program answers --version and `-m`/`-c` as mpstudio's helper processes
use it, speaks Chinese, finds its resources and icon, reads the bundled digits, trains an
epoch, exports it to every format (the TFLite converter runs as a child process) and
serves its TensorBoard logs, opens the window offscreen with its engine process, and
quits on SIGTERM leaving no process behind.

Building takes 65-75 s and 1.7 GiB on a 2-core machine, and PyInstaller is not in the
`test` extra, so this runs only when asked: MPSTUDIO_TEST_FROZEN=1 (after
`pip install -e ".[test,freeze]"`). A build made from the current sources and packages
(dist/mpstudio/build-info.json) is reused; any other is rebuilt first."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

import mpstudio
from mpstudio.engine.export.formats import FORMATS as EXPORT_FORMATS

from support.paths import ROOT

APP = ROOT / "dist" / "mpstudio"
PROGRAM = APP / ("mpstudio.exe" if os.name == "nt" else "mpstudio")
pytestmark = [
    pytest.mark.frozen,
    pytest.mark.skipif(os.environ.get("MPSTUDIO_TEST_FROZEN") != "1",
                       reason="builds the standalone app (minutes, 1.7 GiB): run with "
                              "MPSTUDIO_TEST_FROZEN=1 after pip install -e \".[test,freeze]\""),
    pytest.mark.timeout(1800),  # the build comes first, in the first test's setup
]

RESOURCES = r"""
import sys
from importlib import resources
from pathlib import Path
where = Path(str(resources.files("mpstudio.resources")))
assert where.is_relative_to(sys._MEIPASS), where  # the bundle's copy, not a source tree
from mpstudio.engine import i18n
from mpstudio.engine.datasets.digits import read_digits
x, y = read_digits()
assert len(x) == 1797, len(x)
i18n.set_language("zh_CN")
assert i18n._("dynamic") == "\u52a8\u6001", i18n._("dynamic")  # the .mo
from PySide6.QtGui import QGuiApplication, QImageReader
from PySide6.QtWidgets import QApplication
app = QApplication([])
assert QGuiApplication.platformName() == "offscreen", QGuiApplication.platformName()
from mpstudio.ui import app_icon, translations
assert translations.install("zh_CN", app) == [], "a .qm missing"  # ours and Qt's own
assert b"svg" in QImageReader.supportedImageFormats()  # Qt's SVG plugin is in
icon = app_icon.app_icon()
for size in (16, 48, 256):
    assert not icon.pixmap(size, size).isNull(), size
print("resources at", where)
"""


def _run(args: list[str], timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, COLUMNS="100"), **kwargs)


@pytest.fixture(scope="module")
def program() -> Path:
    """The built program: rebuilt unless dist/mpstudio was made from these sources."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "packaging" / "build_frozen.py"),
                           "--reuse"], capture_output=True, text=True)
    if done.returncode == 2 and "not installed" in done.stderr:
        pytest.fail(done.stderr)  # MPSTUDIO_TEST_FROZEN=1 asked for it: say how
    assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
    print(done.stdout, f"build or reuse: {time.monotonic() - start:.0f} s", sep="")
    return PROGRAM


def test_version_and_the_interpreter_forms_children_use(program):
    start = time.monotonic()
    done = _run([str(program), "--version"])
    print(f"--version: {time.monotonic() - start:.2f} s")
    assert done.returncode == 0 and done.stdout == f"mpstudio {mpstudio.__version__}\n"
    # a distributed worker is `sys.executable -m mpstudio ...`
    worker = _run([str(program), "-m", "mpstudio", "--version"])
    assert worker.stdout == done.stdout, worker.stderr
    probe = _run([str(program), "-c", "import sys; print(sys.argv[1:], getattr(sys, "
                  "'frozen', False))", "a", "b"])
    assert probe.stdout == "['a', 'b'] True\n", probe.stderr


def test_help_in_chinese_as_the_source_tree_prints_it(program):
    frozen = _run([str(program), "--lang", "zh_CN", "--help"])
    source = _run([sys.executable, "-m", "mpstudio", "--lang", "zh_CN", "--help"], cwd=ROOT)
    assert frozen.returncode == 0, frozen.stderr
    assert "用法" in frozen.stdout and "桌面应用" in frozen.stdout, frozen.stdout
    assert frozen.stdout == source.stdout


def test_resources_translations_and_icon_from_the_bundle(program):
    done = _run([str(program), "-c", RESOURCES])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "resources at" in done.stdout


def test_the_bundled_digits(program):
    shown = _run([str(program), "data", "show", "digits"])
    assert shown.returncode == 0, shown.stderr
    assert "bundled with mpstudio" in shown.stdout and "1,797" in shown.stdout


def test_a_one_epoch_run_every_export_and_its_tensorboard(program, isolated_datasets):
    start = time.monotonic()
    done = _run([str(program), "train", "--dataset", "digits", "--template", "mlp",
                 "--precision", "float32", "--epochs", "1", "--tensorboard", "--json"])
    print(f"one-epoch train: {time.monotonic() - start:.1f} s")
    assert done.returncode == 0, done.stderr[-3000:]
    run = json.loads(done.stdout)
    assert run["summary"]["status"] == "finished" and run["summary"]["epochs_done"] == 1
    exported = _run([str(program), "export", str(run["id"]), "--format", "all",
                     "-o", str(isolated_datasets / "exports"), "--json"])
    assert exported.returncode == 0, exported.stderr[-3000:]
    checked = {e["format"]: e["ok"] and e["verification"]["passed"]
               for e in json.loads(exported.stdout)["exports"]}
    assert checked == dict.fromkeys(FORMATS, True), checked  # each loaded back and agreed
    assert "train/accuracy" in _tensorboard_tags(program, run["id"])


# every format the app exports (a new one is checked here without an edit)
FORMATS = tuple(fmt.id for fmt in EXPORT_FORMATS)


def _tensorboard_tags(program: Path, run_id: int) -> str:
    """`mpstudio tensorboard RUN` (TensorBoard itself runs as `-m tensorboard.main`):
    the scalar tags its server lists; then Ctrl-C stops both, leaving nothing behind."""
    server = subprocess.Popen([str(program), "tensorboard", str(run_id)], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        line = server.stdout.readline()  # its first line names the address, once serving
        url = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert url, line + server.stderr.read()[-3000:]
        with urllib.request.urlopen(url[0] + "/data/plugin/scalars/tags", timeout=30) as r:
            tags = r.read().decode()
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        server.communicate()
    _no_process_left(server.pid)
    return tags


def _no_process_left(session: int) -> None:
    deadline = time.monotonic() + 10  # a child may still be on its way out
    while _session(session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session(session) == [], "a process outlived the app"


def _session(pid: int) -> list[psutil.Process]:
    """Every process still in the session the app was started in (its own)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == pid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (OSError, psutil.Error):
            continue
    return found


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals and sessions")
def test_the_window_starts_its_engine_and_quits_on_sigterm(program, isolated_datasets,
                                                          tmp_path):
    log = isolated_datasets / "log" / "window.log"
    with open(tmp_path / "out.txt", "w+") as out:
        app = subprocess.Popen([str(program)], stdout=out, stderr=subprocess.STDOUT,
                               env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
                               start_new_session=True)  # its processes: its session
        try:
            start = time.monotonic()
            ready = re.compile(r"TensorFlow [\d.]+, Keras [\d.]+ loaded in the engine process")
            while not (log.is_file() and ready.search(log.read_text(encoding="utf-8"))):
                assert app.poll() is None, "the app ended before its engine was ready"
                assert time.monotonic() - start < 180, "no engine after 180 s"
                time.sleep(0.2)
            print(f"window and engine ready: {time.monotonic() - start:.1f} s")
            engine = [p for p in psutil.Process(app.pid).children(recursive=True)
                      if "mpstudio.engine.service" in " ".join(p.cmdline())]
            assert len(engine) == 1 and engine[0].exe() == str(program), engine
            time.sleep(3)  # the window runs a few seconds (hardware check, preview)
            app.send_signal(signal.SIGTERM)
            assert app.wait(timeout=60) == 0
        finally:
            if app.poll() is None:
                os.killpg(app.pid, signal.SIGKILL)
                app.wait()
        out.seek(0)
        printed = out.read()
    assert "Traceback" not in printed and "qt.qpa.plugin" not in printed, printed[-3000:]
    _no_process_left(app.pid)
    assert "SIGTERM" in log.read_text(encoding="utf-8")
