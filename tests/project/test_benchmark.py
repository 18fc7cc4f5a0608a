"""The overhead benchmark keeps working (its ratio is read from a full run, not here)."""

from __future__ import annotations

import re
import subprocess
import sys

from support.paths import ROOT


def test_overhead_benchmark_runs_and_prints_a_ratio():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine_overhead.py"), "--quick"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    match = re.search(r"engine/plain throughput ratio: ([0-9.]+)", proc.stdout)
    assert match and float(match.group(1)) > 0
    assert "round 1: plain fit" in proc.stdout
    cost = re.search(r"engine bookkeeping: ([0-9.]+) us per step \+ ([0-9.]+) ms per sample",
                     proc.stdout)
    assert cost and float(cost.group(1)) > 0 and float(cost.group(2)) > 0


def test_compare_vs_plain_benchmark_runs_both_sides_and_prints_the_ratios(tmp_path):
    """Both programs run (mpstudio compare in a scratch history, the plain Keras A/B)
    and each figure's ratio is printed; the 5% target is read from a full run."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compare_vs_plain.py"), "--quick"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "round 1: speedup mpstudio" in proc.stdout
    for figure in ("speedup", "float32", "mixed"):
        match = re.search(rf"  {figure} +([0-9.]+) \(", proc.stdout)
        assert match and float(match.group(1)) > 0, proc.stdout
    assert not list(tmp_path.iterdir())  # the scratch history went with its folder
