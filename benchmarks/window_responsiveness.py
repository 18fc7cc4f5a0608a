"""How the window's event loop keeps up while the engine process works and while the
user changes the window, and how fast Stop ends a run. The window is the real one
(offscreen), driven as a user would.

Phases, one after another (--phases picks some; export needs compare):
- compare: a resnet comparison (float32 baseline, then mixed_float16) on digits;
- export: File > Export model to every format, of the mixed run just trained, through
  the dialog's Export button; besides the whole phase, the worst stall in the second
  after the click (the dialog turns busy) and after the results arrive (their page);
- theme: View > Theme > Dark, then > Light: each switch and the repaint after it;
- measure: Hardware > Measure (float32/float16/bfloat16 kernels);
- finder: Run > Find the largest batch, Start: the engine restart, until the search
  runs in the fresh engine (then it is stopped);
- kill: a kill -9 of the engine process mid-run, until the window has noticed, said
  so, and a fresh engine is ready;
- stops: Stop mid-epoch, several times: from the click to the run's end;
- first-step: Stop while a resnet run builds and traces its first step: from the
  click to the end, through Stop now when the run has not stopped 3 s after Stop; then
  how soon Run is available again, and the fresh engine ready.

A 10 ms timer records how late each tick of the event loop ran: the worst is what a
user feels as a frozen window (the target is under 50 ms). On a 2-core machine the
engine process competes with the window for the cores; it no longer shares a GIL.
"own work" is the longest the window's thread computed between two ticks (its CPU
time): what is left of a stall once the waits for a busy core are taken out.
--trace FILE writes there the Python stacks of every stall over 45 ms (faulthandler).

    python benchmarks/window_responsiveness.py           # about 5 minutes on 2 cores
    python benchmarks/window_responsiveness.py --quick   # mlp instead of resnet
    python benchmarks/window_responsiveness.py --quick --phases compare,export,theme,finder,kill
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ (not shipped)

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from devtools.gui_driving import select, wait_until
from devtools.latency_probe import LatencyProbe
from devtools.stall_tracer import StallTracer
from mpstudio.ui.window.main_window import MainWindow

TARGET_MS = 50.0
PHASES = ("compare", "export", "theme", "measure", "finder", "kill", "stops", "first-step")
SETTLE_S = 1.0  # after a theme switch: the repaint and anything queued behind it
tracer: StallTracer | None = None


def stall_line(name: str, probe: LatencyProbe, seconds: float) -> str:
    lates = sorted(probe.lates) or [0.0]
    p99 = lates[min(len(lates) - 1, int(0.99 * len(lates)))]
    over = sum(1 for late in lates if late * 1000 > TARGET_MS)
    return (f"{name}: {seconds:.1f} s, {len(lates)} ticks, worst stall "
            f"{probe.worst * 1000:.0f} ms (own work {probe.worst_work * 1000:.0f} ms), "
            f"p99 {p99 * 1000:.0f} ms, {over} ticks over {TARGET_MS:.0f} ms")


def probed(app: QApplication, name: str, start: Callable[[], object],
           done: Callable[[], bool], seconds: float) -> tuple[LatencyProbe, float]:
    """Run ``start`` and wait for ``done`` under a probe; (probe, seconds taken)."""
    if tracer is not None:
        tracer.note(name)
    probe = LatencyProbe(10)
    probe.start()
    began = time.perf_counter()
    start()
    wait_until(app, done, seconds, name)
    probe.stop()
    return probe, time.perf_counter() - began


def measured(app: QApplication, name: str, start: Callable[[], object],
             done: Callable[[], bool], seconds: float) -> str:
    probe, taken = probed(app, name, start, done, seconds)
    return stall_line(name, probe, taken)


def for_a_while(seconds: float) -> Callable[[], bool]:
    """A ``done`` that is true ``seconds`` after it is first asked (after ``start``)."""
    began: list[float] = []

    def done() -> bool:
        if not began:
            began.append(time.perf_counter())
        return time.perf_counter() - began[0] > seconds

    return done


def export_phase(app: QApplication, w: MainWindow, folder: Path) -> None:
    print(measured(app, "File > Export model (the dialog opens)",
                   w.window_actions.export_model.trigger,
                   for_a_while(SETTLE_S), 30), flush=True)
    dialog = w.exports.dialog
    assert dialog is not None  # Export model opened it
    dialog.folder_edit.setText(str(folder))
    dialog.name_edit.setText("model")
    for check in dialog.checks.values():
        if check.isEnabled():
            check.setChecked(True)
    arrived: list[float] = []
    show_outcomes = dialog.show_outcomes

    def outcomes_arrive(*args: Any, **kwargs: Any) -> None:
        arrived.append(time.perf_counter())
        show_outcomes(*args, **kwargs)

    dialog.show_outcomes = outcomes_arrive  # type: ignore[method-assign]
    clicked = time.perf_counter()
    probe, taken = probed(app, "export to every format", dialog.export_button.click,
                          lambda: w.exports.job is None and bool(arrived)
                          and time.perf_counter() > arrived[0] + 1, 900)
    app.processEvents()
    results = dialog.result_lines()
    print(f"{stall_line('export to every format', probe, taken)} "
          f"({sum(r.endswith('· OK') for r in results)} of {len(results)} formats OK)",
          flush=True)
    for what, when in (("Export clicked", clicked), ("results shown", arrived[0])):
        late, work = probe.worst_between(when, when + 1)
        print(f"export, {what}: worst stall {late * 1000:.0f} ms (own work "
              f"{work * 1000:.0f} ms) in the next second", flush=True)
    dialog.close()


def theme_phase(app: QApplication, w: MainWindow) -> None:
    for theme in ("dark", "light"):
        action = w.view_menu.theme_actions[theme]
        print(measured(app, f"View > Theme > {theme.title()}", action.trigger,
                       for_a_while(SETTLE_S), 30), flush=True)


def finder_phase(app: QApplication, w: MainWindow) -> None:
    finder = w.batch_finder
    dialog = finder.open()
    dialog.tries.setValue(2)
    wait_until(app, for_a_while(0.5), 5, "the dialog")
    old_pid = w.engine.pid
    print(measured(app, "batch finder Start (engine restart, until the search runs)",
                   dialog.start_button.click,
                   lambda: finder.job is not None and finder.job.state == "running"
                   and w.engine.pid != old_pid, 300), flush=True)
    dialog.stop_button.click()
    wait_until(app, lambda: finder.job is None, 300, "the finder to stop")
    dialog.close()
    wait_until(app, lambda: w.setup.run_button.isEnabled(), 300, "Run again")


def kill_phase(app: QApplication, w: MainWindow, ended: list[str]) -> None:
    select(w.setup.template, "mlp")
    w.setup.baseline.setChecked(False)
    w.setup.epochs.setValue(500)
    ended.clear()
    w.setup.run_button.click()
    wait_until(app, lambda: w.runs.progress.step > 50, 300, "the run's steps")
    pid = w.engine.pid
    assert pid is not None
    print(measured(app, "kill -9 of the engine mid-run (until a fresh engine is ready)",
                   lambda: os.kill(pid, signal.SIGKILL),
                   lambda: bool(ended) and w.engine.pid not in (None, pid)
                   and w.engine.ready_now and w.setup.run_button.isEnabled(), 300),
          flush=True)
    print(f"  the run ended as: {ended[-1]}", flush=True)


def stops_phase(app: QApplication, w: MainWindow, ended: list[str], stops: int) -> None:
    select(w.setup.template, "mlp")
    w.setup.baseline.setChecked(False)
    w.setup.epochs.setValue(500)
    latencies = []
    for _ in range(stops):
        ended.clear()
        w.setup.run_button.click()
        wait_until(app, lambda: w.runs.progress.step > 50, 300, "the run's steps")
        clicked = time.perf_counter()
        w.setup.stop_button.click()
        wait_until(app, lambda: bool(ended), 60, "the stop")
        latencies.append(time.perf_counter() - clicked)
        wait_until(app, lambda: w.setup.run_button.isEnabled(), 60, "Run again")
    print(f"Stop mid-epoch (mlp, batch 64): click to stopped median "
          f"{statistics.median(latencies) * 1000:.0f} ms (range {min(latencies) * 1000:.0f}-"
          f"{max(latencies) * 1000:.0f} ms, {len(latencies)} stops: "
          f"{', '.join(f'{t * 1000:.0f}' for t in latencies)} in order)", flush=True)


def first_step_phase(app: QApplication, w: MainWindow, ended: list[str],
                     template: str) -> None:
    select(w.setup.template, template)
    ended.clear()
    w.setup.run_button.click()
    wait_until(app, lambda: w.runs.progress.runs_started > 0, 300, "the run to start")
    clicked = time.perf_counter()
    w.setup.stop_button.click()  # the model is built; the first step is being traced
    wait_until(app, lambda: bool(ended) or w.state.run == "stuck", 120, "the stop")
    if ended:
        print(f"Stop during the first step ({template}): stopped after "
              f"{time.perf_counter() - clicked:.2f} s, without Stop now", flush=True)
    else:
        offered = time.perf_counter() - clicked
        w.setup.stop_button.click()  # Stop now
        wait_until(app, lambda: bool(ended), 60, "Stop now")
        print(f"Stop during the first step ({template}): Stop now offered after "
              f"{offered:.2f} s; stopped {time.perf_counter() - clicked - offered:.2f} s "
              f"after Stop now ({ended[-1]})", flush=True)
    ended_at = time.perf_counter()
    wait_until(app, lambda: w.setup.run_button.isEnabled(), 300, "Run to be available")
    available = time.perf_counter() - ended_at
    wait_until(app, lambda: w.state.ready, 300, "a fresh engine")
    print(f"  after that stop: Run available {available * 1000:.0f} ms after the run "
          f"ended; the fresh engine ready {time.perf_counter() - ended_at:.1f} s after "
          f"(a run started before then waits in it)", flush=True)


def main(argv: list[str] | None = None) -> int:
    global tracer
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="mlp, fewer repeats")
    parser.add_argument("--stops", type=int, default=5, help="mid-epoch stops to time")
    parser.add_argument("--phases", default=",".join(PHASES),
                        help=f"comma-separated, of {', '.join(PHASES)}")
    parser.add_argument("--trace", metavar="FILE", help="Python stacks of stalls over 45 ms")
    args = parser.parse_args(argv)
    phases = set(args.phases.split(","))
    unknown = phases - set(PHASES)
    if unknown:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if "export" in phases:
        phases.add("compare")  # it exports the comparison's mixed run
    template = "mlp" if args.quick else "resnet"
    folder = Path(tempfile.mkdtemp(prefix="mpstudio-bench-"))
    os.environ.setdefault("MPSTUDIO_HISTORY", str(folder / "history.sqlite3"))
    os.environ.setdefault("MPSTUDIO_DATA_DIR", str(folder / "data"))
    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(sys.argv[:1])
    w = MainWindow(QSettings(str(folder / "window.ini"), QSettings.Format.IniFormat))
    w.confirm_close = lambda: True
    w.resize(1280, 720)
    w.show()
    trace_file = open(args.trace, "w") if args.trace else None  # noqa: SIM115
    if trace_file is not None:
        tracer = StallTracer(trace_file)
        tracer.start()
    began = time.perf_counter()
    w.start_background()
    wait_until(app, lambda: w.hardware_jobs.check is not None and w.setup.run_button.isEnabled(),
               300, "the engine")
    print(f"engine ready and hardware checked {time.perf_counter() - began:.1f} s after "
          f"start (engine pid {w.engine.pid})", flush=True)
    ended: list[str] = []
    w.run_ended.connect(ended.append)

    select(w.setup.dataset.combo, "digits")
    select(w.setup.template, template)
    select(w.setup.precision, "mixed_float16")
    w.setup.epochs.setValue(2)
    w.setup.batch_size.setValue(64)
    if "compare" in phases:
        w.setup.baseline.setChecked(True)
        print(measured(app, f"{template} comparison", w.setup.run_button.click,
                       lambda: bool(ended), 900), flush=True)
        assert ended == ["finished"], w.banner.text()
    if "export" in phases:
        export_phase(app, w, folder)
    if "theme" in phases:
        theme_phase(app, w)
    if "measure" in phases:
        print(measured(app, "Hardware > Measure", lambda: w.hardware_jobs.run_check(True, 0.5),
                       lambda: not w.state.measuring, 900), flush=True)
    if "finder" in phases:
        finder_phase(app, w)
    if "kill" in phases:
        kill_phase(app, w, ended)
    if "stops" in phases:
        stops_phase(app, w, ended, args.stops)
    if "first-step" in phases:
        first_step_phase(app, w, ended, template)
    if tracer is not None:
        tracer.stop()
    w.close()
    wait_until(app, lambda: w._closed, 60, "the window to close")
    if trace_file is not None:
        trace_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
