"""Does `mpstudio compare` report the speed a plain Keras script measures?

Each round runs, in fresh processes and in alternating order:
- mpstudio: `mpstudio compare --dataset synthetic ... --repeats T --json` (a scratch
  history), read from its card: both sides' median steady examples/s and the
  median speedup over the trial pairs;
- plain: benchmarks/plain_keras_ab.py, an independent hand-written Keras A/B of the
  same model, data, batch, optimizer and steps (T alternating trials a side), with
  the same medians.
It prints each round's three ratios mpstudio / plain (speedup, float32 examples/s,
mixed examples/s), then their medians with the lowest and highest round. Within 5%
(0.95-1.05) is the target.

    python benchmarks/compare_vs_plain.py                   # 5 rounds, about 6 minutes on 2 cores
    python benchmarks/compare_vs_plain.py --threads 1       # one TF thread a pool: less noise
    python benchmarks/compare_vs_plain.py --quick           # smoke run (used by the tests)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = 0.05


def _env(threads: int, history: Path) -> dict[str, str]:
    env = dict(os.environ, MPSTUDIO_HISTORY=str(history), TF_CPP_MIN_LOG_LEVEL="3")
    if threads:  # TensorFlow reads these for its pools (process_util.cc)
        env["TF_NUM_INTRAOP_THREADS"] = env["TF_NUM_INTEROP_THREADS"] = str(threads)
    return env


def mpstudio_side(args: argparse.Namespace, env: dict[str, str]) -> dict[str, float]:
    command = [sys.executable, "-m", "mpstudio", "compare", "--dataset", "synthetic",
               "--synthetic-shape", args.shape, "--template", "mlp", "--precision",
               "mixed_float16", "--steps", str(args.steps), "--batch-size",
               str(args.batch_size), "--repeats", str(args.trials), "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"mpstudio compare failed ({done.returncode}): {done.stderr[-2000:]}")
    card = json.loads(done.stdout)["card"]
    return {"speedup": card["speedup"]["median"],
            "float32": card["baseline"]["examples_per_sec"]["median"],
            "mixed": card["mixed"]["examples_per_sec"]["median"]}


def plain_side(args: argparse.Namespace, env: dict[str, str]) -> dict[str, float]:
    command = [sys.executable, str(HERE / "plain_keras_ab.py"), "--shape", args.shape,
               "--steps", str(args.steps), "--batch-size", str(args.batch_size),
               "--trials", str(args.trials)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the plain script failed ({done.returncode}): {done.stderr[-2000:]}")
    trials = json.loads(done.stdout.strip().splitlines()[-1])
    base, mixed = trials["float32"], trials["mixed_float16"]
    return {"speedup": statistics.median(m / b for b, m in zip(base, mixed, strict=True)),
            "float32": statistics.median(base), "mixed": statistics.median(mixed)}


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f}, "
            f"{len(values)} rounds)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=3, help="per side, in each program")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--shape", default="32,32,3")
    parser.add_argument("--threads", type=int, default=0,
                        help="TensorFlow intra- and inter-op threads for both (0: defaults)")
    parser.add_argument("--quick", action="store_true", help="1 round, 1 trial, 40 steps")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.trials, args.steps = 1, 1, 40
    ratios: dict[str, list[float]] = {"speedup": [], "float32": [], "mixed": []}
    print(f"mlp on synthetic {args.shape}, batch {args.batch_size}, {args.steps} steps, "
          f"{args.trials} trials a side, threads {args.threads or 'default'}")
    with tempfile.TemporaryDirectory() as scratch:
        env = _env(args.threads, Path(scratch) / "history.sqlite3")
        for r in range(args.rounds):
            sides = [("mpstudio", mpstudio_side), ("plain", plain_side)]
            if r % 2:
                sides.reverse()  # a drift of the machine hits both sides alike
            got = {name: measure(args, env) for name, measure in sides}
            mp, plain = got["mpstudio"], got["plain"]
            for key in ratios:
                ratios[key].append(mp[key] / plain[key])
            print(f"round {r + 1}: speedup mpstudio {mp['speedup']:.3f} plain "
                  f"{plain['speedup']:.3f} | float32 ex/s {mp['float32']:,.0f} vs "
                  f"{plain['float32']:,.0f} | mixed ex/s {mp['mixed']:,.0f} vs "
                  f"{plain['mixed']:,.0f}", flush=True)
    print("mpstudio / plain, median (lowest-highest round):")
    worst = 0.0
    for key, values in ratios.items():
        print(f"  {key:8s} {spread(values)}")
        worst = max(worst, abs(statistics.median(values) - 1.0))
    print(f"largest median gap {100 * worst:.1f}% (target within {100 * TARGET:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
