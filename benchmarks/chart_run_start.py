"""What a run's start costs the window's thread in the live charts.

A user clicks Run: the charts are cleared; the engine says the run started; its first
steps arrive; in a comparison the second run starts and its steps arrive. This plays
that cycle again and again (a float32 baseline with mixed_float16, then a single
mixed_bfloat16 run, so that some starts reuse curves under the same names and some
under others) into a shown ``LiveCharts`` (offscreen), and measures for each phase:

- the worst stall of the event loop (a 5 ms timer's lateness: what a user feels), and
- the CPU time the GUI thread spent (``time.thread_time``: much less noisy than the
  stall on a loaded machine, since time waiting for a core is not counted).

Medians and ranges over the cycles (the first, which builds the charts, is left out).

    python benchmarks/chart_run_start.py              # 12 cycles
    python benchmarks/chart_run_start.py --cycles 3   # a quick look
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ (not shipped)

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from devtools.chart_demo import synthetic_run
from devtools.latency_probe import LatencyProbe
from mpstudio.ui.charts.live_charts import LiveCharts

SETTLE_MS = 250  # after each phase: some six redraw ticks


def spin(ms: int) -> None:
    """Run the event loop for ``ms`` (idle in it, not polling: the CPU time is the work)."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def phase(action: Callable[[], object]) -> tuple[float, float]:
    """(worst stall ms, GUI-thread CPU ms) of ``action`` and the ticks after it."""
    probe = LatencyProbe(5)
    probe.start()
    cpu = time.thread_time()
    action()
    spin(SETTLE_MS)
    cpu = time.thread_time() - cpu
    probe.stop()
    return probe.worst * 1000, cpu * 1000


def cycle(charts: LiveCharts, seed: int) -> dict[str, tuple[float, float]]:
    if seed % 2:
        runs = [list(synthetic_run("mixed_bfloat16", "mixed_bfloat16", loss_scale=None,
                                   seed=seed))]
    else:
        runs = [list(synthetic_run("float32 baseline", "float32", loss_scale=None, seed=seed)),
                list(synthetic_run("mixed_float16", seed=seed + 1))]
    out = {"clear (Run clicked)": phase(charts.clear)}  # the last cycle's runs are there
    for i, events in enumerate(runs, start=1):
        out[f"run {i} started"] = phase(partial(charts.add_events, events[:1]))
        out[f"run {i} first steps"] = phase(partial(charts.add_events, events[1:6]))
        charts.add_events(events[6:])
        charts.finish()
        spin(SETTLE_MS)  # its last redraw is painted before the next phase is measured
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=12)
    args = parser.parse_args(argv)
    _app = QApplication.instance() or QApplication(sys.argv[:1])  # kept for the whole run
    charts = LiveCharts()
    charts.resize(820, 560)  # the charts' share of a 1280x720 window
    charts.show()
    spin(200)
    rows = [cycle(charts, seed) for seed in range(args.cycles + 1)][1:]
    names = list(dict.fromkeys(name for row in rows for name in row))
    print(f"{len(rows)} cycles; per phase: worst stall, then GUI-thread CPU "
          "(median, range in brackets), ms")
    for name in names:
        stalls = [row[name][0] for row in rows if name in row]
        cpus = [row[name][1] for row in rows if name in row]
        print(f"{name:>22}: stall {statistics.median(stalls):5.0f} "
              f"({min(stalls):.0f}-{max(stalls):.0f})   cpu {statistics.median(cpus):5.1f} "
              f"({min(cpus):.1f}-{max(cpus):.1f})", flush=True)
    charts.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
