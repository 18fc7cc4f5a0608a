"""How the window's event loop keeps up while the engine process works, and how fast
Stop ends a run. The window is the real one (offscreen), driven as a user would.

Phases, one after another:
- a resnet comparison (float32 baseline, then mixed_float16) on digits;
- File > Export model to every format, of the mixed run just trained;
- Hardware > Measure (float32/float16/bfloat16 kernels);
- Stop mid-epoch, several times: from the click to the run's end;
- Stop while a resnet run builds and traces its first step: from the click to the
  end, through Stop now when the run has not stopped 3 s after Stop.

A 10 ms timer records how late each tick of the event loop ran: the worst is what a
user feels as a frozen window (the target is under 50 ms). On a 2-core machine the
engine process competes with the window for the cores; it no longer shares a GIL.

    python benchmarks/window_responsiveness.py           # about 3-4 minutes on 2 cores
    python benchmarks/window_responsiveness.py --quick   # mlp instead of resnet
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ (not shipped)

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from devtools.gui_driving import select, wait_until
from devtools.latency_probe import LatencyProbe
from mpstudio.ui.window.main_window import MainWindow

TARGET_MS = 50.0


def stall_line(name: str, probe: LatencyProbe, seconds: float) -> str:
    lates = sorted(probe.lates) or [0.0]
    p99 = lates[min(len(lates) - 1, int(0.99 * len(lates)))]
    over = sum(1 for late in lates if late * 1000 > TARGET_MS)
    return (f"{name}: {seconds:.1f} s, {len(lates)} ticks, worst stall "
            f"{probe.worst * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
            f"{over} ticks over {TARGET_MS:.0f} ms")


def measured(app: QApplication, name: str, start, done, seconds: float) -> str:
    probe = LatencyProbe(10)
    probe.start()
    began = time.perf_counter()
    start()
    wait_until(app, done, seconds, name)
    probe.stop()
    return stall_line(name, probe, time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="mlp, fewer repeats")
    parser.add_argument("--stops", type=int, default=5, help="mid-epoch stops to time")
    args = parser.parse_args(argv)
    template = "mlp" if args.quick else "resnet"
    folder = Path(tempfile.mkdtemp(prefix="mpstudio-bench-"))
    os.environ.setdefault("MPSTUDIO_HISTORY", str(folder / "history.sqlite3"))
    os.environ.setdefault("MPSTUDIO_DATA_DIR", str(folder / "data"))
    app = QApplication.instance() or QApplication(sys.argv[:1])
    w = MainWindow(QSettings(str(folder / "window.ini"), QSettings.Format.IniFormat))
    w.confirm_close = lambda: True
    w.resize(1280, 720)
    w.show()
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
    w.setup.baseline.setChecked(True)
    print(measured(app, f"{template} comparison", w.setup.run_button.click,
                   lambda: bool(ended), 900), flush=True)
    assert ended == ["finished"], w.banner.text()

    w.actions.export_model.trigger()
    dialog = w.exports.dialog
    dialog.folder_edit.setText(str(folder))
    dialog.name_edit.setText("model")
    for check in dialog.checks.values():
        check.setChecked(True)
    line = measured(app, "export to every format",
                    lambda: w.exports.start_export(dialog.requests()),
                    lambda: w.exports.job is None, 900)
    results = dialog.result_lines()
    print(f"{line} ({sum(r.endswith('· OK') for r in results)} of {len(results)} formats OK)",
          flush=True)
    dialog.close()

    print(measured(app, "Hardware > Measure", lambda: w.hardware_jobs.run_check(True, 0.5),
                   lambda: not w.state.measuring, 900), flush=True)

    select(w.setup.template, "mlp")
    w.setup.baseline.setChecked(False)
    w.setup.epochs.setValue(500)
    latencies = []
    for _ in range(args.stops):
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
          f"{max(latencies) * 1000:.0f} ms, {len(latencies)} stops)", flush=True)

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
    wait_until(app, lambda: w.setup.run_button.isEnabled(), 300, "a fresh engine")
    w.close()
    wait_until(app, lambda: w._closed, 60, "the window to close")
    return 0


if __name__ == "__main__":
    sys.exit(main())
