"""The engine process's main loop: TensorFlow loads first (with the saved GPU memory
settings applied before anything touches a GPU; on a GPU TensorFlow has no machine code
for, CUDA's JIT cache sized and the window told why the start is slow, before that),
then jobs run in two serial lanes.

- main lane (this process's main thread): everything that builds models or trains.
  Keras' dtype policy is process-global while a model is built, so these never overlap.
- data lane (a thread): dataset summaries, so picking a dataset during a long run
  still shows what it holds.

A control thread reads the window's messages: a submission joins its lane, a cancel
sets that job's stop flag (runs poll it before every batch), a shutdown or a closed
pipe (the window is gone) cancels everything and ends the process, so no engine is
ever left behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from mpstudio.engine.app_log import configure_engine, log_uncaught
from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.export.results import ExportCancelled
from mpstudio.engine.hardware.first_start import FirstStart, prepare_first_start
from mpstudio.engine.i18n import _, set_language
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.framing import FrameError, FrameWriter, read_frame
from mpstudio.engine.service.job_requests import DATA_LANE, MAIN_LANE, JobRequest
from mpstudio.engine.service.job_table import EngineMemory, run_job
from mpstudio.engine.service.replay_outbox import MOST_KEPT, ReplayOutbox

log = logging.getLogger(__name__)
STOPS = (DataLoadStopped, ExportCancelled)  # how a job ends when its stop flag is honoured
ORPHAN_GRACE_SECONDS = 10.0  # the window vanished: the running job has this long to stop


class _RunningJob:
    """A job's context: the Reporter protocol plus progress, all sent to the window."""

    def __init__(self, submit: p.Submit, outbox: ReplayOutbox, client_id: str) -> None:
        self.submit = submit
        self.client_id = client_id
        self.stop_flag = threading.Event()
        self._outbox = outbox
        self._last_progress: tuple[int, int, str] | None = None
        self.last_started: Any = None  # the current run's RunStarted event

    def emit(self, event: Any) -> None:
        if type(event).__name__ == "RunStarted":  # for a watcher who comes mid-run
            self.last_started = event
        self._outbox.send(p.JobEvent(self.submit.job_id, event), self.client_id)

    def should_stop(self) -> bool:
        return self.stop_flag.is_set()

    def progress(self, done: int, total: int, text: str) -> None:
        if (done, total, text) != self._last_progress:  # only what changed crosses
            self._last_progress = (done, total, text)
            self._outbox.send(p.JobProgress(self.submit.job_id, done, total, text),
                              self.client_id)


class EngineLoop:
    """The jobs and the windows' connections. ``server``: the engine outlives a window's
    connection (``mpstudio engine serve``); else it is one window's child, which ends
    with that window."""

    def __init__(self, server: bool = False) -> None:
        self.server = server
        self.outbox = ReplayOutbox()
        self.engine_id = uuid.uuid4().hex
        self.memory = EngineMemory()
        self.lanes: dict[str, queue.Queue[_RunningJob | None]] = {
            MAIN_LANE: queue.Queue(), DATA_LANE: queue.Queue()}
        self.jobs: dict[tuple[str, int], _RunningJob] = {}  # by window and its job id
        self._jobs_lock = threading.Lock()
        self._client: tuple[str, Any] | None = None  # (client_id, writer): the window now
        self._others: set[Any] = set()  # writers of command lines and watchers attached
        self.ending = threading.Event()
        self.on_ending: list[Callable[[], None]] = []  # a server stops listening at once
        self.end_reason = ""
        self.idle_since = time.monotonic()  # no window and no job since (a server's)

    # ------------------------------------------------------------ control
    def serve_connection(self, inbound: IO[bytes], writer: Any) -> None:
        """Read one window's messages until it goes: its Hello first, then jobs."""
        try:
            hello = read_frame(inbound)
        except Exception as exc:  # EOF, or a peer that does not speak this protocol
            self._connection_ended(writer, _said_why(exc))
            return
        if isinstance(hello, p.Hello) and hello.mode in ("status", "stop"):
            self._answer_query(hello, writer)
            return
        if not self._welcome(hello, writer):
            self._connection_ended(writer, "refused")
            return
        watching = hello.mode == p.WATCH
        while True:
            try:
                message = read_frame(inbound)
            except FrameError as exc:  # not a message: the stream cannot be trusted
                log.error("ending the window's connection: %s", exc)
                self._connection_ended(writer, _said_why(exc))
                return
            except Exception as exc:  # EOF: the window is gone (or the pipe broke)
                self._connection_ended(writer, _said_why(exc))
                return
            if watching and not isinstance(message, p.Detach):
                continue  # a watcher sees; it runs and cancels nothing
            if isinstance(message, p.Submit):
                job = _RunningJob(message, self.outbox, hello.client_id)
                with self._jobs_lock:
                    self.jobs[(hello.client_id, message.job_id)] = job
                self.lanes.get(_lane(message.request), self.lanes[MAIN_LANE]).put(job)
            elif isinstance(message, p.Cancel):
                with self._jobs_lock:
                    cancelled = self.jobs.get((hello.client_id, message.job_id))
                if cancelled is not None:
                    cancelled.stop_flag.set()
            elif isinstance(message, p.Ack):
                self.outbox.acknowledge(message.seq, hello.client_id)
            elif isinstance(message, p.Detach):
                self._connection_ended(writer, "the window detached")
                return
            elif isinstance(message, p.Shutdown):
                self._end(orphaned=False)
                if message.now:  # Stop now: a job stuck in TensorFlow's C++ ends with it
                    log.info("Stop now: ending the engine at once")
                    timer = threading.Timer(0.2, os._exit, args=(1,))
                    timer.daemon = True
                    timer.start()
                return

    def _answer_query(self, hello: p.Hello, writer: Any) -> None:
        """``mpstudio engine status|stop``: what runs, without taking the window's place."""
        with contextlib.suppress(Exception):
            writer.send(self._welcome_message(None))
        if hello.mode == "stop":
            log.info("asked to stop by `mpstudio engine stop`")
            self._end(orphaned=False)
        with contextlib.suppress(Exception):
            writer.close()

    def _welcome_message(self, resume: int | None) -> p.Welcome:
        from mpstudio import __version__

        with self._jobs_lock:
            running = tuple(p.RunningJob(job.submit.job_id, type(job.submit.request).__name__,
                                         getattr(job.submit.request, "what", "") or "",
                                         job.client_id)
                            for job in self.jobs.values() if not job.should_stop())
        return p.Welcome(p.PROTOCOL, __version__, self.engine_id, socket.gethostname(),
                         resumed=resume is not None, jobs=running)

    def _welcome(self, hello: Any, writer: Any) -> bool:
        from mpstudio import __version__

        if not isinstance(hello, p.Hello):
            writer.send(p.Refused("the window did not open with Hello: another version of "
                                  "mpstudio? Install the same version on both machines",
                                  p.NO_HELLO, __version__, p.PROTOCOL))
            return False
        if hello.protocol != p.PROTOCOL:
            writer.send(p.Refused(
                f"the engine runs mpstudio {__version__} (protocol {p.PROTOCOL}) and the "
                f"window mpstudio {hello.version} (protocol {hello.protocol}): install the "
                f"same version on both machines", p.OTHER_PROTOCOL, __version__, p.PROTOCOL))
            return False
        if hello.mode == p.WATCH:
            with self._jobs_lock:
                self._others.add(writer)
                catch_up = tuple((job.client_id, p.JobEvent(job.submit.job_id, job.last_started))
                                 for job in self.jobs.values() if job.last_started is not None)
            self.outbox.watch(writer, self._welcome_message(None), catch_up)
            log.info("a watcher attached (mpstudio %s)", hello.version)
            return True
        if hello.mode == p.COMMAND_LINE:  # beside the window, not in its place
            with self._jobs_lock:
                self._others.add(writer)
            previous = None
        else:
            with self._jobs_lock:
                previous, self._client = self._client, (hello.client_id, writer)
        if previous is not None and previous[1] is not writer:
            # One window at a time: the newest wins. Its own stale connection (a drop not
            # noticed yet) goes quietly; another window is told why.
            if previous[0] != hello.client_id:
                with contextlib.suppress(Exception):
                    previous[1].send(p.Refused("another window attached to this engine",
                                               p.ANOTHER_WINDOW))
            with contextlib.suppress(Exception):
                previous[1].close()
        if hello.language and hello.mode != p.WATCH:
            set_language(hello.language)  # the sentences the engine words: the window's
        resume = hello.resume_from if hello.engine_id == self.engine_id else None
        if not self.outbox.attach(writer, self._welcome_message(resume), resume,
                                  hello.client_id):
            log.warning("a window reattached after more than %d job messages: the oldest "
                        "were dropped", MOST_KEPT)
        log.info("a %s attached (mpstudio %s%s)",
                 "command line" if hello.mode == p.COMMAND_LINE else "window", hello.version,
                 f", resuming after message {resume}" if resume is not None else "")
        return True

    def _connection_ended(self, writer: Any, why: str) -> None:
        self.outbox.detach(writer)
        with self._jobs_lock:
            was_current = self._client is not None and self._client[1] is writer
            if was_current:
                self._client = None
            self._others.discard(writer)
            if self._client is None and not self._others:
                self.idle_since = time.monotonic()
        with contextlib.suppress(Exception):
            writer.close()
        if not self.server:
            self._end(orphaned=True)
        elif was_current:
            log.info("the window's connection ended (%s); jobs go on", why)

    def let_window_go(self, seconds: float) -> None:
        """The engine ends: the attached window's connection closes once what was sent
        to it has gone (``seconds`` at most), so it reads its jobs' ends, then EOF."""
        with self._jobs_lock:
            client, self._client = self._client, None
            writers = [*([client[1]] if client is not None else []), *self._others]
            self._others.clear()
        for writer in writers:
            writer.close()
        deadline = time.monotonic() + seconds
        for writer in writers:
            wait = getattr(writer, "wait_sent", None)
            if wait is not None:
                wait(max(0.0, deadline - time.monotonic()))

    @property
    def idle(self) -> bool:
        """No front end attached and no job queued or running."""
        with self._jobs_lock:
            return self._client is None and not self._others and not self.jobs

    def _end(self, orphaned: bool) -> None:
        self.end_reason = "the window went away" if orphaned else "the window asked"
        self.ending.set()
        for stop_listening in self.on_ending:
            with contextlib.suppress(Exception):
                stop_listening()
        with self._jobs_lock:
            for job in self.jobs.values():
                job.stop_flag.set()
        for lane in self.lanes.values():
            lane.put(None)
        if orphaned:  # nobody is listening: stop soon whatever the running job does
            timer = threading.Timer(ORPHAN_GRACE_SECONDS, os._exit, args=(0,))
            timer.daemon = True
            timer.start()

    # -------------------------------------------------------------- lanes
    def run_lane(self, lane: str) -> None:
        while (job := self.lanes[lane].get()) is not None:
            self._execute(job)

    def _execute(self, job: _RunningJob) -> None:
        submit = job.submit
        what = f"job {submit.job_id} {type(submit.request).__name__}"
        try:
            if job.should_stop():
                log.info("%s cancelled before it started", what)
                self._send_quietly(p.JobFailed(submit.job_id, "cancelled", cancelled=True),
                                   job.client_id)
                return
            log.info("%s started", what)
            log.debug("%s: %r", what, submit.request)
            started = time.monotonic()
            self._send_quietly(p.JobStarted(submit.job_id), job.client_id)
            try:
                value = run_job(job, self.memory, submit.request)
            except Exception as exc:  # a job ends with a message, never the engine
                cancelled = job.should_stop() and isinstance(exc, STOPS)
                if cancelled:
                    log.info("%s cancelled after %.1f s", what, time.monotonic() - started)
                else:
                    log.error("%s failed after %.1f s", what, time.monotonic() - started,
                              exc_info=True)
                message = "cancelled" if cancelled else failure_message(submit.request, exc)
                self._send_quietly(p.JobFailed(submit.job_id, message, cancelled),
                                   job.client_id)
                return
            log.info("%s done in %.1f s%s", what, time.monotonic() - started,
                     _outcome_note(value))
            try:
                self.outbox.send(p.JobResult(submit.job_id, value), job.client_id)
            except Exception as exc:  # a result that cannot cross (a bug): say so
                self._send_quietly(p.JobFailed(submit.job_id, _(
                    "{job}: the result could not be sent: {error}").format(
                        job=type(submit.request).__name__, error=exc)), job.client_id)
        finally:
            with self._jobs_lock:
                self.jobs.pop((job.client_id, submit.job_id), None)
                if not self.jobs:
                    self.idle_since = time.monotonic()

    def _send_quietly(self, message: Any, client_id: str = "") -> None:
        # the window may be gone: the control thread then ends the process
        with contextlib.suppress(OSError, ValueError):
            self.outbox.send(message, client_id)


def _said_why(exc: BaseException) -> str:
    return "it closed" if isinstance(exc, EOFError) else f"{type(exc).__name__}: {exc}"


def _lane(request: object) -> str:
    return request.lane if isinstance(request, JobRequest) else MAIN_LANE


def failure_message(request: object, exc: BaseException) -> str:
    """A readable line: engine errors already say what to do; others get their type."""
    from mpstudio.engine.spec import SpecError

    if isinstance(exc, SpecError):
        return "; ".join(exc.problems)
    known = {"RunSetupError", "DataLoadStopped", "DataError", "DownloadError", "SettingsError",
             "ExportError", "UnknownJob", "FetchError", "FolderError", "NoTensorBoardLogs",
             "TensorBoardMissing"}
    if type(exc).__name__ in known:
        return str(exc)
    what = type(request).__name__
    if isinstance(request, JobRequest) and request.what:
        what = _(request.what)
    if isinstance(exc, MemoryError):
        return _("{what} ran out of memory: close other programs or pick something "
                 "smaller").format(what=what)
    return _("{what} failed: {error}").format(what=what, error=f"{type(exc).__name__}: {exc}")


def _outcome_note(value: Any) -> str:
    """A training job's runs and how each ended, for its line in the log."""
    results = getattr(value, "results", None)
    if not isinstance(results, list) or not results:
        return ""
    ends = [getattr(getattr(r, "summary", None), "status", "?") for r in results]
    return ": runs " + ", ".join(ends)


def _first_start() -> FirstStart:
    """Before TensorFlow loads: on a GPU it has no machine code for, CUDA's JIT cache
    large enough to keep the kernels the driver compiles (first_start.py), and the
    sentence that tells the window why this start is slow. Never in the way of a start."""
    try:
        return prepare_first_start()
    except Exception:  # a driver that answers oddly: start as before
        log.warning("could not tell whether the driver compiles TensorFlow's kernels",
                    exc_info=True)
        return FirstStart()


def _set_up_gpus(tf: Any) -> None:
    """Set the GPUs up and run a first op on each now, while the window says why it
    waits: the driver compiles TensorFlow's kernels then, not in the first job after
    "Ready". Only where it compiles (first_start): elsewhere the GPUs stay untouched
    until a job needs them. The memory settings are applied before this."""
    started = time.monotonic()
    try:
        gpus = tf.config.list_logical_devices("GPU")
        for gpu in gpus:
            with tf.device(gpu.name):
                float(tf.reduce_sum(tf.ones((8,))))
    except Exception:  # the first job meets the same problem and says it
        log.warning("setting up the GPUs at start failed", exc_info=True)
        return
    log.info("%d GPU(s) set up in %.1f s", len(gpus), time.monotonic() - started)


def _load_tensorflow(log_file: Path | None,
                     set_up_gpus: bool = False) -> p.EngineReady | p.EngineLoadFailed:
    """Import TensorFlow and Keras and apply the saved GPU memory settings, before any
    op can initialise a GPU (``set_up_gpus``: then set the GPUs up, where the driver
    compiles TensorFlow's kernels). ``log_file``: where this process's stderr goes, if
    a file."""
    from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

    started = time.monotonic()
    try:
        with tensorflow_logs_hidden():
            import keras
            import tensorflow as tf

            from mpstudio.engine.hardware.gpu_memory import apply_saved_gpu_memory

            memory = apply_saved_gpu_memory()
            if set_up_gpus:
                _set_up_gpus(tf)
    except Exception as exc:  # a broken install: the window says so and how to fix it
        log.error("loading TensorFlow failed", exc_info=True)
        return p.EngineLoadFailed(f"{type(exc).__name__}: {exc}")
    log.info("TensorFlow %s, Keras %s loaded in %.1f s; GPU memory: %s", tf.__version__,
             keras.__version__, time.monotonic() - started, memory.status)
    return p.EngineReady({"TensorFlow": tf.__version__, "Keras": keras.__version__},
                         memory, os.getpid(), str(log_file or ""))


def run_engine(loop: EngineLoop, log_file: Path | None = None) -> None:
    """Load TensorFlow and run jobs until the loop ends (a window's Shutdown, a pipe
    window gone, a server idle); connections are served by other threads."""
    # Ctrl-C in the terminal that launched the app reaches every process of its group;
    # the window decides what a stop means.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    restore_hooks = log_uncaught()  # a thread's uncaught error: its traceback in the log
    first_start = _first_start()  # before TensorFlow: CUDA reads its cache size at start
    if first_start.message:
        loop._send_quietly(p.EngineStarting(first_start.message))
    loop._send_quietly(_load_tensorflow(log_file, set_up_gpus=first_start.compiles))
    # The data lane starts once TensorFlow is in: a summary that reads images imports it
    # too, and two threads importing TensorFlow at once deadlock on its module locks or
    # leave it half-imported.
    data = threading.Thread(target=loop.run_lane, args=(DATA_LANE,), name="engine-data",
                            daemon=True)
    data.start()
    loop.run_lane(MAIN_LANE)
    data.join(5.0)
    log.info("engine process ending (%s)", loop.end_reason)
    restore_hooks()


def serve(inbound: IO[bytes], outbound: FrameWriter, log_file: Path | None = None) -> None:
    """Run the engine for the one window at the other end of a pipe, until it says
    Shutdown or goes away."""
    configure_engine(log_file)
    log.debug("engine process %s: jobs from the window's pipe, stderr to %s", sys.executable,
              log_file or "the terminal")
    loop = EngineLoop()
    threading.Thread(target=loop.serve_connection, args=(inbound, outbound),
                     name="engine-control", daemon=True).start()
    run_engine(loop, log_file)


def serve_stdio() -> None:
    """The process's entry point: frames on stdin and stdout. Anything else that writes
    to file descriptor 1 (a C++ library, a stray print) goes to stderr instead, and the
    processes this one starts get no stdin, so nothing can corrupt or steal a frame.
    Its stderr goes to the engine log, not the terminal (quiet_stderr.engine_log)."""
    from mpstudio.engine.quiet_stderr import engine_log

    log_file = engine_log()
    sys.stdout.flush()
    inbound = os.fdopen(os.dup(0), "rb", buffering=0)
    outbound = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    writer = FrameWriter(outbound)
    serve(inbound, writer, log_file)
    try:
        writer.close()
    finally:
        os._exit(0)  # every job has ended; skip TensorFlow's slow interpreter teardown
