"""A server's engine reached the way the window reaches it: the system's ``ssh`` client
(EngineTarget.argv(), with MPSTUDIO_SSH_COMMAND pointing it at the test's ssh_config),
a real SSH server on localhost (support/ssh_server.py), ``mpstudio engine connect``
on the "server", and the real engine behind it. Frames are read here without Qt: what
the window's client does with them is tests/ui/test_remote_engine_client.py's."""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mpstudio import __version__
from mpstudio.engine.events import StepMetrics
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_bridge import ENGINE_ENDED
from mpstudio.engine.service.engine_target import (
    SSH_ENV,
    EngineTarget,
    connection_failure,
    parse_target,
)
from mpstudio.engine.service.framing import FrameWriter, read_frame
from mpstudio.engine.service.job_requests import HardwareCheckRequest, TrainRequest

pytestmark = pytest.mark.timeout(180)


class Window:
    """The window's end of one connection: frames on a command's stdin and stdout."""

    def __init__(self, argv: list[str], env: dict[str, str], hello: p.Hello) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.writer = FrameWriter(self.proc.stdin)
        with contextlib.suppress(BrokenPipeError):  # ssh failed at once (as the link does)
            self.writer.send(hello)
        self.inbox: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                self.inbox.put(read_frame(self.proc.stdout))
            except Exception as exc:  # the end of the stream (or a frame that broke)
                self.inbox.put(exc)
                return

    def next(self, timeout: float = 60) -> Any:
        message = self.inbox.get(timeout=timeout)
        if isinstance(message, Exception):
            raise message
        return message

    def expect(self, kind: type, timeout: float = 60) -> Any:
        message = self.next(timeout)
        assert isinstance(message, kind), message
        return message

    def end(self) -> tuple[int, str]:
        """(exit code, stderr) once the command has ended."""
        code = self.proc.wait(30)
        return code, self.proc.stderr.read().decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(BrokenPipeError):  # stdin to an ssh that has ended
                stream.close()


@pytest.fixture(scope="module")
def server(gpu_server):
    return gpu_server


@pytest.fixture()
def client_env(server, monkeypatch) -> dict[str, str]:
    """The laptop's environment: ssh told where the test's config is."""
    monkeypatch.setenv(SSH_ENV, f"ssh -F {server.config}")
    return dict(os.environ)


def _hello(client: str = "laptop", **changes: Any) -> p.Hello:
    return p.Hello(p.PROTOCOL, __version__, client, **changes)


def _open(client_env: dict[str, str], hello: p.Hello, target: str = "gpu-box") -> Window:
    return Window(parse_target(target).argv(), client_env, hello)


def _until(window: Window, done, seen: list[p.Numbered], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        message = window.next(max(deadline - time.monotonic(), 0.1))
        if isinstance(message, p.Numbered):
            seen.append(message)


def test_the_window_reaches_the_servers_engine_and_checks_its_hardware(server, client_env):
    started = time.monotonic()
    window = _open(client_env, _hello())
    try:
        welcome = window.expect(p.Welcome)
        connected = time.monotonic() - started
        assert welcome.protocol == p.PROTOCOL and welcome.host and not welcome.resumed
        assert isinstance(window.next(), (p.EngineStarting, p.EngineReady))
        window.writer.send(p.Submit(1, HardwareCheckRequest()))
        seen: list[p.Numbered] = []
        _until(window, lambda: seen and isinstance(seen[-1].message, p.JobResult), seen)
        check = seen[-1].message.value
        assert type(check).__name__ == "HardwareCheck" and check.report.cpu
        print(f"connected in {connected:.2f} s")
    finally:
        window.close()


def test_a_run_survives_a_killed_ssh_and_the_window_gets_every_step(server, client_env,
                                                                     tiny_spec):
    """ssh killed mid-run (a laptop closed, Wi-Fi gone): the run goes on on the server;
    the window reconnects, asks for what it missed by number and has every step once;
    the run is in the server's History, finished."""
    window = _open(client_env, _hello())
    seen: list[p.Numbered] = []
    try:
        welcome = window.expect(p.Welcome)
        spec = tiny_spec.replace(epochs=12, seed=7)
        window.writer.send(p.Submit(1, TrainRequest(spec)))
        _until(window, lambda: sum(isinstance(m.message, p.JobEvent)
                                   and isinstance(m.message.event, StepMetrics)
                                   for m in seen) >= 10, seen)
        window.proc.send_signal(signal.SIGKILL)
        assert window.end()[0] == -signal.SIGKILL
    finally:
        window.close()
    time.sleep(1.0)  # steps go on with nobody attached
    again = _open(client_env, _hello(engine_id=welcome.engine_id,
                                     resume_from=seen[-1].seq))
    try:
        resumed = again.expect(p.Welcome)
        assert resumed.engine_id == welcome.engine_id and resumed.resumed
        _until(again, lambda: isinstance(seen[-1].message, (p.JobResult, p.JobFailed)), seen)
    finally:
        again.close()
    numbers = [m.seq for m in seen]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # none lost, none twice
    steps = [m.message.event.step for m in seen if isinstance(m.message, p.JobEvent)
             and isinstance(m.message.event, StepMetrics)]
    result = seen[-1].message
    assert isinstance(result, p.JobResult), result
    run = result.value.last
    assert run.ok and steps == list(range(1, run.summary.steps_done + 1))
    listed = server.ssh("mpstudio runs list --json", timeout=60)
    assert f'"id": {run.run_id}' in listed.stdout.decode(), listed


def test_an_engine_killed_on_the_server_ends_the_connection_as_the_engines_end(
        server, client_env, tiny_spec):
    window = _open(client_env, _hello())
    try:
        window.expect(p.Welcome)
        ready = window.next()
        while not isinstance(ready, p.EngineReady):
            ready = window.next()
        os.kill(ready.pid, signal.SIGKILL)
        code, _stderr = window.end()
        assert code == ENGINE_ENDED  # not ssh's 255: the window says the engine ended
    finally:
        window.close()
    fresh = _open(client_env, _hello())
    try:
        assert fresh.expect(p.Welcome).engine_id != ready.pid  # a new engine started
    finally:
        fresh.close()


def test_a_window_of_another_protocol_is_refused_in_one_sentence(server, client_env):
    window = _open(client_env, p.Hello(p.PROTOCOL + 1, "9.9.9", "old"))
    try:
        refused = window.expect(p.Refused)
        assert "window mpstudio 9.9.9" in refused.reason
        assert "install the same version on both machines" in refused.reason
    finally:
        window.close()


@pytest.mark.parametrize("config, says", [
    ("wrong_host_key_config", "host key is not in your known_hosts, or it changed"),
    ("no_key_config", "gpu-box refused your key"),
    ("closed_port_config", "gpu-box cannot be reached"),
])
def test_a_connection_that_fails_says_why_in_one_sentence(server, config, says,
                                                          monkeypatch):
    monkeypatch.setenv(SSH_ENV, f"ssh -F {getattr(server, config)}")
    target = parse_target("gpu-box")
    window = Window(target.argv(), dict(os.environ), _hello())
    try:
        code, stderr = window.end()
    finally:
        window.close()
    sentence = connection_failure(target, code, stderr)
    assert code == 255 and says in sentence and "\n" not in sentence, (sentence, stderr)


def test_no_mpstudio_on_the_server_is_said(server, client_env):
    target = parse_target("gpu-box", remote="mpstudio-not-installed")
    window = Window(target.argv(), client_env, _hello())
    try:
        code, stderr = window.end()
    finally:
        window.close()
    sentence = connection_failure(target, code, stderr)
    assert code == 127
    assert sentence.startswith("there is no mpstudio at 'mpstudio-not-installed' on gpu-box")


def test_engine_status_and_stop_on_the_server(server, client_env, tiny_spec):
    window = _open(client_env, _hello())
    try:
        window.expect(p.Welcome)
        window.writer.send(p.Submit(1, TrainRequest(tiny_spec.replace(epochs=200))))
        seen: list[p.Numbered] = []
        _until(window, lambda: any(isinstance(m.message, p.JobStarted) for m in seen), seen)
        status = server.ssh("mpstudio engine status", timeout=60).stdout.decode()
        assert "jobs running or queued: 1" in status and "#1 the run" in status
        stopped = server.ssh("mpstudio engine stop", timeout=60).stdout.decode()
        assert "is stopping; jobs cancelled: 1" in stopped
        _until(window, lambda: isinstance(seen[-1].message, (p.JobResult, p.JobFailed)), seen)
        assert window.end()[0] == ENGINE_ENDED
    finally:
        window.close()


# ------------------------------------------------- the socket's folder and its peers
@contextlib.contextmanager
def _engine_here(idle_minutes: float = 1.0) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """`mpstudio engine serve` on this machine in a private runtime folder of its own
    (its log there too): (the folder, the process), both gone afterwards."""
    runtime = _short_dir()
    runtime.chmod(0o700)
    env = dict(os.environ, MPSTUDIO_RUNTIME_DIR=str(runtime),
               MPSTUDIO_LOG_DIR=str(runtime / "log"))
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio", "engine", "serve",
                             "--idle-minutes", str(idle_minutes)], env=env,
                            stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not (runtime / "engine.sock").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        yield runtime, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(30)
        proc.stderr.close()
        shutil.rmtree(runtime, ignore_errors=True)


def _short_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="mps-"))


def test_a_folder_others_can_enter_or_a_symlink_is_refused(tmp_path):
    top = _short_dir()
    try:
        shared = top / "shared"
        shared.mkdir(mode=0o755)
        shared.chmod(0o755)
        env = dict(os.environ, MPSTUDIO_RUNTIME_DIR=str(shared))
        done = subprocess.run([sys.executable, "-m", "mpstudio", "engine", "connect"],
                              env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 4 and "can be entered by other users (mode 755)" in \
            done.stderr, done.stderr
        link = top / "planted"
        link.symlink_to(tmp_path)
        done = subprocess.run([sys.executable, "-m", "mpstudio", "engine", "serve"],
                              env=dict(os.environ, MPSTUDIO_RUNTIME_DIR=str(link)),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "is not a folder (a symlink" in done.stderr
        assert not (tmp_path / "engine.sock").exists()
    finally:
        shutil.rmtree(top)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to be another user ('nobody')")
def test_another_users_process_is_refused_at_the_socket():
    """The folder 0700 keeps other users out; behind it, each connection's peer uid is
    checked too. Recreated: the folder opened up by mistake (0711, the socket 0666),
    then a process of 'nobody' (uid 65534) connects: it gets no Welcome, and the
    engine's log says who was refused."""
    with _engine_here() as (runtime, _engine):
        script = (
            "import socket, sys\n"
            "from mpstudio.engine.service import protocol as p\n"
            "from mpstudio.engine.service.framing import FrameWriter, read_frame\n"
            f"s = socket.socket(socket.AF_UNIX); s.connect({str(runtime / 'engine.sock')!r})\n"
            "try:\n"  # refused at accept: closed before or after its Hello went
            "    FrameWriter(s.makefile('wb')).send(p.hello('nobody'))\n"
            "    print(type(read_frame(s.makefile('rb', buffering=0))).__name__)\n"
            "except (EOFError, ConnectionResetError, BrokenPipeError):\n"
            "    print('closed')\n")
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                  sys.executable, "-c", script]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(  # this checkout, what it imports
            [str(Path(__file__).parents[2]), *sys.path[1:]]))
        denied = subprocess.run(nobody, capture_output=True, text=True, timeout=60, cwd="/",
                                env=env)
        assert "Permission denied" in denied.stderr, denied  # the 0700 folder
        runtime.chmod(0o711)
        (runtime / "engine.sock").chmod(0o666)
        refused = subprocess.run(nobody, capture_output=True, text=True, timeout=60, cwd="/",
                                 env=env)
        assert refused.stdout.strip() == "closed", refused
        log = (runtime / "log" / "engine.log").read_text()
        assert f"a process of uid 65534 tried to attach to the engine of uid {os.getuid()}: " \
            "refused" in log


def test_a_second_engine_serve_says_one_runs_already():
    with _engine_here() as (runtime, _engine):
        again = subprocess.run([sys.executable, "-m", "mpstudio", "engine", "serve"],
                               env=dict(os.environ, MPSTUDIO_RUNTIME_DIR=str(runtime)),
                               capture_output=True, text=True, timeout=60)
    assert again.returncode == 3
    assert f"an engine already runs here ({runtime / 'engine.sock'})" in again.stderr


def test_an_engine_with_no_window_and_no_job_ends_itself():
    with _engine_here(idle_minutes=0.02) as (runtime, engine):  # 1.2 s
        assert engine.wait(60) == 0
        assert not (runtime / "engine.sock").exists() and not (runtime / "engine.pid").exists()


def test_engine_targets_read_as_written():
    assert parse_target("gpu-box") == EngineTarget("ssh", host="gpu-box")
    ssh = parse_target("ssh://me@10.0.0.5:2222", remote="~/venvs/mp/")
    assert (ssh.host, ssh.port, ssh.label) == ("me@10.0.0.5", 2222, "10.0.0.5")
    assert ssh.argv()[-1] == "~/venvs/mp/bin/mpstudio engine connect"
    assert "-p" in ssh.argv() and "BatchMode=yes" in ssh.argv()
    srun = parse_target("command:srun --gres=gpu:1 mpstudio engine connect")
    assert srun.argv() == ["srun", "--gres=gpu:1", "mpstudio", "engine", "connect"]
    assert parse_target(srun.address) == srun and parse_target(ssh.address).port == 2222
    for bad in ("-oProxyCommand=x", "a b", "ssh://:22", "ssh://host:99999"):
        with pytest.raises(ValueError):
            parse_target(bad)


def test_a_forward_that_cannot_be_set_up_says_why_in_one_sentence(server, monkeypatch):
    from mpstudio.engine.service.port_forward import ForwardError, open_forward

    monkeypatch.setenv(SSH_ENV, f"ssh -F {server.closed_port_config}")
    with pytest.raises(ForwardError, match="gpu-box cannot be reached"):
        open_forward(parse_target("gpu-box"), 6006, timeout=60)
    with pytest.raises(ForwardError, match="run `mpstudio tensorboard RUN_ID` there"):
        open_forward(parse_target("command:srun mpstudio engine connect"), 6006)


def test_the_engines_tensorboard_names_runs_without_logs(tmp_path, monkeypatch):
    from mpstudio.engine.service.served_tensorboard import serve_tensorboard
    from mpstudio.engine.tensorboard_launch import NoTensorBoardLogs

    monkeypatch.setenv("MPSTUDIO_HISTORY", str(tmp_path / "history.sqlite3"))
    with pytest.raises(NoTensorBoardLogs, match=r"run #999 has no TensorBoard logs: turn on"):
        serve_tensorboard((999,))


def test_a_refusal_reads_in_the_readers_language(monkeypatch):
    """The engine's Refused names why, so the window and the command line say it in
    their own language; an older engine's reason (English) is shown as sent."""
    from mpstudio.engine.i18n import set_language

    refused = p.Refused("the engine runs mpstudio 9.9 (protocol 9) ...", p.OTHER_PROTOCOL,
                        "9.9", 9)
    assert p.refusal_text(refused).startswith("the engine runs mpstudio 9.9 (protocol 9) "
                                              f"and this one mpstudio {__version__}")
    monkeypatch.setenv("MPSTUDIO_LANG", "zh_CN")
    set_language("zh_CN")
    try:
        assert p.refusal_text(p.Refused("another window attached to this engine",
                                        p.ANOTHER_WINDOW)) == "另一个窗口已接入该引擎"
        assert p.refusal_text(p.Refused("an older engine's words")) == "an older engine's words"
    finally:
        set_language("en")
