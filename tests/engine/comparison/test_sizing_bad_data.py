"""A sized comparison (the default) on data the run refuses: it says so as quickly, and
in as little memory, as one with --sizing off. Sizing built and costed the model under
each precision before the run's checks: on 2 examples of 512x512x3 the mlp's weights
alone are 3 GB, and the process grew past 6 GB before the refusal came."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from support.user_data_files import write_npz

MOST_RSS_MIB = 2500  # TensorFlow and the data: well under the 3 GB the weights would take


def _compare(data, tmp_path, *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``mpstudio compare`` in a process of its own: its result and its peak RSS (MiB)."""
    env = dict(os.environ, MPSTUDIO_HISTORY=str(tmp_path / "history.sqlite3"),
               MPSTUDIO_LANG="en")
    script = ("import resource, subprocess, sys\n"
              "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
              "sys.stdout.write(f'{done.returncode}\\n{peak}\\n{done.stderr}')\n")
    probe = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "mpstudio",
                            "compare", "--dataset", str(data), "--template", "mlp", *extra],
                           capture_output=True, text=True, env=env, timeout=300)
    code, peak, stderr = probe.stdout.split("\n", 2)
    done = subprocess.CompletedProcess(probe.args, int(code), "", stderr)
    return done, int(peak) / 1024


def test_data_fewer_than_a_batch_is_refused_before_sizing_builds_the_model(tmp_path):
    rng = np.random.default_rng(0)
    data = write_npz(tmp_path / "two.npz",
                     x=rng.integers(0, 255, (2, 512, 512, 3), dtype=np.uint8),
                     y=np.array([0, 1]))
    sized, sized_peak = _compare(data, tmp_path)
    plain, _plain_peak = _compare(data, tmp_path, "--sizing", "off")
    assert plain.returncode == sized.returncode != 0
    last = [line for line in sized.stderr.splitlines() if "error" in line]
    assert last and last[-1] == [line for line in plain.stderr.splitlines()
                                 if "error" in line][-1], (sized.stderr, plain.stderr)
    assert sized_peak < MOST_RSS_MIB, f"peak {sized_peak:.0f} MiB"
