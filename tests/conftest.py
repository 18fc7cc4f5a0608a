"""Shared test setup: offscreen Qt, quiet TensorFlow, tiny CPU-sized runs.

For every test under tests/ (engine/, ui/, cli/, project/); the helpers the tests
share are the ``support`` package (tests/support/), importable as tests/ is on sys.path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # A desktop's screen (offscreen's own is 800x800): the window sizes itself to the
    # screen it opens on, as on a user's 1920x1080 desktop.
    os.environ["QT_QPA_PLATFORM"] = "offscreen:configfile=" + os.path.join(
        os.path.dirname(__file__), "support", "offscreen_desktop.json")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Under pytest-xdist with more workers than cores (see pytest_xdist_auto_num_workers), each
# worker's TensorFlow, and every engine or command process it starts, runs its ops on one
# thread: several processes' multi-threaded pools on few cores wait on each other's
# preempted threads and leave cores idle (measured below).
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > (os.cpu_count() or 1):
    os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")
    os.environ.setdefault("TF_NUM_INTEROP_THREADS", "1")
# The tests read English unless they ask for another language (a developer's zh_CN
# locale must not change what they see); engine processes inherit it.
os.environ["MPSTUDIO_LANG"] = "en"

import pytest

from mpstudio.engine.spec import RunSpec

from support.paths import ROOT

# The fixtures of support/ modules, for every test: ssh_server (a real SSH server).
pytest_plugins = ("support.ssh_server",)

# The user's folders each test redirects (isolated_datasets); a session-wide default
# first, so a module-scoped fixture that runs a command before any test's own
# redirection still never writes the real user's logs, settings or history.
USER_FOLDERS = ("MPSTUDIO_CONFIG_DIR", "MPSTUDIO_LOG_DIR", "MPSTUDIO_DATA_DIR",
                "MPSTUDIO_HISTORY", "KERAS_HOME")


def pytest_xdist_auto_num_workers(config) -> int | None:
    """``-n auto`` (the README's command): one worker more than there are cores. Much of
    a test's time is spent in a process it started or waiting for one, and two
    TensorFlow processes on two cores left a fifth of the machine idle (vmstat during a
    fresh clone's suite: 19% idle at 2 workers). Keras training for 40 s on this 2-core
    machine, processes side by side: 2 with TensorFlow's default threads did 279 epochs,
    3 with one thread each 349. PYTEST_XDIST_AUTO_NUM_WORKERS, where set, decides, as
    pytest-xdist documents it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return (os.cpu_count() or 1) + 1


@pytest.fixture(scope="session", autouse=True)
def no_real_user_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("session")
    with pytest.MonkeyPatch.context() as patch:
        for name in USER_FOLDERS:
            patch.setenv(name, str(root / name.lower()))
        yield


@pytest.fixture(autouse=True)
def logging_restored(monkeypatch):
    """What mpstudio's log set-up (engine/app_log.configure, run by the CLI's main() and
    the window's launch()) changes in this process is undone after each test: its
    handlers on the root logger, the levels, warnings capture, the file it names, and
    $MPSTUDIO_LOG_LEVEL (which `--log-level` writes for child processes)."""
    import logging

    from mpstudio.engine import app_log

    root, ours = logging.getLogger(), logging.getLogger("mpstudio")
    levels = root.level, ours.level
    monkeypatch.setenv(app_log.LEVEL_ENV, "info")  # undone even when a test changes it
    yield
    for handler in [h for h in root.handlers if getattr(h, "_mpstudio", False)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(levels[0])
    ours.setLevel(levels[1])
    logging.captureWarnings(False)
    app_log._this_log = None


@pytest.fixture(scope="session", autouse=True)
def measured_cpu_rates(no_real_user_folders) -> Path:
    """This CPU's rates (engine/prediction/cpu_rates.py), measured as a run measures
    them, in a process of their own: the kept file that each test's data folder starts
    with. Every run on a CPU predicts its step from them and measures them where its
    cache folder has none; with a fresh folder for each test, that micro-benchmark (six
    kernels in three precisions, 10-20 s of CPU) ran again in every test, engine process
    and command that trains. Kept between sessions in the temporary folder, for this
    TensorFlow, core count and measuring code: a developer running one test does not
    wait for it either. A separate process: the measurement starts TensorFlow's runtime,
    which some tests configure first."""
    import hashlib
    import importlib.metadata

    code = [ROOT / "mpstudio" / "engine" / "prediction" / "cpu_rates.py",
            ROOT / "mpstudio" / "engine" / "hardware" / "microbench.py"]
    key = hashlib.sha256(b"".join(p.read_bytes() for p in code) + str(
        (importlib.metadata.version("tensorflow"), os.cpu_count(),
         os.environ.get("TF_NUM_INTRAOP_THREADS"))).encode()).hexdigest()
    kept = Path(tempfile.gettempdir()) / "mpstudio-tests" / f"cpu_rates-{key[:16]}.json"
    if not kept.is_file():
        _measure_cpu_rates(kept)
    # the session's own data folder too: module-scoped fixtures train before any test's
    # folder exists
    from mpstudio.engine.prediction.cpu_rates import _cache_path

    shutil.copy(kept, _mkdir(_cache_path().parent) / _cache_path().name)
    return kept


@pytest.fixture(scope="session")
def seed_cpu_rates(measured_cpu_rates):
    """``seed(folder)``: a data folder a test names itself ($MPSTUDIO_DATA_DIR of a command
    or an app it starts) starts with this CPU's measured rates, as the conftest's own do."""
    from mpstudio.engine.prediction.cpu_rates import _cache_path

    def seed(folder: Path) -> Path:
        return Path(shutil.copy(measured_cpu_rates, _mkdir(folder) / _cache_path().name))

    return seed


def _measure_cpu_rates(kept: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cpu_rates-", dir=_mkdir(kept.parent)))
    measure = ("from mpstudio.engine.prediction.cpu_rates import cached_cpu_rates, _cache_path;"
               " assert cached_cpu_rates() is not None; print(_cache_path())")
    done = subprocess.run([sys.executable, "-c", measure], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, MPSTUDIO_DATA_DIR=str(folder)))
    assert done.returncode == 0, done.stderr[-3000:]
    written = Path(done.stdout.strip().splitlines()[-1])
    assert written.parent == folder and written.is_file(), done.stdout
    os.replace(written, kept)  # whole, also beside another worker measuring at once
    shutil.rmtree(folder, ignore_errors=True)


def _mkdir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(autouse=True)
def isolated_datasets(tmp_path_factory, monkeypatch, measured_cpu_rates):
    """Downloads go to a fresh folder and never reach the network: the mirror is a
    closed local port, and Keras' own cache is an empty folder. Saved settings go to
    a fresh config folder, the run history to a fresh file, the engine log to a fresh
    folder. The data folder starts with this CPU's measured rates (measured_cpu_rates),
    as a user's cache folder holds them after the first run."""
    root = tmp_path_factory.mktemp("data")
    _user_folders(monkeypatch, root, measured_cpu_rates)
    return root


@pytest.fixture(scope="module")
def module_user_folders(tmp_path_factory, measured_cpu_rates):
    """isolated_datasets for a module-scoped fixture that works as a user once for its
    module's tests (it is set up before their own folders exist): folders of its own
    under the root it gets; each test still gets its own."""
    root = tmp_path_factory.mktemp("module-data")
    with pytest.MonkeyPatch.context() as patch:
        _user_folders(patch, root, measured_cpu_rates)
        yield root


def _user_folders(patch: pytest.MonkeyPatch, root: Path, rates: Path) -> None:
    from mpstudio.engine.prediction.cpu_rates import _cache_path

    patch.setenv("MPSTUDIO_CONFIG_DIR", str(root / "config"))
    patch.setenv("MPSTUDIO_LOG_DIR", str(root / "log"))
    patch.setenv("MPSTUDIO_DATA_DIR", str(root / "mpstudio"))
    patch.setenv("MPSTUDIO_HISTORY", str(root / "history.sqlite3"))
    patch.setenv("MPSTUDIO_DATASETS_MIRROR", "http://127.0.0.1:9/")
    patch.setenv("KERAS_HOME", str(root / "keras"))
    _mkdir(_cache_path().parent)
    shutil.copy(rates, _cache_path())


@pytest.fixture
def window(qtbot, tmp_path):
    """A fresh main window with its own settings file, closed after the test."""
    from support.gui_helpers import close_window, open_window

    w = open_window(qtbot, tmp_path / "window.ini")
    yield w
    if not w._closed:
        close_window(qtbot, w)


@pytest.fixture
def run_cli(capsys):
    """``mpstudio ARGS`` in this process: (exit code, stdout, stderr)."""
    from mpstudio.cli.main import main

    capsys.readouterr()

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def chinese(qapp, monkeypatch):
    """Everything in zh_CN, as ``launch()`` sets it up for a Chinese user: the window's
    Qt translators (ours and Qt's own), the engine's gettext language in this process,
    and MPSTUDIO_LANG for any engine process started meanwhile. English again afterwards.

    Qt finds the bundled subset of Noto Sans CJK SC (tests/support/fonts/, loaded once a
    process: devtools/cjk_test_font.py) for the Chinese characters, as a desktop finds
    its installed Noto CJK: a layout test measures real CJK glyphs on a machine without
    a CJK font too (CI)."""
    from devtools import cjk_test_font
    from mpstudio.engine import i18n
    from mpstudio.ui import translations

    cjk_test_font.load()
    monkeypatch.setenv("MPSTUDIO_LANG", "zh_CN")
    assert translations.install("zh_CN", qapp) == []  # ours and Qt's both found
    i18n.set_language("zh_CN")
    yield
    translations.remove(qapp)
    i18n.set_language("en")


@pytest.fixture
def tiny_spec() -> RunSpec:
    """Digits, small batches, one step report per step: a run takes about a second."""
    return RunSpec(
        dataset="digits",
        template="mlp",
        precision="float32",
        batch_size=64,
        epochs=1,
        log_every_steps=1,
        validation_split=0.2,
    )


@pytest.fixture(autouse=True)
def no_qt_threads_or_timers_left(request):
    """A GUI test must not leave a QThread running or a QTimer active behind it."""
    yield
    if "qtbot" not in request.fixturenames:
        return
    import gc

    from PySide6.QtCore import QThread, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()  # qtbot has closed its widgets by now (torn down first)
    app.processEvents()
    gc.collect()
    # one pass over the heap (with TensorFlow loaded: some 400,000 objects, a tenth of a
    # second a pass, in every GUI test)
    found = [o for o in gc.get_objects() if isinstance(o, (QThread, QTimer)) and _alive(o)]
    running = [t for t in found if isinstance(t, QThread) and t.isRunning()]
    timers = {id(o): o for o in found if isinstance(o, QTimer)}
    for widget in app.topLevelWidgets():
        timers.update((id(t), t) for t in widget.findChildren(QTimer))
    active = [t for t in timers.values() if t.isActive()]
    assert not running, f"QThread still running after the test: {running}"
    assert not active, (
        "QTimer still active after the test: "
        + ", ".join(f"{t.objectName() or 'unnamed'} ({t.parent()!r})" for t in active)
    )


def _alive(obj) -> bool:
    import shiboken6

    return shiboken6.isValid(obj)


@pytest.fixture(autouse=True)
def no_processes_left():
    """A test ends every process it started (engines, commands, tries, TensorBoard):
    one left running would take the CPU from every test after it and fail a later
    test's count of its own processes. One still running a few seconds after the test
    is ended here and fails the test, named. A module's SSH server (ssh_server) outlives
    its tests, and so does the server's engine (its module stops it and checks it has
    gone); the other commands it runs for them do not."""
    import psutil

    from support.ssh_server import SERVER_PIDS, outlives_its_test

    yield  # autouse and first set up: torn down last, after the windows have closed
    me = psutil.Process()
    ours = [p for p in me.children(recursive=True)
            if p.pid not in SERVER_PIDS and not outlives_its_test(p)]
    _gone, alive = psutil.wait_procs(ours, timeout=5)
    left = []
    for proc in alive:
        try:
            left.append(f"{proc.pid}: {' '.join(proc.cmdline())[:200]}")
            proc.kill()
        except psutil.Error:  # ended meanwhile
            continue
    psutil.wait_procs(alive, timeout=5)
    assert not left, "processes still running after the test: " + "; ".join(left)


# ------------------------------------------------------------------ CPU time per test
# Wall time on a shared 2-core machine says more about the machine's load than about the
# test (one test measured 115 s alone and 23 s of CPU). The CPU a test used, in this
# process and in the processes it started and waited for, does not depend on the load:
# the summary lists the tests above the budget, and the ten that used the most.
CPU_BUDGET_S = 30.0
_CPU_AT_START = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    item.stash[_CPU_AT_START] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown" and _CPU_AT_START in item.stash:
        report.user_properties.append(("cpu_s", _cpu_seconds() - item.stash[_CPU_AT_START]))


def pytest_terminal_summary(terminalreporter):
    used = sorted(((dict(r.user_properties)["cpu_s"], r.nodeid)
                   for reports in terminalreporter.stats.values() for r in reports
                   if getattr(r, "when", "") == "teardown"
                   and "cpu_s" in dict(getattr(r, "user_properties", ()))), reverse=True)
    if not used:
        return
    over = [(s, n) for s, n in used if s > CPU_BUDGET_S]
    terminalreporter.section(f"CPU time: {sum(s for s, _ in used):.0f} s in {len(used)} tests;"
                             f" {len(over)} above {CPU_BUDGET_S:.0f} s")
    for seconds, nodeid in used[:max(10, len(over))]:  # the costliest first
        terminalreporter.write_line(f"{seconds:7.1f}s cpu  {nodeid}")
