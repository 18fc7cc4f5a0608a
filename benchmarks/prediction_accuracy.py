"""The prediction against a measured comparison on this machine: for each template at
each batch, `mpstudio predict --device this --json` beside `mpstudio compare` (float32
and the half precision, synthetic 32x32x3 images, a step budget), under TensorFlow's
counting CPU allocator so the peak is measured too. Prints, per row, the predicted and
measured speedup, their ratio, and the predicted and measured peak of the half side.

    python benchmarks/prediction_accuracy.py                       # bfloat16, 256 and 2048
    python benchmarks/prediction_accuracy.py --precision mixed_float16 --batches 256
    python benchmarks/prediction_accuracy.py --templates mlp cnn --steps 30

Each comparison is a fresh process (one after the other, never two at once: they are
timed); the history goes to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

TEMPLATES = ("mlp", "mlp_bn", "cnn", "resnet", "transformer", "lstm")
DATA = ["--dataset", "synthetic", "--synthetic-shape", "32,32,3", "--synthetic-classes", "10"]


def mpstudio(*args: str, env: dict[str, str], timeout: float) -> dict:
    done = subprocess.run([sys.executable, "-m", "mpstudio", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--templates", nargs="+", default=list(TEMPLATES))
    parser.add_argument("--batches", nargs="+", type=int, default=[256, 2048])
    parser.add_argument("--precision", default="mixed_bfloat16")
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="mpstudio-prediction-")
    env = {**os.environ, "MPSTUDIO_LANG": "en", "TF_CPU_ALLOCATOR_USE_BFC": "true",
           "MPSTUDIO_HISTORY": os.path.join(folder, "history.sqlite3")}
    print(f"{'template':12} {'batch':>5}  {'predicted':>9} {'measured':>9} {'ratio':>6}"
          f"  {'peak predicted':>14} {'measured':>9} {'ratio':>6}", flush=True)
    for template in args.templates:
        for batch in args.batches:
            try:
                predicted = mpstudio("predict", "--template", template, "--batch-size",
                                     str(batch), "--input-shape", "32,32,3", "--json",
                                     env=env, timeout=args.timeout)
                card = mpstudio("compare", "--template", template, "--precision",
                                args.precision, "--batch-size", str(batch), "--steps",
                                str(args.steps), *DATA, "--synthetic-samples",
                                str(batch * 4), "--json", env=env, timeout=args.timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                print(f"{template:12} {batch:>5}  {exc}", flush=True)
                continue
            half = predicted["predictions"][args.precision]
            measured = card.get("speedup")
            peak = card["card"]["mixed"]["peak_memory_bytes"]["median"]
            ratio = f"{half['speedup'] / measured:6.2f}" if measured else "   n/a"
            peak_ratio = f"{half['peak_bytes'] / peak:6.2f}" if peak else "   n/a"
            print(f"{template:12} {batch:>5}  {half['speedup']:9.2f} "
                  f"{measured if measured is not None else float('nan'):9.2f} {ratio}  "
                  f"{half['peak_bytes'] / 2**20:11.1f} MiB "
                  f"{(peak or 0) / 2**20:5.1f} MiB {peak_ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
