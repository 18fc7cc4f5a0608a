"""What the engine's events and bookkeeping cost: its steady-state throughput as a
ratio of a plain, hand-written ``model.fit`` on the same model and data.

Both sides use the same template, tf.data pipeline, optimizer and compile
options, in one process, alternating order each round. The plain side is timed
by wall clock over epochs 2..N (epoch 1 warms up). Two engine figures are set
against it:
- steady: the examples/s the engine reports (its warm-up steps excluded), the
  number users see; the target ratio applies to this one;
- wall: the engine's own epoch times over the same epochs 2..N, every cost of
  the engine between and around the steps included.

TensorFlow runs with one intra-op and one inter-op thread here (both sides):
with its default pools on 2 cores, plain fit alone varied by a coefficient of
variation of 23% between identical runs (3% with fixed pools), which would
drown a 3% overhead. ``--threads 0`` keeps TensorFlow's defaults.

    python benchmarks/engine_overhead.py                 # about 4-5 minutes on 2 cores
    python benchmarks/engine_overhead.py --log-every 1   # worst case: a sample every step
    python benchmarks/engine_overhead.py --quick         # smoke run (used by the tests)
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import tensorflow as tf

from mpstudio.engine import device_info
from mpstudio.engine.datasets import load_dataset
from mpstudio.engine.events import CollectingReporter
from mpstudio.engine.precision import make_optimizer
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import validate_spec
from mpstudio.engine.templates import build_model
from mpstudio.engine.trainer.monitor import (
    AUTO_MIN_SAMPLE_INTERVAL,
    WARMUP_STEPS,
    RunMonitor,
    auto_log_every,
)
from mpstudio.engine.trainer.runner import run
from mpstudio.engine.trainer.state_reader import StateReader, fit_running_means
from mpstudio.engine.trainer.xla_decision import xla_request

TARGET = 0.97


def fresh_start() -> None:
    """Free the previous round's models and traced functions, for both sides alike."""
    keras.backend.clear_session()
    gc.collect()


def plain_fit_examples_per_sec(spec: RunSpec) -> float:
    """A user's own script: build, compile, fit; wall clock after one warm-up epoch."""
    fresh_start()
    keras.utils.set_random_seed(spec.seed)
    bundle = load_dataset(spec)
    model = build_model(spec.template, bundle.input_shape, bundle.num_classes, spec.precision,
                        input_scale=bundle.input_scale)
    model.compile(
        optimizer=make_optimizer(spec),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=["accuracy"],
        jit_compile=xla_request(spec, device_info.run_devices(), "default"),
        auto_scale_loss=False,
    )
    model.fit(bundle.train, epochs=1, shuffle=False, verbose=0)  # tracing, autotuning
    start = time.perf_counter()
    model.fit(bundle.train, epochs=spec.epochs - 1, shuffle=False, verbose=0)
    elapsed = time.perf_counter() - start
    return (spec.epochs - 1) * bundle.steps_per_epoch * spec.batch_size / elapsed


def engine_examples_per_sec(spec: RunSpec) -> tuple[float, float]:
    """(steady examples/s as reported, wall-clock examples/s over epochs 2..N)."""
    fresh_start()
    result = run(spec, CollectingReporter())
    if not result.ok or result.summary.steady_examples_per_sec is None:
        raise RuntimeError(f"engine run did not finish: {result.failure}")
    later = result.epochs[1:]
    steps = later[-1].steps - result.epochs[0].steps
    wall = steps * spec.batch_size / sum(e.epoch_time for e in later)
    return result.summary.steady_examples_per_sec, wall


def bookkeeping_cost(spec: RunSpec) -> tuple[float, float]:
    """Seconds the engine adds per step (stop poll, counters) and per sample (the fused
    state read and the event), timed in isolation on a real fitted model: a figure that
    scheduling noise barely touches, to read the ratios against."""
    fresh_start()
    bundle = load_dataset(spec)
    model = build_model(spec.template, bundle.input_shape, bundle.num_classes, spec.precision,
                        input_scale=bundle.input_scale)
    model.compile(optimizer=make_optimizer(spec), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], auto_scale_loss=False)
    model.fit(bundle.train, epochs=1, shuffle=False, verbose=0)  # builds the metrics
    huge = 10**9
    monitor = RunMonitor(
        spec=spec, reporter=CollectingReporter(),
        state=StateReader(fit_running_means(model), model.optimizer),
        steps_per_epoch=huge, total_steps=huge, log_every=huge, label="cost",
    )
    monitor.train_begin()
    monitor.epoch_begin(1)
    for _ in range(WARMUP_STEPS):
        monitor.step_done()  # the warm-up samples (and the one-off trace of the read)
    steps = 20_000
    start = time.perf_counter()
    for _ in range(steps):
        monitor.next_step_is_last()
        monitor.step_done()
    per_step = (time.perf_counter() - start) / steps
    samples = 500
    start = time.perf_counter()
    for _ in range(samples):
        monitor.train_epoch_end()  # closes the window with a sample, as at an epoch's end
        monitor.epoch_begin(1)
        monitor.step_done()
    per_sample = (time.perf_counter() - start) / samples - per_step
    return per_step, per_sample


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--epochs", type=int, default=4, help="per run; the first warms up")
    parser.add_argument("--steps-per-epoch", type=int, default=200)
    parser.add_argument("--template", default="mlp")
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--loop", default="fit", choices=["fit", "custom"])
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1,
                        help="TensorFlow intra- and inter-op threads; 0 = TensorFlow's default")
    parser.add_argument("--log-every", type=int, default=0, help="engine sampling; 0 = auto")
    parser.add_argument("--quick", action="store_true", help="1 round of a tiny run (smoke test)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 below {TARGET}")
    args = parser.parse_args(argv)
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    if args.quick:
        args.rounds, args.epochs, args.steps_per_epoch = 1, 2, 20

    spec = RunSpec(
        dataset="synthetic",
        template=args.template,
        precision=args.precision,
        batch_size=args.batch_size,
        epochs=args.epochs,
        validation_split=0.0,
        loop=args.loop,
        log_every_steps=args.log_every,
        dataset_options={"shape": [28, 28, 1], "classes": 10,
                         "samples": args.steps_per_epoch * args.batch_size},
    )
    validate_spec(spec)
    print(
        f"engine overhead: {spec.template} on synthetic 28x28x1, batch {spec.batch_size}, "
        f"{args.steps_per_epoch} steps/epoch, {spec.epochs} epochs, {spec.precision}, "
        f"{spec.loop} loop, log every {args.log_every or 'auto'}, "
        f"{device_info.run_devices().label}, TensorFlow threads {args.threads or 'default'}"
    )
    steady_ratios, wall_ratios, plains = [], [], []
    for round_no in range(1, args.rounds + 1):
        if round_no % 2:  # alternate who goes first: drift hits both sides alike
            plain = plain_fit_examples_per_sec(spec)
            steady, wall = engine_examples_per_sec(spec)
        else:
            steady, wall = engine_examples_per_sec(spec)
            plain = plain_fit_examples_per_sec(spec)
        plains.append(plain)
        steady_ratios.append(steady / plain)
        wall_ratios.append(wall / plain)
        print(f"round {round_no}: plain fit {plain:,.0f} ex/s   engine steady {steady:,.0f} "
              f"ex/s ({steady / plain:.3f})   engine wall {wall:,.0f} ex/s ({wall / plain:.3f})",
              flush=True)
    ratio = statistics.median(steady_ratios)
    print(f"engine wall-clock/plain ratio: {statistics.median(wall_ratios):.3f} "
          f"(rounds {min(wall_ratios):.3f}..{max(wall_ratios):.3f})")
    per_step, per_sample = bookkeeping_cost(spec)
    step_time = spec.batch_size / statistics.median(plains)
    every = args.log_every or auto_log_every(args.steps_per_epoch)
    if not args.log_every:  # automatic sampling also keeps a minimum interval
        every = max(every, math.ceil(AUTO_MIN_SAMPLE_INTERVAL / step_time))
    share = (per_step + per_sample / every) / step_time
    print(f"engine bookkeeping: {per_step * 1e6:.1f} us per step + {per_sample * 1e3:.2f} ms "
          f"per sample, sampled every {every} steps of {step_time * 1e3:.1f} ms: "
          f"{100 * share:.2f}% of step time (expected ratio {1 / (1 + share):.3f})")
    print(f"engine/plain throughput ratio: {ratio:.3f} (target >= {TARGET}; "
          f"rounds {min(steady_ratios):.3f}..{max(steady_ratios):.3f})")
    return 1 if args.check and ratio < TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
