"""The window's engine process through its client: real jobs in a real process.

Each test starts an engine (``python -m mpstudio.engine.service``, TensorFlow loaded
there) and drives it as the window does: typed requests whose jobs have their own
signals, cancels, a crash (kill -9 of the engine's pid), a shutdown that leaves no
process behind.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.service.job_requests import (
    HardwareCheckRequest,
    InspectDatasetRequest,
    JobRequest,
    ModelPreviewRequest,
    TrainRequest,
)
from mpstudio.engine.trainer.compare_options import CompareOptions
from mpstudio.ui.engine_client.engine_client import EngineClient
from mpstudio.ui.engine_client.engine_end import EngineEnd
from mpstudio.ui.engine_client.engine_job import EngineJob

READY_MS = 120_000


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def engine(qtbot):
    client = EngineClient()
    with qtbot.waitSignal(client.ready, timeout=READY_MS):
        client.start()
    yield client
    pid = client.pid
    assert client.shutdown(30_000)
    if pid is not None:
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the engine process outlived its client"


def _preview(template: str = "mlp", policy: str = "mixed_float16") -> ModelPreviewRequest:
    return ModelPreviewRequest(template, (8, 8, 1), 10, policy)


def _measure(seconds: float) -> HardwareCheckRequest:
    return HardwareCheckRequest(measure=True, seconds_per_case=seconds)


def _record(job: EngineJob) -> list[tuple[str, object]]:
    seen: list[tuple[str, object]] = []
    job.started.connect(lambda: seen.append(("started", None)))
    job.events.connect(lambda batch: seen.append(("events", batch)))
    job.result.connect(lambda value: seen.append(("result", value)))
    job.errored.connect(lambda message: seen.append(("errored", message)))
    job.finished.connect(lambda: seen.append(("finished", None)))
    return seen


def test_jobs_run_in_the_engine_process_in_order_with_their_own_signals(engine, qtbot):
    assert engine.engine_ready.pid != os.getpid()
    assert engine.engine_ready.versions["TensorFlow"]
    requests = [_preview("mlp", "float32"), _preview("mlp", "mixed_float16"),
                _preview("cnn", "mixed_bfloat16")]
    records = [_record(engine.submit(request)) for request in requests]
    qtbot.waitUntil(lambda: all(r and r[-1][0] == "finished" for r in records),
                    timeout=60_000)
    for record in records:
        assert [kind for kind, _ in record] == ["started", "result", "finished"]
    summaries = [record[1][1] for record in records]
    assert summaries[0].params == summaries[1].params  # the same mlp, another policy
    assert summaries[1].policy == "mixed_float16" and summaries[2].policy == "mixed_bfloat16"
    assert not engine.busy


def _of_another_version() -> ModelPreviewRequest:
    """A request as a window of another version sends it: a field this engine reads as
    another type. (A class the engine lacks altogether cannot be sent from here: the
    window's codec refuses classes outside its registry; test_wire_codec.py reads one.)"""
    return ModelPreviewRequest("mlp", (8, 8, 1), "ten", "float32")


def test_a_typed_request_returns_its_typed_result_and_an_unknown_one_a_sentence(
        engine, qtbot):
    """The request's type picks the engine's job and the type of what comes back; a
    request the engine has no job for, or cannot even read (a window of another
    version), fails with a sentence that says so, and the engine goes on."""
    unknown = _record(engine.submit(JobRequest()))
    unreadable = _record(engine.submit(_of_another_version()))
    request = _preview("mlp", "float32")
    job = engine.submit(request)
    typed: list[ModelSummary] = []
    job.on_result(typed.append)
    seen = _record(job)
    qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "finished", timeout=60_000)
    assert [kind for kind, _ in unknown] == ["started", "errored", "finished"]
    assert unknown[1][1] == "the engine has no job 'JobRequest'"
    assert [kind for kind, _ in unreadable] == ["started", "errored", "finished"]
    assert unreadable[1][1].startswith(
        "the engine process cannot read the window's ModelPreviewRequest")
    assert "ModelPreviewRequest.num_classes: expected int, got str" in unreadable[1][1]
    assert job.request is request and job.describe == "the model preview"
    assert len(typed) == 1 and isinstance(typed[0], ModelSummary)
    assert typed[0].policy == "float32"
    assert engine.active() == [] and not engine.busy


def test_only_a_job_request_can_be_submitted(qtbot):
    client = EngineClient()
    with pytest.raises(TypeError, match="not an engine job request"):
        client.submit("model_preview")  # type: ignore[arg-type]
    assert client.pid is None and not client.busy  # nothing started, nothing queued


def test_a_failing_job_says_why_a_cancelled_one_never_starts_and_the_engine_goes_on(
        engine, qtbot):
    bad = _record(engine.submit(_preview(template="no_such_template")))
    slow = engine.submit(_measure(0.3))
    queued = engine.submit(_preview())
    slow_seen, queued_seen = _record(slow), _record(queued)
    queued.cancel()
    qtbot.waitUntil(lambda: bool(bad) and bad[-1][0] == "finished", timeout=30_000)
    assert bad[-2][0] == "errored" and "no_such_template" in str(bad[-2][1])
    qtbot.waitUntil(lambda: slow.state == "running", timeout=30_000)
    slow.cancel()  # a measurement polls its stop flag between cases
    qtbot.waitUntil(lambda: bool(queued_seen) and queued_seen[-1][0] == "finished",
                    timeout=60_000)
    assert [kind for kind, _ in queued_seen] == ["errored", "finished"]
    assert queued_seen[0][1] == "cancelled"
    qtbot.waitUntil(lambda: slow.state == "done", timeout=60_000)
    check = next(value for kind, value in slow_seen if kind == "result")
    assert check.stopped  # ended early, with the cases that finished
    after = _record(engine.submit(_preview()))
    qtbot.waitUntil(lambda: bool(after) and after[-1][0] == "finished", timeout=30_000)
    assert after[1][0] == "result"


def test_dataset_summaries_do_not_wait_behind_the_main_lane(engine, qtbot):
    slow = engine.submit(_measure(1.0))
    qtbot.waitUntil(lambda: slow.state == "running", timeout=30_000)
    read = engine.submit(InspectDatasetRequest("digits", {}))
    seen = _record(read)
    qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "finished", timeout=30_000)
    assert slow.state == "running"  # the summary came back while the main lane worked
    report = next(value for kind, value in seen if kind == "result")
    assert tuple(report.input_shape) == (8, 8, 1) and report.num_classes == 10
    slow.cancel()
    qtbot.waitUntil(lambda: slow.state == "done", timeout=60_000)


def test_images_read_while_tensorflow_loads_wait_for_it(qtbot, tmp_path):
    """The window reads its dataset as soon as the engine starts. An image folder's
    summary imports TensorFlow: beside the main thread's import, that deadlocked on
    TensorFlow's module locks and TensorFlow never loaded (and its start-up lines reached
    the terminal). The data lane now waits until TensorFlow has loaded."""
    from support.user_data_files import write_image_folder

    root = write_image_folder(tmp_path / "pets")
    client = EngineClient()
    failed: list[str] = []
    client.load_failed.connect(failed.append)
    try:
        client.start()
        # as the window does at its start, before the engine is ready
        seen = _record(client.submit(InspectDatasetRequest(str(root), {})))
        qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "finished", timeout=READY_MS)
        qtbot.waitUntil(lambda: client.engine_ready is not None or bool(failed),
                        timeout=READY_MS)
        assert not failed and client.engine_ready is not None
        assert [kind for kind, _ in seen] == ["started", "result", "finished"], seen
        assert seen[1][1].num_classes == 2
    finally:
        assert client.shutdown(30_000)


def test_a_flood_of_events_reaches_the_gui_in_few_batches(engine, qtbot, tiny_spec):
    """A run that reports every step, while the GUI thread is busy: what arrived in
    the meantime comes as one batch, not one signal per event."""
    spec = tiny_spec.replace(epochs=3)
    job = engine.submit(TrainRequest(spec))
    batches: list[int] = []
    started: list = []
    job.events.connect(lambda batch: batches.append(len(batch)))
    job.events.connect(lambda batch: started.extend(
        e for e in batch if type(e).__name__ == "RunStarted"))
    done = _record(job)
    qtbot.waitUntil(lambda: sum(batches) > 0, timeout=60_000)
    # The GUI thread is busy (it sleeps, draining nothing) until 25 messages wait in the
    # link's inbox: a count, not a fixed 1.5 s, which a loaded machine filled with too
    # few events to tell one batch from many.
    inbox = engine._link.inbox
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(inbox._messages) < 25:
        time.sleep(0.05)
    waiting = len(inbox._messages)
    qtbot.waitUntil(lambda: bool(done) and done[-1][0] == "finished", timeout=120_000)
    outcome = next(value for kind, value in done if kind == "result")
    steps = 3 * started[0].steps_per_epoch
    assert outcome.last.ok and outcome.last.summary.steps_done == steps
    events = sum(batches)
    assert events > steps  # a step event for every step, and more
    # what waited came as one batch (less the run's last messages, where it ended meanwhile)
    assert waiting >= 25 and max(batches) >= 20, (waiting, batches)


def test_a_crash_mid_run_fails_the_job_says_how_and_a_fresh_engine_starts(
        engine, qtbot, tiny_spec):
    first_pid = engine.pid
    spec = tiny_spec.replace(epochs=200)  # long enough to be killed mid-run
    job = engine.submit(TrainRequest(spec), describe="the float32 run")
    events: list = []
    job.events.connect(events.extend)
    seen = _record(job)
    qtbot.waitUntil(lambda: sum(type(e).__name__ == "StepMetrics" for e in events) > 5,
                    timeout=120_000)
    ends: list[EngineEnd] = []
    engine.ended.connect(ends.append)
    with qtbot.waitSignal(engine.ready, timeout=READY_MS):
        os.kill(first_pid, signal.SIGKILL)  # as the system's out-of-memory killer would
    assert [kind for kind, _ in seen][-2:] == ["errored", "finished"]
    end = ends[0]
    assert end.exit_code == -signal.SIGKILL and not end.requested
    assert end.doing == "the float32 run"
    assert job.engine_end is end
    assert "SIGKILL" in seen[-2][1] and "during the float32 run" in seen[-2][1]
    assert engine.pid != first_pid and engine.starts == 2
    after = _record(engine.submit(_preview()))
    qtbot.waitUntil(lambda: bool(after) and after[-1][0] == "finished", timeout=60_000)
    assert after[1][0] == "result"


def test_stop_now_ends_the_engine_and_says_it_was_asked_for(engine, qtbot):
    slow = engine.submit(_measure(2.0), describe="the measurement")
    seen = _record(slow)
    qtbot.waitUntil(lambda: slow.state == "running", timeout=30_000)
    with qtbot.waitSignal(engine.ended, timeout=30_000) as ended:
        engine.stop_now()
    end = ended.args[0]
    assert end.requested and end.message.startswith("stopped now")
    assert seen[-2] == ("errored", end.message)
    qtbot.waitUntil(lambda: engine.ready_now, timeout=READY_MS)


def test_a_restart_never_waits_for_the_old_engine_and_starts_after_it_ended(engine, qtbot):
    """The batch finder restarts the engine for a device's whole memory: the window's
    thread went on only after the old process had ended (65-200 ms a time). Now restart()
    returns at once; a job submitted right after it queues in the new link, whose process
    starts only once the old one has ended (no two engines hold the device together)."""
    old_pid = engine.pid
    order: list[str] = []
    engine.ready.connect(lambda *_: order.append("new ready"))
    engine.restart()
    assert _alive(old_pid)  # restart() returned without waiting for the old one's end
    job = engine.submit(_preview())
    qtbot.waitUntil(lambda: not _alive(old_pid), timeout=10_000)
    order.append("old ended")
    with qtbot.waitSignal(job.finished, timeout=READY_MS):
        pass
    assert order[0] == "old ended" and "new ready" in order
    assert engine.pid not in (None, old_pid) and engine.starts == 2


def test_a_comparison_crosses_as_plain_data_with_model_handles(engine, qtbot, tiny_spec):
    spec = tiny_spec.replace(precision="mixed_float16", log_every_steps=5)
    job = engine.submit(TrainRequest(spec, CompareOptions(repeats=1)))
    seen = _record(job)
    qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "finished", timeout=180_000)
    outcome = next(value for kind, value in seen if kind == "result")
    assert [r.spec.precision for r in outcome.results] == ["float32", "mixed_float16"]
    assert [r.run_id for r in outcome.results] == [s.id for s in outcome.stored]
    assert outcome.card is not None
    started = [e for kind, batch in seen if kind == "events" for e in batch
               if type(e).__name__ == "RunStarted"]
    assert [e.run_id for e in started] == [r.run_id for r in outcome.results]
    assert [e.role for e in started] == ["baseline", "mixed"]
    assert outcome.results[-1].model_handle is not None  # kept in the engine, for export


def test_an_engine_that_cannot_start_is_said_once_not_restarted_forever(qtbot, monkeypatch):
    """A broken install: the engine process exits before it is ready. The client
    tries again once, then says so (the window shows "TensorFlow could not load")."""
    from mpstudio.ui.engine_client import engine_link

    monkeypatch.setattr(engine_link, "engine_command",
                        lambda: [sys.executable, "-c", "import sys; sys.exit(3)"])
    client = EngineClient()
    ends: list[EngineEnd] = []
    client.ended.connect(ends.append)
    with qtbot.waitSignal(client.load_failed, timeout=60_000) as failed:
        client.start()
    assert "exited with code 3 before it was ready, 2 times in a row" in failed.args[0]
    assert [end.exit_code for end in ends] == [3, 3] and client.starts == 2
    qtbot.wait(500)
    assert client.starts == 2 and client.pid is None  # no third try
    assert client.shutdown(5_000)


def test_an_engine_whose_window_is_gone_ends_by_itself():
    """The window's process killed: the engine sees its stdin close and exits (no
    engine is left behind holding a GPU)."""
    import subprocess

    from mpstudio.engine.service import protocol as p
    from mpstudio.engine.service.framing import FrameWriter, read_frame

    proc = subprocess.Popen([sys.executable, "-m", "mpstudio.engine.service"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        FrameWriter(proc.stdin).send(p.hello())
        assert isinstance(read_frame(proc.stdout), p.Welcome)
        assert isinstance(read_frame(proc.stdout), p.EngineReady)
        proc.stdin.close()  # what the kernel does when the window's process dies
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
