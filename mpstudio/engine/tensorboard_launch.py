"""Start a TensorBoard server on a run's logs, on 127.0.0.1 and a free port.

TensorBoard is an optional extra (``pip install "mpstudio[tensorboard]"``): the logs
are written by TensorFlow alone, only viewing them needs it. The server runs as a
child process (``python -m tensorboard.main``) whose output goes to a temporary
file, never to a pipe nobody reads; ``start_tensorboard`` returns once it answers
HTTP, or raises with its last lines of output.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mpstudio.engine.i18n import N_, _
from mpstudio.engine.tensorboard_log import event_files

INSTALL_HINT = 'pip install "mpstudio[tensorboard]"'
# marked with N_(): shown as _(NO_LOGS_HINT)
NO_LOGS_HINT = N_("turn on 'Write TensorBoard logs' (or --tensorboard) and run it again")
HOST = "127.0.0.1"


class TensorBoardMissing(RuntimeError):
    def __init__(self) -> None:
        super().__init__(_("TensorBoard is not installed here. Install it with: "
                           "{command}").format(command=INSTALL_HINT))


class NoTensorBoardLogs(RuntimeError):
    """The folder holds no logs to show."""


def tensorboard_available() -> bool:
    return importlib.util.find_spec("tensorboard") is not None


def has_logs(logdir: Path) -> bool:
    return bool(event_files(logdir))


def run_logs(run_ids: Iterable[int]) -> dict[str, Path]:
    """The TensorBoard logs folder of each run that has logs, by name ("run7")."""
    from mpstudio.engine.history.run_models import run_folder
    from mpstudio.engine.tensorboard_log import LOGS_FOLDER

    folders = {}
    for run_id in run_ids:
        folder = run_folder(run_id)
        if folder is not None and has_logs(folder / LOGS_FOLDER):
            folders[f"run{run_id}"] = folder / LOGS_FOLDER
    return folders


@dataclass
class TensorBoardServer:
    url: str  # http://127.0.0.1:PORT/
    port: int
    logdirs: dict[str, Path]  # name -> folder; one folder: {"": folder}
    process: subprocess.Popen
    log_path: Path  # the server's stdout and stderr
    _log: object = field(default=None, repr=False)

    @property
    def logdir(self) -> Path:
        """The folder it shows (the first, when it shows several)."""
        return next(iter(self.logdirs.values()))

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def output(self, lines: int = 20) -> str:
        """The server's last lines of output."""
        return _tail(self.log_path, lines)

    def stop(self, timeout: float = 5.0) -> None:
        """End the server (terminate, then kill) and remove its output file."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self._log is not None:
            self._log.close()  # type: ignore[attr-defined]
            self._log = None
        with contextlib.suppress(OSError):
            self.log_path.unlink(missing_ok=True)


def die_with_parent() -> None:
    """In the child, before TensorBoard starts (Linux): the kernel sends it SIGTERM when
    the thread that started it ends, however the process dies (kill -9 included), so a
    server never outlives ``mpstudio tensorboard``. Its own data server ends with it."""
    import ctypes
    import signal as signals

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signals.SIGTERM)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_tensorboard(
    logdir: Path | Mapping[str, Path],
    timeout: float = 60,
    should_stop: Callable[[], bool] | None = None,
    tied: bool = False,
) -> TensorBoardServer:
    """Start TensorBoard on ``logdir`` and wait (at most ``timeout`` seconds) until it
    answers. ``logdir`` may also map names to folders (several runs side by side, as
    TensorBoard's ``--logdir_spec``). ``should_stop`` is polled while waiting: when it
    turns true the server is stopped and ``InterruptedError`` raised (a window closing
    meanwhile). ``tied`` (Linux, for a caller's main thread only: the kernel ties the
    child to the thread that starts it): the server ends when this process dies."""
    if not tensorboard_available():
        raise TensorBoardMissing()
    folders = ({str(k): Path(v) for k, v in logdir.items()} if isinstance(logdir, Mapping)
               else {"": Path(logdir)})
    missing = [folder for folder in folders.values() if not folder.is_dir()]
    if missing or not folders:
        text = (_("this run has no TensorBoard logs: {hint}") if len(folders) <= 1 else
                _("{folder} has no TensorBoard logs: {hint}"))
        raise NoTensorBoardLogs(text.format(folder=missing[0] if missing else "",
                                            hint=_(NO_LOGS_HINT)))
    port = free_port()
    if isinstance(logdir, Mapping):
        where = ["--logdir_spec", ",".join(f"{name}:{path}" for name, path in folders.items())]
    else:
        where = ["--logdir", str(folders[""])]
    command = [sys.executable, "-m", "tensorboard.main", *where,
               "--host", HOST, "--port", str(port)]
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env["CUDA_VISIBLE_DEVICES"] = ""  # a viewer: it must not take GPU memory from training
    fd, name = tempfile.mkstemp(prefix="mpstudio-tensorboard-", suffix=".log")
    log = os.fdopen(fd, "wb")
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, env=env,
                                   preexec_fn=die_with_parent if tied and sys.platform ==
                                   "linux" else None)
    except OSError:
        log.close()
        Path(name).unlink(missing_ok=True)
        raise
    server = TensorBoardServer(f"http://{HOST}:{port}/", port, folders, process, Path(name), log)
    try:
        _wait_until_up(server, timeout, should_stop)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_up(server: TensorBoardServer, timeout: float,
                   should_stop: Callable[[], bool] | None) -> None:
    # A local server: never through an http_proxy from the environment.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while True:
        if should_stop is not None and should_stop():
            raise InterruptedError(_("TensorBoard start cancelled"))
        code = server.process.poll()
        if code is not None:
            raise RuntimeError(_("TensorBoard exited (code {code}) before it answered:").format(
                code=code) + "\n" + (server.output(12) or _("(no output)")))
        try:
            with opener.open(server.url, timeout=2) as response:
                if response.status < 500:
                    return
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(_("TensorBoard did not answer on {url} within {seconds:g} "
                                 "s:").format(url=server.url, seconds=timeout) + "\n"
                               + (server.output(12) or _("(no output)")))
        time.sleep(0.2)


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 16384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])
