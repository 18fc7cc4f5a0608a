"""A test cluster of ``mpstudio train --strategy multiworker`` processes on 127.0.0.1:
free ports, each worker's TF_CONFIG, the workers themselves, and what they said with
TensorFlow's and gRPC's noise left out."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile

# What TensorFlow and gRPC print in a worker beside what the worker says.
NOISE = ("WARNING", "W0000", "I0000", "E0000", "Additional GRPC", ":UNKNOWN:")


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def tf_config(ports: list[int], index: int) -> str:
    return json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                       "task": {"type": "worker", "index": index}})


class Worker:
    """One `mpstudio train --strategy multiworker` process of a test cluster. Its output
    goes to files, never to a pipe nobody reads (a full pipe would stall the worker and,
    through the collectives, its peers); ``finish`` always ends it."""

    def __init__(self, ports: list[int], index: int, *args: str, stream: bool = False):
        env = dict(os.environ, TF_CONFIG=tf_config(ports, index))
        # Kept open for the worker's whole life; gone when this object is.
        self._out = None if stream else tempfile.TemporaryFile("w+")  # noqa: SIM115
        self._err = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mpstudio", "train", "--strategy", "multiworker", *args],
            stdout=subprocess.PIPE if stream else self._out, stderr=self._err, text=True,
            env=env)
        self.stdout = self.process.stdout  # a pipe only when streamed

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stderr(self) -> str:
        self._err.seek(0)
        return self._err.read()

    def finish(self, timeout: float) -> tuple[str, str]:
        """Wait up to ``timeout`` s, kill it if it is still running, return (stdout,
        stderr); stdout is empty when it was streamed."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"worker still running after {timeout:.0f} s; it said: "
                                 f"{said(self.stderr())[-2000:]}") from None
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()
        out = ""
        if self._out is not None:
            self._out.seek(0)
            out = self._out.read()
        return out, self.stderr()


def worker(ports: list[int], index: int, *args: str, stream: bool = False) -> Worker:
    return Worker(ports, index, *args, stream=stream)


def said(stderr: str) -> str:
    return " ".join(line for line in stderr.splitlines() if not line.startswith(NOISE))
