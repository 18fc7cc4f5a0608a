"""How long from launching `mpstudio` to a visible window (target: under 2 s).

Runs the real command in a fresh process a few times (offscreen) and prints the
wall time from the launch to the window's "visible" line, which the app prints
before TensorFlow starts loading.

    .venv/bin/python benchmarks/startup_time.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def launch_once() -> tuple[float, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", MPSTUDIO_EXIT_AFTER_SHOW="1")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mpstudio"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("window visible after"):
            visible = time.perf_counter() - start
            in_process = float(line.split()[3])
            proc.wait(timeout=60)
            return visible, in_process
    raise SystemExit(f"the app never printed its visible line (exit code {proc.wait()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    walls = []
    for i in range(args.runs):
        wall, inside = launch_once()
        walls.append(wall)
        print(f"run {i + 1}: window visible {wall:.2f} s after launch "
              f"({inside:.2f} s of it building and showing the window)")
    print(f"median: {statistics.median(walls):.2f} s, worst: {max(walls):.2f} s "
          f"(target: under 2 s)")


if __name__ == "__main__":
    main()
