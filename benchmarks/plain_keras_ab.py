"""A plain Keras float32 vs mixed_float16 A/B, written without any mpstudio code: the
independent side of compare_vs_plain.py.

What a user would write to check a speedup: the mlp template's layers by hand
(Flatten, Dense(1024, relu), Dense(classes), a float32 softmax), one random batch of
128 repeated (as mpstudio's synthetic dataset), Adam at 1e-3, ``model.fit``; under
mixed_float16 Keras wraps the optimizer in a LossScaleOptimizer itself. Trials
alternate float32, mixed, float32, mixed, ...; each is timed by the wall clock
from the start of its third batch (two warm-up steps: tracing) to the end of
training, as mpstudio leaves out its two warm-up steps. float16 on a CPU trains with
TensorFlow's graph optimizer's remapping pass off, as mpstudio does and its README
tells users to (the fused float16 kernels run 60x slower on AVX512-FP16 CPUs).

    python benchmarks/plain_keras_ab.py --shape 32,32,3 --steps 300 --trials 3
prints one JSON line: examples/s of each trial of each side.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import tensorflow as tf

WARMUP = 2


class BatchClock(keras.callbacks.Callback):
    """Wall time from the start of batch WARMUP+1 to the end of training."""

    def __init__(self):
        super().__init__()
        self.batches = 0
        self.start = self.end = 0.0

    def on_train_batch_begin(self, batch, logs=None):
        self.batches += 1
        if self.batches == WARMUP + 1:
            self.start = time.perf_counter()

    def on_train_end(self, logs=None):
        self.end = time.perf_counter()


def build(shape: tuple[int, ...], classes: int) -> keras.Model:
    inputs = keras.Input(shape)
    x = keras.layers.Flatten()(inputs)
    x = keras.layers.Dense(1024, activation="relu")(x)
    x = keras.layers.Dense(classes)(x)
    outputs = keras.layers.Activation("softmax", dtype="float32")(x)
    return keras.Model(inputs, outputs)


def trial(policy: str, shape: tuple[int, ...], classes: int, batch: int, steps: int,
          seed: int) -> float:
    keras.backend.clear_session()
    keras.config.set_dtype_policy(policy)
    unfused = policy == "mixed_float16" and not tf.config.list_physical_devices("GPU")
    if unfused:
        tf.config.optimizer.set_experimental_options({"remapping": False})
    try:
        keras.utils.set_random_seed(seed)
        rng = np.random.default_rng(seed)
        x = rng.random((batch, *shape), dtype=np.float32)
        y = rng.integers(0, classes, batch).astype(np.int32)
        data = tf.data.Dataset.from_tensors((x, y)).repeat(steps).prefetch(tf.data.AUTOTUNE)
        model = build(shape, classes)
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        clock = BatchClock()
        model.fit(data, epochs=1, verbose=0, callbacks=[clock])
        return (steps - WARMUP) * batch / (clock.end - clock.start)
    finally:
        keras.config.set_dtype_policy("float32")
        if unfused:
            tf.config.optimizer.set_experimental_options({"remapping": True})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="32,32,3")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    shape = tuple(int(n) for n in args.shape.split(","))
    out: dict[str, list[float]] = {"float32": [], "mixed_float16": []}
    for _ in range(args.trials):
        for policy in out:
            out[policy].append(trial(policy, shape, args.classes, args.batch_size,
                                     args.steps, seed=0))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
