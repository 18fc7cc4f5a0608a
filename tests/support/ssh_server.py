"""A real SSH server on 127.0.0.1 for the tests that drive the system's ``ssh`` client
(support/sshd.py, in a process of its own), and the ssh_config files that reach it as
``gpu-box``: the working one, and one for each way a login fails.

``ssh_server`` is the fixture (module-scoped: registered by tests/conftest.py); a test
that needs its own environment for the remote commands starts a server of its own,
``with SshServer.start(tmp_path, env=...) as server:``. Without the ``ssh`` client the
tests fail, naming the package, rather than skip: CI has it, and a skipped test would
hide the gap."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from support.cluster import free_ports
from support.paths import ROOT, SUPPORT

ALIAS = "gpu-box"
SSH_MISSING = ("the OpenSSH client `ssh` is not installed, and the SSH tests drive it: "
               "install openssh-client (Debian, Ubuntu; openssh-clients on Fedora)")
# The running servers' processes: tests/conftest.py's no_processes_left lets them outlive
# a test (their commands still count).
SERVER_PIDS: set[int] = set()
# The runtime folders (MPSTUDIO_RUNTIME_DIR) of the servers' engines that a test module
# keeps between its tests: `mpstudio engine serve` outlives each connection by design.
ENGINE_RUNTIME_DIRS: set[str] = set()


def outlives_its_test(proc: psutil.Process) -> bool:
    """A server's engine a module keeps (ENGINE_RUNTIME_DIRS): no leak of one test."""
    try:
        return ("engine" in proc.cmdline() and "serve" in proc.cmdline()
                and proc.environ().get("MPSTUDIO_RUNTIME_DIR") in ENGINE_RUNTIME_DIRS)
    except psutil.Error:
        return False


def require_ssh() -> None:
    if shutil.which("ssh") is None:
        pytest.fail(SSH_MISSING, pytrace=False)


def remote_env(folder: Path) -> dict[str, str]:
    """What a login on the GPU server gives mpstudio there: this checkout's code and the
    test venv's commands first on PATH, a home and mpstudio's folders of its own."""
    home = folder / "home"
    user = getpass.getuser()
    return {
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": str(ROOT),  # the code under test, not the venv's editable install
        "HOME": str(home), "USER": user, "LOGNAME": user, "SHELL": "/bin/sh",
        "LANG": "C.UTF-8", "MPSTUDIO_LANG": "en", "TF_CPP_MIN_LOG_LEVEL": "3",
        "MPSTUDIO_CONFIG_DIR": str(home / "config"), "MPSTUDIO_LOG_DIR": str(home / "log"),
        "MPSTUDIO_DATA_DIR": str(home / "data"),
        "MPSTUDIO_HISTORY": str(home / "history.sqlite3"), "KERAS_HOME": str(home / "keras"),
        "MPSTUDIO_DATASETS_MIRROR": "http://127.0.0.1:9/",  # never the network
    }


@dataclass
class SshServer:
    folder: Path
    port: int
    env: dict[str, str]
    cwd: Path
    config: Path  # reaches gpu-box
    wrong_host_key_config: Path  # known_hosts pins another key: "Host key verification failed."
    no_key_config: Path  # no identity: "Permission denied (publickey)."
    closed_port_config: Path  # a port nobody listens on: "Connection refused"
    _process: subprocess.Popen[bytes]
    alias: str = ALIAS

    @classmethod
    def start(cls, folder: Path, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> SshServer:
        """A server whose commands run with ``env`` (remote_env's by default) in ``cwd``
        (its HOME by default); its keys and configs in ``folder``."""
        require_ssh()
        env = remote_env(folder) if env is None else env
        cwd = Path(cwd or env.get("HOME") or folder)
        cwd.mkdir(parents=True, exist_ok=True)
        log = (folder / "sshd.log").open("wb")
        process = subprocess.Popen([sys.executable, str(SUPPORT / "sshd.py")],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=log, cwd=folder)
        log.close()  # the server holds its own
        SERVER_PIDS.add(process.pid)
        try:
            started = json.loads(_ask(process, json.dumps(
                {"folder": str(folder), "env": env, "cwd": str(cwd),
                 "user": getpass.getuser()}), folder))
        except BaseException:
            _end(process)
            raise
        port = started["port"]
        known = _write(folder / "known_hosts", f"[127.0.0.1]:{port} {started['host_key']}")
        # any other ed25519 key will do as the impostor's: the client's own
        wrong = _write(folder / "known_hosts.wrong",
                       f"[127.0.0.1]:{port} {started['client_key']}")
        key = folder / "client_key"
        return cls(
            folder=folder, port=port, env=env, cwd=cwd, _process=process,
            config=_config(folder / "ssh_config", port, key, known),
            wrong_host_key_config=_config(folder / "ssh_config.wrong_host_key", port, key,
                                          wrong),
            no_key_config=_config(folder / "ssh_config.no_key", port, None, known),
            closed_port_config=_config(folder / "ssh_config.closed_port", free_ports(1)[0],
                                       key, known))

    def ssh_command(self, config: Path | None = None) -> list[str]:
        """``ssh -F CONFIG``: what the app runs, the alias and the command after it."""
        return ["ssh", "-F", str(config or self.config)]

    def ssh(self, command: str, config: Path | None = None, timeout: float = 10,
            input: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        """``ssh -F CONFIG gpu-box COMMAND``, run to its end: bytes in, bytes out."""
        return subprocess.run([*self.ssh_command(config), self.alias, command], input=input,
                              capture_output=True, timeout=timeout)

    def kill_connections(self) -> None:
        """Cut every open connection from the server's side, a dropped network that ssh
        notices at once (its TCP connection closed; a silent cut would show only after
        ServerAliveInterval): the clients' ssh exits 255, the commands get EOF."""
        assert _ask(self._process, "cut", self.folder) == "cut"

    def stop(self) -> None:
        _end(self._process)

    def __enter__(self) -> SshServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def _ask(process: subprocess.Popen[bytes], line: str, folder: Path) -> str:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line.encode() + b"\n")
    process.stdin.flush()
    answer = process.stdout.readline().decode().strip()
    if not answer:
        log = (folder / "sshd.log").read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the test SSH server ended: {log}")
    return answer


def _end(process: subprocess.Popen[bytes]) -> None:
    """EOF on its stdin stops it (it kills the commands still running); killed if not."""
    assert process.stdin is not None
    process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    finally:
        assert process.stdout is not None
        process.stdout.close()
        SERVER_PIDS.discard(process.pid)


def _write(path: Path, line: str) -> Path:
    path.write_text(line + "\n")
    return path


def _config(path: Path, port: int, key: Path | None, known_hosts: Path) -> Path:
    """An ssh_config for ``ssh -F``, which replaces ~/.ssh/config and /etc/ssh/ssh_config
    (ssh reads the passwd home's, whatever $HOME says); the rest of the user's ~/.ssh,
    and any agent, kept out here. BatchMode: a failure is a message, never a prompt."""
    path.write_text(f"""\
Host {ALIAS}
    HostName 127.0.0.1
    Port {port}
    User {getpass.getuser()}
    IdentityFile {key or "none"}
    IdentitiesOnly yes
    IdentityAgent none
    UserKnownHostsFile {known_hosts}
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    UpdateHostKeys no
    BatchMode yes
    ConnectTimeout 5
""")
    return path


@pytest.fixture(scope="module")
def ssh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """One server for a test module, stopped after it however its tests ended."""
    server = SshServer.start(tmp_path_factory.mktemp("ssh"))
    try:
        yield server
    finally:
        server.stop()


def stop_engine(server: SshServer) -> None:
    """`mpstudio engine stop` on the server, then wait until its engine has gone (no
    child of this process: it detached from the connection that started it)."""
    server.ssh("mpstudio engine stop", timeout=60)
    deadline = time.monotonic() + 30
    while b"no engine runs here" not in server.ssh("mpstudio engine status", timeout=60).stderr:
        if time.monotonic() > deadline:
            raise AssertionError("the server's engine did not stop")
        time.sleep(0.2)


@pytest.fixture(scope="module")
def gpu_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """A server with mpstudio installed, whose engine a module's tests share: its own
    home and history, a short runtime folder (a Unix socket's path has at most 107
    bytes), and its engine stopped (and checked gone) at the end."""
    folder = tmp_path_factory.mktemp("gpu-box")
    runtime = tempfile.mkdtemp(prefix="mps-rt-")
    os.chmod(runtime, 0o700)
    env = {**remote_env(folder), "MPSTUDIO_RUNTIME_DIR": runtime}
    ENGINE_RUNTIME_DIRS.add(runtime)
    server = SshServer.start(folder, env=env)
    try:
        yield server
    finally:
        try:
            stop_engine(server)
        finally:
            server.stop()
            ENGINE_RUNTIME_DIRS.discard(runtime)
            shutil.rmtree(runtime, ignore_errors=True)
