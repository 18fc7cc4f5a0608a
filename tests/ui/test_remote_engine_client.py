"""The window's EngineClient driving a server's engine through the real ``ssh`` client
and a real SSH server on localhost (support/ssh_server.py): a comparison whose ssh is
killed mid-run goes on on the server, the client reconnects by itself and every point
reaches the job's handle once; the engine killed on the server fails the job and the
client goes on with a fresh one; a failed connection is one sentence."""

from __future__ import annotations

import os
import signal
import time

import pytest

from mpstudio.engine.events import StepMetrics
from mpstudio.engine.service.engine_target import SSH_ENV, parse_target
from mpstudio.engine.service.job_requests import HardwareCheckRequest, TrainRequest
from mpstudio.engine.trainer.compare_options import CompareOptions
from mpstudio.ui.engine_client.engine_client import (
    CONNECTED,
    DISCONNECTED,
    RECONNECTING,
    EngineClient,
)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def server(gpu_server):
    return gpu_server


@pytest.fixture()
def remote(server, monkeypatch, qtbot):
    monkeypatch.setenv(SSH_ENV, f"ssh -F {server.config}")
    client = EngineClient(target=parse_target("gpu-box"))
    states: list[tuple[str, str]] = []
    client.connection_changed.connect(lambda state, why: states.append((state, why)))
    client.states = states  # type: ignore[attr-defined]
    with qtbot.waitSignal(client.ready, timeout=120_000):
        client.start()
    yield client
    client.shutdown(30_000)


def _record(job) -> list[tuple[str, object]]:
    seen: list[tuple[str, object]] = []
    job.events.connect(lambda batch: seen.extend(("event", e) for e in batch))
    job.result.connect(lambda value: seen.append(("result", value)))
    job.errored.connect(lambda message: seen.append(("error", message)))
    return seen


def test_a_comparison_survives_a_killed_ssh_with_every_point(remote, qtbot, tiny_spec,
                                                             server):
    spec = tiny_spec.replace(precision="mixed_float16", epochs=8, seed=3)
    job = remote.submit(TrainRequest(spec, CompareOptions(repeats=1)), describe="the run")
    seen = _record(job)
    qtbot.waitUntil(lambda: sum(isinstance(e, StepMetrics) for k, e in seen) >= 10,
                    timeout=120_000)
    ssh_pid = remote._link.pid
    dropped = time.monotonic()
    os.kill(ssh_pid, signal.SIGKILL)  # the laptop's lid closed
    qtbot.waitUntil(lambda: (RECONNECTING, "the connection to gpu-box dropped")
                    in remote.states, timeout=30_000)
    assert job.active  # the job waits for its engine, it does not fail
    qtbot.waitUntil(lambda: remote.connection == CONNECTED, timeout=60_000)
    reconnected = time.monotonic() - dropped
    qtbot.waitUntil(lambda: seen and seen[-1][0] in ("result", "error"), timeout=180_000)
    kind, outcome = seen[-1]
    assert kind == "result", outcome
    assert [r.spec.precision for r in outcome.results] == ["float32", "mixed_float16"]
    steps = [e.step for k, e in seen if isinstance(e, StepMetrics)]
    per_run = []
    for run in outcome.results:  # each run's steps, once each, in order
        per_run.append(list(range(1, run.summary.steps_done + 1)))
    assert steps == [s for run in per_run for s in run]
    listed = server.ssh("mpstudio runs list --json", timeout=60).stdout.decode()
    assert all(f'"id": {r.run_id}' in listed for r in outcome.results)
    print(f"reconnected in {reconnected:.2f} s")


def test_the_engine_killed_on_the_server_fails_the_job_and_a_fresh_one_starts(
        remote, qtbot, tiny_spec):
    check = remote.submit(HardwareCheckRequest())
    with qtbot.waitSignal(check.finished, timeout=60_000):
        pass
    pid = remote.engine_ready.pid
    job = remote.submit(TrainRequest(tiny_spec.replace(epochs=200)), describe="the run")
    seen = _record(job)
    qtbot.waitUntil(lambda: len(seen) >= 3, timeout=120_000)
    ends = []
    remote.ended.connect(ends.append)
    os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: seen[-1][0] == "error", timeout=60_000)
    assert "the engine on gpu-box ended" in seen[-1][1] and "during the run" in seen[-1][1]
    assert ends and ends[0].host == "gpu-box"
    with qtbot.waitSignal(remote.ready, timeout=120_000):
        pass
    assert remote.engine_ready.pid != pid


def test_a_refused_key_is_one_sentence_and_no_retry(server, monkeypatch, qtbot):
    monkeypatch.setenv(SSH_ENV, f"ssh -F {server.no_key_config}")
    client = EngineClient(target=parse_target("gpu-box"))
    job = client.submit(HardwareCheckRequest())
    seen = _record(job)
    qtbot.waitUntil(lambda: client.connection == DISCONNECTED, timeout=60_000)
    assert seen == [("error", client.connection_problem)]
    assert client.connection_problem.startswith("gpu-box refused your key")
    qtbot.wait(1500)
    assert client.starts == 1  # a key does not come back by itself: no retry loop
    assert client.shutdown(5_000)


HOSTILE_ENGINE = """
import os, pickle, struct, sys, time
class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[1],))
data = pickle.dumps(Payload())
sys.stdout.buffer.write(struct.pack("!Q", len(data)) + data)
sys.stdout.buffer.flush()
time.sleep(30)
"""


def test_a_hostile_engine_cannot_run_code_in_the_window(qtbot, tmp_path):
    """An "engine" (a server the user was tricked into, a compromised account) answers
    the Hello with a pickle that would run a command on unpickling: the window reads
    it as a frame that does not decode, ends the connection with one line, and the
    command never runs (its marker file never appears)."""
    import sys

    from mpstudio.engine.service.engine_target import EngineTarget

    marker = tmp_path / "pwned"
    script = tmp_path / "hostile_engine.py"
    script.write_text(HOSTILE_ENGINE)
    client = EngineClient(target=EngineTarget(
        "command", command=(sys.executable, str(script), str(marker))))
    problems: list[str] = []
    client.connection_changed.connect(lambda state, why: problems.append(why))
    job = client.submit(HardwareCheckRequest())
    seen = _record(job)
    qtbot.waitUntil(lambda: client.connection == DISCONNECTED, timeout=30_000)
    assert not marker.exists()
    assert seen and seen[-1][0] == "error"
    problem = client.connection_problem
    assert problem.startswith("a frame that does not decode") and "\n" not in problem
    qtbot.wait(500)
    assert not marker.exists() and client.starts == 1
    assert client.shutdown(5_000)
