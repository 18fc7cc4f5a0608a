"""The run history: what goes in comes back, versions, broken files, and a process
killed in the middle of a run."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from mpstudio.engine.events import (
    CollectingReporter,
    LossScaleChanged,
    RunFailed,
    RunFinished,
    RunStarted,
    RunWarning,
    StepMetrics,
)
from mpstudio.engine.history.locations import HISTORY_ENV, history_path
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.records import summary_from_dict
from mpstudio.engine.history.replay import replay_events
from mpstudio.engine.history.schema import SCHEMA_VERSION
from mpstudio.engine.history.store import HistoryError, RunStore

from support.history_fakes import epoch, started, step, summary


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "history.sqlite3") as s:
        yield s


def test_a_run_comes_back_as_it_went_in(store):
    run_id = store.begin_run(started(comparison="c1", role="mixed", trial=2, trials=3))
    steps = [step(n, loss=1.0 / n) for n in range(1, 21)]
    steps[9] = step(10, loss=math.nan)  # a NaN loss is kept as NaN, not dropped
    changes = [LossScaleChanged(step=5, old=32768.0, new=16384.0, overflow_steps=1)]
    store.add_metrics(run_id, steps[:10], [epoch(1)], changes)
    store.add_metrics(run_id, steps[10:], [epoch(2)])
    store.finish_run(run_id, summary(), None)
    run = store.run(run_id)
    assert run.status == "finished" and run.label == "mixed_float16"
    assert (run.row.comparison, run.row.role, run.row.trial, run.row.trials) == ("c1", "mixed",
                                                                                2, 3)
    assert run.summary == summary()
    assert run.steps[:9] == tuple(steps[:9]) and run.steps[10:] == tuple(steps[10:])
    assert math.isnan(run.steps[9].loss)
    assert run.epochs == (epoch(1), epoch(2))
    assert run.scale_changes == tuple(changes)
    assert run.spec["precision"] == "mixed_float16" and run.model["params"] == 76810
    row = store.runs()[0]
    assert row.examples_per_sec == 1000.0 and row.val_accuracy == 0.9


def test_list_is_newest_first_and_filters(store):
    a = store.begin_run(started("float32", "float32"))
    store.finish_run(a, summary(precision="float32"), None)
    b = store.begin_run(started())
    store.finish_run(b, summary(status="diverged"), "training diverged")
    assert [r.id for r in store.runs()] == [b, a]
    assert [r.id for r in store.runs(precision="float32")] == [a]
    assert [r.id for r in store.runs(status="diverged")] == [b]
    assert store.run(b).failure == "training diverged"
    assert len(store.runs(limit=1)) == 1


def test_delete_removes_the_metrics_too(store):
    run_id = store.begin_run(started())
    store.add_metrics(run_id, [step(1), step(2)], [epoch(1)])
    assert store.delete_runs([run_id]) == 1
    with pytest.raises(HistoryError, match=f"no run #{run_id}"):
        store.run(run_id)
    leftovers = store._conn.execute("SELECT count(*) FROM steps").fetchone()[0]
    assert leftovers == 0


def test_side_of_a_repeated_comparison_in_trial_order(store):
    ids = {}
    for trial in (1, 2):
        for role in ("baseline", "mixed"):
            ids[role, trial] = store.begin_run(
                started(comparison="c", role=role, trial=trial, trials=2))
    side = store.side_of(ids["mixed", 2])
    assert [r.id for r in side] == [ids["mixed", 1], ids["mixed", 2]]
    assert [r.id for r in store.side_of(ids["baseline", 1])] == [ids["baseline", 1],
                                                                 ids["baseline", 2]]


def test_model_paths_are_remembered(store, tmp_path):
    run_id = store.begin_run(started())
    store.add_model_path(run_id, tmp_path / "a.keras")
    store.add_model_path(run_id, tmp_path / "a.keras")  # saved again: listed once
    assert store.run(run_id).model_paths == (str(tmp_path / "a.keras"),)


def test_summary_from_a_later_or_earlier_release():
    data = summary().to_dict()
    data["a_field_from_the_future"] = 1
    del data["data_time_fraction"]  # an older release did not have it
    del data["params"]
    restored = summary_from_dict(data)
    assert restored.data_time_fraction is None and restored.params is None
    assert restored.steady_examples_per_sec == 1000.0


def test_schema_version_is_recorded_and_a_newer_file_is_refused(tmp_path):
    path = tmp_path / "h.sqlite3"
    RunStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(HistoryError, match=r"newer mpstudio.*Update mpstudio"):
        RunStore(path)
    conn = sqlite3.connect(path)  # refused, not rewritten
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_a_damaged_file_is_named_and_left_alone(tmp_path):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not a database, just some bytes" * 100)
    with pytest.raises(HistoryError, match=r"h\.sqlite3.*damaged.*move it aside"):
        RunStore(path)
    assert path.read_bytes().startswith(b"this is not a database")


def test_history_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "x.sqlite3"))
    assert history_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv(HISTORY_ENV)
    assert history_path().name == "history.sqlite3"


def test_recorder_writes_as_it_goes_and_passes_events_on(tmp_path):
    path = tmp_path / "h.sqlite3"
    now = [0.0]
    inner = CollectingReporter()
    recorder = RecordingReporter(inner, lambda: RunStore(path), clock=lambda: now[0])
    recorder.emit(started())
    with RunStore(path) as reader:  # another connection, as the window has
        run_id = recorder.run_ids[0]
        assert reader.run(run_id).status == "running"
        recorder.emit(step(1))
        assert reader.run(run_id).steps == ()  # buffered...
        now[0] += 1.5
        recorder.emit(step(2))
        assert len(reader.run(run_id).steps) == 2  # ...for at most a second
        recorder.emit(step(3))
        recorder.emit(epoch(1))  # an epoch flushes at once
        assert len(reader.run(run_id).steps) == 3 and len(reader.run(run_id).epochs) == 1
        recorder.emit(RunFailed("diverged at step 3", "diverged", 3, summary(status="diverged")))
        stored = reader.run(run_id)
        assert stored.status == "diverged" and stored.failure == "diverged at step 3"
    assert len(inner.events) == 6
    recorder.close()


def test_recorder_marks_a_run_that_ended_without_a_result(tmp_path):
    path = tmp_path / "h.sqlite3"
    recorder = RecordingReporter(CollectingReporter(), lambda: RunStore(path))
    recorder.emit(started())
    recorder.emit(step(1))
    recorder.close()  # an exception escaped the engine
    with RunStore(path) as store:
        run = store.run(recorder.run_ids[0])
    assert run.status == "failed" and "without a result" in run.failure
    assert len(run.steps) == 1


def test_an_unusable_history_costs_a_warning_not_the_run(tmp_path):
    bad = tmp_path / "h.sqlite3"
    bad.write_bytes(b"garbage" * 200)
    inner = CollectingReporter()
    recorder = RecordingReporter(inner, lambda: RunStore(bad))
    recorder.emit(started())
    recorder.emit(step(1))
    recorder.emit(RunFinished(summary()))
    warnings = [e for e in inner.events if isinstance(e, RunWarning)]
    assert len(warnings) == 1 and "damaged" in warnings[0].message
    assert not recorder.persistent
    assert [r.status for r in recorder.stored()] == ["finished"]  # in memory, for the card
    recorder.close()
    assert bad.read_bytes().startswith(b"garbage")


def test_replay_gives_the_events_back_in_order(store):
    run_id = store.begin_run(started())
    store.add_metrics(run_id, [step(n) for n in range(1, 11)], [epoch(1)],
                      [LossScaleChanged(5, 32768.0, 16384.0, 1)])
    store.finish_run(run_id, summary(), None)
    events = replay_events(store.run(run_id), baseline=True)
    assert isinstance(events[0], RunStarted) and events[0].label == f"#{run_id} " \
        "mixed_float16 (baseline)"
    assert isinstance(events[-1], RunFinished)
    kinds = [type(e).__name__ for e in events[1:-1]]
    assert kinds.index("LossScaleChanged") < kinds.index("EpochMetrics") == len(kinds) - 1
    assert [e.step for e in events if isinstance(e, StepMetrics)] == list(range(1, 11))


def test_a_killed_process_leaves_an_interrupted_run_with_its_metrics(tmp_path):
    """A real `mpstudio train` killed with SIGKILL mid-run: the next open finds the run
    "running" with a dead owner, marks it interrupted and keeps what it recorded."""
    path = tmp_path / "h.sqlite3"
    env = {**os.environ, HISTORY_ENV: str(path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpstudio", "train", "--epochs", "1000", "--batch-size",
         "32", "--log-every", "1", "--precision", "float32", "--json"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        recorded = 0
        while recorded < 60:  # two epochs of 44 steps and a flush or two
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run recorded nothing in 120 s"
            time.sleep(0.25)
            if path.exists():
                with RunStore(path) as reader:
                    rows = reader.runs()
                    if rows:
                        assert reader.recover_interrupted() == []  # its owner is alive
                        recorded = len(reader.run(rows[0].id).steps)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with RunStore(path) as store:
        assert store.runs()[0].status == "running"
        (run_id,) = store.recover_interrupted()
        run = store.run(run_id)
        assert run.status == "interrupted" and "metrics up to then are kept" in run.failure
        assert len(run.steps) >= 60 and len(run.epochs) >= 1
        assert [s.step for s in run.steps] == list(range(1, len(run.steps) + 1))
        assert run.row.examples_per_sec is not None and run.row.val_accuracy is not None
        assert store.recover_interrupted() == []  # once only


# -------------------------------------------- files that are not ours, or not writable
def _digest(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign_database(path, schema: str, version: int = 0) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("schema, words", [
    ("CREATE TABLE notes (id INTEGER, body TEXT); INSERT INTO notes VALUES (1, 'keep me');",
     "another application's database (its tables: notes)"),
    ("CREATE TABLE runs (id INTEGER, name TEXT); INSERT INTO runs VALUES (1, 'theirs');",
     "another application's database (its tables: runs)"),
])
def test_another_applications_database_is_refused_and_left_byte_identical(tmp_path, schema,
                                                                           words):
    path = tmp_path / "other.sqlite3"
    _foreign_database(path, schema)
    before = _digest(path)
    with pytest.raises(HistoryError) as err:
        RunStore(path)
    assert f"{path} is not an mpstudio run history: it is {words}" in str(err.value)
    assert "It was left unchanged" in str(err.value)
    assert _digest(path) == before  # no tables added, the header not switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite3"]  # no -wal/-shm


def test_a_newer_history_is_refused_without_touching_its_header(tmp_path):
    path = tmp_path / "h.sqlite3"
    RunStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = DELETE")  # as a newer mpstudio might leave it
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(HistoryError, match=r"newer mpstudio.*left unchanged"):
        RunStore(path)
    assert _digest(path) == before


def test_a_history_in_a_folder_that_cannot_be_written_reads_but_says_why_it_cannot_write(
        monkeypatch, capsys):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:  # in the system temp: 'nobody' reaches it
        root = Path(folder)
        root.chmod(0o755)
        path = root / "history.sqlite3"
        with RunStore(path) as store:
            run_id = store.begin_run(started())
            store.finish_run(run_id, summary(), None)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = DELETE")  # a checkpointed file, no -wal/-shm
        conn.close()
        path.chmod(0o644)
        root.chmod(0o555)
        before = _digest(path)
        # 'nobody' cannot read root's Python install: what the commands import, now
        import rich.console
        import rich.table  # noqa: F401

        import mpstudio.cli.history_tables  # noqa: F401
        from mpstudio.cli import main

        main(["runs", "show", "1", "--json"])  # imports the rest (the run is not there)
        capsys.readouterr()
        try:
            os.seteuid(65534) if os.geteuid() == 0 else None
            with RunStore(path) as store:
                assert store.read_only and [r.id for r in store.runs()] == [run_id]
                assert store.run(run_id).row.status == "finished"
                with pytest.raises(HistoryError, match=f"folder {root} is not writable"):
                    store.begin_run(started())
            monkeypatch.setenv(HISTORY_ENV, str(path))  # the command line reads it too
            capsys.readouterr()
            assert main(["runs", "list", "--json"]) == 0
            assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [run_id]
            assert main(["runs", "show", str(run_id)]) == 0
        finally:
            if os.geteuid() != os.getuid():
                os.seteuid(0)
            root.chmod(0o755)
        assert _digest(path) == before


def test_a_wal_history_another_user_cannot_write_is_read_and_train_says_it_is_not_kept(
        monkeypatch, capsys):
    """A history as mpstudio leaves it (WAL mode; a clean close removes its -wal and
    -shm) in a folder the user cannot write: SQLite must create the -shm index to read a
    WAL file, so `runs list` said "attempt to write a readonly database. It is damaged or
    not an mpstudio history", and `train` called it damaged too.

    Recreated for real: the folder made 0555 and the file 0444 after a normal run, then
    read by a user other than their owner: this test's own user, or, when it runs as
    root (whom permissions do not stop), 'nobody' through seteuid (the real uid stays
    root, so it can come back). SQLite then fails to create the -shm as it does for a
    user reading another user's history."""
    import tempfile
    from pathlib import Path

    from mpstudio.cli import main

    with tempfile.TemporaryDirectory() as folder:  # in the system temp: 'nobody' reaches it
        root = Path(folder)
        path = root / "history.sqlite3"
        monkeypatch.setenv(HISTORY_ENV, str(path))
        # Run #1, and all that the commands import ('nobody' cannot read root's Python)
        assert main(["train", "--steps", "2", "--batch-size", "32", "--json"]) == 0
        main(["runs", "list"])
        with RunStore(path) as store:
            assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert sorted(p.name for p in root.iterdir()) == ["history.sqlite3", "runs"]
        path.chmod(0o444)
        root.chmod(0o555)
        before = _digest(path)
        capsys.readouterr()
        try:
            os.seteuid(65534) if os.geteuid() == 0 else None
            assert main(["runs", "list", "--json"]) == 0, capsys.readouterr().err
            assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [1]
            assert main(["train", "--steps", "2", "--batch-size", "32"]) == 0
            err = capsys.readouterr().err
            assert err.count("warning: the run history") == 1
            assert (f"warning: the run history {path} is read-only here: its folder {root} "
                    "is not writable (check its permissions, or set MPSTUDIO_HISTORY to a "
                    "file in a folder you can write); this session's runs are not kept"
                    in " ".join(err.split()))
            assert "damaged" not in err and "saved in the run history" not in err
        finally:
            if os.geteuid() != os.getuid():
                os.seteuid(0)
            root.chmod(0o755)
        assert _digest(path) == before
        assert sorted(p.name for p in root.iterdir()) == ["history.sqlite3", "runs"]


def test_a_model_save_killed_midway_is_cleaned_at_the_next_save(tmp_path):
    """A run's kept model is saved to .partial-PID-model.keras, then renamed: a kill
    mid-save left that file in the run folder for good. The next save there removes
    what a process that is gone left; a live writer's file stays."""
    import keras

    from mpstudio.engine.history.run_models import keep_model, run_folder

    history = tmp_path / "history.sqlite3"
    folder = run_folder(7, history)
    folder.mkdir(parents=True)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    left = folder / f".partial-{gone.stdout.strip()}-model.keras"  # its writer ended
    left.write_bytes(b"half a zip")
    alive = folder / f".partial-{os.getppid()}-model.keras"  # a writer still at work
    alive.write_bytes(b"being written")
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    kept = keep_model(7, model, history)
    assert kept is not None and kept.is_file()
    assert not left.exists() and alive.exists()
