"""The engine reached over ssh against the engine on a local pipe, side by side: what a
laptop's window pays for driving a server's engine, measured over ssh to localhost (a
real SSH server, tests/support/ssh_server.py, and the system's ssh client), so the
figures are the cost of ssh, the bridge and the socket, not of a network.

Per round, alternating which side goes first:
- connect: from starting the command to the engine's Welcome (ssh: the handshake,
  `mpstudio engine connect`, an engine already running there; local: a new engine
  process's Python start, TensorFlow not yet loaded) and to EngineReady;
- round trip: a job that does nothing (an empty history read) submitted and answered,
  median of 50: what an event's trip costs, there and back;
- events: a run that reports every step (digits, mlp, batch 8): events per second
  received while it trains, on each side;
- reconnect (ssh only): ssh killed mid-run, then a new connection's Welcome, and how
  many job messages it was sent again for the time it was away.

    python benchmarks/remote_engine.py            # 5 rounds, about 3 minutes on 2 cores
    python benchmarks/remote_engine.py --quick    # 1 round
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from mpstudio.engine.events import StepMetrics  # noqa: E402
from mpstudio.engine.service import protocol as p  # noqa: E402
from mpstudio.engine.service.engine_target import SSH_ENV, parse_target  # noqa: E402
from mpstudio.engine.service.framing import FrameWriter, read_frame  # noqa: E402
from mpstudio.engine.service.job_requests import HistoryRowsRequest, TrainRequest  # noqa: E402
from mpstudio.engine.spec import RunSpec  # noqa: E402

from support.ssh_server import (  # type: ignore[import-not-found]  # noqa: E402
    SshServer,
    remote_env,
    stop_engine,
)

SPEC = RunSpec(dataset="digits", template="mlp", batch_size=8, epochs=3, log_every_steps=1,
               validation_split=0.2)


class Connection:
    def __init__(self, argv: list[str], client: str, **hello: Any) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.writer = FrameWriter(self.proc.stdin)
        self.reader = self.proc.stdout
        self.writer.send(p.Hello(p.PROTOCOL, "bench", client, **hello))
        self.inbox: queue.Queue[tuple[float, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.jobs = 1000 + int(time.time()) % 1000 * 1000  # ids of their own per window

    def _read(self) -> None:
        while True:
            try:
                message = read_frame(self.reader)
            except Exception:
                self.inbox.put((time.perf_counter(), None))
                return
            self.inbox.put((time.perf_counter(), message))

    def until(self, kind: type | tuple[type, ...], timeout: float = 180) -> tuple[float, Any]:
        while True:
            at, message = self.inbox.get(timeout=timeout)
            if message is None:
                raise RuntimeError("the connection ended")
            inner = message.message if isinstance(message, p.Numbered) else message
            if isinstance(inner, kind):
                return at, message

    def submit(self, request: Any) -> int:
        self.jobs += 1
        self.writer.send(p.Submit(self.jobs, request))
        return self.jobs

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def _connect(argv: list[str], client: str) -> tuple[Connection, p.Welcome, float, float]:
    conn = Connection(argv, client)
    welcomed, welcome = conn.until(p.Welcome)
    ready, _ = conn.until(p.EngineReady)
    return conn, welcome, welcomed - conn.started, ready - conn.started


def _round_trips(conn: Connection, n: int) -> float:
    times = []
    for _ in range(n):
        sent = time.perf_counter()
        conn.submit(HistoryRowsRequest(10**9))
        at, _ = conn.until(p.JobResult)
        times.append(at - sent)
    return statistics.median(times)


def _events(conn: Connection) -> tuple[float, int]:
    conn.submit(TrainRequest(SPEC))
    first, _ = conn.until(p.JobStarted)
    count = 0
    while True:
        at, message = conn.until((p.JobEvent, p.JobResult, p.JobFailed))
        inner = message.message
        if isinstance(inner, p.JobEvent) and isinstance(inner.event, StepMetrics):
            count += 1
        elif not isinstance(inner, p.JobEvent):
            return count / (at - first), count


def _reconnect(argv: list[str], client: str) -> tuple[float, int]:
    conn, welcome, _, _ = _connect(argv, client)
    conn.submit(TrainRequest(SPEC))
    seen = 0
    last = 0
    while seen < 50:
        _, message = conn.until(p.JobEvent)
        last, seen = message.seq, seen + 1
    dropped = time.perf_counter()
    conn.proc.send_signal(signal.SIGKILL)
    conn.close()
    time.sleep(0.5)  # it trains on meanwhile
    again = Connection(argv, client, engine_id=welcome.engine_id, resume_from=last)
    at, _ = again.until(p.Welcome)
    replayed = 0
    while True:  # the messages already waiting: those of the time it was away
        try:
            _, message = again.inbox.get(timeout=0.05)
        except queue.Empty:
            break
        replayed += isinstance(message, p.Numbered)
    again.until(p.JobResult)
    again.close()
    return at - dropped - 0.5, replayed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    folder = Path(tempfile.mkdtemp(prefix="mps-bench-"))
    runtime = tempfile.mkdtemp(prefix="mps-rt-")
    os.chmod(runtime, 0o700)
    server = SshServer.start(folder, env={**remote_env(folder), "MPSTUDIO_RUNTIME_DIR": runtime})
    os.environ[SSH_ENV] = f"ssh -F {server.config}"
    sides = {"local pipe": parse_target("local").argv(), "ssh": parse_target("gpu-box").argv()}
    figures: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    try:
        cold, _, _, cold_ready = _connect(sides["ssh"], "bench")  # the engine starts there
        cold.close()
        print(f"ssh, no engine running there: Welcome in {cold_ready:.2f} s with "
              "TensorFlow loaded (the engine started on demand)")
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for side in order:
                conn, _, welcome, ready = _connect(sides[side], "bench")
                f = figures[side]
                f.setdefault("connect to Welcome (s)", []).append(welcome)
                f.setdefault("connect to EngineReady (s)", []).append(ready)
                f.setdefault("no-op job round trip (ms)", []).append(
                    1000 * _round_trips(conn, 50))
                rate, _count = _events(conn)
                f.setdefault("step events received per s", []).append(rate)
                if side == "ssh":
                    conn.writer.send(p.Detach())
                conn.close()
            seconds, replayed = _reconnect(sides["ssh"], "bench-reconnect")
            figures["ssh"].setdefault("reconnect to Welcome (s)", []).append(seconds)
            figures["ssh"].setdefault("messages replayed", []).append(replayed)
    finally:
        stop_engine(server)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)
    print(f"{rounds} round(s), sides alternating; median (min-max)")
    names = list(dict.fromkeys(n for f in figures.values() for n in f))
    for name in names:
        cells = []
        for side in sides:
            values = figures[side].get(name)
            cells.append(f"{side}: {statistics.median(values):.3g} "
                         f"({min(values):.3g}-{max(values):.3g})" if values else f"{side}: -")
        local, remote = (figures[s].get(name) for s in sides)
        ratio = (f"  ssh/local {statistics.median(remote) / statistics.median(local):.2f}x"
                 if local and remote else "")
        print(f"  {name}: " + "; ".join(cells) + ratio)


if __name__ == "__main__":
    main()
