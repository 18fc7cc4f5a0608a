"""What the gradient-underflow view costs: a run's steady throughput with the view
sampling every N steps, as a ratio of the same run with it off.

Both sides train the same spec (mixed_float16, the same seed and data) in one
process, alternating which goes first each round; the ratio is the median over
rounds of (examples/s with the view) / (examples/s without). The engine's own
per-sample time (GradientUnderflow.seconds) is printed beside it. TensorFlow runs
with one intra-op and one inter-op thread for steadier numbers on small machines
(``--threads 0`` keeps its defaults).

    python benchmarks/underflow_cost.py                  # every 10 and 50 steps, 3 rounds
    python benchmarks/underflow_cost.py --every 20 --rounds 5 --template cnn
"""

from __future__ import annotations

import argparse
import os
import statistics

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf

from mpstudio.engine.events import CollectingReporter, GradientUnderflow
from mpstudio.engine.spec import RunSpec, TrainingAids
from mpstudio.engine.trainer.runner import run


def throughput(spec: RunSpec) -> tuple[float, list[float]]:
    reporter = CollectingReporter()
    result = run(spec, reporter)
    samples = [e.seconds for e in reporter.of_type(GradientUnderflow)]
    return result.summary.steady_examples_per_sec or float("nan"), samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--template", default="mlp")
    parser.add_argument("--dataset", default="digits")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    base = RunSpec(dataset=args.dataset, template=args.template, precision="mixed_float16",
                   epochs=args.epochs, batch_size=args.batch_size, log_every_steps=10)
    print(f"{args.template} on {args.dataset}, mixed_float16, batch {args.batch_size}, "
          f"{args.epochs} epochs, {args.rounds} rounds (alternating order)")
    for every in args.every:
        viewed = base.replace(aids=TrainingAids(underflow_every=every))
        ratios, costs = [], []
        for round_ in range(args.rounds):
            pair = [("off", base), ("on", viewed)]
            if round_ % 2:
                pair.reverse()
            speeds = {}
            for name, spec in pair:
                speeds[name], samples = throughput(spec)
                costs += samples[1:]  # the first sample traces the probe
            ratios.append(speeds["on"] / speeds["off"])
        cost = statistics.median(costs) * 1000 if costs else float("nan")
        print(f"every {every:>4} steps: throughput ratio with/without = "
              f"{statistics.median(ratios):.3f} (rounds: "
              f"{', '.join(f'{r:.3f}' for r in ratios)}); {cost:.1f} ms per sample")


if __name__ == "__main__":
    main()
