"""What it costs that the replicas agree on an overflow: the time of one mirrored
mixed_float16 training step with the agreement (one scalar all-reduce and a
multiply of one gradient) against the same step without it (Keras' own per-replica
decision, which applies an overflow on any replica but the first).

Both steps are built once, side by side in one process, over two logical CPU
devices (no GPU here: on GPUs the all-reduce is one more tiny NCCL call per step),
with the engine's own custom loop. They then run in alternating blocks of steps, so
the machine's drift hits both alike; whole runs were too noisy here (a run now and
then 3x slower at random). Reported: the median block's time per step for each, the
median ratio over block pairs and its spread.

    python benchmarks/replica_agreement_cost.py                  # mlp, 30 block pairs
    python benchmarks/replica_agreement_cost.py --template cnn --blocks 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


from mpstudio.engine.distribute.placement import split_cpu

split_cpu(2)  # before TensorFlow's first operation

import keras  # noqa: E402

from mpstudio.engine import precision  # noqa: E402
from mpstudio.engine.datasets import load_dataset  # noqa: E402
from mpstudio.engine.distribute.lr_plan import LearningRatePlan  # noqa: E402
from mpstudio.engine.distribute.placement import place  # noqa: E402
from mpstudio.engine.spec import Distribution, RunSpec  # noqa: E402
from mpstudio.engine.templates import build_model  # noqa: E402
from mpstudio.engine.trainer.custom_loop import CustomLoop  # noqa: E402

AGREE = precision.agree_across_replicas


def training_step(spec: RunSpec, agree: bool):
    """The engine's mirrored custom-loop step, with or without the agreement, warmed up
    (traced); returns a function that runs ``n`` steps and waits for them."""
    placement = place(spec)
    assert placement.strategy is not None  # a mirrored one
    bundle = load_dataset(spec, replicas=placement.replicas)
    plan = LearningRatePlan(spec.learning_rate, placement.replicas, "linear", 0)
    precision.agree_across_replicas = AGREE if agree else (lambda optimizer: optimizer)
    try:
        with placement.strategy.scope():
            keras.utils.set_random_seed(spec.seed)
            model = build_model(spec.template, bundle.input_shape, bundle.num_classes,
                                spec.precision, input_scale=bundle.input_scale)
            optimizer = precision.make_optimizer(spec, plan)
            optimizer.build(model.trainable_variables)
            loop = CustomLoop(model, optimizer, False, placement.strategy, bundle.batch_size)
    finally:
        precision.agree_across_replicas = AGREE
    batches = loop.batches(bundle.train.repeat())

    def run(n: int) -> None:
        for _ in range(n):
            loop.train_step(batches)
        optimizer.iterations.numpy()  # waits for the device

    run(3)  # tracing
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--template", default="mlp")
    parser.add_argument("--blocks", type=int, default=30, help="block pairs")
    parser.add_argument("--steps", type=int, default=40, help="steps per block")
    parser.add_argument("--batch-size", type=int, default=64, help="per replica")
    args = parser.parse_args()
    spec = RunSpec(template=args.template, precision="mixed_float16", batch_size=args.batch_size,
                   validation_split=0.0, dataset="synthetic",
                   distribute=Distribution(strategy="mirrored"),
                   dataset_options={"shape": [28, 28, 1], "classes": 10,
                                    "samples": 2 * args.batch_size * 16})
    print(f"replica agreement: {args.template} on synthetic 28x28x1, mixed_float16, mirrored "
          f"over 2 logical CPU devices, batch {args.batch_size} per replica, "
          f"{args.blocks} alternating block pairs of {args.steps} steps")
    steps = {True: training_step(spec, True), False: training_step(spec, False)}
    times: dict[bool, list[float]] = {True: [], False: []}
    ratios = []
    for block in range(args.blocks):
        for agree in ((True, False) if block % 2 else (False, True)):
            start = time.perf_counter()
            steps[agree](args.steps)
            times[agree].append((time.perf_counter() - start) / args.steps)
        ratios.append(times[True][-1] / times[False][-1])
    with_ms, without_ms = (1000 * statistics.median(times[a]) for a in (True, False))
    print(f"per step: with {with_ms:.3f} ms, without {without_ms:.3f} ms (medians)")
    print(f"with/without step time: median {statistics.median(ratios):.3f} (range "
          f"{min(ratios):.3f}-{max(ratios):.3f}, quartiles "
          f"{' / '.join(f'{q:.3f}' for q in statistics.quantiles(ratios, n=4))})")


if __name__ == "__main__":
    main()
