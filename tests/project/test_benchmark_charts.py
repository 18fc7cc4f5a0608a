"""The chart benchmarks keep working and report their figures (the timing targets
are read from a full run on a quiet machine, not asserted here)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from support.paths import ROOT

NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


def test_chart_benchmark_runs_and_prints_its_figures():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "chart_update.py"), "--quick"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    events = re.search(rf"^events: (\d+) in {NUMBER} s \({NUMBER} events/s\)$", out, re.M)
    redraws = re.search(rf"^redraws: (\d+) in {NUMBER} s = {NUMBER} redraws/s$", out, re.M)
    stall = re.search(rf"^event-loop worst stall: {NUMBER} ms \(10 ms probe\)$", out, re.M)
    memory = re.search(r"^memory: (\d+) points held for (\d+) events$", out, re.M)
    assert events and redraws and stall and memory, out
    assert int(events.group(1)) == 50_000 and float(events.group(3)) > 0
    assert int(redraws.group(1)) > 0 and float(redraws.group(3)) > 0
    assert float(stall.group(1)) >= 0
    assert int(memory.group(1)) > 0 and int(memory.group(2)) == 50_000


def test_run_start_benchmark_runs_and_prints_each_phase():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "chart_run_start.py"), "--cycles", "2"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    phases = re.findall(rf"^ *(.+): stall +{NUMBER} \(.+\) +cpu +{NUMBER} \(.+\)$",
                        proc.stdout, re.M)
    assert [p[0] for p in phases] == ["clear (Run clicked)", "run 1 started",
                                      "run 1 first steps", "run 2 started",
                                      "run 2 first steps"], proc.stdout
