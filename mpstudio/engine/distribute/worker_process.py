"""This host's multi-worker worker, run as a ``mpstudio train`` process.

A multi-worker strategy can only be created in a fresh process (collectives are
set up before TensorFlow's first operation), and a lost peer must not take the
GUI down with it. So the GUI starts this host's worker as a child process with
its own TF_CONFIG, relays the JSON events it prints (``--events``) to the
reporter, turns a stop request into the child's Ctrl-C (stop after this step),
and loads back the model the chief kept. The child records the run history.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpstudio.engine.child_process import last_words
from mpstudio.engine.event_codec import EventDecodeError, event_from_json
from mpstudio.engine.events import EpochMetrics, Reporter, RunFailed, RunFinished, RunStarted
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.spec import RunSpec, SpecError

STOP_GRACE = 30.0  # seconds a stopped worker gets to finish its step and save
EXIT_DRAIN = 2.0  # seconds to wait for the last output once the worker has exited
NOT_STARTED = N_("stopped before every worker had joined; nothing was written")


def worker_command(config: Path) -> list[str]:
    return [sys.executable, "-m", "mpstudio", "train", "--config", str(config), "--events"]


def run_worker_process(spec: RunSpec, reporter: Reporter,
                       environ: Mapping[str, str] | None = None) -> tuple[Any, int | None]:
    """Run ``spec`` (strategy multiworker) as this host's worker. Returns the RunResult
    (its model: the chief's kept model, loaded back; None on other workers or when the
    run kept none) and the history id the chief recorded (None elsewhere).
    Raises SpecError or RunSetupError when the worker never started training."""
    from mpstudio.engine.trainer.runner import RunResult, RunSetupError

    env = dict(os.environ if environ is None else environ)
    with tempfile.TemporaryDirectory(prefix="mpstudio-worker-") as folder:
        config = Path(folder) / "run.toml"
        spec.save(config)
        child = subprocess.Popen(worker_command(config), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        done, epochs, end, stderr, stopped_early = _relay(child, reporter)
    if stopped_early:
        from mpstudio.engine.datasets.errors import DataLoadStopped

        raise DataLoadStopped(_(NOT_STARTED))
    if done is None or end is None or end.summary is None:  # Done follows the run's end
        message = last_words(stderr) or _("the worker process ended with status "
                                           "{status}").format(status=child.returncode)
        if child.returncode == 2:
            raise SpecError([message])
        raise RunSetupError(message)
    run_id = done.get("id")
    failure = end if isinstance(end, RunFailed) else None
    result = RunResult(spec, end.summary, _kept_model(run_id), [], epochs, done.get("warnings", []),
                       failure)
    return result, run_id


def _relay(child: subprocess.Popen[str], reporter: Reporter) -> tuple[
        dict[str, Any] | None, list[EpochMetrics], RunFinished | RunFailed | None, list[str],
        bool]:
    """Relay the child's events until it has ended. Returns (done, epochs, end event,
    stderr lines, stopped before training began)."""
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: list[str] = []
    out, err = child.stdout, child.stderr
    assert out is not None and err is not None  # both piped

    def pump_stdout() -> None:
        for line in out:
            lines.put(line)
        lines.put(None)  # the child closed its output: it is ending

    def pump_stderr() -> None:
        stderr.extend(err)

    threading.Thread(target=pump_stdout, daemon=True).start()
    err_reader = threading.Thread(target=pump_stderr, daemon=True)
    err_reader.start()
    done: dict[str, Any] | None = None
    epochs: list[EpochMetrics] = []
    end: RunFinished | RunFailed | None = None
    started = False
    stop_sent = 0.0
    exited_at = 0.0
    while True:
        if not stop_sent and reporter.should_stop():
            stop_sent = time.monotonic()
            if started:
                with contextlib.suppress(OSError):
                    child.send_signal(signal.SIGINT)  # the CLI stops after the current step
            else:
                # Still waiting for the other workers, holding its interpreter: nothing to
                # save and Ctrl-C cannot reach it yet.
                child.kill()
        if stop_sent and time.monotonic() - stop_sent > STOP_GRACE:
            child.kill()
        if not exited_at and child.poll() is not None:
            exited_at = time.monotonic()
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            # A grandchild may still hold the output open: the worker's end is enough.
            if exited_at and time.monotonic() - exited_at > EXIT_DRAIN:
                break
            continue
        if line is None:
            break
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue  # not ours (a library printing to stdout)
        if data.get("event") == "Done":
            done = data
            continue
        try:
            event = event_from_json(data)
        except (EventDecodeError, TypeError):
            continue
        started = started or isinstance(event, RunStarted)
        if isinstance(event, EpochMetrics):
            epochs.append(event)
        if isinstance(event, (RunFinished, RunFailed)):
            end = event
        reporter.emit(event)
    child.wait()
    # Its error output was read alongside: the drain above waited already, so a
    # grandchild holding that pipe open too costs no more seconds here.
    err_reader.join(timeout=0.5)
    return done, epochs, end, stderr, bool(stop_sent and not started and done is None)


def _kept_model(run_id: int | None) -> Any:
    if run_id is None:
        return None
    from mpstudio.engine.history.run_models import model_file

    path = model_file(run_id)
    if path is None or not path.exists():
        return None
    import keras

    return keras.saving.load_model(path, safe_mode=True)
