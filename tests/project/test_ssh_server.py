"""The tests' SSH server (support/sshd.py, support/ssh_server.py) with the real OpenSSH
client, as the app will drive an engine on a GPU server: a command's bytes both ways,
its exit status and environment, ssh's own failures (its messages and exit status 255,
what the app's errors key on), and a dropped connection, after which the command gets
EOF but is not killed."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from support.ssh_server import SshServer

pytestmark = pytest.mark.timeout(30)


def test_a_command_runs_and_prints(ssh_server: SshServer):
    done = ssh_server.ssh("echo hi")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"hi\n", b"")


def test_bytes_cross_unchanged_both_ways(ssh_server: SshServer):
    # twice the channel's 2 MiB window: both directions wait for the reader
    data = os.urandom(4 * 2**20)
    done = ssh_server.ssh("cat", input=data)
    assert done.returncode == 0, done.stderr
    assert done.stdout == data


def test_exit_status_and_stderr_come_back(ssh_server: SshServer):
    done = ssh_server.ssh("echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")


def test_a_command_killed_by_a_signal_makes_ssh_exit_255_silently(ssh_server: SshServer):
    """OpenSSH's client exits 255 on the server's exit-signal, as for its own failures,
    and says nothing: 255 alone does not mean that ssh failed."""
    done = ssh_server.ssh("kill -TERM $$")
    assert (done.returncode, done.stdout, done.stderr) == (255, b"", b"")


def test_the_command_gets_the_servers_environment_not_the_clients(
        ssh_server: SshServer, monkeypatch):
    monkeypatch.setenv("MPSTUDIO_CLIENT_ONLY", "1")
    done = ssh_server.ssh('pwd; echo "$MPSTUDIO_DATA_DIR"; echo "${MPSTUDIO_CLIENT_ONLY-unset}"')
    assert done.stdout.decode().splitlines() == [
        str(ssh_server.cwd), ssh_server.env["MPSTUDIO_DATA_DIR"], "unset"]


def test_a_server_of_its_own_runs_commands_with_the_environment_it_was_given(
        tmp_path: Path):
    with SshServer.start(tmp_path, env={"PATH": "/usr/bin:/bin", "GREETING": "hello there"},
                         cwd=tmp_path) as server:
        done = server.ssh('echo "$GREETING"; pwd')
    assert done.stdout.decode().splitlines() == ["hello there", str(tmp_path)]


def test_a_changed_host_key_fails_without_a_prompt(ssh_server: SshServer):
    done = ssh_server.ssh("echo hi", ssh_server.wrong_host_key_config)
    assert done.returncode == 255 and done.stdout == b""
    assert b"REMOTE HOST IDENTIFICATION HAS CHANGED!" in done.stderr
    assert done.stderr.endswith(b"\r\nHost key verification failed.\r\n")  # ssh's CRLF


def test_a_login_without_the_key_is_refused(ssh_server: SshServer):
    done = ssh_server.ssh("echo hi", ssh_server.no_key_config)
    assert done.returncode == 255 and done.stdout == b""
    assert done.stderr.endswith(b"@127.0.0.1: Permission denied (publickey).\r\n")


def test_a_closed_port_is_refused(ssh_server: SshServer):
    done = ssh_server.ssh("echo hi", ssh_server.closed_port_config)
    assert done.returncode == 255 and done.stdout == b""
    assert done.stderr == (f"ssh: connect to host 127.0.0.1 port "
                           f"{_port(ssh_server.closed_port_config)}: Connection refused\r\n"
                           ).encode()


def test_a_killed_client_leaves_the_command_eof_and_a_detached_one_running(
        ssh_server: SshServer, tmp_path: Path):
    """As under sshd: the command's stdin ends, its output goes nowhere (a write fails),
    and what detached itself (a daemon) lives on."""
    client = _client(ssh_server, f"""cd {tmp_path}; trap '' PIPE
        setsid sh -c 'echo $$ > detached; exec sleep 30' </dev/null >/dev/null 2>&1 &
        cat; echo eof > ended; echo late; echo $? > late""")
    try:
        _wait_for(lambda: (tmp_path / "detached").is_file() and _read(tmp_path / "detached"))
        detached = psutil.Process(int(_read(tmp_path / "detached")))
        client.kill()
        client.wait(timeout=5)
        _wait_for(lambda: _read(tmp_path / "late"))
        assert _read(tmp_path / "ended") == "eof"
        assert _read(tmp_path / "late") == "1"  # its stdout's pipe was closed
        assert detached.is_running() and detached.status() != psutil.STATUS_ZOMBIE
    finally:
        client.kill()
        client.wait()
        if (tmp_path / "detached").is_file():
            os.kill(int(_read(tmp_path / "detached")), signal.SIGKILL)


def test_cut_connections_end_the_client_and_the_commands_input(
        ssh_server: SshServer, tmp_path: Path):
    client = _client(ssh_server, f"cd {tmp_path}; cat; echo eof > ended")
    try:
        ssh_server.kill_connections()
        assert client.wait(timeout=5) == 255
        assert client.stderr is not None
        assert client.stderr.read() == b"Connection to 127.0.0.1 closed by remote host.\r\n"
        _wait_for(lambda: _read(tmp_path / "ended"))
    finally:
        client.kill()
        client.wait()


def _client(server: SshServer, command: str) -> subprocess.Popen[bytes]:
    """``ssh gpu-box COMMAND`` running, once its command echoes input back."""
    client = subprocess.Popen([*server.ssh_command(), server.alias, command],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert client.stdin is not None and client.stdout is not None
    client.stdin.write(b"ping\n")
    client.stdin.flush()
    assert client.stdout.readline() == b"ping\n"
    return client


def _wait_for(condition: Callable[[], object], seconds: float = 5) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def _read(path: Path) -> str:
    return path.read_text().strip() if path.is_file() else ""


def _port(config: Path) -> int:
    (line,) = [line for line in config.read_text().splitlines() if "Port " in line]
    return int(line.split()[1])
