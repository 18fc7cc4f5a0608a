"""How the live charts keep up with a flood of step events.

A plain Python thread plays the engine link's reader thread: it hands over a
RunStarted, then N StepMetrics (one per step, the worst case: a real run samples
about 25 times an epoch) with loss-scale changes and an EpochMetrics every 10,000
steps, as fast as it can, into the link's ``Inbox``. The GUI thread drains the
inbox into ``LiveCharts``,
which redraws on its own timer. Meanwhile a 10 ms timer measures how late the
GUI's event loop runs: the worst stall is what a user would feel as a frozen
window.

The fake engine lets go of the GIL for a moment (``time.sleep(0)``) every 10
events, as the real one does whenever it calls into TensorFlow (which runs with
the GIL released). A loop that never lets go (``--yield-every 0``) is harsher
than any real run: each time the GUI thread drops the GIL (NumPy and Qt do, many
times a frame) it waits up to the interpreter's 5 ms switch interval to get it
back, and redraws slow down several times over.

    python benchmarks/chart_update.py                   # 1,000,000 events
    python benchmarks/chart_update.py --events 200000
    python benchmarks/chart_update.py --yield-every 0   # a producer that never yields
    python benchmarks/chart_update.py --quick           # 50,000 events (used by the tests)

Targets: at least 20 redraws a second while events stream in, and no stall of
100 ms or more; the points held stay bounded however many events arrive.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ (not shipped)

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from devtools.chart_demo import synthetic_run
from devtools.latency_probe import LatencyProbe
from mpstudio.engine.events import RunWarning
from mpstudio.ui.charts.live_charts import LiveCharts
from mpstudio.ui.engine_client.inbox import Inbox

TARGET_REDRAWS_PER_SEC = 20.0
TARGET_WORST_STALL_MS = 100.0
PROBE_MS = 10
DONE = RunWarning("benchmark: no more events")  # the charts ignore warnings


def produce(inbox: Inbox, n: int, yield_every: int, pause: float) -> None:
    """The engine's side: every event as fast as Python makes them, letting go of the
    GIL every ``yield_every`` events (0: never)."""
    emit = inbox.put
    events = synthetic_run(
        "mixed_float16", steps=n, steps_per_epoch=10_000, log_every=1, batch_size=256,
        warmup_samples=20, startup_overflows=3, overflow_rate=0.0005, growth_steps=2000,
    )
    for i, event in enumerate(events, start=1):
        emit(event)
        if yield_every and i % yield_every == 0:
            time.sleep(pause)
    emit(DONE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="StepMetrics to send")
    parser.add_argument("--quick", action="store_true", help="50,000 events (a smoke run)")
    parser.add_argument("--yield-every", type=int, default=10, metavar="K",
                        help="the producer releases the GIL every K events (0: never)")
    parser.add_argument("--pause", type=float, default=0.0, metavar="S",
                        help="seconds it sleeps then (0: just lets go of the GIL)")
    args = parser.parse_args(argv)
    n = 50_000 if args.quick else args.events

    app = QApplication.instance() or QApplication(sys.argv)
    charts = LiveCharts()
    charts.resize(1100, 650)
    charts.show()
    inbox = Inbox()  # the engine link's: what the reader thread hands the GUI
    probe = LatencyProbe(PROBE_MS)
    loop = QEventLoop()
    ended: list[float] = []
    redraws_at_end: list[int] = []

    def on_ready() -> None:
        batch = inbox.drain()
        charts.add_events(batch)
        if batch and batch[-1] is DONE:
            ended.append(time.perf_counter())
            redraws_at_end.append(charts.redraws)
            loop.quit()

    inbox.arrived.connect(on_ready)
    producer = threading.Thread(
        target=produce, args=(inbox, n, args.yield_every, args.pause), name="fake-engine"
    )
    app.processEvents()
    started = time.perf_counter()
    probe.start()
    producer.start()
    loop.exec()
    probe.stop()
    producer.join()
    charts.finish()
    held = charts.points_held()
    charts.close()

    seconds = ended[0] - started
    redraws = redraws_at_end[0]
    rate = redraws / seconds
    worst_ms = probe.worst * 1000
    yields = f"every {args.yield_every} events" if args.yield_every else "never"
    print(f"producer: a Python thread, releasing the GIL {yields}")
    print(f"events: {n} in {seconds:.1f} s ({n / seconds:.0f} events/s)")
    print(f"redraws: {redraws} in {seconds:.1f} s = {rate:.1f} redraws/s")
    print(f"event-loop worst stall: {worst_ms:.1f} ms ({PROBE_MS} ms probe)")
    print(f"memory: {held} points held for {n} events")
    ok = rate >= TARGET_REDRAWS_PER_SEC and worst_ms < TARGET_WORST_STALL_MS
    print(
        f"targets: >= {TARGET_REDRAWS_PER_SEC:.0f} redraws/s, worst stall < "
        f"{TARGET_WORST_STALL_MS:.0f} ms: {'met' if ok else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
