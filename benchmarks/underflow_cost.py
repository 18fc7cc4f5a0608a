"""What the gradient-underflow view costs: a run's steady throughput with the view
sampling every N steps, as a ratio of the same run with it off.

Both sides train the same spec (mixed_float16, the same seed and data) in one
process, alternating which goes first each round; the ratio is the median over
rounds of (examples/s with the view) / (examples/s without). On a small shared
machine that ratio is noisy (whole runs vary by +-20% here), so the overhead is
also given from inside the runs with the view: the median time of one sample
(GradientUnderflow.seconds) over N steady training steps (the run's own step time). TensorFlow runs
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


def throughput(spec: RunSpec) -> tuple[float, float, list[float]]:
    """(steady examples/s, steady seconds per step, seconds of each underflow sample)."""
    reporter = CollectingReporter()
    result = run(spec, reporter)
    samples = [e.seconds for e in reporter.of_type(GradientUnderflow)]
    summary = result.summary
    return (summary.steady_examples_per_sec or float("nan"),
            summary.steady_step_time or float("nan"), samples)


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
        ratios, costs, step_times = [], [], []
        for round_ in range(args.rounds):
            pair = [("off", base), ("on", viewed)]
            if round_ % 2:
                pair.reverse()
            speeds = {}
            for name, spec in pair:
                speeds[name], step_time, samples = throughput(spec)
                if name == "on":
                    costs += samples[1:]  # the first sample traces the probe
                    step_times.append(step_time)
            ratios.append(speeds["on"] / speeds["off"])
        cost = statistics.median(costs) if costs else float("nan")
        share = cost / (every * statistics.median(step_times))
        print(f"every {every:>4} steps: {1000 * cost:.1f} ms per sample, "
              f"{1000 * statistics.median(step_times):.2f} ms per step: overhead "
              f"{share:.1%} of training time; paired-run throughput ratio "
              f"{statistics.median(ratios):.3f} (rounds: "
              f"{', '.join(f'{r:.3f}' for r in ratios)})")


if __name__ == "__main__":
    main()
