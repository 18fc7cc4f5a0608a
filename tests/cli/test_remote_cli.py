"""`mpstudio --engine gpu-box train|compare ...` and `mpstudio engine status|attach|stop`
from the laptop's terminal: the real `mpstudio` command, the system's ssh client, a real
SSH server on localhost (support/ssh_server.py) and the server's real engine. The run
trains there; its progress streams here, a killed connection is opened again and the
terminal still shows every epoch once."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from mpstudio.engine.service.engine_target import SSH_ENV

from support.ssh_server import stop_engine

pytestmark = pytest.mark.timeout(300)
TINY = ["--dataset", "digits", "--template", "mlp", "--batch-size", "64", "--seed", "3"]


class Command:
    """``mpstudio ARGS`` running on the laptop, its stderr read line by line as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "mpstudio", *args], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if re.search(pattern, line):
                    return line
            assert self.proc.poll() is None, self.lines
            time.sleep(0.05)
        raise AssertionError(f"no line matched {pattern!r}: {self.lines}")

    def end(self, timeout: float = 240) -> tuple[int, str, str]:
        """(exit code, stdout, stderr)."""
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        code = self.proc.wait(timeout)
        self._reader.join(10)
        self.proc.stdout.close()
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return code, out, "\n".join(self.lines)


@pytest.fixture(scope="module")
def server(gpu_server):
    return gpu_server


@pytest.fixture()
def laptop(server) -> dict[str, str]:
    """The laptop's environment: ssh told where the test's config is; English."""
    return dict(os.environ, **{SSH_ENV: f"ssh -F {server.config}", "MPSTUDIO_LANG": "en"})


def _mpstudio(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpstudio", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_comparison_on_the_server_streams_here_and_survives_a_killed_ssh(server, laptop):
    epochs = 20
    command = Command(["--engine", "gpu-box", "compare", *TINY, "--epochs", str(epochs),
                       "--sizing", "off"], laptop)
    command.wait_for(rf"^epoch 3/{epochs}\b")
    server.kill_connections()  # the Wi-Fi changed mid-run
    code, out, err = command.end()
    assert code == 0, err
    assert "connecting again in 1 s" in err and "connected to gpu-box again" in err, err
    epoch_lines = [int(m.group(1)) for m in re.finditer(rf"^epoch (\d+)/{epochs}\b", err,
                                                        re.MULTILINE)]
    # both sides, every epoch once: nothing lost while away, nothing shown twice
    assert epoch_lines == [*range(1, epochs + 1)] * 2, epoch_lines
    assert "steady examples/s" in out, out  # the comparison's card, on stdout
    saved = re.search(r"saved in gpu-box's run history as #(\d+), #(\d+) \(see: ssh gpu-box "
                      r"mpstudio runs compare \1 \2\)", err)
    assert saved, err
    listed = json.loads(server.ssh("mpstudio runs list --json", timeout=60).stdout)
    finished = {run["id"]: run["status"] for run in listed}
    assert all(finished.get(int(i)) == "finished" for i in saved.groups()), listed
    shown = json.loads(server.ssh(f"mpstudio runs show {saved.group(1)} --json",
                                  timeout=60).stdout)
    assert shown["hardware"]["machine"] == socket.gethostname()  # the record names it


def test_attach_status_and_ctrl_c_from_the_laptop(server, laptop):
    """A long run started from the terminal; `engine status` and `engine attach` from
    another see it (attach shows its epochs live and leaves it running on Ctrl-C); the
    run's own Ctrl-C stops it after its step, recorded as stopped."""
    run = Command(["--engine", "gpu-box", "train", *TINY, "--epochs", "500"], laptop)
    run.wait_for(r"^epoch 1/500\b")
    status = _mpstudio(["--engine", "gpu-box", "engine", "status", "--json"], laptop)
    jobs = json.loads(status.stdout)["jobs"]
    assert [job["what"] for job in jobs] == ["the run"], status
    attach = Command(["--engine", "gpu-box", "engine", "attach"], laptop)
    attach.wait_for(r"^following #1 the run on ")
    first = int(attach.wait_for(r"^epoch \d+/500\b").split()[1].split("/")[0])
    assert first > 1  # live, from where the run is
    attach.proc.send_signal(signal.SIGINT)
    code, _out, err = attach.end(60)
    assert code == 0 and "left; what runs on gpu-box goes on" in err, err
    assert run.proc.poll() is None  # the run goes on
    run.proc.send_signal(signal.SIGINT)
    code, out, err = run.end()
    assert code == 0, err
    assert "stopping after this step" in err and "stopped" in out, (out, err)
    stopped = re.search(r"saved in gpu-box's run history as #(\d+)", err)
    assert stopped, err
    listed = json.loads(server.ssh("mpstudio runs list --json", timeout=60).stdout)
    assert {r["id"]: r["status"] for r in listed}[int(stopped.group(1))] == "stopped"
    nothing = _mpstudio(["--engine", "gpu-box", "engine", "attach"], laptop)
    assert nothing.returncode == 0 and "nothing runs on" in nothing.stderr, nothing


def test_what_the_server_must_check_fails_there_in_one_line(server, laptop):
    """The dataset is the server's: a path that is not there fails the job with the
    engine's sentence; nothing is checked against the laptop's files."""
    done = _mpstudio(["--engine", "gpu-box", "train", "--dataset", "/no/such/data.npz",
                      "--epochs", "1"], laptop)
    assert done.returncode == 1, done
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == "mpstudio train: error: dataset path '/no/such/data.npz' does not " \
        "exist", done.stderr  # in one line, after the one that says where it trains
    assert len(lines) == 2 and "Traceback" not in done.stderr


def test_engine_stop_from_the_laptop_and_status_after_it(server, laptop):
    _mpstudio(["--engine", "gpu-box", "engine", "status"], laptop)
    stopped = _mpstudio(["--engine", "gpu-box", "engine", "stop"], laptop)
    assert stopped.returncode == 0 and "is stopping" in stopped.stdout, stopped
    stop_engine(server)  # gone, checked
    status = _mpstudio(["--engine", "gpu-box", "engine", "status"], laptop)
    assert status.returncode == 1, status
    assert "could not be reached: no engine runs here" in status.stderr, status
    again = _mpstudio(["--engine", "gpu-box", "engine", "status"], laptop)
    assert "no engine runs here" in again.stderr  # status started none


@pytest.mark.parametrize("args, says", [
    (["runs", "list"], "run runs list there (ssh HOST mpstudio runs list ...)"),
    (["compare", "--cpu-devices", "2"], "--cpu-devices cannot go to the engine on gpu-box"),
    (["train", "--strategy", "multiworker"], "multiworker runs start a process on every"),
    (["train", "--epochs", "0"], "epochs"),
])
def test_what_cannot_go_to_the_server_is_refused_before_connecting(args, says):
    env = dict(os.environ, **{SSH_ENV: "false", "MPSTUDIO_LANG": "en"})  # no ssh at all
    done = _mpstudio(["--engine", "gpu-box", *args], env)
    assert done.returncode == 2 and says in done.stderr, done.stderr


def test_an_engine_address_that_is_not_one_is_refused():
    done = _mpstudio(["--engine", "a b", "train"], dict(os.environ, MPSTUDIO_LANG="en"))
    assert done.returncode == 2 and "'a b' is not an ssh host" in done.stderr, done.stderr


def test_the_servers_engine_words_its_sentences_in_the_terminals_language(server, laptop):
    """The server speaks English (its MPSTUDIO_LANG); a Chinese terminal's run reads in
    Chinese all the same, the engine's own sentences too (Hello.language)."""
    done = _mpstudio(["--engine", "gpu-box", "train", *TINY, "--precision", "float32",
                      "--epochs", "1"], dict(laptop, MPSTUDIO_LANG="zh_CN"))
    assert done.returncode == 0, done.stderr
    assert "不做损失缩放：float32 梯度不会下溢" in done.stderr, done.stderr  # worded there
    assert "no loss scaling" not in done.stderr
